//! The waste report's model and rules, format-neutral: what a duplicate string, a
//! duplicate array and a sparse collection are, how contents are keyed, when a
//! collection is sparse, and how its holder is put in words. `crate::waste` finds them
//! through the index; `format::hprof::quick_waste` without it. Both use these.

use std::collections::HashMap;

use super::ObjId;

/// Equal text held by `count` distinct string objects.
#[derive(Clone, Debug, PartialEq)]
pub struct DupString {
    pub text: String,
    pub count: u64,
    /// What one copy costs (for Java: the `String` and its value array).
    pub bytes_each: u64,
    pub example: ObjId,
}

impl DupString {
    pub fn wasted_bytes(&self) -> u64 {
        self.count.saturating_sub(1) * self.bytes_each
    }
}

/// Equal contents held by `count` distinct primitive arrays of one class.
#[derive(Clone, Debug, PartialEq)]
pub struct DupArray {
    /// The example's label (Go: its printable text), when it has one.
    pub preview: Option<String>,
    pub length: u64,
    pub count: u64,
    pub bytes_each: u64,
    pub example: ObjId,
}

impl DupArray {
    pub fn wasted_bytes(&self) -> u64 {
        self.count.saturating_sub(1) * self.bytes_each
    }
}

/// Collections of one class held by one reference, whose capacity is far above their
/// size: `size` entries in `capacity` slots over `count` collections.
#[derive(Clone, Debug, PartialEq)]
pub struct Sparse {
    pub class: String,
    pub holder: String,
    pub count: u64,
    pub size: u64,
    pub capacity: u64,
    pub wasted_bytes: u64,
    pub example: ObjId,
}

/// The waste report, each list largest `wasted_bytes` first.
#[derive(Clone, Debug, Default)]
pub struct Waste {
    pub strings: Vec<DupString>,
    pub arrays: Vec<DupArray>,
    pub sparse: Vec<Sparse>,
    /// Why there can be no duplicate strings in this format, when there cannot.
    pub strings_note: Option<String>,
}

impl Waste {
    pub fn total_wasted(&self) -> u64 {
        self.strings.iter().map(|s| s.wasted_bytes()).sum::<u64>()
            + self.arrays.iter().map(|a| a.wasted_bytes()).sum::<u64>()
            + self.sparse.iter().map(|c| c.wasted_bytes).sum::<u64>()
    }
}

/// A collection is sparse from this capacity up (below it, the defaults: 16 slots of an
/// empty `HashMap`, 10 of an `ArrayList`, are everywhere and cost little)...
const SPARSE_MIN_CAPACITY: u64 = 32;

/// ... when its capacity is at least this many times its size.
const SPARSE_RATIO: u64 = 4;

/// The bytes a collection of `size` entries in `capacity` slots wastes, when it is
/// sparse; `array_bytes` is its slot array's shallow size.
pub fn sparse_waste(capacity: u64, size: u64, array_bytes: u64) -> Option<u64> {
    if capacity < SPARSE_MIN_CAPACITY || capacity < SPARSE_RATIO * size.max(1) {
        return None;
    }
    // Slots that cost nothing waste nothing: no finding.
    Some((capacity - size) * (array_bytes / capacity.max(1))).filter(|&w| w > 0)
}

/// What equal contents are grouped by: the hash of an object's bytes (XXH3, 128 bits),
/// mixed with its length, its class (0 for a string of any string class) and the
/// encoding of its bytes.
pub fn content_key(data_hash: u128, length: u64, class: u64, encoding: u64) -> u128 {
    let mix = |mut x: u64| {
        // splitmix64's finaliser.
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    };
    let a = mix(length ^ class.rotate_left(40) ^ encoding << 58);
    data_hash ^ ((a as u128) << 64 | mix(a) as u128)
}

pub const SPARSE_CLASSES: [&str; 9] = [
    "java.util.HashMap",
    "java.util.LinkedHashMap",
    "java.util.ArrayList",
    "java.util.ArrayDeque",
    "java.util.Vector",
    "java.util.Hashtable",
    "java.util.WeakHashMap",
    "java.util.IdentityHashMap",
    "java.util.concurrent.ConcurrentHashMap",
];

/// Sparse collections grouped by class and holder, largest waste first, at most `top`:
/// from (example, class, holder, capacity, size, wasted bytes).
pub fn group_sparse(
    found: impl Iterator<Item = (ObjId, String, String, u64, u64, u64)>,
    top: usize,
) -> Vec<Sparse> {
    let mut groups: HashMap<(String, String), Sparse> = HashMap::new();
    for (o, class, holder, capacity, size, wasted) in found {
        let e = groups
            .entry((class.clone(), holder.clone()))
            .or_insert(Sparse {
                class,
                holder,
                count: 0,
                size: 0,
                capacity: 0,
                wasted_bytes: 0,
                example: o,
            });
        e.count += 1;
        e.size += size;
        e.capacity += capacity;
        e.wasted_bytes += wasted;
        e.example = e.example.min(o);
    }
    let mut out: Vec<Sparse> = groups.into_values().collect();
    out.sort_by(|a, b| {
        b.wasted_bytes
            .cmp(&a.wasted_bytes)
            .then(a.example.cmp(&b.example))
    });
    out.truncate(top);
    out
}

/// A Java reference in words, as the leak suspects name a holder (`static NAME of
/// Owner` when `from_class` is `java.lang.Class` and `owner` the class it stands for,
/// else `field NAME of X`), and whether it ends the holder (a static does).
/// `format::hprof`'s suspects' words and the waste report without the index both use it.
pub fn java_reference_words(from_class: &str, label: &str, owner: Option<&str>) -> (String, bool) {
    if from_class == "java.lang.Class" {
        let owner = owner.unwrap_or(from_class);
        let field = label.trim_start_matches("static ");
        (format!("static {field} of {owner}"), true)
    } else {
        (format!("field {label} of {from_class}"), false)
    }
}

/// The reference holding a collection, in words: what [`java_reference_words`] says, with
/// names cut as the suspects cut them ([`cut`]).
pub fn holder_words(from_class: &str, label: &str, owner: Option<&str>) -> String {
    java_reference_words(&cut(from_class, 60), &cut(label, 60), owner).0
}

/// An object held inside a container (a collection, through its backing array or
/// entries), named by the container and what holds it: `java.util.ArrayList in static
/// MAPS of holdout.SparseIndex`.
pub fn in_container(container_class: &str, holder: &str) -> String {
    format!("{} in {holder}", cut(container_class, 60))
}

/// `s` cut to `max` characters, with `…` where it was cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
