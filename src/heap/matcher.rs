//! The one text matcher behind `/` in the TUI and `--filter` in the CLI: a pattern
//! matches a name exactly, as its prefix, as a substring (all three ignoring case), or,
//! failing those, fuzzily (skim's algorithm: the pattern's characters in order). The
//! kinds rank in that order, so that typing a class's whole name puts it first
//! (`/Detached <div` lists the detached divs before every fuzzy match), and each
//! match says which kind it is ([`Kind::mark`]). The CLI's `--filter` keeps the
//! substring kinds only, as the contract's "contains" says; the TUI adds the fuzzy
//! matches after them.

use fuzzy_matcher::skim::SkimMatcherV2;
use fuzzy_matcher::FuzzyMatcher;

/// How a name matched, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Exact,
    Prefix,
    Substring,
    /// A name some letters off the pattern ([`nearest`]): what a typo meant. The
    /// matcher itself never says it; a list that finds no better match puts these first.
    Near,
    Fuzzy,
}

impl Kind {
    /// The mark a list shows beside a match of this kind.
    pub fn mark(self) -> char {
        match self {
            Kind::Exact => '=',
            Kind::Prefix => '^',
            Kind::Substring => '+',
            Kind::Near => '?',
            Kind::Fuzzy => '~',
        }
    }
}

pub struct Matcher {
    pattern: String,
    lower: String,
    fuzzy: SkimMatcherV2,
}

impl Matcher {
    pub fn new(pattern: &str) -> Self {
        Matcher {
            pattern: pattern.to_string(),
            lower: pattern.to_lowercase(),
            fuzzy: SkimMatcherV2::default(),
        }
    }

    /// How `text` matches, if it does; an empty pattern matches everything exactly.
    pub fn find(&self, text: &str) -> Option<Kind> {
        if self.lower.is_empty() {
            return Some(Kind::Exact);
        }
        if let Some(k) = self.substring(text) {
            return Some(k);
        }
        // A fuzzy match has the pattern's characters in order: most texts fail this
        // check, which costs a scan, before the matcher's scoring, which costs a table
        // (the values of millions of instances are matched at once).
        if !self.in_order(text) {
            return None;
        }
        self.fuzzy
            .fuzzy_match(text, &self.pattern)
            .map(|_| Kind::Fuzzy)
    }

    /// Whether the pattern's characters appear in `text` in order, ignoring case: what
    /// every fuzzy match needs, whatever its case rule. Checked on ASCII only (elsewhere
    /// a character's lowercase can be two); other texts pass.
    fn in_order(&self, text: &str) -> bool {
        if !text.is_ascii() || !self.lower.is_ascii() {
            return true;
        }
        let mut want = self.lower.bytes().peekable();
        for c in text.bytes() {
            let Some(&w) = want.peek() else { break };
            if c.to_ascii_lowercase() == w {
                want.next();
            }
        }
        want.peek().is_none()
    }

    /// The substring kinds alone (what `--filter` keeps).
    pub fn substring(&self, text: &str) -> Option<Kind> {
        if self.lower.is_empty() {
            return Some(Kind::Exact);
        }
        // ASCII names (most) are compared without a lowercase copy.
        let (exact, prefix, contains) = if text.is_ascii() && self.lower.is_ascii() {
            let t = text.as_bytes();
            let p = self.lower.as_bytes();
            let eq = |a: &[u8]| a.eq_ignore_ascii_case(p);
            (
                eq(t),
                t.len() >= p.len() && eq(&t[..p.len()]),
                t.windows(p.len()).any(eq),
            )
        } else {
            let l = text.to_lowercase();
            (
                l == self.lower,
                l.starts_with(&self.lower),
                l.contains(&self.lower),
            )
        };
        if exact {
            Some(Kind::Exact)
        } else if prefix {
            Some(Kind::Prefix)
        } else if contains {
            Some(Kind::Substring)
        } else {
            None
        }
    }
}

/// The names nearest to `wanted` by edit distance, ignoring case (cargo's and git's "did
/// you mean", a swap of two neighbours counting as one edit: `LeakyEntyr` for
/// `LeakyEntry`): against the whole name, or against its last part (after `.`, `$`, `::`
/// or `/`) when `wanted` has no separator. Within one edit per 5 letters of `wanted` (up
/// to 3; no guess under 5 letters: `Main` is 1 edit from too many names), the nearest
/// only, in name order.
pub fn nearest<'a>(names: impl Iterator<Item = &'a str>, wanted: &str) -> Vec<&'a str> {
    let letters = wanted.chars().count();
    if letters < 5 {
        return Vec::new();
    }
    let limit = (letters / 5).clamp(1, 3);
    let lower = wanted.to_lowercase();
    let qualified = wanted.contains(['.', '$', ':', '/']);
    let mut near: Vec<(usize, &str)> = names
        .filter_map(|n| {
            let full = n.to_lowercase();
            let last = full.rsplit(['.', '$', ':', '/']).next().unwrap_or(&full);
            let d = if qualified {
                strsim::osa_distance(&lower, &full)
            } else {
                strsim::osa_distance(&lower, last).min(strsim::osa_distance(&lower, &full))
            };
            (d <= limit).then_some((d, n))
        })
        .collect();
    near.sort_unstable();
    near.dedup_by(|a, b| a.1 == b.1);
    let best = near.first().map_or(0, |x| x.0);
    near.into_iter()
        .take_while(|x| x.0 == best)
        .map(|x| x.1)
        .collect()
}

/// What to add to "no class named `wanted`": the class meant, when `wanted` is the end
/// of exactly one class name after a separator (`LeakyEntry` of `holdout.LeakyEntry`,
/// `Node` of `java.util.HashMap$Node`, `Order` of `package:app/model.dart::Order`) or
/// equals one but for case; the candidates when there are a few; else nothing. `names`
/// are the classes that have instances (what `--class` can pick from).
pub fn class_suggestion<'a>(names: impl Iterator<Item = &'a str> + Clone, wanted: &str) -> String {
    if wanted.is_empty() {
        return String::new();
    }
    let names_again = names.clone();
    let lower = wanted.to_lowercase();
    // The end of a name after a separator, with the case as given or, failing that, in
    // any case (`string` for `java.lang.String`).
    let ends = |n: &str, w: &str| {
        n.len() > w.len()
            && n.is_char_boundary(n.len() - w.len())
            && n[..n.len() - w.len()]
                .chars()
                .next_back()
                .is_some_and(|c| !c.is_alphanumeric() && c != '_')
    };
    let mut suffix: Vec<&str> = Vec::new();
    let mut suffix_caseless: Vec<&str> = Vec::new();
    let mut caseless: Vec<&str> = Vec::new();
    for n in names {
        if n.ends_with(wanted) && ends(n, wanted) {
            suffix.push(n);
        } else if n.to_lowercase() == lower {
            caseless.push(n);
        } else if n.to_lowercase().ends_with(&lower) && ends(&n.to_lowercase(), &lower) {
            suffix_caseless.push(n);
        }
    }
    if suffix.is_empty() && caseless.is_empty() {
        suffix = suffix_caseless;
    }
    suffix.sort_unstable();
    suffix.dedup();
    let list = |v: &[&str]| {
        v.iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if suffix.is_empty() && caseless.is_empty() {
        return near_classes(names_again, wanted);
    }
    match (suffix.as_slice(), caseless.as_slice()) {
        ([one], _) => format!(": did you mean `{one}`?"),
        ([], [one]) => format!(": did you mean `{one}`?"),
        (several, _) if (2..=8).contains(&several.len()) => {
            format!(": several classes end in `{wanted}`: {}", list(several))
        }
        (several, _) if several.len() > 8 => format!(
            ": {} classes end in `{wanted}`, such as {}",
            several.len(),
            list(&several[..5])
        ),
        _ => String::new(),
    }
}

/// The classes nearest to `wanted` by edit distance ([`crate::heap::matcher::nearest`]):
/// one is suggested, a few are listed, none gives nothing.
fn near_classes<'a>(names: impl Iterator<Item = &'a str>, wanted: &str) -> String {
    match nearest(names, wanted).as_slice() {
        [] => String::new(),
        [one] => format!(": did you mean `{one}`?"),
        several => format!(
            ": did you mean one of {}?",
            several
                .iter()
                .take(5)
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_rank_exact_prefix_substring_fuzzy() {
        let m = Matcher::new("Detached <div");
        assert_eq!(m.find("Detached <div>"), Some(Kind::Prefix));
        assert_eq!(m.find("detached <div"), Some(Kind::Exact));
        assert_eq!(m.find("HTMLDetached <div>"), Some(Kind::Substring));
        assert_eq!(m.find("Detached <a> with a div"), Some(Kind::Fuzzy));
        assert_eq!(m.find("Window"), None);
        // The order check before the scoring: out of order is no match, either case.
        assert_eq!(Matcher::new("ab").find("xAyBz"), Some(Kind::Fuzzy));
        assert_eq!(Matcher::new("ab").find("xByAz"), None);
        assert_eq!(m.substring("Detached <a> with a div"), None);
        assert!(Kind::Exact < Kind::Prefix && Kind::Substring < Kind::Fuzzy);
        // Non-ASCII names compare by their lowercase too.
        let u = Matcher::new("ÉTÉ");
        assert_eq!(u.find("été"), Some(Kind::Exact));
        assert_eq!(Matcher::new("").find("x"), Some(Kind::Exact));
    }
}
