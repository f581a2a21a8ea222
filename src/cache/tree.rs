//! The dominator tree kept beside an index entry: `<entry>.tree` next to `<entry>.idx`,
//! written once the session has computed the tree ([`crate::session`], for the batch
//! commands when the cache is on and for the TUI beside its browsing) and mapped on the
//! next open instead of computing it again. Nothing here computes a tree. The layout and the checks are the parent module's (its doc describes both);
//! what is kept of the tree and the tree's own checks are
//! [`crate::heap::dominators::stored`]'s.
//!
//! The tree names the index entry it was computed over (the entry's trailer, the
//! checksum of the whole index entry): a tree beside an entry written since is of
//! another index and is not used. Writing an index entry removes the tree beside it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::beside::{self, Kept, Opened};
use super::{bytes_of, mapped, verify, Entry};
use crate::heap::dominators::stored::{Columns, Figures, Fold, Parts, Unchecked};
use crate::heap::dominators::{Dominators, Origin};
use crate::heap::Graph;
use crate::sys::progress::Progress;

const MAGIC: &[u8; 16] = b"heaptui domtree\0";
/// The tree's columns in its file: immediate dominators, retained sizes and counts,
/// weakly reachable bits, children starts, children.
const WIDTH: [u64; 6] = [4, 4, 4, 8, 4, 4];

/// The tree's metadata section.
#[derive(Serialize, Deserialize)]
struct Meta {
    /// The trailer of the index entry the tree was computed over.
    index: u64,
    figures: Figures,
}

const EXT: &str = "tree";

/// What [`load_tree`] found: a tree that failed a check is computed again.
pub type TreeLoaded = Kept<Dominators>;

/// Writes a dominator tree, as [`crate::heap::dominators::Dominators::stored`] gives
/// it (its `figures` and its columns `p`), beside `entry`, the index entry of the graph
/// it was computed over; nothing (`Ok(None)`) when there is none. An error says why the
/// tree could not be written (the caller carries on without it). Everything in it is
/// made before: this only writes bytes.
pub fn store_tree(
    entry: Option<&Entry>,
    figures: Figures,
    p: &Parts<'_>,
) -> Result<Option<PathBuf>, String> {
    let Some(e) = entry else {
        return Ok(None);
    };
    let cols: [&[u8]; 6] = [
        bytes_of(p.idom),
        bytes_of(p.retained),
        bytes_of(p.retained_count),
        bytes_of(p.weak_only),
        bytes_of(p.child_start),
        bytes_of(p.children),
    ];
    let meta = Meta {
        index: e.index,
        figures,
    };
    beside::store(entry, EXT, MAGIC, &meta, &cols)
}

/// Reads the tree kept beside `entry`, the index cache entry of `g`, and checks it
/// against the entry and `g`.
pub fn load_tree(g: &Graph, entry: Option<&Entry>, progress: &Progress) -> TreeLoaded {
    beside::load(
        entry,
        EXT,
        MAGIC,
        &WIDTH,
        |m: &Meta| m.index,
        |o| {
            let path = o.path.display().to_string();
            let mut d = read(o, g, progress)?;
            d.origin = Origin::Read(path);
            Ok(d)
        },
    )
}

fn read(o: Opened<Meta>, g: &Graph, progress: &Progress) -> Result<Dominators, &'static str> {
    progress.phase("dominators: reading the cache entry", 0);
    let (map, places) = (&o.map, &o.places);
    let columns = Columns {
        idom: mapped(map, places[0])?,
        retained: mapped(map, places[1])?,
        retained_count: mapped(map, places[2])?,
        weak_only: mapped(map, places[3])?,
        child_start: mapped(map, places[4])?,
        children: mapped(map, places[5])?,
    };
    // The checksum and the checks in one read of the columns: the columns of four bytes
    // per element walked together, the checks looking at each piece once it is summed
    // (the children of a piece's slots lie near the same place of the children's
    // column, which is then in the core's cache too, summed a little before or after);
    // the checks only on a tree whose columns are of their lengths (else the checksum
    // alone, then the error).
    let tree = Unchecked::new(o.meta.figures, columns, g);
    let look = |group: usize, bytes: std::ops::Range<usize>| match (&tree, group) {
        (Ok(t), 0) => t.piece(g, bytes.start / 4..bytes.end / 4),
        _ => Fold::default(),
    };
    let folds = verify(
        map,
        o.prefix,
        (places, o.tail),
        &[&[0, 1, 2, 4, 5], &[3]],
        look,
        Fold::join,
    )?;
    tree?.checked(g, folds[0])
}
