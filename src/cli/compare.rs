//! `diff` and `leaks`: two or three snapshots compared (`crate::diff`), as the plain
//! 80-column text and the JSON documents of `docs/cli.md`, with the additions each
//! command's doc names.

use super::commands::print_json;
use crate::diff::DiffSort;
use crate::error::{Error, Result};
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::results::diff::{Diff, Leaks, LeaksByObject, LeaksByOwner};
use crate::text::sanitize;

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
    let doc = Diff::of(
        a,
        b,
        &list,
        ids.as_ref(),
        doms.is_some(),
        owners.is_some().then_some(&owner_rows[..]),
        warning.as_deref(),
    );
    if as_json {
        print_json(&doc);
        return;
    }
    let ids = doc.objects.is_some();
    let owner_rows = doc.owners.as_deref().unwrap_or_default();
    if !owner_rows.is_empty() {
        println!("owners whose retained size grew most (matched by their path from the GC roots):");
        for r in owner_rows {
            let entries = match (r.base_entries, r.target_entries) {
                (Some(x), Some(y)) => format!(" ({:+} entries: {x} → {y})", y as i64 - x as i64),
                _ => String::new(),
            };
            println!(
                "{}",
                sanitize(&format!(
                    "{:>+13} bytes {:>+10} objects  {}{entries}",
                    r.delta_retained_bytes, r.delta_objects, r.owner
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
    for r in &doc.classes {
        let extra = match (r.new_count, r.gone_count) {
            (Some(new), Some(gone)) => format!(" {new:>6} {gone:>6}"),
            _ => String::new(),
        };
        let retained = match r.delta_retained_bytes {
            Some(d) => format!(" {d:>+13}"),
            None => String::new(),
        };
        println!(
            "{}",
            sanitize(&format!(
                "{:>+9} {:>+13}{retained} {:>9} → {:>9}{extra}  {}",
                r.delta_count, r.delta_shallow_bytes, r.base_count, r.target_count, r.class
            ))
        );
    }
    if let Some(o) = &doc.objects {
        // The figures as the JSON document has them.
        let figures = serde_json::to_string(o).unwrap_or_default();
        println!("objects matched by {}: {figures}", o.matched_by);
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
    let doc = LeaksByObject::of(c, &r, top);
    if as_json {
        print_json(&Leaks::ByObject(doc));
        return Ok(());
    }
    let (kind, folded) = (&doc.matched_by, doc.folded_internal);
    println!(
        "{} objects allocated between the baseline and the target are still in the final snapshot (matched by {kind})",
        doc.objects
    );
    if folded > 0 {
        println!(
            "({folded} of them the engine's own, counted in what holds them; --internal lists them)"
        );
    }
    println!("     RETAINED    COUNT  CLASS / RETAINED BY");
    for k in &doc.leaks {
        println!(
            "{:>13} {:>8}  {}",
            k.retained_bytes,
            k.count,
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
    let doc = LeaksByOwner::of(s, d, top);
    if as_json {
        print_json(&Leaks::ByOwner(doc));
        return Ok(());
    }
    println!(
        "owners that grew from the baseline to the target and kept it in the final snapshot \
         (no object ids in these dumps: owners matched by their path from the GC roots)"
    );
    println!("   GREW BYTES  GREW OBJS  OWNER");
    for r in &doc.leaks {
        let entries = r
            .delta_entries
            .map(|e| format!(" ({e:+} entries)"))
            .unwrap_or_default();
        println!(
            "{:>+13} {:>+10}  {}",
            r.retained_bytes,
            r.count,
            sanitize(&format!("{}{entries}", r.owner))
        );
    }
    Ok(())
}
