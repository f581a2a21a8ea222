//! The encoding of what is kept on disk beside the columns: bincode with its default
//! options. The index cache writes its sections with it ([`crate::cache`]), and each
//! format its own part of a cache entry (its decoder's state and the snapshot's facts), so
//! that the cache needs no format's types and no format needs the cache's helpers.

use serde::{Deserialize, Serialize};

/// `v` in the cache's encoding; `None` when it cannot be encoded.
pub fn encode<T: Serialize>(v: &T) -> Option<Vec<u8>> {
    use bincode::Options;
    bincode::DefaultOptions::new().serialize(v).ok()
}

/// Reads back what [`encode`] wrote, allocating no more than the bytes could hold.
pub fn decode<T: for<'de> Deserialize<'de>>(b: &[u8]) -> Option<T> {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_limit(b.len() as u64 * 64 + 4096)
        .deserialize(b)
        .ok()
}
