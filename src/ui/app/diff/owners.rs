//! The diff view's owners that grew, as a list: `Tab` gives them the keys, `Enter`
//! opens the selected owner's object on both sides, `p` its paths from the GC roots, `d`
//! its subtree (each side on its own snapshot's object at that path); and the clicks
//! that select a row of the table, of the owners or of a side.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::{signed_count, DiffView, MessagePane, Side};
use crate::diff::OwnerDelta;
use crate::heap::ObjId;
use crate::ui::keys::Action;
use crate::ui::panes::histogram::thousands;
use crate::ui::panes::{human, Request};
use crate::ui::text::{fit_parts, sanitize, Part};
use crate::ui::theme::Theme;

impl DiffView {
    /// A click at the screen cell (`x`, `y`): selects the row under it in the class table
    /// or the owners (which then get the keys), or on a side (which then gets them).
    /// Whether a row was there.
    pub fn click(&mut self, x: u16, y: u16, theme: &Theme) -> bool {
        // The query line keeps the keys (a double click's `Enter` would run it).
        if self.query_line_open().is_some() {
            return false;
        }
        match self.sides {
            Some(focus) => {
                for side in [Side::Base, Side::Target] {
                    // A side alone: the other is not on screen.
                    if self.alone && side != focus {
                        continue;
                    }
                    // Only the focused side's detail is on screen (the third column).
                    if self.side_mut(side).click(x, y, theme, side == focus) {
                        self.sides = Some(side);
                        return true;
                    }
                }
                false
            }
            None => {
                if self.list.click(x, y, self.rows.len()) {
                    self.focus_owners = false;
                    true
                } else if self.owners_list.click(x, y, self.owners.len()) {
                    self.focus_owners = true;
                    true
                } else {
                    false
                }
            }
        }
    }

    pub(super) fn selected_owner(&self) -> Option<&OwnerDelta> {
        self.owners.get(self.owners_list.selected)
    }

    /// Opens the two sides on the selected owner: on each, the object at the owner's
    /// path (the largest where the path names several), in the pane `open` asks for
    /// (the inspector, the paths, the dominator tree below it). A side where nothing is
    /// at that path says so. Returns what the status line says, if anything.
    fn open_owner(&mut self, open: fn(ObjId) -> Request, theme: &Theme) -> Option<String> {
        let owner = self.selected_owner()?.clone();
        let mut several = Vec::new();
        let mut picks = [None, None];
        for (k, side) in [Side::Base, Side::Target].into_iter().enumerate() {
            let figures = match side {
                Side::Base => &owner.base,
                Side::Target => &owner.target,
            };
            let r = self.side(side);
            picks[k] = figures.nodes.iter().copied().max_by_key(|&o| {
                (
                    r.dom.as_ref().and_then(|d| d.retained(o)).unwrap_or(0),
                    std::cmp::Reverse(o),
                )
            });
            if figures.nodes.len() > 1 {
                several.push(format!(
                    "{} {}",
                    thousands(figures.nodes.len() as u64),
                    match side {
                        Side::Base => "in the base",
                        Side::Target => "in the target",
                    }
                ));
            }
        }
        // A side whose owners do not list it (too small there to be one: the array a
        // leak fills, still empty in the base): the object at the same path, if any.
        let (a, b) = (&self.base.snap, &self.target.snap);
        match picks {
            [None, Some(t)] => picks[0] = crate::diff::same_path(b, t, a),
            [Some(o), None] => picks[1] = crate::diff::same_path(a, o, b),
            _ => {}
        }
        for (k, side) in [Side::Base, Side::Target].into_iter().enumerate() {
            let r = self.side_mut(side);
            r.stack.clear();
            r.forward.clear();
            match picks[k] {
                Some(o) => r.open(open(o), theme),
                None => r.stack.push(Box::new(MessagePane(format!(
                    "Nothing at this path in this snapshot: {}",
                    owner.owner
                )))),
            }
            if r.stack.is_empty() {
                r.stack.push(Box::new(MessagePane(String::new())));
            }
        }
        self.sides = Some(Side::Target);
        (!several.is_empty()).then(|| {
            format!(
                "this owner's path names several objects ({}): the largest is shown",
                several.join(", ")
            )
        })
    }

    /// The owner's line under the list: its whole path and every figure, exact.
    fn owner_line(&self) -> Option<String> {
        let o = self.selected_owner()?;
        let bytes = |v: i64| match v.signum() {
            1 => format!("+{} B", thousands(v as u64)),
            -1 => format!("-{} B", thousands(v.unsigned_abs())),
            _ => "0 B".into(),
        };
        let entries = o
            .delta_entries()
            .map(|d| format!(" ({d:+} entries)"))
            .unwrap_or_default();
        Some(format!(
            "{}{entries} · retained {} → {} ({}) · objects {} → {} ({})",
            o.owner,
            thousands(o.base.retained),
            thousands(o.target.retained),
            bytes(o.delta_retained()),
            thousands(o.base.objects),
            thousands(o.target.objects),
            signed_count(o.delta_objects()),
        ))
    }

    /// The line under the list: the focused list's selected row whole.
    pub(super) fn line_under(&self) -> Option<String> {
        if self.focus_owners {
            self.owner_line()
        } else {
            self.table_line()
        }
    }

    /// The owners' keys, where they are the owners' (`Tab`, and with the owners
    /// focused: movement, `Enter`, `p`, `d`, `Esc`): whether the key was used; `None`
    /// for the table's keys.
    pub(super) fn owners_key(
        &mut self,
        a: Action,
        theme: &Theme,
        message: &mut Option<String>,
    ) -> Option<bool> {
        // Tab: the keys to the owners that grew, and back to the classes.
        if a == Action::Side {
            if self.owners.is_empty() {
                *message = Some(if self.dominators_ready() {
                    "`Tab` does nothing here: no owner grew".into()
                } else {
                    "`Tab` does nothing yet: the owners that grew come with the dominator trees"
                        .into()
                });
            } else {
                self.focus_owners = !self.focus_owners;
            }
            return Some(true);
        }
        if self.focus_owners {
            if self.owners_list.apply(a, self.owners.len()) {
                return Some(true);
            }
            let open: Option<fn(ObjId) -> Request> = match a {
                Action::Open => Some(Request::Inspect),
                Action::Paths => Some(Request::Paths),
                Action::DominatorTree => Some(|o| Request::Dominators(Some(o))),
                Action::Back => {
                    self.focus_owners = false;
                    return Some(true);
                }
                _ => None,
            };
            if let Some(open) = open {
                *message = self.open_owner(open, theme);
                return Some(true);
            }
        }
        None
    }

    /// The owners under the table, the selected one marked when they have the keys, and
    /// `▶` at the left end of the title of the list that has them.
    pub(super) fn draw_owners(
        &self,
        f: &mut Frame,
        owners_area: Rect,
        table_area: Rect,
        theme: &Theme,
    ) {
        let block = Block::default()
            .borders(Borders::TOP)
            .title(" Owners that grew most (matched by their path from the GC roots) ");
        let rows_area = block.inner(owners_area);
        f.render_widget(block, owners_area);
        let range = self.owners_list.visible_in(rows_area, self.owners.len());
        let lines: Vec<Line> = range
            .map(|i| {
                let o = &self.owners[i];
                let entries = match (o.base_entries, o.target_entries) {
                    (Some(x), Some(y)) => format!(" ({:+} entries)", y as i64 - x as i64),
                    _ => String::new(),
                };
                let w = (owners_area.width as usize).saturating_sub(29 + entries.chars().count());
                Line::styled(
                    format!(
                        "{:>11} {:>9} obj  {}{entries}",
                        signed_bytes(o.delta_retained()),
                        signed_count(o.delta_objects()),
                        fit_parts(owner_parts(&sanitize(&o.owner)), w.max(10))
                    ),
                    theme.row(self.focus_owners && i == self.owners_list.selected),
                )
            })
            .collect();
        f.render_widget(Paragraph::new(lines), rows_area);
        // The list with the keys is marked at its title's left end, as the panes
        // beside each other are.
        let at = if self.focus_owners {
            owners_area
        } else {
            table_area
        };
        f.render_widget(
            Paragraph::new("▶").style(theme.selected()),
            Rect::new(at.x, at.y, 1, 1),
        );
    }
}

/// A change in bytes, in human units: `+1.0 MiB`, `-3.1 KiB`, `0`.
fn signed_bytes(v: i64) -> String {
    match v.signum() {
        1 => format!("+{}", human(v as u64)),
        -1 => format!("-{}", human(v.unsigned_abs())),
        _ => "0".into(),
    }
}

/// An owner's name in parts for [`fit_parts`]: a leading root kind (`[held by several
/// roots]`, `[GC root: …]`) kept whole, the path after it cut in its middle (its root
/// end and the owner's class both tell).
fn owner_parts(owner: &str) -> Vec<Part> {
    let mut parts = Vec::with_capacity(2);
    let mut rest = owner;
    if owner.starts_with('[') {
        if let Some(end) = owner.find("] ") {
            parts.push(Part::keep(&owner[..end + 2]));
            rest = &owner[end + 2..];
        }
    }
    parts.push(Part::shrink(rest, 8));
    parts
}
