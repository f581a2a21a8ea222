//! The one queue the TUI waits on: every reason for the loop to wake is a typed
//! [`QueueEvent`] in it, and the loop blocks on [`Queue::next`] (a `select!` over the
//! queue, a progress ticker and the histogram's rest timer) until one comes; nothing is
//! looked at on a timer. The shape is gitui's (`src/main.rs`: `QueueEvent`,
//! `select_event`).
//!
//! Who pushes: the input thread ([`spawn_input`]: keys, mouse, resizes, read from the
//! terminal), the signal watcher ([`crate::ui::terminal`]: a stop or an end asked from
//! outside), and, through a [`Notifier`], every thread that hands the UI something on a
//! channel of its own (the loading threads in `app::load`, each [`crate::ui::panes::job::Job`],
//! a running filter's matches so far): each sends its typed result on its own channel
//! first, then says [`QueueEvent::Arrived`], and the loop's turn takes whatever came. The
//! two timers are not threads: `crossbeam-channel`'s `tick` and `after` are deadlines the
//! select itself sleeps to, and they are in the select only while they mean something
//! (the ticker while something loads, the rest timer while a class's merged paths wait
//! for the selection to rest).
//!
//! What this does not own: what an event does to the app (`app::run_loop`), or the
//! terminal's modes (`terminal`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{after, never, select, tick, unbounded, Receiver, Sender};
use crossterm::event::Event;

/// How often the screen is drawn again while something loads (the progress bar moves).
pub const TICK: Duration = Duration::from_millis(100);

/// Why the loop woke.
#[derive(Debug)]
pub enum QueueEvent {
    /// A key, a mouse event, a new size, from the terminal.
    Input(Event),
    /// The terminal could not be read.
    InputFailed(std::io::Error),
    /// A loading thread or a job has handed something over (on its own channel): the
    /// loop's turn takes it ([`crate::ui::app::App::tick`]).
    Arrived,
    /// Something is loading: its progress is drawn again.
    Tick,
    /// The histogram's selection has rested: its class's merged paths can be built.
    Rest,
    /// A SIGTSTP from outside (`kill -TSTP`): the terminal is given back and the
    /// process stops, as for Ctrl-Z.
    Suspend,
    /// A signal that ends the process (`sys::tmpfiles::ENDING`, SIGPIPE): the loop ends
    /// and the terminal is put back.
    Signal,
}

/// What the loop waits for besides the events pushed into the queue
/// ([`crate::ui::app::App::wait`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wait {
    /// Something is loading: a [`QueueEvent::Tick`] every [`TICK`].
    pub ticking: bool,
    /// A class's merged paths wait for the selection to rest this much longer.
    pub rest: Option<Duration>,
}

/// A handle that pushes into a [`Queue`] (cloned into every producer). One made with
/// `Default` pushes nowhere (panes and jobs made without an app, in tests).
#[derive(Clone, Default)]
pub struct Notifier {
    tx: Option<Sender<QueueEvent>>,
    /// An [`QueueEvent::Arrived`] is in the queue and not yet taken: arrivals in the
    /// meantime need no other (a filter publishing often would flood the queue).
    pending: Arc<AtomicBool>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.tx.is_some() {
            "Notifier"
        } else {
            "Notifier(nowhere)"
        })
    }
}

impl Notifier {
    /// Says that something was sent on a channel the app reads: call it right after the
    /// send (the loop's next tick, which follows the event, then finds it).
    pub fn arrived(&self) {
        // Taken by `Queue::next` before the app's tick: a result sent before the swap
        // below is found by that tick, one sent after it pushes an event again.
        if !self.pending.swap(true, Ordering::SeqCst) {
            self.push(QueueEvent::Arrived);
        }
    }

    /// Pushes `ev`: false when nobody reads the queue any more.
    pub fn push(&self, ev: QueueEvent) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.send(ev).is_ok())
    }
}

/// A channel's sender that notifies the queue after each send: what the loading threads
/// hand the UI on.
pub struct Notifying<T> {
    tx: std::sync::mpsc::Sender<T>,
    notify: Notifier,
}

impl<T> Notifying<T> {
    pub fn new(tx: std::sync::mpsc::Sender<T>, notify: Notifier) -> Self {
        Notifying { tx, notify }
    }

    /// Sends `t`, then wakes the loop; false when the receiver is gone.
    pub fn send(&self, t: T) -> bool {
        let sent = self.tx.send(t).is_ok();
        self.notify.arrived();
        sent
    }
}

impl<T> Drop for Notifying<T> {
    /// A sender dropped without a result (a loader that stopped) is news too: the
    /// receiver sees it disconnected.
    fn drop(&mut self) {
        self.notify.arrived();
    }
}

/// The queue of one app (its receiving end; clones read the same queue).
#[derive(Clone)]
pub struct Queue {
    rx: Receiver<QueueEvent>,
    notify: Notifier,
    ticker: Receiver<Instant>,
}

impl Default for Queue {
    fn default() -> Self {
        Self::new()
    }
}

impl Queue {
    pub fn new() -> Self {
        let (tx, rx) = unbounded();
        Queue {
            rx,
            notify: Notifier {
                tx: Some(tx),
                pending: Default::default(),
            },
            ticker: tick(TICK),
        }
    }

    /// A handle for a producer.
    pub fn notifier(&self) -> Notifier {
        self.notify.clone()
    }

    /// Pushes `ev` (the tests' keys, for one).
    pub fn push(&self, ev: QueueEvent) {
        self.notify.push(ev);
    }

    /// Blocks until the next event: one pushed, or a timer of `wait`.
    pub fn next(&self, wait: &Wait) -> QueueEvent {
        loop {
            if let Some(ev) = self.next_until(wait, None) {
                return ev;
            }
        }
    }

    /// As [`Queue::next`], but `None` once `deadline` (if any) has passed without one.
    pub fn next_until(&self, wait: &Wait, deadline: Option<Instant>) -> Option<QueueEvent> {
        let none = never();
        let ticks = if wait.ticking { &self.ticker } else { &none };
        // A millisecond late rather than early: the selection has rested by then.
        let rested = wait
            .rest
            .map_or_else(never, |d| after(d + Duration::from_millis(1)));
        let end = deadline.map_or_else(never, crossbeam_channel::at);
        let ev = select! {
            recv(self.rx) -> ev => ev.ok()?,
            recv(ticks) -> _ => QueueEvent::Tick,
            recv(rested) -> _ => QueueEvent::Rest,
            recv(end) -> _ => return None,
        };
        Some(self.taken(ev))
    }

    /// The next event pushed, if one is there now (timers aside).
    pub fn try_next(&self) -> Option<QueueEvent> {
        self.rx.try_recv().ok().map(|ev| self.taken(ev))
    }

    fn taken(&self, ev: QueueEvent) -> QueueEvent {
        if matches!(ev, QueueEvent::Arrived) {
            self.notify.pending.store(false, Ordering::SeqCst);
        }
        ev
    }
}

/// Reads the terminal's events on a thread of its own and pushes them; it ends when the
/// queue is gone or the terminal cannot be read.
pub fn spawn_input(notify: Notifier) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("input".into())
        .spawn(move || loop {
            let pushed = match crossterm::event::read() {
                Ok(ev) => notify.push(QueueEvent::Input(ev)),
                Err(e) => {
                    notify.push(QueueEvent::InputFailed(e));
                    false
                }
            };
            if !pushed {
                return;
            }
        })?;
    Ok(())
}
