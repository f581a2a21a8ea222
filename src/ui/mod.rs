//! The terminal interface (ratatui + crossterm): the event loop in `app`, the keymap in
//! `keys`, one file per pane in `panes`, colours in `theme`, and `text`, which every piece
//! of dump-derived text passes through before it is drawn.

pub mod app;
pub mod colours;
pub mod events;
pub mod goto;
pub mod keys;
pub mod panes;
pub mod query_line;
pub mod terminal;
/// Sanitising and fitting text: `crate::text`, shared with the CLI.
pub use crate::text;
pub mod theme;

use std::io::IsTerminal;
use std::path::Path;

use crate::error::{Error, Result};

/// `heaptui FILE`: the TUI on one snapshot.
/// The TUI on one file, the diff of two, or the leaks of three (`heaptui FILE...`):
/// what `main` hands the CLI for its command without a subcommand.
/// `goto` is `--goto`'s value (`OBJECT`, `class:NAME`, `view:suspects`, `view:waste`),
/// checked before anything else (a usage error, exit 1).
pub fn run_files(files: &[std::path::PathBuf], goto: Option<&str>) -> Result<()> {
    let paths: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let goto = match goto {
        None => None,
        Some(_) if paths.len() != 1 => {
            return Err(Error::Usage(
                "--goto opens one snapshot: heaptui FILE --goto OBJECT|class:NAME|view:suspects|view:waste"
                    .into(),
            ))
        }
        Some(g) => Some(goto::Goto::parse(g).map_err(Error::Usage)?),
    };
    run_app(&paths, goto)
}

pub fn run(path: &Path) -> Result<()> {
    run_app(&[path], None)
}

/// `heaptui BASELINE TARGET FINAL`: memlab's three-snapshot view, the leaks.
pub fn run_leaks(baseline: &Path, target: &Path, final_: &Path) -> Result<()> {
    run_app(&[baseline, target, final_], None)
}

/// `heaptui BASE TARGET`: the TUI's diff view.
pub fn run_diff(base: &Path, target: &Path) -> Result<()> {
    run_app(&[base, target], None)
}

/// The app for `heaptui FILE...`: one snapshot, the diff of two, or the three-snapshot
/// view; for three snapshots of a format whose objects cannot keep their ids between
/// dumps (HPROF, Go, MoarVM), which that view needs, the owners that grew from BASELINE
/// to FINAL (the diff view), saying so.
pub fn app_for(paths: &[&Path], goto: Option<goto::Goto>) -> Result<app::App> {
    Ok(match paths {
        [one] => {
            let mut app = app::App::load(one.to_path_buf());
            app.go_to(goto);
            app
        }
        [base, target] => app::App::load_diff(base.to_path_buf(), target.to_path_buf()),
        [a, _, c] if !crate::session::format_of(a)?.ids_can_survive() => {
            let format = crate::session::format_of(a)?;
            let mut app = app::App::load_diff(a.to_path_buf(), c.to_path_buf());
            app.message = Some(format!(
                "{} snapshots keep no object ids between dumps, which the three-snapshot view \
                 matches by: showing the owners that grew from BASELINE to FINAL instead \
                 (`heaptui leaks` lists those that grew by TARGET and stayed grown)",
                format.title()
            ));
            app
        }
        [a, b, c] => app::App::load_leaks(a.to_path_buf(), b.to_path_buf(), c.to_path_buf()),
        _ => return Err(Error::Usage("heaptui FILE or heaptui BASE TARGET".into())),
    })
}

fn run_app(paths: &[&Path], goto: Option<goto::Goto>) -> Result<()> {
    let depth = colours::Depth::from_env();
    if depth == colours::Depth::Dumb {
        return Err(Error::Terminal(if paths.len() == 3 {
            "TERM=dumb: this terminal cannot show the TUI; use `heaptui leaks BASELINE \
             TARGET FINAL`, or run heaptui in a terminal that moves the cursor"
                .into()
        } else {
            "TERM=dumb: this terminal cannot show the TUI; use the batch commands \
             (`heaptui summary FILE`, `heaptui suspects FILE`, `heaptui histogram FILE`; \
             see heaptui --help), or run heaptui in a terminal that moves the cursor"
                .into()
        }));
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(Error::Usage(if paths.len() == 3 {
            "the TUI needs a terminal; for scripts use `heaptui leaks BASELINE TARGET FINAL`".into()
        } else {
            "the TUI needs a terminal; for scripts use `heaptui summary FILE` or `heaptui histogram FILE`".into()
        }));
    }
    // Fail before taking over the screen when a file cannot even be opened.
    for &path in paths {
        crate::session::check_openable(path)?;
    }
    let mut app = app_for(paths, goto)?;
    let io_err = |e: std::io::Error| Error::io(Path::new("<terminal>"), e);
    // The queue the loop waits on, fed by the terminal's events (the input thread), the
    // signals (the guard's watcher) and the loading threads and jobs (the app's own).
    let queue = app.queue().clone();
    let guard = terminal::TerminalGuard::enter(queue.notifier()).map_err(io_err)?;
    events::spawn_input(queue.notifier()).map_err(io_err)?;
    // crossterm writes even the sixteen named colours as 256-colour sequences: rewritten
    // for a terminal with fewer (`colours`).
    let backend =
        ratatui::backend::CrosstermBackend::new(colours::SgrFilter::new(std::io::stdout(), depth));
    let mut term = ratatui::Terminal::new(backend).map_err(io_err)?;
    let clipboard = app.clipboard.clone();
    let r = app::run_loop(&mut term, &mut app, |queue, wait| {
        // Copies from the last key go to the terminal as OSC 52.
        let pending: Vec<String> = clipboard
            .lock()
            .map(|mut c| c.drain(..).collect())
            .unwrap_or_default();
        for text in pending {
            use std::io::Write;
            let mut out = std::io::stdout();
            out.write_all(app::osc52(&text).as_bytes())?;
            out.flush()?;
        }
        if guard.was_signalled() {
            return Ok(None);
        }
        // The one place the loop sleeps.
        let ev = queue.next(wait);
        // Ctrl-Z, or `kill -TSTP`: the terminal given back, the process stopped.
        let suspend = match &ev {
            events::QueueEvent::Suspend => true,
            events::QueueEvent::Input(crossterm::event::Event::Key(k)) => {
                keys::action_for(k) == Some(keys::Action::Suspend)
            }
            _ => false,
        };
        if suspend {
            guard.suspend()?;
            // Everything is drawn again: the screen was the shell's meanwhile.
            let (w, h) = crossterm::terminal::size()?;
            let resized = crossterm::event::Event::Resize(w, h);
            return Ok(Some(events::QueueEvent::Input(resized)));
        }
        Ok(Some(ev))
    });
    let signal = guard.signal();
    drop(guard);
    // Stopped by a signal: the terminal is back (the guard is dropped); the process ends
    // by that signal, so a supervisor or a shell script can tell a stop from a quit.
    if let Some(sig) = signal {
        crate::sys::tmpfiles::end_by(sig);
    }
    r.map_err(io_err)?;
    // Quitting while the index cache entry is written (beside the dominator pass, after
    // the index is shown) waits for it, up to a minute: the next open of a large dump
    // then takes a second rather than the whole indexing again. The writer wakes the
    // queue when it is done.
    if app.cache_entry_pending() {
        app.hurry_cache_entry();
        eprintln!("heaptui: finishing the index cache entry, so that the next open is quick…");
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let quiet = events::Wait::default();
        while app.cache_entry_pending() && queue.next_until(&quiet, Some(until)).is_some() {}
    }
    // A file that could not be opened ends with its error and exit code, as in the CLI.
    match app.screen {
        app::Screen::Failed(e) => Err(e),
        _ => Ok(()),
    }
}
