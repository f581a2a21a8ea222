//! Reading the `edges` array of a V8 heap snapshot into columns (targets as node
//! ordinals, types, checkpoints), in parallel chunks cut at record boundaries.

use crate::error::ParseError;

use super::json::RecordsEnd;
use super::{json, Cols, Release};

/// What the edges thread reads.
#[derive(Default)]
pub(super) struct EdgeCols {
    /// Target node ordinal, `u32::MAX` when `to_node` is not a node's offset.
    pub(super) target: Vec<u32>,
    pub(super) ty: Vec<u8>,
    /// File offset of every 64th edge.
    pub(super) checkpoint: Vec<u64>,
    pub(super) cut: Option<usize>,
    pub(super) error: Option<ParseError>,
}

/// The node ordinal of a `to_node` array offset, `u32::MAX` when it is not a node's
/// offset. The division is by the node field count, a run-time value; dividing by a
/// constant instead (6 and 7 are what real files have) turns a 40-cycle `idiv`, paid per
/// edge, into a multiply.
#[inline]
pub(super) fn node_ordinal(to: i64, nf: i64) -> u32 {
    #[inline(always)]
    fn by<const N: u64>(to: u64) -> u32 {
        if to % N == 0 && to / N < u32::MAX as u64 {
            (to / N) as u32
        } else {
            u32::MAX
        }
    }
    if to < 0 {
        return u32::MAX;
    }
    match nf {
        7 => by::<7>(to as u64),
        6 => by::<6>(to as u64),
        5 => by::<5>(to as u64),
        _ => {
            let (to, nf) = (to as u64, nf as u64);
            if to % nf == 0 && to / nf < u32::MAX as u64 {
                (to / nf) as u32
            } else {
                u32::MAX
            }
        }
    }
}

/// Reads `edges` in parallel chunks: the array is cut at record boundaries found by
/// counting commas (every integer but the last is followed by one, so the commas before
/// a position say which integer comes next), each chunk is tokenized on the thread pool,
/// and the chunks are joined in order. Rayon balances them against the nodes, which are
/// read on one thread (their classes are interned as they come).
pub(super) fn read_edges_parallel(
    b: &[u8],
    start: usize,
    end: Option<usize>,
    cols: &Cols,
    declared: Option<u64>,
    parts: usize,
    release: &Release<'_>,
) -> EdgeCols {
    let ef = cols.ef;
    let stop = end.unwrap_or(b.len());
    use rayon::prelude::*;
    let count_commas = |r: std::ops::Range<usize>| memchr::memchr_iter(b',', &b[r]).count() as u64;
    // Cut points just after a comma near each 1/parts of the array, then the commas of
    // every piece counted on the thread pool (the count says which integer comes next at
    // each cut, and in all how many edges there are).
    let mut cuts = vec![start];
    for j in 1..parts {
        let guess = start + (stop - start) * j / parts;
        if guess <= *cuts.last().unwrap_or(&start) {
            continue;
        }
        match memchr::memchr(b',', &b[guess..stop]) {
            Some(k) => cuts.push(guess + k + 1),
            None => break,
        }
    }
    cuts.push(stop);
    let counts: Vec<u64> = (0..cuts.len() - 1)
        .into_par_iter()
        .map(|j| count_commas(cuts[j]..cuts[j + 1]))
        .collect();
    let commas: u64 = counts.iter().sum();
    // Chunk starts: (byte position, file ordinal of the chunk's first edge), each cut
    // moved on to the next integer whose index is a multiple of the edge width.
    let mut starts = vec![(start, 0u64)];
    let mut before = 0u64;
    for j in 1..cuts.len() - 1 {
        before += counts[j - 1];
        let (mut p, mut c) = (cuts[j], before);
        if p <= starts.last().map_or(start, |s| s.0) {
            continue;
        }
        let mut need = (ef as u64 - c % ef as u64) % ef as u64;
        while need > 0 {
            match memchr::memchr(b',', &b[p..stop]) {
                Some(k) => {
                    p += k + 1;
                    c += 1;
                    need -= 1;
                }
                None => break,
            }
        }
        if need > 0 {
            break;
        }
        if p > starts.last().map_or(start, |s| s.0) {
            starts.push((p, c / ef as u64));
        }
    }
    let numbers =
        commas + (end.is_some() && b[start..stop].iter().any(|c| c.is_ascii_digit())) as u64;
    // A file cut inside the array may end with a whole number and no comma after it.
    let total = (numbers / ef as u64) as usize + end.is_none() as usize;
    let _ = declared;
    let mut target = vec![0u32; total];
    let mut ty = vec![0u8; total];
    let mut slices = Vec::with_capacity(starts.len());
    {
        let (mut t_rest, mut y_rest) = (&mut target[..], &mut ty[..]);
        for j in 0..starts.len() {
            let ord = starts[j].1 as usize;
            let next = starts
                .get(j + 1)
                .map_or(total, |s| s.1 as usize)
                .clamp(ord, total);
            let (t, tr) = std::mem::take(&mut t_rest).split_at_mut(next - ord);
            let (y, yr) = std::mem::take(&mut y_rest).split_at_mut(next - ord);
            t_rest = tr;
            y_rest = yr;
            slices.push((j, t, y));
        }
    }
    let chunks: Vec<Chunk> = slices
        .into_par_iter()
        .map(|(j, t, y)| {
            let (pos, ord) = starts[j];
            let limit = starts.get(j + 1).map(|s| s.0);
            read_edges_into(b, pos, limit, ord, cols, t, y, release)
        })
        .collect();
    let mut out = EdgeCols::default();
    let mut filled = 0usize;
    for (j, c) in chunks.into_iter().enumerate() {
        filled += c.count;
        out.checkpoint.extend_from_slice(&c.checkpoint);
        let whole = starts
            .get(j + 1)
            .is_none_or(|s| (s.1 - starts[j].1) as usize == c.count);
        if c.cut.is_some() || c.error.is_some() || !whole {
            out.cut = c.cut;
            out.error = c.error;
            if out.cut.is_none() && out.error.is_none() {
                out.error = Some(ParseError::new(
                    starts[j].0 as u64,
                    "edges up to the next chunk",
                    format!("{} of them", c.count),
                ));
            }
            break;
        }
    }
    target.truncate(filled);
    ty.truncate(filled);
    out.target = target;
    out.ty = ty;
    out
}

/// What one chunk of `edges` gave.
pub(super) struct Chunk {
    pub(super) count: usize,
    pub(super) checkpoint: Vec<u64>,
    pub(super) cut: Option<usize>,
    pub(super) error: Option<ParseError>,
}

/// Reads the edges from `start` up to (not including) `limit`, or to the array's end,
/// into `target` and `ty`; `ord` is the file ordinal of the first one.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_edges_into(
    b: &[u8],
    start: usize,
    limit: Option<usize>,
    ord: u64,
    cols: &Cols,
    target: &mut [u32],
    ty: &mut [u8],
    release: &Release<'_>,
) -> Chunk {
    let mut out = Chunk {
        count: 0,
        checkpoint: Vec::new(),
        cut: None,
        error: None,
    };
    let nf = cols.nf as i64;
    let (e_to, e_type) = (cols.e_to, cols.e_type);
    let limit = limit.unwrap_or(usize::MAX);
    let mut released = start;
    let mut over = None;
    // Edge names are read again when shown.
    let needed = 1u64 << e_to | 1 << e_type;
    let end = json::records_needing(b, start, cols.ef, needed, |rec, at| {
        if at >= limit {
            return false;
        }
        let k = out.count;
        if k >= target.len() {
            over = Some(at);
            return false;
        }
        if (ord + k as u64) % 64 == 0 {
            out.checkpoint.push(at as u64);
            if out.checkpoint.len() % 4096 == 0 {
                release(released..at);
                released = at;
            }
        }
        target[k] = node_ordinal(rec[e_to], nf);
        ty[k] = rec[e_type].clamp(0, 255) as u8;
        out.count += 1;
        true
    });
    match end {
        RecordsEnd::Cut(at) => out.cut = Some(at),
        RecordsEnd::Bad(e) => out.error = Some(e),
        RecordsEnd::Closed(_) | RecordsEnd::Stopped => {}
    }
    if let Some(at) = over {
        out.error = Some(ParseError::new(
            at as u64,
            "no more edges than commas",
            "more",
        ));
    }
    out
}
