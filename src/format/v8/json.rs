//! The little JSON a `.heapsnapshot` needs, over the memory map: skipping values to find
//! the top-level keys, a tokenizer for the long integer arrays, and a lenient decoder
//! for strings. No DOM of the file is ever built (a 500 MB snapshot would become
//! gigabytes of `serde_json::Value`); only the small `snapshot` header goes through
//! serde_json.

use crate::error::ParseError;
use crate::format::read::quoted_bytes;

/// Where a scan stopped short: the file ended inside a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut(pub usize);

#[inline]
pub fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && matches!(b[pos], b' ' | b'\n' | b'\r' | b'\t') {
        pos += 1;
    }
    pos
}

/// The end (one past the closing quote) of the string whose opening quote is at `pos`.
#[inline]
pub fn skip_string(b: &[u8], pos: usize) -> Result<usize, Cut> {
    let mut i = pos + 1;
    loop {
        match memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]) {
            None => return Err(Cut(b.len())),
            Some(k) => {
                i += k;
                if b[i] == b'"' {
                    return Ok(i + 1);
                }
                i += 2; // a backslash and the byte it escapes
                if i > b.len() {
                    return Err(Cut(b.len()));
                }
            }
        }
    }
}

/// The end of the JSON value starting at `pos` (after whitespace).
pub fn skip_value(b: &[u8], pos: usize) -> Result<usize, Result<Cut, ParseError>> {
    let Some(&c) = b.get(pos) else {
        return Err(Ok(Cut(b.len())));
    };
    match c {
        b'"' => skip_string(b, pos).map_err(Ok),
        b'[' | b'{' => {
            let mut depth = 0usize;
            let mut i = pos;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = skip_string(b, i).map_err(Ok)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            Err(Ok(Cut(b.len())))
        }
        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
            let mut i = pos + 1;
            while i < b.len() && !matches!(b[i], b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
            {
                i += 1;
            }
            if i == b.len() {
                Err(Ok(Cut(b.len())))
            } else {
                Ok(i)
            }
        }
        other => Err(Err(ParseError::new(
            pos as u64,
            "a JSON value",
            format!("byte 0x{other:02x}"),
        ))),
    }
}

/// Integers of a JSON array, read in order from the map. The array's `[` has been
/// consumed; `int` returns `Ok(None)` at the closing `]`.
pub struct Ints<'a> {
    b: &'a [u8],
    pub pos: usize,
}

/// Why an integer could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntError {
    /// The file ends inside the array (the offset where the last whole value ended).
    Cut(usize),
    Bad(ParseError),
}

impl<'a> Ints<'a> {
    pub fn new(b: &'a [u8], pos: usize) -> Self {
        Ints { b, pos }
    }

    /// The next integer, `Ok(None)` at `]`. A number that runs to the end of the file is
    /// not trusted (it may have been cut in the middle of its digits).
    #[inline]
    pub fn int(&mut self) -> Result<Option<i64>, IntError> {
        let b = self.b;
        let mut i = self.pos;
        loop {
            match b.get(i) {
                // Separators as `records` (which built the index) takes them: any
                // control byte counts as whitespace. Accepting only JSON's four made a
                // node the index holds unreadable here (fuzz/README.md, v8 crash 1).
                Some(&c) if c == b',' || c <= b' ' => i += 1,
                Some(b']') => {
                    self.pos = i + 1;
                    return Ok(None);
                }
                Some(_) => break,
                None => return Err(IntError::Cut(self.pos)),
            }
        }
        let start = i;
        let neg = b[i] == b'-';
        if neg {
            i += 1;
        }
        let mut v: i64 = 0;
        let digits_from = i;
        while let Some(&c) = b.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(d as i64);
            i += 1;
        }
        if i == b.len() {
            return Err(IntError::Cut(self.pos));
        }
        if i == digits_from || i - digits_from > 19 {
            return Err(IntError::Bad(ParseError::new(
                start as u64,
                "an integer",
                quoted_bytes(&b[start..]),
            )));
        }
        if !(b[i] == b',' || b[i] == b']' || b[i] <= b' ') {
            return Err(IntError::Bad(ParseError::new(
                i as u64,
                "',' or ']' after an integer",
                quoted_bytes(&b[i..]),
            )));
        }
        self.pos = i;
        Ok(Some(if neg { -v } else { v }))
    }
}

/// How a run of records ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordsEnd {
    /// At the array's `]`; the position after it.
    Closed(usize),
    /// The file ends inside the array: the offset of the first incomplete record.
    Cut(usize),
    /// The callback asked to stop.
    Stopped,
    Bad(ParseError),
}

/// The value of eight decimal digits, already less `'0'`, loaded little-endian (the first
/// digit in the lowest byte); leading zero bytes are leading zeros.
#[inline(always)]
fn eight_digits(mut v: u64) -> u64 {
    v = (v & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561) >> 8;
    v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    (v & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32
}

/// Reads records of `width` integers (1 to 64) from an array whose `[` lies just before
/// `pos`, calling `f(record, offset of its first digit)` for each until `f` returns
/// false. The hot loop of the V8 reader: one pass over the bytes, no allocation, no
/// per-integer calls. A number that runs to the end of the file is not trusted (it may
/// have been cut inside its digits).
///
/// Two paths read the same integers. [`fast_window`] takes 64 bytes at a time while they
/// are laid out as V8 writes them (digits, then `,` or `\n,`); anything else (the first
/// integer, the closing `]`, signs, spaces, a cut, garbage) goes to the byte-at-a-time
/// path below, which checks every rule and names the offset of what breaks one. The fast
/// path only ever stops early: what it declines, the slow path reads.
#[inline]
pub fn records(
    b: &[u8],
    pos: usize,
    width: usize,
    f: impl FnMut(&[i64], usize) -> bool,
) -> RecordsEnd {
    records_with::<true>(b, pos, width, u64::MAX, f)
}

/// [`records`], where only the fields whose bit is set in `needed` (bit `i` for field
/// `i`) need their values: the fast path leaves the others 0 (it still checks their
/// digits and separators, as every integer's). The readers of `nodes` and `edges` need
/// five of seven and two of three.
#[inline]
pub fn records_needing(
    b: &[u8],
    pos: usize,
    width: usize,
    needed: u64,
    f: impl FnMut(&[i64], usize) -> bool,
) -> RecordsEnd {
    records_with::<true>(b, pos, width, needed, f)
}

/// [`records`], with the fast path or (for the tests that compare the two) without it.
#[inline(always)]
fn records_with<const FAST: bool>(
    b: &[u8],
    pos: usize,
    width: usize,
    needed: u64,
    mut f: impl FnMut(&[i64], usize) -> bool,
) -> RecordsEnd {
    let len = b.len();
    let mut rec = [0i64; 64];
    let width = width.clamp(1, 64);
    let mut i = pos;
    // Whether an integer has been read yet: every later one must follow exactly one comma.
    let mut started = false;
    // The record's next field, and the offset of its first digit.
    let mut k = 0usize;
    let mut at = 0usize;
    // Where the fast path may be tried again after it declined a window.
    let mut retry = 0usize;
    loop {
        // `i` is just after an integer's digits whenever `started`: where a window starts.
        if FAST && started && i >= retry {
            let emitted = fast_window(b, i, |s, digits| {
                if k == 0 {
                    at = s;
                }
                rec[k] = if needed >> k & 1 == 1 {
                    digits.value() as i64
                } else {
                    0
                };
                k += 1;
                if k == width {
                    k = 0;
                    return f(&rec[..width], at);
                }
                true
            });
            match emitted {
                None => return RecordsEnd::Stopped,
                Some(e) if e > i => {
                    i = e;
                    continue;
                }
                Some(_) => retry = i + 64,
            }
        }
        let mut commas = 0;
        while i < len && (b[i] == b',' || b[i] <= b' ') {
            commas += (b[i] == b',') as u32;
            i += 1;
        }
        if i >= len {
            return RecordsEnd::Cut(if k == 0 { i } else { at });
        }
        if k == 0 {
            at = i;
        }
        let c = b[i];
        // An empty value (",,", or a comma before "]") would shift every later
        // integer into the wrong field: refuse it.
        if commas > 1 || (commas == 1 && c == b']') {
            return RecordsEnd::Bad(ParseError::new(
                i as u64,
                "an integer between two commas",
                "an empty value",
            ));
        }
        // Two integers with only whitespace between them would shift every later
        // field for a reader that counts commas (the decoder does): refuse them too.
        if started && commas == 0 && c != b']' {
            return RecordsEnd::Bad(ParseError::new(
                i as u64,
                "',' between two integers",
                "none",
            ));
        }
        started = true;
        if c == b']' {
            if k != 0 {
                return RecordsEnd::Bad(ParseError::new(
                    i as u64,
                    format!("{width} integers per record"),
                    format!("a record of {k}"),
                ));
            }
            return RecordsEnd::Closed(i + 1);
        }
        let neg = c == b'-';
        if neg {
            i += 1;
        }
        let s = i;
        let mut v: u64 = 0;
        // Up to eight digits at once (SWAR): find the first byte that is not a digit,
        // then combine the digits in three multiplications. Fewer than eight means the
        // byte after them is already known not to be a digit: no byte loop.
        let mut more = true;
        if let Some(bytes) = b.get(i..i + 8) {
            let chunk = u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
            let sub = chunk.wrapping_sub(0x3030_3030_3030_3030);
            let mask = (sub | sub.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
            let n = if mask == 0 {
                8
            } else {
                (mask.trailing_zeros() / 8) as usize
            };
            if n > 0 {
                v = eight_digits(sub << (8 * (8 - n)));
                i += n;
            }
            more = n == 8;
        }
        while more && i < len {
            let d = b[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(d as u64);
            i += 1;
        }
        if i >= len {
            return RecordsEnd::Cut(at);
        }
        if i - s > 18 {
            // Too long for the integers V8 writes: said where it starts, as found.
            let from = s - neg as usize;
            let shown = String::from_utf8_lossy(&b[from..i.min(from + 40)]);
            return RecordsEnd::Bad(ParseError::new(
                from as u64,
                "an integer of at most 18 digits",
                if i - from <= 40 {
                    shown.into_owned()
                } else {
                    format!("{shown}… ({} digits)", i - s)
                },
            ));
        }
        if i == s || !(b[i] == b',' || b[i] == b']' || b[i] <= b' ') {
            let from = if i == s { s } else { i };
            return RecordsEnd::Bad(ParseError::new(
                from as u64,
                "an integer followed by ',' or ']'",
                quoted_bytes(&b[from..len]),
            ));
        }
        rec[k] = if neg { -(v as i64) } else { v as i64 };
        k += 1;
        if k == width {
            k = 0;
            if !f(&rec[..width], at) {
                return RecordsEnd::Stopped;
            }
        }
    }
}

/// Bytes a window reads: the 64 whose integers it takes, and 8 more so that the last
/// digit's word can be loaded whole (and so that the 65th byte says whether the 64th
/// byte's digits run on).
const WINDOW_SPAN: usize = 72;

/// Bit `j` set where byte `j` of the window's first 64 is a digit, a comma, a newline.
#[inline(always)]
fn window_masks(w: &[u8; WINDOW_SPAN]) -> (u64, u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let (mut d, mut c, mut n) = (0u64, 0u64, 0u64);
        for k in 0..4 {
            // SAFETY: SSE2 is part of x86_64's baseline; the load reads the 16 bytes at
            // `16 * k` (k < 4) of `w`, which has more than 64.
            unsafe {
                let x = _mm_loadu_si128(w.as_ptr().add(16 * k) as *const __m128i);
                let bits = |m: __m128i| (_mm_movemask_epi8(m) as u32 & 0xffff) as u64;
                c |= bits(_mm_cmpeq_epi8(x, _mm_set1_epi8(b',' as i8))) << (16 * k);
                n |= bits(_mm_cmpeq_epi8(x, _mm_set1_epi8(b'\n' as i8))) << (16 * k);
                // A digit: x - '0', unsigned, is at most 9.
                let s = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
                d |= bits(_mm_cmpeq_epi8(_mm_min_epu8(s, _mm_set1_epi8(9)), s)) << (16 * k);
            }
        }
        (d, c, n)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut d, mut c, mut n) = (0u64, 0u64, 0u64);
        for (j, &x) in w[..64].iter().enumerate() {
            d |= (x.is_ascii_digit() as u64) << j;
            c |= ((x == b',') as u64) << j;
            n |= ((x == b'\n') as u64) << j;
        }
        (d, c, n)
    }
}

/// The fast path of [`records`]: `emit(offset of the first digit, value)` for the
/// integers that lie wholly in the 64 bytes from `p`, which is just after an integer's
/// last digit, when those bytes are in V8's own layout: runs of digits, each followed by
/// `,` or by `\n,`. Every integer's start and end come from bit masks of the whole window
/// first (rather than integer after integer), so the processor works on several integers
/// at once. Returns the position just after the last integer emitted: `p` itself when
/// the window is in any other shape or too near the end of `b`. An integer of more than
/// 16 digits, or one that runs past the window, is left to the next window or to the slow
/// path, which reads those bytes and names any fault in them. `emit` returning false
/// stops at once (`None`).
#[inline(always)]
fn fast_window(
    b: &[u8],
    p: usize,
    mut emit: impl FnMut(usize, Digits<'_>) -> bool,
) -> Option<usize> {
    let Some(Ok(w)) = b
        .get(p..p + WINDOW_SPAN)
        .map(<&[u8; WINDOW_SPAN]>::try_from)
    else {
        return Some(p);
    };
    let (d, c, n) = window_masks(w);
    // The byte before the window is a digit.
    let d_before = (d << 1) | 1;
    let ok = d | c | n == u64::MAX // only digits, commas and newlines
        && d & 1 == 0 // the integer before the window ended there
        && (c << 1) & !d == 0 // a comma is followed by a digit
        && (n << 1) & !c == 0 // a newline by a comma
        && n & !d_before == 0 // a newline follows a digit
        && c & !(d_before | (n << 1)) == 0; // a comma follows a digit or a newline
    if !ok {
        return Some(p);
    }
    let mut starts = d & !d_before;
    // A run's last digit. The 64th byte ends one only when the 65th is a separator the
    // slow path would take after an integer (a digit goes on; anything else is for the
    // slow path to judge).
    let sep_after = matches!(w[64], b',' | b'\n') as u64;
    let mut ends = d & !(d >> 1) & !((1 - sep_after) << 63);
    let mut end = p;
    while starts != 0 && ends != 0 {
        let j = starts.trailing_zeros() as usize;
        let e = ends.trailing_zeros() as usize;
        starts &= starts - 1;
        ends &= ends - 1;
        if e + 1 - j > 16 {
            break;
        }
        if !emit(p + j, Digits { w, j, e }) {
            return None;
        }
        end = p + e + 1;
    }
    Some(end)
}

/// The digits of one integer in a [`fast_window`]: bytes `j..=e` of the window `w`, at
/// most 16. Their value is worked out only when asked for.
#[derive(Clone, Copy)]
struct Digits<'a> {
    w: &'a [u8; WINDOW_SPAN],
    j: usize,
    e: usize,
}

impl Digits<'_> {
    #[inline(always)]
    fn value(self) -> u64 {
        let (w, j, e) = (self.w, self.j, self.e);
        let len = e + 1 - j;
        let word = |at: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&w[at..at + 8]);
            u64::from_le_bytes(x).wrapping_sub(0x3030_3030_3030_3030)
        };
        // The digits' values, the first in the lowest byte; the bytes after the last
        // digit are shifted out (leading zero bytes are leading zeros). The last eight
        // digits end at `e`, inside the 64 bytes, so `word(e - 7)` is whole.
        if len <= 8 {
            eight_digits(word(j) << (8 * (8 - len)))
        } else {
            eight_digits(word(j) << (8 * (16 - len))) * 100_000_000 + eight_digits(word(e - 7))
        }
    }
}

/// Decodes the JSON string whose opening quote is at `pos`, leniently: unknown escapes are
/// kept as they are, unpaired surrogates (V8 writes them for characters above U+FFFF,
/// which it cuts to 16 bits) become U+FFFD, invalid UTF-8 is replaced. At most
/// `max_chars` characters; returns (text, whether it was cut short by `max_chars`).
pub fn decode_string(b: &[u8], pos: usize, max_chars: usize) -> (String, bool) {
    let mut out = String::new();
    let mut units: Vec<u16> = Vec::new();
    let mut i = pos + 1;
    let mut chars = 0usize;
    let flush = |units: &mut Vec<u16>, out: &mut String| {
        if !units.is_empty() {
            out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
        }
    };
    while i < b.len() {
        if chars >= max_chars {
            flush(&mut units, &mut out);
            return (out, true);
        }
        match b[i] {
            b'"' => break,
            b'\\' if i + 1 < b.len() => {
                let e = b[i + 1];
                if e == b'u' {
                    let hex = b
                        .get(i + 2..i + 6)
                        .and_then(|h| std::str::from_utf8(h).ok());
                    if let Some(u) = hex.and_then(|h| u16::from_str_radix(h, 16).ok()) {
                        units.push(u);
                        chars += 1;
                        i += 6;
                        continue;
                    }
                }
                flush(&mut units, &mut out);
                out.push(match e {
                    b'n' => '\n',
                    b't' => '\t',
                    b'r' => '\r',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'/' => '/',
                    b'"' => '"',
                    b'\\' => '\\',
                    other => other as char,
                });
                chars += 1;
                i += 2;
            }
            _ => {
                flush(&mut units, &mut out);
                // A run of plain bytes up to the next quote or backslash.
                let end = memchr::memchr2(b'"', b'\\', &b[i..]).map_or(b.len(), |k| i + k);
                let text = String::from_utf8_lossy(&b[i..end]);
                for c in text.chars() {
                    if chars >= max_chars {
                        return (out, true);
                    }
                    out.push(c);
                    chars += 1;
                }
                i = end;
            }
        }
    }
    flush(&mut units, &mut out);
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_signs_cuts_and_garbage() {
        let b = b"[1, -2,\n30 ,4]";
        let mut t = Ints::new(b, 1);
        let mut v = Vec::new();
        while let Some(x) = t.int().unwrap() {
            v.push(x);
        }
        assert_eq!(v, vec![1, -2, 30, 4]);
        // Cut inside the last number: the number is not trusted.
        let mut t = Ints::new(b"[1,2,34", 1);
        assert_eq!(t.int(), Ok(Some(1)));
        assert_eq!(t.int(), Ok(Some(2)));
        assert_eq!(t.int(), Err(IntError::Cut(4)));
        let mut t = Ints::new(b"[1,x]", 1);
        assert_eq!(t.int(), Ok(Some(1)));
        assert!(matches!(t.int(), Err(IntError::Bad(_))));
    }

    #[test]
    fn integers_of_every_length_parse_exactly() {
        let mut text = String::from("[");
        let mut want = Vec::new();
        let mut x: u64 = 1;
        for k in 0..2000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let digits = (k % 18) as u32 + 1;
            let v = (x >> 4) % 10u64.pow(digits);
            let v = if k % 7 == 0 { -(v as i64) } else { v as i64 };
            want.push(v);
            text.push_str(&format!("{v}{}", if k % 3 == 0 { ",\n" } else { "," }));
        }
        text.push_str("0]");
        want.push(0);
        let mut got = Vec::new();
        let end = records(text.as_bytes(), 1, 1, |r, _| {
            got.push(r[0]);
            true
        });
        assert_eq!(end, RecordsEnd::Closed(text.len()));
        assert_eq!(got, want);
    }

    #[test]
    fn records_of_a_width() {
        let b = b"[1,2,3\n,4,-5,6]";
        let mut got = Vec::new();
        let end = records(b, 1, 3, |r, at| {
            got.push((r.to_vec(), at));
            true
        });
        assert_eq!(end, RecordsEnd::Closed(b.len()));
        assert_eq!(got, vec![(vec![1, 2, 3], 1), (vec![4, -5, 6], 8)]);
        // Cut inside the second record: it is not delivered.
        let mut n = 0;
        assert_eq!(
            records(b"[1,2,3,4,5", 1, 3, |_, _| {
                n += 1;
                true
            }),
            RecordsEnd::Cut(7)
        );
        assert_eq!(n, 1);
        assert!(matches!(
            records(b"[1,2]", 1, 3, |_, _| true),
            RecordsEnd::Bad(_)
        ));
        assert!(matches!(
            records(b"[1,x,3]", 1, 3, |_, _| true),
            RecordsEnd::Bad(_)
        ));
    }

    /// Every record `records` gives, and how it ended; `FAST` chooses the path.
    fn all_records<const FAST: bool>(
        b: &[u8],
        width: usize,
        stop_after: usize,
    ) -> (Vec<(Vec<i64>, usize)>, RecordsEnd) {
        let mut got = Vec::new();
        let end = records_with::<FAST>(b, 1, width, u64::MAX, |r, at| {
            got.push((r.to_vec(), at));
            got.len() < stop_after
        });
        (got, end)
    }

    #[test]
    fn the_fast_path_reads_long_arrays_exactly() {
        // V8's layout (a newline before the comma that starts each record), numbers of 1
        // to 16 digits, thousands of them: most go through `fast_window`.
        let mut text = String::from("[");
        let mut want = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for r in 0..5000 {
            let mut rec = Vec::new();
            for k in 0..7 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let digits = 1 + (x % 16) as u32;
                let v = (x >> 8) % 10u64.pow(digits);
                if r > 0 || k > 0 {
                    text.push_str(if k == 0 { "\n," } else { "," });
                }
                text.push_str(&v.to_string());
                rec.push(v as i64);
            }
            want.push(rec);
        }
        text.push(']');
        let (got, end) = all_records::<true>(text.as_bytes(), 7, usize::MAX);
        assert_eq!(end, RecordsEnd::Closed(text.len()));
        assert_eq!(got.iter().map(|g| g.0.clone()).collect::<Vec<_>>(), want);
        // Each record's offset is where its first digit is.
        for (rec, at) in &got {
            assert!(
                text[*at..].starts_with(&rec[0].to_string()),
                "record at {at}"
            );
        }
        assert_eq!(
            all_records::<false>(text.as_bytes(), 7, usize::MAX),
            (got.clone(), end.clone())
        );
        // Needing fields 0, 2 and 6 only: those are exact (wherever the record was read,
        // fast or slow path), the others 0 or exact (the slow path reads them all).
        let needed = 0b100_0101u64;
        let mut partial = Vec::new();
        let end2 = records_needing(text.as_bytes(), 1, 7, needed, |r, at| {
            partial.push((r.to_vec(), at));
            true
        });
        assert_eq!(end2, end);
        assert_eq!(partial.len(), got.len());
        let mut zeroed = 0;
        for ((p, pa), (g, ga)) in partial.iter().zip(&got) {
            assert_eq!(pa, ga);
            for k in 0..7 {
                if needed >> k & 1 == 1 {
                    assert_eq!(p[k], g[k]);
                } else if p[k] != g[k] {
                    assert_eq!(p[k], 0);
                    zeroed += 1;
                }
            }
        }
        // The fast path read most of them, and skipped the values it was not asked for.
        assert!(zeroed > 5000 * 4 / 2, "{zeroed}");
    }

    proptest::proptest! {
        /// The fast path gives what the byte-at-a-time path gives, record for record, and
        /// ends the same way (the same error at the same offset), on arrays that are
        /// mostly in V8's layout but carry faults anywhere: other separators, signs,
        /// letters, long numbers, a closing bracket, a cut, a callback that stops.
        #[test]
        fn the_fast_path_agrees_with_the_slow_one(
            parts in proptest::collection::vec((0u8..40, 0u64..u64::MAX, 1u32..20), 1..400),
            width in 1usize..8,
            stop_after in 1usize..2000,
            cut in proptest::option::of(0usize..4000),
        ) {
            let mut text = b"[".to_vec();
            for (i, &(sep, v, digits)) in parts.iter().enumerate() {
                if i > 0 {
                    let s: &[u8] = match sep {
                        0 => b",,",
                        1 => b", ",
                        2 => b",\n",
                        3 => b"\n",
                        4 => b" ",
                        5 => b",-",
                        6 => b",x",
                        7 => b"]",
                        8 => b"\r,",
                        9 => b"",
                        10..=24 => b"\n,",
                        _ => b",",
                    };
                    text.extend_from_slice(s);
                }
                let v = if digits >= 19 { v } else { v % 10u64.pow(digits) };
                text.extend_from_slice(v.to_string().as_bytes());
            }
            text.push(b']');
            if let Some(c) = cut {
                text.truncate(c.max(1).min(text.len()));
            }
            proptest::prop_assert_eq!(
                all_records::<true>(&text, width, stop_after),
                all_records::<false>(&text, width, stop_after)
            );
        }
    }

    #[test]
    fn strings_decode_leniently() {
        let s = br#""a\"b\\c\nd\u00e9\u20ac\uD83D\uDE00\uF600\uD800x""#;
        let (t, cut) = decode_string(s, 0, 100);
        assert!(!cut);
        assert_eq!(t, "a\"b\\c\nd\u{e9}\u{20ac}\u{1F600}\u{F600}\u{FFFD}x");
        assert_eq!(decode_string(s, 0, 3), ("a\"b".to_string(), true));
        assert_eq!(skip_string(s, 0), Ok(s.len()));
        assert_eq!(skip_string(b"\"abc\\", 0), Err(Cut(5)));
    }

    #[test]
    fn values_skip_nested_and_stop_at_cuts() {
        let b = br#"{"a": [1, "]", {"b": 2}], "c": 3}"#;
        assert_eq!(skip_value(b, 0), Ok(b.len()));
        assert_eq!(skip_value(b, 6), Ok(24));
        assert_eq!(skip_value(b"[1, 2", 0), Err(Ok(Cut(5))));
        assert!(matches!(skip_value(b"?", 0), Err(Err(_))));
    }
}
