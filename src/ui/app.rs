//! The application state and the event loop.
//!
//! The loop is generic over ratatui's `Backend` and takes its events from a closure over
//! the app's [`Queue`] ([`crate::ui::events`]), so tests drive the very same code with a
//! `TestBackend` and scripted keys. It sleeps until an event comes and draws only when
//! something changed. Loading runs on a background thread ([`load`]), which then builds
//! the dominator tree or reads the one kept in the index cache; each result it hands over
//! wakes the loop, and while it loads a ticker has the shared [`Progress`] drawn again, so
//! the screen never freezes while a large dump is indexed, and panes that need retained
//! sizes fill them in when ready.
//!
//! Panes sit on a navigation stack (the class histogram at the bottom): a pane's `Enter`
//! (or `p`, `r`, `o`, `d` on its selected object) pushes a new one, `Esc`/`Backspace`
//! pops it onto a forward stack, `]` brings it back. Keys go to the pane on top first;
//! what it ignores, the app handles.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::backend::Backend;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Gauge, Paragraph, Wrap};
use ratatui::{Frame, Terminal};

use super::events::{Queue, QueueEvent, Wait};
use super::keys::{action_for, hint_line, hint_line_for, key_name, Action, KEYMAP};
use super::panes::histogram::{thousands, HistogramPane};
use super::panes::inspector::InspectorPane;
use super::panes::instances::InstancesPane;
use super::panes::merged::MergedPathsPane;
use super::panes::snapshots::SnapshotsPane;
use super::panes::suspects::{Mode, SuspectsPane};
use super::panes::threads::ThreadsPane;
use super::panes::tree::{TreeKind, TreePane};
use super::panes::{Ctx, Outcome, Pane, Request};
use super::text::sanitize;
use super::theme::Theme;
use crate::error::Result;
use crate::format::Snapshot;
use crate::heap::dominators::Dominators;
use crate::heap::{ClassId, ObjId};
use crate::sys::progress::Progress;
use diff::{DiffView, Side};

mod clipboard;
pub mod diff;
pub use clipboard::osc52;
mod draw;
mod load;
mod mouse;
mod query;
use query::LineKey;
mod ready;
pub use mouse::DOUBLE_CLICK;
pub mod split;
mod split_keys;
use ready::SUSPECTS;
pub use ready::{Detail, Ready, REST, WIDE};

pub enum Screen {
    Loading,
    Failed(crate::error::Error),
    Ready(Box<Ready>),
    /// `heaptui BASE TARGET`.
    Diff(Box<DiffView>),
}

/// What the loading thread hands over: one snapshot, or the two of a diff with the
/// objects they have in common.
pub enum Loaded {
    One(Arc<Snapshot>),
    /// One snapshot with its class histogram, counted by the loading thread on every
    /// core before it hands the index over (the UI thread would count on one, beside the
    /// dominator tree being read).
    Counted(Arc<Snapshot>, Vec<crate::heap::histogram::Row>),
    Two(
        Arc<Snapshot>,
        Arc<Snapshot>,
        Option<Arc<crate::diff::Identity>>,
        Option<String>,
    ),
}

/// What the loading thread hands over once the dominator trees are built; for a diff,
/// also the figures that need them (a walk of both snapshots, kept off the UI thread).
#[allow(clippy::large_enum_variant)] // sent once per load
pub enum DomsReady {
    /// The tree of one snapshot; its leak suspects follow as [`DomsReady::Suspects`]
    /// (0.9 s more on 50 M objects, which the retained sizes do not wait for).
    One(Arc<Dominators>),
    Suspects(Arc<crate::suspects::Report>),
    Two {
        base: Dominators,
        target: Dominators,
        classes: Vec<crate::diff::ClassDelta>,
        owners: Vec<crate::diff::OwnerDelta>,
    },
}

impl DomsReady {
    /// Both trees of a diff and the figures of the diff view.
    fn two(
        (a, base): (&Snapshot, Dominators),
        (b, target): (&Snapshot, Dominators),
        ids: Option<&crate::diff::Identity>,
    ) -> Self {
        let classes = crate::diff::class_deltas(a, b, Some((&base, &target)), ids);
        let owners = crate::diff::owner_deltas(a, &base, b, &target, 8);
        DomsReady::Two {
            base,
            target,
            classes,
            owners,
        }
    }
}

pub struct App {
    pub path: PathBuf,
    /// A key was pressed since the app started (kept when another snapshot of the file
    /// is opened): the leak suspects then wait for `!` rather than take the screen.
    pub busy: bool,
    /// The screen's width when last drawn (for the detail pane beside the list).
    width: std::cell::Cell<u16>,
    /// Where side-by-side panes split the screen, and whether the focused one is zoomed
    /// (`<`, `>`, `z`): kept for the session.
    pub split: split::Split,
    /// How long the histogram's selection rests before its class's merged paths are
    /// built beside it ([`REST`]).
    detail_rest: Duration,
    pub screen: Screen,
    pub progress: Progress,
    rx: Option<Receiver<Result<Loaded>>>,
    /// The class histogram of a quick first pass (HPROF), browsed while the index is
    /// built, and where it comes from.
    pub early: Option<HistogramPane>,
    early_rx: Option<Receiver<crate::format::QuickHistogram>>,
    /// The three-snapshot view: BASELINE's and TARGET's ids, read beside FINAL.
    leaks_rx: Option<Receiver<Result<Option<crate::leaks::LeakIds>>>>,
    leaks_ids: Option<Result<Option<crate::leaks::LeakIds>>>,
    /// The summary lines of the snapshot being loaded, filled in by the loading thread.
    summary_cell: Arc<std::sync::OnceLock<Vec<(String, String)>>>,
    /// Whether the last tick found the summary filled in (the overlay shows it then).
    summary_filled: bool,
    /// Set while the loading thread has an index cache entry (or the dominator tree kept
    /// beside it) still to write: quitting waits for it ([`App::cache_entry_pending`]),
    /// so that the next open is quick.
    cache_writing: Arc<std::sync::atomic::AtomicBool>,
    /// Set when quitting: the entry is written without waiting for the dominator tree.
    cache_hurry: Arc<std::sync::atomic::AtomicBool>,
    /// The quick pass found the file cut short.
    early_truncated: bool,
    /// The dominator tree (two for a diff) being built after loading, and its progress.
    dom_rx: Option<Receiver<DomsReady>>,
    pub dom_progress: Progress,
    pub help: bool,
    /// The first row of the open overlay (help, summary) that is shown, and how many rows
    /// it showed when last drawn.
    overlay_scroll: u16,
    overlay_page: std::cell::Cell<u16>,
    overlay_max: std::cell::Cell<u16>,
    pub summary: bool,
    /// The last click that selected a row, and when: a second one on the same cell within
    /// [`DOUBLE_CLICK`] opens the row.
    last_click: Option<(Instant, u16, u16)>,
    double_click: Duration,
    pub quit: bool,
    pub theme: Theme,
    /// Text copied with `y`, waiting to be sent to the terminal as OSC 52 (the run loop's
    /// owner drains it; it works over SSH, where no local clipboard is reachable).
    pub clipboard: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// A one-line message for the status line (e.g. what was copied).
    pub message: Option<String>,
    /// What the status line calls the file(s), when not `path`'s name ("base → target").
    pub title: Option<String>,
    /// The work panes run on threads of their own ([`crate::ui::panes::job`]).
    jobs: crate::ui::panes::job::Jobs,
    /// What the run loop waits on; the loading threads and the jobs wake it.
    queue: Queue,
    /// Where `--goto` opens, kept until it can ([`App::go_to`]).
    goto: Option<crate::ui::goto::Goto>,
}

impl App {
    /// The three-snapshot view's ids, once they and FINAL's dominator tree are both
    /// ready: the leak clusters opened on top. Whether anything arrived.
    fn leaks_arrive(&mut self) -> bool {
        let mut changed = false;
        if let Some(rx) = &self.leaks_rx {
            let got = rx.try_recv();
            changed = !matches!(got, Err(TryRecvError::Empty));
            match got {
                Ok(r) => {
                    self.leaks_ids = Some(r);
                    self.leaks_rx = None;
                }
                Err(TryRecvError::Disconnected) => self.leaks_rx = None,
                Err(TryRecvError::Empty) => {}
            }
        }
        let Screen::Ready(r) = &mut self.screen else {
            return changed;
        };
        if r.dom.is_none() {
            return changed;
        }
        changed |= self.leaks_ids.is_some();
        match self.leaks_ids.take() {
            Some(Ok(Some(ids))) => {
                r.leaks = Some((Arc::new(ids), Default::default()));
                r.open(Request::Leaks, &self.theme);
            }
            Some(Ok(None)) => {
                self.message = Some(
                    "these snapshots keep no ids that survive between them: `heaptui leaks` \
                     matches the owners that grew instead"
                        .into(),
                )
            }
            Some(Err(e)) => self.message = Some(format!("BASELINE or TARGET: {e}")),
            None => {}
        }
        changed
    }

    /// An app waiting for `rx` (nothing to wait for in tests: `None`) and `dom_rx`, which
    /// their senders wake through `queue`.
    fn loading(
        path: PathBuf,
        progress: Progress,
        rx: Option<Receiver<Result<Loaded>>>,
        dom_rx: Receiver<DomsReady>,
        dom_progress: Progress,
        queue: Queue,
    ) -> Self {
        App {
            title: None,
            busy: false,
            width: std::cell::Cell::new(80),
            split: Default::default(),
            detail_rest: REST,
            path,
            screen: Screen::Loading,
            progress,
            rx,
            early: None,
            early_rx: None,
            leaks_rx: None,
            leaks_ids: None,
            summary_cell: Default::default(),
            summary_filled: false,
            cache_writing: Default::default(),
            cache_hurry: Default::default(),
            early_truncated: false,
            dom_rx: Some(dom_rx),
            dom_progress,
            help: false,
            overlay_scroll: 0,
            overlay_page: Default::default(),
            overlay_max: Default::default(),
            summary: false,
            last_click: None,
            double_click: DOUBLE_CLICK,
            quit: false,
            theme: Theme::from_env(),
            clipboard: Default::default(),
            message: None,
            jobs: crate::ui::panes::job::Jobs::new(queue.notifier()),
            queue,
            goto: None,
        }
    }

    /// The queue the run loop waits on (tests push their keys into it).
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    /// The panes' jobs: how many run (tests wait for none), how long they wait first.
    pub fn jobs(&self) -> &crate::ui::panes::job::Jobs {
        &self.jobs
    }

    /// Whether the index cache entry is still being written (on a thread of its own, beside
    /// the dominator pass).
    pub fn cache_entry_pending(&self) -> bool {
        self.cache_writing.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// What the loop waits for besides the events pushed into its queue: the progress
    /// ticker while something loads (the index, the quick histogram, the dominator tree
    /// and the suspects: their progress is drawn), and the rest of the histogram's
    /// selection while a class's merged paths wait for it. Results need no timer: their
    /// senders wake the loop.
    pub fn wait(&self) -> Wait {
        Wait {
            ticking: self.ticking(),
            rest: match &self.screen {
                Screen::Ready(r) => r.rest_left(),
                _ => None,
            },
        }
    }

    /// How long the histogram's selection rests before the merged paths of its class
    /// are built beside it ([`REST`]; tests make it shorter or longer).
    pub fn set_detail_rest(&mut self, rest: Duration) {
        self.detail_rest = rest;
        if let Screen::Ready(r) = &mut self.screen {
            r.rest = rest;
        }
    }

    /// Has the pending index cache entry written now, without waiting for the dominator
    /// tree (quitting).
    pub fn hurry_cache_entry(&self) {
        self.cache_hurry
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// An app on already opened snapshots (one, or the two of a diff), their dominator
    /// trees built before it returns, without colours (tests).
    fn opened(path: PathBuf, loaded: Loaded) -> Self {
        let (dom_tx, dom_rx) = std::sync::mpsc::channel();
        let p = Progress::new();
        match &loaded {
            Loaded::One(s) | Loaded::Counted(s, _) => {
                let d = Arc::new(crate::heap::dominators::compute(&s.graph, &p));
                let report = crate::suspects::find(s, &d, SUSPECTS);
                crate::heap::depth::keep(&s.graph, || false);
                let _ = dom_tx.send(DomsReady::One(d));
                let _ = dom_tx.send(DomsReady::Suspects(Arc::new(report)));
            }
            Loaded::Two(a, b, ids, _) => {
                let base = crate::heap::dominators::compute(&a.graph, &p);
                let target = crate::heap::dominators::compute(&b.graph, &p);
                let _ = dom_tx.send(DomsReady::two((a, base), (b, target), ids.as_deref()));
                crate::heap::depth::keep(&a.graph, || false);
                crate::heap::depth::keep(&b.graph, || false);
            }
        }
        let queue = Queue::new();
        let mut app = Self::loading(path, Progress::new(), None, dom_rx, Progress::new(), queue);
        app.theme = Theme { color: false };
        // A test's selection has always rested: the merged paths beside the histogram
        // are there on the next turn, whatever the machine's speed.
        app.detail_rest = Duration::ZERO;
        app.set_ready(loaded);
        app.tick();
        app
    }

    /// An app still building an index, on the quick histogram `q` (tests): the sender
    /// hands it what the loading thread would.
    pub fn with_quick_histogram(
        path: PathBuf,
        q: crate::format::QuickHistogram,
    ) -> (Self, std::sync::mpsc::Sender<Result<Loaded>>) {
        let (tx, rx) = std::sync::mpsc::channel();
        let (_, dom_rx) = std::sync::mpsc::channel();
        let (early_tx, early_rx) = std::sync::mpsc::channel();
        let _ = early_tx.send(q);
        let queue = Queue::new();
        let mut app = Self::loading(
            path,
            Progress::new(),
            Some(rx),
            dom_rx,
            Progress::new(),
            queue,
        );
        app.theme = Theme { color: false };
        app.early_rx = Some(early_rx);
        app.tick();
        (app, tx)
    }

    /// An app on an already opened snapshot (tests).
    pub fn with_snapshot(path: PathBuf, snap: impl Into<Arc<Snapshot>>) -> Self {
        Self::opened(path, Loaded::One(snap.into()))
    }

    /// A diff app on two opened snapshots (tests).
    pub fn with_snapshots(
        base: impl Into<Arc<Snapshot>>,
        target: impl Into<Arc<Snapshot>>,
    ) -> Self {
        let (base, target) = (base.into(), target.into());
        let (ids, warning) = crate::diff::identity_checked(&base, &target);
        let path = target.source.path.clone();
        Self::opened(path, Loaded::Two(base, target, ids.map(Arc::new), warning))
    }

    fn set_ready(&mut self, loaded: Loaded) {
        let early = self.early.take();
        self.early_rx = None;
        if early.is_some() {
            // "The index is being built" no longer holds.
            self.message = None;
        }
        self.screen = match loaded {
            Loaded::One(snap) => {
                let mut r = Ready::after(snap, None, early.as_ref());
                r.jobs = self.jobs.clone();
                r.summary = self.summary_cell.clone();
                r.rest = self.detail_rest;
                Screen::Ready(Box::new(r))
            }
            Loaded::Counted(snap, rows) => {
                let mut r = Ready::after(snap, Some(rows), early.as_ref());
                r.jobs = self.jobs.clone();
                r.summary = self.summary_cell.clone();
                r.rest = self.detail_rest;
                Screen::Ready(Box::new(r))
            }
            Loaded::Two(a, b, ids, warning) => {
                let side = |s| {
                    let mut r = Ready::side(s);
                    r.jobs = self.jobs.clone();
                    r
                };
                Screen::Diff(Box::new(DiffView::new(side(a), side(b), ids, warning)))
            }
        };
    }

    /// Does work a key asked for after the frame that announced it (see
    /// [`Pane::has_work`]); true when there was some, and the screen wants drawing again.
    pub fn work(&mut self) -> bool {
        let theme = &self.theme;
        match &mut self.screen {
            Screen::Ready(r) => r.work(theme),
            Screen::Diff(d) => d.work(theme),
            _ => false,
        }
    }

    /// Opens `--goto`'s target (or the one kept) once it can ([`Ready::go_to`]);
    /// what the snapshot lacks is said in the status line.
    pub fn go_to(&mut self, goto: Option<crate::ui::goto::Goto>) {
        let goto = goto.or(self.goto.take());
        let (Screen::Ready(r), Some(g)) = (&mut self.screen, goto.clone()) else {
            self.goto = goto;
            return;
        };
        match r.go_to(g, &self.theme) {
            Ok(wait) => self.goto = wait,
            Err(m) => self.message = Some(m),
        }
    }

    /// Picks up the background threads' results, if they have any, and has the detail
    /// pane follow the selection and the width of the last frame: whether anything
    /// changed (the screen then wants drawing).
    pub fn tick(&mut self) -> bool {
        let mut changed = self.leaks_arrive();
        // The summary, filled in beside the tree: drawn if its overlay is open.
        let filled = self.summary_cell.get().is_some();
        changed |= filled != std::mem::replace(&mut self.summary_filled, filled) && self.summary;
        match &mut self.screen {
            Screen::Ready(r) => {
                let before = r.beside_state();
                r.wide = self.width.get() >= WIDE;
                changed |= r.poll(&self.theme);
                r.sync_detail(&self.theme);
                changed |= r.beside_state() != before;
            }
            // The diff's sides: from DIFF_WIDE columns the focused side's selected
            // object is inspected in a third column.
            Screen::Diff(v) => {
                let wide = self.width.get() >= crate::ui::app::diff::DIFF_WIDE;
                for side in [Side::Base, Side::Target] {
                    let r = v.side_mut(side);
                    let before = r.beside_state();
                    r.wide = wide;
                    changed |= r.poll(&self.theme);
                    r.sync_detail(&self.theme);
                    changed |= r.beside_state() != before;
                }
            }
            _ => {}
        }
        let (arrived, gone): (Vec<DomsReady>, bool) = match &self.dom_rx {
            Some(rx) if matches!(self.screen, Screen::Ready(_) | Screen::Diff(_)) => {
                let got: Vec<DomsReady> = rx.try_iter().collect();
                // A loader that ended without them (or a test's): nothing more comes.
                let gone =
                    got.is_empty() && matches!(rx.try_recv(), Err(TryRecvError::Disconnected));
                (got, gone)
            }
            _ => (Vec::new(), false),
        };
        if gone {
            self.dom_rx = None;
        }
        changed |= !arrived.is_empty();
        for d in arrived {
            // The suspects come after the tree of one snapshot; a diff's trees come alone.
            if !matches!(d, DomsReady::One(_)) {
                self.dom_rx = None;
            }
            match (&mut self.screen, d) {
                (Screen::Ready(r), DomsReady::One(d)) => r.set_dominators(d, &self.theme),
                (Screen::Ready(r), DomsReady::Suspects(report)) => {
                    if self.goto.is_some() {
                        // `--goto view:…`: that view, whatever the suspects found.
                        r.suspects = Some(report);
                        self.go_to(None);
                        continue;
                    }
                    r.touched |= self.busy;
                    if let Some(m) = r.set_suspects(report) {
                        // After a word the user has not read yet (the three-snapshot
                        // view's), not in its place.
                        self.message = Some(match self.message.take() {
                            Some(before) if before != m => format!("{before} · {m}"),
                            _ => m,
                        });
                    }
                }
                (
                    Screen::Diff(v),
                    DomsReady::Two {
                        base,
                        target,
                        classes,
                        owners,
                    },
                ) => v.set_dominators(
                    Arc::new(base),
                    Arc::new(target),
                    classes,
                    owners,
                    &self.theme,
                ),
                _ => {}
            }
        }
        // Once loading is over (the trees are in, no cache entry is being written), the
        // pages the allocator kept for the build's phases (`crate::sys::alloc`) go back to the
        // kernel, and so, from then on, do large blocks that browsing frees.
        if self.dom_rx.is_none() && !self.cache_entry_pending() && crate::sys::alloc::pooled() > 0 {
            crate::sys::alloc::release();
        }
        if let Some(rx) = &self.early_rx {
            let got = rx.try_recv();
            changed |= !matches!(got, Err(TryRecvError::Empty));
            match got {
                Ok(q) => {
                    self.early_rx = None;
                    self.early_truncated = q.truncated.is_some();
                    self.early = Some(HistogramPane::new(q.rows));
                }
                Err(TryRecvError::Disconnected) => self.early_rx = None,
                Err(TryRecvError::Empty) => {}
            }
        }
        let Some(rx) = &self.rx else { return changed };
        let got = rx.try_recv();
        changed |= !matches!(got, Err(TryRecvError::Empty));
        match got {
            Ok(Ok(loaded)) => {
                self.rx = None;
                self.set_ready(loaded);
                self.go_to(None);
            }
            Ok(Err(e)) => {
                self.rx = None;
                self.screen = Screen::Failed(e);
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => {
                self.rx = None;
                self.screen = Screen::Failed(crate::error::Error::Usage(
                    "the loader stopped unexpectedly".into(),
                ));
            }
        }
        changed
    }

    pub fn on_key(&mut self, key: &KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        self.busy = true;
        self.message = None;
        if self.help || self.summary {
            let page = self.overlay_page.get().max(1);
            match action_for(key) {
                // `q` closes the overlay, as `Esc` and the other keys do (its title says
                // so); `Ctrl-c` quits from anywhere.
                Some(Action::Quit) if key.modifiers.contains(KeyModifiers::CONTROL) => {
                    self.quit = true
                }
                // An overlay longer than the screen scrolls.
                Some(Action::Down) => self.overlay_scroll = self.overlay_scroll.saturating_add(1),
                Some(Action::Up) => self.overlay_scroll = self.overlay_scroll.saturating_sub(1),
                Some(Action::PageDown) => {
                    self.overlay_scroll = self.overlay_scroll.saturating_add(page)
                }
                Some(Action::PageUp) => {
                    self.overlay_scroll = self.overlay_scroll.saturating_sub(page)
                }
                Some(Action::Help) => {
                    self.help = !self.help;
                    self.summary = false;
                }
                Some(Action::Summary) => {
                    self.summary = !self.summary;
                    self.help = false;
                }
                Some(_) | None => {
                    self.help = false;
                    self.summary = false;
                }
            }
            self.overlay_scroll = self.overlay_scroll.min(self.overlay_max.get());
            if !self.help && !self.summary {
                self.overlay_scroll = 0;
            }
            return;
        }
        // `Esc` first gives a zoomed split its other pane back (a filter being typed
        // keeps its `Esc`).
        if self.split.zoom
            && action_for(key) == Some(Action::Back)
            && self.split_shown().is_some()
            && !self.editing()
        {
            self.split.zoom = false;
            return;
        }
        let clip = &self.clipboard;
        let msg = &mut self.message;
        let theme = &self.theme;
        let used = match &mut self.screen {
            Screen::Ready(r) => {
                let used = r.on_key(key, theme, clip, msg);
                if let Some(n) = r.reopen.take() {
                    let (file, _) = crate::session::split_snapshot_suffix(&self.path);
                    let mut name = file.into_os_string();
                    name.push(format!("#{n}"));
                    let (theme, clipboard) = (self.theme, self.clipboard.clone());
                    let split = self.split;
                    // The same queue: the terminal's events go on coming into it.
                    *self = App::load_into(PathBuf::from(name), self.queue.clone());
                    self.busy = true;
                    self.split = split;
                    // The run loop drains this clipboard: keep the same one.
                    (self.theme, self.clipboard) = (theme, clipboard);
                    return;
                }
                used
            }
            Screen::Diff(d) => d.on_key(key, theme, clip, msg),
            Screen::Loading => match &mut self.early {
                // The quick histogram moves, sorts and filters as the real one does;
                // what needs the index waits for it.
                Some(h) => match h.handle(key) {
                    Outcome::Ignored
                        if action_for(key)
                            .is_some_and(|a| a != Action::Quit && a != Action::Help) =>
                    {
                        *msg = Some("the index is being built: instances, references and retained sizes follow".into());
                        true
                    }
                    Outcome::Ignored => false,
                    _ => true,
                },
                None => false,
            },
            _ => false,
        };
        if used {
            return;
        }
        match action_for(key) {
            Some(a @ (Action::SplitLeft | Action::SplitRight | Action::Zoom)) => {
                self.split_key(a, key)
            }
            Some(Action::Quit) => self.quit = true,
            Some(Action::Help) => self.help = true,
            Some(Action::Summary) => {
                self.summary = matches!(self.screen, Screen::Ready(_) | Screen::Diff(_))
            }
            // No key goes silently unanswered: say that this one does nothing here.
            Some(_) => {
                let here = match &self.screen {
                    Screen::Ready(r) => {
                        let ctx = r.ctx(&self.theme);
                        format!("in {}", r.top().title(&ctx))
                    }
                    Screen::Diff(_) => "in the diff view".to_string(),
                    _ => "while loading".to_string(),
                };
                let here: String = here.split(" — ").next().unwrap_or("").to_string();
                self.message = Some(format!(
                    "`{}` does nothing {here} (? lists the keys)",
                    key_name(key)
                ));
            }
            None if !key_name(key).is_empty() => {
                self.message = Some(format!(
                    "`{}` is not a key of heaptui (? lists them)",
                    key_name(key)
                ));
            }
            None => {}
        }
    }
}

/// Puts the (hidden) cursor at the top left between frames. A terminal that shrinks
/// keeps the lines above its cursor, in its scrollback, and tmux does so on the
/// alternate screen too: with the cursor at the bottom, where drawing leaves it, a
/// shrink then a grow left histogram lines above the shell's prompt after quitting.
fn park_cursor<B: Backend>(terminal: &mut Terminal<B>) -> std::io::Result<()> {
    terminal.set_cursor_position((0, 0))?;
    Backend::flush(terminal.backend_mut())
}

/// Draws a frame, the cursor parked after it; never once another thread is ending the
/// process ([`crate::ui::terminal::emergency_exit`]): no frame may come after the
/// terminal is put back, and this thread waits for the end.
fn frame<B: Backend>(terminal: &mut Terminal<B>, app: &App) -> std::io::Result<()> {
    while crate::ui::terminal::exiting() {
        std::thread::park();
    }
    terminal.draw(|f| app.draw(f))?;
    park_cursor(terminal)
}

/// Runs the loop until the user quits, a signal ends it, or `next_event` has no more.
///
/// A turn takes what the loading threads and the jobs have handed over ([`App::tick`]),
/// draws a frame if anything changed, does the work a key asked for after the frame
/// that announces it ([`App::work`]), then waits: `next_event` is handed the app's
/// queue and what else to wait for ([`App::wait`]), and blocks on them ([`Queue::next`]
/// in the binary; a script of keys in tests). Nothing wakes the loop but an event, and
/// an event that changes nothing (a result not yet complete, a mouse move) draws
/// nothing.
pub fn run_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    mut next_event: impl FnMut(&Queue, &Wait) -> std::io::Result<Option<QueueEvent>>,
) -> std::io::Result<()> {
    let queue = app.queue.clone();
    // The first frame, whatever came before.
    let mut changed = true;
    while !app.quit {
        changed |= app.tick();
        if changed {
            frame(terminal, app)?;
            // What goes beside the list follows the width of the frame just drawn.
            if app.tick() {
                frame(terminal, app)?;
            }
        }
        // Long work a key asked for runs after the frame that says it is under way.
        if app.work() {
            frame(terminal, app)?;
        }
        let Some(event) = next_event(&queue, &app.wait())? else {
            break;
        };
        changed = match event {
            QueueEvent::Input(Event::Key(k)) => {
                app.on_key(&k);
                true
            }
            // A new size, or the screen given back after a suspend: draw every cell.
            QueueEvent::Input(Event::Resize(..)) => {
                terminal.clear()?;
                true
            }
            QueueEvent::Input(Event::Mouse(m)) => app.on_mouse(&m),
            QueueEvent::Input(_) => false,
            QueueEvent::InputFailed(e) => return Err(e),
            // The progress of what loads, drawn again.
            QueueEvent::Tick => true,
            // The turn's tick takes what came (or builds what the rested selection
            // waited for) and says whether that changed anything.
            QueueEvent::Arrived | QueueEvent::Rest => false,
            // The terminal is handed back by whoever owns it (the binary's event source).
            QueueEvent::Suspend => false,
            QueueEvent::Signal => break,
        };
    }
    Ok(())
}
