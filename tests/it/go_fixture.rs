//! Go heap dumps written by a real Go 1.19 program (`fixtures/go`), checked against what
//! the program itself reported around the dump (`expected*.json`): `runtime.ReadMemStats`,
//! `runtime.Stack(all)`, the addresses (`%p`) of chosen objects, the goroutines holding
//! chosen locals, and the file:line of its allocation sites.

use crate::common;

use common::*;
use serde_json::Value;

fn expected(name: &str) -> Value {
    fixture_json(&format!("go/{name}"))
}

fn dump(name: &str) -> String {
    fixture_arg(&format!("go/{name}"))
}

#[test]
fn objects_and_bytes_equal_the_runtimes_memstats() {
    for (d, e) in [
        ("heap.dump.gz", "expected.json"),
        ("heap-memprofile.dump.gz", "expected-memprofile.json"),
    ] {
        let e = expected(e);
        let s = summary_json(&dump(d));
        assert_eq!(s["objects"], e["memstats_before"]["HeapObjects"], "{d}");
        assert_eq!(s["shallow_bytes"], e["memstats_before"]["HeapAlloc"], "{d}");
        assert_eq!(s["format"], "go");
        assert!(s["truncated"].is_null());
    }
}

/// (id, non-inlined function names in order) of every goroutine of runtime.Stack(all).
fn runtime_stack(text: &str) -> Vec<(u64, Vec<String>)> {
    let mut out: Vec<(u64, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("goroutine ") {
            let id = rest.split_whitespace().next().unwrap().parse().unwrap();
            out.push((id, Vec::new()));
        } else if !line.starts_with('\t') && !line.is_empty() && !line.starts_with("created by") {
            // "pkg.fn(args)": inlined frames print their arguments as "(...)".
            let Some((func, args)) = line.rsplit_once('(') else {
                continue;
            };
            if args.starts_with("...") {
                continue;
            }
            // Go's traceback prints runtime.gopanic as "panic"; the dump has the real name.
            let func = if func == "panic" {
                "runtime.gopanic"
            } else {
                func
            };
            if let Some(g) = out.last_mut() {
                g.1.push(func.to_string());
            }
        }
    }
    out
}

#[test]
fn every_goroutine_of_runtime_stack_with_its_functions_in_order() {
    let e = expected("expected.json");
    let want = runtime_stack(e["runtime_stack_all"].as_str().unwrap());
    assert!(want.len() >= 7);
    let v = json_of(&heaptui(&["threads", &dump("heap.dump.gz"), "--json"]));
    let ours = items(&v, "threads");
    let listed: Vec<u64> = ours.iter().map(|t| t["id"].as_u64().unwrap()).collect();
    for (id, funcs) in &want {
        let t = ours
            .iter()
            .find(|t| t["id"] == *id)
            .unwrap_or_else(|| panic!("goroutine {id} missing from {listed:?}"));
        let frames: Vec<&str> = items(t, "frames")
            .iter()
            .map(|f| f["function"].as_str().unwrap())
            .collect();
        // The dump lists every physical frame, runtime ones too; runtime.Stack's (not
        // inlined) functions must appear among them in the same order.
        let mut it = frames.iter();
        for f in funcs {
            assert!(
                it.any(|x| x == f),
                "goroutine {id}: {f} not in order in {frames:?}"
            );
        }
        assert_eq!(t["system"], false, "goroutine {id} runs user code");
    }
    // The goroutines runtime.Stack leaves out are the runtime's own, marked system.
    let want_ids: Vec<u64> = want.iter().map(|w| w.0).collect();
    for t in ours {
        if !want_ids.contains(&t["id"].as_u64().unwrap()) {
            assert_eq!(t["system"], true, "{t}");
        }
    }
}

#[test]
fn a_goroutine_local_is_found_in_its_frame_and_its_path_ends_there() {
    let e = expected("expected.json");
    let d = dump("heap.dump.gz");
    let v = json_of(&heaptui(&["threads", &d, "--json"]));
    let mut checked = 0;
    for l in e["goroutine_locals"].as_array().unwrap() {
        let addr = l["address"].as_str().unwrap();
        let t = item(&v, "threads", "id", l["goroutine_id"].clone());
        let frame = item(t, "frames", "function", l["holder_function"].clone());
        assert!(
            items(frame, "locals").iter().any(|x| x["object"] == addr),
            "{addr} not a local of {}",
            l["holder_function"]
        );
        let p = path_json(&d, addr);
        let paths = p["paths"].as_array().unwrap();
        assert_eq!(paths[0].as_array().unwrap().len(), 1, "{p}");
        assert_eq!(paths[0][0]["root"], "goroutine frame");
        let detail = paths[0][0]["root_detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("goroutine {}", l["goroutine_id"])),
            "{detail}"
        );
        // Its contents start with the program's magic string.
        let ins = inspect_json(&d, addr);
        assert!(ins["preview"]
            .as_str()
            .unwrap()
            .starts_with(l["magic"].as_str().unwrap()));
        checked += 1;
    }
    assert!(checked >= 5);
}

#[test]
fn the_big_slice_is_retained_by_its_holder_and_globals_are_bss_roots() {
    let e = expected("expected.json");
    let d = dump("heap.dump.gz");
    let a = &e["addresses"];
    let big = inspect_json(&d, a["big_bytes"].as_str().unwrap());
    assert_eq!(
        big["shallow_bytes"], 3_006_464,
        "the runtime's size class for 3,000,000 bytes"
    );
    assert_eq!(big["dominator"], a["big_holder"]);
    let holder = inspect_json(&d, a["big_holder"].as_str().unwrap());
    assert_eq!(
        holder["retained_bytes"].as_u64().unwrap(),
        holder["shallow_bytes"].as_u64().unwrap() + 3_006_464
    );
    let p = path_json(&d, a["big_holder"].as_str().unwrap());
    assert!(
        p["paths"][0][0]["root"]
            .as_str()
            .unwrap()
            .ends_with("segment"),
        "{p}"
    );
    // The 503-node list: the head retains every node (240-byte size class each).
    let head = inspect_json(&d, a["list_head"].as_str().unwrap());
    assert!(head["retained_bytes"].as_u64().unwrap() >= 503 * 240);
}

#[test]
fn allocation_sites_group_the_programs_objects_at_their_file_and_line() {
    let e = expected("expected-memprofile.json");
    let h = json_of(&heaptui(&[
        "histogram",
        &dump("heap-memprofile.dump.gz"),
        "--json",
    ]));
    let classes = by_class(&h, count);
    let count_at = |file: &str, line: u64| -> u64 {
        classes
            .iter()
            .filter(|(c, _)| c.ends_with(&format!("({file}:{line})")))
            .map(|(_, n)| n)
            .sum()
    };
    for (what, site) in e["alloc_sites"].as_object().unwrap() {
        let (file, line) = (
            site["file"].as_str().unwrap(),
            site["line"].as_u64().unwrap(),
        );
        assert!(
            count_at(file, line) >= 1,
            "{what}: no class at {file}:{line}"
        );
    }
    // The populations land whole at their sites.
    for (what, n) in [("session", 1237), ("order", 777), ("node", 503)] {
        let site = &e["alloc_sites"][what];
        let got = count_at(
            site["file"].as_str().unwrap(),
            site["line"].as_u64().unwrap(),
        );
        assert_eq!(got, n, "{what}");
    }
    let s = summary_json(&dump("heap-memprofile.dump.gz"));
    assert!(s["details"]["classes"]
        .as_str()
        .unwrap()
        .starts_with("allocation sites"));
    let s = summary_json(&dump("heap.dump.gz"));
    assert!(s["details"]["classes"]
        .as_str()
        .unwrap()
        .starts_with("size classes"));
}

#[test]
fn a_dump_cut_anywhere_opens_what_is_whole() {
    use std::io::Read;
    let mut full = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(fixture("go/heap.dump.gz")).unwrap())
        .read_to_end(&mut full)
        .unwrap();
    let open = |bytes: &[u8]| {
        let mut m = memmap2::MmapMut::map_anon(bytes.len().max(1)).unwrap();
        m[..bytes.len()].copy_from_slice(bytes);
        let src = heaptui::source::Source::from_map(
            std::path::Path::new("cut.dump"),
            Some(m.make_read_only().unwrap()),
        );
        heaptui::format::go::open(src, &heaptui::sys::progress::Progress::new())
    };
    let whole = open(&full).unwrap();
    let n = whole.graph.len();
    let mut x: u64 = 0x9e3779b97f4a7c15;
    for k in 0..60 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let cut = if k < 5 {
            [0, 1, 16, 17, 40][k]
        } else {
            (x % full.len() as u64) as usize
        };
        match open(&full[..cut]) {
            Ok(s) => {
                let t = s
                    .truncated
                    .unwrap_or_else(|| panic!("cut at {cut}: not truncated"));
                assert!(t <= cut as u64);
                assert!(s.graph.len() <= n);
                let d = heaptui::heap::dominators::compute(
                    &s.graph,
                    &heaptui::sys::progress::Progress::new(),
                );
                assert!(d.reach.reachable <= s.graph.len() as u64);
            }
            Err(e) => assert!(e.offset <= cut as u64, "cut at {cut}: {e}"),
        }
    }
}
