//! Entering and always leaving the terminal's raw, alternate-screen mode.
//!
//! Restoration happens in three places, because each covers a way out the others miss:
//! the guard's `Drop` (normal return and unwinding), a panic hook chained before the
//! default one (so the panic message lands on a usable screen), and handlers for every
//! signal that would end the process (`sys::tmpfiles::ENDING`, and SIGPIPE) that set a flag and push an event into the loop's queue (signals bypass
//! both). In raw mode Ctrl-C arrives as a key, not a signal, and is bound to quit; Ctrl-Z
//! too, and [`TerminalGuard::suspend`] leaves, stops and comes back; a SIGTSTP from
//! outside pushes an event that has the loop do the same.

use std::io::{self, Write};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Once};

use crossterm::{cursor, execute, terminal};

/// Puts the terminal back: raw mode off, main screen, cursor shown.
pub fn restore() {
    let _ = terminal::disable_raw_mode();
    let mut out = io::stdout();
    if TUI_ACTIVE.load(Ordering::Relaxed) {
        // The alternate screen emptied and the cursor at its top left before leaving
        // it: tmux, when the window was resized meanwhile, sizes the alternate screen
        // back to the main one's size on the way out, keeping the lines above the
        // cursor; with the cursor at the bottom they showed above the shell's prompt.
        let _ = execute!(
            out,
            terminal::Clear(terminal::ClearType::All),
            cursor::MoveTo(0, 0)
        );
    }
    let _ = execute!(
        out,
        crossterm::event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
    let _ = out.flush();
}

pub struct TerminalGuard {
    /// The number of the ending signal that arrived; 0 before one does.
    pub signalled: Arc<AtomicI32>,
}

static HOOK: Once = Once::new();

/// The terminal's settings before raw mode, for [`emergency_exit`] (the SIGBUS handler,
/// the allocator when memory runs out), which cannot call crossterm; and whether the TUI
/// has the terminal now.
static mut SAVED_TERMIOS: Option<libc::termios> = None;
static TUI_ACTIVE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set by [`emergency_exit`]: the process is ending, and the UI thread draws no more.
static EXITING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether [`emergency_exit`] is ending the process: the run loop then draws nothing
/// more and waits for the end.
pub fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

/// Set by the first thread that takes a SIGBUS: two threads reading a file cut short
/// fault at once, and the message is said once.
static SIGBUS_TAKEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// What a read of a mapped file does when the file has shrunk (or changed) under the
/// map: the kernel raises SIGBUS, which by default kills the process without a word and
/// leaves the terminal in raw mode. This handler puts the terminal back (when the TUI
/// has it), names the file whose map faulted (`sys::maps`: the dump, its decompressed
/// copy, or an index cache entry), and exits with status 2 ([`emergency_exit`]). A
/// second thread that faults meanwhile waits for the first to end the process.
extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    if SIGBUS_TAKEN.swap(true, Ordering::SeqCst) {
        loop {
            // SAFETY: async-signal-safe; the first thread's `_exit` ends this one.
            unsafe { libc::pause() };
        }
    }
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let addr = if info.is_null() {
        0
    } else {
        unsafe { (*info).si_addr() as usize }
    };
    match crate::sys::maps::find(addr) {
        Some((path, crate::sys::maps::Kind::CacheEntry)) => emergency_exit(&[
            b"heaptui: ",
            path,
            b": this index cache entry was cut short or changed on disk while it was being \
read (SIGBUS); the dump is not at fault: the next open checks the entry and builds the \
index again",
        ]),
        Some((path, crate::sys::maps::Kind::Dump)) => emergency_exit(&[
            b"heaptui: ",
            path,
            b": the file changed or shrank on disk while it was being read (SIGBUS): its \
bytes are gone; open it again once it is complete",
        ]),
        None => emergency_exit(&[b"heaptui: a mapped file changed or shrank on disk while \
it was being read (SIGBUS): its bytes are gone; open it again once it is complete"]),
    }
}

/// Ends the process at once with status 2, from a place where nothing else may be done
/// (a signal handler, or the allocator when memory has run out): puts the terminal back
/// when the TUI has it (its saved settings, main screen, no mouse capture, cursor
/// shown), and writes `message` (its parts in turn) on stderr on a line of its own. It
/// only calls functions that are async-signal-safe and allocate nothing (`tcsetattr`,
/// `write`, `nanosleep`, `_exit`).
///
/// The UI thread may be drawing a frame meanwhile (the allocation that failed was the
/// loading thread's), and a frame hides the cursor: [`EXITING`] stops its next frames
/// (see [`exiting`]), and the cursor is shown a second time 20 ms later, after any frame
/// under way, before the process ends (once in a CI run the cursor stayed hidden).
pub fn emergency_exit(message: &[&[u8]]) -> ! {
    const LEAVE: &[u8] =
        b"\x1b[2J\x1b[H\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1049l\x1b[?25h";
    // (Not the main screen again: on the main screen that puts the cursor back where
    // the TUI began, over the message.)
    const MODES: &[u8] = b"\x1b[?25h";
    EXITING.store(true, Ordering::SeqCst);
    // SAFETY: async-signal-safe calls only; SAVED_TERMIOS is written once, before the
    // TUI starts, and only read here.
    unsafe {
        if TUI_ACTIVE.load(Ordering::Relaxed) {
            if let Some(t) = (*std::ptr::addr_of!(SAVED_TERMIOS)).as_ref() {
                libc::tcsetattr(0, libc::TCSANOW, t);
            }
            libc::write(1, LEAVE.as_ptr().cast(), LEAVE.len());
        }
        libc::write(2, b"\r\n".as_ptr().cast(), 2);
        for part in message {
            libc::write(2, part.as_ptr().cast(), part.len());
        }
        libc::write(2, b"\r\n".as_ptr().cast(), 2);
        if TUI_ACTIVE.load(Ordering::Relaxed) {
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 20_000_000,
            };
            libc::nanosleep(&pause, std::ptr::null_mut());
            libc::write(1, MODES.as_ptr().cast(), MODES.len());
        }
        libc::_exit(2);
    }
}

/// Installs the SIGBUS handler ([`on_sigbus`]); `main` calls it first thing.
pub fn install_sigbus_handler() {
    // SAFETY: a plain C handler for one signal, installed before any thread reads the map.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigbus as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
    }
}

impl TerminalGuard {
    /// Takes the terminal; the signals that ask the program to stop or end are pushed
    /// into the run loop's queue through `notify`.
    pub fn enter(notify: crate::ui::events::Notifier) -> io::Result<Self> {
        HOOK.call_once(|| {
            let prev = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                prev(info);
            }));
        });
        let signalled = Arc::new(AtomicI32::new(0));
        use crate::ui::events::QueueEvent;
        use signal_hook::consts::{SIGHUP, SIGPIPE, SIGTSTP};
        // SIGTSTP from outside (`kill -TSTP`, a job-control shell, a supervisor): the loop
        // suspends as for Ctrl-Z (the terminal is given back before the process stops,
        // and taken again after `fg`); with a handler registered, it stops nothing itself.
        // Every signal that would end the process (`tmpfiles::ENDING`: SIGTERM, SIGINT,
        // SIGHUP, and SIGQUIT, SIGUSR1, SIGALRM… that a supervisor or a timer may send),
        // and SIGPIPE, ends it with the terminal put back (issue 40).
        let mut watched = crate::sys::tmpfiles::ENDING.to_vec();
        watched.extend([SIGPIPE, SIGTSTP]);
        let mut signals = signal_hook::iterator::Signals::new(watched)?;
        let flag = signalled.clone();
        // A watcher thread that wakes the loop, and more: the terminal may go away while
        // the loop is busy, and crossterm 0.28 spins on a tty that reads end-of-file
        // (after a hangup) instead of returning. So the loop gets half a second to stop
        // cleanly; then, or at once on SIGHUP (there is no terminal left to draw on), the
        // watcher restores what it can and exits.
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                for sig in signals.forever() {
                    if sig == SIGTSTP {
                        notify.push(QueueEvent::Suspend);
                        continue;
                    }
                    flag.store(sig, Ordering::Relaxed);
                    notify.push(QueueEvent::Signal);
                    if sig != SIGHUP {
                        std::thread::sleep(std::time::Duration::from_millis(500));
                    }
                    restore();
                    crate::sys::tmpfiles::end_by(sig);
                }
            })?;
        // SAFETY: tcgetattr fills the struct; the static is written before TUI_ACTIVE
        // lets the SIGBUS handler read it.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) == 0 {
                *std::ptr::addr_of_mut!(SAVED_TERMIOS) = Some(t);
            }
        }
        terminal::enable_raw_mode()?;
        TUI_ACTIVE.store(true, Ordering::Relaxed);
        let guard = TerminalGuard { signalled };
        // The mouse wheel scrolls (terminals still select text with Shift held).
        execute!(
            io::stdout(),
            terminal::EnterAlternateScreen,
            cursor::Hide,
            crossterm::event::EnableMouseCapture
        )?;
        Ok(guard)
    }

    /// Ctrl-Z, or a SIGTSTP from outside: gives the terminal back, stops the process as
    /// the shell's job control expects, and takes the terminal again when `fg` continues
    /// it. In raw mode Ctrl-Z is a key, not a signal, so the event loop calls this; an
    /// outside SIGTSTP pushes [`crate::ui::events::QueueEvent::Suspend`], which does too.
    pub fn suspend(&self) -> io::Result<()> {
        restore();
        // SIGTSTP's default action (a stop), whatever handler is registered for it: the
        // one that notes an outside SIGTSTP must not be what runs.
        signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGTSTP)?;
        terminal::enable_raw_mode()?;
        execute!(
            io::stdout(),
            terminal::EnterAlternateScreen,
            cursor::Hide,
            crossterm::event::EnableMouseCapture
        )
    }

    pub fn was_signalled(&self) -> bool {
        self.signal().is_some()
    }

    /// The signal that asked the program to stop, if one did.
    pub fn signal(&self) -> Option<i32> {
        match self.signalled.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s),
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
        TUI_ACTIVE.store(false, Ordering::Relaxed);
    }
}
