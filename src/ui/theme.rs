//! Colours. Only the sixteen named ones, written in the terminal's own words by
//! [`super::colours`] (ANSI codes where it has fewer than 256), and plain when
//! `NO_COLOR` is set (no-color.org).

use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Copy, Debug)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn from_env() -> Self {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    pub fn header(&self) -> Style {
        let s = Style::default().add_modifier(Modifier::BOLD);
        if self.color {
            s.fg(Color::Yellow)
        } else {
            s
        }
    }

    pub fn selected(&self) -> Style {
        if self.color {
            Style::default().bg(Color::Blue).fg(Color::White)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    /// The style of a list row: [`Theme::selected`] on the selected one, plain otherwise.
    pub fn row(&self, selected: bool) -> Style {
        if selected {
            self.selected()
        } else {
            Style::default()
        }
    }

    pub fn status(&self) -> Style {
        if self.color {
            Style::default().bg(Color::DarkGray).fg(Color::White)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }

    pub fn warn(&self) -> Style {
        if self.color {
            Style::default().fg(Color::Red)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        }
    }
}
