//! Whether a walk without the index may count every object record it meets: the index
//! keeps the first record of an object id that repeats (and warns), so a pass that counts
//! records answers the same only when no id repeats. Proving that costs the walks a
//! compare per record: the object ids of each body are cut into increasing runs (HotSpot
//! writes every object in address order: a handful of runs per segment), and no id
//! repeats when no two runs overlap. Class dumps come in no order (HotSpot's first
//! segment lists them by hash), but they are few: their ids must be distinct and each a
//! class the file loaded (LOAD CLASS), and no object's id one of those, which a bit
//! filter of the loaded ids checks at a load per object. Where any of this fails — a
//! record written twice, segments doubled, a writer in no order — the quick pass leaves
//! the file to the index, which finds the repeats, keeps the first and warns (issue 40,
//! defect 6). Every JDK, JVMTI and ART file at hand passes (`tests/no_cache/hprof_quick.rs`).

/// Most runs a walk keeps before it gives up proving (a file in no order at all): 16 bytes
/// each.
const MAX_RUNS: usize = 1 << 20;

/// The ids of the classes a file loads (its LOAD CLASS records): a bit per hash for the
/// walk's test of each object, and the ids in order for the few that hit.
pub(super) struct Loaded {
    bits: Vec<u64>,
    shift: u32,
    ids: Vec<u64>,
}

impl Loaded {
    pub fn new(ids: impl Iterator<Item = u64>) -> Loaded {
        let mut ids: Vec<u64> = ids.collect();
        ids.sort_unstable();
        // About 64 bits per class: one object in 64 or so goes on to the search.
        let bits = (ids.len().max(1) * 64).next_power_of_two().max(64);
        let shift = 64 - bits.trailing_zeros();
        let mut l = Loaded {
            bits: vec![0; bits / 64],
            shift,
            ids,
        };
        for i in 0..l.ids.len() {
            let h = l.hash(l.ids[i]);
            l.bits[h / 64] |= 1 << (h % 64);
        }
        l
    }

    #[inline]
    fn hash(&self, id: u64) -> usize {
        (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    pub fn contains(&self, id: u64) -> bool {
        let h = self.hash(id);
        self.bits[h / 64] & (1 << (h % 64)) != 0 && self.ids.binary_search(&id).is_ok()
    }
}

/// The increasing runs of object ids of one or more bodies, and their class dumps' ids.
#[derive(Default)]
pub(super) struct IdRuns {
    runs: Vec<(u64, u64)>,
    current: Option<(u64, u64)>,
    /// More runs than [`MAX_RUNS`]: nothing can be proven.
    too_many: bool,
    classes: Vec<u64>,
    /// An object record's id is a loaded class's.
    object_is_class: bool,
}

impl IdRuns {
    /// A class dump's id.
    #[inline]
    pub fn class(&mut self, id: u64) {
        self.classes.push(id);
    }

    /// The next object record's id (an instance or an array), in file order within one
    /// body.
    #[inline]
    pub fn object(&mut self, id: u64, loaded: &Loaded) {
        self.object_is_class |= loaded.contains(id);
        self.push(id);
    }

    #[inline]
    fn push(&mut self, id: u64) {
        match &mut self.current {
            Some((_, last)) if id > *last => *last = id,
            _ => {
                if let Some(r) = self.current.replace((id, id)) {
                    self.keep(r);
                }
            }
        }
    }

    fn keep(&mut self, r: (u64, u64)) {
        if self.runs.len() >= MAX_RUNS {
            self.too_many = true;
        } else {
            self.runs.push(r);
        }
    }

    /// Ends the body's last run.
    pub fn end_body(&mut self) {
        if let Some(r) = self.current.take() {
            self.keep(r);
        }
    }

    /// Adds another walk's runs (its bodies ended).
    pub fn add(&mut self, mut other: IdRuns) {
        other.end_body();
        self.end_body();
        self.too_many |= other.too_many;
        self.object_is_class |= other.object_is_class;
        self.classes.append(&mut other.classes);
        for r in other.runs {
            self.keep(r);
        }
    }

    /// Whether no id is in two records: the objects' runs increasing and none
    /// overlapping, no object a loaded class, the class dumps' ids distinct and each
    /// loaded.
    pub fn unique(mut self, loaded: &Loaded) -> bool {
        self.end_body();
        if self.too_many || self.object_is_class {
            return false;
        }
        self.runs.sort_unstable();
        if !self.runs.windows(2).all(|w| w[1].0 > w[0].1) {
            return false;
        }
        self.classes.sort_unstable();
        self.classes.windows(2).all(|w| w[1] > w[0])
            && self
                .classes
                .iter()
                .all(|&c| loaded.ids.binary_search(&c).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::{IdRuns, Loaded};

    /// Bodies of object ids, and of class ids (negative here), against `loaded`.
    fn check(bodies: &[&[i64]], loaded: &[u64]) -> bool {
        let loaded = Loaded::new(loaded.iter().copied());
        let mut all = IdRuns::default();
        for b in bodies {
            let mut r = IdRuns::default();
            for &id in *b {
                if id < 0 {
                    r.class(id.unsigned_abs());
                } else {
                    r.object(id as u64, &loaded);
                }
            }
            all.add(r);
        }
        all.unique(&loaded)
    }

    fn unique(bodies: &[&[i64]]) -> bool {
        check(bodies, &[])
    }

    #[test]
    fn class_dumps_in_any_order_are_distinct_loaded_and_no_object() {
        let loaded = [1000, 50, 7000];
        assert!(check(&[&[-7000, -50, -1000, 1, 2, 3]], &loaded));
        assert!(
            !check(&[&[-7000, -50, -7000, 1, 2, 3]], &loaded),
            "a class twice"
        );
        assert!(
            !check(&[&[-7000, -51, 1, 2, 3]], &loaded),
            "a class not loaded"
        );
        assert!(
            !check(&[&[-7000, 1, 2, 50]], &loaded),
            "an object with a class's id"
        );
        // Many loaded classes, none hit by a long run of objects.
        let many: Vec<u64> = (0..10_000).map(|i| 1_000_000 + i * 16).collect();
        let objects: Vec<i64> = (0..100_000).map(|i| i * 8).collect();
        assert!(check(&[&objects], &many));
    }

    #[test]
    fn runs_prove_ids_unique_or_do_not() {
        assert!(unique(&[&[1, 2, 3], &[10, 11], &[4, 5]]));
        // Class dumps first, then the objects: two runs that do not overlap.
        assert!(unique(&[&[100, 200, 1, 2, 3]]));
        // A repeat inside a body, across bodies, a body doubled.
        assert!(!unique(&[&[1, 2, 2, 3]]));
        assert!(!unique(&[&[1, 2, 3], &[3, 4]]));
        assert!(!unique(&[&[1, 5, 9], &[1, 5, 9]]));
        // Interleaved without a repeat: not provable, so not claimed.
        assert!(!unique(&[&[1, 5, 9], &[2, 6]]));
        assert!(unique(&[]));
    }
}
