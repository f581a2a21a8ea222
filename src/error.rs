//! Errors and their exit codes.
//!
//! Owns the one error type the library returns and the mapping to the exit codes of
//! `docs/cli.md` (1 usage, 2 unreadable snapshot, 3 no such object or class). Parse
//! errors carry the byte offset, what was expected there and what was found, in the
//! manner of gimli's `read::Error`; the file name is attached by the opener, not by the
//! format readers, which only ever see bytes.

use std::fmt;
use std::path::Path;

/// A problem at one place in a byte stream: offset, expectation, finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub offset: u64,
    pub expected: String,
    pub found: String,
}

impl ParseError {
    pub fn new(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> Self {
        ParseError {
            offset,
            expected: expected.into(),
            found: found.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte offset {}: expected {}, found {}",
            self.offset, self.expected, self.found
        )
    }
}

/// Every error heaptui reports.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: {error}")]
    Parse { file: String, error: ParseError },
    #[error("{file}: recognised as a {format} snapshot; support is not built yet")]
    Unsupported { file: String, format: &'static str },
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    NotFound(String),
    /// The file could be read, but not within the memory this process may use: it
    /// cannot be opened here (exit 2, as an unreadable file), with the figures.
    #[error("{0}")]
    Memory(String),
    /// The terminal cannot show the TUI (`TERM=dumb`): exit 2, as `less` and `htop`
    /// refuse it.
    #[error("{0}")]
    Terminal(String),
    /// The work was cancelled by whoever started it ([`crate::sys::progress::Progress::cancel`]):
    /// a front-end that no longer wants the snapshot (the batch commands never cancel).
    #[error("{0}: cancelled")]
    Cancelled(String),
}

impl Error {
    pub fn io(file: &Path, source: std::io::Error) -> Self {
        Error::Io {
            file: file.display().to_string(),
            source,
        }
    }

    pub fn parse(file: &Path, error: ParseError) -> Self {
        Error::Parse {
            file: file.display().to_string(),
            error,
        }
    }

    /// The process exit code that `docs/cli.md` assigns to this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 1,
            Error::Io { .. }
            | Error::Parse { .. }
            | Error::Unsupported { .. }
            | Error::Memory(_)
            | Error::Terminal(_) => 2,
            Error::NotFound(_) => 3,
            // As a process stopped by Ctrl-C: no batch command cancels.
            Error::Cancelled(_) => 130,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
