//! Errors that end a run, and the exit status each maps to.

use std::io;
use std::path::PathBuf;

use crate::model::workload::Pass;

/// An I/O failure with everything the user needs to find it.
#[derive(Debug, thiserror::Error)]
#[error("{operation} {path}{}{}: {source}",
    offset.map(|o| format!(" at offset {o}")).unwrap_or_default(),
    pass.map(|p| format!(" during the {} pass", p.name())).unwrap_or_default())]
pub struct IoFailure {
    pub operation: &'static str,
    pub path: PathBuf,
    pub offset: Option<u64>,
    pub pass: Option<Pass>,
    #[source]
    pub source: io::Error,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Refused before any I/O (unsafe target, bad combination found late). Exit 2.
    #[error("{0}")]
    Refused(String),
    /// An I/O error during the run. Exit 1.
    #[error(transparent)]
    Io(#[from] IoFailure),
    /// A throughput worker failed (the message names the worker). Exit 1.
    #[error("{0}")]
    Worker(String),
}

impl RunError {
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Refused(_) => 2,
            RunError::Io(_) | RunError::Worker(_) => 1,
        }
    }
}
