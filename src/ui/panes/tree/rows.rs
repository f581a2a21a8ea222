//! A tree row's text in parts and its size columns, fitted to the pane's width.

use super::*;

impl TreePane {
    /// A row's text in parts (the indent and marker, the reference, the class, the id,
    /// the label, the root kind), each sanitised, and its size columns: narrow screens
    /// cut the label, the class and the reference in their middle, never the id or the
    /// root kind.
    /// Whether each row holds the row above it (paths to the roots, referrers), rather
    /// than being held by it.
    pub(super) fn upward(&self) -> bool {
        matches!(self.kind, TreeKind::Paths(_) | TreeKind::Referrers(_))
    }

    pub(super) fn row_parts(&self, r: &Row, ctx: &Ctx) -> (Vec<Part>, Option<Sizes>) {
        let snap = ctx.snap;
        let clean = |t: &str| sanitize(t).into_owned();
        // The indent gives way last, before the id and the root kind would.
        let mut parts = vec![Part::shrink("  ".repeat(r.depth.min(30)), 2)];
        let right = match (r.obj, r.group) {
            (None, Some(gr)) => {
                parts.push(Part::keep(if r.expanded { "▾ " } else { "▸ " }));
                parts.push(Part::keep(format!("{} × ", thousands(gr.count))));
                let class = snap
                    .graph
                    .classes
                    .get(gr.class as usize)
                    .map_or("?", |c| c.name.as_str());
                parts.push(Part::shrink(clean(class), 8));
                Some(sizes(gr.shallow, gr.retained, self.total))
            }
            (None, None) => {
                parts.push(Part::shrink(clean(r.text.as_deref().unwrap_or("")), 0));
                None
            }
            (Some(o), _) => {
                let paths = matches!(self.kind, TreeKind::Paths(_));
                parts.push(Part::keep(if r.cycle {
                    "↺ "
                } else if paths {
                    "· "
                } else if r.expanded {
                    "▾ "
                } else {
                    "▸ "
                }));
                if let Some(e) = &r.edge {
                    // One wording in every tree: `field ← X` where X (this row) holds
                    // the row above by `field` (paths, referrers); `field → X` where the
                    // row above holds X by it (dominators, references, merged paths).
                    let arrow = if self.upward() { " ← " } else { " → " };
                    parts.push(Part::shrink(format!("{}{arrow}", clean(e)), 4));
                }
                parts.push(Part::shrink(clean(snap.class_name(o)), 8));
                parts.push(Part::keep(format!(" {}", clean(&snap.object_name(o)))));
                if let Some(l) = snap.label(o) {
                    parts.push(Part::shrink(format!(" {}", clean(&l)), 0));
                }
                if paths {
                    if let Some(t) = &r.text {
                        parts.push(Part::keep(format!("  [{}]", clean(t))));
                    }
                }
                Some(sizes(
                    snap.graph.shallow_size(o),
                    ctx.dom.and_then(|d| d.retained(o)),
                    self.total,
                ))
            }
        };
        (parts, right)
    }
}

/// A row's size columns: shallow, retained and its share of the heap (`total`), each
/// right-aligned in its own cells.
pub(super) fn sizes(shallow: u64, retained: Option<u64>, total: u64) -> Sizes {
    Sizes {
        shallow: human(shallow),
        retained: retained.map_or_else(|| "-".to_string(), human),
        share: retained
            .filter(|_| total > 0)
            .map(|r| format!("{:.1}%", r as f64 * 100.0 / total as f64)),
    }
}

/// A row's size columns, as [`sizes`] has them.
pub(super) struct Sizes {
    shallow: String,
    retained: String,
    share: Option<String>,
}

impl Sizes {
    /// The columns that a row `w` wide has room for beside the names and the id: all
    /// three from 64 columns, then the retained size and the share, then the retained
    /// size alone (the line under the list has them all); and how wide they are, so
    /// that every row's columns line up.
    pub(super) fn shown(&self, w: usize) -> (String, usize) {
        let share = |s: &Option<String>| s.as_deref().map(|p| format!(" {p:>6}"));
        match w {
            64.. => (
                format!(
                    "{:>9} {:>9}{}",
                    self.shallow,
                    self.retained,
                    share(&self.share).unwrap_or_default()
                ),
                26,
            ),
            48.. => (
                format!(
                    "{:>9}{}",
                    self.retained,
                    share(&self.share).unwrap_or_default()
                ),
                16,
            ),
            _ => (format!("{:>9}", self.retained), 9),
        }
    }
}
