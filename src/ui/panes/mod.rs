//! One file per pane. A pane owns its state, changes it only in `handle`, and draws
//! without changing it (gitui's component split); the app keeps them on a navigation
//! stack and opens new ones from the [`Request`]s they return.

pub use crate::text::human;

pub mod histogram;
pub mod inspector;
pub mod instances;
pub mod job;
pub mod leaks;
pub mod list;
pub mod merged;
pub mod query;
pub mod snapshots;
pub mod suspects;
pub mod threads;
pub mod tree;

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::Frame;

use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::{ClassId, ObjId};
use crate::ui::keys::Action;
use crate::ui::theme::Theme;

/// What every pane may look at while handling a key or drawing.
pub struct Ctx<'a> {
    pub snap: &'a Snapshot,
    /// The dominator tree, once the background thread has built it.
    pub dom: Option<&'a Dominators>,
    pub theme: &'a Theme,
    /// The same snapshot and tree, shared, for work a pane hands to a thread of its own
    /// ([`crate::ui::panes::job`]); without them, that work runs at once.
    pub shared: Option<Shared<'a>>,
}

/// What a job's thread keeps of the snapshot, and the app's count of jobs.
#[derive(Clone, Copy)]
pub struct Shared<'a> {
    pub snap: &'a std::sync::Arc<Snapshot>,
    pub dom: Option<&'a std::sync::Arc<Dominators>>,
    pub jobs: &'a crate::ui::panes::job::Jobs,
}

/// A pane the user asked to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Instances(ClassId),
    Inspect(ObjId),
    Paths(ObjId),
    Referrers(ObjId),
    Outgoing(ObjId),
    /// The dominator tree below an object, or from the top.
    Dominators(Option<ObjId>),
    Threads,
    /// The file's snapshots (several in a MoarVM file).
    Snapshots,
    /// Open snapshot N of the file instead of this one.
    Snapshot(usize),
    /// The leak suspects (`false`) or the waste findings (`true`).
    Suspects(bool),
    /// The shortest paths of a class's instances from the GC roots, merged.
    MergedPaths(ClassId),
    /// The three-snapshot view's leak clusters.
    Leaks,
    /// The objects of leak cluster N, of the clusters with the runtime's internal nodes
    /// shown (`true`) or folded.
    LeakCluster(usize, bool),
}

/// What a pane did with a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The key was used.
    Consumed,
    /// Not this pane's key: let the app handle it.
    Ignored,
    /// Open another pane on top of this one.
    Open(Request),
    /// The pane's key, but there is nothing for it to do here: the status line says why
    /// (no key goes silently unanswered).
    Refused(String),
    /// The key was used, and the status line says what it did.
    Done(String),
}

impl Outcome {
    /// `Enter` on a row that opens nothing.
    pub fn nothing_to_open() -> Self {
        Outcome::Refused("`Enter` does nothing here: this row opens nothing".into())
    }

    /// `Enter` on a row of objects: the inspector of the row's object, if it is one.
    pub fn inspect(o: Option<ObjId>) -> Self {
        match o {
            Some(o) => Outcome::Open(Request::Inspect(o)),
            None => Outcome::nothing_to_open(),
        }
    }

    /// A key for a list of `len` rows: the action left to the pane once the list has
    /// taken the movements, or what the pane answers (`Consumed` for a movement,
    /// `Ignored` for a key that is no action).
    pub fn list_key(
        list: &mut list::ListState,
        action: Option<Action>,
        len: usize,
    ) -> std::result::Result<Action, Outcome> {
        match action {
            None => Err(Outcome::Ignored),
            Some(a) if list.apply(a, len) => Err(Outcome::Consumed),
            Some(a) => Ok(a),
        }
    }
}

/// The keys worth a hint in a list of objects (every pane's, unless it says otherwise).
pub const OBJECT_HINTS: [Action; 8] = [
    Action::Down,
    Action::Open,
    Action::Back,
    Action::Paths,
    Action::Referrers,
    Action::DominatorTree,
    Action::Help,
    Action::Quit,
];

/// [`OBJECT_HINTS`] with one key of the pane's own before `?` and `q`.
pub const fn object_hints_and(extra: Action) -> [Action; 9] {
    let mut out = [extra; 9];
    let mut i = 0;
    while i < 6 {
        out[i] = OBJECT_HINTS[i];
        i += 1;
    }
    out[7] = OBJECT_HINTS[6];
    out[8] = OBJECT_HINTS[7];
    out
}

pub trait Pane {
    /// The title drawn on the pane's border and in the breadcrumb.
    fn title(&self, ctx: &Ctx) -> String;
    fn handle(&mut self, key: &KeyEvent, ctx: &Ctx) -> Outcome;
    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx);
    /// The object on the selected row, if the row is one (for `p`, `r`, `o`, `d`).
    fn selected_object(&self) -> Option<ObjId> {
        None
    }
    /// A few words on the selected row, for the status line: by default the selected
    /// object's name.
    fn selected_text(&self, ctx: &Ctx) -> Option<String> {
        self.selected_object().map(|o| ctx.snap.object_name(o))
    }
    /// The selected row whole, for the line under the list (names in a list are cut
    /// to fit; this line is not): by default the selected object's.
    fn selected_line(&self, ctx: &Ctx) -> Option<String> {
        self.selected_object().map(|o| object_line(ctx, o))
    }
    /// A click at the screen cell (`x`, `y`): the row drawn there is selected, if the
    /// pane drew one there. Whether it was (a double click then opens it, as `Enter`).
    fn click(&mut self, _x: u16, _y: u16, _ctx: &Ctx) -> bool {
        false
    }
    /// Whether the pane takes every key (a filter prompt is open).
    fn is_editing(&self) -> bool {
        false
    }
    /// The hint line while editing.
    fn editing_hint(&self) -> Option<String> {
        None
    }
    /// The class of the selected row, or of the list (for `P`).
    fn selected_class(&self) -> Option<ClassId> {
        None
    }
    /// Whether this is a list whose selected object's inspector is drawn beside it on a
    /// wide screen (instances, suspects); trees and the inspector itself fill the screen.
    fn wants_detail(&self) -> bool {
        false
    }
    /// Whether this is a list of classes whose selected class's merged paths from the
    /// GC roots are drawn beside it on a wide screen (the class histogram).
    fn wants_class_detail(&self) -> bool {
        false
    }
    /// Whether this is a picker (the snapshots of a file), which `q` closes as `Esc`
    /// does, as it closes the overlays: `q` quits only outside them.
    fn is_picker(&self) -> bool {
        false
    }
    /// Whether this is the leak suspects pane (`!` goes back to it).
    fn is_suspects(&self) -> bool {
        false
    }
    /// The dominator tree became ready (retained sizes can be shown).
    fn dominators_ready(&mut self, _ctx: &Ctx) {}
    /// Whether a key asked for work long enough to be announced first (filtering
    /// millions of instances): the run loop draws a frame that says so (the title), then
    /// calls [`Pane::work`] and draws again.
    fn has_work(&self) -> bool {
        false
    }
    /// Does the work [`Pane::has_work`] announced, or starts it on a thread of its own
    /// ([`crate::ui::panes::job`]).
    fn work(&mut self, _ctx: &Ctx) {}
    /// Whether the pane wants drawing again while nothing else happens (a running query
    /// counts its seconds): the run loop's ticker runs meanwhile.
    fn ticking(&self) -> bool {
        false
    }
    /// Takes the result of work running on a thread of its own, if it has come: whether
    /// the pane changed.
    fn poll(&mut self, _ctx: &Ctx) -> bool {
        false
    }
    /// Objects of the list that `P` merges the paths of, where they are not all the
    /// class's instances (a filtered list, a diff's new ones, a leak cluster's): marked
    /// by id, with the words that say which.
    fn merge_only(&self, _ctx: &Ctx) -> Option<(std::sync::Arc<Vec<bool>>, String)> {
        None
    }
    /// The keys worth a hint in this pane.
    fn hints(&self) -> &'static [Action] {
        &OBJECT_HINTS
    }
}

/// `Enter` in a list's filter whose text is an object id: the object's inspector, or
/// why not; `None` when the text is no id (the filter then works as before). A pane
/// calls it before its own handling of the filter's `Enter`.
pub fn filter_goto(key: &crossterm::event::KeyEvent, text: &str, ctx: &Ctx) -> Option<Outcome> {
    if key.code != crossterm::event::KeyCode::Enter {
        return None;
    }
    let id = crate::ui::goto::object_id(text)?;
    Some(match ctx.snap.find_object(id) {
        Some(o) => Outcome::Open(Request::Inspect(o)),
        None => Outcome::Refused(format!(
            "no object {} in this snapshot",
            crate::ui::text::sanitize(id)
        )),
    })
}

/// Draws a pane's top border with its title (sanitised) and returns the area inside.
pub fn titled(f: &mut Frame, area: Rect, title: &str) -> Rect {
    use ratatui::widgets::{Block, Borders};
    let block = Block::default()
        .borders(Borders::TOP)
        .title(format!(" {} ", crate::ui::text::sanitize(title)));
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// An object in one line: class, id, label, shallow and retained bytes with the share
/// of the heap, and what kind of GC root it is.
pub fn object_line(ctx: &Ctx, o: ObjId) -> String {
    let snap = ctx.snap;
    let mut s = format!("{} {}", snap.class_name(o), snap.object_name(o));
    if let Some(l) = snap.label(o) {
        s.push(' ');
        s.push_str(&l);
    }
    s.push_str(&format!(" · shallow {}", human(snap.graph.shallow_size(o))));
    if let Some(d) = ctx.dom {
        match d.retained(o) {
            Some(r) if d.total_bytes() > 0 => s.push_str(&format!(
                " · retained {} ({:.1}%)",
                human(r),
                r as f64 * 100.0 / d.total_bytes() as f64
            )),
            Some(r) => s.push_str(&format!(" · retained {}", human(r))),
            None => s.push_str(" · unreachable"),
        }
    }
    let roots = snap.describe_roots(o);
    if !roots.is_empty() {
        s.push_str(&format!(" · GC root: {roots}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::human;

    #[test]
    fn human_units() {
        assert_eq!(human(0), "0 B");
        assert_eq!(human(1023), "1023 B");
        assert_eq!(human(1024), "1.0 KiB");
        assert_eq!(human(3_000_032), "2.9 MiB");
        assert_eq!(human(5 << 30), "5.0 GiB");
    }
}
