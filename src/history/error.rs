//! Why the history could not be found, opened, read or changed: one line
//! naming the directory or file, for the command to say.

use std::io;
use std::path::PathBuf;

use super::index::{IndexFailure, MAX_RUN_ID, SCHEMA_VERSION};
use super::place::NoDataDirectory;
use crate::report::json::ParseRunError;
use crate::system::input_file::InputError;

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    NoDataDirectory(#[from] NoDataDirectory),
    /// The directory holds other files and no mark: ioz writes only in a
    /// directory it made.
    #[error(
        "{} holds files and is not an ioz history (no {mark} file in it); give an empty or new directory",
        dir.display()
    )]
    NotOurs { dir: PathBuf, mark: &'static str },
    #[error("{} is not a directory", dir.display())]
    NotADirectory { dir: PathBuf },
    #[error("cannot use {}: {source}", dir.display())]
    CannotUse { dir: PathBuf, source: io::Error },
    #[error("cannot make the history directory {}: {source}", dir.display())]
    MakeDirectory { dir: PathBuf, source: io::Error },
    #[error("cannot use the history directory {}: {source}", dir.display())]
    UseDirectory { dir: PathBuf, source: io::Error },
    #[error("cannot lock {}: {source}", path.display())]
    Lock { path: PathBuf, source: nix::Error },
    /// Another process held the history's lock for the whole wait (a run
    /// recording, or one stopped while it held it).
    #[error(
        "{} stayed locked by another process for {seconds} s (another ioz using the history, or one stopped while it did); try again once it is done",
        path.display()
    )]
    Busy { path: PathBuf, seconds: u64 },
    /// A stop signal ended the wait for the lock.
    #[error("stopped by {signal} while waiting for the lock on {}", path.display())]
    StoppedWaiting { path: PathBuf, signal: String },
    /// `runs/` is a link: the history never follows it elsewhere.
    #[error(
        "{} is a symbolic link; a history's runs/ is its own directory, and ioz follows no link out of it",
        path.display()
    )]
    LinkedRuns { path: PathBuf },
    #[error("{} is {kind}, not the directory of the history's runs", path.display())]
    RunsNotADirectory { path: PathBuf, kind: &'static str },
    /// The directory, or the link that names it, leads nowhere.
    #[error("{} is a link to {}, which does not exist", dir.display(), target.display())]
    DanglingLink { dir: PathBuf, target: PathBuf },
    /// The history cannot take a run: found before the run, not after it.
    #[error("cannot write in {}: {source}", dir.display())]
    NotWritable { dir: PathBuf, source: io::Error },
    #[error("cannot write in {}: its file system is full", dir.display())]
    Full { dir: PathBuf },
    #[error("cannot make {}: {source}", path.display())]
    Make { path: PathBuf, source: io::Error },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot remove {}: {source}", path.display())]
    Remove { path: PathBuf, source: io::Error },
    /// A stored run's file could not be read, or is no run.
    #[error("cannot read {}: {source}", path.display())]
    ReadStored { path: PathBuf, source: InputError },
    #[error(transparent)]
    Stored(#[from] ParseRunError),
    #[error("cannot remove the damaged {}: {source}", path.display())]
    RemoveDamaged { path: PathBuf, source: io::Error },
    #[error(
        "{} is a history index of version {version}, written by a newer ioz (this one reads up to {SCHEMA_VERSION})",
        path.display()
    )]
    NewerIndex { path: PathBuf, version: i64 },
    #[error(
        "{} is a history index of version {version}, which no ioz writes (this one reads 0 to {SCHEMA_VERSION}); move it away and run ioz history reindex",
        path.display()
    )]
    UnknownIndex { path: PathBuf, version: i64 },
    #[error("cannot open the history's index {}: {why}", path.display())]
    OpenIndex { path: PathBuf, why: String },
    #[error("cannot read the history's index in {}: {source}", dir.display())]
    Query {
        dir: PathBuf,
        source: rusqlite::Error,
    },
    /// A change of the index (removing or reindexing runs) failed.
    #[error("{0}")]
    Change(#[from] IndexFailure),
    #[error(
        "the history's next id, {id}, is beyond the last one ({MAX_RUN_ID}); ioz history reindex repairs it"
    )]
    IdsUsedUp { id: i64 },
    #[error("cannot save the run in the history: {0}")]
    EncodeRun(io::Error),
    #[error("cannot save the log in the history: {0}")]
    EncodeLog(serde_json::Error),
    #[error("cannot record the run in {}: {why}", dir.display())]
    Record { dir: PathBuf, why: RecordFailure },
}

/// What failed while a run was added (its row, or its file).
#[derive(Debug, thiserror::Error)]
pub enum RecordFailure {
    #[error("{0}")]
    Index(#[from] IndexFailure),
    #[error("{}: {source}", path.display())]
    File { path: PathBuf, source: io::Error },
}
