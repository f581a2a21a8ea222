//! MoarVM heap snapshots written by a real NQP program (`fixtures/moarvm/app.nqp`), once
//! by Debian's MoarVM 2022.12 (format 2) and once by the same MoarVM rebuilt with zstd
//! (format 3), checked against what the runtime reported (`expected.json`): the program's
//! own counts of its classes at each snapshot and the GC sequence number of that
//! snapshot's GC, and for v3 the file's own snapmeta totals and highscore tables (read by
//! `truth.py`, which counts nothing itself).

use crate::common;

use std::collections::{BTreeMap, HashMap};

use common::*;
use serde_json::Value;

fn expected() -> Value {
    fixture_json("moarvm/expected.json")
}

fn file(version: &str) -> String {
    let e = expected();
    fixture_arg(&format!("moarvm/{}", e[version]["file"].as_str().unwrap()))
}

/// Per class: (count, shallow bytes), from `histogram --json` of one snapshot.
fn histogram(target: &str) -> Histogram {
    let v = json_of(&heaptui(&[
        "histogram",
        target,
        "--json",
        "--top",
        "100000",
    ]));
    by_class(&v, |c| (count(c), c["shallow_bytes"].as_u64().unwrap()))
}

/// A snapshot's histogram: class → (count, shallow bytes).
type Histogram = BTreeMap<String, (u64, u64)>;

/// What a highscore table scores of a histogram row.
type Score = fn(&(u64, u64)) -> u64;

/// Calls `check(i, board, h, rows, score)` for each v3 snapshot `i` and each of the
/// highscore tables `boards` the file has for it (by count, then by size): `h` the
/// snapshot's histogram, `rows` the table's entries (at least 20 of them), `score` what
/// the table scores of a histogram row (its count, its shallow bytes).
fn each_highscore_table(
    boards: [&str; 2],
    check: impl Fn(usize, &str, &Histogram, &[Value], Score),
) {
    let e = expected();
    let f = file("v3");
    for (i, s) in items(&e["v3"]["runtime"], "snapshots").iter().enumerate() {
        let h = histogram(&format!("{f}#{i}"));
        let scores: [Score; 2] = [|c| c.0, |c| c.1];
        for (board, score) in boards.into_iter().zip(scores) {
            let rows = items(&s["highscores"], board);
            assert!(rows.len() >= 20, "{board}");
            check(i, board, &h, rows, score);
        }
    }
}

/// `summary --json`'s "collectables by kind" detail: kind → count.
fn kinds(summary: &Value) -> HashMap<String, u64> {
    summary["details"]["collectables by kind"]
        .as_str()
        .unwrap()
        .split(", ")
        .map(|p| {
            let (k, n) = p.rsplit_once(' ').unwrap();
            (k.to_string(), n.parse().unwrap())
        })
        .collect()
}

/// The number at the start of a detail ("905 frame collectables; 1 of them ...").
fn number_after(text: &str, prefix: &str) -> u64 {
    let rest = &text[text.find(prefix).unwrap() + prefix.len()..];
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn every_v3_snapshot_has_the_runtimes_totals() {
    let e = expected();
    let snaps = e["v3"]["runtime"]["snapshots"].as_array().unwrap();
    assert_eq!(snaps.len(), 5);
    let f = file("v3");
    let all = summary_json(&f);
    assert_eq!(all["snapshots"].as_array().unwrap().len(), snaps.len());
    for (i, s) in snaps.iter().enumerate() {
        let m = &s["snapmeta"];
        let v = summary_json(&format!("{f}#{i}"));
        assert_eq!(v["snapshot"], i);
        let k = kinds(&v);
        assert_eq!(k["object"], m["total_objects"], "snapshot {i}");
        assert_eq!(k["type object"], m["total_typeobjects"], "snapshot {i}");
        assert_eq!(k["STable"], m["total_stables"], "snapshot {i}");
        assert_eq!(v["edges"], m["total_refs"], "snapshot {i}");
        assert_eq!(v["shallow_bytes"], m["total_heap_size"], "snapshot {i}");
        // total_frames leaves out the frames that call stack roots list (NOTES §5d);
        // heaptui counts them apart, and the rest must be the runtime's figure.
        let frames = v["details"]["frames"].as_str().unwrap();
        let on_stack = number_after(frames, "collectables; ");
        assert_eq!(
            k["frame"] - on_stack,
            m["total_frames"].as_u64().unwrap(),
            "snapshot {i}: {frames}"
        );
        let own: Value = serde_json::from_str(v["details"]["snapmeta"].as_str().unwrap()).unwrap();
        assert_eq!(&own, m, "the snapmeta heaptui shows is the file's");
        assert!(v["truncated"].is_null());
        assert_eq!(all["snapshots"][i]["objects"], v["objects"]);
    }
}

#[test]
fn the_programs_own_counts_are_exact_in_both_versions() {
    let e = expected();
    for version in ["v2", "v3"] {
        let f = file(version);
        let events: Vec<u64> = items(&e[version], "gc_events")
            .iter()
            .map(|g| g["gc_seq_num"].as_u64().unwrap())
            .collect();
        let listed = summary_json(&f);
        // One snapshot per GC while profiling, in order.
        assert_eq!(listed["snapshots"].as_array().unwrap().len(), events.len());
        for p in e[version]["program"].as_array().unwrap() {
            let gc = p["gc_seq_num"].as_u64().unwrap();
            let i = events.iter().position(|&g| g == gc).unwrap();
            if version == "v3" {
                let m = &e["v3"]["runtime"]["snapshots"][i]["snapmeta"];
                assert_eq!(m["gc_seq_num"], gc);
            }
            let h = histogram(&format!("{f}#{i}"));
            for class in ["Order", "LineItem", "Scratch", "Link", "Keeper"] {
                let want = p[class].as_u64().unwrap();
                let got = h.get(class).map_or(0, |c| c.0);
                assert_eq!(
                    got, want,
                    "{version} snapshot {i} ({}): {class}",
                    p["label"]
                );
            }
            // One type object and one STable per class of the program.
            assert_eq!(h["Order (type object)"].0, 1);
            assert_eq!(h["Order (STable)"].0, 1);
        }
    }
}

/// Frames are grouped by `name (file:line)`; roots by their MoarVM names.
fn is_object_class(name: &str) -> bool {
    !(name.ends_with(" (type object)")
        || name.ends_with(" (STable)")
        || name.ends_with(" Roots")
        || name == "Root"
        || (name.ends_with(')') && name.contains(" (") && name.contains(':')))
}

#[test]
fn top_types_by_count_and_size_are_the_files_highscores() {
    each_highscore_table(
        ["types_by_count", "types_by_size"],
        |i, board, h, rows, score| {
            let mut least = u64::MAX;
            for r in rows {
                let name = r["type"].as_str().unwrap();
                let want = r["score"].as_u64().unwrap();
                least = least.min(want);
                let c = h
                    .get(name)
                    .or_else(|| h.get(&format!("{name} [{}]", r["repr"].as_str().unwrap())))
                    .unwrap_or_else(|| panic!("snapshot {i} {board}: no class {name}"));
                assert_eq!(score(c), want, "snapshot {i} {board}: {name}");
            }
            // Nothing the board leaves out beats its last entry.
            let names: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
            for (name, c) in h {
                let v = score(c);
                if is_object_class(name) && v > least {
                    assert!(
                        names.iter().any(|n| name == n || name.starts_with(&format!("{n} ["))),
                        "snapshot {i} {board}: {name} ({v}) beats the board's last entry ({least}) but is not on it"
                    );
                }
            }
        },
    );
}

#[test]
fn top_frames_by_count_and_size_are_the_files_highscores() {
    // Frames are grouped by static frame as `name (file:line)` (`<anon>` for no name).
    each_highscore_table(
        ["frames_by_count", "frames_by_size"],
        |i, board, h, rows, score| {
            for r in rows {
                let name = match r["frame"].as_str().unwrap() {
                    "" => "<anon>",
                    n => n,
                };
                let class = format!("{name} ({}:{})", r["file"].as_str().unwrap(), r["line"]);
                let c = h
                    .get(&class)
                    .unwrap_or_else(|| panic!("snapshot {i} {board}: no class {class}"));
                assert_eq!(
                    score(c),
                    r["score"].as_u64().unwrap(),
                    "snapshot {i} {board}: {class}"
                );
            }
        },
    );
}

#[test]
fn file_suffix_picks_a_snapshot_and_the_last_is_the_default() {
    for version in ["v2", "v3"] {
        let f = file(version);
        let last = summary_json(&f);
        let list = last["snapshots"].as_array().unwrap().clone();
        assert_eq!(last["snapshot"], list.len() - 1);
        assert_eq!(last["format"], "moarvm");
        let one = summary_json(&format!("{f}#1"));
        assert_eq!(one["snapshot"], 1);
        assert_eq!(one["objects"], list[1]["objects"]);
        assert_ne!(one["objects"], last["objects"]);
        let out = heaptui(&["summary", &format!("{f}#{}", list.len())]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{version}: a snapshot it does not have"
        );
        // Objects are named #N, the collectable index.
        let v = inspect_json(&format!("{f}#1"), "#0");
        assert_eq!(v["object"], "#0");
        assert_eq!(v["class"], "Root");
        // Issue 26: a bare number is the object `#N` names.
        let bare = inspect_json(&format!("{f}#1"), "0");
        assert_eq!(bare, v, "{version}");
    }
}

#[test]
fn a_v3_file_cut_inside_a_snapshot_opens_the_ones_before() {
    let plain = gunzipped("moarvm/app-v3.mvmheap.gz");
    let bytes = std::fs::read(&plain).unwrap();
    // The snapmeta blocks (name, u64 length, JSON), not the TOC entries that name them.
    let metas: Vec<usize> = bytes
        .windows(8)
        .enumerate()
        .filter(|&(i, w)| w == b"snapmeta" && bytes.get(i + 16) == Some(&b'{'))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(metas.len(), 5);
    let full = summary_json(plain.to_str().unwrap());
    for k in 1..metas.len() {
        // Halfway through snapshot k's blocks.
        let cut = (metas[k] + metas.get(k + 1).copied().unwrap_or(bytes.len())) / 2;
        let p = scratch().join(format!("cut-v3-{k}.mvmheap"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let v = summary_json(p.to_str().unwrap());
        let list = v["snapshots"].as_array().unwrap();
        assert_eq!(list.len(), k, "cut at {cut}");
        let t = v["truncated"].as_u64().expect("says truncated");
        assert!(t as usize > metas[k - 1] && t as usize <= cut, "{t}");
        assert!(v["warnings"][0].as_str().unwrap().contains("truncated"));
        for (i, s) in list.iter().enumerate() {
            assert_eq!(s["objects"], full["snapshots"][i]["objects"]);
        }
    }
    // Cut just after a snapshot's interim table of contents (what a killed profile
    // leaves): the snapshots are whole, the file says it may be cut short.
    let p = scratch().join("cut-v3-interim.mvmheap");
    std::fs::write(&p, &bytes[..metas[3]]).unwrap();
    let v = summary_json(p.to_str().unwrap());
    assert_eq!(v["snapshots"].as_array().unwrap().len(), 3);
    assert_eq!(v["truncated"], metas[3]);
    // Cut inside the final table of contents: every snapshot is whole, the file is not.
    let p = scratch().join("cut-v3-toc.mvmheap");
    std::fs::write(&p, &bytes[..bytes.len() - 20]).unwrap();
    let v = summary_json(p.to_str().unwrap());
    assert_eq!(v["snapshots"].as_array().unwrap().len(), 5);
    assert!(v["truncated"].is_u64());
}

#[test]
fn a_v2_file_cut_short_opens_the_whole_snapshots() {
    let plain = gunzipped("moarvm/app-v2.mvmheap.gz");
    let bytes = std::fs::read(&plain).unwrap();
    let full = summary_json(plain.to_str().unwrap());
    for frac in [30, 55, 80, 99] {
        let cut = bytes.len() * frac / 100;
        let p = scratch().join(format!("cut-v2-{frac}.mvmheap"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let v = summary_json(p.to_str().unwrap());
        let list = v["snapshots"].as_array().unwrap();
        assert!(
            !list.is_empty() && list.len() < 5,
            "{frac}%: {}",
            list.len()
        );
        assert!(v["truncated"].is_u64());
        for (i, s) in list.iter().enumerate() {
            assert_eq!(s["objects"], full["snapshots"][i]["objects"]);
        }
    }
    // Nothing whole at all: an error that names the offset.
    let err = summary_refused("cut-v2-head.mvmheap", &bytes[..1000]);
    assert!(err.contains("byte offset"), "{err}");
}

#[test]
fn a_zstd_frame_that_expands_past_the_bound_is_refused() {
    // Hand-built by make.sh: a v3 header and metadata, then a colkind column whose frame
    // expands to 256 MiB of zeros from 8 KiB.
    let f = fixture("moarvm/zstd-bomb.mvmheap");
    let out = heaptui(&["summary", f.to_str().unwrap()]);
    let err = stderr_of(&out, 2);
    assert!(err.contains("at byte offset 145"), "{err}");
    assert!(err.contains("expands past"), "{err}");
}

#[test]
fn headers_alone_or_garbage_exit_2_naming_the_offset() {
    for (name, bytes) in [
        ("head-v2.mvmheap", &b"MoarHeapDumpv002\0\0"[..]),
        ("head-v3.mvmheap", &b"MoarHeapDumpv003"[..]),
        (
            "bad-block-v2.mvmheap",
            &b"MoarHeapDumpv002junkjunkjunkjunk"[..],
        ),
        (
            "bad-block-v3.mvmheap",
            &b"MoarHeapDumpv003\x01\x02\x03\x04\x05\x06\x07\x08"[..],
        ),
        ("future.mvmheap", &b"MoarHeapDumpv004"[..]),
    ] {
        let p = scratch().join(name);
        std::fs::write(&p, bytes).unwrap();
        let out = heaptui(&["summary", p.to_str().unwrap()]);
        let err = stderr_of(&out, 2);
        assert!(err.contains("at byte offset"), "{name}: {err}");
    }
}

#[test]
fn two_snapshots_of_one_file_diff_by_type() {
    let f = file("v3");
    let v = json_of(&heaptui(&[
        "diff",
        &format!("{f}#1"),
        &format!("{f}#2"),
        "--json",
    ]));
    let scratch = item(&v, "classes", "class", "Scratch");
    assert_eq!(scratch["base_count"], 3001);
    assert_eq!(scratch["delta_count"], -3001);
}

#[test]
fn gzip_and_plain_v3_read_the_same() {
    let gz = summary_json(&file("v3"));
    let plain = gunzipped("moarvm/app-v3.mvmheap.gz");
    let p = summary_json(plain.to_str().unwrap());
    for k in [
        "objects",
        "edges",
        "shallow_bytes",
        "snapshots",
        "classes",
        "roots",
    ] {
        assert_eq!(gz[k], p[k], "{k}");
    }
}

#[test]
fn roots_threads_paths_and_labels() {
    for version in ["v2", "v3"] {
        let f = format!("{}#0", file(version));
        // The worker thread holds its Keeper in a local of its frame.
        let t = json_of(&heaptui(&["threads", &f, "--json"]));
        let threads = items(&t, "threads");
        assert_eq!(
            threads.len(),
            3,
            "{version}: main, the specializer, the worker"
        );
        let keeper = threads.iter().any(|t| {
            items(t, "frames")
                .iter()
                .any(|fr| items(fr, "locals").iter().any(|l| l["class"] == "Keeper"))
        });
        assert!(keeper, "{version}: no frame holds the Keeper");
        // The chain's links are reached through attribute names.
        let p = json_of(&heaptui(&[
            "path", &f, "--class", "Link", "--json", "--max", "1",
        ]));
        let steps = p["paths"][0].as_array().unwrap();
        assert!(steps[0]["root"].is_string());
        let edges: Vec<&str> = steps.iter().filter_map(|s| s["edge"].as_str()).collect();
        assert!(!edges.is_empty());
        // The root's references are its root sets, named as MoarVM names them.
        let v = inspect_json(&f, "#0");
        let names: Vec<&str> = items(&v, "fields")
            .iter()
            .map(|x| x["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            &names[..3],
            ["Permanent Roots", "VM Instance Roots", "C Stack Roots"]
        );
        assert!(names.contains(&"Inter-generational Roots"));
        // Dominators: the root sets and the inter-generational set's leftovers.
        let d = json_of(&heaptui(&["dominators", &f, "--json", "--top", "5"]));
        assert!(!d["objects"].as_array().unwrap().is_empty());
    }
}

/// Bytes of the real files overwritten at scattered places (single bytes, and 8-byte runs
/// of 0xFF that make any count or index huge): the reader opens or refuses, never panics
/// and never allocates past what the file justifies.
#[test]
fn corrupted_files_open_or_fail_without_panicking() {
    use heaptui::source::Source;
    use heaptui::sys::progress::Progress;
    for rel in ["moarvm/app-v2.mvmheap.gz", "moarvm/app-v3.mvmheap.gz"] {
        let bytes = std::fs::read(gunzipped(rel)).unwrap();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..10 {
            let mut b = bytes.clone();
            for _ in 0..4 {
                xorshift(&mut x);
                let at = 16 + (x as usize) % (b.len() - 24);
                if round % 2 == 0 {
                    b[at] ^= 1 << ((x >> 40) % 8);
                } else {
                    b[at..at + 8].fill(0xff);
                }
            }
            let mut m = memmap2::MmapMut::map_anon(b.len()).unwrap();
            m.copy_from_slice(&b);
            let src = Source::from_map(
                std::path::Path::new("mem.mvmheap"),
                Some(m.make_read_only().unwrap()),
            );
            if let Ok(s) = heaptui::format::moarvm::open(src, Some(0), &Progress::new()) {
                let g = &s.graph;
                assert_eq!(g.out_start.len(), g.len() + 1);
                assert!(g.out_targets.iter().all(|&t| (t as usize) < g.len()));
                // Inspecting and labelling any collectable is safe too.
                for o in [0, g.len() as u32 / 2, g.len() as u32 - 1] {
                    let _ = s.inspect(o);
                    let _ = s.label(o);
                }
            }
        }
    }
}

/// `index_bytes` counts what the decoder keeps beside the graph: a MoarVM decoder holds a
/// label per reference (4 bytes) and a kind, type and managed size per collectable (7
/// bytes), on top of the graph's two CSRs (8 bytes per reference) and columns.
#[test]
fn the_index_size_counts_the_decoders_own_columns() {
    let v = summary_json(&file("v2"));
    let (objects, edges) = (v["objects"].as_u64().unwrap(), v["edges"].as_u64().unwrap());
    assert!(objects > 10_000 && edges > objects, "{v}");
    let index = v["index_bytes"].as_u64().unwrap();
    assert!(
        index >= 12 * edges + 7 * objects,
        "index_bytes {index} for {objects} collectables and {edges} references"
    );
}
