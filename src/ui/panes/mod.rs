//! One file per pane. A pane owns its state, changes it only in `handle`, and draws
//! without changing it (gitui's component split).

pub mod histogram;

/// What a pane did with a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The key was used.
    Consumed,
    /// Not this pane's key: let the app handle it.
    Ignored,
}
