//! A measuring run recorded in the history: where (asked before the run,
//! so a bad directory is refused before anything is measured), then the
//! run saved at its end and the line that says where.

use std::path::PathBuf;

use crate::error::RunError;
use crate::history::{self, History, Location};
use crate::model::config::HistoryChoice;
use crate::model::result::RunResult;

/// The directory the run will be recorded in, checked; `None` when
/// nothing is recorded.
pub(crate) fn place_for_run(choice: &HistoryChoice) -> Result<Option<PathBuf>, RunError> {
    let location = history::locate(choice.dir.as_deref(), choice.off, true, &|name| {
        std::env::var_os(name)
    })
    .map_err(RunError::Refused)?;
    match location {
        Location::Off => Ok(None),
        Location::Dir(dir) => {
            history::check(&dir).map_err(|e| RunError::Refused(format!("history: {e}")))?;
            Ok(Some(dir))
        }
    }
}

/// Records `result` in the history in `dir`; the line to print last (on
/// standard error: standard output is IOzone's text, which scripts read to
/// its last line), or why it could not be recorded.
pub(crate) fn record(dir: &std::path::Path, result: &RunResult) -> Result<String, String> {
    let mut warnings = Vec::new();
    let id = History::open_to_write(dir, &mut |w| warnings.push(w))
        .and_then(|mut h| h.record(result))
        .map_err(|e| format!("history: {e}"))?;
    for w in warnings {
        super::output::say(format_args!("history: {w}"));
    }
    Ok(format!("saved as run {id} — ioz history show {id}"))
}
