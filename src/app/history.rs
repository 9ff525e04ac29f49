//! `ioz history …`: the stored runs listed, shown (as `ioz report` shows
//! a saved run), removed, reindexed and imported; trends and regressions
//! over them (app/history_views.rs); what they share with `ioz compare`'s
//! `@ID`, `@last`, `@label:NAME` is in app/history_runs.rs.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::history_runs::{filter, find, locate, open_to_read, print, refuse};
use super::input_files::{RunOrLog, RunOrLogError, read_run_or_log};
use super::output::say;
use crate::cli::{HistoryAction, HistoryRequest, Selection};
use crate::error::Exit;
use crate::history::{Entry, History, HistoryError, ImportedLog, Stored};
use crate::model::dates;

pub(crate) fn history(request: HistoryRequest) -> Exit {
    let dir = match locate(request.dir.as_deref()) {
        Ok(d) => d,
        Err(e) => return refuse(&e.to_string()),
    };
    match request.action {
        HistoryAction::List(selection) => list(&dir, &selection),
        HistoryAction::Show(report) => show(&dir, report),
        HistoryAction::Rm(ids) => rm(&dir, &ids),
        HistoryAction::Reindex => reindex(&dir),
        HistoryAction::Import { files, date, label } => {
            import(&dir, &files, date.as_deref(), label.as_deref())
        }
        HistoryAction::Trend(t) => super::history_views::trend(&dir, t),
        HistoryAction::Regressions {
            selection,
            fail,
            band_percent,
        } => super::history_views::regressions(&dir, &selection, fail, band_percent),
    }
}

fn open_to_write(dir: &Path) -> Result<History, HistoryError> {
    History::open_to_write(dir, &mut |w| say(format_args!("history: {w}")))
}

fn list(dir: &Path, selection: &Selection) -> Exit {
    let filter = match filter(selection) {
        Ok(f) => f,
        Err(e) => return refuse(&e.to_string()),
    };
    let entries = match open_to_read(dir).and_then(|h| match h {
        Some(h) => h.list(&filter),
        None => Ok(Vec::new()),
    }) {
        Ok(e) => e,
        Err(e) => return fail(&e.to_string()),
    };
    print(&list_text(&entries))
}

/// One line per run under a header, columns aligned; the command last,
/// since it is the longest.
pub(crate) fn list_text(entries: &[Entry]) -> String {
    let dash = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            s.to_string()
        }
    };
    let rows: Vec<[String; 8]> = entries
        .iter()
        .map(|e| {
            [
                e.id.to_string(),
                e.date.clone(),
                dash(e.label.as_deref().unwrap_or("")),
                dash(&e.host),
                dash(&e.fs),
                dash(&e.device),
                e.status.clone(),
                e.command.clone(),
            ]
        })
        .collect();
    let header = [
        "id", "date", "label", "host", "fs", "device", "status", "command",
    ]
    .map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i == 0 {
                line.push_str(&format!("{cell:>w$}"));
            } else if i == row.len() - 1 {
                line.push_str(&format!("  {cell}"));
            } else {
                line.push_str(&format!("  {cell:<w$}"));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn show(dir: &Path, mut request: crate::cli::ReportRequest) -> Exit {
    let reference = request.input.display().to_string();
    let history = match open_to_read(dir) {
        Ok(Some(h)) => h,
        Ok(None) => {
            return refuse(&format!(
                "history show: the history {} holds no runs",
                dir.display()
            ));
        }
        Err(e) => return fail(&e.to_string()),
    };
    let entry = match find(&history, &reference) {
        Ok(e) => e,
        Err(e) => return refuse(&format!("history show: {e}")),
    };
    match history.load(&entry) {
        Ok(Stored::Run(_)) => {
            // ioz report itself, on the stored file.
            request.input = history.path_of(&entry);
            drop(history);
            super::report::report(request)
        }
        Ok(Stored::Log(log)) => {
            if !request.outputs.is_empty() {
                return refuse(&format!(
                    "history show: run {} is an imported IOzone log: it is shown as IOzone printed it, with no result files",
                    entry.id
                ));
            }
            print(&log.text)
        }
        Err(e) => fail(&format!("history show: {e}")),
    }
}

fn rm(dir: &Path, ids: &[String]) -> Exit {
    // Read first, so that a missing history is not made; its lock is let
    // go before the writer takes it.
    let found = open_to_read(dir).map(|h| h.is_some());
    let mut history = match found {
        Ok(true) => match open_to_write(dir) {
            Ok(h) => h,
            Err(e) => return fail(&e.to_string()),
        },
        Ok(false) => {
            return refuse(&format!(
                "history rm: the history {} holds no runs",
                dir.display()
            ));
        }
        Err(e) => return fail(&e.to_string()),
    };
    // Every id is checked before any run is removed.
    let mut entries = Vec::new();
    for id in ids {
        match find(&history, id) {
            Ok(e) => entries.push(e),
            Err(e) => return refuse(&format!("history rm: {e}")),
        }
    }
    let mut out = String::new();
    for e in entries {
        match history.remove(e.id) {
            Ok(_) => out.push_str(&format!("removed run {}\n", e.id)),
            Err(err) => {
                let _ = io::stdout().write_all(out.as_bytes());
                return fail(&format!("history rm: {err}"));
            }
        }
    }
    print(&out)
}

fn reindex(dir: &Path) -> Exit {
    // Read first, so that a missing history is not made; its lock is let
    // go before the writer takes it.
    let found = open_to_read(dir).map(|h| h.is_some());
    let mut history = match found {
        Ok(true) => match open_to_write(dir) {
            Ok(h) => h,
            Err(e) => return fail(&e.to_string()),
        },
        Ok(false) => {
            return print(&format!(
                "no history in {}: nothing to index\n",
                dir.display()
            ));
        }
        Err(e) => return fail(&e.to_string()),
    };
    match history.reindex() {
        Ok((count, left_out)) => {
            for line in &left_out {
                say(format_args!("history: warning: {line}"));
            }
            print(&format!(
                "indexed {count} run(s) in {}\n",
                history.dir().join("history.sqlite").display()
            ))
        }
        Err(e) => fail(&format!("history reindex: {e}")),
    }
}

/// What one file to import holds.
enum ToImport {
    Run(Box<crate::model::result::RunResult>),
    Log(ImportedLog),
}

fn import(dir: &Path, files: &[PathBuf], date: Option<&str>, label: Option<&str>) -> Exit {
    let date = match date.map(dates::from_user).transpose() {
        Ok(d) => d,
        Err(e) => return refuse(&format!("history import: --date {e}")),
    };
    // Every file is read and checked before anything is stored.
    let mut read = Vec::new();
    for path in files {
        match read_import(path, date.as_deref(), label) {
            Ok(r) => read.push((path, r)),
            Err(e) => return refuse(&format!("history import: {e}")),
        }
    }
    let mut history = match open_to_write(dir) {
        Ok(h) => h,
        Err(e) => return refuse(&format!("history import: {e}")),
    };
    let mut out = String::new();
    for (path, r) in read {
        let stored = match r {
            ToImport::Run(run) => history.import_run(*run, label),
            ToImport::Log(log) => history.import_log(log),
        };
        match stored {
            Ok(id) => out.push_str(&format!("imported {} as run {id}\n", path.display())),
            Err(e) => {
                let _ = io::stdout().write_all(out.as_bytes());
                return fail(&format!("history import: {e}"));
            }
        }
    }
    print(&out)
}

/// Why a file to import was not read.
#[derive(Debug, thiserror::Error)]
enum ImportError {
    #[error(transparent)]
    File(#[from] RunOrLogError),
    #[error("cannot read the time of {}: {source}", path.display())]
    FileTime { path: PathBuf, source: io::Error },
}

fn read_import(
    path: &Path,
    date: Option<&str>,
    label: Option<&str>,
) -> Result<ToImport, ImportError> {
    let (text, log) = match read_run_or_log(path)? {
        RunOrLog::Run(run) => return Ok(ToImport::Run(run)),
        RunOrLog::Log { text, log } => (text, log),
    };
    let began = log.began.as_deref().and_then(dates::from_ctime);
    let date = match (began, date) {
        (Some(d), _) => d,
        (None, Some(d)) => d.to_string(),
        (None, None) => {
            let mtime = fs::metadata(path)
                .and_then(|m| m.modified())
                .map_err(|source| ImportError::FileTime {
                    path: path.to_path_buf(),
                    source,
                })?;
            dates::from_system_time(mtime)
        }
    };
    Ok(ToImport::Log(ImportedLog {
        date,
        label: label.map(String::from),
        source: path.display().to_string(),
        text,
    }))
}

fn fail(e: &str) -> Exit {
    say(e);
    Exit::Failure
}
