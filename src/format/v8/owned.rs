//! What "the page owns" in a V8 heap snapshot ([`page_owned`], DevTools' and memlab's
//! rule for the dominator tree), and where each node's edges start before the graph's CSR
//! exists ([`EdgeStarts`]).

use super::{json, Cols, EdgeCols, NodeCols};
use crate::heap::ObjId;

/// The objects "the page owns", as DevTools and memlab flag them before building the
/// dominator tree: everything reachable over non-weak edges from the root's own edges,
/// except its shortcut edges (to the global objects) and its element edge to the
/// synthetic `(Document DOM trees)`. A reference from an object outside this set to one
/// inside it does not retain (it would let a detached DOM tree, say, appear to own part
/// of the live page). One bit per node; empty when there are no nodes.
pub(super) fn page_owned(
    b: &[u8],
    cols: &Cols,
    nodes: &NodeCols,
    edges: &EdgeCols,
    strings: &[u64],
) -> Vec<u64> {
    let n = nodes.count;
    if n == 0 {
        return Vec::new();
    }
    let weak = cols.edge_type("weak");
    let shortcut = cols.edge_type("shortcut");
    let element = cols.edge_type("element");
    let synthetic = cols.node_types.iter().position(|t| t == "synthetic");
    let starts = EdgeStarts::new(nodes, edges);
    let dom_trees = |t: usize| -> bool {
        // Only the root's few edges ask: read the node's type and name from its record.
        let rec = nodes
            .blocks
            .fields(b, cols.nf, n, t as ObjId)
            .map(|r| (r[cols.n_type], r[cols.n_name]));
        match rec {
            Some((ty, name)) => {
                Some(ty as usize) == synthetic
                    && strings.get(name as usize).is_some_and(|&off| {
                        json::decode_string(b, off as usize, 64).0 == "(Document DOM trees)"
                    })
            }
            None => false,
        }
    };
    let mut owned = vec![0u64; n.div_ceil(64)];
    // Breadth first through a queue of at most `QUEUE` nodes (a stack takes the overflow,
    // and is drawn on when the queue is empty), so that the next nodes to visit are known
    // well ahead: each one's place in the edge columns and its edges are prefetched some
    // nodes before it is reached. On the 6 M-node Node snapshot this walk took 80 ms, 72
    // with an unbounded queue and 95 depth first; on the 65 M-node synthetic one 350 ms,
    // 490-1,030 with an unbounded queue (and its 260 MB) and 320 depth first.
    const QUEUE: usize = 1 << 16;
    let mut queue = std::collections::VecDeque::with_capacity(QUEUE);
    let mut overflow: Vec<u32> = Vec::new();
    let visit = |t: usize,
                 owned: &mut [u64],
                 queue: &mut std::collections::VecDeque<u32>,
                 overflow: &mut Vec<u32>| {
        if owned[t / 64] >> (t % 64) & 1 == 0 {
            owned[t / 64] |= 1 << (t % 64);
            if queue.len() < QUEUE {
                queue.push_back(t as u32);
            } else {
                overflow.push(t as u32);
            }
        }
    };
    for k in starts.range(0) {
        let (t, ty) = (edges.target[k] as usize, Some(edges.ty[k] as i64));
        if t >= n || ty == weak || ty == shortcut || (ty == element && dom_trees(t)) {
            continue;
        }
        visit(t, &mut owned, &mut queue, &mut overflow);
    }
    /// How far ahead in the queue a node's edge start, and then its edges, are fetched.
    const START_AHEAD: usize = 16;
    const EDGES_AHEAD: usize = 8;
    loop {
        if let Some(&y) = queue.get(START_AHEAD) {
            starts.prefetch(y as usize);
        }
        if let Some(&y) = queue.get(EDGES_AHEAD) {
            let r = starts.range(y as usize);
            prefetch(edges.target.get(r.start));
            prefetch(edges.ty.get(r.start));
        }
        let Some(x) = queue.pop_front().or_else(|| overflow.pop()) else {
            break;
        };
        for k in starts.range(x as usize) {
            let t = edges.target[k] as usize;
            if t < n && Some(edges.ty[k] as i64) != weak {
                visit(t, &mut owned, &mut queue, &mut overflow);
            }
        }
    }
    owned
}

/// A hint to load the cache line of `x` (when there is one) before it is read.
#[inline]
pub(super) fn prefetch<T>(x: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(r) = x {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch hint of an address inside a live borrow; it reads and writes
        // nothing.
        unsafe { _mm_prefetch(r as *const T as *const i8, _MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Where each node's edges start in the edge columns: the running sum of the nodes'
/// `edge_count`, cut to the edges the file has, for the passes that walk edges before the
/// graph's CSR exists. Four bytes per node while the edges number below 2^32 (always, in
/// practice: that is a file of some 24 GB), eight beyond.
pub(super) enum EdgeStarts {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl EdgeStarts {
    pub(super) fn new(nodes: &NodeCols, edges: &EdgeCols) -> Self {
        let m = edges.target.len() as u64;
        let sums = || {
            let mut sum = 0u64;
            std::iter::once(0)
                .chain(nodes.edge_count.iter().map(move |&ec| {
                    sum += ec as u64;
                    sum
                }))
                .map(move |s| s.min(m))
        };
        if m < u32::MAX as u64 {
            EdgeStarts::Narrow(sums().map(|s| s as u32).collect())
        } else {
            EdgeStarts::Wide(sums().collect())
        }
    }

    /// Asks the processor to load where node `x`'s edges start.
    #[inline]
    pub(super) fn prefetch(&self, x: usize) {
        match self {
            EdgeStarts::Narrow(f) => prefetch(f.get(x)),
            EdgeStarts::Wide(f) => prefetch(f.get(x)),
        }
    }

    /// Node `x`'s edges.
    #[inline]
    pub(super) fn range(&self, x: usize) -> std::ops::Range<usize> {
        match self {
            EdgeStarts::Narrow(f) => f[x] as usize..f[x + 1] as usize,
            EdgeStarts::Wide(f) => f[x] as usize..f[x + 1] as usize,
        }
    }
}
