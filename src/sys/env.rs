//! Every `HEAPTUI_*` environment variable, in one table ([`VARS`]): what it is, what it
//! takes, what it does. [`check`] runs first in every command and the TUI: a value that
//! is not what its variable takes is a usage error (exit 1) naming it, never silently
//! ignored (`HEAPTUI_ON_DISK=yes` used to build in memory as if unset); a `HEAPTUI_*`
//! name the table does not know gets a warning (a misspelt `HEAPTUI_NOCACHE`). The
//! readers across the crate ask [`flag`], [`bytes`] and [`number`], which read the
//! values as [`check`] allowed them. `docs/environment.md` lists the same table (a test
//! compares them).

use crate::error::{Error, Result};

/// What a variable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `1` (on), or `0` or empty (off).
    Flag,
    /// A whole number of bytes.
    Bytes,
    /// A whole number.
    Number,
    /// A path; empty means unset.
    Path,
}

/// One variable: its name, what it takes, and what it does (one line).
pub struct Var {
    pub name: &'static str,
    pub kind: Kind,
    pub doc: &'static str,
}

/// Every variable heaptui reads.
pub const VARS: &[Var] = &[
    Var {
        name: "HEAPTUI_CACHE_DIR",
        kind: Kind::Path,
        doc: "the cache directory (decompressed copies, index entries, kept trees, spill files) instead of the platform's user cache directory",
    },
    Var {
        name: "HEAPTUI_SPILL_DIR",
        kind: Kind::Path,
        doc: "the folder of the spill files of an index built on disk, instead of the cache directory's spill/ (it must be on a disk, not tmpfs)",
    },
    Var {
        name: "HEAPTUI_NO_CACHE",
        kind: Kind::Flag,
        doc: "neither read nor write index cache entries (as --no-cache)",
    },
    Var {
        name: "HEAPTUI_CACHE_MIN_BYTES",
        kind: Kind::Bytes,
        doc: "the smallest dump whose index is written to the cache (default 67108864, 64 MiB)",
    },
    Var {
        name: "HEAPTUI_DISK_RESERVE",
        kind: Kind::Bytes,
        doc: "bytes left free on the cache's disk (default: as many as a write adds, up to 1 GiB)",
    },
    Var {
        name: "HEAPTUI_MEMORY_LIMIT",
        kind: Kind::Bytes,
        doc: "the memory heaptui may use, instead of what the kernel, the memory cgroup and the resource limits allow",
    },
    Var {
        name: "HEAPTUI_QUERY_MEMORY",
        kind: Kind::Bytes,
        doc: "the memory a query's sorts, joins and groupings may hold before they spill to the cache directory's spill/ (default: half of what the memory budget leaves, at least 256 MiB)",
    },
    Var {
        name: "HEAPTUI_IGNORE_MEMORY",
        kind: Kind::Flag,
        doc: "build the index in memory even when the memory check says it will not fit",
    },
    Var {
        name: "HEAPTUI_ON_DISK",
        kind: Kind::Flag,
        doc: "build the index on disk (spill files in the cache directory) whatever the memory budget",
    },
    Var {
        name: "HEAPTUI_NO_RECYCLE",
        kind: Kind::Flag,
        doc: "give freed large blocks back to the kernel at once instead of reusing their pages (for measurements)",
    },
    Var {
        name: "HEAPTUI_NO_HUGEPAGES",
        kind: Kind::Flag,
        doc: "ask for no transparent huge pages for the large blocks (for measurements)",
    },
    Var {
        name: "HEAPTUI_NO_AVX2",
        kind: Kind::Flag,
        doc: "run the loops compiled for AVX2 as the baseline compiles them (for measurements)",
    },
    Var {
        name: "HEAPTUI_TIMING",
        kind: Kind::Flag,
        doc: "print each phase's time and memory to stderr (for profiling; not an interface)",
    },
    Var {
        name: "HEAPTUI_TEST_CACHE_DELAY_MS",
        kind: Kind::Number,
        doc: "tests only: wait this many milliseconds (at most 10,000) before the TUI writes its index cache entry",
    },
];

/// The table's line of `name`.
fn var(name: &str) -> Option<&'static Var> {
    VARS.iter().find(|v| v.name == name)
}

/// Whether `value` is one that `kind` takes.
fn valid(kind: Kind, value: &str) -> bool {
    match kind {
        Kind::Flag => matches!(value, "" | "0" | "1"),
        Kind::Bytes | Kind::Number => value.trim().parse::<u64>().is_ok(),
        Kind::Path => true,
    }
}

/// What `kind` takes, in words, for the usage error.
fn takes(kind: Kind) -> &'static str {
    match kind {
        Kind::Flag => "1 (on) or 0 (off)",
        Kind::Bytes => "a whole number of bytes (e.g. 4294967296)",
        Kind::Number => "a whole number",
        Kind::Path => "a path",
    }
}

/// Checks the `HEAPTUI_*` variables of `vars` (the process's environment, in
/// [`check`]): the usage error for the first whose value its variable does not take,
/// else the warnings for names the table does not know.
pub fn check_vars(
    vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    for (k, v) in vars {
        let Some(name) = k.to_str().filter(|k| k.starts_with("HEAPTUI_")) else {
            continue;
        };
        let Some(var) = var(name) else {
            let nearest = VARS
                .iter()
                .map(|v| (strsim::levenshtein(name, v.name), v.name))
                .min()
                .filter(|&(d, _)| d <= 3);
            warnings.push(match nearest {
                Some((_, meant)) => {
                    format!("{name} is not a variable heaptui reads; did you mean {meant}?")
                }
                None => format!(
                    "{name} is not a variable heaptui reads (docs/environment.md lists them)"
                ),
            });
            continue;
        };
        let value = v.to_string_lossy();
        if !valid(var.kind, &value) {
            return Err(Error::Usage(format!(
                "{name}={value:?} is not {}",
                takes(var.kind)
            )));
        }
    }
    Ok(warnings)
}

/// [`check_vars`] on the process's environment.
pub fn check() -> Result<Vec<String>> {
    check_vars(std::env::vars_os())
}

/// Whether the flag `name` is on (`1`).
pub fn flag(name: &str) -> bool {
    debug_assert!(var(name).is_some_and(|v| v.kind == Kind::Flag), "{name}");
    std::env::var_os(name).is_some_and(|v| v == "1")
}

/// The number of bytes `name` says, if it is set to one.
pub fn bytes(name: &str) -> Option<u64> {
    debug_assert!(var(name).is_some_and(|v| v.kind == Kind::Bytes), "{name}");
    std::env::var(name).ok()?.trim().parse().ok()
}

/// The number `name` says, if it is set to one.
pub fn number(name: &str) -> Option<u64> {
    debug_assert!(var(name).is_some_and(|v| v.kind == Kind::Number), "{name}");
    std::env::var(name).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(
        list: &[(&str, &str)],
    ) -> impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)> {
        list.iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// The malformed values issue 40 found silently ignored are usage errors now, naming
    /// the variable; well-formed ones pass; unknown names only warn.
    #[test]
    fn malformed_values_are_usage_errors() {
        for (k, v) in [
            ("HEAPTUI_ON_DISK", "yes"),
            ("HEAPTUI_DISK_RESERVE", "abc"),
            ("HEAPTUI_CACHE_MIN_BYTES", "1e3"),
            ("HEAPTUI_IGNORE_MEMORY", "true"),
            ("HEAPTUI_MEMORY_LIMIT", "4G"),
            ("HEAPTUI_TEST_CACHE_DELAY_MS", "-5"),
        ] {
            match check_vars(vars(&[("PATH", "/bin"), (k, v)])) {
                Err(e @ Error::Usage(_)) => {
                    let m = e.to_string();
                    assert!(m.contains(k) && m.contains(v), "{m}");
                    assert_eq!(e.exit_code(), 1);
                }
                other => panic!("{k}={v}: {other:?}"),
            }
        }
        let fine = [
            ("HEAPTUI_ON_DISK", "1"),
            ("HEAPTUI_NO_CACHE", "0"),
            ("HEAPTUI_TIMING", ""),
            ("HEAPTUI_CACHE_MIN_BYTES", " 1000 "),
            ("HEAPTUI_CACHE_DIR", "/tmp/x y"),
        ];
        assert_eq!(check_vars(vars(&fine)).unwrap(), Vec::<String>::new());
        let w = check_vars(vars(&[("HEAPTUI_NOCACHE", "1")])).unwrap();
        assert!(
            w.len() == 1 && w[0].contains("HEAPTUI_NOCACHE") && w[0].contains("HEAPTUI_NO_CACHE?"),
            "{w:?}"
        );
    }

    /// docs/environment.md's table lists exactly the table's variables, each with what
    /// it takes.
    #[test]
    fn the_docs_list_every_variable() {
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/environment.md"),
        )
        .unwrap();
        let listed: std::collections::BTreeSet<(&str, &str)> = doc
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.strip_prefix("| `")?.split(" | ").collect();
                Some((cells[0].trim_end_matches('`'), cells[1]))
            })
            .collect();
        let words = |k: Kind| match k {
            Kind::Flag => "a flag",
            Kind::Bytes => "bytes",
            Kind::Number => "a whole number",
            Kind::Path => "a path",
        };
        let table: std::collections::BTreeSet<(&str, &str)> =
            VARS.iter().map(|v| (v.name, words(v.kind))).collect();
        assert_eq!(listed, table);
    }
}
