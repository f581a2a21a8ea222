//! One snapshot's view: its panes on a stack, the dominator tree and suspects once they
//! arrive, and the keys a pane leaves to the app.

use super::*;
use crate::ui::goto::Goto;

/// How many leak suspects the TUI lists.
pub(super) const SUSPECTS: usize = 10;

/// From this many columns the selected row's detail is drawn beside the list.
pub const WIDE: u16 = 120;

/// The list's share of the width beside its detail, in percent, before the user moves
/// the split ([`crate::ui::app::split`]).
pub const LIST_SHARE: u16 = 55;

/// How long the histogram's selection rests (no key) before the merged paths of its
/// class are built beside it: up to ~200 ms on a class of millions, never once per key
/// of a fast scroll.
pub const REST: Duration = Duration::from_millis(150);

/// What the detail pane beside a list shows: one object's inspector (instances,
/// suspects), or the merged paths from the GC roots of one class (the histogram).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    Object(ObjId),
    Class(ClassId),
}

pub struct Ready {
    pub snap: Arc<Snapshot>,
    /// `/` in a pane without a filter of its own: an object id being typed, whose
    /// inspector `Enter` opens ([`crate::ui::goto`]).
    pub goto_prompt: Option<String>,
    /// `:`: the query line, while it is open ([`crate::ui::query_line`]), and the
    /// queries run before.
    pub query_line: Option<crate::ui::query_line::QueryLine>,
    pub history: crate::ui::query_line::History,
    /// On a side of the diff view, the other snapshot, which its queries read too.
    pub partner: Option<crate::ui::panes::query::Partner>,
    /// The summary overlay's lines: a walk of the whole graph (reachability), so the
    /// loading thread fills them in after handing the index over, or the overlay does on
    /// first use.
    pub summary: Arc<std::sync::OnceLock<Vec<(String, String)>>>,
    /// The summary lines computed here while the loading thread has not filled in its
    /// own (which take their place when they come).
    own_summary: std::sync::OnceLock<Vec<(String, String)>>,
    /// The dominator tree, once the background thread has built it.
    pub dom: Option<Arc<Dominators>>,
    /// The leak suspects, found with the dominator tree.
    pub suspects: Option<Arc<crate::suspects::Report>>,
    /// The three-snapshot view's leaks (`heaptui BASELINE TARGET FINAL`).
    pub leaks: Option<crate::ui::panes::leaks::Leaks>,
    /// A key was pressed: the user is busy, and the suspects do not take the screen
    /// from them when they arrive.
    pub touched: bool,
    /// Beside the list, where the screen is wide enough ([`WIDE`]): the inspector of
    /// the selected row's object, following the selection (DevTools' retainers below
    /// its Summary, MAT's inspector beside its lists), or, beside the class histogram,
    /// the merged paths from the GC roots of the selected class (MAT's "merge shortest
    /// paths"), built once the selection has rested ([`Ready::rest`]).
    pub detail: Option<(Detail, Box<dyn Pane>)>,
    /// The class whose merged paths the histogram's selection waits for (it has not
    /// rested yet): the detail drawn meanwhile, if any, is another class's, marked stale.
    pub waiting: Option<ClassId>,
    /// A class's merged paths put aside while another pane is on top (back on the
    /// histogram, they are shown at once, not built again).
    parked: Option<(Detail, Box<dyn Pane>)>,
    /// How long the selection rests before a class's merged paths are built ([`REST`];
    /// tests set it).
    pub rest: Duration,
    /// When the last key came.
    last_key: Instant,
    /// Whether the histogram gets a class's merged paths beside it (not on the diff
    /// view's sides).
    pub class_detail: bool,
    /// How many class details (merged paths) were built (tests count them).
    pub class_builds: usize,
    /// `Tab` moved the keys to the detail pane.
    pub focus_detail: bool,
    /// The screen was wide enough for the detail pane when last drawn.
    pub wide: bool,
    /// The navigation history: the class histogram at the bottom, the pane on screen on
    /// top. `Esc`/`Backspace` pops a pane onto `forward`, `]` brings it back.
    pub stack: Vec<Box<dyn Pane>>,
    pub forward: Vec<Box<dyn Pane>>,
    /// Another snapshot of the file was picked: the app opens it in place of this one.
    pub reopen: Option<usize>,
    /// The app's jobs, which panes start on threads of their own ([`crate::ui::panes::job`]).
    pub jobs: crate::ui::panes::job::Jobs,
}

/// What panes see of a snapshot's view, from its fields (borrowed apart from the panes).
fn ctx_of<'a>(
    snap: &'a Arc<Snapshot>,
    dom: &'a Option<Arc<Dominators>>,
    jobs: &'a crate::ui::panes::job::Jobs,
    theme: &'a Theme,
) -> Ctx<'a> {
    Ctx {
        snap,
        dom: dom.as_deref(),
        theme,
        shared: Some(crate::ui::panes::Shared {
            snap,
            dom: dom.as_ref(),
            jobs,
        }),
    }
}

impl Ready {
    /// A snapshot on its class histogram.
    pub fn new(snap: Arc<Snapshot>) -> Self {
        Self::after(snap, None, None)
    }

    /// One side of the diff view: no merged paths beside its lists.
    pub fn side(snap: Arc<Snapshot>) -> Self {
        let mut r = Self::new(snap);
        r.class_detail = false;
        r
    }

    /// A snapshot on its class histogram (`rows`, counted here when not given), keeping
    /// the sort, filter and selection of the histogram the user was already looking at
    /// while the index was built.
    pub fn after(
        snap: Arc<Snapshot>,
        rows: Option<Vec<crate::heap::histogram::Row>>,
        early: Option<&HistogramPane>,
    ) -> Self {
        let rows = rows.unwrap_or_else(|| crate::heap::histogram::by_class(&snap.graph));
        let mut histogram = HistogramPane::new(rows);
        if let Some(e) = early {
            histogram.carry_from(e);
        }
        Ready {
            stack: vec![Box::new(histogram)],
            forward: Vec::new(),
            snap,
            goto_prompt: None,
            query_line: None,
            history: crate::ui::query_line::History::in_cache(),
            partner: None,
            summary: Default::default(),
            own_summary: Default::default(),
            dom: None,
            suspects: None,
            leaks: None,
            touched: false,
            detail: None,
            waiting: None,
            parked: None,
            rest: REST,
            last_key: Instant::now(),
            class_detail: true,
            class_builds: 0,
            focus_detail: false,
            wide: false,
            reopen: None,
            jobs: Default::default(),
        }
    }

    /// The summary overlay's lines: the loading thread's, else computed here (kept apart:
    /// the loading thread's may still come), and where the dominator tree came from, once
    /// it is here (a summary opened a moment before the loading thread's lines came
    /// lacked that line for good when the thread added it).
    pub fn summary_lines(&self) -> Vec<(String, String)> {
        let mut lines = match self.summary.get() {
            Some(lines) => lines,
            None => self
                .own_summary
                .get_or_init(|| crate::present::summary_lines_for(&self.snap)),
        }
        .clone();
        if let Some(w) = self.dom.as_ref().and_then(|d| d.origin.words()) {
            lines.push(("dominator tree".to_string(), w));
        }
        lines
    }

    pub fn ctx<'a>(&'a self, theme: &'a Theme) -> Ctx<'a> {
        ctx_of(&self.snap, &self.dom, &self.jobs, theme)
    }

    /// The pane on screen.
    pub fn top(&self) -> &dyn Pane {
        self.stack
            .last()
            .expect("the histogram is always there")
            .as_ref()
    }

    /// What panes see, beside the two pane stacks: borrowed apart, so a pane on a stack
    /// can be handed the context.
    #[allow(clippy::type_complexity)]
    pub(crate) fn parts<'a>(
        &'a mut self,
        theme: &'a Theme,
    ) -> (
        Ctx<'a>,
        &'a mut Vec<Box<dyn Pane>>,
        &'a mut Vec<Box<dyn Pane>>,
    ) {
        let ctx = ctx_of(&self.snap, &self.dom, &self.jobs, theme);
        (ctx, &mut self.stack, &mut self.forward)
    }

    /// Handles a key for the pane stack: the top pane first, then opening, going back
    /// and forward, the object keys (`p`, `r`, `o`, `d`, `t`, `y`). False when the key is
    /// not the stack's (quit, help, summary, or going back from the bottom pane).
    pub fn on_key(
        &mut self,
        key: &KeyEvent,
        theme: &Theme,
        clipboard: &std::sync::Mutex<Vec<String>>,
        message: &mut Option<String>,
    ) -> bool {
        self.touched = true;
        self.last_key = Instant::now();
        if self.goto_prompt.is_some() {
            self.goto_key(key, theme, message);
            return true;
        }
        if self.query_line.is_some() {
            return self.query_key(key, theme, message) != LineKey::NotMine;
        }
        let used = 'key: {
            // Tab moves the keys between the list and the detail beside it.
            if action_for(key) == Some(Action::Side) && self.wide && self.detail.is_some() {
                self.focus_detail = !self.focus_detail;
                break 'key true;
            }
            if self.focus_detail {
                if let Some((_, d)) = self.detail.as_mut() {
                    let ctx = ctx_of(&self.snap, &self.dom, &self.jobs, theme);
                    match d.handle(key, &ctx) {
                        Outcome::Consumed => break 'key true,
                        Outcome::Refused(why) | Outcome::Done(why) => {
                            *message = Some(why);
                            break 'key true;
                        }
                        Outcome::Open(req) => {
                            self.focus_detail = false;
                            self.open(req, theme);
                            break 'key true;
                        }
                        Outcome::Ignored => {
                            if action_for(key) == Some(Action::Back) {
                                self.focus_detail = false;
                                break 'key true;
                            }
                        }
                    }
                }
            }
            let detail_sel = match &self.detail {
                Some((_, d)) if self.focus_detail => Some(d.selected_object()),
                _ => None,
            };
            let (ctx, stack, _) = self.parts(theme);
            let top = stack.last_mut().expect("the bottom pane is always there");
            match top.handle(key, &ctx) {
                Outcome::Consumed => break 'key true,
                Outcome::Refused(why) | Outcome::Done(why) => {
                    *message = Some(why);
                    break 'key true;
                }
                Outcome::Open(req) => {
                    self.open(req, theme);
                    break 'key true;
                }
                Outcome::Ignored => {}
            }
            // The object keys (`p`, `r`, `o`, `d`, `y`) act on the focused pane's row.
            let sel = match detail_sel {
                Some(o) => o,
                None => top.selected_object(),
            };
            let class = top.selected_class();
            let picker = top.is_picker();
            let only = if action_for(key) == Some(Action::MergedPaths) {
                top.merge_only(&ctx)
            } else {
                None
            };
            let req = match action_for(key) {
                Some(Action::Back) if self.stack.len() > 1 => {
                    let p = self.stack.pop().expect("more than one pane");
                    self.forward.push(p);
                    break 'key true;
                }
                Some(Action::Forward) => {
                    match self.forward.pop() {
                        Some(p) => self.stack.push(p),
                        None => *message = Some(
                            "`]` does nothing here: no pane to go forward to (after Esc it goes back)"
                                .into(),
                        ),
                    }
                    break 'key true;
                }
                Some(Action::Paths) => sel.map(Request::Paths),
                Some(Action::Referrers) => sel.map(Request::Referrers),
                Some(Action::Outgoing) => sel.map(Request::Outgoing),
                Some(Action::DominatorTree) => Some(Request::Dominators(sel)),
                Some(Action::Threads) => Some(Request::Threads),
                // A filtered list (a cluster's, a diff's new objects) merges only its own.
                Some(Action::MergedPaths) => match (class, only) {
                    (Some(c), Some(only)) => {
                        self.push(Box::new(MergedPathsPane::of(c, Some(only))));
                        break 'key true;
                    }
                    (c, None) => c.map(Request::MergedPaths),
                    (None, Some(_)) => None,
                },
                Some(Action::Histogram) if self.stack.len() == 1 => {
                    *message = Some("`H` does nothing here: this is the class histogram".into());
                    break 'key true;
                }
                Some(Action::Histogram) => {
                    // Down to the histogram at the bottom; what was above it can be brought
                    // back with `]`, nearest first.
                    while self.stack.len() > 1 {
                        let p = self.stack.pop().expect("above the histogram");
                        self.forward.push(p);
                    }
                    break 'key true;
                }
                Some(Action::Suspects) | Some(Action::Waste) => {
                    let waste = action_for(key) == Some(Action::Waste);
                    if self.suspects.is_none() {
                        *message = Some(
                            "the leak suspects come with the dominator tree, still being built"
                                .into(),
                        );
                        break 'key true;
                    }
                    // Back to the suspects pane where one is on the stack (what was above it
                    // can be brought back with `]`).
                    if let Some(i) = self.stack.iter().position(|p| p.is_suspects()) {
                        while self.stack.len() > i + 1 {
                            let p = self.stack.pop().expect("above the suspects pane");
                            self.forward.push(p);
                        }
                        if waste {
                            let (ctx, stack, _) = self.parts(theme);
                            if let Some(top) = stack.last_mut() {
                                top.handle(key, &ctx);
                            }
                        }
                        break 'key true;
                    }
                    Some(Request::Suspects(waste))
                }
                Some(Action::Snapshots) if self.snap.snapshots.len() < 2 => {
                    *message = Some(
                        "`#` does nothing here: one snapshot in this file (a MoarVM file holds several)"
                            .into(),
                    );
                    break 'key true;
                }
                Some(Action::Snapshots) => Some(Request::Snapshots),
                // A picker (the snapshots of a file) closes on `q` as on `Esc`, as the
                // overlays do: `q` quits only outside them.
                Some(Action::Quit)
                    if picker
                        && self.stack.len() > 1
                        && !key.modifiers.contains(KeyModifiers::CONTROL) =>
                {
                    let p = self.stack.pop().expect("more than one pane");
                    self.forward.push(p);
                    break 'key true;
                }
                Some(Action::Copy) => {
                    *message = Some(match sel {
                        Some(o) => {
                            let name = self.snap.object_name(o);
                            if let Ok(mut c) = clipboard.lock() {
                                c.push(name.clone());
                            }
                            format!("copied {name} (OSC 52)")
                        }
                        None => "`y` does nothing here: no object is selected to copy".into(),
                    });
                    break 'key true;
                }
                Some(Action::Query) => {
                    self.open_query_line(message);
                    break 'key true;
                }
                // A pane without a filter of its own: `/` takes an object id.
                Some(Action::Filter) => {
                    self.goto_prompt = Some(String::new());
                    break 'key true;
                }
                _ => None,
            };
            match req {
                Some(req) => {
                    self.open(req, theme);
                    true
                }
                None => false,
            }
        };
        self.sync_detail(theme);
        used
    }

    /// A click at the screen cell (`x`, `y`): selects the row under it in the pane on top
    /// or (with `detail`) in the detail pane beside it, which then gets the keys.
    /// Whether a row was there.
    pub fn click(&mut self, x: u16, y: u16, theme: &Theme, detail: bool) -> bool {
        self.touched = true;
        self.last_key = Instant::now();
        // The query line keeps the keys (a double click's `Enter` would run it).
        if self.query_line.is_some() {
            return false;
        }
        let beside = detail && self.beside();
        let ctx = ctx_of(&self.snap, &self.dom, &self.jobs, theme);
        if let Some((_, d)) = self.detail.as_mut().filter(|_| beside) {
            if d.click(x, y, &ctx) {
                self.focus_detail = true;
                return true;
            }
        }
        let top = self
            .stack
            .last_mut()
            .expect("the bottom pane is always there");
        if !top.click(x, y, &ctx) {
            return false;
        }
        self.focus_detail = false;
        self.sync_detail(theme);
        true
    }

    /// A key while an object id is typed after `/` (a pane without a filter of its own):
    /// `Enter` opens its inspector, `Esc` gives up.
    fn goto_key(&mut self, key: &KeyEvent, theme: &Theme, message: &mut Option<String>) {
        use crossterm::event::{KeyCode, KeyModifiers};
        let Some(text) = self.goto_prompt.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.goto_prompt = None,
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
            KeyCode::Enter => {
                let text = self.goto_prompt.take().unwrap_or_default();
                let id = crate::ui::goto::object_id(&text);
                match id.and_then(|id| self.snap.find_object(id)) {
                    Some(o) => self.open(Request::Inspect(o), theme),
                    None if id.is_some() => {
                        *message = Some(format!(
                            "no object {} in this snapshot",
                            crate::ui::text::sanitize(text.trim())
                        ))
                    }
                    None => {
                        *message = Some(format!(
                            "`/` here takes an object id (@N, 0x…, #N), not {:?}",
                            crate::ui::text::sanitize(&text)
                        ))
                    }
                }
            }
            _ => {}
        }
    }

    /// The detail pane follows the selection: an object's inspector rebuilt as soon as
    /// the selected object changes; a class's merged paths once the selection has
    /// rested ([`Ready::rest`] without a key), the previous class's shown (stale) until
    /// then; dropped where there is none (or the screen is narrow).
    pub fn sync_detail(&mut self, theme: &Theme) {
        let want = if !self.wide {
            None
        } else if self.top().wants_detail() {
            self.top().selected_object().map(Detail::Object)
        } else if self.class_detail && self.touched && self.top().wants_class_detail() {
            // Not before the first key: a reopen's first frames (the histogram, then the
            // retained sizes) are not held back by a search over millions of objects
            // nobody asked about yet.
            self.top().selected_class().map(Detail::Class)
        } else {
            None
        };
        let shown = self.detail.as_ref().map(|(k, _)| *k);
        self.waiting = None;
        match want {
            Some(k) if shown == Some(k) => {}
            Some(Detail::Object(o)) => {
                let ctx = self.ctx(theme);
                let pane: Box<dyn Pane> = Box::new(InspectorPane::new(o, &ctx));
                self.set_detail(Some((Detail::Object(o), pane)));
            }
            Some(Detail::Class(c)) => {
                if self
                    .parked
                    .as_ref()
                    .is_some_and(|(k, _)| *k == Detail::Class(c))
                {
                    let p = self.parked.take();
                    self.set_detail(p);
                } else if self.last_key.elapsed() >= self.rest {
                    // Built after the frame that announces it (`Ready::work`).
                    let pane: Box<dyn Pane> = Box::new(MergedPathsPane::new(c));
                    self.set_detail(Some((Detail::Class(c), pane)));
                } else {
                    // Until the selection rests: another class's paths, marked stale.
                    if matches!(shown, Some(Detail::Object(_)) | None) {
                        let p = self.parked.take();
                        self.set_detail(p);
                    }
                    self.waiting = Some(c);
                }
            }
            None => {
                self.set_detail(None);
                self.focus_detail = false;
            }
        }
    }

    /// Puts `d` beside the list; a class's merged paths it replaces are kept aside.
    fn set_detail(&mut self, d: Option<(Detail, Box<dyn Pane>)>) {
        let old = std::mem::replace(&mut self.detail, d);
        if let Some(old @ (Detail::Class(_), _)) = old {
            self.parked = Some(old);
        }
    }

    /// Whether the detail pane (or the line that says one is coming) is drawn beside
    /// the pane on top.
    pub fn beside(&self) -> bool {
        let top = self.top();
        self.wide
            && (self.detail.is_some() || self.waiting.is_some())
            && (top.wants_detail() || (self.class_detail && top.wants_class_detail()))
    }

    /// What decides the detail pane beside the list: the width, the detail shown, and
    /// the class waiting for the selection to rest ([`crate::ui::app::App::tick`] says
    /// the screen changed when this did).
    pub fn beside_state(&self) -> (bool, Option<Detail>, Option<ClassId>) {
        (
            self.wide,
            self.detail.as_ref().map(|(k, _)| *k),
            self.waiting,
        )
    }

    /// How long until the selection has rested, while a class's merged paths wait for
    /// it (the run loop wakes then).
    pub fn rest_left(&self) -> Option<Duration> {
        self.waiting
            .map(|_| self.rest.saturating_sub(self.last_key.elapsed()))
    }

    /// Does the top pane's announced work ([`Pane::has_work`]), and the detail pane's
    /// (a class's merged paths); false when there is none.
    pub fn work(&mut self, theme: &Theme) -> bool {
        let ctx = ctx_of(&self.snap, &self.dom, &self.jobs, theme);
        let mut did = false;
        if let Some(top) = self.stack.last_mut().filter(|t| t.has_work()) {
            top.work(&ctx);
            did = true;
        }
        if let Some((k, d)) = self.detail.as_mut().filter(|(_, d)| d.has_work()) {
            d.work(&ctx);
            if matches!(k, Detail::Class(_)) {
                self.class_builds += 1;
            }
            did = true;
        }
        did
    }

    /// Takes the results of the panes' jobs that have come (see [`Pane::poll`]): whether
    /// any did.
    pub fn poll(&mut self, theme: &Theme) -> bool {
        let ctx = ctx_of(&self.snap, &self.dom, &self.jobs, theme);
        let mut changed = false;
        for p in self.stack.iter_mut().chain(self.forward.iter_mut()) {
            changed |= p.poll(&ctx);
        }
        for (_, p) in self.detail.iter_mut().chain(self.parked.iter_mut()) {
            changed |= p.poll(&ctx);
        }
        changed
    }

    /// The dominator tree is ready: every pane on either stack is told.
    pub fn set_dominators(&mut self, d: Arc<Dominators>, theme: &Theme) {
        self.dom = Some(d);
        let (ctx, stack, forward) = self.parts(theme);
        for p in stack.iter_mut().chain(forward.iter_mut()) {
            p.dominators_ready(&ctx);
        }
        let ctx = ctx_of(&self.snap, &self.dom, &self.jobs, theme);
        for (_, p) in self.detail.iter_mut().chain(self.parked.iter_mut()) {
            p.dominators_ready(&ctx);
        }
    }

    /// The leak suspects are found (after the tree, which panes show at once): a user who
    /// has not pressed a key yet is taken to them (the histogram is one `Esc` away); a
    /// busy one gets a message instead, returned here.
    pub fn set_suspects(&mut self, report: Arc<crate::suspects::Report>) -> Option<String> {
        self.suspects = Some(report.clone());
        if report.suspects.is_empty() {
            return None;
        }
        if self.touched || self.stack.len() > 1 {
            return Some(format!(
                "{} leak suspects found: press ! to see them",
                report.suspects.len()
            ));
        }
        self.stack
            .push(Box::new(SuspectsPane::new(report, Mode::Suspects)));
        None
    }

    pub fn open(&mut self, req: Request, theme: &Theme) {
        let ctx = self.ctx(theme);
        let pane: Box<dyn Pane> = match req {
            Request::Instances(c) => Box::new(InstancesPane::new(c, &ctx)),
            Request::Inspect(o) => Box::new(InspectorPane::new(o, &ctx)),
            Request::Paths(o) => Box::new(TreePane::new(TreeKind::Paths(o), &ctx)),
            Request::Referrers(o) => Box::new(TreePane::new(TreeKind::Referrers(o), &ctx)),
            Request::Outgoing(o) => Box::new(TreePane::new(TreeKind::Outgoing(o), &ctx)),
            Request::Dominators(o) => Box::new(TreePane::new(TreeKind::Dominators(o), &ctx)),
            Request::Threads => Box::new(ThreadsPane::new(&ctx)),
            Request::Snapshots => Box::new(SnapshotsPane::new(&ctx)),
            Request::MergedPaths(c) => Box::new(MergedPathsPane::new(c)),
            Request::Leaks => match &self.leaks {
                Some(l) => Box::new(crate::ui::panes::leaks::LeaksPane::new(l.clone())),
                None => return,
            },
            Request::LeakCluster(i, internal) => {
                let Some(c) = self
                    .leaks
                    .as_ref()
                    .and_then(|l| l.1.get(internal))
                    .and_then(|r| r.clusters.get(i))
                else {
                    return;
                };
                let Some(&first) = c.objects.first() else {
                    return;
                };
                // The cluster's objects, as the diff view lists the new ones of a class.
                let g = &self.snap.graph;
                let mut mask = vec![false; g.len()];
                for &o in &c.objects {
                    mask[o as usize] = true;
                }
                let class = g.class_of.get(first as usize);
                Box::new(InstancesPane::with_changed(
                    class,
                    &ctx,
                    Some((Arc::new(mask), "leaked")),
                ))
            }
            Request::Suspects(waste) => match &self.suspects {
                Some(r) => Box::new(SuspectsPane::new(
                    r.clone(),
                    if waste { Mode::Waste } else { Mode::Suspects },
                )),
                None => return,
            },
            Request::Snapshot(n) => {
                // The app reopens the file on that snapshot (see `App::on_key`).
                self.reopen = Some(n);
                return;
            }
        };
        self.push(pane);
    }

    /// Opens `goto` (`--goto`): an object's inspector or a class's instances at once, a view
    /// once the leak suspects are found (`Ok(Some(goto))` until then: the caller keeps it).
    /// `Err` says what the snapshot lacks. The suspects, found later, then do not take the
    /// screen.
    pub fn go_to(&mut self, goto: Goto, theme: &Theme) -> Result<Option<Goto>, String> {
        let clean = crate::ui::text::sanitize;
        let req = match &goto {
            Goto::Object(id) => match self.snap.find_object(id) {
                Some(o) => Request::Inspect(o),
                None => return Err(format!("--goto: no object {} in this snapshot", clean(id))),
            },
            Goto::Class(name) => match self.snap.graph.classes.iter().position(|c| &c.name == name)
            {
                Some(c) => Request::Instances(c as crate::heap::ClassId),
                None => {
                    let names = self.snap.graph.classes.iter().map(|c| c.name.as_str());
                    let meant = crate::heap::matcher::class_suggestion(names, name);
                    return Err(format!(
                        "--goto: no class named {}{}",
                        clean(name),
                        clean(&meant)
                    ));
                }
            },
            Goto::Suspects | Goto::Waste if self.suspects.is_none() => return Ok(Some(goto)),
            Goto::Suspects | Goto::Waste => Request::Suspects(goto == Goto::Waste),
        };
        self.open(req, theme);
        self.touched = true;
        Ok(None)
    }

    /// Puts `pane` on screen, on top of the stack (what `]` would bring back is gone).
    fn push(&mut self, pane: Box<dyn Pane>) {
        self.stack.push(pane);
        self.forward.clear();
    }
}
