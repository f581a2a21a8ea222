//! `retained`: what a set of objects retains together (`src/heap/sets.rs`), as plain text
//! and as the JSON document of `docs/cli.md`.

use super::commands::print_json;
use crate::error::{Error, Result};
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::ObjId;
use crate::results::retained::{ClassRow, Retained};
use crate::text::{human, sanitize};

/// Where a command line takes its set from.
pub struct SetArgs<'a> {
    pub objects: &'a [String],
    /// The largest instance of the class by retained size (`--class`, as in every command).
    pub class: Option<&'a str>,
    /// Every instance of the class (`--instances`).
    pub instances: Option<&'a str>,
    pub query: Option<&'a str>,
}

/// The set a command line names: objects by name, the largest instance of a class,
/// every instance of a class, or the objects of a query's rows.
pub fn members(
    snap: &std::sync::Arc<Snapshot>,
    args: &SetArgs<'_>,
    d: &std::sync::Arc<Dominators>,
) -> Result<Vec<ObjId>> {
    let g = &snap.graph;
    if let Some(c) = args.class {
        let o = super::analyses::resolve(snap, None, Some(c), &mut || d.clone())?;
        return Ok(vec![o]);
    }
    if let Some(c) = args.instances {
        let Some(cid) = g.classes.iter().position(|k| k.name == c) else {
            return Err(Error::NotFound(format!(
                "{}: no class named {}",
                snap.source.path.display(),
                sanitize(c)
            )));
        };
        return Ok((0..g.len() as ObjId)
            .filter(|&o| g.class_of.get(o as usize) as usize == cid)
            .collect());
    }
    if let Some(sql) = args.query {
        return of_query(snap, sql);
    }
    if args.objects.is_empty() {
        return Err(Error::Usage(
            "retained needs objects, --class NAME, --instances NAME or --query SQL".into(),
        ));
    }
    args.objects
        .iter()
        .map(|name| {
            snap.find_object(name).ok_or_else(|| {
                Error::NotFound(format!(
                    "{}: no object {} in the snapshot",
                    snap.source.path.display(),
                    sanitize(name)
                ))
            })
        })
        .collect()
}

/// The objects of a query's rows: its column `n` where it has one, else its first
/// column read as object names.
#[cfg(feature = "sql")]
fn of_query(snap: &std::sync::Arc<Snapshot>, sql: &str) -> Result<Vec<ObjId>> {
    let inputs = crate::query::Inputs::one(snap.clone(), None);
    let r = crate::query::run_until(&inputs, sql, &Default::default()).map_err(Error::Usage)?;
    let at = r.columns.iter().position(|c| c == "n");
    Ok(r.rows
        .iter()
        .filter_map(|row| match at {
            Some(i) => row.get(i)?.as_u64().map(|n| n as ObjId),
            None => snap.find_object(row.first()?.as_str()?),
        })
        .filter(|&o| (o as usize) < snap.graph.len())
        .collect())
}

#[cfg(not(feature = "sql"))]
fn of_query(_: &std::sync::Arc<Snapshot>, _: &str) -> Result<Vec<ObjId>> {
    Err(Error::Usage(
        "--query needs a build with SQL (the default feature `sql`)".into(),
    ))
}

/// `pinch`: the pinch points, largest ratio first.
pub fn pinch(snap: &Snapshot, d: &Dominators, top: usize, json: bool) {
    let doc = crate::results::pinch::Pinch::of(snap, d, top);
    if json {
        print_json(&doc);
        return;
    }
    println!(
        "Pinch points: {} objects retain at least {:.0}x their own size and {:.0} % of the {} reachable",
        doc.pinch_points.len(),
        crate::results::pinch::RATIO,
        crate::results::pinch::SHARE * 100.0,
        human(doc.heap_bytes)
    );
    for p in &doc.pinch_points {
        println!();
        println!(
            "{:>12} retained by {} bytes ({:.0}x)  {} {}",
            human(p.retained_bytes),
            p.shallow_bytes,
            p.ratio,
            p.object,
            sanitize(&p.class)
        );
        println!("             holder  {}", sanitize(&p.holder));
    }
}

fn rows(title: &str, rows: &[ClassRow]) {
    println!("{title}");
    for r in rows.iter().take(30) {
        println!(
            "  {:>12}  {:>10}  {}  (e.g. {})",
            human(r.retained_bytes),
            r.count,
            sanitize(&r.class),
            r.example
        );
    }
    if rows.len() > 30 {
        println!("  ... {} more classes", rows.len() - 30);
    }
}

pub fn retained(snap: &Snapshot, d: &Dominators, members: &[ObjId], dominators: bool, json: bool) {
    let doc = Retained::of(snap, d, members, dominators);
    if json {
        print_json(&doc);
        return;
    }
    println!(
        "{} objects retain {} together, in {} objects (each counted once)",
        doc.objects,
        human(doc.retained_bytes),
        doc.retained_objects
    );
    println!();
    rows(
        "What would be freed, by class (bytes, objects):",
        &doc.by_class,
    );
    if let Some(h) = &doc.dominators {
        println!();
        rows(
            "Who holds them: their immediate dominators, by class (retained, objects):",
            h,
        );
    }
}
