//! The real binary in a real terminal (tmux), as a person uses it: the histogram appears,
//! `/` narrows it, `q` quits, and SIGTERM too leaves the terminal as it was (main screen,
//! cursor shown). Skipped with a message where tmux is not installed (`.ci/run` installs
//! it).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

mod query;

/// How long a test waits for what the program must do (a screen, an exit): generous, for
/// a machine busy with other work (a debug build under two busy CPU loops); a test that
/// passes waits only as long as the program takes.
const PATIENCE: Duration = Duration::from_secs(120);

struct Tmux {
    socket: String,
    /// The server's socket file, removed with the server.
    socket_path: Option<PathBuf>,
}

impl Tmux {
    fn start(name: &str, cmd: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("skipping: tmux is not installed");
            return None;
        }
        let socket = format!("heaptui-test-{}-{name}", std::process::id());
        let ok = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "80",
                "-y",
                "24",
            ])
            .arg(cmd)
            .env("HEAPTUI_CACHE_DIR", scratch().join("cache"))
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session failed");
        let mut t = Tmux {
            socket,
            socket_path: None,
        };
        let path = t.tmux(&["display", "-p", "#{socket_path}"]);
        t.socket_path = Some(PathBuf::from(path.trim())).filter(|p| p.is_absolute());
        Some(t)
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    fn wait_for(&self, what: &str) -> String {
        self.wait_until(&format!("{what:?}"), |s| s.contains(what))
    }

    /// Waits until the screen passes `ok`, which `what` describes: for as long as a
    /// loaded machine may take ([`PATIENCE`]), looking every 100 ms.
    fn wait_until(&self, what: &str, mut ok: impl FnMut(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "waited for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// As [`Tmux::wait_until`], on a whole frame: `ok` holds on two captures in a row
    /// that are the same. A capture can catch a frame half written (tmux reads a large
    /// one in pieces), where a line that the frame removes is still there or a word it
    /// writes not yet: a condition that something is absent can hold there too early.
    fn wait_until_whole(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let mut last = String::new();
        self.wait_until(what, |s| {
            let whole = ok(s) && s == last;
            if !whole {
                last = s.to_string();
            }
            whole
        })
    }

    /// Waits until the screen stays the same for 300 ms (three looks), and returns it.
    fn wait_still(&self) -> String {
        let mut last = self.screen();
        let mut same = 0;
        self.wait_until("the screen to stay the same", |s| {
            same = if s == last { same + 1 } else { 0 };
            last = s.to_string();
            same >= 3
        })
    }

    /// Waits for the histogram of the built index: an HPROF file shows the quick pass's
    /// first, whose status line says "indexing" and whose `Enter` does not open yet.
    fn wait_for_index(&self) -> String {
        self.wait_until_whole(
            "the leak suspects, or the histogram of a dump without any",
            |s| {
                s.contains("Leak suspects")
                    || (s.contains("Class histogram")
                        && s.contains(" objects")
                        && !s.contains("indexing")
                        && !s.contains("computing")
                        && !s.contains("finding leak suspects"))
            },
        );
        // The first screen once the dominator tree is ready; `Esc` goes back to the
        // histogram, where these tests start.
        if self.screen().contains("Leak suspects") {
            self.keys(&["Escape"]);
        }
        self.wait_for("Class histogram");
        self.wait_until("the index", |s| {
            s.contains(" objects") && !s.contains("indexing")
        })
    }

    /// Sends `keys`, then waits for `what` on the screen, which it returns.
    fn press(&self, keys: &[&str], what: &str) -> String {
        self.keys(keys);
        self.wait_for(what)
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// The pid of the program the pane's shell runs.
    fn child_pid(&self) -> String {
        let shell = self
            .tmux(&["display", "-p", "#{pane_pid}"])
            .trim()
            .to_string();
        let child = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        String::from_utf8_lossy(&child.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string()
    }

    /// heaptui on the fixtures `files` (paths under `fixtures/`), the window `w`×`h`, its
    /// index ready.
    fn running(name: &str, files: &[&str], w: &str, h: &str) -> Option<Tmux> {
        let paths: Vec<String> = files
            .iter()
            .map(|f| fixture(f).display().to_string())
            .collect();
        let t = Tmux::start(
            name,
            &format!("{} {}", env!("CARGO_BIN_EXE_heaptui"), paths.join(" ")),
        )?;
        t.tmux(&["resize-window", "-x", w, "-y", h]);
        t.wait_for_index();
        Some(t)
    }

    /// An interactive shell (so that job control stops and continues the program)
    /// running heaptui on the fixture `rel`, its index ready.
    fn shell_running(name: &str, rel: &str) -> Option<Tmux> {
        let t = Tmux::start(name, "bash --norc --noprofile -i")?;
        t.type_heaptui(rel);
        Some(t)
    }

    /// Types, at the shell's prompt, heaptui on the fixture `rel`, and waits for its
    /// index.
    fn type_heaptui(&self, rel: &str) {
        self.keys(&[
            &format!(
                "{} {}",
                env!("CARGO_BIN_EXE_heaptui"),
                fixture(rel).display()
            ),
            "Enter",
        ]);
        self.wait_for_index();
    }

    /// Waits until retained sizes are in (the dominator tree is built) on the index's
    /// histogram. (The quick histogram's status line also counts objects, but says
    /// "indexing".)
    fn wait_for_tree(&self) {
        self.wait_until("the dominator tree", |s| {
            s.contains(" objects · ")
                && !s.contains("indexing")
                && !s.contains("retained sizes: computing")
        });
    }

    /// `q`, and the shell's `EXITED-0` after it (a pane started with [`heaptui_line`]).
    fn quit(&self) -> String {
        self.keys(&["q"]);
        self.wait_for("EXITED-0")
    }

    /// Once the program has ended (a pane started with [`heaptui_line`] and its `mode`):
    /// the exit status `EXITED-<code>` (any with `code` empty), the main screen back with
    /// the cursor shown, and the terminal canonical (raw mode off). `what` begins each
    /// message. Returns the screen with the status.
    fn exited_with_the_terminal_back(&self, code: &str, what: &str) -> String {
        let s = self.wait_for("EXITED-");
        assert!(s.contains(&format!("EXITED-{code}")), "{what}{s}");
        assert_eq!(self.modes(), "0 1", "{what}main screen back, cursor shown");
        let mode = self.wait_until("stty's answer", |s| {
            s.lines().any(|l| l.starts_with("MODE"))
        });
        assert!(
            mode.lines().any(|l| l == "MODEicanon"),
            "{what}raw mode is off:\n{mode}"
        );
        s
    }

    /// Once the program has been stopped (Ctrl-Z or SIGTSTP): the shell's screen back,
    /// the cursor shown, the terminal in cooked mode; then `fg`, and the histogram drawn
    /// again in full on the alternate screen. Returns that screen.
    fn stopped_then_continued(&self) -> String {
        let s = self.wait_for("Stopped");
        assert!(!s.contains("Class histogram"), "{s}");
        assert_eq!(self.modes(), "0 1", "main screen back, cursor shown");
        self.keys(&[
            "stty -a | grep -o -- '-\\?icanon' | sed 's/^/MODE/'",
            "Enter",
        ]);
        // The command line itself says "MODE" too: wait for the output line.
        let s = self.wait_until("stty's answer", |s| {
            s.lines().any(|l| l.starts_with("MODE"))
        });
        assert!(
            s.lines().any(|l| l == "MODEicanon"),
            "raw mode is off while stopped:\n{s}"
        );
        self.keys(&["fg", "Enter"]);
        let s = self.wait_until("the histogram drawn again in full", |s| {
            s.contains("Class histogram") && s.contains("HPROF · ")
        });
        assert!(self.modes().starts_with('1'), "alternate screen again: {s}");
        s
    }

    /// 1 when the pane shows the alternate screen, and the cursor flag.
    fn modes(&self) -> String {
        self.tmux(&["display", "-p", "#{alternate_on} #{cursor_flag}"])
            .trim()
            .to_string()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
        // tmux leaves its socket file behind in /tmp/tmux-<uid>.
        if let Some(p) = &self.socket_path {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The shell line a pane runs: `before` (settings, a wait), heaptui with `args`, then
/// `EXITED-<its status>`, with `mode` the terminal's mode after it (`MODEicanon` when
/// canonical), and a pause that keeps the pane open.
fn heaptui_line(before: &str, args: &str, mode: bool) -> String {
    let mode = if mode {
        "stty -a | grep -o -- '-\\?icanon' | sed 's/^/MODE/'; "
    } else {
        ""
    };
    format!(
        "{before}{} {args}; echo EXITED-$?; {mode}sleep 60",
        env!("CARGO_BIN_EXE_heaptui")
    )
}

/// `s` without any whitespace: a message the pane wrapped, read whole wherever the
/// rows were cut.
fn squeezed(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn command() -> String {
    heaptui_line(
        "",
        &fixture("java/coops/heap-live-jvmgz.hprof.gz")
            .display()
            .to_string(),
        true,
    )
}

#[test]
fn histogram_filter_and_quit_in_a_real_terminal() {
    let Some(t) = Tmux::start("quit", &command()) else {
        return;
    };
    t.wait_for_index();
    // The status line is drawn in the same frame, but a capture may catch the terminal
    // between the two: wait for it too.
    let s = t.wait_until("the status line", |s| {
        s.contains("HPROF · ") && s.contains(" objects · ")
    });
    assert!(
        s.contains("byte[]") && s.contains("java.lang.String"),
        "{s}"
    );
    assert!(
        t.modes().starts_with('1'),
        "alternate screen on: {}",
        t.modes()
    );
    let s = t.press(&["/", "fixture.Order"], "filter \"fixture.Order\"");
    assert!(s.contains("dev.heaptui.fixture.Order"), "{s}");
    assert!(!s.contains("java.lang.String"), "filtered:\n{s}");
    t.keys(&["Enter", "q"]);
    let s = t.exited_with_the_terminal_back("0", "");
    assert!(
        !s.contains("Class histogram"),
        "the TUI's screen is gone:\n{s}"
    );
}

#[test]
fn every_signal_restores_the_terminal() {
    // SIGTERM (kill), SIGINT (kill -INT: in raw mode Ctrl-C is a key, so only a signal
    // sent from outside arrives as SIGINT) and SIGHUP: each ends the program with the
    // terminal back to normal and the exit status 128 + the signal's number. Issue 40,
    // defect 7: so does every other signal whose default action ends a process (a
    // supervisor's SIGQUIT, SIGUSR1/2, a timer's SIGALRM, the CPU limit's SIGXCPU,
    // SIGPIPE): they used to leave the alternate screen, the hidden cursor and raw mode.
    // The program ends by the signal itself (the shell's `$?` is 128 + its number); no
    // core file for SIGQUIT.
    let line = |before: &str| {
        heaptui_line(
            before,
            &fixture("java/coops/heap-live-jvmgz.hprof.gz")
                .display()
                .to_string(),
            true,
        )
    };
    for (sig, code) in [
        ("TERM", 143),
        ("INT", 130),
        ("HUP", 129),
        ("QUIT", 131),
        ("USR1", 138),
        ("USR2", 140),
        ("ALRM", 142),
        ("XCPU", 152),
        ("VTALRM", 154),
        ("PROF", 155),
        ("PIPE", 141),
    ] {
        let Some(t) = Tmux::start(&format!("sig{sig}"), &line("ulimit -c 0; ")) else {
            return;
        };
        t.wait_for_index();
        let pid = t.child_pid();
        assert!(!pid.is_empty(), "no heaptui process under the pane's shell");
        Command::new("kill")
            .args([&format!("-{sig}"), &pid])
            .status()
            .unwrap();
        t.exited_with_the_terminal_back(&code.to_string(), &format!("SIG{sig}: "));
    }
}

#[test]
fn a_vanished_terminal_ends_the_program() {
    // An ssh connection that drops: the terminal hangs up. heaptui must exit, not spin
    // on a dead tty.
    let Some(t) = Tmux::start("hup", &command()) else {
        return;
    };
    t.wait_for_index();
    let pid = t.child_pid();
    assert!(!pid.is_empty());
    t.tmux(&["kill-server"]);
    let start = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.split_whitespace().nth(2) == Some("Z") {
            break; // exited, not yet reaped
        }
        assert!(
            start.elapsed() < PATIENCE,
            "heaptui {pid} still running after hangup"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_leak_hunt_in_a_real_terminal_with_a_resize_and_ctrl_c() {
    // histogram → filter to the leaking class → instances → inspector → paths from GC
    // roots → back with Esc to the histogram; a resize half-way; Ctrl-C at the end.
    let Some(t) = Tmux::start("walk", &command()) else {
        return;
    };
    t.wait_for_index();
    // The retained column fills in once the dominator tree is built.
    let s = t.wait_for("3,514,200");
    assert!(!s.contains("computing"), "{s}");
    let s = t.press(
        &["/", "fixture.Session", "Enter"],
        "filter \"fixture.Session\"",
    );
    assert!(s.contains("1,237"), "{s}");
    let s = t.press(&["Enter"], "Instances of dev.heaptui.fixture.Session");
    assert!(s.contains("1,237 objects, by retained size"), "{s}");
    // The whole frame: a capture can catch one half written, its fields not yet there.
    t.keys(&["Enter"]);
    let s = t.wait_until_whole("a session's inspector", |s| {
        s.contains("Inspector — dev.heaptui.fixture.Session") && s.contains("user")
    });
    assert!(s.contains("long") && s.contains("id"), "{s}");
    // A wider terminal mid-session: the pane redraws at the new size.
    t.tmux(&["resize-window", "-x", "140", "-y", "40"]);
    let s = t.wait_until("the pane redrawn wider", |s| {
        s.contains("referrers (") && s.lines().any(|l| l.chars().count() > 100)
    });
    assert!(s.contains("Inspector — dev.heaptui.fixture.Session"), "{s}");
    let s = t.press(
        &["p"],
        "Shortest paths to GC roots, merged: dev.heaptui.fixture.Session",
    );
    assert!(s.contains("value ← java.util.HashMap$Node"), "{s}");
    assert!(s.contains("static sessions ← java.lang.Class"), "{s}");
    assert!(s.contains("GC root: JNI global"), "{s}");
    // One Esc at a time: a terminal reads ESC followed at once by another byte as one
    // key chord, as it would from a person typing Alt.
    t.press(&["Escape"], "Inspector — dev.heaptui.fixture.Session");
    t.press(&["Escape"], "Instances of dev.heaptui.fixture.Session");
    let s = t.press(&["Escape"], "Class histogram");
    // The filter kept, named whole in the title, shortened to fit at 140 columns
    // beside the merged paths of the class.
    assert!(
        s.contains("1/303 classes") && s.contains("filter \"fixture.Session\""),
        "{s}"
    );
    // Ctrl-C quits and restores the terminal.
    t.keys(&["C-c"]);
    t.exited_with_the_terminal_back("", "");
}

/// `heaptui BASE TARGET` on the Java growth pair, as a shell line.
fn growth_diff_line() -> String {
    heaptui_line(
        "",
        &format!(
            "{} {}",
            fixture("java/growth/base.hprof.gz").display(),
            fixture("java/growth/target.hprof.gz").display()
        ),
        false,
    )
}

#[test]
fn the_diff_view_in_a_real_terminal() {
    // heaptui BASE TARGET on the Java pair (Cache.entries grew by 3,000 entries, per
    // fixtures/java/growth/expected.json): sort by Δ count, open the grown class side by
    // side, step into an object on each side, and back to the table.
    let cmd = growth_diff_line();
    let Some(t) = Tmux::start("diff", &cmd) else {
        return;
    };
    t.wait_for("classes changed, sorted by Δ shallow size");
    t.wait_for("Owners that grew most");
    t.press(&["s"], "sorted by Δ retained size");
    let s = t.press(&["s"], "sorted by Δ count");
    let rows: Vec<&str> = s.lines().filter(|l| l.contains("+3,00")).collect();
    assert!(rows.len() >= 2, "{s}");
    assert!(rows[1].contains("CacheEntry"), "{s}");
    let s = t.press(&["g", "j", "Enter"], "TARGET ◆");
    assert!(
        s.contains("— 2,000 objects") && s.contains("— 5,000 objects"),
        "{s}"
    );
    t.press(&["Enter"], "Inspector — ");
    t.press(&["Tab"], "BASE ◆");
    t.keys(&["Enter"]);
    t.wait_until("an inspector on each side", |s| {
        s.matches("Inspector — ").count() == 2
    });
    t.keys(&["Escape"]);
    let s = t.wait_until("the base side back on its instances", |s| {
        s.contains("— 2,000 objects")
    });
    assert_eq!(s.matches("Inspector — ").count(), 1, "{s}");
    t.press(&["Escape"], "classes changed, sorted by Δ count");
    t.quit();
    assert_eq!(t.modes(), "0 1", "main screen back, cursor shown");
}

#[test]
fn ctrl_z_suspends_to_the_shell_and_fg_comes_back() {
    // An interactive shell, so that job control stops and continues the program.
    let Some(t) = Tmux::shell_running("suspend", "java/coops/heap-live-jvmgz.hprof.gz") else {
        return;
    };
    t.keys(&["C-z"]);
    let s = t.stopped_then_continued();
    assert!(s.contains("java.lang.String"), "{s}");
    t.keys(&["q"]);
    let s = t.wait_until("the shell's prompt", |s| !s.contains("Class histogram"));
    assert!(!s.contains("Class histogram"), "{s}");
    assert_eq!(t.modes(), "0 1");
}

#[test]
fn a_moarvm_file_s_snapshots_are_listed_and_another_one_opens() {
    // fixtures/moarvm/app-v3: five snapshots (expected.json); the last opens by default.
    let cmd = heaptui_line(
        "",
        &fixture("moarvm/app-v3.mvmheap.gz").display().to_string(),
        false,
    );
    let Some(t) = Tmux::start("snapshots", &cmd) else {
        return;
    };
    t.wait_for_index();
    let s = t.press(&["#"], "Snapshots in this file — 5");
    assert!(s.contains("▶ #4"), "the open one is marked:\n{s}");
    assert!(s.contains("GC 2 at"), "{s}");
    t.keys(&["g", "Enter"]);
    // The status line names the file, until a message takes its place: the tree's leak
    // suspects, which wait for `!` as keys were pressed (the next check, Order's count,
    // tells snapshot 0 for sure).
    let s = t.wait_until("snapshot 0 open", |s| {
        s.contains("Class histogram")
            && (s.contains("app-v3.mvmheap.gz#0") || s.contains("leak suspects found"))
    });
    assert!(!s.contains("Snapshots in this file"), "{s}");
    // The program held 1,234 Orders at snapshot 0 (617 at the last): expected.json.
    t.keys(&["/", "Order", "Enter"]);
    t.wait_until("Order's row with snapshot 0's count", |s| {
        s.lines()
            .any(|l| l.starts_with("= Order ") && l.contains("1,234"))
    });
    t.keys(&["Escape"]);
    let s = t.press(&["#"], "Snapshots in this file");
    assert!(s.contains("▶ #0"), "{s}");
    // `q` closes the list (issue 39), then quits.
    t.keys(&["q"]);
    t.wait_until_whole("the list closed", |s| {
        !s.contains("Snapshots in this file") && s.contains("Class histogram")
    });
    t.quit();
}

#[test]
fn no_byte_of_an_escape_sequence_from_the_dump_reaches_the_terminal() {
    // The class name carries an OSC 52 clipboard write and a colour change (EVIL_CLASS);
    // every byte the program writes to the terminal is recorded (pipe-pane) while the
    // histogram, the class's instances and the summary are drawn.
    let p = evil_hprof();
    // The program starts only once the recording is on, so every byte is recorded.
    let go = scratch().join("evil-go");
    let _ = std::fs::remove_file(&go);
    let cmd = heaptui_line(
        &format!("while [ ! -e {} ]; do sleep 0.05; done; ", go.display()),
        &p.display().to_string(),
        false,
    );
    let Some(t) = Tmux::start("evil", &cmd) else {
        return;
    };
    let raw = scratch().join("evil-pane.raw");
    let _ = std::fs::remove_file(&raw);
    t.tmux(&["pipe-pane", "-o", &format!("cat >> {}", raw.display())]);
    std::fs::write(&go, b"").unwrap();
    t.wait_for("evilRed");
    let s = t.wait_for_index();
    assert!(
        s.contains("Class histogram") && s.contains("evilRed"),
        "{s}"
    );
    t.press(&["Enter"], "Instances of evil");
    t.press(&["i"], "Summary");
    // One key at a time: ESC and a byte at once read as Alt and that key.
    t.keys(&["Escape"]);
    t.wait_until("the summary closed", |s| !s.contains("Summary"));
    t.quit();
    let bytes = std::fs::read(&raw).unwrap();
    assert!(bytes.len() > 1000, "the pane's output was recorded");
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("evilRed"), "the name is drawn, cleaned");
    for needle in [
        "52;c;cHduZWQ",
        "cHduZWQ=",
        "\u{1b}[31mRed",
        "\u{7}\u{1b}[31m",
    ] {
        assert!(!text.contains(needle), "{needle:?} reached the terminal");
    }
}

#[test]
fn a_dump_cut_short_on_disk_while_open_ends_with_a_message_and_a_clean_terminal() {
    // A copy of the fixture is opened, then truncated to nothing under the running TUI.
    // The map's pages were released after indexing, so opening the inspector reads them
    // back from the (now empty) file: SIGBUS. It must not kill the program silently in
    // raw mode: the terminal comes back, a message says what happened, the status is 2.
    let copy = scratch().join("shrinking.hprof");
    std::fs::copy(gunzipped("java/coops/heap-live-jvmgz.hprof.gz"), &copy).unwrap();
    let cmd = heaptui_line("", &copy.display().to_string(), true);
    let Some(t) = Tmux::start("sigbus", &cmd) else {
        return;
    };
    t.wait_for_index();
    std::fs::File::options()
        .write(true)
        .open(&copy)
        .unwrap()
        .set_len(0)
        .unwrap();
    // The largest class's instances, then an instance's inspector: both read records.
    t.keys(&["Enter"]);
    t.keys(&["Enter"]);
    let s = t.exited_with_the_terminal_back("2", "");
    // The message wraps at 80 columns wherever the file's path puts it (a space at a
    // row's end is trimmed): compared without its spaces. It names the file (issue 40,
    // defect 10).
    let joined = squeezed(&s);
    assert!(
        joined.contains(&squeezed("changed or shrank on disk")),
        "{s}"
    );
    assert!(joined.contains("shrinking.hprof"), "{s}");
}

/// The TUI on the coops fixture with its own cache directory `dir` (and `env`, more
/// `NAME=value` settings), in tmux; the shell prints `EXITED-<status>` after it.
fn tui_with_cache(name: &str, dir: &str, env: &str) -> Option<(Tmux, PathBuf, PathBuf)> {
    let cache = scratch().join(dir);
    let file = fixture("java/coops/heap-live-jvmgz.hprof.gz");
    let cmd = heaptui_line(
        &format!(
            "env HEAPTUI_CACHE_MIN_BYTES=0 {env} HEAPTUI_CACHE_DIR={} ",
            cache.display()
        ),
        &file.display().to_string(),
        false,
    );
    Tmux::start(name, &cmd).map(|t| (t, cache, file))
}

/// [`tui_with_cache`] with no more settings, quit (`q`, exit 0) once retained sizes are
/// in; the cache directory and the file.
fn quit_after_the_tree(name: &str, dir: &str) -> Option<(PathBuf, PathBuf)> {
    let (t, cache, file) = tui_with_cache(name, dir, "")?;
    t.wait_for_tree();
    t.quit();
    Some((cache, file))
}

/// Whether the next open of `file` reads its index from the entry in `cache`.
fn reopens_from(cache: &Path, file: &Path) -> serde_json::Value {
    let out = run_cached(cache, &["summary", "--json", file.to_str().unwrap()]);
    let v = json_of(&out);
    let read = v["details"]["index cache"].as_str().unwrap_or_default();
    assert!(read.starts_with("read from "), "{v}");
    v
}

#[test]
fn the_tui_writes_the_index_cache_entry_after_handing_over_the_index() {
    // The entry is written after the index is on screen and before the dominator tree:
    // once retained sizes are in, it is there.
    let Some((cache, file)) = quit_after_the_tree("cache", "tui-cache") else {
        return;
    };
    reopens_from(&cache, &file);
}

#[test]
fn the_tui_keeps_the_dominator_tree_and_a_reopen_shows_it_from_the_entry() {
    let Some((cache, file)) = quit_after_the_tree("tree", "tui-tree") else {
        return;
    };
    // The tree the TUI computed is kept beside the entry: the CLI reads it.
    let listed = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir.join("index"))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let written = listed(&cache);
    let v = reopens_from(&cache, &file);
    let tree = v["details"]["dominator tree"].as_str().unwrap_or_default();
    assert!(tree.starts_with("read from "), "{written:?} {v}");
    // And so does the TUI's reopen: its summary says where the tree came from.
    let Some((t, _, _)) = tui_with_cache("tree-again", "tui-tree", "") else {
        return;
    };
    t.wait_for_tree();
    t.press(&["Escape", "i"], "Summary");
    // Its last lines, below the details.
    t.keys(&["j"; 30]);
    let s = t.wait_until("the summary's end", |s| s.contains("dominator tree"));
    let line = line_with(&s, "dominator tree");
    assert!(line.contains("read from"), "{s}");
    // `q` closes the summary, then quits.
    t.keys(&["q"]);
    t.wait_until_whole("the summary closed", |s| !s.contains("Summary ("));
    t.quit();
}

#[test]
fn an_index_cache_entry_cut_short_under_the_tui_is_named_once() {
    // Issue 40, defect 10: an entry truncated while the TUI read from it ended with exit 2
    // and the terminal back, but the message blamed the dump ("the dump file changed or
    // shrank"), named no file, and came twice when two threads faulted. It names the
    // entry, once.
    let Some((cache, file)) = quit_after_the_tree("cut-entry", "tui-cut-entry") else {
        return;
    };
    let cmd = heaptui_line(
        &format!(
            "env HEAPTUI_CACHE_MIN_BYTES=0 HEAPTUI_CACHE_DIR={} ",
            cache.display()
        ),
        &file.display().to_string(),
        true,
    );
    let Some(t) = Tmux::start("cut-entry-again", &cmd) else {
        return;
    };
    t.wait_for_tree();
    // The columns the reopen maps: cut every file of the index folder to nothing.
    let mut cut = Vec::new();
    for e in std::fs::read_dir(cache.join("index")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_file() && !name.starts_with('.') {
            std::fs::File::options()
                .write(true)
                .open(e.path())
                .unwrap()
                .set_len(0)
                .unwrap();
            cut.push(name);
        }
    }
    assert!(!cut.is_empty(), "no entry was written");
    // The largest class's instances, an instance's inspector, its paths: each reads the
    // index's columns.
    t.keys(&["Escape", "Enter"]);
    t.keys(&["Enter"]);
    t.keys(&["p"]);
    let s = t.exited_with_the_terminal_back("2", "");
    // The pane wraps the message at 80 columns wherever the path puts it: read it
    // joined, without its spaces.
    let joined = squeezed(&s);
    assert_eq!(
        joined
            .matches(&squeezed("this index cache entry was cut short"))
            .count(),
        1,
        "said once, of the entry:\n{s}"
    );
    assert!(!joined.contains(&squeezed("the dump file changed")), "{s}");
    assert!(
        cut.iter().any(|n| joined.contains(n.as_str())),
        "names the entry ({cut:?}):\n{s}"
    );
}

#[test]
fn quitting_while_the_cache_entry_is_written_waits_for_it() {
    // The entry's writing is held up for 8 s (a slow disk, made deterministic; long
    // enough that `q` still comes during it on a loaded machine), and `q`
    // comes as soon as the index is on screen: quitting says it finishes the entry,
    // waits, and the next open reads it.
    let Some((t, cache, file)) = tui_with_cache(
        "cache-wait",
        "tui-cache-wait",
        "HEAPTUI_TEST_CACHE_DELAY_MS=8000",
    ) else {
        return;
    };
    t.wait_until("the index", |s| {
        s.contains(" objects · ") && !s.contains("indexing")
    });
    let quit = std::time::Instant::now();
    let s = t.quit();
    let waited = quit.elapsed();
    assert!(
        s.contains("finishing the index cache entry"),
        "no word of the wait: {s}"
    );
    assert!(
        waited >= std::time::Duration::from_millis(1500),
        "quit after {waited:?}: it did not wait for the entry"
    );
    reopens_from(&cache, &file);
}

#[test]
fn resizing_then_quitting_leaves_the_shell_s_screen_as_it_was() {
    let Some(t) = Tmux::start("resize", "bash --norc --noprofile -i") else {
        return;
    };
    t.press(&["clear; echo BEFORE-MARK", "Enter"], "BEFORE-MARK");
    t.type_heaptui("java/coops/heap-live-jvmgz.hprof.gz");
    t.press(&["Escape"], "Class histogram");
    // Shrink, grow, shrink in both directions, grow back: each time the TUI redraws.
    for (w, h) in [("60", "20"), ("120", "40"), ("50", "12"), ("160", "45")] {
        t.tmux(&["resize-window", "-x", w, "-y", h]);
        // The redraw at the new size (the status line fits it), drawn whole.
        t.wait_until("a redraw", |s| {
            s.lines().count() == h.parse::<usize>().unwrap() && s.contains("Class histogram")
        });
        t.wait_still();
    }
    t.keys(&["q"]);
    let s = t.wait_until("the shell's prompt", |s| !s.contains("Class histogram"));
    // Nothing of the TUI is left on the screen or in the scrollback above the mark.
    let all = t.tmux(&["capture-pane", "-p", "-S", "-200"]);
    let before: Vec<&str> = all
        .lines()
        .take_while(|l| !l.contains("BEFORE-MARK"))
        .collect();
    assert!(
        before
            .iter()
            .all(|l| !l.contains("java.") && !l.contains("byte[]")),
        "the TUI's lines were left above the shell's:\n{all}"
    );
    assert!(!s.contains("java.lang"), "{s}");
    assert_eq!(t.modes(), "0 1");
}

/// `heaptui BASELINE TARGET FINAL`: memlab's three-snapshot view on the Node fixtures.
/// The program left 250 of the 400 `HeaptuiLeak`s it made between the baseline and the
/// target in `globalThis.heaptuiLeaks` (fixtures/node/expected.json): one cluster, held
/// through that array, whose objects `Enter` lists.
#[test]
fn three_snapshots_open_the_leak_clusters() {
    let expected = fixture_json("node/expected.json");
    let left = expected["snapshots"][2]["counts"]["HeaptuiLeak"]
        .as_u64()
        .unwrap();
    let f = |n: &str| {
        fixture(&format!("node/{n}.heapsnapshot.gz"))
            .display()
            .to_string()
    };
    let Some(t) = Tmux::start(
        "leaks",
        &format!(
            "{} {} {} {}",
            env!("CARGO_BIN_EXE_heaptui"),
            f("baseline"),
            f("target"),
            f("final")
        ),
    ) else {
        return;
    };
    t.tmux(&["resize-window", "-x", "140", "-y", "30"]);
    let s = t.wait_until("the clusters", |s| {
        s.contains("Leaks: ") && s.contains(" clusters (")
    });
    let row = s
        .lines()
        .find(|l| l.contains(" HeaptuiLeak ") && l.contains("← global .heaptuiLeaks"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(row.contains(&format!(" {left}  HeaptuiLeak")), "{row}\n{s}");
    // The CLI's `leaks` lists the same first clusters.
    let k = s.lines().position(|l| l == row).unwrap();
    let keys: Vec<&str> = std::iter::repeat_n("j", k - 1).collect();
    t.keys(&keys);
    let s = t.press(&["Enter"], "Leaked instances of HeaptuiLeak");
    assert!(
        s.contains(&format!("Leaked instances of HeaptuiLeak — {left} objects")),
        "{s}"
    );
    t.keys(&["q"]);
}

/// Issue 26's cockpit, as a person drives it at 160×45 on the Java leak fixture: the
/// instance list with the inspector beside it, the sessions map's table grouped by
/// class in the dominator tree, and the merged paths of every `Session` with counts
/// (12,000 sessions, truth.json).
#[test]
fn the_cockpit_at_160x45_splits_groups_and_merges() {
    let t = fixture_json("java/leak/truth.json");
    let sessions = t["plants"]["session_cache"]["count"].as_u64().unwrap();
    let Some(tm) = Tmux::running("cockpit", &["java/leak/heap-live.hprof.gz"], "160", "45") else {
        return;
    };
    // The list and, beside it, the inspector of its selected object.
    tm.keys(&["/", "com.example.Session", "Enter", "Enter"]);
    let s = tm.wait_until("the split", |s| {
        s.contains("Instances of com.example.Session")
            && s.contains("Inspector — com.example.Session")
    });
    let line = line_with(&s, "Instances of com.example.Session");
    assert!(line.contains("Inspector — "), "side by side:\n{s}");
    // The suspects: the sessions map (second), its dominator tree, its table grouped.
    tm.press(&["!"], "Leak suspects");
    tm.press(&["j", "d"], "Dominator tree — below java.util.HashMap");
    let s = tm.press(&["j", "g"], " × java.util.HashMap$Node");
    assert!(s.contains("▸ 7,321 × java.util.HashMap$Node"), "{s}");
    // The merged paths of every session, through the one map (H keeps the filter).
    // At 160 columns the histogram has them beside it already, once its selection
    // has rested; `Tab` gives them the keys, `Esc` gives them back.
    let all = with_commas(sessions as usize);
    let merged = format!("Merged paths from GC roots — {all} of {all} com.example.Session");
    tm.keys(&["H"]);
    let s = tm.wait_until("the histogram and the class's merged paths", |s| {
        let title = s.lines().next().unwrap_or("");
        title.starts_with("▶Class histogram") && title.contains(&merged)
    });
    assert!(
        s.contains(&format!("{all} objects")) || s.contains(&format!("{all} obj ")),
        "{s}"
    );
    tm.keys(&["Tab"]);
    tm.wait_until("the paths focused", |s| {
        s.starts_with(" Class histogram")
            && s.lines()
                .next()
                .is_some_and(|l| l.contains("▶Merged paths from GC roots — "))
    });
    tm.press(&["Escape"], "▶Class histogram");
    // `P`: the same paths, the whole screen.
    tm.keys(&["P"]);
    let s = tm.wait_until("the merged paths", |s| {
        s.starts_with(" Merged paths from GC roots — ")
            && s.contains(" objects,")
            && !s.contains("working…")
    });
    assert!(
        s.contains(&format!("{all} of {all} com.example.Session")),
        "{s}"
    );
    // The entries in the table's slots, one row: as many as the dominator tree's group.
    assert!(
        s.contains("[*] → java.util.HashMap$Node (7,321 objects)"),
        "{s}"
    );
    tm.keys(&["q"]);
}

#[test]
fn running_out_of_memory_ends_with_exit_2_and_a_clean_terminal() {
    // Issue 28, defect 1: an allocation that fails (here under an address-space limit
    // 40 MiB above the file's size, too small for the index of 1 M objects) aborted the
    // process (SIGABRT, 134) with the alternate screen, mouse capture and raw mode still
    // on. Now the terminal comes back, a message says what happened, the status is 2.
    // (The check up front, which counts the address-space limit, is told to let it
    // try: this is about running out all the same.)
    let f = scratch().join("oom.hprof");
    std::fs::write(&f, common::hostile::hprof_instances(1_000_000)).unwrap();
    let kb =
        crate::common::address_space_for(std::fs::metadata(&f).unwrap().len(), 25 << 20) / 1024;
    let cmd = heaptui_line(
        &format!("ulimit -v {kb}; MALLOC_ARENA_MAX=1 HEAPTUI_IGNORE_MEMORY=1 "),
        &f.display().to_string(),
        true,
    );
    let Some(t) = Tmux::start("oom", &cmd) else {
        return;
    };
    let s = t.exited_with_the_terminal_back("2", "");
    // The message wraps at the pane's width wherever the scratch path puts it.
    assert!(s.replace('\n', "").contains("out of memory"), "{s}");
}

/// Issue 28, defect 12: a SIGTSTP from outside (`kill -TSTP`, as a job-control shell or
/// a supervisor sends it) stops the TUI as Ctrl-Z does: the main screen back, mouse
/// capture and raw mode off while stopped, everything drawn again after `fg`.
#[test]
fn an_outside_sigtstp_gives_the_terminal_back_and_fg_comes_back() {
    let Some(t) = Tmux::shell_running("tstp", "java/coops/heap-live-jvmgz.hprof.gz") else {
        return;
    };
    let pid = t.child_pid();
    let ok = Command::new("kill")
        .args(["-TSTP", pid.trim()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -TSTP {pid}");
    t.stopped_then_continued();
    t.keys(&["q"]);
    let s = t.wait_until("the shell's prompt", |s| !s.contains("Class histogram"));
    assert_eq!(t.modes(), "0 1", "{s}");
}

/// Issue 26 in a terminal: the filter's order on the Chromium fixture (the detached
/// `<div>` row first, exact and substring matches before fuzzy ones, each marked), then
/// paging through the sessions table of the Java leak fixture, 500 children at a time.
#[test]
fn the_filter_and_paging_as_a_person_uses_them() {
    let Some(t) = Tmux::running(
        "finding",
        &["chromium/detached.heapsnapshot.gz"],
        "120",
        "30",
    ) else {
        return;
    };
    // (At 120 columns the histogram's title, which names the filter, is cut beside the
    // merged paths of its selected class: the filter kept (the prompt closed, the hint
    // line back) and the first row say it is applied.)
    t.keys(&["/", "Detached <div", "Enter"]);
    let s = t.wait_until("the filter kept", |s| {
        s.lines().last().is_some_and(|l| l.contains("q quit"))
            && s.lines()
                .nth(2)
                .is_some_and(|l| l.starts_with("^ Detached <div>"))
    });
    let rows: Vec<&str> = s
        .lines()
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert!(rows[0].starts_with("^ Detached <div>"), "{s}");
    let marks: Vec<char> = rows
        .iter()
        .filter_map(|l| l.chars().next())
        .filter(|c| "=^+~".contains(*c))
        .collect();
    assert!(
        marks.windows(2).all(|w| !(w[0] == '~' && w[1] != '~')),
        "no substring match after a fuzzy one: {marks:?}\n{s}"
    );
    t.keys(&["q"]);

    // Paging: the sessions table's dominator children, 500 at a time.
    let Some(t) = Tmux::running("paging", &["java/leak/heap-live.hprof.gz"], "120", "30") else {
        return;
    };
    t.press(&["!"], "Leak suspects");
    t.press(&["j", "d"], "Dominator tree — below java.util.HashMap");
    let s = t.press(&["j", "l", "G"], " more (");
    let more = |s: &str| -> u64 {
        let l = line_with(s, " more (");
        let n = l.split("… ").nth(1).unwrap().split(' ').next().unwrap();
        n.replace(',', "").parse().unwrap()
    };
    let first = more(&s);
    t.keys(&["Enter", "G"]);
    let s = t.wait_until("the next page", |s| {
        s.contains(" more (") && more(s) != first
    });
    assert_eq!(more(&s), first - 500, "{s}");
    t.keys(&["q"]);
}

/// Issue 26's `w` in a terminal: the one `SoftTarget` of the JDK 17 fixture is reachable
/// only through a `SoftReference` (the fixture's program says so); its paths say that,
/// and `w` follows weak and soft references to a GC root.
#[test]
fn w_follows_weak_and_soft_references_in_the_paths() {
    let Some(t) = Tmux::running(
        "weak",
        &["java/coops/heap-live-jvmgz.hprof.gz"],
        "100",
        "30",
    ) else {
        return;
    };
    t.press(
        &["/", "dev.heaptui.fixture.SoftTarget", "Enter", "Enter"],
        "Instances of dev.heaptui.fixture.SoftTarget — 1 objects",
    );
    t.press(&["Enter"], "Inspector — dev.heaptui.fixture.SoftTarget");
    t.press(
        &["p"],
        "held only by weak or soft references (w follows them)",
    );
    let s = t.press(&["w"], "weak references too");
    assert!(s.contains("GC root"), "{s}");
    assert!(s.contains("referent"), "the soft reference's field:\n{s}");
    t.keys(&["q"]);
}

#[test]
fn emoji_sequences_leave_no_stale_cells() {
    // Issue 28, defect 15: a class name and a string holding a ZWJ family, a flag, skin
    // tones, VS16, a keycap, a subdivision flag, a zero-width space and CJK. ratatui
    // moved on by 2 cells for 👍🏽 where tmux drew 4, and by 2 for ❤️ where tmux drew 1:
    // the modifier was overdrawn, a stray space followed the heart, the name's end was
    // cut and cells of the last screen stayed. Every screen tmux shows must now be the
    // one ratatui meant (its TestBackend at the same size after the same keys), cell for
    // cell, through every pane.
    use common::tui::{drawn_rows, run, EMOJI_STEPS};
    let p = scratch().join("emoji-tmux").join("emoji.hprof");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, common::hostile::emoji_hprof()).unwrap();
    let cmd = heaptui_line("", &p.display().to_string(), false);
    let Some(t) = Tmux::start("emoji", &cmd) else {
        return;
    };
    t.tmux(&["resize-window", "-x", "100", "-y", "24"]);
    let snap = heaptui::open(&p, &heaptui::sys::progress::Progress::new()).unwrap();
    let mut app = heaptui::ui::app::App::with_snapshot(p.clone(), snap);
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 24)).unwrap();
    for (keys, expect) in EMOJI_STEPS {
        run(&mut app, &mut term, keys);
        let want = drawn_rows(&term).join("\n");
        assert!(want.contains(expect), "{want}");
        for c in keys.chars() {
            // One key at a time, the next once the program has taken this one (the screen
            // changed; each of these keys changes it): ESC and a byte read at once are Alt
            // and that key.
            let before = t.screen();
            match c {
                '\u{1b}' => t.keys(&["Escape"]),
                '\n' => t.keys(&["Enter"]),
                c => t.keys(&["-l", &c.to_string()]),
            }
            t.wait_until(&format!("{c:?} taken"), |s| s != before);
        }
        let start = Instant::now();
        loop {
            let got = t.screen();
            let got = got.trim_end_matches('\n');
            if got == want {
                break;
            }
            if start.elapsed() > PATIENCE {
                let diff: Vec<String> = got
                    .lines()
                    .zip(want.lines())
                    .enumerate()
                    .filter(|(_, (g, w))| g != w)
                    .map(|(i, (g, w))| format!("row {i}\n tmux: {g}\n want: {w}"))
                    .collect();
                panic!(
                    "after {keys:?}, tmux shows another screen than ratatui drew:\n{}\n\
                     tmux:\n{got}\nwant:\n{want}",
                    diff.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    t.quit();
}

/// Below 120 columns the cockpit is the stack of one pane at a time, as a person sees it
/// at 80×24: the session instances alone, `Enter` puts the inspector in their place,
/// `Esc` brings them back.
#[test]
fn the_cockpit_at_80x24_is_one_pane_at_a_time() {
    let Some(tm) = Tmux::running("stack", &["java/leak/heap-live.hprof.gz"], "80", "24") else {
        return;
    };
    tm.keys(&["/", "com.example.Session", "Enter", "Enter"]);
    let s = tm.wait_until("the instances", |s| {
        s.contains("Instances of com.example.Session")
    });
    assert!(!s.contains("Inspector — "), "one pane:\n{s}");
    let s = tm.press(&["Enter"], "Inspector — com.example.Session");
    assert!(!s.contains("Instances of com.example.Session"), "{s}");
    tm.press(&["Escape"], "Instances of com.example.Session");
    tm.keys(&["q"]);
}

/// The diff at 160 columns in a real terminal: the grown class's two sides, and a third
/// column inspecting the focused side's selected object, which `Tab` moves to the other
/// side (fixtures/java/growth: CacheEntry 2,000 → 5,000, expected.json).
#[test]
fn the_diff_at_160_columns_has_a_third_column_for_the_focused_side() {
    let cmd = growth_diff_line();
    let Some(t) = Tmux::start("diff160", &cmd) else {
        return;
    };
    t.tmux(&["resize-window", "-x", "160", "-y", "45"]);
    t.wait_for("Owners that grew most");
    t.press(&["s"], "sorted by Δ retained size");
    t.press(&["s"], "sorted by Δ count");
    let s = t.press(&["g", "j", "Enter"], "TARGET: the selected object");
    assert!(
        s.contains("CacheEntry — 2,000 objects") && s.contains("CacheEntry — 5,000 objects"),
        "{s}"
    );
    assert_eq!(
        s.matches("Inspector — dev.heaptui.growth.CacheEntry")
            .count(),
        1,
        "{s}"
    );
    t.press(&["Tab"], "BASE: the selected object");
    t.keys(&["q"]);
}

/// Issue 26's acceptance: paging and grouping the 12,000+ children of a node, in a
/// terminal. On the Java leak fixture the 12,000 sessions of the `SESSIONS` map are the
/// referrers of their class object (each holds it by `<class>`); in the map itself they
/// hang 7,321 below its table and the rest in the bins' chains (that table's paging is
/// `the_filter_and_paging_as_a_person_uses_them`'s). The tree lists 500, ends with
/// `… 11,500 more (…)`, `Enter` shows the next 500 in its place, `g` on it groups them
/// all: `12,000 × com.example.Session`.
#[test]
fn paging_and_grouping_twelve_thousand_children_of_a_node() {
    let truth = fixture_json("java/leak/truth.json");
    let sessions = truth["plants"]["session_cache"]["count"].as_u64().unwrap();
    assert!(sessions >= 12_000, "{sessions}");
    let Some(t) = Tmux::running("twelve", &["java/leak/heap-live.hprof.gz"], "120", "30") else {
        return;
    };
    t.keys(&["/", "java.lang.Class", "Enter", "Enter"]);
    t.wait_for("Instances of java.lang.Class");
    t.keys(&["/", "class com.example.Session", "Enter"]);
    // The class object, an exact match of its value, first (the value column is cut
    // beside the inspector, which names it), once the filter has ended (its matches so
    // far, the first 1,024 classes', may already have it first).
    let s = t.wait_until("the class object first", |s| {
        s.lines().nth(2).is_some_and(|l| l.starts_with("= 0x"))
            && s.contains("java.lang.Class  class com.example.Session")
            && s.contains(" match \"class com")
    });
    assert!(!s.contains("working…"), "{s}");
    t.press(&["r"], "Referrers of java.lang.Class");
    let more = |s: &str| -> u64 {
        let l = line_with(s, " more (");
        let n = l.split("… ").nth(1).unwrap().split(' ').next().unwrap();
        n.replace(',', "").parse().unwrap()
    };
    // The first 500 referrers, then what they leave: the sessions at least.
    let s = t.press(&["G"], " more (");
    assert!(s.contains("<class> ← com.example.Session 0x"), "{s}");
    let first = more(&s);
    assert!(first + 500 >= sessions, "{s}");
    t.keys(&["Enter", "G"]);
    let s = t.wait_until("the next page", |s| {
        s.contains(" more (") && more(s) != first
    });
    assert_eq!(more(&s), first - 500, "{s}");
    // `g` on the page row: the node's children by class, all of them (on the whole
    // frame: one half written still has the page rows below the groups).
    t.keys(&["g"]);
    let grouped = format!("{} × com.example.Session", with_commas(sessions as usize));
    let s = t.wait_until_whole(&grouped, |s| s.contains(&grouped));
    assert!(!s.contains(" more ("), "{s}");
    t.keys(&["q"]);
}

/// Issue 38: the TUI sleeps while nothing happens. Once the dump is loaded and its last
/// result drawn, a whole second passes with not a byte written (the loop before drew a
/// frame every tenth of a second, about 26 bytes each, and used 5 % of a core idle).
#[test]
fn an_idle_tui_writes_nothing_to_the_terminal() {
    let Some(t) = Tmux::start("idle", &command()) else {
        return;
    };
    t.wait_for_index();
    let pid = t.child_pid();
    assert!(!pid.is_empty(), "no heaptui process under the pane's shell");
    // The bytes the process has written so far (the terminal's; a dump this small is
    // given no cache entry).
    let written = || {
        let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
        io.lines()
            .find_map(|l| l.strip_prefix("wchar: "))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap()
    };
    let start = Instant::now();
    let (mut last, mut since) = (written(), Instant::now());
    while since.elapsed() < Duration::from_secs(1) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "still writing to the terminal after 30 s with no key:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
        let now = written();
        if now != last {
            (last, since) = (now, Instant::now());
        }
    }
    // And it still answers a key at once.
    t.press(&["?"], "Keys (");
    // `q` closes the help, then quits.
    t.keys(&["q"]);
    t.wait_until_whole("the help closed", |s| !s.contains("Keys ("));
    t.quit();
}

/// Issue 39, bug 2: `q` in the `?` help and in the `i` summary closed heaptui; it closes
/// the overlay, and quits only outside one.
#[test]
fn q_closes_the_help_and_the_summary_in_a_real_terminal() {
    let Some(t) = Tmux::start("overlayq", &command()) else {
        return;
    };
    t.wait_for_index();
    for (key, title) in [("?", "Keys ("), ("i", "Summary (")] {
        t.press(&[key], title);
        t.keys(&["q"]);
        let s = t.wait_until_whole("the overlay closed", |s| {
            !s.contains(title) && s.contains("Class histogram")
        });
        assert!(!s.contains("EXITED-"), "{s}");
    }
    t.quit();
    assert_eq!(t.modes(), "0 1", "main screen back, cursor shown");
}

/// Issue 39, bug 9: a click selects the row under it, a double click opens it, in the
/// real terminal (the SGR mouse reports a terminal sends, 1-based: `ESC [ < 0 ; x ; y M`
/// for the press, `m` for the release).
#[test]
fn a_click_selects_a_row_and_a_double_click_opens_it_in_a_real_terminal() {
    let Some(t) = Tmux::start("click", &command()) else {
        return;
    };
    let s = t.wait_for_index();
    let row = |s: &str, start: &str| {
        s.lines()
            .position(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no row {start:?}:\n{s}"))
            + 1
    };
    let click = |y: usize| {
        t.keys(&["-l", &format!("\x1b[<0;5;{y}M")]);
        t.keys(&["-l", &format!("\x1b[<0;5;{y}m")]);
    };
    click(row(&s, "java.lang.String "));
    let s = t.wait_for("▸ java.lang.String ·");
    assert!(
        s.contains("Class histogram"),
        "one click opens nothing:\n{s}"
    );
    let y = row(&s, "java.lang.Object[] ");
    click(y);
    click(y);
    t.wait_for("Instances of java.lang.Object[]");
    t.quit();
}

/// Issue 39, friction 2, in a real terminal at 120×40 on the Java leak fixture: `>`
/// widens the instance list beside the inspector and `<` the inspector, a blank column
/// between them (bug 3); `z` gives the focused pane the whole width and `Esc` gives the
/// other one back; after `Tab`, `z` zooms the inspector.
#[test]
fn the_split_moves_and_the_focused_pane_zooms_in_a_real_terminal() {
    let Some(tm) = Tmux::running("split", &["java/leak/heap-live.hprof.gz"], "120", "40") else {
        return;
    };
    let at = |s: &str| {
        s.lines()
            .next()
            .and_then(|l| l.find("Inspector — "))
            .map(|b| s.lines().next().unwrap()[..b].chars().count())
    };
    tm.keys(&["/", "com.example.Session", "Enter", "Enter"]);
    let s = tm.wait_until_whole("the split", |s| {
        s.starts_with("▶Instances of com.example.Session") && at(s).is_some()
    });
    let x0 = at(&s).unwrap();
    // The column before the inspector's title is blank on every row of the panes.
    let blank = |s: &str, x: usize| {
        s.lines()
            .take(30)
            .all(|l| l.chars().nth(x - 2).is_none_or(|c| c == ' '))
    };
    assert!(blank(&s, x0), "a blank column at {}:\n{s}", x0 - 2);
    tm.keys(&[">"]);
    let s = tm.wait_until_whole("the list wider", |s| at(s).is_some_and(|x| x > x0));
    assert!(s.contains("the left pane has 60% of the width"), "{s}");
    tm.keys(&["<", "<"]);
    let s = tm.wait_until_whole("the inspector wider", |s| at(s).is_some_and(|x| x < x0));
    let x2 = at(&s).unwrap();
    assert!(blank(&s, x2), "{s}");
    // z: the list alone; Esc: both again, the split where it was.
    tm.keys(&["z"]);
    let s = tm.wait_until_whole("the list zoomed", |s| {
        s.starts_with(" Instances of com.example.Session") && at(s).is_none()
    });
    assert!(s.lines().next().unwrap().ends_with('─'), "{s}");
    tm.keys(&["Escape"]);
    tm.wait_until_whole("the split back", |s| at(s) == Some(x2));
    // Tab z: the inspector alone, its object whole under it.
    tm.keys(&["Tab", "z"]);
    let s = tm.wait_until_whole("the inspector zoomed", |s| {
        s.starts_with(" Inspector — com.example.Session")
    });
    assert!(!s.contains("Instances of"), "{s}");
    tm.keys(&["z"]);
    tm.wait_until_whole("the split back", |s| at(s) == Some(x2));
    tm.keys(&["q"]);
}

/// Issue 39 (friction 5 and 6) with real keys: on the Java leak fixture, the listeners'
/// list's array shows who holds it before its elements, `G` `Enter` pages them, `g`
/// groups them by class (truth.json's 3,000 listeners).
#[test]
fn the_inspector_of_a_big_array_with_real_keys() {
    let t = fixture_json("java/leak/truth.json");
    let count = t["plants"]["listeners"]["count"].as_u64().unwrap() as usize;
    let line = heaptui_line(
        "",
        &fixture("java/leak/heap-live.hprof.gz")
            .display()
            .to_string(),
        true,
    );
    let Some(t) = Tmux::start("inspector", &line) else {
        return;
    };
    t.wait_until_whole("the leak suspects", |s| s.contains("Leak suspects — 5 of"));
    // The fourth suspect: the listeners' ArrayList; its second field, the array.
    t.keys(&["j", "j", "j"]);
    t.wait_for("field listeners of EventBus holds");
    let s = t.press(&["Enter"], "Inspector — java.util.ArrayList");
    assert!(s.contains("elementData"), "{s}");
    let s = t.press(&["j", "Enter"], "Inspector — java.lang.Object[]");
    let held = s
        .lines()
        .position(|l| l.contains("via elementData"))
        .expect(&s);
    let fields = s.lines().position(|l| l.starts_with("fields (")).expect(&s);
    assert!(held < fields && s.contains("dominator 0x"), "{s}");
    // `G` to the "… N more elements" row, `Enter`: the next 500.
    let s = t.press(&["G"], "more elements: Enter shows the next 500");
    let before = s
        .lines()
        .find(|l| l.contains("more elements"))
        .unwrap()
        .to_string();
    t.keys(&["Enter", "G"]);
    let s = t.wait_until("the next page", |s| {
        s.lines()
            .find(|l| l.contains("more elements"))
            .is_some_and(|l| l != before)
    });
    assert!(s.contains("[599]"), "{s}");
    let s = t.press(&["g"], "elements by class:");
    assert!(s.contains("Inspector — java.lang.Object[]"), "{s}");
    assert!(
        s.contains(&format!("{} × com.example.Listener", with_commas(count))),
        "{s}"
    );
    t.keys(&["q"]);
    t.exited_with_the_terminal_back("0", "");
}

/// Issue 39, bug 7: a terminal of 8 or 16 colours (`TERM=xterm`, whose terminfo entry
/// has `colors#8`) gets the ANSI colour sequences (`ESC[44m`), never the 256-colour ones
/// (`38;5;8`, `48;5;4`) that crossterm writes for every colour: the bytes the program
/// writes, as tmux's `pipe-pane` hands them on.
#[test]
fn a_sixteen_colour_terminal_gets_no_256_colour_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("go");
    let raw = dir.path().join("raw");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // The pane waits on the fifo until its output is piped to `raw`.
    let line = heaptui_line(
        &format!("read _ < {}; TERM=xterm COLORTERM= ", fifo.display()),
        &fixture("java/coops/heap-live-jvmgz.hprof.gz")
            .display()
            .to_string(),
        false,
    );
    let Some(t) = Tmux::start("colours", &line) else {
        return;
    };
    t.tmux(&["pipe-pane", "-o", &format!("cat >> {}", raw.display())]);
    std::fs::write(&fifo, "go\n").unwrap();
    t.wait_for_index();
    t.quit();
    let start = Instant::now();
    let bytes = loop {
        let b = std::fs::read(&raw).unwrap_or_default();
        if String::from_utf8_lossy(&b).contains("EXITED-0") {
            break b;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no EXITED-0 in the piped output"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = String::from_utf8_lossy(&bytes);
    for seq in ["38;5;", "48;5;", "38;2;", "48;2;"] {
        assert!(!text.contains(seq), "{seq} written to TERM=xterm");
    }
    // The selected row's blue background, as ANSI says it.
    assert!(
        text.contains("\u{1b}[44m") || text.contains(";44m"),
        "no ESC[…44m: {:?}",
        &text[..text.len().min(2000)]
    );
}

/// Issue 39, friction 3: `heaptui FILE --goto …` opens there: an object by its id (the
/// node id the program asked V8 for, `fixtures/node/leak/truth.json`), a class's
/// instances, the waste findings; a class name in the wrong case gets a "did you mean".
#[test]
fn goto_opens_the_tui_on_an_object_a_class_or_a_view() {
    let t = fixture_json("node/leak/truth.json");
    let first = &t["ids"]["firstSession"];
    let id = format!("@{}", first["id"].as_u64().unwrap());
    let class = first["name"].as_str().unwrap().to_string();
    let file = fixture("node/leak/leak.heapsnapshot.gz")
        .display()
        .to_string();
    for (goto, want) in [
        (id.clone(), format!("Inspector — {class} {id}")),
        (format!("class:{class}"), format!("Instances of {class}")),
        ("view:waste".to_string(), "Waste — ".to_string()),
        // A class name not quite right: the status line says which was meant.
        (
            format!("class:{}", class.to_lowercase()),
            format!("did you mean `{class}`?"),
        ),
    ] {
        let line = heaptui_line("", &format!("{file} --goto {goto}"), false);
        let Some(t) = Tmux::start(&format!("goto{}", want.len()), &line) else {
            return;
        };
        t.tmux(&["resize-window", "-x", "120", "-y", "40"]);
        t.wait_for(&want);
        t.quit();
    }
}
