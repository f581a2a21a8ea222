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

/// One row per class with at least one object.
///
/// The class and size columns are matched once (two bytes or four), not per object: the
/// TUI draws its first histogram from this, on the UI thread, while the loading thread
/// reads the dominator tree on every core (so no parallel pass here, which would queue
/// behind it); a plain loop over [`super::CompactColumn::iter`] and
/// [`Graph::shallow_size`] took three times as long on 50 M objects.
pub fn by_class(g: &Graph) -> Vec<Row> {
    use super::CompactColumn::{Narrow, Wide};
    let k = g.classes.len();
    let (mut count, mut shallow) = (vec![0u64; k], vec![0u64; k]);
    let (c, s) = (&mut count[..], &mut shallow[..]);
    match (&g.class_of, &g.shallow) {
        (Narrow(cl), Narrow(sh)) => add_all(g, cl, sh, c, s),
        (Narrow(cl), Wide(sh)) => add_all(g, cl, sh, c, s),
        (Wide(cl), Narrow(sh)) => add_all(g, cl, sh, c, s),
        (Wide(cl), Wide(sh)) => add_all(g, cl, sh, c, s),
    }
    g.classes
        .iter()
        .enumerate()
        .filter(|(c, _)| count[*c] > 0)
        .map(|(c, info)| Row {
            class: Some(c as ClassId),
            name: info.name.clone(),
            count: count[c],
            shallow: shallow[c],
            retained: None,
        })
        .collect()
}

/// Counts and sizes every object, given the class and shallow size columns as they are
/// kept (a size kept aside is the column's escape value, looked up).
fn add_all<C: Copy + Into<u32>, S: Copy + Into<u32>>(
    g: &Graph,
    class_of: &[C],
    shallow: &[S],
    count: &mut [u64],
    sizes: &mut [u64],
) {
    let escape = g.shallow.escape();
    for (o, (&c, &s)) in class_of.iter().zip(shallow).enumerate() {
        let (c, s) = (c.into() as usize, s.into());
        count[c] += 1;
        sizes[c] += if s == escape {
            g.shallow_size(o as u32)
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
