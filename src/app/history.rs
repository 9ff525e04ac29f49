//! `ioz history …`: the stored runs listed, shown (as `ioz report` shows
//! a saved run), removed, reindexed and imported; trends and regressions
//! over them (app/history_views.rs); what they share with `ioz compare`'s
//! `@ID`, `@last`, `@label:NAME` is in app/history_runs.rs.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::history_runs::{filter, find, locate, open_to_read, open_to_write, print, refuse};
use super::input_files::{RunOrLog, RunOrLogError, read_run_or_log};
use super::output::say;
use crate::cli::{HistoryAction, HistoryRequest, Selection};
use crate::error::Exit;
use crate::history::{self, Entry, ImportedLog, ImportedPeer, Stored};
use crate::model::dates;
use crate::model::visible::{visible, visible_lines};

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
/// since it is the longest. What the runs say of themselves (labels, hosts,
/// commands) is shown with its control characters visible.
pub(crate) fn list_text(entries: &[Entry]) -> String {
    let dash = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            visible(s).into_owned()
        }
    };
    let rows: Vec<[String; 10]> = entries
        .iter()
        .map(|e| {
            [
                e.id.to_string(),
                visible(&e.date).into_owned(),
                dash(e.label.as_deref().unwrap_or("")),
                dash(&e.host),
                dash(&e.fs),
                dash(&e.device),
                dash(&e.job),
                visible(&e.status).into_owned(),
                dash(&e.stamp),
                visible(&e.command).into_owned(),
            ]
        })
        .collect();
    let header = [
        "id", "date", "label", "host", "fs", "device", "job", "status", "stamp", "command",
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
            print(&visible_lines(&log.text))
        }
        Ok(Stored::Peer(peer)) => {
            if !request.outputs.is_empty() {
                return refuse(&format!(
                    "history show: run {} is an imported result file of another benchmark: it is shown as ioz read it, with no result files (ioz compare @{} … writes a comparison's)",
                    entry.id, entry.id
                ));
            }
            match peer.read() {
                Ok((format, run)) => print(&crate::report::peers::text::render(
                    &run,
                    &peer.source,
                    format.words(),
                )),
                Err(e) => fail(&format!("history show: run {}: {e}", entry.id)),
            }
        }
        Err(e) => fail(&format!("history show: {e}")),
    }
}

fn rm(dir: &Path, ids: &[String]) -> Exit {
    // A missing history is not made.
    let mut history = match history::exists(dir) {
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
    // A missing history is not made.
    let mut history = match history::exists(dir) {
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

/// What one file to import holds, and the date it is stored with.
enum ToImport {
    Run(Box<crate::model::result::RunResult>, Dated),
    Log(ImportedLog, Dated),
    Peer(ImportedPeer, Dated),
}

/// Where an imported run's date came from, said on the line that reports
/// it: `--date` wins over what the file says of itself.
#[derive(Clone, Copy)]
enum Dated {
    Given,
    RunBegan,
    Started,
    FileTime,
    FileSays,
}

impl Dated {
    fn words(self) -> &'static str {
        match self {
            Dated::Given => "--date",
            Dated::RunBegan => "its Run began: line",
            Dated::Started => "its start",
            Dated::FileTime => "the file's time",
            Dated::FileSays => "the date the file gives",
        }
    }
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
        let (stored, stored_date, dated) = match r {
            ToImport::Run(run, dated) => {
                let when = date.clone().unwrap_or_else(|| run.started_at.clone());
                (
                    history.import_run(*run, label, date.as_deref()),
                    when,
                    dated,
                )
            }
            ToImport::Log(log, dated) => {
                let when = log.date.clone();
                (history.import_log(log), when, dated)
            }
            ToImport::Peer(peer, dated) => {
                let when = peer.date.clone();
                (history.import_peer(peer), when, dated)
            }
        };
        match stored {
            Ok(id) => out.push_str(&format!(
                "imported {} as run {id}, dated {} ({})\n",
                visible(&path.display().to_string()),
                visible(&stored_date),
                dated.words()
            )),
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
    let file_time = || -> Result<(String, Dated), ImportError> {
        let mtime = fs::metadata(path)
            .and_then(|m| m.modified())
            .map_err(|source| ImportError::FileTime {
                path: path.to_path_buf(),
                source,
            })?;
        Ok((dates::from_system_time(mtime), Dated::FileTime))
    };
    let (text, log) = match read_run_or_log(path)? {
        RunOrLog::Run(run) => {
            let dated = if date.is_some() {
                Dated::Given
            } else {
                Dated::Started
            };
            return Ok(ToImport::Run(run, dated));
        }
        RunOrLog::Peer { text, run, .. } => {
            let (date, dated) = match (date, &run.date) {
                (Some(d), _) => (d.to_string(), Dated::Given),
                (None, Some(d)) => (d.clone(), Dated::FileSays),
                (None, None) => file_time()?,
            };
            return Ok(ToImport::Peer(
                ImportedPeer {
                    date,
                    label: label.map(String::from),
                    source: path.display().to_string(),
                    text,
                },
                dated,
            ));
        }
        RunOrLog::Log { text, log } => (text, log),
    };
    let began = log.began.as_deref().and_then(dates::from_ctime);
    let (date, dated) = match (date, began) {
        (Some(d), _) => (d.to_string(), Dated::Given),
        (None, Some(d)) => (d, Dated::RunBegan),
        (None, None) => file_time()?,
    };
    Ok(ToImport::Log(
        ImportedLog {
            date,
            label: label.map(String::from),
            source: path.display().to_string(),
            text,
        },
        dated,
    ))
}

fn fail(e: &str) -> Exit {
    say(e);
    Exit::Failure
}
