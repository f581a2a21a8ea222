//! The batch command line of `docs/cli.md`: argument parsing, the commands, and their
//! text and JSON output. The contract is only ever added to.
//!
//! Exit codes: 0 done, 1 usage, 2 unreadable snapshot, 3 no such object or class. clap's
//! own usage errors exit 2 by default, which the contract gives to unreadable files, so
//! parsing goes through `try_parse` and usage errors are mapped to 1 here.

mod analyses;
mod commands;
mod compare;
pub mod findings;
pub mod install;
#[cfg(feature = "sql")]
mod query;
mod sets;
mod usage;

pub use crate::present::{rss, summary_lines_for, value_text};

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::{Error, Result};
use crate::heap::dominators::Dominators;
use crate::heap::ObjId;
use crate::session::Session;
use crate::sys::progress::Progress;

#[derive(Parser, Debug)]
#[command(
    name = "heaptui",
    version,
    about = "Browse heap snapshots (HPROF, V8, Go, MoarVM, Dart) in the terminal"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Option<Cmd>,
    /// FILE opens the TUI on one snapshot; BASE TARGET on the diff of two
    pub files: Vec<PathBuf>,
    /// Open the TUI there: an object (0x…, @N, #N), a class's instances (class:NAME),
    /// the leak suspects (view:suspects) or the waste findings (view:waste)
    #[arg(long, value_name = "OBJECT|class:NAME|view:suspects|view:waste")]
    pub goto: Option<String>,
    /// Neither read nor write the index cache (in the user's cache directory)
    #[arg(long = "no-cache", global = true)]
    pub no_cache: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Count,
    Shallow,
    Retained,
}

pub use crate::diff::DiffSort;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GroupBy {
    Class,
    Package,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// File, format, counts, heap totals, index memory, warnings
    Summary {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
    },
    /// Objects per class: count, shallow bytes, retained bytes
    Histogram {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
        /// The column the rows are ordered by, largest first
        #[arg(long, value_enum, default_value_t = SortArg::Shallow)]
        sort: SortArg,
        /// Only the first N rows (the total still counts every row)
        #[arg(long)]
        top: Option<usize>,
        /// Keep classes whose name contains TEXT (case-insensitive)
        #[arg(long)]
        filter: Option<String>,
        /// One row per class, or per package (Java), library (Dart) or module
        #[arg(long = "group-by", value_enum, default_value_t = GroupBy::Class)]
        group_by: GroupBy,
        /// Skip the dominator tree: no retained sizes, but faster on large dumps
        #[arg(long = "no-retained")]
        no_retained: bool,
    },
    /// The dominator tree from the top: who retains the most
    Dominators {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
        /// Objects per level
        #[arg(long, default_value_t = 20)]
        top: usize,
        /// Levels of the tree to show (1 = only the top)
        #[arg(long, default_value_t = 1)]
        depth: usize,
        /// The objects with the largest retained sizes anywhere in the tree, as one list
        #[arg(long, conflicts_with = "depth")]
        flat: bool,
    },
    /// Shortest paths from GC roots to an object: what keeps it alive
    Path {
        #[command(flatten)]
        target: Target,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
        /// How many paths (shortest first, each from a different root)
        #[arg(long, default_value_t = 5)]
        max: usize,
        /// Follow weak references too
        #[arg(long = "include-weak")]
        include_weak: bool,
    },
    /// What grew between two snapshots: per class, counts and bytes before and after
    Diff {
        /// The earlier snapshot
        base: PathBuf,
        /// The later snapshot, compared with BASE
        target: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
        /// Only the first N classes
        #[arg(long)]
        top: Option<usize>,
        /// The change the classes are ordered by, largest first
        #[arg(long, value_enum, default_value_t = DiffSort::DeltaShallow)]
        sort: DiffSort,
        /// Also list the N owners (dominator-tree nodes matched by their path from the
        /// GC roots) whose retained size grew most
        #[arg(long)]
        owners: Option<usize>,
    },
    /// memlab's method: objects allocated between BASELINE and TARGET still alive in FINAL
    Leaks {
        /// The snapshot taken before the action that leaks (memlab's baseline)
        baseline: PathBuf,
        /// The snapshot taken after the action: what it allocated is new here
        target: PathBuf,
        /// The snapshot taken after the action was undone: what is still there leaked
        #[arg(id = "final", value_name = "FINAL")]
        final_: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
        /// At most N clusters
        #[arg(long, default_value_t = 50)]
        top: usize,
        /// List the runtime's internal objects (V8's compiled code, object shapes,
        /// system and synthetic nodes) too, not only inside what holds them
        #[arg(long)]
        internal: bool,
    },
    /// Threads (Java threads, goroutines) with their frames and the objects each holds
    Threads {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
    },
    /// Leak suspects: the objects that hold a large share of the heap, named by the
    /// object a fix would touch
    Suspects {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
        /// How many to list, largest first
        #[arg(long, default_value_t = 10)]
        top: usize,
    },
    /// Wasted memory: duplicate strings and primitive arrays, sparse collections
    Waste {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
        /// How many to list, largest first
        #[arg(long, default_value_t = 10)]
        top: usize,
    },
    /// An object's class, sizes, fields, string or array contents, and referrers
    Inspect {
        #[command(flatten)]
        target: Target,
        /// Print one JSON document on stdout instead of the table
        #[arg(long)]
        json: bool,
    },
    /// Run an SQL query over the snapshot's tables (docs/query.md)
    #[cfg(feature = "sql")]
    Query {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// The query, or :NAME for a shipped one (--list)
        sql: Option<String>,
        /// Read the query from this file
        #[arg(long = "file", short = 'f', conflicts_with = "sql")]
        query_file: Option<PathBuf>,
        /// A second snapshot: the tables of both as base.TABLE and target.TABLE (FILE
        /// is the target), and the table diff
        #[arg(long)]
        base: Option<PathBuf>,
        /// List the shipped queries (run one as :NAME)
        #[arg(long)]
        list: bool,
        /// Print one JSON document on stdout instead of the table
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print comma-separated values, a header line first
        #[arg(long)]
        csv: bool,
    },
    /// Write the query tables as Parquet files, one per table, for other engines
    #[cfg(feature = "sql")]
    Export {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// The folder for objects.parquet, classes.parquet, ... (made if missing)
        #[arg(long)]
        parquet: PathBuf,
    },
    /// What a set of objects retains together (each object counted once), by class;
    /// with --dominators, who holds the set
    Retained {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// The objects as the tool prints them: 0x… address (HPROF, Go), @N (V8 node
        /// id), #N (MoarVM, Dart)
        objects: Vec<String>,
        /// The largest instance of this class by retained size
        #[arg(long, conflicts_with = "objects")]
        class: Option<String>,
        /// Every instance of this class
        #[arg(long, conflicts_with_all = ["objects", "class"])]
        instances: Option<String>,
        /// The objects of a query's rows: its column n, else its first column as names
        #[arg(long, conflicts_with_all = ["objects", "class", "instances"])]
        query: Option<String>,
        /// Also the set's immediate dominators outside it, by class
        #[arg(long)]
        dominators: bool,
        /// Print one JSON document on stdout instead of the text
        #[arg(long)]
        json: bool,
    },
    /// Pinch points: small objects that retain at least 1,000 times their own size and
    /// 1 % of the heap, largest ratio first, with their holders
    Pinch {
        /// The heap snapshot: HPROF, V8, Go, MoarVM or Dart, gzip-compressed or not
        file: PathBuf,
        /// Print one JSON document on stdout instead of the text
        #[arg(long)]
        json: bool,
        /// How many, largest ratio first
        #[arg(long, default_value_t = 20)]
        top: usize,
    },
    /// Print the shell completion script for SHELL on stdout
    Completions {
        /// The shell the script is for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout
    Man,
}

/// The object a command is about: `path` and `inspect` take it the same way.
#[derive(clap::Args, Debug)]
pub struct Target {
    file: PathBuf,
    /// The object as the tool prints it: 0x… address (HPROF, Go), @N (V8 node id), #N
    /// (MoarVM, Dart); a bare N means @N or #N. Or use --class
    object: Option<String>,
    /// The largest instance of this class by retained size
    #[arg(long)]
    class: Option<String>,
}

impl Target {
    /// Opens the file and finds the object; the dominator tree comes back too when
    /// finding the object needed it (`--class` picks by retained size).
    fn resolve(&self) -> Result<(Session, ObjId, Option<Arc<Dominators>>)> {
        let snap = open_for_cli(&self.file)?;
        let mut dom = None;
        let o = analyses::resolve(
            &snap,
            self.object.as_deref(),
            self.class.as_deref(),
            &mut || {
                dom.get_or_insert_with(|| Arc::new(dominators_for_cli(&snap)))
                    .clone()
            },
        )?;
        Ok((snap, o, dom))
    }
}

/// Opens the TUI on the files of a command line without a subcommand: `main` passes
/// the UI's entry, so that the CLI never imports the UI.
pub type Tui = fn(&[PathBuf], Option<&str>) -> Result<()>;

/// Parses `std::env::args`, runs, prints errors, and returns the exit code.
pub fn main(tui: Tui) -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let code = match e.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => 0,
                _ => 1,
            };
            // `heaptui histgram f --json`: the flag is what clap trips on, the misspelt
            // command what went wrong.
            if code == 1 {
                let first = std::env::args_os().nth(1).map(PathBuf::from);
                if let Some(first) = first.filter(|f| !f.exists()) {
                    let word = first.to_string_lossy();
                    if let Some(meant) = usage::command_suggestion(&word) {
                        eprintln!(
                            "heaptui: {}",
                            crate::text::sanitize(&usage::unknown_command(&word, &meant))
                        );
                        return 1;
                    }
                }
            }
            let _ = e.print();
            return code;
        }
    };
    // Every HEAPTUI_* variable is checked before anything runs: a malformed value is a
    // usage error, an unknown name a warning (`crate::sys::env`).
    match crate::sys::env::check() {
        Ok(warnings) => {
            for w in warnings {
                eprintln!("heaptui: warning: {}", crate::text::sanitize(&w));
            }
        }
        Err(e) => {
            eprintln!("heaptui: {}", crate::text::sanitize(&e.to_string()));
            return e.exit_code();
        }
    }
    if cli.cmd.is_some() {
        // The TUI has its own watcher, which puts the terminal back too.
        crate::sys::tmpfiles::watch_signals();
    }
    match run(cli, tui) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("heaptui: {}", crate::text::sanitize(&e.to_string()));
            e.exit_code()
        }
    }
}

pub fn run(cli: Cli, tui: Tui) -> Result<()> {
    if cli.no_cache {
        crate::session::disable_cache();
    }
    match cli.cmd {
        Some(Cmd::Summary { file, json }) => {
            let snap = open_for_cli(&file)?;
            let dom = dominators_for_cli(&snap);
            commands::summary(&snap, &dom, json)?;
            keep_tree(&snap, &dom);
            Ok(())
        }
        Some(Cmd::Histogram {
            file,
            json,
            sort,
            top,
            filter,
            group_by,
            no_retained,
        }) => {
            if no_retained {
                if sort == SortArg::Retained {
                    return Err(Error::Usage(
                        "--sort retained needs the retained sizes that --no-retained skips".into(),
                    ));
                }
                // No retained sizes: no index needed, where a quick pass can count.
                if let Some(q) = with_bar(|p| crate::session::quick_histogram(&file, p))? {
                    report_open(&file, q.truncated, &q.warnings);
                    let rows =
                        commands::quick_histogram_rows(q.rows, sort, filter.as_deref(), group_by)?;
                    return commands::print_histogram(rows, json, top, group_by, None);
                }
            }
            let snap = open_for_cli(&file)?;
            let dom = (!no_retained).then(|| dominators_for_cli(&snap));
            let rows =
                commands::histogram_rows(&snap, dom.as_ref(), sort, filter.as_deref(), group_by)?;
            let unreachable = dom.as_ref().map(|d| d.class_unreachable(&snap.graph));
            commands::print_histogram(rows, json, top, group_by, unreachable.as_deref())?;
            if let Some(d) = &dom {
                keep_tree(&snap, d);
            }
            Ok(())
        }
        Some(Cmd::Dominators {
            file,
            json,
            top,
            depth,
            flat,
        }) => {
            let snap = open_for_cli(&file)?;
            let dom = dominators_for_cli(&snap);
            if flat {
                analyses::largest(&snap, &dom, json, top);
            } else {
                analyses::dominators(&snap, &dom, json, top, depth.max(1));
            }
            keep_tree(&snap, &dom);
            Ok(())
        }
        Some(Cmd::Path {
            target,
            json,
            max,
            include_weak,
        }) => {
            let (snap, o, _) = target.resolve()?;
            analyses::path(&snap, o, json, max, include_weak);
            Ok(())
        }
        Some(Cmd::Diff {
            base,
            target,
            json,
            top,
            sort,
            owners,
        }) => {
            // One after the other: each reader already uses every core, and opening
            // both at once measured slower here (23 s against 18.6 s on 38 M objects).
            let a = open_for_cli(&base)?;
            let b = open_for_cli(&target)?;
            let doms = (sort == DiffSort::DeltaRetained || owners.is_some())
                .then(|| (dominators_for_cli(&a), dominators_for_cli(&b)));
            compare::diff(&a, &b, doms.as_ref(), json, top, sort, owners);
            if let Some((da, db)) = &doms {
                keep_tree(&a, da);
                keep_tree(&b, db);
            }
            Ok(())
        }
        Some(Cmd::Leaks {
            baseline,
            target,
            final_,
            json,
            top,
            internal,
        }) => {
            let a = open_for_cli(&baseline)?;
            let b = open_for_cli(&target)?;
            let c = open_for_cli(&final_)?;
            // As `diff` does: snapshots of different runtimes compare coarsely (issue 40).
            if let Some(w) = crate::diff::mixed_formats(&[&a, &b, &c]) {
                eprintln!("heaptui: warning: {}", crate::text::sanitize(&w));
            }
            let ids = [&a, &b, &c].iter().all(|s| s.persistent_ids().is_some());
            if ids {
                let d = dominators_for_cli(&c);
                compare::leaks(&a, &b, &c, &d, json, top, internal)?;
                keep_tree(&c, &d);
                Ok(())
            } else {
                // No ids: the owners that grew and stayed grown.
                let (da, db, dc) = (
                    dominators_for_cli(&a),
                    dominators_for_cli(&b),
                    dominators_for_cli(&c),
                );
                compare::owner_leaks([&a, &b, &c], [&da, &db, &dc], json, top)?;
                keep_tree(&a, &da);
                keep_tree(&b, &db);
                keep_tree(&c, &dc);
                Ok(())
            }
        }
        Some(Cmd::Threads { file, json }) => {
            let snap = open_for_cli(&file)?;
            analyses::threads(&snap, json);
            Ok(())
        }
        Some(Cmd::Suspects { file, json, top }) => {
            let snap = open_for_cli(&file)?;
            let dom = dominators_for_cli(&snap);
            findings::suspects(&snap, &dom, json, top);
            keep_tree(&snap, &dom);
            Ok(())
        }
        Some(Cmd::Waste { file, json, top }) => {
            // No index cache entry: an HPROF file is walked without building the index.
            if let Some(q) = with_bar(|p| crate::session::quick_waste(&file, p, top))? {
                report_open(&file, q.truncated, &q.warnings);
                findings::waste(q.names.as_slice(), &q.waste, json);
                return Ok(());
            }
            let snap = open_for_cli(&file)?;
            let w = with_bar(|p| {
                p.phase("looking for waste", 0);
                crate::waste::find(&snap, top)
            });
            findings::waste(&*snap, &w, json);
            Ok(())
        }
        Some(Cmd::Inspect { target, json }) => {
            let (snap, o, dom) = target.resolve()?;
            let d = dom.unwrap_or_else(|| Arc::new(dominators_for_cli(&snap)));
            analyses::inspect(&snap, &d, o, json);
            keep_tree(&snap, &d);
            Ok(())
        }
        #[cfg(feature = "sql")]
        Some(Cmd::Query {
            file,
            sql,
            query_file,
            base,
            list,
            json,
            csv,
        }) => query::run(
            &file,
            sql,
            query_file,
            base,
            list,
            query::Output { json, csv },
        ),
        #[cfg(feature = "sql")]
        Some(Cmd::Export { file, parquet }) => query::export(&file, &parquet),
        Some(Cmd::Retained {
            file,
            objects,
            class,
            instances,
            query,
            dominators,
            json,
        }) => {
            let s = open_for_cli(&file)?;
            let d = Arc::new(dominators_for_cli(&s));
            let args = sets::SetArgs {
                objects: &objects,
                class: class.as_deref(),
                instances: instances.as_deref(),
                query: query.as_deref(),
            };
            let set = sets::members(s.snapshot(), &args, &d)?;
            sets::retained(&s, &d, &set, dominators, json);
            keep_tree(&s, &d);
            Ok(())
        }
        Some(Cmd::Pinch { file, json, top }) => {
            let s = open_for_cli(&file)?;
            let d = dominators_for_cli(&s);
            sets::pinch(&s, &d, top, json);
            keep_tree(&s, &d);
            Ok(())
        }
        Some(Cmd::Completions { shell }) => install::completions(shell),
        Some(Cmd::Man) => install::man(),
        None => {
            // A first word that is no file but close to a command was meant as one.
            if let Some(first) = cli.files.first().filter(|f| !f.exists()) {
                let word = first.to_string_lossy();
                if let Some(meant) = usage::command_suggestion(&word) {
                    return Err(Error::Usage(usage::unknown_command(&word, &meant)));
                }
            }
            match cli.files.len() {
                1..=3 => tui(&cli.files, cli.goto.as_deref()),
                n => Err(Error::Usage(usage::snapshot_count(n))),
            }
        }
    }
}

/// Runs `work` with a progress bar on stderr when stderr is a terminal.
fn with_bar<T>(work: impl FnOnce(&Progress) -> T) -> T {
    let progress = Progress::new();
    let tty = std::io::stderr().is_terminal();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let bar_thread = tty.then(|| {
        let p = progress.clone();
        let done = done.clone();
        std::thread::spawn(move || {
            let bar = indicatif::ProgressBar::new(1000);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{msg:>32} [{bar:40}] {percent:>3}%")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let (phase, _, _) = p.get();
                bar.set_message(phase);
                bar.set_position((p.fraction() * 1000.0) as u64);
                std::thread::sleep(std::time::Duration::from_millis(80));
            }
            bar.finish_and_clear();
        })
    });
    let r = work(&progress);
    progress.phase("done", 0);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(t) = bar_thread {
        let _ = t.join();
    }
    r
}

/// The dominator tree of a snapshot: the one kept beside its index cache entry, else
/// computed with a progress bar ([`Session::dominator_tree`]).
pub fn dominators_for_cli(snap: &Session) -> crate::heap::dominators::Dominators {
    let d = with_bar(|p| snap.dominator_tree(p));
    if let crate::heap::dominators::Origin::Rebuilt(why) = &d.origin {
        if std::io::stderr().is_terminal() {
            eprintln!(
                "heaptui: warning: dominator tree cache entry not used and rebuilt: {}",
                crate::text::sanitize(why)
            );
        }
    }
    if std::env::var_os("HEAPTUI_TIMING").is_some() {
        let n = snap.graph.len().max(1) as f64;
        eprintln!(
            "timing: dominator tree kept: {} bytes, {:.1} per object",
            d.bytes(),
            d.bytes() as f64 / n
        );
    }
    d
}

/// Keeps a tree computed by [`dominators_for_cli`] beside the snapshot's index cache
/// entry, so that the next command reads it (after the command's output: nobody waits
/// for the write to see it). One that cannot be written only means the next command
/// computes it again.
fn keep_tree(snap: &Session, d: &crate::heap::dominators::Dominators) {
    let r = with_bar(|p| snap.keep_tree(d, p));
    if let Err(e) = r {
        if std::io::stderr().is_terminal() {
            eprintln!(
                "heaptui: warning: dominator tree not cached: {}",
                crate::text::sanitize(&e)
            );
        }
    }
}

/// Opens a snapshot for a batch command: a progress bar on stderr when it is a terminal,
/// and the truncation notice on stderr always.
pub fn open_for_cli(file: &std::path::Path) -> Result<Session> {
    let snap = with_bar(|p| crate::session::open(file, p))?;
    report_open(file, snap.truncated, &snap.warnings);
    Ok(snap)
}

/// The truncation notice on stderr always, and the warnings when stderr is a terminal.
fn report_open(file: &std::path::Path, truncated: Option<u64>, warnings: &[String]) {
    if let Some(off) = truncated {
        eprintln!(
            "heaptui: {}: truncated at byte offset {off}; showing what is whole",
            crate::text::sanitize(&file.display().to_string())
        );
    }
    if std::io::stderr().is_terminal() {
        if let Some(why) = crate::sys::spill::why() {
            eprintln!("heaptui: {}", crate::text::sanitize(&why));
        }
        for w in warnings.iter().filter(|w| !w.starts_with("truncated")) {
            eprintln!("heaptui: warning: {}", crate::text::sanitize(w));
        }
    }
}
