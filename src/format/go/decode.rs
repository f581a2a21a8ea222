//! Decoding Go objects on demand. Go objects carry no type, so the inspector shows what
//! the dump has: every word of the object, as hex, with the words the garbage collector
//! knows to be pointers resolved to the object they point into (and the offset inside
//! it), and runs of printable bytes as text (string data, names).

use super::{fieldlist, string, Ranges};
use crate::format::read::Cursor;
use crate::format::{Decoder, Field, Inspection, Value};
use crate::heap::{Graph, ObjId};

/// Words listed by an inspection; the rest are counted.
const MAX_WORDS: usize = 128;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct GoDecoder {
    pub(super) ptr_size: u64,
    pub(super) big_endian: bool,
    pub(super) ranges: Ranges,
    /// Alloc samples (object address, profile record id), sorted by address.
    pub(super) samples: Vec<(u64, u64)>,
    /// Profile records: id → allocation stack, innermost first.
    pub(super) profiles: std::collections::HashMap<u64, Vec<(String, String, u64)>>,
}

impl GoDecoder {
    /// The object's contents and its pointer slots, from its record.
    fn record<'a>(&self, b: &'a [u8], g: &Graph, o: ObjId) -> Option<(&'a [u8], Vec<u64>)> {
        let off = g.offset.get(o as usize)?;
        let mut c = Cursor::new(b.get(off as usize..)?, off);
        c.uleb128("kind").ok()?;
        c.uleb128("address").ok()?;
        let (at, len) = string(&mut c, "contents").ok()?;
        let content = &b[off as usize + at..off as usize + at + len];
        let mut slots = Vec::new();
        fieldlist(&mut c, self.ptr_size, &mut |s| slots.push(s)).ok()?;
        Some((content, slots))
    }

    fn word(&self, content: &[u8], at: usize) -> Option<u64> {
        super::word(content, at, self.ptr_size, self.big_endian)
    }

    /// Runs of at least 4 printable ASCII bytes, joined by " · ", at most `max` chars.
    fn text_runs(content: &[u8], max: usize) -> String {
        let mut out = String::new();
        let mut run = String::new();
        let flush = |run: &mut String, out: &mut String| {
            if run.len() >= 4 {
                if !out.is_empty() {
                    out.push_str(" · ");
                }
                out.push_str(run);
            }
            run.clear();
        };
        for &c in content {
            if (0x20..0x7f).contains(&c) {
                run.push(c as char);
            } else {
                flush(&mut run, &mut out);
            }
            if out.len() >= max {
                break;
            }
        }
        flush(&mut run, &mut out);
        out.chars().take(max).collect()
    }
}

impl Decoder for GoDecoder {
    /// Go objects carry no type: every class may hold pointer-free objects (string
    /// bytes, byte slices, numbers), whose contents are compared whole.
    fn content_classes(&self, _b: &[u8], g: &Graph) -> Vec<crate::heap::ClassId> {
        (0..g.classes.len() as u32).collect()
    }

    fn content<'a>(&self, b: &'a [u8], g: &Graph, o: ObjId) -> Option<crate::format::Content<'a>> {
        if !g.edges(o).is_empty() {
            return None;
        }
        let (content, slots) = self.record(b, g, o)?;
        if !slots.is_empty() || content.is_empty() {
            return None;
        }
        Some(crate::format::Content {
            string: false,
            data: std::borrow::Cow::Borrowed(content),
            length: content.len() as u64,
            bytes: g.shallow_size(o),
            owns: None,
            encoding: crate::format::Encoding::Binary,
        })
    }

    fn save_state(&self) -> Option<Vec<u8>> {
        crate::sys::codec::encode(self)
    }

    fn heap_bytes(&self) -> u64 {
        use crate::format::{map_bytes, vec_bytes};
        let frames: u64 = self
            .profiles
            .values()
            .map(|v| {
                vec_bytes(v)
                    + v.iter()
                        .map(|(f, l, _)| (f.capacity() + l.capacity()) as u64)
                        .sum::<u64>()
            })
            .sum();
        self.ranges.index.bytes() as u64
            + vec_bytes(&self.ranges.sizes)
            + vec_bytes(&self.samples)
            + map_bytes(&self.profiles)
            + frames
    }

    fn object_number(&self, _b: &[u8], _g: &Graph, o: ObjId) -> Option<u64> {
        self.ranges.addrs().get(o as usize).copied()
    }

    fn object_name(&self, _b: &[u8], _g: &Graph, o: ObjId) -> String {
        match self.ranges.addrs().get(o as usize) {
            Some(a) => format!("0x{a:x}"),
            None => format!("0x?{o}"),
        }
    }

    fn find_object(&self, _b: &[u8], _g: &Graph, name: &str) -> Option<ObjId> {
        let hex = name
            .strip_prefix("0x")
            .or_else(|| name.strip_prefix("0X"))?;
        let want = u64::from_str_radix(hex, 16).ok()?;
        self.ranges
            .addrs()
            .binary_search(&want)
            .ok()
            .map(|i| i as ObjId)
    }

    fn inspect_from(&self, b: &[u8], g: &Graph, o: ObjId, from: u64) -> Inspection {
        let mut out = Inspection::default();
        let Some((content, slots)) = self.record(b, g, o) else {
            out.problems.push("the object's record is not whole".into());
            return out;
        };
        out.facts
            .push(("size class".into(), format!("{} bytes", content.len())));
        out.facts
            .push(("pointer slots".into(), slots.len().to_string()));
        if let Some(addr) = self.ranges.addrs().get(o as usize) {
            let i = self.samples.partition_point(|s| s.0 < *addr);
            if let Some(stack) = self
                .samples
                .get(i)
                .filter(|s| s.0 == *addr)
                .and_then(|s| self.profiles.get(&s.1))
            {
                let frames: Vec<String> = stack
                    .iter()
                    .map(|(f, file, line)| format!("{f} ({file}:{line})"))
                    .collect();
                out.facts.push(("allocated at".into(), frames.join(" ← ")));
            }
        }
        let ptr = self.ptr_size as usize;
        let words = content.len() / ptr;
        let start = usize::try_from(from).unwrap_or(usize::MAX).min(words);
        for k in start..words.min(start + MAX_WORDS) {
            let at = k * ptr;
            let Some(w) = self.word(content, at) else {
                break;
            };
            let is_ptr = slots.contains(&(at as u64));
            let value = if is_ptr && w != 0 {
                match self.ranges.resolve(w) {
                    Some((t, 0)) => Value::Object(t),
                    Some((t, off)) => Value::Text(format!(
                        "0x{w:x} = {} + 0x{off:x}",
                        self.object_name(b, g, t)
                    )),
                    None => Value::Missing(format!("0x{w:x} (not a heap object)")),
                }
            } else if is_ptr {
                Value::Null
            } else {
                Value::Text(format!("0x{w:0width$x}", width = ptr * 2))
            };
            out.fields.push(Field {
                name: format!("+0x{at:x}"),
                ty: if is_ptr { "pointer" } else { "word" }.into(),
                value,
                is_static: false,
            });
        }
        out.more_elements = words.saturating_sub(start + MAX_WORDS) as u64;
        out.next_from = words.min(start + MAX_WORDS) as u64;
        let t = Self::text_runs(content, 256);
        if !t.is_empty() {
            out.preview = Some(t);
        }
        out
    }

    fn edge_label(&self, b: &[u8], g: &Graph, from: ObjId, to: ObjId) -> Option<String> {
        self.edge_labels(b, g, from, &[to]).pop().flatten()
    }

    /// Each of `to` named by its own pointer slot, in turn: two slots pointing into one
    /// object are named apart, not both by the first.
    fn edge_labels(&self, b: &[u8], g: &Graph, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        let Some((content, slots)) = self.record(b, g, from) else {
            return vec![None; to.len()];
        };
        // (target, slot, offset in the target) of each slot that points into an object,
        // in slot order (the index's).
        let mut held: Vec<(ObjId, u64, u64)> = Vec::new();
        for s in slots {
            let Some(w) = self.word(content, s as usize) else {
                break;
            };
            if let Some((t, off)) = self.ranges.resolve(w) {
                held.push((t, s, off));
            }
        }
        let want: Vec<u64> = to.iter().map(|&t| t as u64).collect();
        crate::heap::positions::in_turn(&want, held.iter().map(|h| h.0 as u64))
            .into_iter()
            .map(|i| {
                let (_, s, off) = held[i?];
                Some(if off == 0 {
                    format!("+0x{s:x}")
                } else {
                    format!("+0x{s:x} (→ +0x{off:x})")
                })
            })
            .collect()
    }

    fn label(&self, b: &[u8], g: &Graph, o: ObjId) -> Option<String> {
        let (content, _) = self.record(b, g, o)?;
        let t = Self::text_runs(content, 48);
        (t.len() >= 8).then(|| format!("{t:?}"))
    }
}
