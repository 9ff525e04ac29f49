//! The history's directory: the mark, the run files and the index, opened
//! and changed under the mark's lock (see the module above).

use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::error::{HistoryError, RecordFailure};
use super::index::{self, Damage, Entry};
use crate::model::result::{RunResult, RunStatus, signal_name};
use crate::model::result_files::Place;
use crate::report::json::{self, JsonReport, MAX_RUN_BYTES};
use crate::report::{Exporter, put};
// The one module of `system` that `history` uses (ARCHITECTURE.md: the
// dependency rule's narrow exceptions): a stored run is read as every input
// file is.
use crate::system::input_file::read_input;

/// The file that marks a directory as ioz's history (and is locked).
const MARK: &str = "ioz-history";
const MARK_TEXT: &str = "This directory is ioz's history of runs (ioz history -h).\n";
const RUNS: &str = "runs";
const INDEX: &str = "history.sqlite";

/// An open history: its directory, its lock and its index.
pub struct History {
    dir: PathBuf,
    conn: Connection,
    /// The mark's lock, held while the history is open (shared to read,
    /// exclusive to write).
    _lock: Flock<File>,
}

/// A stored run, read back.
pub enum Stored {
    Run(Box<RunResult>),
    Log(ImportedLog),
}

/// An IOzone log imported into the history: its text as it was, and what
/// the import decided (its date, its label).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedLog {
    /// RFC 3339, UTC: `Run began:`, else `--date`, else the file's time.
    pub date: String,
    pub label: Option<String>,
    /// The file it was imported from, as named.
    pub source: String,
    pub text: String,
}

/// The file layout of an imported log: one object under this key, so it is
/// never taken for a saved run.
#[derive(Serialize, Deserialize)]
struct LogFile {
    iozone_log: ImportedLog,
}

impl History {
    /// Opens the history in `dir` to add or remove runs, making the
    /// directory (and its parents) when missing. `warn` gets the one line
    /// said when the index had to be rebuilt.
    pub fn open_to_write(
        dir: &Path,
        warn: &mut dyn FnMut(String),
    ) -> Result<History, HistoryError> {
        fs::create_dir_all(dir).map_err(|source| HistoryError::MakeDirectory {
            dir: dir.to_path_buf(),
            source,
        })?;
        let dir = canonical(dir)?;
        let mark = claim(&dir)?;
        let lock = lock(mark, dir.join(MARK))?;
        let runs = dir.join(RUNS);
        put::make_dir(&runs).map_err(|source| HistoryError::Make { path: runs, source })?;
        Self::with_index(dir, lock, warn)
    }

    /// Opens the history in `dir` to read it; `None` when there is none yet
    /// (nothing is made).
    pub fn open_to_read(
        dir: &Path,
        warn: &mut dyn FnMut(String),
    ) -> Result<Option<History>, HistoryError> {
        let mark_path = dir.join(MARK);
        let mark = match File::open(&mark_path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                if dir.is_dir() && fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
                    return Err(not_ours(dir));
                }
                return Ok(None);
            }
            Err(source) => {
                return Err(HistoryError::Read {
                    path: mark_path,
                    source,
                });
            }
        };
        let dir = canonical(dir)?;
        // Exclusive too: a damaged index is rebuilt, and a first open migrates.
        let lock = lock(mark, mark_path)?;
        Self::with_index(dir, lock, warn).map(Some)
    }

    fn with_index(
        dir: PathBuf,
        lock: Flock<File>,
        warn: &mut dyn FnMut(String),
    ) -> Result<History, HistoryError> {
        let path = dir.join(INDEX);
        let conn = match index::open(&path) {
            Ok(conn) => conn,
            Err(Damage::Damaged(why)) => {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    let p = PathBuf::from(format!("{}{suffix}", path.display()));
                    match fs::remove_file(&p) {
                        Ok(()) => {}
                        Err(e) if e.kind() == ErrorKind::NotFound => {}
                        Err(source) => {
                            return Err(HistoryError::RemoveDamaged { path: p, source });
                        }
                    }
                }
                let conn = index::open(&path).map_err(|e| index_error(&path, e))?;
                let mut history = History {
                    dir,
                    conn,
                    _lock: lock,
                };
                let (count, _) = history.reindex()?;
                warn(format!(
                    "warning: the history's index {} was damaged ({why}); rebuilt from the {count} stored run(s)",
                    path.display()
                ));
                return Ok(history);
            }
            Err(e) => return Err(index_error(&path, e)),
        };
        let mut history = History {
            dir,
            conn,
            _lock: lock,
        };
        // Under the lock every file has its row: a difference means the
        // index was lost or emptied (a file cut to nothing is a new
        // database to SQLite) or a run file was put there by hand.
        let files = history.run_files()?.len();
        let rows = index::all(&history.conn)
            .map_err(|e| history.query_error(e))?
            .len();
        if files != rows {
            let (count, _) = history.reindex()?;
            warn(format!(
                "warning: the history's index {} listed {rows} run(s) for {files} stored file(s); rebuilt from the {count} stored run(s)",
                path.display()
            ));
        }
        Ok(history)
    }

    /// The run files in runs/ with their ids, by id.
    fn run_files(&self) -> Result<Vec<(i64, PathBuf)>, HistoryError> {
        let runs = self.dir.join(RUNS);
        let mut files: Vec<(i64, PathBuf)> = match fs::read_dir(&runs) {
            Ok(d) => d
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().into_string().ok()?;
                    let id = name.strip_suffix(".json")?.parse().ok()?;
                    Some((id, e.path()))
                })
                .collect(),
            Err(e) if e.kind() == ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(HistoryError::Read { path: runs, source }),
        };
        files.sort();
        Ok(files)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records a measured run; returns its id.
    pub fn record(&mut self, run: &RunResult) -> Result<i64, HistoryError> {
        let bytes = JsonReport.render(run).map_err(HistoryError::EncodeRun)?;
        self.add(entry_of_run(run), &bytes)
    }

    /// Imports a saved run's bytes (`label` replaces its own when given).
    pub fn import_run(&mut self, run: RunResult, label: Option<&str>) -> Result<i64, HistoryError> {
        let mut run = run;
        if let Some(label) = label {
            run.config.label = Some(label.to_string());
        }
        self.record(&run)
    }

    /// Imports an IOzone log.
    pub fn import_log(&mut self, log: ImportedLog) -> Result<i64, HistoryError> {
        let entry = entry_of_log(&log);
        let mut bytes = serde_json::to_vec_pretty(&LogFile { iozone_log: log })
            .map_err(HistoryError::EncodeLog)?;
        bytes.push(b'\n');
        self.add(entry, &bytes)
    }

    /// One transaction: the row (which gives the id), the file named by
    /// the id, then the commit. A failure leaves neither.
    fn add(&mut self, mut entry: Entry, bytes: &[u8]) -> Result<i64, HistoryError> {
        let dir = self.dir.clone();
        let failed = |why: RecordFailure| HistoryError::Record {
            dir: dir.clone(),
            why,
        };
        let index_failed = |e: rusqlite::Error| failed(e.into());
        let tx = self.conn.transaction().map_err(index_failed)?;
        let id = index::insert(&tx, &entry).map_err(index_failed)?;
        entry.file = format!("{id}.json");
        index::set_file(&tx, id, &entry.file).map_err(index_failed)?;
        let place = Place {
            given: self.dir.join(RUNS).join(&entry.file),
            dir: self.dir.join(RUNS),
            name: entry.file.clone().into(),
            replaces: None,
        };
        put::put(&place, bytes).map_err(|source| {
            failed(RecordFailure::File {
                path: place.given.clone(),
                source,
            })
        })?;
        if let Err(e) = tx.commit() {
            let _ = fs::remove_file(&place.given);
            return Err(index_failed(e));
        }
        Ok(id)
    }

    /// Every run the filter keeps, oldest first.
    pub fn list(&self, filter: &super::Filter) -> Result<Vec<Entry>, HistoryError> {
        let all = index::all(&self.conn).map_err(|e| self.query_error(e))?;
        Ok(all.into_iter().filter(|e| filter.keeps(e)).collect())
    }

    pub fn get(&self, id: i64) -> Result<Option<Entry>, HistoryError> {
        index::by_id(&self.conn, id).map_err(|e| self.query_error(e))
    }

    pub fn last(&self) -> Result<Option<Entry>, HistoryError> {
        index::last(&self.conn).map_err(|e| self.query_error(e))
    }

    /// Where a run's file is.
    pub fn path_of(&self, entry: &Entry) -> PathBuf {
        self.dir.join(RUNS).join(&entry.file)
    }

    /// A stored run, read back from its file.
    pub fn load(&self, entry: &Entry) -> Result<Stored, HistoryError> {
        read_stored(&self.path_of(entry))
    }

    /// Removes a run: its row and its file.
    pub fn remove(&mut self, id: i64) -> Result<bool, HistoryError> {
        let Some(entry) = self.get(id)? else {
            return Ok(false);
        };
        let path = self.path_of(&entry);
        let tx = self.conn.transaction()?;
        index::delete(&tx, id)?;
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(source) => return Err(HistoryError::Remove { path, source }),
        }
        tx.commit()?;
        Ok(true)
    }

    /// Rebuilds the index from the run files; returns how many runs it
    /// holds and a line for each file left out.
    pub fn reindex(&mut self) -> Result<(usize, Vec<String>), HistoryError> {
        let files = self.run_files()?;
        let mut left_out = Vec::new();
        let tx = self.conn.transaction()?;
        index::delete_all(&tx)?;
        let mut count = 0;
        for (id, path) in files {
            let mut entry = match read_stored(&path) {
                Ok(Stored::Run(run)) => entry_of_run(&run),
                Ok(Stored::Log(log)) => entry_of_log(&log),
                Err(e) => {
                    // Renamed aside, so that it is kept for the user to look
                    // at and no longer counted as a run.
                    let aside = path.with_extension("json.unreadable");
                    let _ = fs::rename(&path, &aside);
                    left_out.push(format!(
                        "{e}; left out of the index (kept as {})",
                        aside.display()
                    ));
                    continue;
                }
            };
            entry.id = id;
            entry.file = format!("{id}.json");
            index::insert(&tx, &entry)?;
            count += 1;
        }
        tx.commit()?;
        Ok((count, left_out))
    }

    fn query_error(&self, source: rusqlite::Error) -> HistoryError {
        HistoryError::Query {
            dir: self.dir.clone(),
            source,
        }
    }
}

/// Whether `dir` can take the history, checked before a run so that a bad
/// directory is refused before anything is measured; nothing is made.
pub fn check(dir: &Path) -> Result<(), HistoryError> {
    match fs::metadata(dir) {
        Ok(m) if !m.is_dir() => Err(HistoryError::NotADirectory {
            dir: dir.to_path_buf(),
        }),
        Ok(_) if dir.join(MARK).is_file() => Ok(()),
        Ok(_) => match fs::read_dir(dir) {
            Ok(mut entries) => match entries.next() {
                None => Ok(()),
                Some(_) => Err(not_ours(dir)),
            },
            Err(source) => Err(HistoryError::Read {
                path: dir.to_path_buf(),
                source,
            }),
        },
        // Made when the run is recorded.
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(source) => Err(HistoryError::CannotUse {
            dir: dir.to_path_buf(),
            source,
        }),
    }
}

/// `dir` with every link followed.
fn canonical(dir: &Path) -> Result<PathBuf, HistoryError> {
    fs::canonicalize(dir).map_err(|source| HistoryError::UseDirectory {
        dir: dir.to_path_buf(),
        source,
    })
}

/// The mark's lock (exclusive), waited for: writers hold it a few
/// milliseconds.
fn lock(mark: File, path: PathBuf) -> Result<Flock<File>, HistoryError> {
    Flock::lock(mark, FlockArg::LockExclusive)
        .map_err(|(_, source)| HistoryError::Lock { path, source })
}

/// Makes `dir` ioz's history (an empty directory gets the mark) or finds
/// it so; refuses a directory that holds anything else. Returns the mark,
/// open for locking.
fn claim(dir: &Path) -> Result<File, HistoryError> {
    let mark_path = dir.join(MARK);
    let cannot_read = |path: &Path| {
        let path = path.to_path_buf();
        move |source| HistoryError::Read { path, source }
    };
    match File::open(&mark_path) {
        Ok(f) => return Ok(f),
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(cannot_read(&mark_path)(e)),
    }
    let holds_something = fs::read_dir(dir)
        .map_err(cannot_read(dir))?
        .next()
        .is_some();
    if holds_something {
        return Err(not_ours(dir));
    }
    // O_EXCL: of two runs making the history at once, one writes the mark
    // and the other finds it.
    match File::options()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&mark_path)
    {
        Ok(mut f) => {
            f.write_all(MARK_TEXT.as_bytes())
                .map_err(|source| HistoryError::Write {
                    path: mark_path.clone(),
                    source,
                })?;
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(source) => {
            return Err(HistoryError::Make {
                path: mark_path,
                source,
            });
        }
    }
    File::open(&mark_path).map_err(cannot_read(&mark_path))
}

fn not_ours(dir: &Path) -> HistoryError {
    HistoryError::NotOurs {
        dir: dir.to_path_buf(),
        mark: MARK,
    }
}

fn index_error(path: &Path, e: Damage) -> HistoryError {
    let path = path.to_path_buf();
    match e {
        Damage::Newer(version) => HistoryError::NewerIndex { path, version },
        Damage::Damaged(why) | Damage::Other(why) => HistoryError::OpenIndex { path, why },
    }
}

/// A run file: an imported log (one `iozone_log` object) or a saved run.
fn read_stored(path: &Path) -> Result<Stored, HistoryError> {
    let bytes = read_input(path, MAX_RUN_BYTES).map_err(|source| HistoryError::ReadStored {
        path: path.to_path_buf(),
        source,
    })?;
    if let Ok(LogFile { iozone_log }) = serde_json::from_slice(&bytes) {
        return Ok(Stored::Log(iozone_log));
    }
    let run = json::parse_run(&bytes, &path.display().to_string())?;
    Ok(Stored::Run(Box::new(run)))
}

/// The index row of a saved run.
pub(super) fn entry_of_run(run: &RunResult) -> Entry {
    let target = &run.environment.target;
    let device = match &target.device {
        Some(d) => d.name.clone(),
        None => target.source.clone(),
    };
    let mount = if target.mount_point.is_empty() {
        target.path.clone()
    } else {
        target.mount_point.clone()
    };
    Entry {
        id: 0,
        file: String::new(),
        kind: "run".into(),
        date: run.started_at.clone(),
        label: run.config.label.clone(),
        host: host_column(run),
        fs: target.file_system_words(),
        device,
        target: mount,
        command: run.config.command_line.join(" "),
        status: match &run.status {
            RunStatus::Complete => "complete".into(),
            RunStatus::Interrupted(sig) => format!("interrupted by {}", signal_name(*sig)),
            RunStatus::Failed(why) => format!("failed: {why}"),
        },
    }
}

/// The index's host of a run: its machine's name, or a cluster run's hosts
/// (each once, in rank order) and its number of ranks, "node-a,node-b (4
/// ranks)", so that a cluster run is listed, filtered and followed apart
/// from the runs of any one of its hosts.
fn host_column(run: &RunResult) -> String {
    let ranks = run.rank_hosts();
    if ranks.is_empty() {
        return run.environment.hostname.clone();
    }
    let mut hosts: Vec<&str> = Vec::new();
    for h in &ranks {
        if !hosts.contains(&h.as_str()) {
            hosts.push(h);
        }
    }
    let ranks = match ranks.len() {
        1 => "1 rank".to_string(),
        n => format!("{n} ranks"),
    };
    format!("{} ({ranks})", hosts.join(","))
}

/// The index row of an imported log: what IOzone's text says of itself.
pub(super) fn entry_of_log(log: &ImportedLog) -> Entry {
    let command = log
        .text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Command line used:"))
        .map(|c| c.trim().to_string())
        .unwrap_or_else(|| "(IOzone log)".into());
    Entry {
        id: 0,
        file: String::new(),
        kind: "iozone-log".into(),
        date: log.date.clone(),
        label: log.label.clone(),
        host: String::new(),
        fs: String::new(),
        device: String::new(),
        target: String::new(),
        command,
        status: "complete".into(),
    }
}

#[cfg(test)]
mod tests;
