//! The indexes of many of an object array's elements at once ([`of_array`]): a part of
//! the decoder (its parent module), kept apart for its one pass over an array.

use super::{HprofDecoder, Record};
use crate::format::read::be_id;
use crate::heap::{Graph, ObjId};

/// `[i]`, the index in the object array `from` of each of `to`, in one pass over the
/// array; `None` when `from` is not an object array (or one of `to` is its class, a
/// reference named otherwise), for [`crate::format::Decoder::edge_label`] one at a time.
pub(super) fn of_array(
    d: &HprofDecoder,
    b: &[u8],
    g: &Graph,
    from: ObjId,
    to: &[ObjId],
) -> Option<Vec<Option<String>>> {
    let want: Vec<u64> = to.iter().map(|&t| d.address(b, g, t)).collect();
    let Ok(Record::ObjArray { class, elems, .. }) = d.record(b, g, from) else {
        return None;
    };
    if want.contains(&class) {
        return None;
    }
    let ids = elems.chunks_exact(d.id_size).map(|e| be_id(e, d.id_size));
    let at = crate::heap::positions::first_positions(&want, ids);
    Some(at.into_iter().map(|i| Some(format!("[{}]", i?))).collect())
}
