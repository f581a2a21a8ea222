//! Usage errors that say what was probably meant: a misspelt command (`histgram`), a class
//! named without its package (`--class LeakyEntry`), three snapshots without `leaks`.
//! Only the words of the errors live here; deciding that something is an error is the
//! caller's.

use clap::CommandFactory;

use super::Cli;

/// The commands of the command line, as clap knows them (`help` left out).
fn command_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| n != "help")
        .collect()
}

/// Edit distance between `a` and `b` by characters, a swap of two neighbours counting
/// as one edit (`Entyr` for `Entry`): the optimal string alignment distance of `strsim`.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// The command `word` most likely misspells: the one nearest by edit distance, when it is
/// at most 2 away (1 for words of up to 4 letters) and no other command is as near, or
/// the only command that `word` begins (`hist`). `None` for a word that is a command.
pub fn command_suggestion(word: &str) -> Option<String> {
    let names = command_names();
    if word.is_empty() || names.iter().any(|n| n == word) {
        return None;
    }
    let lower = word.to_lowercase();
    let starting: Vec<&String> = names.iter().filter(|n| n.starts_with(&lower)).collect();
    if lower.len() >= 3 && starting.len() == 1 {
        return Some(starting[0].clone());
    }
    let limit = if lower.chars().count() <= 4 { 1 } else { 2 };
    let mut scored: Vec<(usize, &String)> = names
        .iter()
        .map(|n| (edit_distance(&lower, n), n))
        .filter(|&(d, _)| d <= limit)
        .collect();
    scored.sort();
    match scored.as_slice() {
        [(d, n), rest @ ..] if rest.first().is_none_or(|(e, _)| e > d) => Some((*n).clone()),
        _ => None,
    }
}

/// The error for a first argument that is neither a file nor a command but close to one.
pub fn unknown_command(word: &str, meant: &str) -> String {
    format!(
        "`{word}` is neither a file nor a command: did you mean `{meant}`? (see heaptui --help)"
    )
}

/// The error for a number of snapshots the TUI does not open (it takes one, two or three).
pub fn snapshot_count(_n: usize) -> String {
    "usage: heaptui FILE | heaptui BASE TARGET | heaptui BASELINE TARGET FINAL | heaptui \
     <COMMAND> ... (see heaptui --help)"
        .to_string()
}

pub use crate::heap::matcher::class_suggestion;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_commands_are_found_and_commands_are_not_misspelt() {
        assert_eq!(command_suggestion("histgram").as_deref(), Some("histogram"));
        assert_eq!(command_suggestion("sumary").as_deref(), Some("summary"));
        assert_eq!(
            command_suggestion("dominator").as_deref(),
            Some("dominators")
        );
        assert_eq!(command_suggestion("lekas").as_deref(), Some("leaks"));
        assert_eq!(command_suggestion("insp").as_deref(), Some("inspect"));
        assert_eq!(command_suggestion("histogram"), None);
        assert_eq!(command_suggestion("app.hprof"), None);
        assert_eq!(command_suggestion("x"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn a_class_is_suggested_by_a_unique_suffix_after_a_separator() {
        let names = [
            "holdout.LeakyEntry",
            "holdout.NotLeakyEntry",
            "java.util.HashMap$Node",
            "java.util.TreeMap$Node",
            "java.lang.String",
        ];
        let s = |w: &str| class_suggestion(names.iter().copied(), w);
        assert_eq!(s("LeakyEntry"), ": did you mean `holdout.LeakyEntry`?");
        assert_eq!(s("java.lang.string"), ": did you mean `java.lang.String`?");
        assert_eq!(s("string"), ": did you mean `java.lang.String`?");
        assert_eq!(s("leakyentry"), ": did you mean `holdout.LeakyEntry`?");
        assert_eq!(
            s("Node"),
            ": several classes end in `Node`: `java.util.HashMap$Node`, `java.util.TreeMap$Node`"
        );
        assert_eq!(s("Nothing"), "");
        assert_eq!(s("Entry"), "");
    }
}
