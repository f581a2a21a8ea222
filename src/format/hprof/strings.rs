//! Strings and primitive arrays as text: `java.lang.String`'s layout, its contents read
//! by it (the waste report reads millions), a string's text of either coder, and an
//! array's preview.

use std::borrow::Cow;

use super::decode::*;
use super::spec::*;
use crate::format::read::be_uint;
use crate::format::{Field, Value};
use crate::heap::{Graph, ObjId};

impl HprofDecoder {
    /// The layout of `java.lang.String`, from the class dump of `class` (a string's
    /// class) and its superclasses; `None` when its `value` is not a `byte[]` alone
    /// (older VMs' `char[]` with `offset` and `count`).
    pub(super) fn string_layout(
        &self,
        bytes: &[u8],
        g: &Graph,
        class: u64,
    ) -> Option<StringLayout> {
        *self.string_layout.get_or_init(|| {
            let (chain, problem) = self.class_chain(bytes, g, class);
            if problem.is_some() {
                return None;
            }
            let (mut at, mut value_at, mut coder_at) = (0usize, None, None);
            for cd in &chain {
                for &(nid, t) in &cd.fields {
                    let size = type_size(t, self.id_size)?;
                    match &*self.text(bytes, nid) {
                        "value" if t == T_OBJECT => value_at = Some(at),
                        "coder" if t == T_BYTE => coder_at = Some(at),
                        "offset" | "count" => return None,
                        _ => {}
                    }
                    at += size;
                }
            }
            Some(StringLayout {
                class,
                value_at: value_at?,
                coder_at,
                size: at,
            })
        })
    }

    /// A string's contents by the layout, without naming its fields: its value's bytes
    /// (Latin-1, or UTF-16 in the dumping VM's order, little-endian here, as
    /// [`Self::string_text`] reads them) and the value array.
    pub(super) fn string_by_layout<'a>(
        &self,
        bytes: &'a [u8],
        g: &Graph,
        o: ObjId,
        l: &StringLayout,
        data: &[u8],
    ) -> Option<crate::format::Content<'a>> {
        if data.len() != l.size {
            return None;
        }
        let value = be_uint(data.get(l.value_at..l.value_at + self.id_size)?);
        // The string's one reference is its value: the index has it resolved already.
        let v = g
            .edges(o)
            .map(|e| g.out_targets[e])
            .find(|&t| self.address(bytes, g, t) == value)?;
        let Ok(Record::PrimArray {
            ty: T_BYTE,
            length,
            elems,
        }) = self.record(bytes, g, v)
        else {
            return None;
        };
        let utf16 = l.coder_at.and_then(|at| data.get(at)) == Some(&1);
        Some(crate::format::Content {
            string: true,
            data: Cow::Borrowed(elems),
            length: if utf16 {
                elems.len() as u64 / 2
            } else {
                length
            },
            bytes: g.shallow_size(o) + g.shallow_size(v),
            owns: Some(v),
            encoding: if utf16 {
                crate::format::Encoding::Utf16Le
            } else {
                crate::format::Encoding::Latin1
            },
        })
    }

    /// The text of a `java.lang.String` whose fields are `fields`: up to `max` UTF-16
    /// units, and its full length. Latin-1 (`coder` 0 or absent) and UTF-16 (`coder` 1,
    /// in the dumping VM's byte order, little-endian here) `byte[]` values, and the
    /// `char[]` of older VMs and ART (with `offset`/`count` where the VM had them).
    pub(super) fn string_text(
        &self,
        bytes: &[u8],
        g: &Graph,
        fields: &[Field],
        max: usize,
    ) -> Option<(String, u64)> {
        let get = |n: &str| fields.iter().find(|f| f.name == n).map(|f| &f.value);
        let Some(Value::Object(v)) = get("value") else {
            return None;
        };
        let Ok(Record::PrimArray { ty, length, elems }) = self.record(bytes, g, *v) else {
            return None;
        };
        let int = |n: &str| match get(n) {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        };
        match ty {
            8 => {
                if int("coder") == Some(1) {
                    let n = elems.len() / 2;
                    let units: Vec<u16> = elems
                        .chunks_exact(2)
                        .take(max)
                        .map(|p| u16::from_le_bytes([p[0], p[1]]))
                        .collect();
                    Some((String::from_utf16_lossy(&units), n as u64))
                } else {
                    let text = elems.iter().take(max).map(|&b| b as char).collect();
                    Some((text, length))
                }
            }
            5 => {
                let all = elems.len() / 2;
                let (start, n) = match (int("offset"), int("count")) {
                    (Some(off), Some(cnt)) if off >= 0 && cnt >= 0 => {
                        let s = (off as usize).min(all);
                        (s, (cnt as usize).min(all - s))
                    }
                    _ => (0, all),
                };
                let units: Vec<u16> = elems[start * 2..]
                    .chunks_exact(2)
                    .take(n.min(max))
                    .map(|p| u16::from_be_bytes([p[0], p[1]]))
                    .collect();
                Some((String::from_utf16_lossy(&units), n as u64))
            }
            _ => None,
        }
    }

    pub(super) fn primitive_preview(&self, ty: u8, elems: &[u8], length: u64) -> String {
        let es = type_size(ty, self.id_size).unwrap_or(1);
        if ty == 5 {
            let units: Vec<u16> = elems
                .chunks_exact(2)
                .take(PREVIEW_CHARS)
                .map(|p| u16::from_be_bytes([p[0], p[1]]))
                .collect();
            return String::from_utf16_lossy(&units);
        }
        let mut s = String::from("[");
        for (i, raw) in elems.chunks_exact(es).take(PREVIEW_ELEMENTS).enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&display_primitive(ty, raw));
        }
        if length > PREVIEW_ELEMENTS as u64 {
            s.push_str(", …");
        }
        s.push(']');
        s
    }
}
