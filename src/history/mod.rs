//! The history of runs: every run's JSON kept under the user's data
//! directory (the source of truth) and indexed in an SQLite database beside
//! it, so runs can be listed, shown, compared and followed over time.
//!
//! The directory (`$XDG_DATA_HOME/ioz`, `--history DIR`, `IOZ_HISTORY`):
//!
//! ```text
//! DIR/ioz-history        the mark that DIR is ioz's history, and its lock
//! DIR/runs/<id>.json     one file per run: a saved run (ioz's JSON), or an
//!                        imported IOzone log wrapped with its date and label
//! DIR/history.sqlite     the index (WAL: -wal, -shm beside it)
//! ```
//!
//! The index can always be rebuilt from `runs/` (`ioz history reindex`, or
//! by itself when the database is damaged). Writers take the mark's lock
//! (flock) for the few milliseconds a record takes, and SQLite's own
//! locking (WAL, a busy timeout, one transaction per run) covers the rest,
//! so parallel runs never lose a record. A directory that holds other files
//! and no mark is refused: ioz writes only in a directory it made.
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
pub use index::{Entry, Filter, StatusKind};
pub use place::{HISTORY_ENV, Location, locate};
pub use store::{History, ImportedLog, Stored, check};
