//! A snapshot's own part of its index cache entry: everything of a [`Snapshot`] but its
//! bytes and its graph (the format, its facts and warnings, the threads, the snapshots
//! of the file and the decoder's state, which [`Format::decoder_from_state`] restores).
//! The cache ([`crate::cache`]) keeps these bytes beside the graph's columns without
//! looking into them; the session ([`crate::session`]) hands them here to encode and to
//! read back. Nothing here touches a file.

use serde::{Deserialize, Serialize};

use super::{Format, Snapshot, SnapshotInfo};
use crate::heap::{Graph, Thread};
use crate::source::Source;
use crate::sys::codec::{decode, encode};

/// Everything of a [`Snapshot`] but its bytes and its graph.
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
pub fn owner_bytes(snap: &Snapshot) -> Option<Vec<u8>> {
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

/// A snapshot's own part read back, ready to go over its bytes and its index
/// ([`Restored::over`]).
pub struct Restored {
    owner: Owner,
    decoder: Box<dyn super::Decoder>,
}

/// Reads back the part [`owner_bytes`] gave; `None` when it does not read back (the
/// entry is then rebuilt).
pub fn restore(owner: &[u8]) -> Option<Restored> {
    let owner = decode::<Owner>(owner)?;
    let decoder = owner.format.decoder_from_state(&owner.decoder)?;
    Some(Restored { owner, decoder })
}

impl Restored {
    /// The snapshot over `source` (the dump's bytes) and `graph` (its index, read back
    /// from the cache).
    pub fn over(self, source: Source, graph: Graph) -> Snapshot {
        let Restored { owner: o, decoder } = self;
        Snapshot {
            source,
            format: o.format,
            format_version: o.format_version,
            id_size: o.id_size,
            graph,
            threads: o.threads,
            thread_list: o.thread_list,
            truncated: o.truncated,
            warnings: o.warnings,
            facts: o.facts,
            decoder,
            snapshots: o.snapshots,
            snapshot_index: o.snapshot_index,
            texts: Default::default(),
        }
    }
}
