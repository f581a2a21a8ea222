//! A snapshot in the index cache ([`crate::cache`]): the cache keeps the index (the
//! graph's columns) and, as bytes it does not look into, the snapshot's own part that
//! this module encodes and reads back: the format, its facts and warnings, the threads,
//! the snapshots of the file and the decoder's state ([`Format::decoder_from_state`]
//! restores the decoder). Also the dominator tree kept beside the entry, through the
//! snapshot ([`Snapshot::dominator_tree`], [`Snapshot::load_tree`],
//! [`Snapshot::keep_tree`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Format, Snapshot, SnapshotInfo};
use crate::cache::{Key, Loaded, TreeLoaded};
use crate::heap::codec::{decode, encode};
use crate::heap::dominators::Dominators;
use crate::heap::Thread;
use crate::progress::Progress;
use crate::source::Source;

/// Everything of a [`Snapshot`] but its bytes and its graph: the snapshot's part of its
/// cache entry.
#[derive(Serialize, Deserialize)]
struct Owner {
    format: Format,
    format_version: String,
    id_size: Option<u32>,
    threads: usize,
    thread_list: Vec<Thread>,
    truncated: Option<u64>,
    warnings: Vec<String>,
    facts: Vec<(String, String)>,
    snapshots: Vec<SnapshotInfo>,
    snapshot_index: usize,
    /// [`super::Decoder::save_state`].
    decoder: Vec<u8>,
}

/// `snap`'s part of its cache entry; `None` when its decoder keeps no state for the
/// cache (nor is the entry written then).
fn owner_of(snap: &Snapshot) -> Option<Vec<u8>> {
    let decoder = snap.decoder.save_state()?;
    encode(&Owner {
        format: snap.format,
        format_version: snap.format_version.clone(),
        id_size: snap.id_size,
        threads: snap.threads,
        thread_list: snap.thread_list.clone(),
        truncated: snap.truncated,
        warnings: snap.warnings.clone(),
        facts: snap.facts.clone(),
        snapshots: snap.snapshots.clone(),
        snapshot_index: snap.snapshot_index,
        decoder,
    })
}

/// A snapshot read back from its cache entry, but for its bytes ([`Restored::over`]).
pub(super) struct Restored {
    hit: crate::cache::Hit,
    owner: Owner,
    decoder: Box<dyn super::Decoder>,
}

/// What the cache entry of `key` holds for a dump `file_bytes` long (as the readers see
/// it), when there is one that passes the cache's checks and whose part this module can
/// read back; else why a kept entry was not used (it is rebuilt), if there was one.
pub(super) fn load(key: &Key, file_bytes: u64) -> Result<Box<Restored>, Option<String>> {
    let hit = match crate::cache::load(key, file_bytes) {
        Loaded::Hit(hit) => hit,
        Loaded::Rejected(why) => return Err(Some(why)),
        Loaded::Missing => return Err(None),
    };
    let restored = decode::<Owner>(&hit.owner)
        .and_then(|o| Some((o.format.decoder_from_state(&o.decoder)?, o)));
    let Some((decoder, owner)) = restored else {
        return Err(Some(format!(
            "{}: unreadable decoder state",
            hit.path.display()
        )));
    };
    Ok(Box::new(Restored {
        hit: *hit,
        owner,
        decoder,
    }))
}

impl Restored {
    /// The snapshot over `source`, the dump's bytes, tied to the entry it was read from.
    pub(super) fn over(self, source: Source) -> Snapshot {
        let Restored {
            hit,
            owner: o,
            decoder,
        } = self;
        let mut facts = o.facts;
        facts.push((
            "index cache".to_string(),
            format!("read from {}", hit.path.display()),
        ));
        let snap = Snapshot {
            source,
            format: o.format,
            format_version: o.format_version,
            id_size: o.id_size,
            graph: hit.graph,
            threads: o.threads,
            thread_list: o.thread_list,
            truncated: o.truncated,
            warnings: o.warnings,
            facts,
            decoder,
            snapshots: o.snapshots,
            snapshot_index: o.snapshot_index,
            cache_entry: Default::default(),
        };
        let _ = snap.cache_entry.set(hit.entry);
        snap
    }
}

/// The index cache entry still to be written for a snapshot just indexed.
pub struct PendingEntry(pub(super) Key);

impl PendingEntry {
    /// Writes the entry and ties the snapshot to it; the error says why it could not be
    /// (the caller carries on).
    pub fn store(self, snap: &Snapshot, progress: &Progress) -> std::result::Result<(), String> {
        progress.phase("writing the index cache", 0);
        match crate::cache::store(&self.0, &snap.graph, || owner_of(snap)) {
            Ok(Some(entry)) => {
                let _ = snap.cache_entry.set(entry);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err(format!("index cache not written: {e}")),
        }
    }
}

impl Snapshot {
    /// The dominator tree: the one kept beside the snapshot's index cache entry when
    /// there is one that passes the checks, else computed ([`crate::cache::tree_of`]).
    pub fn dominator_tree(&self, progress: &Progress) -> Dominators {
        crate::cache::tree_of(&self.graph, self.cache_entry.get(), progress)
    }

    /// The dominator tree kept beside the snapshot's index cache entry, checked
    /// ([`crate::cache::load_tree`]).
    pub fn load_tree(&self, progress: &Progress) -> TreeLoaded {
        crate::cache::load_tree(&self.graph, self.cache_entry.get(), progress)
    }

    /// Keeps `d`, the snapshot's dominator tree, beside its index cache entry for the
    /// next open, unless it was read from there ([`crate::cache::keep_tree`]).
    pub fn keep_tree(
        &self,
        d: &Dominators,
        progress: &Progress,
    ) -> std::result::Result<Option<PathBuf>, String> {
        crate::cache::keep_tree(&self.graph, self.cache_entry.get(), d, progress)
    }
}
