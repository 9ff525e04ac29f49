//! A measuring run recorded in the history: where (asked before the run,
//! so a bad directory is refused before anything is measured), then the
//! run saved at its end and the line that says where.
//!
//! A history the user named (`--history DIR`, `IOZ_HISTORY`) is part of
//! the run: a directory that cannot take it refuses the run (status 2,
//! before anything is measured: a newer or unknown index, a dangling link,
//! a read-only file system, a directory this user may not write, a full
//! one, a lock held past its wait), and a record that fails makes the run
//! fail. The default one (the data directory) is ioz's own business: when
//! it cannot be used, one warning says so and the run goes on as IOzone's
//! would. A stop signal during the wait for the history's lock at the end
//! ends the wait: the run is not recorded, and ends with that signal's
//! status.

use std::path::{Path, PathBuf};

use super::history_runs::said;
use super::output::say;
use crate::error::RunError;
use crate::history::{self, Caller, History, HistoryError, Location};
use crate::model::config::HistoryChoice;
use crate::model::result::RunResult;
use crate::system::signals;

/// Where the run will be recorded.
pub(crate) struct Destination {
    dir: PathBuf,
    /// Named by the user: a failure to record fails the run.
    named: bool,
}

impl Destination {
    /// The history's directory.
    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }
}

/// How recording went: the line to print last, whether the run fails for
/// it, and the stop signal that ended the wait for the history.
pub(crate) struct Recorded {
    pub line: String,
    pub fails_run: bool,
    pub stopped: Option<i32>,
}

/// The directory the run will be recorded in, checked; `None` when
/// nothing is recorded.
pub(crate) fn place_for_run(choice: &HistoryChoice) -> Result<Option<Destination>, RunError> {
    let env = |name: &str| std::env::var_os(name);
    let named = choice.dir.is_some() || env(history::HISTORY_ENV).is_some_and(|v| !v.is_empty());
    let location = match history::locate(choice.dir.as_deref(), choice.off, true, &env) {
        Ok(l) => l,
        Err(e) => {
            say(format_args!(
                "history: warning: {e}; this run is not recorded"
            ));
            return Ok(None);
        }
    };
    let Location::Dir(dir) = location else {
        return Ok(None);
    };
    // Before the stop handlers: a signal during this wait ends ioz itself.
    let checked = history::check(
        &dir,
        &mut Caller {
            say: &mut said,
            stopped: &|| None,
        },
    );
    match checked {
        Ok(()) => Ok(Some(Destination { dir, named })),
        Err(e) if named => Err(RunError::Refused(format!("history: {e}"))),
        Err(e) => {
            say(format_args!(
                "history: warning: {e} (--history DIR or IOZ_HISTORY to choose another); this run is not recorded"
            ));
            Ok(None)
        }
    }
}

/// Records `result`; the line to print last goes to standard error, since
/// standard output is IOzone's text, which scripts read to its last line.
pub(crate) fn record(to: &Destination, result: &RunResult) -> Recorded {
    match record_in(&to.dir, result) {
        Ok(id) => Recorded {
            line: format!("saved as run {id} — ioz history show {id}"),
            fails_run: false,
            stopped: None,
        },
        Err((e @ HistoryError::StoppedWaiting { .. }, sig)) => Recorded {
            line: format!("history: {e}; this run is not recorded"),
            fails_run: false,
            stopped: sig,
        },
        Err((e, _)) if to.named => Recorded {
            line: format!("history: {e}"),
            fails_run: true,
            stopped: None,
        },
        Err((e, _)) => Recorded {
            line: format!("history: warning: {e}; this run is not recorded"),
            fails_run: false,
            stopped: None,
        },
    }
}

/// The run recorded in `dir`, or why not (with the stop signal that ended
/// the wait for the lock, if one did). The warnings of the open are said
/// after it, so that they are not interleaved with a wait's line.
fn record_in(dir: &Path, result: &RunResult) -> Result<i64, (HistoryError, Option<i32>)> {
    let mut warnings = Vec::new();
    // Only a stop that comes while waiting: the run's own stop has been
    // handled and is recorded with it.
    let mark = signals::stops_so_far();
    let stopped = || signals::stop_since(mark);
    let id = History::open_to_write(
        dir,
        &mut Caller {
            say: &mut |w| {
                if w.starts_with("waiting") {
                    said(w)
                } else {
                    warnings.push(w)
                }
            },
            stopped: &stopped,
        },
    )
    .and_then(|mut h| h.record(result));
    for w in warnings {
        said(w);
    }
    id.map_err(|e| (e, stopped()))
}
