//! Object sets (issue 42): what a set of objects retains together, deduplicated (what a
//! collector would free if every object of the set were gone), and who holds the set:
//! its immediate dominators outside it, as Eclipse MAT's "retained set" of a selection
//! and its "immediate dominators".
//!
//! A set retains more than the union of its members' retained sizes: an object that two
//! members both reference, and nothing else, is in neither member's dominator subtree
//! but goes when both go. So the answer is a reachability pass from the GC roots over
//! strong edges that goes through no member ([`super::reach::reachable_without`]): every
//! object strongly reachable before and not after is freed, and with them the members'
//! own dominator subtrees (which also holds the weakly reachable and orphaned members the
//! tree keeps below its root). For a set of one object it is exactly that object's
//! dominator subtree, its retained size.

use super::dominators::{Dominators, VIRTUAL_ROOT};
use super::{reach, Graph, ObjId};

/// A bitset over the objects of a graph.
pub type Bits = Vec<u64>;

fn has(b: &[u64], o: ObjId) -> bool {
    b.get(o as usize / 64)
        .is_some_and(|w| w >> (o % 64) & 1 == 1)
}

fn set(b: &mut [u64], o: ObjId) -> bool {
    let (w, bit) = (o as usize / 64, o % 64);
    let was = b[w] >> bit & 1 == 1;
    b[w] |= 1 << bit;
    !was
}

/// The members of `objs` as a bitset over `g`'s objects (those out of range left out).
pub fn bits_of(g: &Graph, objs: &[ObjId]) -> Bits {
    let mut b = vec![0u64; g.len().div_ceil(64)];
    for &o in objs.iter().filter(|&&o| (o as usize) < g.len()) {
        set(&mut b, o);
    }
    b
}

/// What the set `members` retains together: the objects freed if all of them were gone,
/// the members among them.
pub fn retained_set(g: &Graph, d: &Dominators, members: &[ObjId]) -> Bits {
    let gone = bits_of(g, members);
    let (before, _, _) = reach::reachable(g);
    let (after, _, _) = reach::reachable_without(g, Some(&gone));
    let mut freed: Bits = before.iter().zip(&after).map(|(b, a)| b & !a).collect();
    // The members' own subtrees: the weakly reachable and orphaned ones too.
    let mut stack: Vec<ObjId> = Vec::new();
    for &m in members.iter().filter(|&&m| (m as usize) < g.len()) {
        if d.idom(m).is_none() {
            continue;
        }
        // A strongly reachable member is freed with its subtree already.
        if set(&mut freed, m) {
            stack.push(m);
        }
        while let Some(o) = stack.pop() {
            for &c in d.children(o) {
                if set(&mut freed, c) {
                    stack.push(c);
                }
            }
        }
    }
    freed
}

/// The objects of a bitset, in order.
pub fn members(b: &[u64]) -> impl Iterator<Item = ObjId> + '_ {
    b.iter().enumerate().flat_map(|(w, &x)| {
        (0..64)
            .filter(move |bit| x >> bit & 1 == 1)
            .map(move |bit| (w * 64 + bit) as ObjId)
    })
}

/// The immediate dominators of the set `members` outside it: for each member, the first
/// object above it in the dominator tree that is not a member (none for a member the
/// virtual root holds), each once, in the order first met.
pub fn immediate_dominators(g: &Graph, d: &Dominators, members: &[ObjId]) -> Vec<ObjId> {
    let inside = bits_of(g, members);
    let mut seen = vec![0u64; g.len().div_ceil(64)];
    let mut out = Vec::new();
    for &m in members {
        let mut at = m;
        let holder = loop {
            match d.idom(at) {
                Some(p) if p == VIRTUAL_ROOT => break None,
                Some(p) if has(&inside, p) => at = p,
                Some(p) => break Some(p),
                None => break None,
            }
        };
        if let Some(h) = holder {
            if set(&mut seen, h) {
                out.push(h);
            }
        }
    }
    out
}
