//! Reachability from the GC roots over strong edges: which objects a full GC would keep.
//! Used by `summary`; the dominator tree (a later module) subsumes it.

use super::Graph;

/// Returns a bitset (one bit per object) of the objects reachable from any root through
/// non-weak edges, and their count and shallow bytes.
pub fn reachable(g: &Graph) -> (Vec<u64>, u64, u64) {
    reachable_without(g, None)
}

/// [`reachable`] as if the objects of the bitset `gone` were not there: no path goes
/// through them (and they are not counted).
pub fn reachable_without(g: &Graph, gone: Option<&[u64]>) -> (Vec<u64>, u64, u64) {
    let n = g.len();
    let is_gone = |o: u32| {
        gone.is_some_and(|b| {
            b.get(o as usize / 64)
                .is_some_and(|w| w >> (o % 64) & 1 == 1)
        })
    };
    let mut seen = vec![0u64; n.div_ceil(64)];
    let mut stack: Vec<u32> = Vec::new();
    let mut count = 0u64;
    let mut bytes = 0u64;
    let visit = |o: u32, seen: &mut Vec<u64>, stack: &mut Vec<u32>| {
        let (w, b) = (o as usize / 64, o % 64);
        if seen[w] >> b & 1 == 0 && !is_gone(o) {
            seen[w] |= 1 << b;
            stack.push(o);
        }
    };
    for r in &g.roots {
        visit(r.obj, &mut seen, &mut stack);
    }
    while let Some(o) = stack.pop() {
        count += 1;
        bytes += g.shallow_size(o);
        for e in g.edges(o) {
            if !g.is_weak(e) {
                visit(g.out_targets[e], &mut seen, &mut stack);
            }
        }
    }
    (seen, count, bytes)
}
