//! The hostile sweep (issue 28's acceptance): every shape of the attack written to a
//! directory, each command of the binary run on it under an address-space limit, the
//! exit status, the wall time and the peak RSS recorded. `tests/it/hostile_sweep.rs` runs
//! it at a small size in `cargo test`, and at full size (`sweep_full`, ignored) on the
//! release binary when `fuzz/hostile-sweep.sh` asks. Not in `common/mod.rs`: only that
//! test includes it.
//!
//! The large shapes are written as streams (a 1.2 GB V8 file is never in memory); the
//! small ones with the writers of `hostile.rs`. A run fails when the program ends by a
//! signal (an abort is 134 to a shell, the OOM killer's SIGKILL 137), exits with a code
//! the shape does not allow (0 or 2; 3 for a `path` to an object the shape does not
//! hold), takes longer than the time limit, or leaves a temporary file in its cache
//! directory.
#![allow(dead_code)]

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::hostile::*;

/// How large the shapes are: `Full` the sizes of the attack (hundreds of megabytes),
/// `Small` a thousandth or so, for `cargo test`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scale {
    Full,
    Small,
}

impl Scale {
    /// `full` at full scale, `full / 1000` (at least `min`) at the small one.
    fn n(self, full: u64, min: u64) -> u64 {
        match self {
            Scale::Full => full,
            Scale::Small => (full / 1000).max(min),
        }
    }
}

/// One command on one shape: the arguments after the file (`FILE` stands for it), the
/// exit codes allowed and the environment added.
pub struct Run {
    pub args: Vec<String>,
    pub allowed: Vec<i32>,
    pub env: Vec<(&'static str, &'static str)>,
}

fn run(args: &[&str]) -> Run {
    Run {
        args: args.iter().map(|s| s.to_string()).collect(),
        allowed: vec![0, 2],
        env: Vec::new(),
    }
}

/// The commands every shape gets: summary, the histogram with and without the retained
/// sizes, the dominators as JSON, the paths to `target`, waste and suspects.
fn common_runs(target: &[&str], path_may_miss: bool) -> Vec<Run> {
    let mut path = vec!["path", "FILE"];
    path.extend_from_slice(target);
    let mut p = run(&path);
    if path_may_miss {
        p.allowed.push(3);
    }
    vec![
        run(&["summary", "FILE"]),
        run(&["histogram", "FILE"]),
        run(&["histogram", "FILE", "--no-retained"]),
        run(&["dominators", "FILE", "--top", "5", "--json"]),
        p,
        run(&["waste", "FILE"]),
        run(&["suspects", "FILE"]),
    ]
}

/// `summary` with the memory check off: the allocation that fails must end in exit 2
/// with a message, not an abort.
fn unchecked_summary() -> Run {
    Run {
        args: vec!["summary".into(), "FILE".into()],
        allowed: vec![0, 2],
        env: vec![("HEAPTUI_IGNORE_MEMORY", "1")],
    }
}

/// How a shape's file is written.
pub type Writer = Box<dyn Fn(&Path) -> io::Result<()>>;

/// A shape: its name, the issue's defect, its file name, how it is written, its runs.
pub struct Shape {
    pub name: &'static str,
    pub defect: &'static str,
    pub file: &'static str,
    pub make: Writer,
    pub runs: Vec<Run>,
}

/// Every shape at `scale`.
pub fn shapes(scale: Scale) -> Vec<Shape> {
    let mut v = Vec::new();
    let segs = scale.n(30_000_000, 30_000);
    v.push(Shape {
        name: "HPROF of empty HEAP DUMP SEGMENTs",
        defect: "1",
        file: "empty-segments.hprof",
        make: Box::new(move |p| hprof_segments(p, segs, &[])),
        runs: with(
            common_runs(&["--class", "java.lang.Object"], true),
            [unchecked_summary()],
        ),
    });
    let segs = scale.n(15_000_000, 15_000);
    v.push(Shape {
        name: "HPROF of segments of one unknown sub-record",
        defect: "1",
        file: "unknown-subrecords.hprof",
        make: Box::new(move |p| hprof_segments(p, segs, &[0x77, 0, 0, 0, 0, 0, 0, 0, 0])),
        runs: common_runs(&["--class", "java.lang.Object"], true),
    });
    v.push(Shape {
        name: "HPROF of segments of one dangling root",
        defect: "1",
        file: "root-segments.hprof",
        make: Box::new(move |p| hprof_segments(p, segs, &[0xff, 0, 0, 0, 0, 0, 0, 0x10, 0])),
        runs: common_runs(&["--class", "java.lang.Object"], true),
    });
    let inst = scale.n(10_000_000, 10_000);
    v.push(Shape {
        name: "gzip of an HPROF of small instances",
        defect: "1, 11",
        file: "instances.hprof.gz",
        make: Box::new(move |p| gzip_of(p, |w| hprof_instances_to(w, inst))),
        runs: common_runs(&["0x10000"], false),
    });
    let colls = scale.n(99_600_000, 100_000);
    let pad = scale.n(13_000_000, 30_000);
    v.push(Shape {
        name: "MoarVM v3 claiming 99.6 M collectables in small frames",
        defect: "2",
        file: "claims.mvmheap",
        make: Box::new(move |p| moar_v3_claiming_to(p, colls, pad)),
        runs: with(common_runs(&["#1"], false), [unchecked_summary()]),
    });
    for (name, file, nodes, edges) in [
        (
            "V8 of minimal nodes, beyond the memory left",
            "minimal-large.heapsnapshot",
            scale.n(100_000_000, 100_000),
            scale.n(10_000_000, 10_000),
        ),
        (
            "V8 of minimal nodes",
            "minimal.heapsnapshot",
            scale.n(20_000_000, 20_000),
            scale.n(2_000_000, 2_000),
        ),
    ] {
        v.push(Shape {
            name,
            defect: "3",
            file,
            make: Box::new(move |p| v8_minimal_to(p, nodes, edges)),
            runs: with(common_runs(&["--class", "a"], false), [unchecked_summary()]),
        });
    }
    for (name, file, objects) in [
        (
            "Dart of one-byte references, beyond the memory left",
            "references-large.dartheap",
            scale.n(6_000_000, 6_000),
        ),
        (
            "Dart of one-byte references",
            "references.dartheap",
            scale.n(2_000_000, 2_000),
        ),
    ] {
        v.push(Shape {
            name,
            defect: "3",
            file,
            make: Box::new(move |p| dart_referencing_to(p, objects, 100)),
            runs: with(
                common_runs(&["--class", "dart:core::Foo"], false),
                [unchecked_summary()],
            ),
        });
    }
    let n = scale.n(25_000, 2_500);
    v.push(Shape {
        name: "HPROF chain of 25,000, dominators 16,000 deep",
        defect: "4",
        file: "chain-25k.hprof",
        make: Box::new(move |p| hprof_chain_to(p, n)),
        runs: vec![
            run(&["dominators", "FILE", "--depth", "16000", "--json"]),
            run(&["dominators", "FILE", "--depth", "16000"]),
        ],
    });
    let n = scale.n(2_000_000, 2_000);
    let depth: &'static str = if scale == Scale::Full {
        "2000000"
    } else {
        "2000"
    };
    v.push(Shape {
        name: "HPROF chain of 2 M, dominators all the way down",
        defect: "5",
        file: "chain-2m.hprof",
        make: Box::new(move |p| hprof_chain_to(p, n)),
        runs: vec![
            run(&[
                "dominators",
                "FILE",
                "--top",
                "1",
                "--depth",
                depth,
                "--json",
            ]),
            run(&["dominators", "FILE", "--top", "1", "--depth", depth]),
        ],
    });
    let n = scale.n(5_000_000, 5_000);
    let last: &'static str = Box::leak(format!("0x{:x}", 0x1000 + 16 * (n - 1)).into_boxed_str());
    v.push(Shape {
        name: "HPROF chain of 5 M, the path to its end",
        defect: "7",
        file: "chain-5m.hprof",
        make: Box::new(move |p| hprof_chain_to(p, n)),
        runs: with(
            common_runs(&[last], false),
            [
                run(&["path", "FILE", last, "--json"]),
                run(&["path", "FILE", last, "--json", "--max", "1"]),
            ],
        ),
    });
    let n = scale.n(750_000, 1_000);
    v.push(Shape {
        name: "HPROF of 750,000 classes each extending the last",
        defect: "6",
        file: "hierarchy.hprof",
        make: Box::new(move |p| std::fs::write(p, class_hierarchy(n, 10))),
        runs: common_runs(&["0x1000"], false),
    });
    // Found by this sweep: each class's reference slots were its whole chain's (3.5 GB).
    v.push(Shape {
        name: "HPROF of 750,000 classes each extending the last, a reference field each",
        defect: "6, 3",
        file: "hierarchy-refs.hprof",
        make: Box::new(move |p| std::fs::write(p, class_hierarchy(n, 2))),
        runs: with(common_runs(&["0x1000"], false), [unchecked_summary()]),
    });
    v.push(Shape {
        name: "FIFO",
        defect: "8",
        file: "fifo.hprof",
        make: Box::new(make_fifo),
        runs: vec![run(&["summary", "FILE"]), run(&["histogram", "FILE"])],
    });
    let zeros = scale.n(1 << 30, 1 << 20);
    v.push(Shape {
        name: "gzip of 1 GiB of zeros",
        defect: "11",
        file: "zeros.gz",
        make: Box::new(move |p| {
            gzip_of(p, |w| {
                let block = vec![0u8; 1 << 20];
                let mut left = zeros;
                while left > 0 {
                    let k = left.min(block.len() as u64) as usize;
                    w.write_all(&block[..k])?;
                    left -= k as u64;
                }
                Ok(())
            })
        }),
        runs: vec![run(&["summary", "FILE"]), run(&["histogram", "FILE"])],
    });
    v.push(Shape {
        name: "names of emoji sequences, zero-width and bidi characters, 300 marks",
        defect: "15",
        file: "names.hprof",
        make: Box::new(|p| std::fs::write(p, names_hprof())),
        runs: with(
            common_runs(&["0x1000"], false),
            [
                run(&["inspect", "FILE", "0x2000"]),
                run(&["histogram", "FILE", "--json"]),
            ],
        ),
    });
    v.push(Shape {
        name: "Go record of an unknown kind mid-file",
        defect: "16",
        file: "bad-kind.dump",
        make: Box::new(go_bad_kind),
        runs: common_runs(&["--class", "x"], true),
    });
    for (name, file, class) in [
        (
            "Dart object of a class id that is no class",
            "bad-class.dartheap",
            9,
        ),
        (
            "Dart object of a shallow size of 2^64 - 1",
            "huge-size.dartheap",
            4,
        ),
    ] {
        v.push(Shape {
            name,
            defect: "16",
            file,
            make: Box::new(move |p| std::fs::write(p, dart_one_bad_object(class))),
            runs: common_runs(&["#4"], true),
        });
    }
    v.push(Shape {
        name: "V8 integer of 20 digits",
        defect: "16",
        file: "twenty-digits.heapsnapshot",
        make: Box::new(|p| {
            let b = v8_snapshot(
                &["type", "name", "id", "self_size", "edge_count"],
                &[0, 0, 1, 0, 0, 1, 0, 3, 7, 0],
                &[],
                &["a"],
                2,
                0,
            );
            let text = String::from_utf8(b).unwrap();
            std::fs::write(p, text.replacen(",7,", ",12345678901234567890,", 1))
        }),
        runs: common_runs(&["@3"], true),
    });
    v.push(Shape {
        name: "MoarVM zstd bomb (fixture)",
        defect: "round 1",
        file: "zstd-bomb.mvmheap",
        make: Box::new(|p| {
            std::fs::copy(crate::common::fixture("moarvm/zstd-bomb.mvmheap"), p).map(|_| ())
        }),
        runs: common_runs(&["#1"], true),
    });
    // Issue 40's shapes.
    let classes = scale.n(750_000, 2_000);
    v.push(Shape {
        name: "i40: HPROF of many class dumps",
        defect: "40/4",
        file: "many-classes.hprof",
        make: Box::new(move |p| std::fs::write(p, many_classes(classes))),
        runs: common_runs(&["--class", "com.x.C1"], true),
    });
    let inst = scale.n(2_000_000, 5_000);
    v.push(Shape {
        name: "i40: HPROF with its heap segment written twice",
        defect: "40/6",
        file: "doubled.hprof",
        make: Box::new(move |p| {
            let mut b = Vec::new();
            hprof_instances_to(&mut b, inst)?;
            std::fs::write(p, doubled_segments(&b))
        }),
        runs: common_runs(&["--class", "java.lang.Object"], true),
    });
    v.push(Shape {
        name: "i40: HPROF with the middle half of its heap zeroed",
        defect: "40/8",
        file: "zeroed.hprof",
        make: Box::new(move |p| {
            let mut b = Vec::new();
            hprof_instances_to(&mut b, inst)?;
            std::fs::write(p, zeroed_middle(b))
        }),
        runs: common_runs(&["--class", "java.lang.Object"], true),
    });
    v.push(Shape {
        name: "i40: two equal strings with a zero-width space",
        defect: "40/11",
        file: "twins.hprof",
        make: Box::new(|p| std::fs::write(p, twin_strings_hprof("zero\u{200b}width"))),
        runs: common_runs(&["0x2000"], false),
    });
    v
}

/// The HPROF file `b` with its heap dump segments written twice in a row.
fn doubled_segments(b: &[u8]) -> Vec<u8> {
    let head = b.iter().position(|&c| c == 0).unwrap() + 1 + 12;
    let mut out = b[..head].to_vec();
    let mut at = head;
    while at + 9 <= b.len() {
        let len = u32::from_be_bytes(b[at + 5..at + 9].try_into().unwrap()) as usize;
        let end = (at + 9 + len).min(b.len());
        out.extend_from_slice(&b[at..end]);
        if matches!(b[at], 0x0c | 0x1c) {
            out.extend_from_slice(&b[at..end]);
        }
        at = end;
    }
    out
}

/// The HPROF file `b` with the middle half of its largest heap dump segment zeroed.
fn zeroed_middle(mut b: Vec<u8>) -> Vec<u8> {
    let head = b.iter().position(|&c| c == 0).unwrap() + 1 + 12;
    let (mut at, mut best) = (head, (0, 0));
    while at + 9 <= b.len() {
        let len = u32::from_be_bytes(b[at + 5..at + 9].try_into().unwrap()) as usize;
        if matches!(b[at], 0x0c | 0x1c) && len > best.1 {
            best = (at + 9, len);
        }
        at += 9 + len;
    }
    let (start, len) = best;
    b[start + len / 4..start + 3 * len / 4].fill(0);
    b
}

fn with<const N: usize>(mut a: Vec<Run>, more: [Run; N]) -> Vec<Run> {
    a.extend(more);
    a
}

// ---------------------------------------------------------------------------------------
// Writers.

fn create(p: &Path) -> io::Result<BufWriter<File>> {
    Ok(BufWriter::with_capacity(1 << 20, File::create(p)?))
}

fn hprof_head(w: &mut (impl Write + ?Sized), id: u32) -> io::Result<()> {
    w.write_all(b"JAVA PROFILE 1.0.2\0")?;
    w.write_all(&id.to_be_bytes())?;
    w.write_all(&[0; 8])
}

fn hprof_record_head(w: &mut (impl Write + ?Sized), tag: u8, len: u32) -> io::Result<()> {
    w.write_all(&[tag])?;
    w.write_all(&0u32.to_be_bytes())?;
    w.write_all(&len.to_be_bytes())
}

/// `n` HEAP DUMP SEGMENTs each holding `body`, then HEAP DUMP END (8-byte ids).
fn hprof_segments(p: &Path, n: u64, body: &[u8]) -> io::Result<()> {
    let mut w = create(p)?;
    hprof_head(&mut w, 8)?;
    for _ in 0..n {
        hprof_record_head(&mut w, 0x1c, body.len() as u32)?;
        w.write_all(body)?;
    }
    hprof_record_head(&mut w, 0x2c, 0)?;
    w.flush()
}

/// `hostile::hprof_instances` as a stream: `n` instances of one class without fields.
fn hprof_instances_to(w: &mut dyn Write, n: u64) -> io::Result<()> {
    let head = {
        let mut h = Hprof::new(8);
        h.class_dump(0x100, 0, &[]);
        h
    };
    hprof_head(w, 8)?;
    let seg = head.heap.len() as u64 + 25 * n;
    assert!(seg < u32::MAX as u64, "one segment");
    hprof_record_head(w, 0x1c, seg as u32)?;
    w.write_all(&head.heap)?;
    for i in 0..n {
        let mut r = [0u8; 25];
        r[0] = 0x21;
        r[1..9].copy_from_slice(&(0x10000 + 16 * i).to_be_bytes());
        r[13..21].copy_from_slice(&0x100u64.to_be_bytes());
        w.write_all(&r)?;
    }
    hprof_record_head(w, 0x2c, 0)
}

/// 4-byte ids: class `Link` (0x100, field `next`), `n` links at 0x1000 + 16 k each
/// referring to the next, the first held by a JNI global (as `tests/hostile.rs`).
fn hprof_chain_to(p: &Path, n: u64) -> io::Result<()> {
    let h = link_chain_head();
    let mut w = create(p)?;
    w.write_all(&h.bytes)?;
    let seg = h.heap.len() as u64 + 21 * n;
    hprof_record_head(&mut w, 0x1c, seg as u32)?;
    w.write_all(&h.heap)?;
    for k in 0..n as u32 {
        w.write_all(&link_record(k, n as u32))?;
    }
    hprof_record_head(&mut w, 0x2c, 0)?;
    w.flush()
}

/// Class names and a string that a terminal could be fooled by: an emoji class
/// (`hostile::EMOJI_CLASS`) and one of 300 stacked marks, bidi overrides, zero-width
/// characters and escape sequences; a UTF-16 string of the same.
fn names_hprof() -> Vec<u8> {
    let zalgo = format!(
        "Za{}lgo\u{202e}txet\u{2066}\u{200b}\u{1b}]52;c;eA==\u{7}\u{7f}",
        "\u{301}".repeat(300)
    );
    let mut h = Hprof::new(8);
    h.named_class(1, 0x100, 1, EMOJI_CLASS.as_bytes());
    h.named_class(2, 0x200, 2, b"java/lang/String");
    h.named_class(3, 0x300, 3, zalgo.as_bytes());
    h.utf8(4, b"value");
    h.utf8(5, b"coder");
    h.utf8(6, b"ref");
    h.class_dump(0x100, 0, &[(6, 2)]);
    h.class_dump(0x200, 0, &[(4, 2), (5, 8)]);
    h.class_dump(0x300, 0, &[]);
    h.instance_refs(0x1000, 0x100, &[0x2000]);
    let mut s = 0x3000u64.to_be_bytes().to_vec();
    s.push(1);
    h.instance(0x2000, 0x200, &s);
    let text = format!("{EMOJI_TEXT}{zalgo}");
    let utf16: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    h.byte_array(0x3000, &utf16);
    h.instance(0x4000, 0x300, &[]);
    h.jni_global(0x1000);
    h.jni_global(0x4000);
    h.finish()
}

/// `hostile::moar_v3_claiming` as a stream: the columns of `n` collectables compressed
/// as they are made, `pad` random letters in a string so that the file is large enough
/// for its frames to be within the ratio limit.
fn moar_v3_claiming_to(p: &Path, n: u64, pad: u64) -> io::Result<()> {
    let mut w = Counted {
        w: create(p)?,
        at: 0,
    };
    let (head, mut outer, at) = moar_v3_head(r#""total_heap_size": 0, "total_refs": 0"#);
    w.write_all(&head)?;
    let column = |w: &mut Counted, name: &str, size: usize, n: u64, first: u64, rest: u64| {
        w.write_all(&name8(name))?;
        w.write_all(&(size as u16).to_le_bytes())?;
        w.write_all(&0u64.to_le_bytes())?;
        let mut e = zstd::stream::write::Encoder::new(&mut *w, 3)?;
        e.include_contentsize(false)?;
        e.window_log(20)?;
        let chunk: Vec<u8> = (0..65536)
            .flat_map(|_| rest.to_le_bytes()[..size].to_vec())
            .collect();
        let mut left = n;
        if left > 0 {
            e.write_all(&first.to_le_bytes()[..size])?;
            left -= 1;
        }
        while left > 0 {
            let k = left.min(65536);
            e.write_all(&chunk[..k as usize * size])?;
            left -= k;
        }
        e.finish()?;
        io::Result::Ok(())
    };
    column(&mut w, "colkind", 2, n, 9, 1)?;
    for (name, size) in [
        ("colsize", 2),
        ("coltofi", 4),
        ("colrfcnt", 4),
        ("colrfstr", 8),
        ("colusize", 8),
    ] {
        column(&mut w, name, size, n, 0, 0)?;
    }
    column(&mut w, "refdescr", 8, 0, 0, 0)?;
    column(&mut w, "reftrget", 8, 0, 0, 0)?;
    // The strings: "P6opaque", "Foo" and the letters.
    w.write_all(&name8("strings"))?;
    w.write_all(&0u64.to_le_bytes())?;
    {
        let mut e = zstd::stream::write::Encoder::new(&mut w, 3)?;
        e.include_contentsize(false)?;
        e.window_log(20)?;
        for s in ["P6opaque", "Foo"] {
            e.write_all(&(s.len() as u32).to_le_bytes())?;
            e.write_all(s.as_bytes())?;
        }
        e.write_all(&(pad as u32).to_le_bytes())?;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut buf = Vec::with_capacity(1 << 16);
        let mut left = pad;
        while left > 0 {
            buf.clear();
            for _ in 0..left.min(1 << 16) {
                buf.push(letter(&mut x));
            }
            e.write_all(&buf)?;
            left -= buf.len() as u64;
        }
        e.finish()?;
    }
    w.write_all(&moar_column("reprname", 4, &[0]))?;
    w.write_all(&moar_column("typename", 4, &[1]))?;
    // The tables of contents, as `hostile::moar_v3_tail` writes them.
    let inner_at = w.at;
    w.write_all(&moar_toc(inner_at, &[("snapmeta", at, at + 1)]))?;
    outer.push(("toc", inner_at, w.at - 8));
    let end_at = w.at;
    w.write_all(&moar_toc(end_at, &[]))?;
    outer.push(("toc", end_at, w.at - 8));
    let final_at = w.at;
    w.write_all(&moar_toc(final_at, &outer))?;
    w.w.flush()
}

/// A writer that counts the bytes written (the MoarVM TOCs point at offsets).
struct Counted {
    w: BufWriter<File>,
    at: u64,
}

impl Write for Counted {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let n = self.w.write(b)?;
        self.at += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// A V8 snapshot of `n` minimal nodes ([`write_v8_minimal`]), node 0 the synthetic root
/// with `edges` edges to the others in turn; the header's counts exact.
fn v8_minimal_to(p: &Path, n: u64, edges: u64) -> io::Result<()> {
    let mut w = create(p)?;
    write_v8_minimal(&mut w, n, edges, (n, edges))?;
    w.flush()
}

/// A Dart snapshot: the three synthetic objects (each referring to object 4), then `n`
/// objects of class `Foo` with `k` one-byte references each, the counts exact.
fn dart_referencing_to(p: &Path, n: u64, k: u64) -> io::Result<()> {
    let mut w = create(p)?;
    let mut b = dart_head_with_foo();
    b.extend(uleb(3 + n * k));
    b.extend(uleb(3 + n));
    for class in 1..=3u8 {
        b.extend([class, 0, 0, 1, 4]);
    }
    w.write_all(&b)?;
    let mut rec = vec![4u8, 16, 0];
    rec.extend(uleb(k));
    rec.extend((0..k).map(|j| 4 + (j % 100) as u8));
    for _ in 0..n {
        w.write_all(&rec)?;
    }
    w.write_all(&[0])?; // external properties
    w.flush()
}

/// A Dart snapshot whose fourth object has class id `class` (9: no class) or, for
/// class 4, a shallow size of 2^64 - 1.
fn dart_one_bad_object(class: u64) -> Vec<u8> {
    let mut b = dart_head_with_foo();
    b.extend(uleb(1));
    b.extend(uleb(5));
    b.extend([1, 0, 0, 1, 4, 2, 0, 0, 0, 3, 0, 0, 0]);
    b.extend(uleb(class));
    b.extend(uleb(if class == 4 { u64::MAX } else { 16 }));
    b.extend([0, 0]);
    b.extend([4, 16, 0, 0]);
    b.extend([0]);
    b
}

/// The Go fixture with the kind byte of its middle object's record set to 99.
fn go_bad_kind(p: &Path) -> io::Result<()> {
    let whole = crate::common::gunzipped("go/heap.dump.gz");
    let snap = heaptui::open(&whole, &heaptui::sys::progress::Progress::new())
        .map_err(|e| io::Error::other(e.to_string()))?;
    let at = snap.graph.offset.get(snap.graph.len() / 2).unwrap() as usize;
    let mut b = std::fs::read(&whole)?;
    b[at] = 99;
    std::fs::write(p, b)
}

fn gzip_of(p: &Path, body: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut e = flate2::write::GzEncoder::new(create(p)?, flate2::Compression::new(6));
    body(&mut e)?;
    e.finish()?.flush()
}

fn make_fifo(p: &Path) -> io::Result<()> {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Running.

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Exit(i32),
    Signal(i32),
    /// Killed by the sweep after the time limit.
    Timeout,
}

/// One run's record.
pub struct Outcome {
    pub shape: &'static str,
    pub defect: &'static str,
    pub size: u64,
    pub command: String,
    pub end: End,
    pub secs: f64,
    /// The largest `VmHWM` seen (polled): mapped file pages count.
    pub peak_rss_kb: i64,
    /// The largest `RssAnon` seen (polled): the process's own memory, not the map.
    pub peak_anon_kb: i64,
    /// The first line of stderr.
    pub message: String,
    /// Why the run fails the sweep, if it does.
    pub failure: Option<String>,
}

/// The sweep's settings.
pub struct Settings {
    pub bin: PathBuf,
    pub dir: PathBuf,
    /// The address-space limit (`prlimit --as`).
    pub limit_as: u64,
    /// The longest a run may take; it is killed at twice that.
    pub max_secs: f64,
    /// A memory cgroup (v1: its folder) the runs go into, if any.
    pub cgroup: Option<PathBuf>,
    /// The file-size limit (`ulimit -f`, bytes), if any.
    pub fsize: Option<u64>,
}

/// Runs `bin args` under `prlimit --as=LIMIT` (setrlimit before exec where prlimit is
/// not installed), under GNU time for the peak RSS where it is installed, stdout to
/// /dev/null, stderr to a file, in a process group of its own (killed whole at twice
/// the time limit).
///
/// Returns how it ended, the seconds, the peak RSS in KiB (GNU time's `%M`, the
/// program's own `ru_maxrss`: mapped file pages count; without GNU time the largest
/// `VmHWM` seen polling `/proc` every 20 ms), the largest `RssAnon` seen polling (the
/// program's own memory, not the map; a run shorter than a poll shows 0), and the
/// first line of stderr. (The sweep's own `ru_maxrss` of a child would be no use: a
/// child spawned by vfork counts the test process's peak too.)
pub fn run_limited(
    s: &Settings,
    args: &[String],
    env: &[(&str, &str)],
    cache: &Path,
) -> (End, f64, i64, i64, String) {
    use std::os::unix::process::CommandExt;
    let err_path = s.dir.join("stderr.txt");
    let time_path = s.dir.join("time.txt");
    let _ = std::fs::remove_file(&time_path);
    let err = File::create(&err_path).unwrap();
    let mut argv: Vec<std::ffi::OsString> = Vec::new();
    let gnu_time = Path::new("/usr/bin/time").exists();
    if gnu_time {
        argv.extend([
            "/usr/bin/time".into(),
            "-o".into(),
            time_path.clone().into(),
        ]);
        argv.extend(["-f".into(), "%M".into()]);
    }
    let prlimit = Path::new("/usr/bin/prlimit").exists();
    if prlimit {
        argv.push("/usr/bin/prlimit".into());
        argv.push(format!("--as={}", s.limit_as).into());
    }
    argv.push(s.bin.clone().into());
    argv.extend(args.iter().map(Into::into));
    let mut c = Command::new(&argv[0]);
    c.args(&argv[1..]).process_group(0);
    if !prlimit {
        crate::common::limit_address_space(&mut c, s.limit_as);
    }
    if let Some(bytes) = s.fsize {
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            c.pre_exec(move || {
                let r = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &r) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    if let Some(cg) = &s.cgroup {
        // The child joins the cgroup before it execs the program.
        let procs =
            std::ffi::CString::new(cg.join("cgroup.procs").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: open/write/close are async-signal-safe; the path was made before fork.
        unsafe {
            c.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 {
                    return Err(io::Error::last_os_error());
                }
                let pid = format!("{}", libc::getpid());
                let n = libc::write(fd, pid.as_ptr().cast(), pid.len());
                libc::close(fd);
                if n < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    c.env("HEAPTUI_CACHE_DIR", cache)
        .env("HEAPTUI_NO_CACHE", "1")
        .env_remove("HEAPTUI_IGNORE_MEMORY")
        .env_remove("HEAPTUI_MEMORY_LIMIT")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err);
    for (k, v) in env {
        c.env(k, v);
    }
    let start = Instant::now();
    let mut child = c.spawn().expect("spawn heaptui");
    let pid = child.id() as libc::pid_t;
    let mut timed_out = false;
    let (mut peak_kb, mut peak_anon_kb) = (0, 0);
    let status = loop {
        // The program is the leaf under GNU time (prlimit execs it).
        let (hwm, anon) = memory_kb(leaf(pid));
        peak_kb = peak_kb.max(hwm);
        peak_anon_kb = peak_anon_kb.max(anon);
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > Duration::from_secs_f64(2.0 * s.max_secs) && !timed_out {
            // SAFETY: the child's own process group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            timed_out = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let secs = start.elapsed().as_secs_f64();
    let timing = std::fs::read_to_string(&time_path).unwrap_or_default();
    let end = if timed_out {
        End::Timeout
    } else if let Some(sig) = timing
        .lines()
        .find_map(|l| l.strip_prefix("Command terminated by signal "))
    {
        End::Signal(sig.trim().parse().unwrap_or(-1))
    } else {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(c), _) => End::Exit(c),
            (None, Some(sig)) => End::Signal(sig),
            (None, None) => End::Exit(-1),
        }
    };
    if gnu_time {
        if let Some(m) = timing.lines().last().and_then(|l| l.trim().parse().ok()) {
            peak_kb = m;
        }
    }
    // The sweep's directory is left out of the message: the table is quoted.
    let dir = format!("{}/", s.dir.display());
    let message = std::fs::read_to_string(&err_path)
        .unwrap_or_default()
        .replace(&dir, "")
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .chars()
        .take(160)
        .collect();
    (end, secs, peak_kb, peak_anon_kb, message)
}

/// The last of `pid`'s first descendants (the program under GNU time), or `pid`.
fn leaf(mut pid: libc::pid_t) -> libc::pid_t {
    for _ in 0..4 {
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
        match children
            .ok()
            .and_then(|c| c.split_whitespace().next().and_then(|p| p.parse().ok()))
        {
            Some(c) => pid = c,
            None => break,
        }
    }
    pid
}

/// `VmHWM` (the peak RSS of a process's own address space, mapped file pages included)
/// and `RssAnon` of a running process, in KiB; zeros once it is gone.
fn memory_kb(pid: libc::pid_t) -> (i64, i64) {
    let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return (0, 0);
    };
    let field = |name: &str| -> i64 {
        s.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("RssAnon:"))
}

/// Temporary files left in the cache directory (`*.tmp*`, `.<pid>.tmp`).
fn leftovers(cache: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["gunzip", "index"] {
        if let Ok(rd) = std::fs::read_dir(cache.join(sub)) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.contains(".tmp") {
                    out.push(format!("{sub}/{n}"));
                }
            }
        }
    }
    out
}

/// Writes each shape whose name contains `only` (all when empty), runs its commands,
/// removes it; `report` is called with each outcome as it comes.
pub fn sweep(
    s: &Settings,
    scale: Scale,
    only: &str,
    mut report: impl FnMut(&Outcome),
) -> Vec<Outcome> {
    std::fs::create_dir_all(&s.dir).unwrap();
    let mut all = Vec::new();
    for shape in shapes(scale) {
        if !only.is_empty() && !shape.name.contains(only) && !shape.file.contains(only) {
            continue;
        }
        let file = s.dir.join(shape.file);
        let _ = std::fs::remove_file(&file);
        (shape.make)(&file).unwrap_or_else(|e| panic!("writing {}: {e}", shape.file));
        let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        let cache = s.dir.join("cache");
        for r in &shape.runs {
            let args: Vec<String> = r
                .args
                .iter()
                .map(|a| {
                    if a == "FILE" {
                        file.display().to_string()
                    } else {
                        a.clone()
                    }
                })
                .collect();
            let (end, secs, peak_rss_kb, peak_anon_kb, message) =
                run_limited(s, &args, &r.env, &cache);
            let mut failure = match end {
                End::Exit(c) if r.allowed.contains(&c) => None,
                End::Exit(c) => Some(format!("exit {c}, allowed {:?}", r.allowed)),
                End::Signal(n) => Some(format!("signal {n}")),
                End::Timeout => Some("killed after the time limit".into()),
            };
            if failure.is_none() && secs > s.max_secs {
                failure = Some(format!("{secs:.1} s > {} s", s.max_secs));
            }
            let left = leftovers(&cache);
            if failure.is_none() && !left.is_empty() {
                failure = Some(format!("left {left:?}"));
            }
            let _ = std::fs::remove_dir_all(&cache);
            let mut command = r
                .args
                .iter()
                .map(|a| a.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            for (k, v) in &r.env {
                command = format!("{k}={v} {command}");
            }
            let o = Outcome {
                shape: shape.name,
                defect: shape.defect,
                size,
                command,
                end,
                secs,
                peak_rss_kb,
                peak_anon_kb,
                message,
                failure,
            };
            report(&o);
            all.push(o);
        }
        let _ = std::fs::remove_file(&file);
    }
    let _ = std::fs::remove_file(s.dir.join("stderr.txt"));
    let _ = std::fs::remove_file(s.dir.join("time.txt"));
    all
}

/// One row of the results table (Markdown).
pub fn row(o: &Outcome) -> String {
    let end = match o.end {
        End::Exit(c) => c.to_string(),
        End::Signal(n) => format!("signal {n}"),
        End::Timeout => "timeout".into(),
    };
    format!(
        "| {} | {} | {} | `{}` | {} | {:.1} | {} | {} | {} |",
        o.shape,
        o.defect,
        human_size(o.size),
        o.command,
        end,
        o.secs,
        o.peak_rss_kb / 1024,
        o.peak_anon_kb / 1024,
        match &o.failure {
            Some(f) => format!("**FAILED: {f}**"),
            None => o.message.replace('|', "\\|"),
        }
    )
}

pub const HEADER: &str = "| shape | defect | file | command | exit | s | peak RSS MB | peak anon MB | stderr's first line |\n|---|---|---:|---|---:|---:|---:|---:|---|";

fn human_size(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.0} MB", b as f64 / 1e6)
    } else if b >= 1 << 10 {
        format!("{:.0} KB", b as f64 / 1e3)
    } else {
        format!("{b} B")
    }
}
