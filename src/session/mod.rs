//! The one way from a path to an analysed snapshot, which every front-end takes (the
//! batch commands, the TUI, and whatever comes next): as Eclipse MAT's
//! `SnapshotFactory.parse` runs its whole pipeline in one place.
//!
//! [`open`] goes, in order:
//! 1. the path: a `FILE#N` suffix picks snapshot N of a file that holds several
//!    ([`split_snapshot_suffix`]); the file is mapped, or decompressed once into the
//!    user's cache ([`crate::source`]);
//! 2. the format, from its first bytes ([`crate::format::detect`]);
//! 3. the index cache: the entry of this dump, checked, when there is one
//!    ([`crate::cache::load`]; the snapshot's own part read back by
//!    [`crate::format::cached`]): the index is then mapped, not built;
//! 4. else the memory budget ([`check_memory`]): in memory, guarded, on disk, or refused
//!    up front ([`crate::sys::memory`]);
//! 5. the build, by the format's reader ([`crate::format::Format::open`]);
//! 6. the index cache entry written, now ([`open`]) or when the caller is ready
//!    ([`open_deferring_cache`], [`Session::write_entry`]: the TUI hands the index to the
//!    user first);
//!
//! and then, on demand, on the [`Session`]: the dominator tree (kept beside the entry
//! and read back, or computed, and kept: `tree.rs`) and each object's depth from the
//! roots. Progress is reported through a [`Progress`] the caller reads; a caller that
//! cancels it ([`Progress::cancel`]) gets [`Error::Cancelled`] at the next step boundary
//! (the steps themselves run to their end: the longest, a 50 M-object build, about 10 s).
//!
//! The quick passes that some formats offer without the index ([`quick_histogram`],
//! [`quick_waste`]) are decided here too: they run only where no cache entry would answer
//! faster. The session names no format; it asks the format listing.

mod texts;
mod tree;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::cache::{Entry, Key};
use crate::error::{Error, Result};
use crate::format::{detect, Format, QuickHistogram, QuickWaste, Snapshot, SnapshotInfo};
use crate::source::Source;
use crate::sys::progress::Progress;

pub use tree::keep_depths;

/// One opened dump: its snapshot (shared with the views, which hold it as an
/// `Arc<Snapshot>`), tied to its index cache entry, where its dominator tree is kept.
/// Dereferences to the [`Snapshot`].
pub struct Session {
    snap: Arc<Snapshot>,
    /// The index cache entry the index was read from or written to, once it has one.
    entry: OnceLock<Entry>,
    /// The key of the entry still to be written ([`open_deferring_cache`]).
    pending: Mutex<Option<Key>>,
}

impl std::ops::Deref for Session {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        &self.snap
    }
}

impl From<Session> for Arc<Snapshot> {
    fn from(s: Session) -> Arc<Snapshot> {
        s.snap
    }
}

impl Session {
    /// The snapshot, to share with views and threads.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snap
    }

    /// The snapshot, to change, while no view shares it yet.
    pub fn get_mut(&mut self) -> Option<&mut Snapshot> {
        Arc::get_mut(&mut self.snap)
    }

    /// Whether an index cache entry is still to be written ([`Session::write_entry`]).
    pub fn entry_pending(&self) -> bool {
        self.pending.lock().is_ok_and(|p| p.is_some())
    }

    /// Whether the snapshot has an index cache entry (read from or written to), beside
    /// which its dominator tree is kept.
    pub fn has_entry(&self) -> bool {
        self.entry.get().is_some()
    }

    /// Writes the index cache entry still to be written, if any, and ties the snapshot to
    /// it; the error says why it could not be (the caller carries on without it).
    pub fn write_entry(&self, progress: &Progress) -> std::result::Result<(), String> {
        let Some(key) = self.pending.lock().ok().and_then(|mut p| p.take()) else {
            return Ok(());
        };
        progress.phase("writing the index cache", 0);
        let snap = &self.snap;
        match crate::cache::store(&key, &snap.graph, || {
            crate::format::cached::owner_bytes(snap)
        }) {
            Ok(Some(entry)) => {
                let _ = self.entry.set(entry);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err(format!("index cache not written: {e}")),
        }
    }
}

/// Neither reads nor writes index cache entries for the rest of the process
/// (`--no-cache`).
pub fn disable_cache() {
    crate::cache::disable();
}

/// Whether the cache is read and written: not after [`disable_cache`] nor with
/// `HEAPTUI_NO_CACHE=1` (the TUI's query history follows it too).
pub fn cache_enabled() -> bool {
    crate::cache::enabled()
}

/// Fails, before anything else is done (the TUI checks before it takes the screen), when
/// `path` (with its `#N` suffix, if any) names no file that could be opened: missing, a
/// directory, a device.
pub fn check_openable(path: &Path) -> Result<()> {
    let (file, _) = split_snapshot_suffix(path);
    crate::source::check_regular(&file)
}

/// Splits a `FILE#N` suffix (snapshot N of a file with several, 0-based) from a path.
/// A path that names an existing file is taken whole, so a file whose name has a `#`
/// in it still opens.
pub fn split_snapshot_suffix(path: &Path) -> (PathBuf, Option<usize>) {
    if path.exists() {
        return (path.to_path_buf(), None);
    }
    let s = path.to_string_lossy();
    if let Some((file, n)) = s.rsplit_once('#') {
        if let Ok(n) = n.parse::<usize>() {
            return (PathBuf::from(file), Some(n));
        }
    }
    (path.to_path_buf(), None)
}

/// Opens a dump of any format: maps (or decompresses) it, detects the format and reads
/// its index from the cache or builds it, writing the cache entry.
///
/// `path` may end in `#N` to pick snapshot N of a file that holds several (see
/// [`split_snapshot_suffix`]); without it, the last snapshot is opened.
pub fn open(path: &Path, progress: &Progress) -> Result<Session> {
    let mut s = open_deferring_cache(path, progress)?;
    if let Err(e) = s.write_entry(progress) {
        if let Some(snap) = s.get_mut() {
            snap.warnings.push(e);
        }
    }
    Ok(s)
}

/// [`open`], leaving the index cache entry to the caller ([`Session::write_entry`]): the
/// TUI hands the index to the user first and writes the entry after (1.6 s for a 3 GB
/// dump).
pub fn open_deferring_cache(path: &Path, progress: &Progress) -> Result<Session> {
    let (file, which) = split_snapshot_suffix(path);
    let path = file.as_path();
    crate::sys::oom::reading(path);
    let source = crate::source::open_checked(path, progress, &|b| detect(b).map(|_| ()))?;
    let format = detect(source.bytes()).map_err(|e| Error::parse(path, e))?;
    stop_if_cancelled(path, progress)?;
    let key = crate::cache::key(path, which, &source);
    let mut rejected = None;
    if let Some(k) = &key {
        progress.phase("reading the index cache", 0);
        match crate::cache::load(k, source.bytes().len() as u64) {
            crate::cache::Loaded::Hit(hit) => {
                let hit = *hit;
                match crate::format::cached::restore(&hit.owner) {
                    Some(r) => {
                        let mut snap = r.over(source, hit.graph);
                        snap.facts.push((
                            "index cache".to_string(),
                            format!("read from {}", hit.path.display()),
                        ));
                        return Ok(Session {
                            snap: Arc::new(snap),
                            entry: OnceLock::from(hit.entry),
                            pending: Mutex::new(None),
                        });
                    }
                    None => {
                        rejected = Some(format!("{}: unreadable decoder state", hit.path.display()))
                    }
                }
            }
            crate::cache::Loaded::Rejected(why) => rejected = Some(why),
            crate::cache::Loaded::Missing => {}
        }
    }
    build(path, which, format, source, key, rejected, progress)
}

/// Steps 4 to 6 of [`open`]: the memory budget, the build, the entry to write.
fn build(
    path: &Path,
    which: Option<usize>,
    format: Format,
    source: Source,
    key: Option<Key>,
    rejected: Option<String>,
    progress: &Progress,
) -> Result<Session> {
    stop_if_cancelled(path, progress)?;
    check_memory(path, format, source.bytes())?;
    let mut snap = format.open(path, source, which, progress)?;
    stop_if_cancelled(path, progress)?;
    if snap.snapshots.is_empty() {
        snap.snapshots.push(SnapshotInfo {
            index: 0,
            label: snap.format_version.clone(),
            objects: snap.graph.len() as u64,
        });
    }
    if let Some(n) = which {
        if n != snap.snapshot_index {
            return Err(Error::Usage(format!(
                "{}: has {} snapshot(s); #{n} is not one of them (0-based)",
                path.display(),
                snap.snapshots.len()
            )));
        }
    }
    let mut w = std::mem::take(&mut snap.source.warnings);
    w.append(&mut snap.warnings);
    snap.warnings = w;
    if let Some(why) = rejected {
        snap.warnings
            .push(format!("index cache entry not used and rebuilt: {why}"));
    }
    // The index is built: the file's pages are only read again on demand.
    snap.source.release(0..snap.source.bytes().len());
    Ok(Session {
        snap: Arc::new(snap),
        entry: OnceLock::new(),
        pending: Mutex::new(key),
    })
}

/// [`Error::Cancelled`] once the caller has cancelled `progress`.
fn stop_if_cancelled(path: &Path, progress: &Progress) -> Result<()> {
    match progress.cancelled() {
        true => Err(Error::Cancelled(path.display().to_string())),
        false => Ok(()),
    }
}

/// Refuses, before any index is built, a file (`bytes`, of `format`) whose index would
/// not fit in the memory left, or arranges for it to be built on disk
/// ([`crate::sys::memory::check_need`]). MoarVM format 3 is left to its reader, which
/// knows its counts once it has listed the snapshots.
pub fn check_memory(path: &Path, format: Format, bytes: &[u8]) -> Result<()> {
    use crate::sys::memory::{available, check_need};
    let budget = available()?;
    // A quicker, higher bound first: where it fits, the decision is the same (in memory,
    // guarded), without a pass over the file.
    let forced = crate::sys::env::flag("HEAPTUI_ON_DISK");
    let len = bytes.len() as u64;
    if !forced {
        if let (Some(b), Some(quick)) = (budget, format.quick_memory_need(bytes)) {
            if quick.bytes <= b.bytes {
                return check_need(path, format.title(), len, quick);
            }
        }
    }
    match format.memory_need(bytes) {
        Some(n) => check_need(path, format.title(), len, n),
        None => Ok(()),
    }
}

/// The format of the dump at `path` (`FILE#N` names its file), from its first bytes.
pub fn format_of(path: &Path) -> Result<Format> {
    let (file, _) = split_snapshot_suffix(path);
    let head = crate::source::first_bytes(&file, 64)?;
    crate::format::detect(&head).map_err(|e| Error::parse(&file, e))
}

/// The class histogram of `path` without building the index, where its format offers a
/// quicker pass ([`Format::quick_histogram`]) and no index cache entry would answer
/// instead. `None` for every other case (and a file the pass leaves to the index), where
/// [`open`] is the way.
pub fn quick_histogram(path: &Path, progress: &Progress) -> Result<Option<QuickHistogram>> {
    let Some((source, format, path)) = quick_source(path, progress)? else {
        return Ok(None);
    };
    let Some(q) = format.quick_histogram(source.bytes(), progress) else {
        return Ok(None);
    };
    let Some(mut q) = q.map_err(|e| Error::parse(&path, e))? else {
        return Ok(None);
    };
    let mut w = source.warnings.clone();
    w.append(&mut q.warnings);
    q.warnings = w;
    Ok(Some(q))
}

/// The waste report of `path` without building the index, where its format offers a
/// quicker pass ([`Format::quick_waste`]) and no index cache entry would answer instead;
/// `None` for every other case, and for a file the pass leaves to the index.
pub fn quick_waste(path: &Path, progress: &Progress, top: usize) -> Result<Option<QuickWaste>> {
    let Some((source, format, path)) = quick_source(path, progress)? else {
        return Ok(None);
    };
    // The walk keeps a few words per string, array and collection: held to the index's
    // estimate, so that HEAPTUI_MEMORY_LIMIT means the same for `waste` either way.
    check_memory(&path, format, source.bytes())?;
    let Some(q) = format.quick_waste(source.bytes(), progress, top) else {
        return Ok(None);
    };
    let q = q.map_err(|e| Error::parse(&path, e))?;
    Ok(q.map(|mut q| {
        let mut w = source.warnings.clone();
        w.append(&mut q.warnings);
        q.warnings = w;
        q
    }))
}

/// The mapped file for a walk without the index: a whole file (not `FILE#N`) with no
/// index cache entry to read instead.
fn quick_source(path: &Path, progress: &Progress) -> Result<Option<(Source, Format, PathBuf)>> {
    let (file, which) = split_snapshot_suffix(path);
    if which.is_some() {
        return Ok(None);
    }
    let path = file.as_path();
    crate::sys::oom::reading(path);
    let source = crate::source::open_checked(path, progress, &|b| detect(b).map(|_| ()))?;
    let format = detect(source.bytes()).map_err(|e| Error::parse(path, e))?;
    if !format.has_quick_passes() {
        return Ok(None);
    }
    if crate::cache::key(path, None, &source).is_some_and(|k| crate::cache::has_entry(&k)) {
        return Ok(None);
    }
    Ok(Some((source, format, file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cancelled open stops at the next step with [`Error::Cancelled`]; the same file
    /// opened without cancelling goes on to the reader (whose error is about the bytes).
    #[test]
    fn a_cancelled_open_stops_at_the_next_step() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.hprof");
        std::fs::write(&path, b"JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\0\0").unwrap();
        let p = Progress::new();
        p.cancel();
        match open(&path, &p) {
            Err(Error::Cancelled(f)) => assert!(f.ends_with("cut.hprof"), "{f}"),
            Err(e) => panic!("not cancelled: {e}"),
            Ok(_) => panic!("opened"),
        }
        let not_cancelled = open(&path, &Progress::new());
        assert!(!matches!(not_cancelled, Err(Error::Cancelled(_))));
    }
}
