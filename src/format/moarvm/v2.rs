//! Format 2 (`MoarHeapDumpv002`), as MoarVM 2022.12 writes it (`specs/NOTES.md` §5c).
//!
//! Owns finding the blocks and decoding one snapshot's tables. There is no table of
//! contents and no metadata: the file is walked from offset 16, block by block, each
//! recognised by its 4-byte name (`coll`, `refs`, `strs`, `type`, `fram`), up to the
//! trailer that fills the end of the file. The trailer's sizes describe only the last
//! string/type/frame blocks, so it serves to know where the walk stops and to check the
//! snapshot count, not to find blocks. Integers are little-endian; the type and frame
//! tables hold 8-byte fields whose upper halves are garbage (the writer copied 4-byte
//! fields), so only their low 32 bits are used.

use super::{Listed, Scan, Tables};
use crate::error::ParseError;
use crate::format::read::{quoted_bytes, Cursor, ReadResult};
use crate::sys::progress::Progress;

/// Size of one `coll` entry.
const COLL_ENTRY: u64 = 28;

pub(super) fn le_u16(c: &mut Cursor, what: &str) -> ReadResult<u16> {
    let b = c.bytes(2, what)?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

pub(super) fn le_u32(c: &mut Cursor, what: &str) -> ReadResult<u32> {
    let b = c.bytes(4, what)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub(super) fn le_u64(c: &mut Cursor, what: &str) -> ReadResult<u64> {
    let b = c.bytes(8, what)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Ok(u64::from_le_bytes(a))
}

const BLOCKS: [&[u8; 4]; 5] = [b"coll", b"refs", b"strs", b"type", b"fram"];

/// Where the trailer starts, when the last 8 bytes make sense as its snapshot count.
fn trailer_start(b: &[u8]) -> Option<usize> {
    let len = b.len() as u64;
    let last = b.get(b.len().checked_sub(8)?..)?;
    let n = u64::from_le_bytes(last.try_into().ok()?);
    let size = n.checked_mul(32)?.checked_add(32)?;
    (size.checked_add(16)? <= len).then(|| (len - size) as usize)
}

/// The trailer's size of snapshot `k`'s `refs` block (header included).
fn refs_size(b: &[u8], trailer: Option<usize>, k: usize) -> Option<u64> {
    let t = trailer?;
    let n = u64::from_le_bytes(b.get(b.len().checked_sub(8)?..)?.try_into().ok()?);
    if k as u64 >= n {
        return None;
    }
    let at = t.checked_add(k.checked_mul(32)?)?.checked_add(8)?;
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Walks one `refs` block's entries (already past its 20-byte header), calling `f` with
/// each (description, target).
fn walk_refs(c: &mut Cursor, count: u64, f: &mut dyn FnMut(u64, u64)) -> ReadResult<()> {
    for _ in 0..count {
        let at = c.offset();
        let code = c.u8("reference width code")?;
        let width = match code {
            b'0' => 1,
            b'1' => 2,
            b'3' => 4,
            b'6' => 8,
            _ => {
                return Err(ParseError::new(
                    at,
                    "a reference width code '0', '1', '3' or '6'",
                    quoted_bytes(&[code]),
                ))
            }
        };
        let kind = c.u8("reference kind")? as u64;
        let raw = c.bytes(2 * width, "reference index and target")?;
        let le = |s: &[u8]| s.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64);
        let index = le(&raw[..width]);
        let target = le(&raw[width..]);
        f(index << 2 | (kind & 3), target);
    }
    Ok(())
}

/// A block's header: its u64 count and u64 entry size, the entry size checked.
fn header(c: &mut Cursor, name: &str, entry: u64) -> ReadResult<u64> {
    let count = le_u64(c, &format!("{name} count"))?;
    let at = c.offset();
    let size = le_u64(c, &format!("{name} entry size"))?;
    if size != entry {
        return Err(ParseError::new(
            at,
            format!("{name} entry size {entry}"),
            size.to_string(),
        ));
    }
    Ok(count)
}

fn is_cut(e: &ParseError) -> bool {
    e.found.contains("before the end")
        || e.found.contains("end of file")
        || e.found.contains("bytes left")
}

/// Walks the file: lists the whole snapshots and collects every string, type and frame.
pub fn scan(b: &[u8], progress: &Progress) -> Result<Scan, ParseError> {
    // The last 8 bytes of a file cut short can look like a snapshot count, and the place
    // the trailer would then start like a block boundary: a walk that stopped there is
    // kept only when the trailer's sizes are the sizes of the blocks it found.
    if let Some(t) = trailer_start(b) {
        if let Ok((s, true)) = walk(b, Some(t), progress) {
            return Ok(s);
        }
    }
    walk(b, None, progress).map(|(s, _)| s)
}

/// The walk, up to `trailer` when given; also says whether the trailer's sizes agree.
fn walk(b: &[u8], trailer: Option<usize>, progress: &Progress) -> Result<(Scan, bool), ParseError> {
    let mut s = Scan::default();
    // The sizes of the last strs, type and fram blocks (the trailer states them).
    let mut last = [0u64; 3];
    let mut c = Cursor::new(b, 0);
    c.skip(16, "magic")?;
    // A snapshot whose `coll` has been read and whose `refs` has not.
    let mut pending: Option<Listed> = None;
    let mut whole = false;
    loop {
        let at = c.pos();
        progress.set(at as u64);
        if Some(at) == trailer {
            whole = true;
            break;
        }
        if c.is_empty() {
            break;
        }
        let r: ReadResult<()> = (|| {
            let name = c.bytes(4, "a block name")?;
            match name {
                b"coll" => {
                    let n = header(&mut c, "collectables", COLL_ENTRY)?;
                    let k = c.check_count(n, COLL_ENTRY, "collectables")?;
                    c.skip(k * COLL_ENTRY as usize, "collectables")?;
                    pending = Some(Listed {
                        blocks: vec![("coll".into(), at, c.pos())],
                        collectables: n,
                        ..Default::default()
                    });
                }
                b"refs" => {
                    let n = header(&mut c, "references", 17)?;
                    c.check_count(n, 4, "references")?;
                    // The trailer's size of this block lets the walk jump over it (its
                    // entries are variable-sized); trusted only when a block name, or
                    // the trailer, is where it says the block ends.
                    let k = s.snapshots.len();
                    let jump = refs_size(b, trailer, k)
                        .and_then(|size| usize::try_from(size).ok())
                        .and_then(|size| at.checked_add(size))
                        .filter(|&end| end >= c.pos() + 4 * n as usize && end <= b.len())
                        .filter(|&end| {
                            Some(end) == trailer
                                || BLOCKS.iter().any(|name| b[end..].starts_with(*name))
                        });
                    match jump {
                        Some(end) => c.skip(end - c.pos(), "references")?,
                        None => walk_refs(&mut c, n, &mut |_, _| {})?,
                    }
                    match pending.take() {
                        Some(mut l) => {
                            l.blocks.push(("refs".into(), at, c.pos()));
                            l.references = Some(n);
                            s.snapshots.push(l);
                        }
                        None => s.warnings.push(format!(
                            "a references block at byte offset {at} follows no collectables block; left out"
                        )),
                    }
                }
                b"strs" => {
                    let first = le_u64(&mut c, "index of the block's first string")?;
                    if first != s.names.strings.len() as u64 {
                        s.warnings.push(format!(
                            "the strings block at byte offset {at} says it starts at string {first}; {} came before it",
                            s.names.strings.len()
                        ));
                    }
                    loop {
                        if Some(c.pos()) == trailer {
                            break;
                        }
                        let rest = &b[c.pos()..];
                        if rest.len() >= 4 && BLOCKS.iter().any(|n| rest.starts_with(*n)) {
                            break;
                        }
                        let len = le_u64(&mut c, "a string length")?;
                        let len = c.check_count(len, 1, "string bytes")?;
                        let text = c.bytes(len, "string bytes")?;
                        s.names.strings.push(String::from_utf8_lossy(text).into());
                    }
                    last[0] = (c.pos() - at) as u64;
                }
                b"type" => {
                    let n = header(&mut c, "types", 16)?;
                    let k = c.check_count(n, 16, "types")?;
                    for _ in 0..k {
                        let repr = le_u64(&mut c, "REPR name")? as u32;
                        let name = le_u64(&mut c, "type name")? as u32;
                        s.names.types.push([repr, name]);
                    }
                    last[1] = (c.pos() - at) as u64;
                }
                b"fram" => {
                    let n = header(&mut c, "static frames", 32)?;
                    let k = c.check_count(n, 32, "static frames")?;
                    for _ in 0..k {
                        let mut f = [0u32; 4];
                        for (x, what) in f.iter_mut().zip(["name", "cuid", "line", "file"]) {
                            *x = le_u64(&mut c, what)? as u32;
                        }
                        s.names.frames.push(f);
                    }
                    last[2] = (c.pos() - at) as u64;
                }
                other => {
                    return Err(ParseError::new(
                        at as u64,
                        "a block name (\"coll\", \"refs\", \"strs\", \"type\" or \"fram\")",
                        quoted_bytes(other),
                    ))
                }
            }
            Ok(())
        })();
        if let Err(e) = r {
            if s.snapshots.is_empty() && !is_cut(&e) {
                return Err(e);
            }
            s.truncated = Some(at as u64);
            if !is_cut(&e) {
                s.warnings.push(format!(
                    "block at byte offset {at} is unreadable: expected {}, found {} (at {}); the rest of the file is left out",
                    e.expected, e.found, e.offset
                ));
            }
            return Ok((s, false));
        }
    }
    if pending.is_some() {
        s.warnings.push(
            "the last collectables block has no references block; that snapshot is left out".into(),
        );
    }
    if !whole {
        s.truncated = Some(b.len() as u64);
        s.warnings.push(
            "the file has no trailer (the profile was not ended): it may be cut short".into(),
        );
    }
    let agrees = whole
        && trailer.is_some_and(|t| {
            let word = |i: usize| {
                b.get(t + 8 * i..t + 8 * i + 8)
                    .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
            };
            let n = s.snapshots.len();
            let size = |l: &Listed, name: &str| l.block(name).map(|(a, e)| (e - a) as u64);
            word(4 * n + 3) == Some(n as u64)
                && (0..3).all(|i| word(4 * n + i) == Some(last[i]))
                && s.snapshots.iter().enumerate().all(|(k, l)| {
                    word(4 * k) == size(l, "coll") && word(4 * k + 1) == size(l, "refs")
                })
        });
    s.facts.push((
        "names".into(),
        format!(
            "{} strings, {} types, {} static frames over the file",
            s.names.strings.len(),
            s.names.types.len(),
            s.names.frames.len()
        ),
    ));
    Ok((s, agrees))
}

/// Decodes one snapshot's collectables and references.
pub fn tables(b: &[u8], l: &Listed) -> Result<Tables, ParseError> {
    let missing = || ParseError::new(0, "a listed snapshot's blocks", "none");
    let (coll, _) = l.block("coll").ok_or_else(missing)?;
    let (refs, end) = l.block("refs").ok_or_else(missing)?;
    let mut t = Tables::default();
    let mut c = Cursor::new(&b[coll..], coll as u64);
    c.skip(4, "\"coll\"")?;
    let n = header(&mut c, "collectables", COLL_ENTRY)?;
    let n = c.check_count(n, COLL_ENTRY, "collectables")?;
    t.kind.reserve_exact(n);
    t.type_or_frame.reserve_exact(n);
    t.managed.reserve_exact(n);
    t.unmanaged.reserve_exact(n);
    t.ref_start.reserve_exact(n);
    t.ref_count.reserve_exact(n);
    for _ in 0..n {
        let kind = le_u16(&mut c, "collectable kind")?;
        t.kind.push(kind.min(255) as u8);
        t.type_or_frame.push(le_u32(&mut c, "type or frame index")?);
        t.managed.push(le_u16(&mut c, "managed size")?);
        t.unmanaged.push(le_u64(&mut c, "unmanaged size")?);
        t.ref_start.push(le_u64(&mut c, "first reference")?);
        t.ref_count.push(le_u32(&mut c, "reference count")?);
    }
    let mut c = Cursor::new(&b[refs..end], refs as u64);
    c.skip(4, "\"refs\"")?;
    let m = header(&mut c, "references", 17)?;
    let m = c.check_count(m, 4, "references")?;
    t.ref_desc.reserve_exact(m);
    t.ref_target.reserve_exact(m);
    walk_refs(&mut c, m as u64, &mut |d, target| {
        t.ref_desc.push(d);
        t.ref_target.push(target.min(u32::MAX as u64) as u32);
    })?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use crate::source::Source;
    use crate::sys::progress::Progress;

    fn u64s(v: &[u64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A hand-made file with what the real ones do: reference runs out of collectable
    /// order, every reference width, a target beyond the collectables, and type and
    /// frame fields whose upper 32 bits are garbage.
    fn file() -> Vec<u8> {
        let mut b = b"MoarHeapDumpv002".to_vec();
        let coll_at = b.len();
        b.extend(b"coll");
        b.extend(u64s(&[3, 28]));
        // kind u16, type/frame u32, managed u16, unmanaged u64, first ref u64, count u32
        for (kind, tofi, managed, unmanaged, first, count) in [
            (9u16, 0u32, 0u16, 0u64, 2u64, 1u32),
            (1, 0, 48, 8, 0, 2),
            (4, 0, 168, 0, 7, 0),
        ] {
            b.extend(kind.to_le_bytes());
            b.extend(tofi.to_le_bytes());
            b.extend(managed.to_le_bytes());
            b.extend(unmanaged.to_le_bytes());
            b.extend(first.to_le_bytes());
            b.extend(count.to_le_bytes());
        }
        let refs_at = b.len();
        b.extend(b"refs");
        b.extend(u64s(&[3, 17]));
        b.extend([b'0', 2, 1, 2]); // "Outer" -> #2
        b.extend([b'6', 1]); // [7] -> #99 (no such collectable)
        b.extend(u64s(&[7, 99]));
        b.extend([b'1', 2, 0, 0, 1, 0]); // "att" -> #1
        let strs_at = b.len();
        b.extend(b"strs");
        b.extend(u64s(&[0]));
        for s in ["att", "Outer", "Foo", "P6opaque", "main", "x.nqp"] {
            b.extend(u64s(&[s.len() as u64]));
            b.extend(s.as_bytes());
        }
        let type_at = b.len();
        b.extend(b"type");
        b.extend(u64s(&[1, 16, 0xdead_0000_0000 | 3, 0xbeef_0000_0000 | 2]));
        let fram_at = b.len();
        b.extend(b"fram");
        b.extend(u64s(&[
            1,
            32,
            0x1_0000_0004,
            0x2_0000_0000,
            0x3_0000_0007,
            0x4_0000_0005,
        ]));
        let end = b.len();
        b.extend(u64s(&[
            (refs_at - coll_at) as u64,
            (strs_at - refs_at) as u64,
            0,
            0,
            (type_at - strs_at) as u64,
            (fram_at - type_at) as u64,
            (end - fram_at) as u64,
            1,
        ]));
        b
    }

    fn open(b: &[u8]) -> crate::error::Result<crate::format::Snapshot> {
        let mut m = memmap2::MmapMut::map_anon(b.len()).unwrap();
        m.copy_from_slice(b);
        let src = Source::from_map(
            std::path::Path::new("t.mvmheap"),
            Some(m.make_read_only().unwrap()),
        );
        super::super::open(src, None, &Progress::new())
    }

    #[test]
    fn a_hand_made_file_reads_as_written() {
        let s = open(&file()).unwrap();
        let g = &s.graph;
        assert_eq!(g.len(), 3);
        assert_eq!(s.class_name(0), "Root");
        assert_eq!(s.class_name(1), "Foo");
        assert_eq!(s.class_name(2), "main (x.nqp:7)");
        assert_eq!(g.shallow_size(1), 56);
        assert_eq!(g.shallow_size(2), 168);
        assert_eq!(s.edge_label(0, 1).as_deref(), Some("att"));
        assert_eq!(s.edge_label(1, 2).as_deref(), Some("Outer"));
        assert_eq!(g.edge_count(), 2, "the reference to #99 is left out");
        assert!(s.warnings.iter().any(|w| w.contains("outside")));
        assert!(s.truncated.is_none());
        assert_eq!(s.snapshots.len(), 1);
        assert_eq!(s.find_object("#2"), Some(2));
        assert_eq!(s.find_object("#3"), None);
        let i = s.inspect(1);
        assert!(i
            .facts
            .contains(&("REPR".to_string(), "P6opaque".to_string())));
        assert_eq!(i.fields.len(), 1);
    }

    #[test]
    fn every_cut_of_it_opens_or_fails_with_an_offset() {
        let b = file();
        for cut in 0..b.len() {
            match open(&b[..cut.max(1)]) {
                Ok(s) => assert!(
                    s.truncated.is_some() || cut == b.len(),
                    "cut {cut} of {}: {:?}",
                    b.len(),
                    s.warnings
                ),
                Err(e) => assert!(e.to_string().contains("byte offset") || cut < 16, "{e}"),
            }
        }
    }
}
