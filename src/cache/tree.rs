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

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use super::{bytes_of, check_head, entry_path, locate, mapped, verify, Entry, In};
use crate::heap::dominators::stored::{Columns, Figures, Fold, Parts, Unchecked};
use crate::heap::dominators::{Dominators, Origin};
use crate::heap::Graph;
use crate::sys::codec::decode;
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

/// The tree file beside the index entry at `entry`.
pub(super) fn path_beside(entry: &Path) -> PathBuf {
    entry.with_extension("tree")
}

/// What [`load_tree`] found.
pub enum TreeLoaded {
    /// The index has no cache entry, or the entry no tree beside it.
    Missing,
    /// A tree that failed a check, and which one; it is computed again.
    Rejected(String),
    Hit(Box<Dominators>),
}

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
    let Some(entry) = entry else {
        return Ok(None);
    };
    let idx = entry_path(&entry.key).ok_or("no cache directory")?;
    // Only beside the entry it names: a process that wrote another entry since has
    // removed it, or a reader that rejected it is rebuilding it.
    if !idx.exists() {
        return Ok(None);
    }
    let path = path_beside(&idx);
    let dir = path.parent().ok_or("no cache directory")?.to_path_buf();
    let cols: [&[u8]; 6] = [
        bytes_of(p.idom),
        bytes_of(p.retained),
        bytes_of(p.retained_count),
        bytes_of(p.weak_only),
        bytes_of(p.child_start),
        bytes_of(p.children),
    ];
    let needed: u64 = cols.iter().map(|c| c.len() as u64 + 16).sum();
    crate::sys::files::check_room(&dir, 0, needed)?;
    let meta = Meta {
        index: entry.index,
        figures,
    };
    let tmp = dir.join(format!(".{}.tree.tmp", std::process::id()));
    let _listed = crate::sys::tmpfiles::register(&tmp);
    if let Err(e) = super::write_file(&tmp, MAGIC, &entry.key, &meta, &cols) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", tmp.display()));
    }
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(path))
}

/// Reads the tree kept beside `entry`, the index cache entry of `g`, and checks it
/// against the entry and `g`.
pub fn load_tree(g: &Graph, entry: Option<&Entry>, progress: &Progress) -> TreeLoaded {
    let Some(entry) = entry else {
        return TreeLoaded::Missing;
    };
    let Some(path) = entry_path(&entry.key).map(|p| path_beside(&p)) else {
        return TreeLoaded::Missing;
    };
    if let Some(Err(e)) = path.parent().map(crate::sys::files::trusted_dir) {
        return TreeLoaded::Rejected(e.to_string());
    }
    let Ok(f) = File::open(&path) else {
        return TreeLoaded::Missing;
    };
    match read(entry, f, &path, g, progress) {
        Ok(mut d) => {
            d.origin = Origin::Read(path.display().to_string());
            TreeLoaded::Hit(Box::new(d))
        }
        Err(why) => TreeLoaded::Rejected(format!("{}: {why}", path.display())),
    }
}

fn read(
    entry: &Entry,
    f: File,
    path: &std::path::Path,
    g: &Graph,
    progress: &Progress,
) -> Result<Dominators, &'static str> {
    let (map, len) = super::map_file(&f, path)?;
    let mut r = In {
        r: &map[..],
        h: Xxh3::new(),
        left: len - 8,
    };
    check_head(&mut r, &entry.key, MAGIC)?;
    let meta: Meta = decode(&r.section().ok_or("cut short")?).ok_or("unreadable metadata")?;
    if meta.index != entry.index {
        return Err("of another index entry");
    }
    progress.phase("dominators: reading the cache entry", 0);
    let prefix = r.h.digest();
    let located = locate(&map, &r, &WIDTH)?;
    let places = &located.0;
    let columns = Columns {
        idom: mapped(&map, places[0])?,
        retained: mapped(&map, places[1])?,
        retained_count: mapped(&map, places[2])?,
        weak_only: mapped(&map, places[3])?,
        child_start: mapped(&map, places[4])?,
        children: mapped(&map, places[5])?,
    };
    // The checksum and the checks in one read of the columns: the columns of four bytes
    // per element walked together, the checks looking at each piece once it is summed
    // (the children of a piece's slots lie near the same place of the children's
    // column, which is then in the core's cache too, summed a little before or after);
    // the checks only on a tree whose columns are of their lengths (else the checksum
    // alone, then the error).
    let tree = Unchecked::new(meta.figures, columns, g);
    let look = |group: usize, bytes: std::ops::Range<usize>| match (&tree, group) {
        (Ok(t), 0) => t.piece(g, bytes.start / 4..bytes.end / 4),
        _ => Fold::default(),
    };
    let folds = verify(
        &map,
        prefix,
        (places, located.1),
        &[&[0, 1, 2, 4, 5], &[3]],
        look,
        Fold::join,
    )?;
    tree?.checked(g, folds[0])
}
