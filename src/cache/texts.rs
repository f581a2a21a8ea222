//! The strings' text kept beside an index entry: `<entry>.strings` next to `<entry>.idx`,
//! written once a query has made it ([`crate::format::texts`]) and mapped on the next
//! open instead of decoding every string from the dump again. Nothing here makes it. The
//! layout and the checks are the parent module's (its doc describes both); what must
//! hold of the strings is [`Texts::check`]'s.
//!
//! Like the tree, it names the index entry it was made over (the entry's trailer): one
//! beside an entry written since is of another index and is not used; writing an index
//! entry removes it.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use super::{bytes_of, check_head, entry_path, locate, mapped, verify, Entry, In};
use crate::heap::texts::Texts;
use crate::heap::Graph;
use crate::sys::codec::decode;

const MAGIC: &[u8; 16] = b"heaptui strings\0";
/// The columns: objects, lengths, bytes, text starts, text.
const WIDTH: [u64; 5] = [4, 8, 8, 8, 1];

#[derive(Serialize, Deserialize)]
struct Meta {
    /// The trailer of the index entry the strings were read over.
    index: u64,
}

fn path_beside(entry: &Path) -> PathBuf {
    entry.with_extension("strings")
}

/// What [`load_texts`] found.
pub enum TextsLoaded {
    /// No entry, or no strings beside it.
    Missing,
    /// Strings that failed a check, and which one; they are made again.
    Rejected(String),
    Hit(Box<Texts>),
}

/// Writes `t` beside `entry`, the index entry of the snapshot it was made of; nothing
/// (`Ok(None)`) when there is none. An error says why it could not be written (the
/// caller carries on without it).
pub fn store_texts(entry: Option<&Entry>, t: &Texts) -> Result<Option<PathBuf>, String> {
    let Some(entry) = entry else {
        return Ok(None);
    };
    let idx = entry_path(&entry.key).ok_or("no cache directory")?;
    if !idx.exists() {
        return Ok(None);
    }
    let path = path_beside(&idx);
    let dir = path.parent().ok_or("no cache directory")?.to_path_buf();
    let cols: [&[u8]; 5] = [
        bytes_of(&t.objs),
        bytes_of(&t.length),
        bytes_of(&t.bytes),
        bytes_of(&t.starts),
        &t.text,
    ];
    let needed: u64 = cols.iter().map(|c| c.len() as u64 + 16).sum();
    crate::sys::files::check_room(&dir, 0, needed)?;
    let meta = Meta { index: entry.index };
    let tmp = dir.join(format!(".{}.strings.tmp", std::process::id()));
    let _listed = crate::sys::tmpfiles::register(&tmp);
    if let Err(e) = super::write_file(&tmp, MAGIC, &entry.key, &meta, &cols) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", tmp.display()));
    }
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(path))
}

/// Reads the strings kept beside `entry`, the index cache entry of `g`, and checks them.
pub fn load_texts(g: &Graph, entry: Option<&Entry>) -> TextsLoaded {
    let Some(entry) = entry else {
        return TextsLoaded::Missing;
    };
    let Some(path) = entry_path(&entry.key).map(|p| path_beside(&p)) else {
        return TextsLoaded::Missing;
    };
    if let Some(Err(e)) = path.parent().map(crate::sys::files::trusted_dir) {
        return TextsLoaded::Rejected(e.to_string());
    }
    let Ok(f) = File::open(&path) else {
        return TextsLoaded::Missing;
    };
    match read(entry, f, &path, g) {
        Ok(t) => TextsLoaded::Hit(Box::new(t)),
        Err(why) => TextsLoaded::Rejected(format!("{}: {why}", path.display())),
    }
}

fn read(entry: &Entry, f: File, path: &Path, g: &Graph) -> Result<Texts, &'static str> {
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
    let prefix = r.h.digest();
    let located = locate(&map, &r, &WIDTH)?;
    let p = &located.0;
    let t = Texts {
        objs: mapped(&map, p[0])?,
        length: mapped(&map, p[1])?,
        bytes: mapped(&map, p[2])?,
        starts: mapped(&map, p[3])?,
        text: mapped(&map, p[4])?,
    };
    // The checksum and the checks in one read of the columns, each column on its own
    // (the checks of a piece right after it is summed), once the columns are of their
    // lengths; `Texts::check` says what must hold.
    let fits = t.fits();
    let groups: [&[usize]; 5] = [&[0], &[1], &[2], &[3], &[4]];
    let look = |group: usize, bytes: std::ops::Range<usize>| match fits {
        Ok(()) => t.check_piece(group, bytes, g.len()).err(),
        Err(_) => None,
    };
    let folds = verify(&map, prefix, (p, located.1), &groups, look, Option::or)?;
    fits?;
    if let Some(why) = folds.into_iter().flatten().next() {
        return Err(why);
    }
    Ok(t)
}
