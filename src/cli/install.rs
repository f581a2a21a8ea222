//! What an installed `heaptui` brings besides itself: shell completion scripts
//! (`heaptui completions SHELL`, by `clap_complete`) and a man page (`heaptui man`, roff,
//! by `clap_mangen`), both generated from the clap definition of the command line
//! ([`super::Cli`]), so that they name exactly the commands and options the binary has.
//!
//! Owns nothing else: it opens no dump. The man page is one page, `heaptui(1)`, with a
//! section per command (its synopsis, what it does and its options), rather than
//! clap_mangen's default of a page per command, which `heaptui man` printing one
//! document on stdout could not install; the exit status and the environment, which clap
//! does not know, are written here.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;

use super::Cli;
use crate::error::{Error, Result};

/// The command line as clap defines it, named `heaptui` for the generators (completion
/// scripts register for that name; the man page's synopses read `heaptui summary …`).
fn command() -> clap::Command {
    let mut cmd = Cli::command().bin_name("heaptui");
    cmd.build();
    cmd
}

/// Writes `bytes` to stdout: a failed write is an error (a full disk under a redirection),
/// where a broken pipe ends the process quietly by SIGPIPE, as `main` sets it.
fn print(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Error::io(Path::new("standard output"), e))
}

/// `heaptui completions SHELL`: the completion script for SHELL on stdout.
pub fn completions(shell: Shell) -> Result<()> {
    print(&completion_script(shell))
}

/// The completion script for `shell`, as bytes.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    let mut cmd = command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "heaptui", &mut buf);
    buf
}

/// `heaptui man`: the man page on stdout.
pub fn man() -> Result<()> {
    print(man_page().as_bytes())
}

/// The two lines every roff text rendered by the `roff` crate begins with, which define
/// the apostrophe (`\*(Aq`) its text uses: the page has them once, at the top.
const PREAMBLE: [&str; 2] = [".ie \\n(.g .ds Aq \\(aq", ".el .ds Aq '"];

/// What `render` writes, less the preamble, and less its `.SH` headings when `headings`
/// is false (a command's synopsis and options, to go under a heading of ours).
fn rendered(headings: bool, render: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut buf = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = render(&mut buf);
    String::from_utf8_lossy(&buf)
        .lines()
        .filter(|l| !PREAMBLE.contains(l) && (headings || !l.starts_with(".SH ")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The man page `heaptui(1)`, in roff.
pub fn man_page() -> String {
    let cmd = command();
    let man = Man::new(cmd.clone()).title("HEAPTUI");
    let mut page = format!("{}\n{}\n", PREAMBLE[0], PREAMBLE[1]);
    page.push_str(&rendered(true, |w| man.render_title(w)));
    page.push_str(&rendered(true, |w| man.render_name_section(w)));
    page.push_str(&rendered(true, |w| man.render_synopsis_section(w)));

    let mut r = Roff::new();
    r.control("SH", ["DESCRIPTION"]);
    r.text([roman(
        "heaptui opens heap snapshots of the JVM (HPROF), V8 (Node, Chrome), Go \
         (WriteHeapDump), MoarVM and the Dart VM, gzip-compressed or not; the format is \
         detected from the first bytes. Without a command it is a terminal interface:",
    )]);
    r.control("TP", []);
    r.text([bold("heaptui FILE")]);
    r.text([roman("browse one snapshot (press ? for the keys)")]);
    r.control("TP", []);
    r.text([bold("heaptui BASE TARGET")]);
    r.text([roman(
        "the classes and owners that changed between two snapshots",
    )]);
    r.control("TP", []);
    r.text([bold("heaptui BASELINE TARGET FINAL")]);
    r.text([roman(
        "memlab's leak clusters: objects allocated between BASELINE and TARGET that are \
         still alive in FINAL",
    )]);
    r.control("PP", []);
    r.text([roman(
        "With a command it prints a plain table, or one JSON document with --json. An \
         object is named as the tool prints it: 0x followed by the address (HPROF, Go), \
         @N (a V8 node id), #N (MoarVM, Dart); a bare N means @N or #N. A file that \
         holds several snapshots (MoarVM) takes a suffix: app.mvmheap#2 is snapshot 2.",
    )]);
    page.push_str(&rendered(true, |w| r.to_writer(w)));
    page.push_str(&rendered(true, |w| man.render_options_section(w)));

    page.push_str(".SH COMMANDS\n");
    // clap's own `help` command is left out: `heaptui help COMMAND` is `--help`.
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = sub.get_bin_name().unwrap_or_else(|| sub.get_name());
        let mut r = Roff::new();
        r.control("SS", [name]);
        page.push_str(&rendered(false, |w| r.to_writer(w)));
        let one = Man::new(sub.clone());
        page.push_str(&rendered(false, |w| one.render_synopsis_section(w)));
        page.push_str(".PP\n");
        page.push_str(&rendered(false, |w| one.render_description_section(w)));
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            page.push_str(".PP\n");
            page.push_str(&rendered(false, |w| one.render_options_section(w)));
        }
    }

    let mut r = Roff::new();
    r.control("SH", ["EXIT STATUS"]);
    for (code, what) in [
        (
            "0",
            "done (a truncated file opens as far as it is whole, and says so)",
        ),
        ("1", "usage error"),
        (
            "2",
            "the file cannot be read as a heap snapshot (the message names the file, the \
             byte offset and what was expected there), or not within the memory left",
        ),
        ("3", "the object or class named does not exist"),
        (
            "128+N",
            "ended by signal N (SIGTERM, SIGINT, SIGHUP), after removing its temporary files",
        ),
    ] {
        r.control("TP", []);
        r.text([bold(code)]);
        r.text([roman(what)]);
    }
    r.control("SH", ["ENVIRONMENT"]);
    // Every variable heaptui reads, from the one table of them (`sys::env`), but those
    // only tests set.
    use crate::sys::env::{Kind, VARS};
    let vars = VARS.iter().filter(|v| !v.name.starts_with("HEAPTUI_TEST_"));
    let mut listed: Vec<(String, &str)> = vars
        .map(|v| {
            let name = match v.kind {
                Kind::Flag => format!("{}=1", v.name),
                Kind::Bytes => format!("{}=BYTES", v.name),
                Kind::Number => format!("{}=N", v.name),
                Kind::Path => v.name.to_string(),
            };
            (name, v.doc)
        })
        .collect();
    listed.push(("NO_COLOR".into(), "the TUI draws without colours"));
    for (var, what) in &listed {
        r.control("TP", []);
        r.text([bold(var)]);
        r.text([roman(*what)]);
    }
    r.control("SH", ["SEE ALSO"]);
    r.text([roman(
        "heaptui completions SHELL prints a completion script for bash, zsh, fish, elvish \
         or powershell. The project's docs/cli.md describes every command and its JSON.",
    )]);
    page.push_str(&rendered(true, |w| r.to_writer(w)));
    page
}
