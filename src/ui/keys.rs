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
    Forward,
    Open,
    Expand,
    Collapse,
    Paths,
    Referrers,
    Outgoing,
    DominatorTree,
    Threads,
    Copy,
    Changed,
    Side,
    Snapshots,
    Suspects,
    Waste,
    Histogram,
    Weak,
    Group,
    MergedPaths,
    SortMenu,
    Internal,
    /// `:`: the query line (SQL over the snapshot).
    Query,
    /// `<`: the split between side-by-side panes moves left (the right pane widens).
    SplitLeft,
    /// `>`: the split moves right (the left pane widens).
    SplitRight,
    /// `z`: the focused pane of a split takes the whole width, or gives it back.
    Zoom,
    Suspend,
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
        hint: Some("↑↓ move"),
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
        help: "go to the first row (g groups instead in a tree)",
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
        keys: &["S"],
        action: Action::SortMenu,
        help: "sort by a column: then r retained, c count, s shallow, n name",
        hint: None,
    },
    Binding {
        keys: &["/"],
        action: Action::Filter,
        help:
            "filter: exact (=), prefix (^), substring (+), fuzzy (~); Enter keeps, Esc clears, ↑ the last; an id (@N, 0x…, #N): its inspector",
        hint: Some("/ filter"),
    },
    Binding {
        keys: &["i"],
        action: Action::Summary,
        help: "summary of the snapshot",
        hint: Some("i summary"),
    },
    Binding {
        keys: &["Enter"],
        action: Action::Open,
        help: "open the selected row (or double-click it): a class's instances, an object's inspector",
        hint: Some("Enter open"),
    },
    Binding {
        keys: &["Esc", "Backspace"],
        action: Action::Back,
        help: "close an overlay, clear the filter, go back to the previous pane",
        hint: Some("Esc back"),
    },
    Binding {
        keys: &["]"],
        action: Action::Forward,
        help: "go forward again (after going back)",
        hint: None,
    },
    Binding {
        keys: &["Right", "l"],
        action: Action::Expand,
        help: "expand the selected tree row",
        hint: Some("→← expand"),
    },
    Binding {
        keys: &["Left", "h"],
        action: Action::Collapse,
        help: "collapse the selected tree row (or go to its parent)",
        hint: None,
    },
    Binding {
        keys: &["p"],
        action: Action::Paths,
        help: "shortest paths from GC roots to the selected object",
        hint: Some("p paths"),
    },
    Binding {
        keys: &["r"],
        action: Action::Referrers,
        help: "referrer tree of the selected object (who holds it)",
        hint: Some("r refs"),
    },
    Binding {
        keys: &["o"],
        action: Action::Outgoing,
        help: "outgoing-reference tree of the selected object",
        hint: None,
    },
    Binding {
        keys: &["d"],
        action: Action::DominatorTree,
        help: "dominator tree (from the selected object, or from the top)",
        hint: Some("d dominators"),
    },
    Binding {
        keys: &["t"],
        action: Action::Threads,
        help: "threads with their frames and the objects each frame holds",
        hint: Some("t threads"),
    },
    Binding {
        keys: &["P"],
        action: Action::MergedPaths,
        help: "the shortest paths of a class's instances from GC roots, merged (counts, sizes)",
        hint: None,
    },
    Binding {
        keys: &["g"],
        action: Action::Group,
        help: "trees, inspector: children or elements by class, or not; merged paths: a row's objects",
        hint: None,
    },
    Binding {
        keys: &["w"],
        action: Action::Weak,
        help: "paths: follow weak and soft references too, or not",
        hint: None,
    },
    Binding {
        keys: &["H"],
        action: Action::Histogram,
        help: "the class histogram, from anywhere (] walks forward again)",
        hint: None,
    },
    Binding {
        keys: &["!"],
        action: Action::Suspects,
        help: "leak suspects: what holds the most, named by the object a fix touches",
        hint: Some("! suspects"),
    },
    Binding {
        keys: &["W"],
        action: Action::Waste,
        help: "wasted memory: duplicate strings and arrays, sparse collections",
        hint: Some("W waste"),
    },
    Binding {
        keys: &["#"],
        action: Action::Snapshots,
        help: "the snapshots of a file that holds several (MoarVM): pick one to open",
        hint: None,
    },
    Binding {
        keys: &[":"],
        action: Action::Query,
        help: "a query in SQL over the snapshot (Tab completes, ↑↓ the history, Enter runs it, Esc closes); its rows a list where Enter, p, r, d work on a row's object; in the diff view over both snapshots (base.TABLE, target.TABLE, diff)",
        hint: None,
    },
    Binding {
        keys: &["I"],
        action: Action::Internal,
        help: "leaks: show or fold internal nodes, as leaks --internal",
        hint: Some("I internal"),
    },
    Binding {
        keys: &["y"],
        action: Action::Copy,
        help: "copy the selected object's id to the clipboard (OSC 52, works over SSH)",
        hint: None,
    },
    Binding {
        keys: &["n"],
        action: Action::Changed,
        help: "diff: changed classes or all; on a side, new (target) / gone (base) or all",
        hint: Some("n changed/all"),
    },
    Binding {
        keys: &["Tab"],
        action: Action::Side,
        help: "the list or the detail beside it (wide screens: the inspector, a class's merged paths); diff: the classes or the owners, base or target",
        hint: Some("Tab side"),
    },
    Binding {
        keys: &["<"],
        action: Action::SplitLeft,
        help: "side-by-side panes: move the split left, widening the right pane (kept for the session)",
        hint: None,
    },
    Binding {
        keys: &[">"],
        action: Action::SplitRight,
        help: "side-by-side panes: move the split right, widening the left pane (kept for the session)",
        hint: None,
    },
    Binding {
        keys: &["z"],
        action: Action::Zoom,
        help: "side-by-side panes: the focused one takes the whole width; z or Esc gives the other back",
        hint: None,
    },
    Binding {
        keys: &["?"],
        action: Action::Help,
        help: "this help",
        hint: Some("? help"),
    },
    Binding {
        keys: &["Ctrl-z"],
        action: Action::Suspend,
        help: "suspend to the shell (fg comes back)",
        hint: None,
    },
    Binding {
        keys: &["q", "Ctrl-c"],
        action: Action::Quit,
        help: "quit (in an overlay or a picker, q closes it)",
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

/// The action of a key in a tree, where `g` groups (and `Home` goes to the top).
pub fn tree_action_for(ev: &KeyEvent) -> Option<Action> {
    match action_for(ev) {
        Some(Action::Top) if key_name(ev) == "g" => Some(Action::Group),
        a => a,
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

/// The hints of the given actions only, in the keymap's order (each pane names the keys
/// that matter in it, so the line fits in 80 columns).
pub fn hint_line_for(actions: &[Action]) -> String {
    KEYMAP
        .iter()
        .filter(|b| actions.contains(&b.action))
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
        assert_eq!(action_for(&k(KeyCode::Char('g'))), Some(Action::Top));
        assert_eq!(tree_action_for(&k(KeyCode::Char('g'))), Some(Action::Group));
        assert_eq!(tree_action_for(&k(KeyCode::Home)), Some(Action::Top));
    }

    #[test]
    fn no_key_is_bound_twice() {
        let mut seen = std::collections::HashSet::new();
        for b in KEYMAP {
            // The one exception: `g` groups in a tree ([`tree_action_for`]).
            if b.action == Action::Group {
                continue;
            }
            for k in b.keys {
                assert!(seen.insert(*k), "{k} bound twice");
            }
        }
    }
}
