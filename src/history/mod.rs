//! The history of runs: every run's JSON kept under the user's data
//! directory (the source of truth) and indexed in an SQLite database beside
//! it, so runs can be listed, shown, compared and followed over time.
//!
//! The directory (`$XDG_DATA_HOME/ioz`, `--history DIR`, `IOZ_HISTORY`):
//!
//! ```text
//! DIR/ioz-history        the mark that DIR is ioz's history, and its lock
//! DIR/runs/<id>.json     one file per run: a saved run (ioz's JSON), or an
//!                        imported IOzone log or peer's result file (fio,
//!                        IOR, …) wrapped with its date and label
//! DIR/history.sqlite     the index (a rollback journal beside it while
//!                        a writer's transaction lasts, none after)
//! ```
//!
//! The index can always be rebuilt from `runs/` (`ioz history reindex`, or
//! by the next writer when the database is damaged). Writers take the
//! mark's lock (flock) exclusively for the few milliseconds a record
//! takes, readers share it, and no one waits for it longer than a few
//! seconds; SQLite's own locking (a busy timeout, one transaction per run)
//! covers the rest, so parallel runs never lose a record. A reader changes
//! nothing on disk. A directory that holds other files and no mark is
//! refused: ioz writes only in a directory it made; and no result file of
//! any command is ever put among a history's files (safety's guard knows
//! them by model::history_layout).
//!
//! A layer of its own: it reads and writes the data directory (like
//! `system`), and turns stored files into data with `report`'s readers
//! (JSON, IOzone logs) and `analysis`'s samples. The queries are pure
//! (index.rs's SQL); the dates it sorts by are model::dates.

mod error;
mod index;
mod place;
mod store;

pub use error::HistoryError;
pub use index::{Entry, Filter, StampKind, StatusKind};
pub use place::{HISTORY_ENV, Location, NO_HISTORY_ENV, locate};
pub use store::{Caller, History, ImportedLog, ImportedPeer, Stored, check, exists};
