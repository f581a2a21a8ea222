//! The indexes of many of an object array's elements at once ([`of_array`]): a part of
//! the decoder (its parent module), kept apart for its one pass over an array.

use super::{HprofDecoder, Record};
use crate::format::read::be_id;
use crate::heap::{Graph, ObjId};

/// `[i]`, the index in the object array `from` of each of `to`, in one pass over the
/// array (its class, where `to` holds it, `<class>`); `None` when `from` is not an object
/// array, for [`crate::format::Decoder::edge_label`] one at a time.
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
    let ids = elems.chunks_exact(d.id_size).map(|e| be_id(e, d.id_size));
    let at = crate::heap::positions::first_positions(&want, ids);
    // The array's class is named as edge_label names it (an array of millions asked
    // one by one took a pass over the array for each: hours for the 50 M-object dump).
    Some(
        at.into_iter()
            .zip(&want)
            .map(|(i, &w)| match i {
                _ if w == class => Some("<class>".to_string()),
                Some(i) => Some(format!("[{i}]")),
                None => None,
            })
            .collect(),
    )
}

/// The field of the instance `from` that holds each of `to`, in one pass over its
/// fields by their raw ids (the addresses of `to` read once, no field resolved to an
/// object): `<class>` for its class, `None` where no field holds it (the index's reference
/// from a class loader to a class it defined, which [`crate::format::Decoder::edge_label`]
/// names). `None` when `from` is not an instance.
pub(super) fn of_instance(
    d: &HprofDecoder,
    b: &[u8],
    g: &Graph,
    from: ObjId,
    to: &[ObjId],
) -> Option<Vec<Option<String>>> {
    let Ok(Record::Instance { class, data, .. }) = d.record(b, g, from) else {
        return None;
    };
    let id = d.id_size;
    let f = d.fields(b, g, class);
    // (raw id, field name) of every reference field, in the fields' order.
    let mut held: Vec<(u64, &str)> = Vec::new();
    let mut at = 0usize;
    for (name, t) in &f.0 {
        let size = crate::format::hprof::spec::type_size(*t, id)?;
        let raw = data.get(at..at + size)?;
        if *t == crate::format::hprof::spec::T_OBJECT {
            held.push((be_id(raw, id), name.as_str()));
        }
        at += size;
    }
    Some(
        to.iter()
            .map(|&t| {
                let want = d.address(b, g, t);
                if want == class {
                    return Some("<class>".to_string());
                }
                held.iter()
                    .find(|(raw, _)| *raw == want)
                    .map(|(_, n)| n.to_string())
            })
            .collect(),
    )
}
