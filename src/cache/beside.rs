//! What the files kept beside an index entry share (the dominator tree, `tree.rs`; the
//! strings' text, `texts.rs`): where one lies (`<entry>.<ext>`), how it is written (to a
//! temporary of this process, then renamed over the old one, and only beside the entry
//! it names: a process that wrote another entry since has removed it, or a reader that
//! rejected it is rebuilding it), and how it is opened: mapped, its head and metadata
//! read, and checked to name this very entry (its trailer) before its owner reads the
//! columns. The layout is the parent module's.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use xxhash_rust::xxh3::Xxh3;

use super::{check_head, entry_path, locate, Entry, In, Place};
use crate::sys::codec::decode;

/// What reading a file kept beside an entry found.
pub enum Kept<T> {
    /// The index has no cache entry, or the entry no such file beside it.
    Missing,
    /// A file that failed a check, and which one; its contents are made again.
    Rejected(String),
    Hit(Box<T>),
}

/// A file beside an entry, mapped, its sections read and its columns located (not read).
pub(super) struct Opened<M> {
    pub map: Arc<memmap2::Mmap>,
    pub meta: M,
    /// The digest of the part before the columns.
    pub prefix: u64,
    pub places: Vec<Place>,
    pub tail: u64,
    pub path: PathBuf,
}

/// Writes `cols` with `meta` (which names the entry's trailer) beside `entry` as
/// `<entry>.<ext>`; nothing (`Ok(None)`) when there is no entry. An error says why it
/// could not be written (the caller carries on without it).
pub(super) fn store<M: Serialize>(
    entry: Option<&Entry>,
    ext: &str,
    magic: &[u8; 16],
    meta: &M,
    cols: &[&[u8]],
) -> Result<Option<PathBuf>, String> {
    let Some(entry) = entry else {
        return Ok(None);
    };
    let idx = entry_path(&entry.key).ok_or("no cache directory")?;
    if !idx.exists() {
        return Ok(None);
    }
    let path = idx.with_extension(ext);
    let dir = path.parent().ok_or("no cache directory")?.to_path_buf();
    let needed: u64 = cols.iter().map(|c| c.len() as u64 + 16).sum();
    crate::sys::files::check_room(&dir, 0, needed)?;
    let tmp = dir.join(format!(".{}.{ext}.tmp", std::process::id()));
    let _listed = crate::sys::tmpfiles::register(&tmp);
    if let Err(e) = super::write_file(&tmp, magic, &entry.key, meta, cols) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", tmp.display()));
    }
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(path))
}

/// Opens `<entry>.<ext>`, checks its head (`magic`, layout, key) and that its metadata
/// names `entry` (`index_of`), locates its columns of `width` bytes each, and hands it
/// to `read`, which checks and uses the columns. A failed check is `Rejected`, with the
/// file's path.
pub(super) fn load<M: DeserializeOwned, T>(
    entry: Option<&Entry>,
    ext: &str,
    magic: &[u8; 16],
    width: &[u64],
    index_of: impl Fn(&M) -> u64,
    read: impl FnOnce(Opened<M>) -> Result<T, &'static str>,
) -> Kept<T> {
    let Some(entry) = entry else {
        return Kept::Missing;
    };
    let Some(path) = entry_path(&entry.key).map(|p| p.with_extension(ext)) else {
        return Kept::Missing;
    };
    if let Some(Err(e)) = path.parent().map(crate::sys::files::trusted_dir) {
        return Kept::Rejected(e.to_string());
    }
    let Ok(f) = File::open(&path) else {
        return Kept::Missing;
    };
    let opened = || -> Result<Opened<M>, &'static str> {
        let (map, len) = super::map_file(&f, &path)?;
        let mut r = In {
            r: &map[..],
            h: Xxh3::new(),
            left: len - 8,
        };
        check_head(&mut r, &entry.key, magic)?;
        let meta: M = decode(&r.section().ok_or("cut short")?).ok_or("unreadable metadata")?;
        if index_of(&meta) != entry.index {
            return Err("of another index entry");
        }
        let prefix = r.h.digest();
        let (places, tail) = locate(&map, &r, width)?;
        Ok(Opened {
            map: map.clone(),
            meta,
            prefix,
            places,
            tail,
            path: path.clone(),
        })
    };
    match opened().and_then(read) {
        Ok(t) => Kept::Hit(Box::new(t)),
        Err(why) => Kept::Rejected(format!("{}: {why}", path.display())),
    }
}
