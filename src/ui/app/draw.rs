//! Drawing the app: the screens, the status and hint lines, the help and the overlays.

use super::*;

impl App {
    /// The file's name for the status line (`path`, cleaned, when it has none).
    fn file_name(&self, path: &str) -> String {
        self.path
            .file_name()
            .map(|n| sanitize(&n.to_string_lossy()).into_owned())
            .unwrap_or_else(|| path.to_string())
    }

    pub fn draw(&self, f: &mut Frame) {
        let area = f.area();
        self.width.set(area.width);
        let [main, status, hints] = Layout::vertical([
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let file = sanitize(&self.path.display().to_string()).into_owned();
        match &self.screen {
            Screen::Loading if self.early.is_some() => {
                let Some(h) = &self.early else { return };
                let [table, g] =
                    Layout::vertical([Constraint::Min(3), Constraint::Length(3)]).areas(main);
                h.draw(f, table, &self.theme);
                let (phase, _, _) = self.progress.get();
                let gauge =
                    Gauge::default()
                        .block(Block::default().borders(Borders::ALL).title(
                            " Building the index: references, instances, then retained sizes ",
                        ))
                        .ratio(self.progress.fraction())
                        .label(phase.clone());
                f.render_widget(gauge, g);
                let count: u64 = h.rows().iter().map(|r| r.count).sum();
                let trunc = truncated_mark(self.early_truncated);
                let name = self.file_name(&file);
                let line = match &self.message {
                    Some(m) => format!(" {}", sanitize(m)),
                    None => format!(
                        " HPROF · {} objects{trunc}{} · indexing: {phase} {:.0}% · {name}",
                        thousands(count),
                        on_disk_mark(),
                        self.progress.fraction() * 100.0
                    ),
                };
                f.render_widget(Paragraph::new(line).style(self.theme.status()), status);
            }
            Screen::Loading => {
                let (phase, _, _) = self.progress.get();
                let [_, g, _] = Layout::vertical([
                    Constraint::Percentage(40),
                    Constraint::Length(3),
                    Constraint::Min(0),
                ])
                .areas(main);
                let gauge = Gauge::default()
                    .block(
                        Block::default()
                            .borders(Borders::ALL)
                            .title(format!(" Opening {file} ")),
                    )
                    .ratio(self.progress.fraction())
                    .label(if phase.is_empty() {
                        "starting".to_string()
                    } else {
                        phase
                    });
                f.render_widget(gauge, g);
                f.render_widget(
                    Paragraph::new(format!(" {file} · loading{}", on_disk_mark()))
                        .style(self.theme.status()),
                    status,
                );
            }
            Screen::Failed(msg) => {
                let p = Paragraph::new(format!("{}\n\nq quits.", sanitize(&msg.to_string())))
                    .style(self.theme.warn())
                    .wrap(Wrap { trim: false })
                    .block(
                        Block::default()
                            .borders(Borders::ALL)
                            .title(" Cannot open "),
                    );
                f.render_widget(p, main);
                f.render_widget(
                    Paragraph::new(format!(" {file} · failed")).style(self.theme.status()),
                    status,
                );
            }
            Screen::Ready(r) => {
                let ctx = r.ctx(&self.theme);
                let beside = r.beside();
                // The pane with the keys: the detail beside the list after `Tab`.
                let detail = r.detail.as_ref().map(|(_, d)| d.as_ref());
                let focused: &dyn crate::ui::panes::Pane = match detail {
                    Some(d) if beside && r.focus_detail => d,
                    _ => r.top(),
                };
                // The focused pane's selected row whole, under the panes.
                let main = self.line_under(f, main, focused.selected_line(&ctx));
                // Side by side (a blank column between them), or the focused one alone
                // when zoomed.
                let (list, right) = match (beside, self.split.zoom) {
                    (false, _) => (Some(main), None),
                    (true, true) if r.focus_detail => (None, Some(main)),
                    (true, true) => (Some(main), None),
                    (true, false) => {
                        let [l, rt] = split::columns(main, self.split.left(ready::LIST_SHARE));
                        (Some(l), Some(rt))
                    }
                };
                if let Some(list) = list {
                    r.top().draw(f, list, &ctx);
                }
                if let Some(right) = right {
                    // A class whose merged paths wait for the selection to rest: said
                    // above the previous class's, which are stale until then.
                    let beside = match r.waiting {
                        Some(c) if right.height > 2 => {
                            let [head, body] =
                                Layout::vertical([Constraint::Length(1), Constraint::Min(1)])
                                    .areas(right);
                            use crate::ui::text::{fit_parts, Part};
                            let name = sanitize(&r.snap.graph.classes[c as usize].name);
                            let stale = if r.detail.is_some() {
                                "stale below · "
                            } else {
                                ""
                            };
                            // The class's name gives way, in its middle.
                            let text = fit_parts(
                                vec![
                                    Part::keep(format!("  {stale}paths of ")),
                                    Part::shrink(name.into_owned(), 8),
                                    Part::keep(" once the selection rests…"),
                                ],
                                head.width as usize,
                            );
                            f.render_widget(Paragraph::new(text).style(self.theme.dim()), head);
                            body
                        }
                        _ => right,
                    };
                    match detail {
                        Some(d) => d.draw(f, beside, &ctx),
                        None => {
                            crate::ui::panes::titled(f, beside, "Merged paths from GC roots");
                        }
                    }
                }
                // Both shown: the focused side is marked at its title's left end.
                if let (Some(l), Some(rt)) = (list, right) {
                    let at = if r.focus_detail { rt } else { l };
                    f.render_widget(
                        Paragraph::new("▶").style(self.theme.selected()),
                        Rect::new(at.x, at.y, 1, 1),
                    );
                }
                let g = &r.snap.graph;
                let sel = focused
                    .selected_text(&ctx)
                    .map(|t| sanitize(&t).into_owned());
                let trunc = truncated_mark(r.snap.truncated.is_some());
                // Most useful first: a long path must not push the counts off screen.
                let name = self.file_name(&file);
                let retained = if r.dom.is_some() && r.suspects.is_none() && self.dom_rx.is_some() {
                    " · finding leak suspects".to_string()
                } else if r.dom.is_some() {
                    String::new()
                } else {
                    format!(
                        " · retained sizes: computing {:.0}%",
                        self.dom_progress.fraction() * 100.0
                    )
                };
                // The query line, while it is open, in place of the status.
                let query = r.query_status(status.width as usize);
                let line = match (query, &self.message) {
                    (Some(q), _) => q,
                    (None, Some(m)) => format!(" {}", sanitize(m)),
                    (None, None) => status_line(
                        format!(
                            " {} · {} objects{trunc}{}{retained}",
                            r.snap.format.title(),
                            thousands(g.len() as u64),
                            on_disk_mark(),
                        ),
                        &name,
                        sel,
                        status.width as usize,
                    ),
                };
                f.render_widget(Paragraph::new(line).style(self.theme.status()), status);
            }
            Screen::Diff(v) => {
                // On the sides, the focused side's selected row whole under them (the
                // table draws its own).
                let main = match v.sides {
                    Some(s) => {
                        let r = v.side(s);
                        self.line_under(f, main, r.top().selected_line(&r.ctx(&self.theme)))
                    }
                    None => main,
                };
                v.draw(
                    f,
                    main,
                    &self.theme,
                    self.dom_progress.fraction(),
                    self.split,
                );
                let sel = v
                    .selected_text(&self.theme)
                    .map(|t| sanitize(&t).into_owned());
                let count = |s: Side| thousands(v.side(s).snap.graph.len() as u64);
                let trunc = if v.base.snap.truncated.is_some() || v.target.snap.truncated.is_some()
                {
                    " · TRUNCATED"
                } else {
                    ""
                };
                let title = sanitize(self.title.as_deref().unwrap_or_default()).into_owned();
                // The query line, while it is open, in place of the status.
                let query = v
                    .query_line_open()
                    .and_then(|r| r.query_status(status.width as usize));
                let line = match (query, &self.message) {
                    (Some(q), _) => q,
                    (None, Some(m)) => format!(" {}", sanitize(m)),
                    (None, None) => status_line(
                        format!(
                            " diff · {} → {} objects{trunc}",
                            count(Side::Base),
                            count(Side::Target),
                        ),
                        &title,
                        sel,
                        status.width as usize,
                    ),
                };
                f.render_widget(Paragraph::new(line).style(self.theme.status()), status);
            }
        }
        let hint = match &self.screen {
            // What a key on the query line said, or its keys.
            Screen::Ready(r) if r.query_line.is_some() => match &self.message {
                Some(m) => sanitize(m).into_owned(),
                None => r.query_hint().unwrap_or_default(),
            },
            Screen::Ready(r) if r.goto_prompt.is_some() => format!(
                "go to object: {}▏ (@N, 0x…, #N) Enter opens its inspector, Esc gives up",
                crate::ui::text::sanitize(r.goto_prompt.as_deref().unwrap_or(""))
            ),
            Screen::Ready(r) if r.top().is_editing() => r.top().editing_hint().unwrap_or_default(),
            Screen::Ready(r) => hint_line_for(r.top().hints()),
            Screen::Diff(v) if v.query_line_open().is_some() => match &self.message {
                Some(m) => sanitize(m).into_owned(),
                None => v
                    .query_line_open()
                    .and_then(|r| r.query_hint())
                    .unwrap_or_default(),
            },
            Screen::Diff(v) => v.editing_hint().unwrap_or_else(|| hint_line_for(v.hints())),
            Screen::Loading => match &self.early {
                Some(h) if h.is_editing() => {
                    crate::ui::panes::Pane::editing_hint(h).unwrap_or_default()
                }
                Some(_) => hint_line_for(&[
                    Action::Down,
                    Action::Sort,
                    Action::Filter,
                    Action::Help,
                    Action::Quit,
                ]),
                None => hint_line(),
            },
            _ => hint_line(),
        };
        f.render_widget(Paragraph::new(Span::styled(hint, self.theme.dim())), hints);
        if self.help {
            self.draw_help(f, area);
        }
        if self.summary {
            let shown = match &self.screen {
                Screen::Ready(r) => Some(r.as_ref()),
                Screen::Diff(v) => Some(v.side(v.sides.unwrap_or(Side::Target))),
                _ => None,
            };
            if let Some(r) = shown {
                self.draw_overlay(
                    f,
                    area,
                    " Summary ",
                    r.suspects
                        .as_deref()
                        .and_then(crate::present::top_suspect_sentence)
                        .map(|t| ("top suspect".to_string(), t))
                        .iter()
                        .chain(r.summary_lines().iter())
                        .map(|(k, v)| Line::from(format!("{k:<22}{}", sanitize(v))))
                        .collect(),
                );
            }
        }
    }

    /// The selected row `line` whole under the panes, where there is room: wrapped at
    /// spaces over as many rows as it needs, up to a quarter of the screen (its last
    /// row then ends with `…`). Returns the area left above it.
    fn line_under(&self, f: &mut Frame, main: Rect, line: Option<String>) -> Rect {
        let Some(line) = line.filter(|_| main.height > 8) else {
            return main;
        };
        let rows = crate::ui::text::wrap_rows(
            &format!("▸ {}", sanitize(&line)),
            main.width as usize,
            (main.height / 4).max(2) as usize,
        );
        let n = rows.len() as u16;
        let [top, below] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(n)]).areas(main);
        let lines: Vec<Line> = rows.into_iter().map(Line::from).collect();
        f.render_widget(Paragraph::new(lines).style(self.theme.dim()), below);
        top
    }

    fn draw_help(&self, f: &mut Frame, area: Rect) {
        // The overlay's inner width (as `draw_overlay` sizes it): each key's help wraps
        // under its own column, not under the keys.
        let inner = (area.width.saturating_sub(4).min(90).saturating_sub(2) as usize).max(1);
        let key_w = 30.min(inner / 3).max(1);
        let text_w = inner.saturating_sub(key_w).max(8);
        let mut lines: Vec<Line> = Vec::new();
        for b in KEYMAP {
            let keys = b
                .keys
                .iter()
                .map(|k| if *k == " " { "Space" } else { k })
                .collect::<Vec<_>>()
                .join(" ");
            let keys = if keys.chars().count() >= key_w {
                // Keys wider than their column get a line of their own.
                lines.push(Line::from(Span::styled(keys, self.theme.header())));
                String::new()
            } else {
                keys
            };
            for (k, part) in wrap_words(b.help, text_w).into_iter().enumerate() {
                let left = if k == 0 { keys.as_str() } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("{left:<key_w$}"), self.theme.header()),
                    Span::raw(part),
                ]));
            }
        }
        self.draw_overlay(f, area, " Keys ", lines);
    }

    /// An overlay box over the panes: as tall as its wrapped lines, at most the screen;
    /// a longer one scrolls with the movement keys and says so in its title.
    fn draw_overlay(&self, f: &mut Frame, area: Rect, title: &str, lines: Vec<Line>) {
        let w = area.width.saturating_sub(4).min(90);
        let inner = w.saturating_sub(2).max(1);
        // The rows as the paragraph wraps them: at spaces, a word that does not fit going
        // to the next row whole. Counted as characters filling rows, a long path (the
        // summary's index cache entry in a deep checkout) took rows more than counted and
        // the last lines could not be scrolled to.
        let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false });
        let rows = paragraph.line_count(inner);
        let h = (rows as u16 + 2).min(area.height.saturating_sub(2));
        let shown = h.saturating_sub(2);
        self.overlay_page.set(shown);
        let max_scroll = (rows as u16).saturating_sub(shown);
        self.overlay_max.set(max_scroll);
        let scroll = self.overlay_scroll.min(max_scroll);
        let more = if max_scroll == 0 {
            "(any key closes)".to_string()
        } else {
            format!("(↑↓ scroll {}/{}; other keys close)", scroll + shown, rows)
        };
        let r = Rect::new(area.x + (area.width - w) / 2, area.y + 1, w, h);
        f.render_widget(Clear, r);
        f.render_widget(
            paragraph.scroll((scroll, 0)).block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(format!("{title}{more} ")),
            ),
            r,
        );
    }
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word is
/// cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let (lw, ww) = (line.chars().count(), word.chars().count());
        if lw > 0 && lw + 1 + ww > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            let tail: String = line.chars().skip(width).collect();
            out.push(head);
            line = tail;
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

/// The status line: `head` (the format, the counts) whole, then the file's name and the
/// selection, cut in their middle where the line is too narrow, the selection's id (its
/// last word) never: a long file name gives way first.
fn status_line(head: String, name: &str, sel: Option<String>, cells: usize) -> String {
    use crate::ui::text::{fit_parts, width, Part};
    let mut parts = vec![Part::keep(head)];
    if !name.is_empty() {
        parts.push(Part::keep(" · "));
        parts.push(Part::shrink(name, 8));
    }
    if let Some(t) = sel {
        parts.push(Part::keep(" · "));
        match t.rsplit_once(' ') {
            Some((what, id)) => {
                parts.push(Part::shrink(what, 16));
                parts.push(Part::keep(format!(" {id}")));
            }
            // An id alone is kept; a class's name may give way.
            None if width(&t) <= 24 => parts.push(Part::keep(t)),
            None => parts.push(Part::shrink(t, 16)),
        }
    }
    fit_parts(parts, cells)
}

/// The status line's mark of an index built on disk, because it would not fit in the
/// memory this process may use ([`crate::sys::spill`]); nothing in memory, the usual.
fn on_disk_mark() -> &'static str {
    if crate::sys::spill::spilling() {
        " · on disk"
    } else {
        ""
    }
}

/// The status line's mark of a file read only as far as it is whole.
fn truncated_mark(truncated: bool) -> &'static str {
    if truncated {
        " · TRUNCATED"
    } else {
        ""
    }
}
