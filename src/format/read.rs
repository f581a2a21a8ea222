//! A byte cursor that cannot panic.
//!
//! Every read is bounds-checked and fails with a [`ParseError`] that names the absolute
//! file offset, what was being read and how many bytes were left. Counts and lengths taken
//! from a file must go through [`Cursor::check_count`] (or a read of the bytes themselves)
//! before anything is sized from them, so that a hostile count can never make us allocate
//! more than the file could justify. Modelled on gimli-rs/object's `read::util`.

use crate::error::ParseError;

/// A big- or little-endian reader over a byte slice that knows its absolute file offset.
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`, so errors name real offsets.
    base: u64,
}

pub type ReadResult<T> = Result<T, ParseError>;

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Cursor { data, pos: 0, base }
    }

    /// Absolute file offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    fn short(&self, what: &str, need: usize) -> ParseError {
        ParseError::new(
            self.offset(),
            format!("{what} ({need} bytes)"),
            if self.remaining() == 0 {
                "end of file".to_string()
            } else {
                format!("only {} bytes before the end", self.remaining())
            },
        )
    }

    #[inline]
    pub fn bytes(&mut self, n: usize, what: &str) -> ReadResult<&'a [u8]> {
        if self.remaining() < n {
            return Err(self.short(what, n));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn skip(&mut self, n: usize, what: &str) -> ReadResult<()> {
        self.bytes(n, what).map(|_| ())
    }

    #[inline]
    pub fn u8(&mut self, what: &str) -> ReadResult<u8> {
        Ok(self.bytes(1, what)?[0])
    }

    #[inline]
    pub fn u16_be(&mut self, what: &str) -> ReadResult<u16> {
        let b = self.bytes(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    #[inline]
    pub fn u32_be(&mut self, what: &str) -> ReadResult<u32> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline]
    pub fn u64_be(&mut self, what: &str) -> ReadResult<u64> {
        let b = self.bytes(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    /// A big-endian unsigned integer of `size` bytes (1, 2, 4 or 8).
    #[inline]
    pub fn uint_be(&mut self, size: usize, what: &str) -> ReadResult<u64> {
        match size {
            4 => self.u32_be(what).map(u64::from),
            8 => self.u64_be(what),
            2 => self.u16_be(what).map(u64::from),
            1 => self.u8(what).map(u64::from),
            _ => Err(ParseError::new(
                self.offset(),
                "an integer width of 1, 2, 4 or 8",
                format!("{size}"),
            )),
        }
    }

    /// Unsigned LEB128 (Dart, MoarVM). At most 10 bytes.
    pub fn uleb128(&mut self, what: &str) -> ReadResult<u64> {
        let start = self.offset();
        let mut result: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.u8(what)?;
            if shift >= 64 || (shift == 63 && b > 1) {
                return Err(ParseError::new(
                    start,
                    format!("{what} (LEB128)"),
                    "more than 64 bits",
                ));
            }
            result |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(result);
            }
            shift += 7;
        }
    }

    /// Checks that `count` items of at least `min_size` bytes each can still be in the
    /// stream, before anything is allocated for them.
    pub fn check_count(&self, count: u64, min_size: u64, what: &str) -> ReadResult<usize> {
        let need = count.checked_mul(min_size);
        match need {
            Some(n) if n <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(ParseError::new(
                self.offset(),
                format!("{what}: {count} items of at least {min_size} bytes"),
                format!("only {} bytes left", self.remaining()),
            )),
        }
    }
}

/// Up to 16 bytes from `b` in quotes, printable ASCII as is and anything else as `\xNN`:
/// how an error message shows the bytes it found instead of what it expected.
pub fn quoted_bytes(b: &[u8]) -> String {
    let shown: String = b
        .iter()
        .take(16)
        .map(|&c| {
            if (0x20..0x7f).contains(&c) {
                (c as char).to_string()
            } else {
                format!("\\x{c:02x}")
            }
        })
        .collect();
    format!("\"{shown}\"")
}

/// Reads a big-endian id of 4 or 8 bytes from `b` without bounds errors: callers have
/// already checked `b.len() >= size`.
#[inline]
pub fn be_id(b: &[u8], size: usize) -> u64 {
    if size == 4 {
        u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as u64
    } else {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        u64::from_be_bytes(a)
    }
}

/// A big-endian unsigned integer of any length up to 8 bytes (longer input keeps the
/// last 8).
#[inline]
pub fn be_uint(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |a, &x| a << 8 | x as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked_with_offsets() {
        let data = [0u8, 1, 2, 3, 4];
        let mut c = Cursor::new(&data, 100);
        assert_eq!(c.u8("tag").unwrap(), 0);
        assert_eq!(c.u32_be("len").unwrap(), 0x01020304);
        let e = c.u16_be("x").unwrap_err();
        assert_eq!(e.offset, 105);
        assert!(e.found.contains("end of file"));
    }

    #[test]
    fn hostile_counts_are_refused() {
        let data = [0u8; 16];
        let c = Cursor::new(&data, 0);
        assert!(c.check_count(4, 4, "ids").is_ok());
        assert!(c.check_count(5, 4, "ids").is_err());
        assert!(c.check_count(u64::MAX, 8, "ids").is_err());
    }

    #[test]
    fn leb128() {
        let data = [0xe5, 0x8e, 0x26, 0xff];
        let mut c = Cursor::new(&data, 0);
        assert_eq!(c.uleb128("n").unwrap(), 624485);
        assert!(c.uleb128("n").is_err());
    }
}
