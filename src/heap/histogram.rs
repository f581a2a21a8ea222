//! The class histogram: count and shallow bytes per class (retained bytes once the
//! dominator tree exists), grouping by package, sorting and filtering. Format-neutral.

use super::{ClassId, Graph};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The class this row counts, or `None` for a package group.
    pub class: Option<ClassId>,
    pub name: String,
    pub count: u64,
    pub shallow: u64,
    pub retained: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Count,
    Shallow,
    Retained,
    Name,
}

impl SortKey {
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Count => "count",
            SortKey::Shallow => "shallow",
            SortKey::Retained => "retained",
            SortKey::Name => "name",
        }
    }
}

/// One row per class with at least one object (from [`totals`]).
pub fn by_class(g: &Graph) -> Vec<Row> {
    let t = totals(g);
    g.classes
        .iter()
        .enumerate()
        .filter(|(c, _)| t.count[*c] > 0)
        .map(|(c, info)| Row {
            class: Some(c as ClassId),
            name: info.name.clone(),
            count: t.count[c],
            shallow: t.shallow[c],
            retained: None,
        })
        .collect()
}

/// The objects and their shallow bytes per class, by class id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassTotals {
    pub count: Vec<u64>,
    pub shallow: Vec<u64>,
}

/// `g`'s [`ClassTotals`]: counted once per index (kept in [`Graph::class_totals`]; an
/// index read from the cache has them from its entry).
///
/// Counted by blocks of objects on every core, each block's class and size columns
/// matched once (two bytes or four) rather than per object: a plain loop over
/// [`super::CompactColumn::iter`] and [`Graph::shallow_size`] took 0.15 s on 50 M
/// objects, on the way to the TUI's first histogram.
pub fn totals(g: &Graph) -> &ClassTotals {
    g.class_totals.get_or_init(|| count(g))
}

fn count(g: &Graph) -> ClassTotals {
    use super::CompactColumn::{Narrow, Wide};
    use rayon::prelude::*;
    const BLOCK: usize = 1 << 16;
    let (n, k) = (g.len(), g.classes.len());
    let empty = || (vec![0u64; k], vec![0u64; k]);
    let (count, shallow) = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .fold(empty, |(mut count, mut sizes), b| {
            let r = b * BLOCK..((b + 1) * BLOCK).min(n);
            let (c, s) = (&mut count[..], &mut sizes[..]);
            match (&g.class_of, &g.shallow) {
                (Narrow(cl), Narrow(sh)) => add(g, r.start, &cl[r.clone()], &sh[r], c, s),
                (Narrow(cl), Wide(sh)) => add(g, r.start, &cl[r.clone()], &sh[r], c, s),
                (Wide(cl), Narrow(sh)) => add(g, r.start, &cl[r.clone()], &sh[r], c, s),
                (Wide(cl), Wide(sh)) => add(g, r.start, &cl[r.clone()], &sh[r], c, s),
            }
            (count, sizes)
        })
        .reduce(empty, |(mut c, mut s), (c2, s2)| {
            c.iter_mut().zip(c2).for_each(|(x, y)| *x += y);
            s.iter_mut().zip(s2).for_each(|(x, y)| *x += y);
            (c, s)
        });
    ClassTotals { count, shallow }
}

/// Counts and sizes the objects `first..` whose classes and shallow sizes (as the
/// columns keep them: a size kept aside is the column's escape value, looked up) are
/// given.
fn add<C: Copy + Into<u32>, S: Copy + Into<u32>>(
    g: &Graph,
    first: usize,
    class_of: &[C],
    shallow: &[S],
    count: &mut [u64],
    sizes: &mut [u64],
) {
    let escape = g.shallow.escape();
    for (k, (&c, &s)) in class_of.iter().zip(shallow).enumerate() {
        let (c, s) = (c.into() as usize, s.into());
        count[c] += 1;
        sizes[c] += if s == escape {
            g.shallow_size((first + k) as u32)
        } else {
            s as u64
        };
    }
}

/// The package (Java), library (Dart) or module a class name belongs to.
pub fn package_of(name: &str) -> &str {
    if let Some(i) = name.rfind("::") {
        return &name[..i];
    }
    let base = name.trim_end_matches("[]");
    match base.rfind('.') {
        Some(i) => &base[..i],
        None => "(default package)",
    }
}

/// Sums class rows into package rows.
pub fn group_by_package(rows: &[Row]) -> Vec<Row> {
    let mut map: std::collections::BTreeMap<&str, Row> = Default::default();
    for r in rows {
        let p = package_of(&r.name);
        let e = map.entry(p).or_insert_with(|| Row {
            class: None,
            name: p.to_string(),
            count: 0,
            shallow: 0,
            retained: None,
        });
        e.count += r.count;
        e.shallow += r.shallow;
    }
    map.into_values().collect()
}

/// Fills in class rows' retained sizes from per-class totals (indexed by class id).
pub fn add_retained(rows: &mut [Row], per_class: &[u64]) {
    for r in rows {
        if let Some(c) = r.class {
            r.retained = per_class.get(c as usize).copied();
        }
    }
}

/// Every class's package, as (class → package number, package names). Retained sizes
/// of packages are computed over this grouping, not summed from classes: a `HashMap`
/// retains its `HashMap$Node`s, and both are `java.util`.
pub fn package_groups(g: &Graph) -> (Vec<u32>, Vec<String>) {
    let mut names: Vec<String> = Vec::new();
    let mut index: std::collections::HashMap<&str, u32> = Default::default();
    let map = g
        .classes
        .iter()
        .map(|c| {
            let p = package_of(&c.name);
            *index.entry(p).or_insert_with(|| {
                names.push(p.to_string());
                (names.len() - 1) as u32
            })
        })
        .collect();
    (map, names)
}

/// Sorts largest first (by name: alphabetical), ties broken by name so output is stable.
pub fn sort(rows: &mut [Row], key: SortKey) {
    match key {
        SortKey::Count => rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name))),
        SortKey::Shallow => {
            rows.sort_by(|a, b| b.shallow.cmp(&a.shallow).then(a.name.cmp(&b.name)))
        }
        SortKey::Retained => {
            rows.sort_by(|a, b| b.retained.cmp(&a.retained).then(a.name.cmp(&b.name)))
        }
        SortKey::Name => rows.sort_by(|a, b| a.name.cmp(&b.name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages() {
        assert_eq!(package_of("java.util.HashMap$Node"), "java.util");
        assert_eq!(package_of("java.lang.String[][]"), "java.lang");
        assert_eq!(package_of("byte[]"), "(default package)");
        assert_eq!(package_of("dart:core::_List"), "dart:core");
    }
}
