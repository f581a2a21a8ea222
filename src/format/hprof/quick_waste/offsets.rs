//! Where the records the second reading needs are (see the parent module).

/// Record offsets in ascending order, each kept as its distance from the one before in
/// four bytes (about a third of the eight an offset takes; a distance that does not
/// fit is escaped and kept whole).
#[derive(Default)]
pub(crate) struct Offsets {
    deltas: Vec<u32>,
    last: u64,
}

impl Offsets {
    pub(crate) fn push(&mut self, off: u64) {
        let d = off - self.last;
        if d < u32::MAX as u64 {
            self.deltas.push(d as u32);
        } else {
            self.deltas
                .extend([u32::MAX, (off >> 32) as u32, off as u32]);
        }
        self.last = off;
    }

    /// Gives back the room the list does not use.
    pub(crate) fn shrink(&mut self) {
        self.deltas.shrink_to_fit();
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let mut it = self.deltas.iter();
        let mut at = 0u64;
        std::iter::from_fn(move || {
            let &d = it.next()?;
            at = if d == u32::MAX {
                let hi = *it.next()? as u64;
                hi << 32 | *it.next()? as u64
            } else {
                at + d as u64
            };
            Some(at)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_read_back_in_order_near_and_far_apart() {
        let want = [
            0u64,
            9,
            10,
            1 << 20,
            (1 << 32) + (1 << 21),
            (1 << 33) + (1 << 22),
            (1 << 33) + (1 << 22) + 1,
        ];
        let mut o = Offsets::default();
        for &x in &want {
            o.push(x);
        }
        assert_eq!(o.iter().collect::<Vec<_>>(), want);
        // Near ones take one step each, far ones three.
        assert_eq!(o.deltas.len(), 5 + 2 * 3);
    }
}
