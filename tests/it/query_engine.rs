//! Issue 41: what the tables are made of and what the engine may hold. The ids the
//! tables print are the names every other command prints, in every format; a query whose
//! operators need more than their memory pool spills to disk or ends with the engine's
//! "Resources exhausted" error (exit 1), never a kill.

use std::sync::Arc;

use crate::common::gunzipped;

const DUMPS: [&str; 5] = crate::common::ONE_PER_FORMAT;

#[test]
fn the_ids_of_every_table_are_the_names_the_commands_print() {
    for rel in DUMPS {
        let path = gunzipped(rel);
        let s = heaptui::open(&path, &heaptui::sys::progress::Progress::new()).unwrap();
        let snap = s.snapshot().clone();
        let inputs = heaptui::query::Inputs::one(snap.clone(), None);
        let q = |sql: &str| heaptui::query::run_until(&inputs, sql, &Arc::default()).unwrap();
        let objects = q("SELECT id, id_num, n FROM objects");
        assert_eq!(objects.rows.len(), snap.graph.len(), "{rel}");
        for (i, r) in objects.rows.iter().enumerate() {
            let o = r[2].as_u64().unwrap() as u32;
            let name = snap.object_name(o);
            assert_eq!(r[0].as_str(), Some(name.as_str()), "{rel}: object {o}");
            assert_eq!(
                r[1].as_u64(),
                heaptui::query::id_number(&name),
                "{rel}: {name}"
            );
            if i % 97 == 0 {
                assert_eq!(snap.find_object(&name), Some(o), "{rel}: {name}");
            }
        }
        let refs = q("SELECT src, dst, src_n, dst_n FROM refs ORDER BY src_n, dst_n LIMIT 20000");
        assert!(!refs.rows.is_empty(), "{rel}");
        for r in &refs.rows {
            for (id, n) in [(0, 2), (1, 3)] {
                let o = r[n].as_u64().unwrap() as u32;
                assert_eq!(r[id].as_str(), Some(snap.object_name(o).as_str()), "{rel}");
            }
        }
    }
}

/// `heaptui query FILE SQL --csv` with the engine's pool at `pool` bytes and a cache
/// directory of its own: the exit status, stdout and stderr. One thread
/// (`RAYON_NUM_THREADS=1`: one partition), so that what the operators reserve, and so
/// whether they spill, does not depend on how the threads interleave on a busy machine.
fn query_in(cache: &std::path::Path, pool: u64, file: &str, sql: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_heaptui"))
        .args(["query", file, sql, "--csv"])
        .env("HEAPTUI_CACHE_DIR", cache)
        .env("HEAPTUI_QUERY_MEMORY", pool.to_string())
        .env("RAYON_NUM_THREADS", "1")
        .env_remove("HEAPTUI_NO_CACHE")
        .output()
        .unwrap()
}

#[test]
fn a_query_past_its_memory_pool_spills_and_answers_the_same_or_ends_with_exit_1() {
    let path = gunzipped("java/leak/heap-live.hprof.gz");
    let file = path.to_str().unwrap();
    let cache = tempfile::tempdir().unwrap();
    // A sort of four copies of every object (about 20 MB of keys) that only every
    // 50,000th row of leaves.
    let sql = "SELECT k, n, r FROM (SELECT k, n, row_number() OVER (ORDER BY k DESC, n) AS r \
               FROM (SELECT a.id || ':' || a.class AS k, b.n FROM objects a, \
               (SELECT n FROM objects WHERE n < 4) b)) WHERE r % 50000 = 1 ORDER BY r";
    let roomy = query_in(cache.path(), 4 << 30, file, sql);
    assert!(
        roomy.status.success(),
        "{}",
        String::from_utf8_lossy(&roomy.stderr)
    );
    let rows = String::from_utf8(roomy.stdout.clone()).unwrap();
    assert!(rows.lines().count() > 5, "{rows}");
    // In 16 MB the sort spills to the cache directory's spill/, and answers the same.
    let tight = query_in(cache.path(), 16 << 20, file, sql);
    assert!(
        tight.status.success(),
        "{}",
        String::from_utf8_lossy(&tight.stderr)
    );
    assert_eq!(tight.stdout, roomy.stdout);
    let plan = query_in(
        cache.path(),
        16 << 20,
        file,
        &format!("EXPLAIN ANALYZE {sql}"),
    );
    let plan = String::from_utf8_lossy(&plan.stdout).into_owned();
    let spills: u64 = plan
        .split("spill_count=")
        .skip(1)
        .filter_map(|s| {
            s.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum();
    assert!(spills > 0, "no spill in 16 MB: {plan}");
    // In 1 MB not even a batch fits: the engine's error, exit 1, never a kill.
    let starved = query_in(cache.path(), 1 << 20, file, sql);
    assert_eq!(starved.status.code(), Some(1));
    let err = String::from_utf8_lossy(&starved.stderr);
    assert!(err.contains("Resources exhausted"), "{err}");
    // Each query's spill folder is gone with it.
    let left: Vec<_> = std::fs::read_dir(cache.path().join("spill"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}
