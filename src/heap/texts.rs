//! The text of every string of a snapshot as one run of UTF-8, with each string's object,
//! length and bytes ([`Texts`]): what the `strings` table of a query reads. The format's
//! decoder makes it ([`crate::format::texts`]); the index cache keeps it beside the index
//! entry and reads it back ([`crate::cache`]), checked here first ([`Texts::check`]).

use crate::heap::{Column, ObjId};

/// The strings of a snapshot, in the order of their objects: the object, its length
/// (characters, as the format counts them), its bytes (what one copy costs), and its
/// text as UTF-8, string `i` at `text[starts[i]..starts[i + 1]]`. About 28 bytes per
/// string beside its text.
#[derive(Default)]
pub struct Texts {
    pub objs: Column<u32>,
    pub length: Column<u64>,
    pub bytes: Column<u64>,
    /// One more than the strings: where each string's text starts, then the end.
    pub starts: Column<u64>,
    pub text: Column<u8>,
}

impl Texts {
    /// How many strings.
    pub fn len(&self) -> usize {
        self.objs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objs.is_empty()
    }

    /// The strings of objects `from..to`: the range of their places.
    pub fn places(&self, from: ObjId, to: ObjId) -> std::ops::Range<usize> {
        self.objs.partition_point(|&o| o < from)..self.objs.partition_point(|&o| o < to)
    }

    /// Whether the columns are of one length each (the starts one more), the starts
    /// from 0 to the end of the text: what [`Texts::check_piece`] needs to look up.
    pub fn fits(&self) -> Result<(), &'static str> {
        let n = self.objs.len();
        if self.length.len() != n || self.bytes.len() != n || self.starts.len() != n + 1 {
            return Err("columns of different lengths");
        }
        if self.starts.first() != Some(&0) || self.starts.last() != Some(&(self.text.len() as u64))
        {
            return Err("text places out of order");
        }
        Ok(())
    }

    /// Checks the piece `bytes` (byte offsets) of column `col` (objects 0, lengths 1,
    /// bytes 2, starts 3, text 4) of strings that [`Texts::fits`], of a snapshot of
    /// `objects` objects: the objects ascending and in range, the starts ascending and
    /// each on a character's boundary, the text UTF-8. All pieces checked, the strings
    /// can be used ([`Texts::check`]).
    pub fn check_piece(
        &self,
        col: usize,
        bytes: std::ops::Range<usize>,
        objects: usize,
    ) -> Result<(), &'static str> {
        // The elements of the piece, with the one before it.
        fn with_previous<'a, T>(v: &'a [T], bytes: &std::ops::Range<usize>) -> &'a [T] {
            let w = std::mem::size_of::<T>();
            let (from, to) = (
                (bytes.start / w).saturating_sub(1),
                (bytes.end / w).min(v.len()),
            );
            &v[from.min(to)..to]
        }
        match col {
            0 => {
                let v = with_previous(&self.objs, &bytes);
                if v.windows(2).any(|w| w[0] >= w[1]) || v.iter().any(|&o| o as usize >= objects) {
                    return Err("objects out of order or out of range");
                }
            }
            3 => {
                let v = with_previous(&self.starts, &bytes);
                if v.windows(2).any(|w| w[0] > w[1]) {
                    return Err("text places out of order");
                }
                if !v.iter().all(|&s| {
                    (s as usize) == self.text.len()
                        || self
                            .text
                            .get(s as usize)
                            .is_some_and(|&b| !is_continuation(b))
                }) {
                    return Err("a string's text cut inside a character");
                }
            }
            4 => {
                // From the first character that starts in the piece to the first that
                // starts after it (a character starts within three bytes of any place).
                let at = |i: usize| {
                    (i..(i + 3).min(self.text.len()))
                        .find(|&k| !is_continuation(self.text[k]))
                        .unwrap_or(i.min(self.text.len()))
                };
                let (from, to) = (at(bytes.start), at(bytes.end.min(self.text.len())));
                if std::str::from_utf8(&self.text[from..to.max(from)]).is_err() {
                    return Err("text not UTF-8");
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether the strings fit together and with a snapshot of `objects` objects, so that
    /// [`Texts`] read from a file can be used: the columns of one length each, the
    /// objects ascending and in range, the starts ascending from 0 to the end of the
    /// text, the text UTF-8 and every start on a character's boundary.
    pub fn check(&self, objects: usize) -> Result<(), &'static str> {
        self.fits()?;
        for (col, len) in [
            (0, self.objs.len() * 4),
            (3, self.starts.len() * 8),
            (4, self.text.len()),
        ] {
            self.check_piece(col, 0..len, objects)?;
        }
        Ok(())
    }
}

/// A byte that continues a UTF-8 character rather than starting one.
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}
