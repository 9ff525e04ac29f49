//! A measuring run recorded in the history: where (asked before the run,
//! so a bad directory is refused before anything is measured), then the
//! run saved at its end and the line that says where.
//!
//! A history the user named (`--history DIR`, `IOZ_HISTORY`) is part of
//! the run: a directory that cannot take it refuses the run, and a record
//! that fails makes the run fail. The default one (the data directory) is
//! ioz's own business: when it cannot be used, one warning says so and the
//! run goes on as IOzone's would.

use std::path::{Path, PathBuf};

use super::output::say;
use crate::error::RunError;
use crate::history::{self, History, HistoryError, Location};
use crate::model::config::HistoryChoice;
use crate::model::result::RunResult;

/// Where the run will be recorded.
pub(crate) struct Destination {
    dir: PathBuf,
    /// Named by the user: a failure to record fails the run.
    named: bool,
}

/// How recording went: the line to print last, and whether the run fails
/// for it.
pub(crate) struct Recorded {
    pub line: String,
    pub fails_run: bool,
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
    match history::check(&dir) {
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
        },
        Err(e) if to.named => Recorded {
            line: format!("history: {e}"),
            fails_run: true,
        },
        Err(e) => Recorded {
            line: format!("history: warning: {e}; this run is not recorded"),
            fails_run: false,
        },
    }
}

fn record_in(dir: &Path, result: &RunResult) -> Result<i64, HistoryError> {
    let mut warnings = Vec::new();
    let id =
        History::open_to_write(dir, &mut |w| warnings.push(w)).and_then(|mut h| h.record(result));
    for w in warnings {
        say(format_args!("history: {w}"));
    }
    id
}
