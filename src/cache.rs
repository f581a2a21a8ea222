//! The persistent index: a dump's index written once into the user's cache directory and
//! read back on the next open, so that reopening a multi-GB dump costs a read of the
//! index instead of a parse of the dump; and beside it the dump's dominator tree, so that
//! the reopen has its retained sizes at once too.
//!
//! Owns the cache files' layout, the key they are checked against and the checks. Where:
//! `$HEAPTUI_CACHE_DIR/index`, else the platform's user cache directory
//! (`$XDG_CACHE_HOME/heaptui/index` on Linux, beside the decompressed gzip copies); one
//! entry per dump (and per snapshot of a file that holds several), named by a hash of its
//! canonical path: the index in `<hash>.idx`, and, once the dominator tree has been
//! computed over that index, the tree in `<hash>.tree` (`src/cache/tree.rs`). The dump itself is
//! never written.
//!
//! An entry is used only when all of these hold; otherwise the dump is indexed again and
//! the entry replaced (never trusted):
//! - the key matches: canonical path, snapshot number, the file's size, modification
//!   time, inode number and change time (a rewrite in place changes the change time,
//!   which `touch -r` cannot set back), a hash of the first and last 64 KiB and of 64
//!   blocks of 4 KiB spread between them of the bytes the readers see (after gunzip),
//!   the cache layout version, and the build that wrote it (version and the
//!   executable's size and modification time: a reader that changed may index
//!   differently);
//! - the whole entry hashes (xxh3-64) to the value in its trailer, so a file cut short
//!   or damaged on disk is caught;
//! - the index it holds is consistent: CSR starts ascending and ending at their arrays'
//!   lengths, every target, source, class and root in range, every record offset inside
//!   the file, bit vectors of the right length, one count and one size per class that
//!   add up to the objects and their shallow sizes. Only then do views index with it;
//! - the owner's part reads back: the snapshot's, with its decoder's state, read by
//!   `src/format/cached.rs` (which rejects the entry as "unreadable decoder state"
//!   otherwise).
//!
//! The tree is used only over the index it was computed over, and only when the same
//! holds of it: its key matches the index's; it names the index entry's trailer (a tree
//! beside an entry written since is of another index; writing an index entry removes the
//! tree beside it); its trailer is right; and the tree is one the views can walk
//! ([`crate::heap::dominators::stored`]: immediate dominators in range, the children
//! lists theirs, sizes that can be). Otherwise the tree is computed again and rewritten.
//!
//! Layout of both (native byte order, refused on another): a 16-byte magic (`heaptui
//! index`, `heaptui domtree`), a u32 layout version and a u32 byte-order mark; then
//! length-prefixed sections in bincode ([`crate::sys::codec`]): the key, and the metadata
//! (the index's: roots, classes, the objects and shallow bytes per class, the values the
//! packed columns keep whole, and its owner's part, bytes the cache neither makes nor
//! reads: the snapshot's format, facts, warnings, threads and decoder state, which
//! `src/format/cached.rs` encodes and reads back, so that the cache names no format; the
//! tree's:
//! the index entry's trailer, reachable counts and bytes, retained sizes of 4 GiB or
//! more, and per class the retained bytes and the unreachable instances); then the
//! columns as raw arrays, each with its length, the length on an 8-byte boundary (zero
//! padding before it); then the trailer: the xxh3-64 of the xxh3-64 of the part before
//! the columns and of each column's digest (its length and the sums of its blocks of
//! 8 MiB, `src/cache/sum.rs`: so that the columns are summed in parallel). The
//! index's columns: `class_of`, `shallow`, the bases and distances of the packed record
//! offsets and CSR starts, the CSRs' targets and sources, their weak bits. The tree's:
//! the immediate dominators, the retained sizes (4 bytes) and counts, the weakly
//! reachable bits, and the children lists as a CSR (starts and children, largest first):
//! about 20 bytes per object.
//!
//! A reopen maps the entry and uses its columns in place ([`crate::heap::Column`]):
//! nothing is copied, and the index's and the tree's pages are the entry's page cache
//! rather than the process's own memory. Every byte is still read once, for the checksum
//! and the checks together (each piece of a column checked right after it is summed,
//! while it is in the core's cache: [`sum::digests_and_folds`]), before any view sees
//! them.
//!
//! Only dumps of at least `HEAPTUI_CACHE_MIN_BYTES` (default 64 MiB) are written: a
//! smaller one opens in well under a second anyway. `--no-cache` or `HEAPTUI_NO_CACHE=1`
//! neither reads nor writes entries. At most [`KEEP`] entries are kept, the least
//! recently written removed first (with their trees). An entry or a tree that would leave
//! less free on its disk than [`crate::sys::files::disk_reserve`] (its own size, up to 1 GiB)
//! is not written.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::heap::column::CompactColumn;
use crate::heap::packed::{Packed, Starts};
use crate::heap::{ClassInfo, Graph, ObjId, Root};
use crate::heap::{Column, Referrers};
use crate::source::Source;
use crate::sys::codec::{decode, encode};

const MAGIC: &[u8; 16] = b"heaptui index\0\0\0";
/// The layout version of both files: 7 since the tree is kept beside the index, 8 since
/// the snapshot's part of the index's metadata is its own section of bytes (the
/// owner's), 9 since the columns are summed by blocks ([`sum`]), 10 since the index's
/// metadata keeps the objects and shallow bytes per class.
const VERSION: u32 = 11;
const BYTE_ORDER: u32 = 0x0102_0304;
/// Entries kept in the cache directory.
pub const KEEP: usize = 8;

static DISABLED: AtomicBool = AtomicBool::new(false);

/// Turns the cache off for this process (`--no-cache`).
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// Whether entries are read and written: not after [`disable`] nor with
/// `HEAPTUI_NO_CACHE=1`.
pub fn enabled() -> bool {
    !DISABLED.load(Ordering::Relaxed) && !crate::sys::env::flag("HEAPTUI_NO_CACHE")
}

/// The smallest dump whose index is written.
fn min_bytes() -> u64 {
    crate::sys::env::bytes("HEAPTUI_CACHE_MIN_BYTES").unwrap_or(64 << 20)
}

/// The directory of the index entries.
pub fn dir() -> Option<PathBuf> {
    crate::sys::files::cache_dir().map(|d| d.join("index"))
}

/// What an entry is checked against before it is used.
#[derive(Serialize, Deserialize, PartialEq, Eq, Debug, Clone)]
pub struct Key {
    path: String,
    snapshot: Option<usize>,
    size: u64,
    mtime_ns: u128,
    /// The inode's number and its change time: a rewrite in place changes the change
    /// time, and `touch -r` can set the modification time back but not that.
    inode: u64,
    ctime_ns: i128,
    bytes: u64,
    /// The first and last 64 KiB and 64 blocks of 4 KiB spread over the rest.
    head_tail: u64,
    build: String,
}

/// The build that writes and reads entries: its version and its executable's size and
/// modification time.
fn build_id() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| format!("{} {}", m.len(), mtime_ns(&m)))
        .unwrap_or_default();
    format!("{} {exe}", env!("CARGO_PKG_VERSION"))
}

fn mtime_ns(m: &std::fs::Metadata) -> u128 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// The key of `path` (snapshot `which`) as `source` holds it; `None` when the cache is
/// off or the file cannot be looked at.
pub fn key(path: &Path, which: Option<usize>, source: &Source) -> Option<Key> {
    if !enabled() {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    let canon = path.canonicalize().ok()?;
    let b = source.bytes();
    use std::os::unix::fs::MetadataExt;
    Some(Key {
        path: canon.to_string_lossy().into_owned(),
        snapshot: which,
        size: meta.len(),
        mtime_ns: mtime_ns(&meta),
        inode: meta.ino(),
        ctime_ns: meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
        bytes: b.len() as u64,
        head_tail: crate::source::sample_hash(b),
        build: build_id(),
    })
}

fn entry_path(key: &Key) -> Option<PathBuf> {
    let mut h = Xxh3::new();
    h.update(key.path.as_bytes());
    h.update(format!("#{:?}", key.snapshot).as_bytes());
    Some(dir()?.join(format!("{:016x}.idx", h.digest())))
}

/// Everything of an index but its columns, and its owner's part.
#[derive(Serialize, Deserialize)]
struct Meta {
    roots: Vec<Root>,
    classes: Vec<ClassInfo>,
    big_sizes: Vec<(ObjId, u64)>,
    /// The values of the packed columns kept whole ([`crate::heap::packed`]): record
    /// offsets, reference starts, referrer starts.
    wide_offsets: Vec<(u32, u64)>,
    wide_out_start: Vec<(u32, u32)>,
    wide_in_start: Vec<(u32, u32)>,
    orphans_are_roots: bool,
    /// [`Graph::scattered`] (absent from entries written before it: false).
    #[serde(default)]
    scattered: bool,
    /// Whether `class_of` and `shallow` take two bytes per object (else four).
    narrow_classes: bool,
    narrow_sizes: bool,
    /// The objects and shallow bytes per class ([`crate::heap::histogram::totals`]), so
    /// that a reopen's histogram needs no walk of the objects.
    class_count: Vec<u64>,
    class_shallow: Vec<u64>,
    /// What the index's owner keeps beside it (for a snapshot, its format's facts and its
    /// decoder's state), encoded and read back by the owner: bytes to the cache.
    owner: Vec<u8>,
}

/// The graph's columns in an entry.
const COLUMNS: usize = 12;

/// The trailer: the digest of the prefix's and the columns' digests, in order.
fn trailer(digests: &[u64]) -> u64 {
    let mut h = Xxh3::new();
    for d in digests {
        h.update(&d.to_ne_bytes());
    }
    h.digest()
}

/// The bytes of plain integers, as they are in memory.
fn bytes_of<T: crate::heap::column::Plain>(v: &[T]) -> &[u8] {
    // SAFETY: u16, u32 and u64 have no padding and every byte pattern is a valid value.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

struct Out<W: Write> {
    w: W,
    h: Xxh3,
    /// Bytes written so far.
    pos: u64,
}

/// Writes a cache file at `tmp` (created exclusively): the head (`magic`, layout
/// version, byte order), the key and metadata sections, then `cols` and the trailer,
/// which it returns.
fn write_file<M: Serialize>(
    tmp: &Path,
    magic: &[u8; 16],
    key: &Key,
    meta: &M,
    cols: &[&[u8]],
) -> std::io::Result<u64> {
    let f = crate::sys::files::create_exclusive(tmp)?;
    let mut o = Out {
        w: BufWriter::with_capacity(1 << 20, f),
        h: Xxh3::new(),
        pos: 0,
    };
    o.put(magic)?;
    o.put(&VERSION.to_ne_bytes())?;
    o.put(&BYTE_ORDER.to_ne_bytes())?;
    o.section(&encode(key).unwrap_or_default())?;
    o.section(&encode(meta).unwrap_or_default())?;
    o.columns_and_trailer(cols)
}

impl<W: Write> Out<W> {
    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.h.update(b);
        self.pos += b.len() as u64;
        self.w.write_all(b)
    }
    fn section(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.put(&(b.len() as u64).to_ne_bytes())?;
        self.put(b)
    }
    /// Writes `cols` after the sections, then the trailer, which it returns. Each
    /// column's length on an 8-byte boundary (zero padding before it), so that its bytes
    /// are aligned in a map of the entry and can be used in place; each hashed on its own,
    /// so that a reader can hash them in parallel; the trailer hashes the prefix's digest
    /// and the columns' digests.
    fn columns_and_trailer(&mut self, cols: &[&[u8]]) -> std::io::Result<u64> {
        let mut digests = vec![self.h.digest()];
        let mut pos = self.pos;
        for col in cols {
            let pad = pos.div_ceil(8) * 8 - pos;
            self.w.write_all(&[0u8; 8][..pad as usize])?;
            let len = (col.len() as u64).to_ne_bytes();
            self.w.write_all(&len)?;
            self.w.write_all(col)?;
            pos += pad + 8 + col.len() as u64;
            digests.push(column_digest(&len, col));
        }
        let t = trailer(&digests);
        self.w.write_all(&t.to_ne_bytes())?;
        self.w.flush()?;
        Ok(t)
    }
}

/// Where a column lies in a mapped entry: its byte offset and its length in bytes.
type Place = (u64, u64);

/// The columns of a mapped entry after the sections `r` has read, each as (byte offset,
/// bytes), and the trailer, once the columns fill the entry and each is a whole number
/// of its elements (`width[i]` bytes). Nothing of the columns is read here but their
/// lengths: [`verify`] reads them.
fn locate(map: &[u8], r: &In<&[u8]>, width: &[u64]) -> Result<(Vec<Place>, u64), &'static str> {
    let cut = "cut short";
    let end = map.len() as u64 - 8;
    let mut pos = end - r.left;
    let mut places = Vec::with_capacity(width.len());
    for _ in width {
        pos = pos.div_ceil(8) * 8;
        let b = map.get(pos as usize..pos as usize + 8).ok_or(cut)?;
        let n = u64::from_ne_bytes(b.try_into().map_err(|_| cut)?);
        let room = end.checked_sub(pos + 8).ok_or(cut)?;
        if n > room {
            return Err(cut);
        }
        places.push((pos + 8, n));
        pos += 8 + n;
    }
    if pos != end {
        return Err("longer than its sections");
    }
    let tail = u64::from_ne_bytes(map[pos as usize..].try_into().map_err(|_| cut)?);
    if places.iter().zip(width).any(|(&(_, n), w)| n % w != 0) {
        return Err("a column of a partial element");
    }
    Ok((places, tail))
}

/// Checks the entry's checksum (`prefix`, the digest of the part before the columns;
/// the columns at `places`; the trailer `tail`) and gathers what the checks `look` fold
/// over the columns by `groups`, each byte read once, on the thread pool
/// ([`sum::digests_and_folds`]). The folds by group, once the checksum is right.
fn verify<F: Default + Send>(
    map: &[u8],
    prefix: u64,
    (places, tail): (&[Place], u64),
    groups: &[&[usize]],
    look: impl Fn(usize, std::ops::Range<usize>) -> F + Sync,
    join: impl Fn(F, F) -> F + Sync + Send,
) -> Result<Vec<F>, &'static str> {
    let cols: Vec<&[u8]> = places
        .iter()
        .map(|&(at, n)| &map[at as usize..(at + n) as usize])
        .collect();
    let (digests, folds) = sum::digests_and_folds(&cols, groups, look, join);
    let mut all = vec![prefix];
    all.extend(digests);
    if tail != trailer(&all) {
        return Err("damaged (checksum)");
    }
    Ok(folds)
}

/// The column of `T`s at `place` (byte offset, bytes) of the map, used in place.
fn mapped<T: crate::heap::column::Plain>(
    map: &std::sync::Arc<memmap2::Mmap>,
    (at, n): Place,
) -> Result<Column<T>, &'static str> {
    let size = std::mem::size_of::<T>() as u64;
    if n % size != 0 {
        return Err("a column of a partial element");
    }
    Column::<T>::mapped(map, at as usize, (n / size) as usize).ok_or("misaligned")
}

struct In<R: Read> {
    r: R,
    h: Xxh3,
    /// Bytes of the entry not read yet: no section may claim more.
    left: u64,
}

impl<R: Read> In<R> {
    fn fill(&mut self, b: &mut [u8]) -> Option<()> {
        if b.len() as u64 > self.left {
            return None;
        }
        self.r.read_exact(b).ok()?;
        self.left -= b.len() as u64;
        self.h.update(b);
        Some(())
    }
    fn u64(&mut self) -> Option<u64> {
        let mut b = [0u8; 8];
        self.fill(&mut b)?;
        Some(u64::from_ne_bytes(b))
    }
    fn section(&mut self) -> Option<Vec<u8>> {
        let n = self.u64()?;
        if n > self.left {
            return None;
        }
        let mut v = vec![0u8; n as usize];
        self.fill(&mut v)?;
        Some(v)
    }
}

/// An index entry an index was read from or written to: its key and its trailer (the
/// checksum of the whole entry), which the dominator tree kept beside it names
/// ([`store_tree`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    key: Key,
    index: u64,
}

/// Writes the index `g` under `key`, with its owner's part: the bytes `owner` gives
/// (asked for only when the entry is written), which [`load`] hands back as they are.
/// Does nothing for a dump below the size threshold or when `owner` gives nothing (a
/// format whose decoder keeps no state for the cache); an error says why the entry could
/// not be written (the caller carries on without it).
pub fn store(
    key: &Key,
    g: &Graph,
    owner: impl FnOnce() -> Option<Vec<u8>>,
) -> Result<Option<Entry>, String> {
    if key.bytes < min_bytes() {
        return Ok(None);
    }
    let Some(owner) = owner() else {
        return Ok(None);
    };
    let path = entry_path(key).ok_or("no cache directory")?;
    let dir = path.parent().ok_or("no cache directory")?.to_path_buf();
    crate::sys::files::private_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // The entry holds the index's columns and the owner's part (the decoder's state).
    let needed = g.index_bytes() + owner.len() as u64;
    crate::sys::files::check_room(&dir, 0, needed)?;
    let tmp = dir.join(format!(".{}.tmp", std::process::id()));
    let r = g.referrer_index();
    let totals = crate::heap::histogram::totals(g);
    let meta = Meta {
        roots: g.roots.clone(),
        classes: g.classes.clone(),
        big_sizes: g.big_sizes.clone(),
        wide_offsets: g.offset.wide.clone(),
        wide_out_start: g.out_start.wide.clone(),
        wide_in_start: r.in_start.wide.clone(),
        orphans_are_roots: g.orphans_are_roots,
        scattered: g.scattered,
        narrow_classes: g.class_of.is_narrow(),
        narrow_sizes: g.shallow.is_narrow(),
        class_count: totals.count.clone(),
        class_shallow: totals.shallow.clone(),
        owner,
    };
    let _listed = crate::sys::tmpfiles::register(&tmp);
    let write = || {
        write_file(
            &tmp,
            MAGIC,
            key,
            &meta,
            &[
                g.class_of.raw(),
                g.shallow.raw(),
                bytes_of(&g.offset.base),
                bytes_of(&g.offset.rel),
                bytes_of(&g.out_start.base),
                bytes_of(&g.out_start.rel),
                bytes_of(&g.out_targets),
                bytes_of(&g.weak),
                bytes_of(&r.in_start.base),
                bytes_of(&r.in_start.rel),
                bytes_of(&r.in_sources),
                bytes_of(&r.in_weak),
            ],
        )
    };
    let index = match write() {
        Ok(t) => t,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("{}: {e}", tmp.display()));
        }
    };
    // What is kept beside the entry it replaces is of that entry: gone with it.
    remove_beside(&path);
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    prune(&dir);
    prune_temporaries(&dir);
    Ok(Some(Entry {
        key: key.clone(),
        index,
    }))
}

/// The files kept beside an index entry, by extension: the dominator tree
/// (`tree.rs`) and the strings' text (`texts.rs`). They are of that entry only.
const BESIDE: &[&str] = &["tree", "strings"];

/// Removes the files kept beside the entry at `idx`.
fn remove_beside(idx: &Path) {
    for b in BESIDE {
        let _ = std::fs::remove_file(idx.with_extension(b));
    }
}

/// Removes the temporary entries (`.<pid>.tmp`, `.<pid>.tree.tmp`, `.<pid>.strings.tmp`) of writers that are gone
/// ([`crate::sys::tmpfiles::stale`]): a process killed while it wrote one left it.
fn prune_temporaries(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let pid = name.to_str().and_then(|n| {
            let n0 = n.strip_prefix('.')?.strip_suffix(".tmp")?;
            let n = BESIDE
                .iter()
                .find_map(|b| n0.strip_suffix(&format!(".{b}")[..]));
            n.unwrap_or(n0).parse::<u32>().ok()
        });
        if pid.is_some_and(|pid| crate::sys::tmpfiles::stale(&e.path(), pid)) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Keeps the [`KEEP`] most recently written entries, and the trees beside them.
fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let files: Vec<std::fs::DirEntry> = rd.filter_map(|e| e.ok()).collect();
    let named = |e: &std::fs::DirEntry, ext: &str| {
        e.path().extension().is_some_and(|x| x == ext)
            && !e.file_name().to_string_lossy().starts_with('.')
    };
    // Only the files heaptui names: a 16-digit hexadecimal stem (`entry_path`).
    let ours = |e: &std::fs::DirEntry| {
        let name = e.file_name();
        let stem = std::path::Path::new(&name)
            .file_stem()
            .map(|s| s.to_owned());
        stem.and_then(|s| s.into_string().ok())
            .is_some_and(|s| s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    let mut entries: Vec<(u128, PathBuf)> = files
        .iter()
        .filter(|e| named(e, "idx") && ours(e))
        .filter_map(|e| Some((mtime_ns(&e.metadata().ok()?), e.path())))
        .collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (_, p) in entries.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(&p);
        remove_beside(&p);
    }
    // A file kept beside an entry that is gone (removed by hand, or by a build that kept
    // none of them).
    for e in files
        .iter()
        .filter(|e| BESIDE.iter().any(|b| named(e, b)) && ours(e))
    {
        if !e.path().with_extension("idx").exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// What [`load`] found.
pub enum Loaded {
    /// No entry for this dump.
    Missing,
    /// An entry that failed a check, and which one; it is rebuilt.
    Rejected(String),
    Hit(Box<Hit>),
}

/// An entry that passed the checks: the index over its columns in place, its owner's
/// part as [`store`] was given it, and where it was read from.
pub struct Hit {
    pub graph: Graph,
    /// The owner's part, not looked into here: its owner reads it back (and rejects the
    /// entry, naming [`Hit::path`], when it cannot).
    pub owner: Vec<u8>,
    /// The entry the index was read from, which its dominator tree is kept beside.
    pub entry: Entry,
    /// The entry's file.
    pub path: PathBuf,
}

/// Reads the entry of `key`, checks it against the dump (`file_bytes` long, as the
/// readers see it) and builds its index.
pub fn load(key: &Key, file_bytes: u64) -> Loaded {
    let Some(path) = entry_path(key) else {
        return Loaded::Missing;
    };
    if let Some(dir) = path.parent() {
        // Nothing is read from (or pruned in) a folder that is not this user's own.
        match crate::sys::files::trusted_dir(dir) {
            Ok(()) => prune_temporaries(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::Missing,
            Err(e) => return Loaded::Rejected(e.to_string()),
        }
    }
    let Ok(f) = File::open(&path) else {
        return Loaded::Missing;
    };
    match read_entry(key, f, &path, file_bytes) {
        Ok((graph, owner, index)) => Loaded::Hit(Box::new(Hit {
            graph,
            owner,
            entry: Entry {
                key: key.clone(),
                index,
            },
            path,
        })),
        Err(why) => Loaded::Rejected(format!("{}: {why}", path.display())),
    }
}

/// The index, the owner's part and the entry's trailer.
type Parts = (Graph, Vec<u8>, u64);

/// Reads an entry's magic, layout version, byte order and key, and checks them.
fn check_head<R: Read>(r: &mut In<R>, key: &Key, magic: &[u8; 16]) -> Result<(), &'static str> {
    let mut head = [0u8; 24];
    r.fill(&mut head).ok_or("too short")?;
    if &head[..16] != magic {
        return Err("not an entry of its kind");
    }
    if head[16..20] != VERSION.to_ne_bytes() || head[20..24] != BYTE_ORDER.to_ne_bytes() {
        return Err("another layout version or byte order");
    }
    let k: Key = decode(&r.section().ok_or("cut short")?).ok_or("unreadable key")?;
    if &k != key {
        return Err("stale (the dump or the build changed)");
    }
    Ok(())
}

/// Whether the cache holds an entry for `key`'s dump, written by this build: its head
/// and key match (the rest is checked when it is read). Callers that would otherwise
/// walk the dump read the entry instead.
pub fn has_entry(key: &Key) -> bool {
    let Some(path) = entry_path(key) else {
        return false;
    };
    if path
        .parent()
        .is_none_or(|d| crate::sys::files::trusted_dir(d).is_err())
    {
        return false;
    }
    let Ok(f) = File::open(&path) else {
        return false;
    };
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return false;
    };
    if len < 8 {
        return false;
    }
    let mut r = In {
        r: BufReader::with_capacity(1 << 16, f),
        h: Xxh3::new(),
        left: len - 8,
    };
    check_head(&mut r, key, MAGIC).is_ok()
}

/// A read-only map of a cache file (an index entry or its tree) of at least its 8-byte
/// trailer, and its length.
pub(crate) fn map_file(
    f: &File,
    path: &Path,
) -> Result<(std::sync::Arc<memmap2::Mmap>, u64), &'static str> {
    let len = f.metadata().map_err(|_| "unreadable")?.len();
    if len < 8 {
        return Err("too short");
    }
    // SAFETY: a read-only map of a cache file. Entries and trees are written to a
    // temporary file and renamed into place, and pruned by unlinking, so the file mapped
    // here is never changed; columns borrow from this map for as long as they live.
    let map = std::sync::Arc::new(unsafe { memmap2::Mmap::map(f) }.map_err(|_| "unmappable")?);
    if map.len() as u64 != len {
        return Err("changed while read");
    }
    // Cut short under the map all the same (another process, a full disk's repair): the
    // SIGBUS names this entry, not the dump.
    crate::sys::maps::register(&map, path, crate::sys::maps::Kind::CacheEntry);
    Ok((map, len))
}

fn read_entry(key: &Key, f: File, path: &Path, file_bytes: u64) -> Result<Parts, &'static str> {
    let (map, len) = map_file(&f, path)?;
    let mut r = In {
        r: &map[..],
        h: Xxh3::new(),
        left: len - 8,
    };
    check_head(&mut r, key, MAGIC)?;
    let meta: Meta = decode(&r.section().ok_or("cut short")?).ok_or("unreadable metadata")?;
    // Bytes per element: class_of, shallow: u16 or u32 (checked as u16; the meta says
    // which); offsets: u64 bases, u32 distances;
    // references: u32 bases, u16 distances, u32 targets, u64 weak bits; referrers: the
    // same.
    const WIDTH: [u64; COLUMNS] = [2, 2, 8, 4, 4, 2, 4, 8, 4, 2, 4, 8];
    let prefix = r.h.digest();
    let (places, index) = locate(&map, &r, &WIDTH)?;
    let u16c = |i: usize| mapped::<u16>(&map, places[i]);
    let u32c = |i: usize| mapped::<u32>(&map, places[i]);
    let u64c = |i: usize| mapped::<u64>(&map, places[i]);
    // A two- or four-byte column.
    let compact = |i: usize, narrow: bool| -> Result<CompactColumn, &'static str> {
        Ok(if narrow {
            CompactColumn::Narrow(u16c(i)?)
        } else {
            CompactColumn::Wide(u32c(i)?)
        })
    };
    // CSR starts: the bases at `i`, the distances at `i + 1`.
    let starts = |i: usize, wide| -> Result<Starts, &'static str> {
        Ok(Packed {
            base: u32c(i)?,
            rel: u16c(i + 1)?,
            wide,
        })
    };
    let mut g = Graph {
        class_of: compact(0, meta.narrow_classes)?,
        shallow: compact(1, meta.narrow_sizes)?,
        offset: Packed {
            base: u64c(2)?,
            rel: u32c(3)?,
            wide: meta.wide_offsets,
        },
        out_start: starts(4, meta.wide_out_start)?,
        out_targets: u32c(6)?,
        weak: u64c(7)?,
        referrer_index: Referrers {
            in_start: starts(8, meta.wide_in_start)?,
            in_sources: u32c(10)?,
            in_weak: u64c(11)?,
        }
        .into(),
        ..Graph::default()
    };
    g.roots = meta.roots;
    g.classes = meta.classes;
    g.big_sizes = meta.big_sizes;
    g.orphans_are_roots = meta.orphans_are_roots;
    g.scattered = meta.scattered;
    // The checksum and the checks in one read of the columns; the checks' pieces only
    // once the parts they look up fit together (else the checksum alone, then the
    // verdict names what does not fit).
    let lookable = check::lookable(&g);
    let groups: Vec<[usize; 1]> = (0..COLUMNS).map(|c| [c]).collect();
    let groups: Vec<&[usize]> = groups.iter().map(|g| &g[..]).collect();
    let folds = verify(
        &map,
        prefix,
        (&places, index),
        &groups,
        |c, bytes| {
            if lookable {
                check::piece(&g, file_bytes, c, bytes)
            } else {
                check::Fold::default()
            }
        },
        check::Fold::join,
    )?;
    check::verdict(&g, file_bytes, &folds)?;
    let totals = check::totals(&g, &folds, meta.class_count, meta.class_shallow)?;
    let _ = g.class_totals.set(totals);
    Ok((g, meta.owner, index))
}

mod beside;
mod check;
mod sum;
mod texts;
mod tree;
pub use beside::Kept;
pub use sum::column_digest;
pub use texts::{load_texts, store_texts, TextsLoaded};
pub use tree::{load_tree, store_tree, TreeLoaded};
