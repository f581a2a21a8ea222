//! The strings' text kept beside an index entry: `<entry>.strings` next to `<entry>.idx`,
//! written once a query has made it ([`crate::format::texts`]) and mapped on the next
//! open instead of decoding every string from the dump again. Nothing here makes it. The
//! layout and the checks are the parent module's (its doc describes both); what must
//! hold of the strings is [`Texts::check`]'s.
//!
//! Like the tree, it names the index entry it was made over (the entry's trailer): one
//! beside an entry written since is of another index and is not used; writing an index
//! entry removes it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::beside::{self, Kept, Opened};
use super::{bytes_of, mapped, verify, Entry};
use crate::heap::texts::Texts;
use crate::heap::Graph;

const MAGIC: &[u8; 16] = b"heaptui strings\0";
const EXT: &str = "strings";
/// The columns: objects, lengths, bytes, text starts, text.
const WIDTH: [u64; 5] = [4, 8, 8, 8, 1];

#[derive(Serialize, Deserialize)]
struct Meta {
    /// The trailer of the index entry the strings were read over.
    index: u64,
}

/// What [`load_texts`] found.
pub type TextsLoaded = Kept<Texts>;

/// Writes `t` beside `entry`, the index entry of the snapshot it was made of; nothing
/// (`Ok(None)`) when there is none. An error says why it could not be written (the
/// caller carries on without it).
pub fn store_texts(entry: Option<&Entry>, t: &Texts) -> Result<Option<PathBuf>, String> {
    let cols: [&[u8]; 5] = [
        bytes_of(&t.objs),
        bytes_of(&t.length),
        bytes_of(&t.bytes),
        bytes_of(&t.starts),
        &t.text,
    ];
    let Some(e) = entry else {
        return Ok(None);
    };
    beside::store(entry, EXT, MAGIC, &Meta { index: e.index }, &cols)
}

/// Reads the strings kept beside `entry`, the index cache entry of `g`, and checks them.
pub fn load_texts(g: &Graph, entry: Option<&Entry>) -> TextsLoaded {
    beside::load(
        entry,
        EXT,
        MAGIC,
        &WIDTH,
        |m: &Meta| m.index,
        |o| read(o, g),
    )
}

fn read(o: Opened<Meta>, g: &Graph) -> Result<Texts, &'static str> {
    let (map, p) = (&o.map, &o.places);
    let t = Texts {
        objs: mapped(map, p[0])?,
        length: mapped(map, p[1])?,
        bytes: mapped(map, p[2])?,
        starts: mapped(map, p[3])?,
        text: mapped(map, p[4])?,
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
    let folds = verify(map, o.prefix, (p, o.tail), &groups, look, Option::or)?;
    fits?;
    if let Some(why) = folds.into_iter().flatten().next() {
        return Err(why);
    }
    Ok(t)
}
