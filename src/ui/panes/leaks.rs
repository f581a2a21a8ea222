//! memlab's three-snapshot view (`heaptui BASELINE TARGET FINAL`): the objects
//! allocated between BASELINE and TARGET that are still in FINAL, clustered by class
//! and retainer path as `heaptui leaks` prints them ([`crate::leaks`]), largest
//! retained size first, the engine's own objects folded into what holds them (`I` shows
//! them, as `leaks --internal` does). `Enter` on a cluster lists its objects (with the
//! inspector beside them on a wide screen).
//! The clusters are found after the frame that announces it ([`Pane::has_work`]).

use std::sync::{Arc, OnceLock};

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::histogram::thousands;
use super::list::ListState;
use super::{human, titled, Ctx, Outcome, Pane, Request};
use crate::heap::ObjId;
use crate::leaks::{LeakIds, Report};
use crate::ui::keys::{action_for, Action};
use crate::ui::text::{fit_parts, sanitize, Part};

/// The leaks of a three-snapshot view: the ids new in TARGET, and the clusters once
/// found (shared with the app, which opens a cluster's objects).
pub type Leaks = (Arc<LeakIds>, Arc<Reports>);

/// The clusters, each way they have been asked for: the runtime's internal nodes folded
/// under their owner (as `heaptui leaks` does), or shown (`leaks --internal`, `I`).
#[derive(Default)]
pub struct Reports {
    folded: OnceLock<Report>,
    internal: OnceLock<Report>,
}

impl Reports {
    /// The clusters with the internal nodes shown (`internal`) or folded, once found.
    pub fn get(&self, internal: bool) -> Option<&Report> {
        self.cell(internal).get()
    }

    fn cell(&self, internal: bool) -> &OnceLock<Report> {
        if internal {
            &self.internal
        } else {
            &self.folded
        }
    }
}

pub struct LeaksPane {
    leaks: Leaks,
    list: ListState,
    /// `I`: the runtime's internal nodes (`(compiled code)`, `(object shape)`,
    /// `(system)`, `(synthetic)`) shown as clusters of their own.
    internal: bool,
}

impl LeaksPane {
    pub fn new(leaks: Leaks) -> Self {
        LeaksPane {
            leaks,
            list: ListState::new(),
            internal: false,
        }
    }

    fn report(&self) -> Option<&Report> {
        self.leaks.1.get(self.internal)
    }
}

impl Pane for LeaksPane {
    fn click(&mut self, x: u16, y: u16, _ctx: &Ctx) -> bool {
        let n = self.report().map_or(0, |r| r.clusters.len());
        self.list.click(x, y, n)
    }

    fn title(&self, _ctx: &Ctx) -> String {
        match self.report() {
            None => "Leaks: clustering the objects new in TARGET still in FINAL…".into(),
            Some(r) => format!(
                "Leaks: {} new in TARGET still in FINAL, {} clusters ({}{})",
                thousands(r.objects as u64),
                thousands(r.clusters.len() as u64),
                r.kind,
                if self.internal {
                    ", internal shown".to_string()
                } else if r.folded > 0 {
                    format!(", {} folded", thousands(r.folded as u64))
                } else {
                    String::new()
                }
            ),
        }
    }

    fn handle(&mut self, key: &KeyEvent, _ctx: &Ctx) -> Outcome {
        let Some(a) = action_for(key) else {
            return Outcome::Ignored;
        };
        let n = self.report().map_or(0, |r| r.clusters.len());
        if self.list.apply(a, n) {
            self.list.scroll(n);
            return Outcome::Consumed;
        }
        match a {
            Action::Open if self.list.selected < n => {
                Outcome::Open(Request::LeakCluster(self.list.selected, self.internal))
            }
            Action::Internal => {
                // The other report is found (once) by the work step, after a frame.
                self.internal = !self.internal;
                self.list = ListState::new();
                Outcome::Done(if self.internal {
                    "the runtime's internal nodes shown: (compiled code), (object shape), \
                     (system), (synthetic) (I folds them into their owner)"
                        .into()
                } else {
                    "the runtime's internal nodes folded into their owner (I shows them)".into()
                })
            }
            _ => Outcome::Ignored,
        }
    }

    fn has_work(&self) -> bool {
        self.report().is_none()
    }

    fn work(&mut self, ctx: &Ctx) {
        if let Some(d) = ctx.dom {
            let internal = self.internal;
            let r = crate::leaks::find(&self.leaks.0, ctx.snap, d, internal).unwrap_or(Report {
                kind: "no ids".into(),
                clusters: Vec::new(),
                objects: 0,
                folded: 0,
            });
            let _ = self.leaks.1.cell(internal).set(r);
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &Ctx) {
        let inner = titled(f, area, &self.title(ctx));
        let Some(r) = self.report() else {
            let msg = if ctx.dom.is_none() {
                "waiting for the dominator tree of FINAL"
            } else {
                "finding the clusters…"
            };
            f.render_widget(Paragraph::new(Span::styled(msg, ctx.theme.dim())), inner);
            return;
        };
        if r.clusters.is_empty() {
            f.render_widget(
                Paragraph::new(Span::styled(
                    "no object allocated between BASELINE and TARGET is still in FINAL",
                    ctx.theme.dim(),
                )),
                inner,
            );
            return;
        }
        let w = inner.width as usize;
        let range = self.list.visible_in(inner, r.clusters.len());
        let lines: Vec<Line> = range
            .map(|i| {
                let c = &r.clusters[i];
                let figures = format!(
                    "{:>10} {:>7}  ",
                    human(c.retained),
                    thousands(c.objects.len() as u64)
                );
                let mut parts = vec![
                    Part::keep(figures),
                    Part::shrink(sanitize(&c.class).into_owned(), 8),
                ];
                if !c.shape.is_empty() {
                    parts.push(Part::shrink(
                        format!("  ← {}", sanitize(&c.shape.join(" → "))),
                        0,
                    ));
                }
                Line::from(Span::styled(
                    fit_parts(parts, w),
                    ctx.theme.row(i == self.list.selected),
                ))
            })
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }

    fn selected_object(&self) -> Option<ObjId> {
        let r = self.report()?;
        r.clusters.get(self.list.selected)?.objects.first().copied()
    }

    fn selected_line(&self, _ctx: &Ctx) -> Option<String> {
        let c = self.report()?.clusters.get(self.list.selected)?;
        Some(format!(
            "{} × {} · retained {} · held by {}",
            thousands(c.objects.len() as u64),
            c.class,
            human(c.retained),
            if c.shape.is_empty() {
                "(no path from a GC root looked for)".to_string()
            } else {
                c.shape.join(" → ")
            }
        ))
    }

    fn hints(&self) -> &'static [Action] {
        &[
            Action::Down,
            Action::Open,
            Action::Back,
            Action::Paths,
            Action::Internal,
            Action::Help,
            Action::Quit,
        ]
    }
}
