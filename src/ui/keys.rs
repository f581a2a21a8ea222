//! The one keymap: key handling and the `?` overlay both read this table, so the help can
//! never disagree with what the keys do (the way ripgrep's flag definitions and gitui's
//! key list work).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Sort,
    Filter,
    Summary,
    Help,
    Back,
    Quit,
}

pub struct Binding {
    /// Key names as [`key_name`] spells them.
    pub keys: &'static [&'static str],
    pub action: Action,
    pub help: &'static str,
    /// Shown in the hint line at the bottom.
    pub hint: Option<&'static str>,
}

pub const KEYMAP: &[Binding] = &[
    Binding {
        keys: &["Up", "k"],
        action: Action::Up,
        help: "move up",
        hint: None,
    },
    Binding {
        keys: &["Down", "j"],
        action: Action::Down,
        help: "move down",
        hint: Some("↑↓/jk move"),
    },
    Binding {
        keys: &["PageUp", "Ctrl-b", "Ctrl-u"],
        action: Action::PageUp,
        help: "page up",
        hint: None,
    },
    Binding {
        keys: &["PageDown", "Ctrl-f", "Ctrl-d", " "],
        action: Action::PageDown,
        help: "page down",
        hint: None,
    },
    Binding {
        keys: &["Home", "g"],
        action: Action::Top,
        help: "go to the first row",
        hint: None,
    },
    Binding {
        keys: &["End", "G"],
        action: Action::Bottom,
        help: "go to the last row",
        hint: None,
    },
    Binding {
        keys: &["s"],
        action: Action::Sort,
        help: "change the sort column",
        hint: Some("s sort"),
    },
    Binding {
        keys: &["/"],
        action: Action::Filter,
        help: "fuzzy filter (Enter keeps, Esc clears)",
        hint: Some("/ filter"),
    },
    Binding {
        keys: &["i"],
        action: Action::Summary,
        help: "summary of the snapshot",
        hint: Some("i summary"),
    },
    Binding {
        keys: &["?"],
        action: Action::Help,
        help: "this help",
        hint: Some("? help"),
    },
    Binding {
        keys: &["Esc", "Backspace"],
        action: Action::Back,
        help: "close an overlay, clear the filter",
        hint: None,
    },
    Binding {
        keys: &["q", "Ctrl-c"],
        action: Action::Quit,
        help: "quit",
        hint: Some("q quit"),
    },
];

/// The name of a key as the keymap spells it.
pub fn key_name(ev: &KeyEvent) -> String {
    let base = match ev.code {
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Up => "Up".into(),
        KeyCode::Down => "Down".into(),
        KeyCode::Left => "Left".into(),
        KeyCode::Right => "Right".into(),
        KeyCode::PageUp => "PageUp".into(),
        KeyCode::PageDown => "PageDown".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Backspace => "Backspace".into(),
        KeyCode::Tab => "Tab".into(),
        _ => return String::new(),
    };
    if ev.modifiers.contains(KeyModifiers::CONTROL) {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

pub fn action_for(ev: &KeyEvent) -> Option<Action> {
    let name = key_name(ev);
    KEYMAP
        .iter()
        .find(|b| b.keys.contains(&name.as_str()))
        .map(|b| b.action)
}

/// The hint line: the keys that matter most.
pub fn hint_line() -> String {
    KEYMAP
        .iter()
        .filter_map(|b| b.hint)
        .collect::<Vec<_>>()
        .join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vim_keys_and_arrows_both_work() {
        let k = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(action_for(&k(KeyCode::Char('j'))), Some(Action::Down));
        assert_eq!(action_for(&k(KeyCode::Down)), Some(Action::Down));
        assert_eq!(action_for(&k(KeyCode::Char('G'))), Some(Action::Bottom));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&ctrl_c), Some(Action::Quit));
    }

    #[test]
    fn no_key_is_bound_twice() {
        let mut seen = std::collections::HashSet::new();
        for b in KEYMAP {
            for k in b.keys {
                assert!(seen.insert(*k), "{k} bound twice");
            }
        }
    }
}
