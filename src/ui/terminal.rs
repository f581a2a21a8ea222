//! Entering and always leaving the terminal's raw, alternate-screen mode.
//!
//! Restoration happens in three places, because each covers a way out the others miss:
//! the guard's `Drop` (normal return and unwinding), a panic hook chained before the
//! default one (so the panic message lands on a usable screen), and SIGTERM/SIGHUP/SIGINT
//! handlers that set a flag the event loop polls (signals bypass both). In raw mode Ctrl-C
//! arrives as a key, not a signal, and is bound to quit.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};

use crossterm::{cursor, execute, terminal};

/// Puts the terminal back: raw mode off, main screen, cursor shown.
pub fn restore() {
    let _ = terminal::disable_raw_mode();
    let mut out = io::stdout();
    let _ = execute!(
        out,
        crossterm::event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
    let _ = out.flush();
}

pub struct TerminalGuard {
    /// Set by SIGTERM, SIGHUP or SIGINT.
    pub signalled: Arc<AtomicBool>,
}

static HOOK: Once = Once::new();

impl TerminalGuard {
    pub fn enter() -> io::Result<Self> {
        HOOK.call_once(|| {
            let prev = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                prev(info);
            }));
        });
        let signalled = Arc::new(AtomicBool::new(false));
        for sig in [
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
            signal_hook::consts::SIGINT,
        ] {
            signal_hook::flag::register(sig, signalled.clone())?;
        }
        terminal::enable_raw_mode()?;
        let guard = TerminalGuard { signalled };
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(guard)
    }

    pub fn was_signalled(&self) -> bool {
        self.signalled.load(Ordering::Relaxed)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}
