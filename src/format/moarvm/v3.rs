//! Format 3 (`MoarHeapDumpv003`): zstd-compressed columns, JSON metadata and tables of
//! contents (`specs/moarvm-heap-snapshot.md`, and where real files differ,
//! `specs/NOTES.md` §5d).
//!
//! Owns finding the blocks and decoding one snapshot's columns. The file is walked from
//! the start: every block says how long it is (metadata and TOCs by their counts, a
//! compressed column by the end of its one zstd frame, found by walking the frame's block
//! headers without decompressing), so the walk also reads a file whose end is cut off,
//! which the TOC at the end cannot. A snapshot is listed once its own (inner) TOC has been
//! read, so a snapshot cut anywhere is left out whole. The TOC the last 8 bytes point at
//! is then checked: without it the profile was not ended and the file counts as cut.
//!
//! zstd frames carry no content size, so they are streamed, with a bounded window
//! (16 MiB, `WINDOW_LOG_MAX`), and never beyond a bound:
//! [`MAX_EXPANSION`] times the file's size for the first column of a snapshot and for
//! names, and exactly what the collectable (or reference) count allows for the others.

use std::io::Read;

use super::v2::{le_u16, le_u64};
use super::{Listed, Scan, Tables, MAX_EXPANSION};
use crate::error::ParseError;
use crate::format::read::{quoted_bytes, Cursor, ReadResult};
use crate::sys::progress::Progress;

const TOC: &[u8; 8] = b"toc\0\0\0\0\0";

/// The largest zstd window accepted (16 MiB): MoarVM compresses at level 9 with no size
/// known in advance, which gives 4 MiB windows; zstd's own default limit (128 MiB) would
/// let a few hostile bytes claim a 128 MiB buffer.
const WINDOW_LOG_MAX: u32 = 24;

/// The columns a snapshot needs, with their entry sizes.
const COLUMNS: [(&str, usize); 8] = [
    ("colkind", 2),
    ("colsize", 2),
    ("coltofi", 4),
    ("colrfcnt", 4),
    ("colrfstr", 8),
    ("colusize", 8),
    ("refdescr", 8),
    ("reftrget", 8),
];

fn block_name(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw)
        .trim_end_matches('\0')
        .to_string()
}

/// The bound on what one frame may expand to in a file of `len` bytes.
pub fn expansion_limit(len: usize) -> u64 {
    (len as u64).saturating_mul(MAX_EXPANSION) + (1 << 20)
}

/// The end of the zstd frame that starts at `at`.
fn frame_end(b: &[u8], at: usize) -> ReadResult<usize> {
    let rest = &b[at.min(b.len())..];
    match zstd::zstd_safe::find_frame_compressed_size(rest) {
        Ok(n) if n <= rest.len() => Ok(at + n),
        _ => Err(ParseError::new(
            at as u64,
            "a whole zstd frame",
            if rest.len() < 4 || rest[..4] != [0x28, 0xb5, 0x2f, 0xfd] {
                format!("{} (no zstd magic) before the end", quoted_bytes(rest))
            } else {
                "a frame that does not end before the end of the file (or is corrupt)".into()
            },
        )),
    }
}

/// Streams the zstd frame `b[start..end]`, giving `sink` its output in pieces; refuses
/// to produce more than `limit` bytes. Returns the output size.
fn inflate(
    b: &[u8],
    start: usize,
    end: usize,
    limit: u64,
    what: &str,
    sink: &mut dyn FnMut(&[u8]),
) -> ReadResult<u64> {
    let bad = |e: std::io::Error| {
        ParseError::new(
            start as u64,
            format!("{what}: a valid zstd frame"),
            format!("a decoding error: {e}"),
        )
    };
    let src = b.get(start..end).ok_or_else(|| {
        ParseError::new(start as u64, format!("{what}: a zstd frame"), "end of file")
    })?;
    let mut dec = zstd::stream::read::Decoder::with_buffer(src)
        .map_err(bad)?
        .single_frame();
    // The window is what a frame makes the decoder allocate up front.
    dec.window_log_max(WINDOW_LOG_MAX).map_err(bad)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let k = dec.read(&mut buf).map_err(bad)?;
        if k == 0 {
            return Ok(total);
        }
        total += k as u64;
        if total > limit {
            return Err(ParseError::new(
                start as u64,
                format!(
                    "{what}: a zstd frame that expands to at most {limit} bytes ({MAX_EXPANSION} times the file's size, plus 1 MiB)"
                ),
                format!("one that expands past {limit} bytes; refused"),
            ));
        }
        sink(&buf[..k]);
    }
}

/// Streams a column's entries (little-endian, `size` bytes each) to `f`; returns how
/// many there were.
fn column(
    b: &[u8],
    l: &Listed,
    name: &str,
    size: usize,
    limit: u64,
    f: &mut dyn FnMut(u64),
) -> ReadResult<u64> {
    let (at, end) = l.block(name).ok_or_else(|| {
        ParseError::new(0, format!("a \"{name}\" column in the snapshot"), "none")
    })?;
    let mut c = Cursor::new(&b[at..end], at as u64);
    c.skip(8, "column name")?;
    let es_at = c.offset();
    let es = le_u16(&mut c, "entry size")? as usize;
    if es != size {
        return Err(ParseError::new(
            es_at,
            format!("entry size {size} for \"{name}\""),
            es.to_string(),
        ));
    }
    le_u64(&mut c, "block size")?;
    let mut carry: Vec<u8> = Vec::with_capacity(8);
    let mut count = 0u64;
    let mut entry = |bytes: &[u8]| {
        let v = bytes.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64);
        count += 1;
        f(v);
    };
    let total = inflate(b, at + 18, end, limit, name, &mut |mut chunk| {
        if !carry.is_empty() {
            let need = size - carry.len();
            let take = need.min(chunk.len());
            carry.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if carry.len() == size {
                entry(&carry);
                carry.clear();
            }
        }
        let whole = chunk.len() / size * size;
        for e in chunk[..whole].chunks_exact(size) {
            entry(e);
        }
        carry.extend_from_slice(&chunk[whole..]);
    })?;
    if total % size as u64 != 0 {
        return Err(ParseError::new(
            at as u64,
            format!("\"{name}\": whole entries of {size} bytes"),
            format!("{total} bytes"),
        ));
    }
    Ok(count)
}

/// Walks the file: lists the whole snapshots and collects every string, type and frame.
pub fn scan(b: &[u8], progress: &Progress) -> Result<Scan, ParseError> {
    let mut s = Scan::default();
    let limit = expansion_limit(b.len());
    let mut c = Cursor::new(b, 0);
    c.skip(16, "magic")?;
    let mut pending: Option<Listed> = None;
    let mut reprs: Vec<u32> = Vec::new();
    let mut frame_cols: [Vec<u32>; 3] = Default::default();
    let mut cut = None;
    while !c.is_empty() {
        let at = c.pos();
        progress.set(at as u64);
        let r: ReadResult<()> = (|| {
            let raw = c.bytes(8, "a block name")?;
            let name = block_name(raw);
            match raw {
                b"filemeta" | b"snapmeta" => {
                    let n = le_u64(&mut c, "metadata length")?;
                    let n = c.check_count(n, 1, "metadata")?;
                    let json_at = c.offset();
                    let text = c.bytes(n, "metadata JSON")?;
                    let text = text.strip_suffix(b"\0").unwrap_or(text);
                    let v: serde_json::Value = serde_json::from_slice(text).map_err(|e| {
                        ParseError::new(json_at, format!("{name} JSON"), format!("{e}"))
                    })?;
                    if raw == b"filemeta" {
                        s.start_time = v.get("start_time").and_then(|x| x.as_u64());
                        // Less the highscore layout, which every file has the same.
                        let mut shown = v.clone();
                        if let Some(o) = shown.as_object_mut() {
                            o.remove("highscore_structure");
                        }
                        s.facts.push(("filemeta".into(), shown.to_string()));
                    } else {
                        if pending.is_some() {
                            s.warnings.push(format!(
                                "a snapshot before byte offset {at} has no table of contents; left out"
                            ));
                        }
                        pending = Some(Listed {
                            meta: Some(v),
                            ..Default::default()
                        });
                    }
                }
                b"toc\0\0\0\0\0" => {
                    let n = le_u64(&mut c, "TOC entry count")?;
                    let k = c.check_count(n, 24, "TOC entries")?;
                    c.skip(k * 24 + 8, "TOC entries and its start")?;
                    // The first TOC after a snapshot's blocks is its own: it is whole.
                    if let Some(l) = pending.take() {
                        match COLUMNS.iter().find(|(n, _)| l.block(n).is_none()) {
                            None => s.snapshots.push(l),
                            Some((missing, _)) => s.warnings.push(format!(
                                "the snapshot whose table of contents ends at byte offset {} has no \"{missing}\" column; left out",
                                c.pos()
                            )),
                        }
                    }
                }
                b"strings\0" => {
                    le_u64(&mut c, "block size")?;
                    let end = frame_end(b, c.pos())?;
                    let mut heap = Vec::new();
                    inflate(b, c.pos(), end, limit, "strings", &mut |x| {
                        heap.extend_from_slice(x)
                    })?;
                    s.names.push_string_heap(&heap, at as u64)?;
                    c.skip(end - c.pos(), "strings")?;
                }
                _ if raw.iter().all(|&x| x == 0 || x.is_ascii_graphic()) && raw[0] != 0 => {
                    let es = le_u16(&mut c, "entry size")? as usize;
                    le_u64(&mut c, "block size")?;
                    let end = frame_end(b, c.pos())?;
                    let whole = Listed {
                        blocks: vec![(name.clone(), at, end)],
                        ..Default::default()
                    };
                    let names_col = |out: &mut Vec<u32>| {
                        column(b, &whole, &name, es.max(1), limit, &mut |v| {
                            out.push(v as u32)
                        })
                    };
                    match name.as_str() {
                        "reprname" => {
                            reprs.clear();
                            names_col(&mut reprs)?;
                        }
                        "typename" => {
                            let mut t = Vec::new();
                            names_col(&mut t)?;
                            if t.len() != reprs.len() {
                                s.warnings.push(format!(
                                    "types at byte offset {at}: {} type names for {} REPR names",
                                    t.len(),
                                    reprs.len()
                                ));
                            }
                            s.names
                                .types
                                .extend(reprs.drain(..).zip(t).map(|(r, n)| [r, n]));
                        }
                        "sfname" => {
                            frame_cols = Default::default();
                            names_col(&mut frame_cols[0])?;
                        }
                        "sfcuid" => {
                            names_col(&mut frame_cols[1])?;
                        }
                        "sfline" => {
                            names_col(&mut frame_cols[2])?;
                        }
                        "sffile" => {
                            let mut files = Vec::new();
                            names_col(&mut files)?;
                            let [names, cuids, lines] = std::mem::take(&mut frame_cols);
                            let n = names.len().min(cuids.len()).min(lines.len()).min(files.len());
                            if n != names.len() || n != files.len() {
                                s.warnings.push(format!(
                                    "static frames at byte offset {at}: the four columns differ in length"
                                ));
                            }
                            for i in 0..n {
                                s.names.frames.push([names[i], cuids[i], lines[i], files[i]]);
                            }
                        }
                        _ => {}
                    }
                    if let Some(l) = pending.as_mut() {
                        if name == "colkind" {
                            l.collectables = column(b, &whole, "colkind", 2, limit, &mut |_| {})?;
                        }
                        l.blocks.push((name, at, end));
                    }
                    c.skip(end - c.pos(), "zstd frame")?;
                }
                _ => {
                    return Err(ParseError::new(
                        at as u64,
                        "a block name (\"filemeta\", \"snapmeta\", \"toc\", \"strings\" or a column name)",
                        quoted_bytes(raw),
                    ))
                }
            }
            Ok(())
        })();
        if let Err(e) = r {
            let is_cut = e.found.contains("before the end")
                || e.found.contains("end of file")
                || e.found.contains("bytes left");
            if e.expected.contains("expands to at most") || (!is_cut && s.snapshots.is_empty()) {
                return Err(e);
            }
            if !is_cut {
                s.warnings.push(format!(
                    "block at byte offset {at} is unreadable: expected {}, found {} (at {}); the rest of the file is left out",
                    e.expected, e.found, e.offset
                ));
            }
            cut = Some(at as u64);
            break;
        }
    }
    // The refs count of each snapshot, from its metadata (the columns are not decoded yet).
    for l in &mut s.snapshots {
        l.references = l
            .meta
            .as_ref()
            .and_then(|m| m.get("total_refs"))
            .and_then(|v| v.as_u64());
    }
    if cut.is_none() {
        // The final TOC: the last 8 bytes point at it, and it ends just before them.
        let ok = (|| {
            let ptr = u64::from_le_bytes(b.get(b.len().checked_sub(8)?..)?.try_into().ok()?);
            let ptr = usize::try_from(ptr).ok()?;
            let mut t = Cursor::new(b.get(ptr..)?, ptr as u64);
            (t.bytes(8, "").ok()? == TOC).then_some(())?;
            let n = le_u64(&mut t, "").ok()?;
            let mut inner = 0usize;
            for _ in 0..n {
                let e = t.bytes(24, "").ok()?;
                inner += (&e[..8] == TOC) as usize;
            }
            (t.pos() + 8 + ptr == b.len()).then_some(inner)
        })();
        match ok {
            Some(inner) if inner == s.snapshots.len() + 1 => {}
            Some(inner) if inner == s.snapshots.len() => {
                // An interim copy, written after each snapshot: the profile never ended.
                cut = Some(b.len() as u64);
                s.warnings.push(
                    "the file ends in the table of contents written after its last snapshot, not in the final one (the profile was not ended): it may be cut short"
                        .into(),
                );
            }
            Some(inner) => {
                cut = Some(b.len() as u64);
                s.warnings.push(format!(
                    "the table of contents the file ends in lists {inner} inner tables for {} snapshots: it is not the final one, and the file may be cut short",
                    s.snapshots.len()
                ));
            }
            None => {
                cut = Some(b.len() as u64);
                s.warnings.push(
                    "the file does not end in a table of contents (the profile was not ended): it may be cut short"
                        .into(),
                );
            }
        }
    }
    s.truncated = cut;
    Ok(s)
}

/// How many references snapshot `l` has: the entries of its `refdescr` column, counted
/// as it is streamed (nothing is kept).
pub fn references(b: &[u8], l: &Listed) -> Result<u64, ParseError> {
    column(b, l, "refdescr", 8, expansion_limit(b.len()), &mut |_| {})
}

/// Decodes one snapshot's columns.
pub fn tables(b: &[u8], l: &Listed) -> Result<Tables, ParseError> {
    let limit = expansion_limit(b.len());
    let mut t = Tables::default();
    column(b, l, "colkind", 2, limit, &mut |v| {
        t.kind.push(v.min(255) as u8)
    })?;
    let n = t.kind.len() as u64;
    let want = |name: &str, got: u64, n: u64| -> ReadResult<()> {
        if got == n {
            return Ok(());
        }
        Err(ParseError::new(
            l.block(name).map_or(0, |x| x.0 as u64),
            format!("\"{name}\" with {n} entries, as many as its table's first column"),
            got.to_string(),
        ))
    };
    t.managed.reserve_exact(n as usize);
    let got = column(b, l, "colsize", 2, n * 2, &mut |v| t.managed.push(v as u16))?;
    want("colsize", got, n)?;
    t.type_or_frame.reserve_exact(n as usize);
    let got = column(b, l, "coltofi", 4, n * 4, &mut |v| {
        t.type_or_frame.push(v as u32)
    })?;
    want("coltofi", got, n)?;
    t.ref_count.reserve_exact(n as usize);
    let got = column(b, l, "colrfcnt", 4, n * 4, &mut |v| {
        t.ref_count.push(v as u32)
    })?;
    want("colrfcnt", got, n)?;
    t.ref_start.reserve_exact(n as usize);
    let got = column(b, l, "colrfstr", 8, n * 8, &mut |v| t.ref_start.push(v))?;
    want("colrfstr", got, n)?;
    t.unmanaged.reserve_exact(n as usize);
    let got = column(b, l, "colusize", 8, n * 8, &mut |v| t.unmanaged.push(v))?;
    want("colusize", got, n)?;
    if let Some(m) = l.references {
        // A hint for the allocation only; the column decides.
        t.ref_desc.reserve(m.min(limit / 8) as usize);
    }
    column(b, l, "refdescr", 8, limit, &mut |v| t.ref_desc.push(v))?;
    let m = t.ref_desc.len() as u64;
    t.ref_target.reserve_exact(m as usize);
    let got = column(b, l, "reftrget", 8, m * 8, &mut |v| {
        t.ref_target.push(v.min(u32::MAX as u64) as u32)
    })?;
    want("reftrget", got, m)?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use crate::source::Source;
    use crate::sys::progress::Progress;

    fn name8(n: &str) -> Vec<u8> {
        let mut v = n.as_bytes().to_vec();
        v.resize(8, 0);
        v
    }

    fn frame(data: &[u8], window_log: u32) -> Vec<u8> {
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        e.include_contentsize(false).unwrap();
        e.window_log(window_log).unwrap();
        std::io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap()
    }

    fn column(name: &str, size: usize, values: &[u64]) -> Vec<u8> {
        let data: Vec<u8> = values
            .iter()
            .flat_map(|v| v.to_le_bytes()[..size].to_vec())
            .collect();
        let mut b = name8(name);
        b.extend((size as u16).to_le_bytes());
        b.extend(0u64.to_le_bytes());
        b.extend(frame(&data, 20));
        b
    }

    fn strings(list: &[&str]) -> Vec<u8> {
        let heap: Vec<u8> = list
            .iter()
            .flat_map(|s| {
                let mut v = (s.len() as u32).to_le_bytes().to_vec();
                v.extend(s.as_bytes());
                v
            })
            .collect();
        let mut b = name8("strings");
        b.extend(0u64.to_le_bytes());
        b.extend(frame(&heap, 20));
        b
    }

    fn meta(name: &str, json: &str) -> Vec<u8> {
        let mut b = name8(name);
        b.extend((json.len() as u64 + 1).to_le_bytes());
        b.extend(json.as_bytes());
        b.push(0);
        b
    }

    fn toc(at: usize, entries: &[(&str, usize, usize)]) -> Vec<u8> {
        let mut b = name8("toc");
        b.extend((entries.len() as u64).to_le_bytes());
        for (n, s, e) in entries {
            b.extend(name8(n));
            b.extend((*s as u64).to_le_bytes());
            b.extend((*e as u64).to_le_bytes());
        }
        b.extend((at as u64).to_le_bytes());
        b
    }

    /// Two snapshots; the second adds a string and a type of its own, and its indexes
    /// refer to the concatenation of both snapshots' blocks.
    fn file() -> Vec<u8> {
        let mut b = b"MoarHeapDumpv003".to_vec();
        let fm = b.len();
        b.extend(meta(
            "filemeta",
            r#"{"subversion": 1, "start_time": 1000, "pid": 7}"#,
        ));
        let mut outer = vec![("filemeta", fm, b.len())];
        // (kinds, types, sizes, ref counts, ref starts, descriptions, targets, strings, types)
        type Snap<'a> = (
            &'a [u64],
            &'a [u64],
            &'a [u64],
            &'a [u64],
            &'a [u64],
            &'a [u64],
            &'a [u64],
            &'a [&'a str],
            &'a [u64],
        );
        let snaps: [Snap; 2] = [
            (
                &[9, 1],
                &[0, 0],
                &[0, 48],
                &[1, 0],
                &[0, 0],
                &[2],
                &[1],
                &["x", "P6opaque", "Foo"],
                &[1, 2],
            ),
            (
                &[9, 1, 1],
                &[0, 1, 0],
                &[0, 40, 48],
                &[1, 1, 0],
                &[1, 0, 0],
                &[3 << 2 | 2, 2],
                &[2, 1],
                &["y", "Bar"],
                &[1, 4],
            ),
        ];
        for (gc, (kinds, tofi, sizes, cnt, start, desc, targ, strs, types)) in
            snaps.iter().enumerate()
        {
            let at = b.len();
            let total: u64 = sizes.iter().sum();
            b.extend(meta("snapmeta", &format!(r#"{{"snap_time": 2000, "gc_seq_num": {gc}, "total_heap_size": {total}, "total_refs": {}}}"#, desc.len())));
            let zeros = vec![0u64; kinds.len()];
            for (name, size, v) in [
                ("colkind", 2, *kinds),
                ("colsize", 2, *sizes),
                ("coltofi", 4, *tofi),
                ("colrfcnt", 4, *cnt),
                ("colrfstr", 8, *start),
                ("colusize", 8, &zeros[..]),
                ("refdescr", 8, *desc),
                ("reftrget", 8, *targ),
            ] {
                b.extend(column(name, size, v));
            }
            b.extend(strings(strs));
            b.extend(column("reprname", 4, &types[..1]));
            b.extend(column("typename", 4, &types[1..]));
            let inner_at = b.len();
            b.extend(toc(inner_at, &[("snapmeta", at, at + 1)]));
            outer.push(("toc", inner_at, b.len() - 8));
            let copy_at = b.len();
            b.extend(toc(copy_at, &outer));
        }
        let end_at = b.len();
        b.extend(toc(end_at, &[]));
        outer.push(("toc", end_at, b.len() - 8));
        let final_at = b.len();
        b.extend(toc(final_at, &outer));
        b
    }

    fn open(b: &[u8], which: Option<usize>) -> crate::error::Result<crate::format::Snapshot> {
        let mut m = memmap2::MmapMut::map_anon(b.len().max(1)).unwrap();
        m[..b.len()].copy_from_slice(b);
        let src = Source::from_map(
            std::path::Path::new("t.mvmheap"),
            Some(m.make_read_only().unwrap()),
        );
        super::super::open(src, which, &Progress::new())
    }

    #[test]
    fn names_accumulate_across_snapshots() {
        let b = file();
        let s = open(&b, None).unwrap();
        assert!(s.truncated.is_none(), "{:?}", s.warnings);
        assert_eq!(s.snapshots.len(), 2);
        assert_eq!(s.snapshot_index, 1);
        assert_eq!(s.class_name(1), "Bar");
        assert_eq!(s.class_name(2), "Foo");
        assert_eq!(s.edge_label(0, 1).as_deref(), Some("x"));
        assert_eq!(s.edge_label(1, 2).as_deref(), Some("y"));
        let first = open(&b, Some(0)).unwrap();
        assert_eq!(first.graph.len(), 2);
        assert_eq!(first.class_name(1), "Foo");
        assert!(matches!(
            open(&b, Some(2)),
            Err(crate::error::Error::Usage(_))
        ));
    }

    #[test]
    fn every_cut_opens_the_whole_snapshots_or_fails_with_an_offset() {
        let b = file();
        for cut in 16..b.len() {
            match open(&b[..cut], None) {
                Ok(s) => assert!(s.truncated.is_some(), "cut {cut}"),
                Err(e) => assert!(e.to_string().contains("byte offset"), "{e}"),
            }
        }
    }

    #[test]
    fn a_frame_asking_for_a_huge_window_is_refused() {
        let mut b = b"MoarHeapDumpv003".to_vec();
        b.extend(meta("filemeta", "{}"));
        b.extend(meta("snapmeta", "{}"));
        b.extend(name8("colkind"));
        b.extend(2u16.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        b.extend(frame(&[1u8; 4096], 30));
        let Err(e) = open(&b, None) else {
            panic!("a 1 GiB window was accepted")
        };
        let e = e.to_string();
        assert!(e.contains("valid zstd frame"), "{e}");
    }
}
