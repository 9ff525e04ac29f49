//! Errors that end a run, and the one table of exit statuses.

use std::io;
use std::path::PathBuf;

use crate::model::workload::Pass;

/// How ioz ends: every exit status it uses, in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: done.
    Success,
    /// 1: an I/O or system failure, or results that could not be written.
    Failure,
    /// 2: a bad command line, or a run refused before any I/O.
    Usage,
    /// 124: a cluster rank that outlived its job's time limit and left by
    /// itself (timeout(1)'s status).
    TimedOut,
    /// 101: a panic (Rust's own status), as a cluster rank ends the whole
    /// job when one of them panics.
    Panicked,
    /// 128 + N: stopped by signal N.
    Signal(i32),
}

impl Exit {
    pub fn code(self) -> i32 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::TimedOut => 124,
            Exit::Panicked => 101,
            Exit::Signal(n) => 128 + n,
        }
    }
}

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
    /// Refused before any I/O (unsafe target, bad combination found late).
    #[error("{0}")]
    Refused(String),
    /// An I/O error during the run.
    #[error(transparent)]
    Io(#[from] IoFailure),
    /// A throughput worker failed (the message names the worker).
    #[error("{0}")]
    Worker(String),
    /// The machine refused what the run needs to go on (a process, a pipe,
    /// shared memory, a signal handler): not the user's input.
    #[error("{0}")]
    System(String),
}

impl RunError {
    pub fn exit(&self) -> Exit {
        match self {
            RunError::Refused(_) => Exit::Usage,
            RunError::Io(_) | RunError::Worker(_) | RunError::System(_) => Exit::Failure,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ending_has_its_status() {
        assert_eq!(Exit::Success.code(), 0);
        assert_eq!(Exit::Failure.code(), 1);
        assert_eq!(Exit::Usage.code(), 2);
        assert_eq!(Exit::Signal(2).code(), 130);
        assert_eq!(Exit::TimedOut.code(), 124);
        assert_eq!(Exit::Panicked.code(), 101);
        assert_eq!(RunError::Refused("x".into()).exit(), Exit::Usage);
        // Fork, pipe and shared-memory failures are the machine's, not bad input.
        assert_eq!(RunError::System("no fork".into()).exit(), Exit::Failure);
        assert_eq!(
            RunError::Worker("worker 1: EIO".into()).exit(),
            Exit::Failure
        );
    }
}
