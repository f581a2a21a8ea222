//! Threads of the real JDK 17 dumps against `jcmd Thread.print` taken from the same JVM
//! right after the dump (`fixtures/java/*/threads.txt`): every Java thread, with its
//! id, state and frames in order; and the fixture's thread locals found in their frames.

use crate::common;

use common::*;
use serde_json::Value;

/// (name, id, state, frames as (function, location)) of one Java thread.
type JvmThread = (String, u64, String, Vec<(String, String)>);

/// Every Java thread (`#N`) of a Thread.print.
fn thread_print(text: &str) -> Vec<JvmThread> {
    let mut out: Vec<JvmThread> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix('"') {
            let Some(end) = rest.find('"') else { continue };
            let name = rest[..end].to_string();
            let after = &rest[end + 1..];
            let Some(id) = after
                .split_whitespace()
                .next()
                .and_then(|w| w.strip_prefix('#'))
                .and_then(|n| n.parse().ok())
            else {
                continue; // a VM thread (GC, VM Thread): no Java object, not in dumps
            };
            out.push((name, id, String::new(), Vec::new()));
        } else if let Some(st) = line.trim().strip_prefix("java.lang.Thread.State: ") {
            if let Some(t) = out.last_mut() {
                t.2 = st.split_whitespace().next().unwrap_or("").to_string();
            }
        } else if let Some(at) = line.trim().strip_prefix("at ") {
            let Some(t) = out.last_mut() else { continue };
            let (func, loc) = at.split_once('(').unwrap();
            let loc = loc.trim_end_matches(')');
            let loc = loc.rsplit_once('/').map_or(loc, |x| x.1);
            t.3.push((func.to_string(), loc.to_string()));
        }
    }
    out
}

#[test]
fn every_java_thread_of_thread_print_with_the_same_frames_in_order() {
    for (dump, threads) in [
        (
            "java/coops/heap-live-jvmgz.hprof.gz",
            "java/coops/threads.txt",
        ),
        (
            "java/nocoops/heap-live.hprof.gz",
            "java/nocoops/threads.txt",
        ),
    ] {
        let want = thread_print(&std::fs::read_to_string(fixture(threads)).unwrap());
        assert!(want.len() >= 15, "{threads}: {} Java threads", want.len());
        let f = fixture(dump);
        let v = json_of(&heaptui(&["threads", f.to_str().unwrap(), "--json"]));
        let ours = items(&v, "threads");
        for (name, id, state, frames) in &want {
            let t = ours
                .iter()
                .find(|t| t["name"] == name.as_str())
                .unwrap_or_else(|| panic!("{dump}: thread {name:?} missing"));
            assert_eq!(t["id"], *id, "{name}");
            assert_eq!(t["state"], state.as_str(), "{name}");
            let got: Vec<(String, String)> = items(t, "frames")
                .iter()
                .map(|f| {
                    (
                        f["function"].as_str().unwrap().to_string(),
                        f["location"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            assert_eq!(&got, frames, "{dump}: frames of {name}");
        }
        // And nothing more than the JVM's threads.
        assert_eq!(ours.len(), want.len(), "{dump}");
    }
}

fn frame<'a>(v: &'a Value, thread: &str, function: &str) -> &'a Value {
    item(
        item(v, "threads", "name", thread),
        "frames",
        "function",
        function,
    )
}

#[test]
fn a_local_held_only_by_one_frame_is_found_there_and_its_path_ends_there() {
    let f = &fixture_arg("java/coops/heap-live-jvmgz.hprof.gz");
    let v = json_of(&heaptui(&["threads", f, "--json"]));
    // The waiter's ArrayList of 13 Temps (expected.json: held only by this frame).
    let fr = frame(
        &v,
        "fixture-waiter",
        "dev.heaptui.fixture.WaiterTask.holdLocalsAndWait",
    );
    let list = item(fr, "locals", "class", "java.util.ArrayList");
    let name = list["object"].as_str().unwrap();
    let p = path_json(f, name);
    let paths = items(&p, "paths");
    assert_eq!(paths.len(), 1, "held by nothing else: {p}");
    assert_java_frame_root(&p, "fixture-waiter");
    let ins = inspect_json(f, name);
    assert!(
        ins["referrers"].as_array().unwrap().is_empty(),
        "no object refers to it: {ins}"
    );
    // The parked thread's int[17] holding 1700..1716.
    let fr = frame(
        &v,
        "fixture-parked",
        "dev.heaptui.fixture.ParkedTask.holdLocalsAndPark",
    );
    let arr = item(fr, "locals", "class", "int[]");
    let a = inspect_json(f, arr["object"].as_str().unwrap());
    assert_eq!(a["length"], 17);
    assert_eq!(a["fields"][0]["value"], 1700);
    assert_eq!(a["fields"][16]["value"], 1716);
}

/// Issue 26: `summary` counted ROOT THREAD OBJECT records (10) where `jstack`, the threads
/// pane and `threads --json` list 15 Java threads (HotSpot gives the threads it hides no
/// such record).
#[test]
fn summary_counts_every_java_thread_that_thread_print_lists() {
    for (dump, threads) in [
        (
            "java/coops/heap-live-jvmgz.hprof.gz",
            "java/coops/threads.txt",
        ),
        (
            "java/nocoops/heap-live.hprof.gz",
            "java/nocoops/threads.txt",
        ),
        ("java/leak/heap-live.hprof.gz", "java/leak/threads.txt"),
    ] {
        let want = thread_print(&std::fs::read_to_string(fixture(threads)).unwrap()).len();
        assert_eq!(want, 15, "{threads}: the Java threads of the JVM");
        let f = &fixture_arg(dump);
        let s = summary_json(f);
        assert_eq!(s["threads"], want, "{dump}: summary --json");
        let text = heaptui(&["summary", f]);
        let text = String::from_utf8(text.stdout).unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with("threads "))
            .expect("a threads line");
        assert_eq!(line.split_whitespace().nth(1), Some("15"), "{dump}: {line}");
        let listed = json_of(&heaptui(&["threads", f, "--json"]));
        assert_eq!(items(&listed, "threads").len(), want, "{dump}");
    }
}
