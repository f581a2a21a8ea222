//! `diff` and `leaks`: two or three snapshots compared (`crate::diff`), as the plain
//! 80-column text and the JSON documents of `../shared/CLI.md`, with the additions each
//! command's doc names.

use serde_json::{json, Value as Json};

use super::findings::path_json;
use crate::diff::DiffSort;
use crate::error::{Error, Result};
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::text::{json_line, sanitize};

/// `diff`: per class, counts and bytes in BASE and TARGET and their deltas, largest
/// growth first by the chosen delta; where the format's ids survive between snapshots
/// (V8 node ids), how many objects are new and gone, overall and per class (`new_count`,
/// `gone_count`, `new_retained_bytes`: additions to the contract); with `--owners N`,
/// the owners that grew most (`crate::diff::owner_deltas`).
pub fn diff(
    a: &Snapshot,
    b: &Snapshot,
    doms: Option<&(Dominators, Dominators)>,
    as_json: bool,
    top: Option<usize>,
    sort: DiffSort,
    owners: Option<usize>,
) {
    let owner_rows = match (owners, doms) {
        (Some(n), Some((da, db))) => crate::diff::owner_deltas(a, da, b, db, n),
        _ => Vec::new(),
    };
    let (ids, warning) = crate::diff::identity_checked(a, b);
    if let Some(w) = &warning {
        eprintln!("heaptui: warning: {}", sanitize(w));
    }
    let mut list = crate::diff::class_deltas(a, b, doms.map(|d| (&d.0, &d.1)), ids.as_ref());
    crate::diff::sort_deltas(&mut list, sort);
    if let Some(n) = top {
        list.truncate(n);
    }
    let objects = match &ids {
        Some(i) => json!({"matched_by": i.kind, "new": i.new, "gone": i.gone, "kept": i.kept}),
        None => Json::Null,
    };
    let ids = ids.is_some();
    if as_json {
        let classes: Vec<Json> = list
            .iter()
            .map(|r| {
                let mut v = json!({
                    "class": r.class,
                    "base_count": r.base_count, "target_count": r.target_count,
                    "delta_count": r.delta_count(),
                    "base_shallow_bytes": r.base_shallow, "target_shallow_bytes": r.target_shallow,
                    "delta_shallow_bytes": r.delta_shallow(),
                });
                if doms.is_some() {
                    v["base_retained_bytes"] = json!(r.base_retained);
                    v["target_retained_bytes"] = json!(r.target_retained);
                    v["delta_retained_bytes"] = json!(r.delta_retained());
                }
                if ids {
                    v["new_count"] = json!(r.new);
                    v["gone_count"] = json!(r.gone);
                    if doms.is_some() {
                        v["new_retained_bytes"] = json!(r.new_retained);
                    }
                }
                v
            })
            .collect();
        let mut doc = json!({"base": a.source.path.display().to_string(), "target": b.source.path.display().to_string(),
                   "classes": classes, "objects": objects,
                   "warnings": warning.iter().collect::<Vec<_>>()});
        if owners.is_some() {
            doc["owners"] = Json::Array(
                owner_rows
                    .iter()
                    .map(|r| {
                        json!({"owner": r.owner,
                               "base_retained_bytes": r.base.retained, "target_retained_bytes": r.target.retained,
                               "delta_retained_bytes": r.delta_retained(),
                               "base_objects": r.base.objects, "target_objects": r.target.objects,
                               "delta_objects": r.delta_objects(),
                               "base_entries": r.base_entries, "target_entries": r.target_entries,
                               "delta_entries": r.delta_entries()})
                    })
                    .collect(),
            );
        }
        println!("{}", json_line(&doc));
        return;
    }
    if !owner_rows.is_empty() {
        println!("owners whose retained size grew most (matched by their path from the GC roots):");
        for r in &owner_rows {
            let entries = match (r.base_entries, r.target_entries) {
                (Some(x), Some(y)) => format!(" ({:+} entries: {x} → {y})", y as i64 - x as i64),
                _ => String::new(),
            };
            println!(
                "{}",
                sanitize(&format!(
                    "{:>+13} bytes {:>+10} objects  {}{entries}",
                    r.delta_retained(),
                    r.delta_objects(),
                    r.owner
                ))
            );
        }
        println!();
    }
    println!(
        "  Δ COUNT     Δ SHALLOW{}      BASE →    TARGET{}  CLASS",
        if doms.is_some() {
            "    Δ RETAINED"
        } else {
            ""
        },
        if ids { "    NEW   GONE" } else { "" }
    );
    for r in &list {
        let extra = if ids {
            format!(" {:>6} {:>6}", r.new, r.gone)
        } else {
            String::new()
        };
        let retained = if doms.is_some() {
            format!(" {:>+13}", r.delta_retained())
        } else {
            String::new()
        };
        println!(
            "{}",
            sanitize(&format!(
                "{:>+9} {:>+13}{retained} {:>9} → {:>9}{extra}  {}",
                r.delta_count(),
                r.delta_shallow(),
                r.base_count,
                r.target_count,
                r.class
            ))
        );
    }
    if ids {
        println!(
            "objects matched by {}: {}",
            objects["matched_by"].as_str().unwrap_or(""),
            objects
        );
    }
}

/// `leaks`: the memlab method ([`crate::leaks`]), printed. Needs ids that survive
/// between snapshots (V8 node ids); other formats go through [`owner_leaks`].
pub fn leaks(
    a: &Snapshot,
    b: &Snapshot,
    c: &Snapshot,
    d: &Dominators,
    as_json: bool,
    top: usize,
    internal: bool,
) -> Result<()> {
    let Some(ids) = crate::leaks::LeakIds::of(a, b) else {
        return Err(Error::Usage(
            "leaks by object needs ids that survive between snapshots (V8 node ids)".into(),
        ));
    };
    let Some(r) = crate::leaks::find(&ids, c, d, internal) else {
        return Err(Error::Usage(
            "leaks by object needs ids that survive between snapshots (V8 node ids)".into(),
        ));
    };
    let (kind, folded) = (&r.kind, r.folded);
    let leaked_len = r.objects - r.folded;
    if as_json {
        let list: Vec<Json> = r
            .clusters
            .iter()
            .take(top)
            .map(|k| {
                let path = k.path.as_ref().map(|p| path_json(c, p)).unwrap_or_default();
                json!({"class": k.class, "count": k.objects.len(), "retained_bytes": k.retained,
                       "example": c.object_name(k.objects[0]), "path": path})
            })
            .collect();
        println!(
            "{}",
            json_line(&json!({"leaks": list, "matched_by": kind,
                              "objects": leaked_len + folded, "folded_internal": folded}))
        );
        return Ok(());
    }
    println!(
        "{} objects allocated between the baseline and the target are still in the final snapshot (matched by {kind})",
        leaked_len + folded
    );
    if folded > 0 {
        println!(
            "({folded} of them the engine's own, counted in what holds them; --internal lists them)"
        );
    }
    println!("     RETAINED    COUNT  CLASS / RETAINED BY");
    for k in r.clusters.iter().take(top) {
        println!(
            "{:>13} {:>8}  {}",
            k.retained,
            k.objects.len(),
            sanitize(&k.class)
        );
        if !k.shape.is_empty() {
            println!("{:>24}{}", "", sanitize(&k.shape.join(" → ")));
        }
    }
    Ok(())
}

/// `leaks` for formats whose ids do not survive between snapshots (HPROF and Go
/// addresses move): the owners — dominator-tree nodes matched by their path from the GC
/// roots ([`crate::diff::owner_deltas`]) — whose retained size grew from BASELINE to
/// TARGET and did not shrink back in FINAL (FINAL keeps at least 90% of the growth).
/// Each is reported in the contract's shape: its class, the objects it gained
/// (`count`), the bytes it gained (`retained_bytes`), an example node in FINAL and its
/// path there; plus the owner's name and its three retained sizes.
pub fn owner_leaks(
    s: [&Snapshot; 3],
    d: [&Dominators; 3],
    as_json: bool,
    top: usize,
) -> Result<()> {
    let [a, b, c] = s;
    let grown = crate::diff::owner_deltas(a, d[0], b, d[1], 200);
    let fin = crate::diff::owner_map(c, d[2]);
    let rows: Vec<(&crate::diff::OwnerDelta, crate::diff::OwnerFigures)> = grown
        .iter()
        .filter_map(|r| {
            let f = fin.get(&r.owner)?.clone();
            let growth = r.delta_retained() as u64;
            (f.retained + growth / 10 >= r.target.retained).then_some((r, f))
        })
        .take(top)
        .collect();
    if as_json {
        let list: Vec<Json> = rows
            .iter()
            .map(|(r, f)| {
                let example = f.nodes.first().copied();
                let path: Vec<Json> = example
                    .and_then(|o| {
                        crate::heap::paths::to_roots(&c.graph, o, 1, false)
                            .into_iter()
                            .next()
                    })
                    .map(|p| path_json(c, &p))
                    .unwrap_or_default();
                json!({
                    "class": f.class,
                    "count": r.delta_objects(),
                    "retained_bytes": r.delta_retained(),
                    "example": example.map(|o| c.object_name(o)),
                    "path": path,
                    "owner": r.owner,
                    "baseline_retained_bytes": r.base.retained,
                    "target_retained_bytes": r.target.retained,
                    "final_retained_bytes": f.retained,
                    "delta_entries": r.delta_entries(),
                })
            })
            .collect();
        println!(
            "{}",
            json_line(&json!({"leaks": list, "matched_by": "owner path from the GC roots"}))
        );
        return Ok(());
    }
    println!(
        "owners that grew from the baseline to the target and kept it in the final snapshot \
         (no object ids in these dumps: owners matched by their path from the GC roots)"
    );
    println!("   GREW BYTES  GREW OBJS  OWNER");
    for (r, _) in &rows {
        let entries = r
            .delta_entries()
            .map(|e| format!(" ({e:+} entries)"))
            .unwrap_or_default();
        println!(
            "{:>+13} {:>+10}  {}",
            r.delta_retained(),
            r.delta_objects(),
            sanitize(&format!("{}{entries}", r.owner))
        );
    }
    Ok(())
}
