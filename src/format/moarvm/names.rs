//! The names a MoarVM file accumulates across its snapshots: strings, types and static
//! frames.

use super::*;

/// Strings, types and static frames: each snapshot adds the ones new since the previous
/// one, and indexes refer to the concatenation of all blocks so far, in file order.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Names {
    pub strings: Vec<Box<str>>,
    /// (REPR name, type name), string indexes.
    pub types: Vec<[u32; 2]>,
    /// (name, compilation unit id, line, file); name, cuid and file are string indexes.
    pub frames: Vec<[u32; 4]>,
}

impl Names {
    pub fn string(&self, i: u64) -> std::borrow::Cow<'_, str> {
        match self.strings.get(i as usize) {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(format!("<string #{i} missing>")),
        }
    }

    /// A type's (REPR, name).
    pub fn type_names(&self, t: u32) -> (String, String) {
        match self.types.get(t as usize) {
            Some(&[r, n]) => (
                self.string(r as u64).into_owned(),
                self.string(n as u64).into_owned(),
            ),
            None => ("?".into(), format!("<type #{t} missing>")),
        }
    }

    /// A static frame as `name (file:line)`.
    pub fn frame_name(&self, f: u32) -> String {
        match self.frame_parts(f) {
            (name, loc) if !loc.is_empty() => format!("{name} ({loc})"),
            (missing, _) => missing,
        }
    }

    /// The function and the location of a static frame, apart (for thread frames).
    pub(super) fn frame_parts(&self, f: u32) -> (String, String) {
        match self.frames.get(f as usize) {
            Some(&[name, _, line, file]) => {
                let name = self.string(name as u64);
                let name = if name.is_empty() {
                    "<anon>".into()
                } else {
                    name
                };
                (
                    name.into_owned(),
                    format!("{}:{line}", self.string(file as u64)),
                )
            }
            None => (format!("<static frame #{f} missing>"), String::new()),
        }
    }

    /// Reads a string heap (`{ u32 length, UTF-8 }*` in v3): appends its strings.
    pub fn push_string_heap(
        &mut self,
        heap: &[u8],
        at: u64,
    ) -> std::result::Result<(), ParseError> {
        let mut i = 0usize;
        while i < heap.len() {
            let Some(n) = heap.get(i..i + 4) else {
                return Err(ParseError::new(
                    at,
                    "a string length (4 bytes) in the string heap",
                    format!("{} bytes at its end", heap.len() - i),
                ));
            };
            let n = u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize;
            let Some(s) = heap.get(i + 4..i + 4 + n) else {
                return Err(ParseError::new(
                    at,
                    format!("a string of {n} bytes in the string heap"),
                    format!("{} bytes left in it", heap.len() - i - 4),
                ));
            };
            self.strings.push(String::from_utf8_lossy(s).into());
            i += 4 + n;
        }
        Ok(())
    }
}
