//! Shared test helpers: fixture paths, decompressed copies, the corpus in `../shared`.
#![allow(dead_code)]

pub mod counting;
pub mod graphs;
pub mod hostile;
pub mod tui;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// The public corpus in `../shared/corpus`, or `None` (with a message) when absent.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let p = root().join("..").join("shared").join("corpus").join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "skipping: {} is absent (../shared is not beside the checkout)",
            p.display()
        );
        None
    }
}

/// One step of the xorshift64 generator the tests draw their cuts and bytes from:
/// the same seed, the same draws.
pub fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// A copy of `bytes` with 50 bytes at or after offset `from` overwritten, where and
/// with what drawn from `x`.
pub fn scribbled(bytes: &[u8], from: usize, x: &mut u64) -> Vec<u8> {
    let mut bad = bytes.to_vec();
    for _ in 0..50 {
        xorshift(x);
        let at = from + (*x % (bad.len() - from) as u64) as usize;
        bad[at] = (*x >> 32) as u8;
    }
    bad
}

/// A JSON file under `fixtures/` (a fixture's `expected.json`, `truth.json`).
pub fn fixture_json(rel: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(fixture(rel)).expect("fixture");
    serde_json::from_str(&text).expect("JSON")
}

/// `12000` → `12,000`, as the TUI writes counts.
pub fn with_commas(x: usize) -> String {
    heaptui::text::thousands(x as u64)
}

/// A private directory for this test process (decompressed fixtures, the gzip cache).
///
/// It lives under Cargo's `target/tmp` as `scratch-<pid>-<random>` and is removed when
/// the process exits. A static is never dropped, so the removal is registered with
/// `atexit`; the directories of test processes that were killed before they could
/// exit are swept by a later process (their pids no longer running, the directory
/// untouched for ten minutes).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
        sweep_dead_scratch(parent);
        let dir = tempfile::Builder::new()
            .prefix(&format!("scratch-{}-", std::process::id()))
            .tempdir_in(parent)
            .expect("temp dir")
            .keep();
        REMOVE_AT_EXIT
            .set(dir.clone())
            .expect("one scratch directory");
        extern "C" fn remove_at_exit() {
            if let Some(d) = REMOVE_AT_EXIT.get() {
                let _ = std::fs::remove_dir_all(d);
            }
        }
        // SAFETY: registers a plain function; it only removes a directory.
        unsafe { libc::atexit(remove_at_exit) };
        dir
    })
}

static REMOVE_AT_EXIT: OnceLock<PathBuf> = OnceLock::new();

/// Removes `scratch-<pid>-*` directories whose process is gone (Linux's `/proc`).
fn sweep_dead_scratch(parent: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("scratch-"))
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        // Untouched for ten minutes too: a test process in another pid namespace that
        // shares this target directory is not in our /proc.
        let stale = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() >= 600);
        if stale && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The plain bytes of a gzip fixture, decompressed once per test process.
pub fn gunzipped(rel: &str) -> PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = LOCK.lock().unwrap();
    let out = scratch().join(rel.replace('/', "_").trim_end_matches(".gz"));
    if !out.exists() {
        let f = std::fs::File::open(fixture(rel)).expect("fixture");
        let mut d = flate2::read::MultiGzDecoder::new(f);
        let mut v = Vec::new();
        d.read_to_end(&mut v).expect("gunzip");
        std::fs::write(&out, v).unwrap();
    }
    out
}

/// The fixture `rel` (decompressed once), opened in-process: its path and snapshot.
pub fn open_fixture(rel: &str) -> (PathBuf, heaptui::Session) {
    let p = gunzipped(rel);
    let snap = heaptui::open(&p, &heaptui::sys::progress::Progress::new()).expect("open");
    (p, snap)
}

/// The dominator tree of `snap`.
pub fn dominators_of(snap: &heaptui::Snapshot) -> heaptui::heap::dominators::Dominators {
    heaptui::heap::dominators::compute(&snap.graph, &heaptui::sys::progress::Progress::new())
}

/// Lowers the address-space limit (`RLIMIT_AS`) of the process `c` starts (and of its
/// children) to `bytes`.
pub fn limit_address_space(c: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe; it lowers the child's own limit only.
    unsafe {
        c.pre_exec(move || {
            let l = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &l) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The real binary with a private cache directory, to be run once set up further.
pub fn heaptui_command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_heaptui"));
    c.args(args)
        .env("HEAPTUI_CACHE_DIR", scratch().join("cache"))
        .env_remove("NO_COLOR");
    c
}

/// An address-space limit (bytes) that leaves `room` bytes above a `file_len`-byte dump's
/// map and the binary's own loaded segments (its ELF `PT_LOAD` sizes): tests of running
/// out of memory under `RLIMIT_AS` stay calibrated whatever the binary weighs (with SQL,
/// DataFusion adds about 120 MiB of segments to the debug binary).
pub fn address_space_for(file_len: u64, room: u64) -> u64 {
    file_len + binary_loaded_bytes() + room
}

/// The bytes the real binary's loadable segments take once mapped (0 when it cannot be
/// read as a 64-bit little-endian ELF file).
pub fn binary_loaded_bytes() -> u64 {
    let Ok(b) = std::fs::read(env!("CARGO_BIN_EXE_heaptui")) else {
        return 0;
    };
    let u16_at = |o: usize| {
        b.get(o..o + 2)
            .map_or(0, |x| u16::from_le_bytes([x[0], x[1]]) as usize)
    };
    let u32_at = |o: usize| {
        b.get(o..o + 4)
            .map_or(0, |x| u32::from_le_bytes(x.try_into().unwrap()))
    };
    let u64_at = |o: usize| {
        b.get(o..o + 8)
            .map_or(0, |x| u64::from_le_bytes(x.try_into().unwrap()))
    };
    if b.get(..5) != Some(b"\x7fELF\x02") {
        return 0;
    }
    let (off, size, n) = (u64_at(0x20) as usize, u16_at(0x36), u16_at(0x38));
    (0..n)
        .map(|i| off + i * size)
        .filter(|&h| u32_at(h) == 1)
        .map(|h| u64_at(h + 0x28))
        .sum()
}

/// Runs the real binary with a private cache directory.
pub fn heaptui(args: &[&str]) -> Output {
    heaptui_command(args).output().expect("run heaptui")
}

/// Runs the real binary as if `limit` bytes of memory were left
/// (`HEAPTUI_MEMORY_LIMIT`, not ignored).
pub fn heaptui_with_memory_limit(args: &[&str], limit: &str) -> Output {
    heaptui_command(args)
        .env("HEAPTUI_MEMORY_LIMIT", limit)
        .env_remove("HEAPTUI_IGNORE_MEMORY")
        .output()
        .expect("run heaptui")
}

/// Fails the test, with the run's standard error, unless it exited 0.
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "heaptui failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn json_of(out: &Output) -> serde_json::Value {
    assert_ok(out);
    serde_json::from_slice(&out.stdout).expect("one JSON document on stdout")
}

/// The standard output of a run that must have exited 0.
pub fn stdout_of(out: Output) -> String {
    assert_ok(&out);
    String::from_utf8(out.stdout).expect("UTF-8 on stdout")
}

/// Writes `bytes` to the scratch folder as `name` and runs `summary` on it, which must
/// refuse it (exit 2); returns the standard error.
pub fn summary_refused(name: &str, bytes: &[u8]) -> String {
    let p = scratch().join(name);
    std::fs::write(&p, bytes).unwrap();
    stderr_of(&heaptui(&["summary", p.to_str().unwrap()]), 2)
}

/// The standard error of a run that must have exited with `code`.
pub fn stderr_of(out: &Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{err}");
    err
}

/// The items of the array `v[key]`; fails the test when there is none.
pub fn items<'a>(v: &'a serde_json::Value, key: &str) -> &'a [serde_json::Value] {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("no array {key:?} in {v}"))
}

/// The first item of the array `v[list]` whose `key` is `value`; fails the test when
/// there is none.
pub fn item<'a, T: std::fmt::Debug>(
    v: &'a serde_json::Value,
    list: &str,
    key: &str,
    value: T,
) -> &'a serde_json::Value
where
    serde_json::Value: PartialEq<T>,
{
    items(v, list)
        .iter()
        .find(|x| x[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value:?} in {list}: {v}"))
}

/// The row of a `diff --json --owners` document whose owner's path ends in `end`.
pub fn owner_ending<'a>(d: &'a serde_json::Value, end: &str) -> &'a serde_json::Value {
    items(d, "owners")
        .iter()
        .find(|o| o["owner"].as_str().unwrap().ends_with(end))
        .unwrap_or_else(|| panic!("no owner ending in {end:?}: {}", d["owners"]))
}

/// The rows of a `histogram --json` (or `diff --json`) document by class name, each
/// row as `f` reads it.
pub fn by_class<T>(
    v: &serde_json::Value,
    f: impl Fn(&serde_json::Value) -> T,
) -> std::collections::BTreeMap<String, T> {
    items(v, "classes")
        .iter()
        .map(|c| (c["class"].as_str().expect("a class name").to_string(), f(c)))
        .collect()
}

/// The `count` of a JSON row.
pub fn count(row: &serde_json::Value) -> u64 {
    row["count"].as_u64().expect("a count")
}

/// A fixture's path as an argument (`fixtures/<rel>`).
pub fn fixture_arg(rel: &str) -> String {
    fixture(rel).to_str().unwrap().to_string()
}

/// `heaptui summary FILE --json`.
pub fn summary_json(file: &str) -> serde_json::Value {
    json_of(&heaptui(&["summary", file, "--json"]))
}

/// `heaptui inspect FILE OBJECT --json`: the object's document.
pub fn inspect_json(file: &str, object: &str) -> serde_json::Value {
    json_of(&heaptui(&["inspect", file, object, "--json"]))
}

/// `heaptui path FILE OBJECT --json`: the shortest paths from the GC roots to it.
pub fn path_json(file: &str, object: &str) -> serde_json::Value {
    json_of(&heaptui(&["path", file, object, "--json"]))
}

/// `heaptui CMD FILE --class CLASS --json` (`inspect`, `path`): the document about the
/// first object of the class.
pub fn class_json(cmd: &str, file: &str, class: &str) -> serde_json::Value {
    json_of(&heaptui(&[cmd, file, "--class", class, "--json"]))
}

/// Fails the test unless the first path of `p` (`path --json`) is one step: its object,
/// held by a frame of the thread named `thread` (a Java frame root).
pub fn assert_java_frame_root(p: &serde_json::Value, thread: &str) {
    let first = &p["paths"][0];
    assert_eq!(items(p, "paths")[0].as_array().unwrap().len(), 1, "{p}");
    assert_eq!(first[0]["root"], "Java frame", "{p}");
    assert!(
        first[0]["root_detail"].as_str().unwrap().contains(thread),
        "{p}"
    );
}

/// The first line of the screen `s` that contains `what`; fails the test, showing the
/// screen, when none does.
pub fn line_with<'a>(s: &'a str, what: &str) -> &'a str {
    s.lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what:?}:\n{s}"))
}

/// The class names of a `histogram --json` document, in its order.
pub fn histogram_classes(v: &serde_json::Value) -> Vec<&str> {
    v["classes"]
        .as_array()
        .expect("a \"classes\" array")
        .iter()
        .map(|c| c["class"].as_str().expect("a class name"))
        .collect()
}

/// One line of `jcmd GC.class_histogram`: (class in MAT's form, instances, bytes).
pub fn parse_jcmd_histogram(text: &str) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(num), Some(n), Some(b), Some(name)) =
            (it.next(), it.next(), it.next(), it.next())
        else {
            continue;
        };
        if !num.ends_with(':') {
            continue;
        }
        let (Ok(n), Ok(b)) = (n.parse(), b.parse()) else {
            continue;
        };
        out.push((jcmd_name_to_mat(name), n, b));
    }
    out
}

/// `[Ljava.lang.String;` → `java.lang.String[]`, `[B` → `byte[]`, hidden classes'
/// `/0x…` → `+0x…` (the dump's spelling, which MAT shows).
pub fn jcmd_name_to_mat(name: &str) -> String {
    let dims = name.chars().take_while(|&c| c == '[').count();
    let elem = &name[dims..];
    let mut base = if dims == 0 {
        elem.to_string()
    } else {
        match elem {
            "B" => "byte".into(),
            "C" => "char".into(),
            "D" => "double".into(),
            "F" => "float".into(),
            "I" => "int".into(),
            "J" => "long".into(),
            "S" => "short".into(),
            "Z" => "boolean".into(),
            e => e.trim_start_matches('L').trim_end_matches(';').to_string(),
        }
    };
    if let Some(i) = base.find("/0x") {
        base.replace_range(i..i + 1, "+");
    }
    for _ in 0..dims {
        base.push_str("[]");
    }
    base
}

/// The field called `name` in `inspect --json` output; fails the test when it is missing.
pub fn field<'a>(obj: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    item(obj, "fields", "name", name)
}

/// The class name of [`evil_hprof`]: an OSC 52 clipboard write and a colour change.
#[allow(dead_code)]
pub const EVIL_CLASS: &str = "evil\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[31mRed";

/// A hand-made HPROF whose only class name carries escape sequences ([`EVIL_CLASS`]),
/// written to the scratch folder.
#[allow(dead_code)]
pub fn evil_hprof() -> PathBuf {
    let mut b = b"JAVA PROFILE 1.0.2\0".to_vec();
    b.extend_from_slice(&8u32.to_be_bytes());
    b.extend_from_slice(&[0; 8]);
    let rec = |b: &mut Vec<u8>, tag: u8, body: &[u8]| {
        b.push(tag);
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&(body.len() as u32).to_be_bytes());
        b.extend_from_slice(body);
    };
    let name = EVIL_CLASS;
    let mut utf8 = 0x50u64.to_be_bytes().to_vec();
    utf8.extend_from_slice(name.as_bytes());
    rec(&mut b, 0x01, &utf8);
    let mut load = 1u32.to_be_bytes().to_vec();
    load.extend_from_slice(&0x1000u64.to_be_bytes());
    load.extend_from_slice(&1u32.to_be_bytes());
    load.extend_from_slice(&0x50u64.to_be_bytes());
    rec(&mut b, 0x02, &load);
    let mut seg = vec![0x20];
    seg.extend_from_slice(&0x1000u64.to_be_bytes());
    seg.extend_from_slice(&[0; 4]);
    seg.extend_from_slice(&[0; 48]); // super, loader, signers, domain, reserved x2
    seg.extend_from_slice(&0u32.to_be_bytes());
    seg.extend_from_slice(&[0; 6]); // no constants, statics, fields
    seg.push(0x21);
    seg.extend_from_slice(&0x2000u64.to_be_bytes());
    seg.extend_from_slice(&[0; 4]);
    seg.extend_from_slice(&0x1000u64.to_be_bytes());
    seg.extend_from_slice(&0u32.to_be_bytes());
    seg.push(0x05);
    seg.extend_from_slice(&0x1000u64.to_be_bytes());
    rec(&mut b, 0x1c, &seg);
    rec(&mut b, 0x2c, &[]);
    let p = scratch().join("evil.hprof");
    std::fs::write(&p, &b).unwrap();
    p
}

/// Opens bytes as a Dart heap snapshot, mapped as a file would be (`mem.dartheap`).
pub fn open_bytes(bytes: &[u8]) -> Result<heaptui::Snapshot, heaptui::error::ParseError> {
    let mut m = memmap2::MmapMut::map_anon(bytes.len().max(1)).unwrap();
    m[..bytes.len()].copy_from_slice(bytes);
    let map = m.make_read_only().unwrap();
    let path = std::path::Path::new("mem.dartheap");
    let src = if bytes.is_empty() {
        heaptui::source::Source::from_map(path, None)
    } else {
        heaptui::source::Source::from_map(path, Some(map))
    };
    heaptui::format::dart::open(src, &heaptui::sys::progress::Progress::new())
}

/// Runs the real binary with the index cache on in `cache` for every dump size, and
/// asserts it succeeded.
pub fn run_cached(cache: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_heaptui"))
        .args(args)
        .env("HEAPTUI_CACHE_DIR", cache)
        .env("HEAPTUI_CACHE_MIN_BYTES", "0")
        .env_remove("HEAPTUI_NO_CACHE")
        .output()
        .expect("run heaptui");
    assert!(
        out.status.success(),
        "heaptui {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The Node fixture `node/<name>.heapsnapshot.gz` (baseline, target, final), opened.
pub fn open_node(name: &str) -> heaptui::Session {
    heaptui::open(
        &gunzipped(&format!("node/{name}.heapsnapshot.gz")),
        &heaptui::sys::progress::Progress::new(),
    )
    .unwrap()
}

/// memlab's leak ids of the Node fixtures: the objects new in TARGET against BASELINE.
pub fn node_leak_ids() -> heaptui::leaks::LeakIds {
    heaptui::leaks::LeakIds::of(&open_node("baseline"), &open_node("target")).unwrap()
}

/// A bundled dump of each of the five formats, the leak fixtures where a format has one.
pub const ONE_PER_FORMAT: [&str; 5] = [
    "java/leak/heap-live.hprof.gz",
    "node/baseline.heapsnapshot.gz",
    "go/heap.dump.gz",
    "moarvm/app-v3.mvmheap.gz",
    "dart/before.dartheap.gz",
];
