//! The history's directory: the mark, the run files and the index, opened
//! and changed under the mark's lock (see the module above).
//!
//! What the history acts on is built from what it owns, never from what a
//! file says: a run's file is `runs/<id>.json`, named from its id (an
//! index row naming another file is reported, not followed); only those
//! names are runs (`runs/01.json` or an id beyond [`MAX_RUN_ID`] is
//! listed by `reindex` with why, and left alone); `runs/` is never
//! followed through a link. A reader changes nothing on disk: an index it
//! cannot use (missing, damaged, behind the run files) is rebuilt in
//! memory for that command, and on disk by the next writer. The lock is
//! waited for [`LOCK_WAIT`] at most, and a stop signal ends the wait.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use nix::unistd::{AccessFlags, Pid, eaccess};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::error::{HistoryError, RecordFailure};
use super::index::{self, Damage, Entry, IndexFailure, MAX_RUN_ID};
use crate::model::file_kind::file_kind;
use crate::model::history_layout::{INDEX, MARK, RUNS};
use crate::model::job::{Job, hosts_of};
use crate::model::peer::PeerRun;
use crate::model::result::{RunResult, RunStatus, signal_name};
use crate::model::result_files::Place;
use crate::report::Exporter;
use crate::report::json::{self, JsonReport, MAX_RUN_BYTES};
use crate::report::peers::{self, PeerError, PeerFormat};
use crate::report::put::{self, temporary_name, temporary_owner};
// The one module of `system` that `history` uses (ARCHITECTURE.md: the
// dependency rule's narrow exceptions): a stored run is read as every input
// file is.
use crate::system::input_file::read_input;

const MARK_TEXT: &str = "This directory is ioz's history of runs (ioz history -h).\n";

/// How long an open waits for another process's lock on the history: a
/// record holds it for milliseconds, so a longer wait means a holder that
/// is stopped or stuck, and the command ends (or goes on without the
/// history, as the history's rules say) instead of hanging.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// How often a waiting open tries the lock again.
const LOCK_RETRY: Duration = Duration::from_millis(50);

/// What an open of the history tells its command and asks it: the lines
/// to say (a rebuilt index, a wait for the lock), and the stop signal that
/// came while it waited, if any (it ends the wait).
pub struct Caller<'a> {
    pub say: &'a mut dyn FnMut(String),
    pub stopped: &'a dyn Fn() -> Option<i32>,
}

/// An open history: its directory, its lock and its index.
pub struct History {
    dir: PathBuf,
    conn: Connection,
    /// Temporaries of ended processes removed as it was opened to write.
    swept: Vec<String>,
    /// The mark's lock, held while the history is open (shared to read,
    /// exclusive to write).
    _lock: Flock<File>,
}

/// A stored run, read back.
pub enum Stored {
    Run(Box<RunResult>),
    Log(ImportedLog),
    Peer(ImportedPeer),
}

/// An IOzone log imported into the history: its text as it was, and what
/// the import decided (its date, its label).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedLog {
    /// RFC 3339, UTC: `--date`, else `Run began:`, else the file's time.
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

/// Another benchmark's result file imported into the history (fio, IOR,
/// mdtest, elbencho, IO500): its text as it was, read again by
/// report::peers whenever it is used, and what the import decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedPeer {
    /// RFC 3339, UTC: `--date`, else the date the file gives, else its time.
    pub date: String,
    pub label: Option<String>,
    pub source: String,
    pub text: String,
}

impl ImportedPeer {
    /// The file read again, as when it was imported.
    pub fn read(&self) -> Result<(PeerFormat, PeerRun), PeerError> {
        let format = peers::detect(&self.text).ok_or_else(|| PeerError::NoResults {
            what: "the stored file",
            why: "it is no peer's result file any more".into(),
        })?;
        Ok((format, peers::parse(format, &self.text)?))
    }
}

/// The file layout of an imported peer's file: one object under this key.
#[derive(Serialize, Deserialize)]
struct PeerFile {
    peer_file: ImportedPeer,
}

/// The name of run `id`'s file in runs/.
fn file_name(id: i64) -> String {
    format!("{id}.json")
}

/// The id of the run file `name`, or why `name` is no run's.
fn run_id(name: &OsStr) -> Result<i64, &'static str> {
    let not_a_run = "not a run's name (runs/<id>.json)";
    let stem = name
        .to_str()
        .and_then(|n| n.strip_suffix(".json"))
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .ok_or(not_a_run)?;
    let Ok(id) = stem.parse::<i64>() else {
        return Err("an id beyond the history's range (1 to 2147483647)");
    };
    if stem.starts_with('0') && id != 0 {
        return Err("not a run's name: an id is written without leading zeros");
    }
    if !(1..=MAX_RUN_ID).contains(&id) {
        return Err("an id beyond the history's range (1 to 2147483647)");
    }
    Ok(id)
}

/// What runs/ holds: the run files by id, and every other name.
#[derive(Default)]
struct Listing {
    runs: Vec<(i64, PathBuf)>,
    /// Every other entry, with why it is no run.
    others: Vec<(PathBuf, &'static str)>,
}

impl History {
    /// Opens the history in `dir` to add or remove runs, making the
    /// directory (and its parents) when missing; temporaries that ended
    /// processes left in it are removed.
    pub fn open_to_write(dir: &Path, caller: &mut Caller<'_>) -> Result<History, HistoryError> {
        fs::create_dir_all(dir).map_err(|source| HistoryError::MakeDirectory {
            dir: dir.to_path_buf(),
            source,
        })?;
        let dir = canonical(dir)?;
        let mark = claim(&dir)?;
        refuse_linked_runs(&dir)?;
        let lock = lock(
            mark,
            dir.join(MARK),
            FlockArg::LockExclusiveNonblock,
            caller,
        )?;
        let runs = dir.join(RUNS);
        put::make_dir(&runs).map_err(|source| HistoryError::Make { path: runs, source })?;
        let swept = sweep_temporaries(&dir);
        let path = dir.join(INDEX);
        let (conn, rebuilt) = match index::open_to_write(&path) {
            // The stamp is in the run files only: an index from before it
            // has its rows made again.
            Ok((conn, Some(v))) if v < index::STAMP_VERSION => (
                conn,
                Some(format!("was written by an older ioz (version {v})")),
            ),
            Ok((conn, _)) => (conn, None),
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
                let (conn, _) = index::open_to_write(&path).map_err(|e| index_error(&path, e))?;
                (conn, Some(format!("was damaged ({why})")))
            }
            Err(e) => return Err(index_error(&path, e)),
        };
        let mut history = History {
            dir,
            conn,
            swept,
            _lock: lock,
        };
        // Under the lock every run file has its row, named by its id: a
        // difference means the index was lost or emptied (a file cut to
        // nothing is a new database to SQLite), a run file was put there
        // by hand, or a row was changed by hand.
        let rebuilt = match rebuilt {
            Some(why) => Some(why),
            None => {
                let rows = index::all(&history.conn).map_err(|e| history.query_error(e))?;
                disagreement(&rows, &history.listing()?.runs)
            }
        };
        if let Some(why) = rebuilt {
            let (count, _) = history.rebuild()?;
            (caller.say)(format!(
                "warning: the history's index {} {why}; rebuilt from the {count} stored run(s)",
                path.display()
            ));
        }
        Ok(history)
    }

    /// Opens the history in `dir` to read it; `None` when there is none yet.
    /// Nothing on disk is made or changed (see the module).
    pub fn open_to_read(
        dir: &Path,
        caller: &mut Caller<'_>,
    ) -> Result<Option<History>, HistoryError> {
        let Some(mark) = find_mark(dir)? else {
            return Ok(None);
        };
        let dir = canonical(dir)?;
        refuse_linked_runs(&dir)?;
        let lock = lock(mark, dir.join(MARK), FlockArg::LockSharedNonblock, caller)?;
        let listing = listing_of(&dir)?;
        let path = dir.join(INDEX);
        let why = match index::open_to_read(&path) {
            Ok(Some(conn)) => match index::all(&conn) {
                Ok(rows) => match disagreement(&rows, &listing.runs) {
                    None => {
                        return Ok(Some(History {
                            dir,
                            conn,
                            swept: Vec::new(),
                            _lock: lock,
                        }));
                    }
                    Some(why) => Some(why),
                },
                Err(e) => Some(format!("could not be read ({e})")),
            },
            Ok(None) if listing.runs.is_empty() => None,
            Ok(None) => Some("is missing".to_string()),
            Err(Damage::Older(v)) => Some(format!("was written by an older ioz (version {v})")),
            Err(Damage::Damaged(why)) => Some(format!("was damaged ({why})")),
            Err(Damage::Other(why)) => Some(format!("could not be opened ({why})")),
            Err(e) => return Err(index_error(&path, e)),
        };
        let conn = index::in_memory().map_err(|e| HistoryError::OpenIndex {
            path: path.clone(),
            why: e.to_string(),
        })?;
        let history = History {
            dir,
            conn,
            swept: Vec::new(),
            _lock: lock,
        };
        let (count, unreadable) = history.fill(&listing.runs)?;
        if let Some(why) = why {
            (caller.say)(format!(
                "warning: the history's index {} {why}; listed from the {count} stored run(s) (the next run, or ioz history reindex, rebuilds it)",
                path.display()
            ));
        }
        for (path, e) in unreadable {
            (caller.say)(format!(
                "warning: {e}; left out (ioz history reindex sets {} aside)",
                path.display()
            ));
        }
        Ok(Some(history))
    }

    /// What runs/ holds now.
    fn listing(&self) -> Result<Listing, HistoryError> {
        listing_of(&self.dir)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records a measured run; returns its id.
    pub fn record(&mut self, run: &RunResult) -> Result<i64, HistoryError> {
        let bytes = JsonReport.render(run).map_err(HistoryError::EncodeRun)?;
        self.add(entry_of_run(run), &bytes)
    }

    /// Imports a saved run (`label` replaces its own when given, `date`
    /// its start).
    pub fn import_run(
        &mut self,
        run: RunResult,
        label: Option<&str>,
        date: Option<&str>,
    ) -> Result<i64, HistoryError> {
        let mut run = run;
        if let Some(label) = label {
            run.config.label = Some(label.to_string());
        }
        if let Some(date) = date {
            run.started_at = date.to_string();
        }
        self.record(&run)
    }

    /// Imports a peer's result file.
    pub fn import_peer(&mut self, peer: ImportedPeer) -> Result<i64, HistoryError> {
        let entry = entry_of_peer(&peer);
        let mut bytes = serde_json::to_vec_pretty(&PeerFile { peer_file: peer })
            .map_err(HistoryError::EncodeLog)?;
        bytes.push(b'\n');
        self.add(entry, &bytes)
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
        let tx = self
            .conn
            .transaction()
            .map_err(|e| failed(RecordFailure::Index(e.into())))?;
        let index_failed = |e: rusqlite::Error| failed(index::failure(&tx, e).into());
        let id = index::insert(&tx, &entry).map_err(index_failed)?;
        if id > MAX_RUN_ID {
            return Err(HistoryError::IdsUsedUp { id });
        }
        entry.file = file_name(id);
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
            return Err(failed(index::failure(&self.conn, e).into()));
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

    /// Where a run's file is: named from its id, whatever its row says.
    pub fn path_of(&self, entry: &Entry) -> PathBuf {
        self.dir.join(RUNS).join(file_name(entry.id))
    }

    /// A stored run, read back from its file.
    pub fn load(&self, entry: &Entry) -> Result<Stored, HistoryError> {
        read_stored(&self.path_of(entry))
    }

    /// Removes a run: its row and its file (runs/<id>.json, nothing else).
    pub fn remove(&mut self, id: i64) -> Result<bool, HistoryError> {
        let Some(entry) = self.get(id)? else {
            return Ok(false);
        };
        let path = self.path_of(&entry);
        let tx = self.conn.transaction().map_err(IndexFailure::from)?;
        index::delete(&tx, id).map_err(|e| index::failure(&tx, e))?;
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(source) => return Err(HistoryError::Remove { path, source }),
        }
        tx.commit().map_err(|e| index::failure(&self.conn, e))?;
        Ok(true)
    }

    /// Rebuilds the index from the run files; returns how many runs it
    /// holds and a line for each entry of runs/ left out: unreadable files
    /// (renamed aside), names that are no run's, and the temporaries of
    /// ended processes removed as the history was opened.
    pub fn reindex(&mut self) -> Result<(usize, Vec<String>), HistoryError> {
        let (count, mut left_out) = self.rebuild()?;
        for (path, why) in self.listing()?.others {
            // A live process's temporary is in flight: no stray.
            if path.file_name().and_then(temporary_owner).is_none() {
                left_out.push(format!(
                    "{}: {why}; not a run of the history, left as it is",
                    path.display()
                ));
            }
        }
        left_out.append(&mut self.swept);
        Ok((count, left_out))
    }

    /// The index rebuilt on disk from the run files; unreadable files are
    /// renamed aside, so that they are kept for the user to look at and no
    /// longer counted as runs.
    fn rebuild(&mut self) -> Result<(usize, Vec<String>), HistoryError> {
        let runs = self.listing()?.runs;
        let mut left_out = Vec::new();
        let tx = self.conn.transaction().map_err(IndexFailure::from)?;
        index::delete_all(&tx).map_err(|e| index::failure(&tx, e))?;
        let mut count = 0;
        for (id, path) in runs {
            match entry_of_file(id, &path) {
                Ok(entry) => {
                    index::insert(&tx, &entry).map_err(|e| index::failure(&tx, e))?;
                    count += 1;
                }
                Err(e) => {
                    let aside = path.with_extension("json.unreadable");
                    let _ = fs::rename(&path, &aside);
                    left_out.push(format!(
                        "{e}; left out of the index (kept as {})",
                        aside.display()
                    ));
                }
            }
        }
        index::keep_ids_in_range(&tx).map_err(|e| index::failure(&tx, e))?;
        tx.commit().map_err(|e| index::failure(&self.conn, e))?;
        Ok((count, left_out))
    }

    /// The in-memory index of a reader filled from the run files; the
    /// files it cannot read are left out (and left where they are).
    fn fill(
        &self,
        runs: &[(i64, PathBuf)],
    ) -> Result<(usize, Vec<(PathBuf, HistoryError)>), HistoryError> {
        let mut unreadable = Vec::new();
        let mut count = 0;
        for (id, path) in runs {
            match entry_of_file(*id, path) {
                Ok(entry) => {
                    index::insert(&self.conn, &entry).map_err(|e| self.query_error(e))?;
                    count += 1;
                }
                Err(e) => unreadable.push((path.clone(), e)),
            }
        }
        Ok((count, unreadable))
    }

    fn query_error(&self, source: rusqlite::Error) -> HistoryError {
        HistoryError::Query {
            dir: self.dir.clone(),
            source,
        }
    }
}

/// The index row of the run file `path` of run `id`.
fn entry_of_file(id: i64, path: &Path) -> Result<Entry, HistoryError> {
    let mut entry = match read_stored(path)? {
        Stored::Run(run) => entry_of_run(&run),
        Stored::Log(log) => entry_of_log(&log),
        Stored::Peer(peer) => entry_of_peer(&peer),
    };
    entry.id = id;
    entry.file = file_name(id);
    Ok(entry)
}

/// Why the index's rows and the run files differ, if they do: a row
/// naming a file other than its own (never followed), or other ids.
fn disagreement(rows: &[Entry], runs: &[(i64, PathBuf)]) -> Option<String> {
    if let Some(e) = rows.iter().find(|e| e.file != file_name(e.id)) {
        return Some(format!(
            "named {:?} as the file of run {} (which is {RUNS}/{}; the other was not followed)",
            e.file,
            e.id,
            file_name(e.id)
        ));
    }
    let mut ids: Vec<i64> = rows.iter().map(|e| e.id).collect();
    ids.sort_unstable();
    let files: Vec<i64> = runs.iter().map(|(id, _)| *id).collect();
    (ids != files).then(|| {
        format!(
            "listed {} run(s) for {} stored file(s)",
            rows.len(),
            files.len()
        )
    })
}

/// Every entry of `dir`/runs/, sorted: the runs by id, the rest by name.
fn listing_of(dir: &Path) -> Result<Listing, HistoryError> {
    let runs = dir.join(RUNS);
    let entries = match fs::read_dir(&runs) {
        Ok(d) => d,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Listing::default()),
        Err(source) => return Err(HistoryError::Read { path: runs, source }),
    };
    let mut listing = Listing::default();
    for e in entries.filter_map(|e| e.ok()) {
        match run_id(&e.file_name()) {
            Ok(id) => listing.runs.push((id, e.path())),
            Err(why) => listing.others.push((e.path(), why)),
        }
    }
    listing.runs.sort();
    listing.others.sort();
    Ok(listing)
}

/// Removes the temporaries (`.N.json.PID-K.ioz-tmp`, a check's probe) that
/// processes now ended left in the history, when one was killed between
/// writing a run's file and renaming it: one line for each, for
/// `reindex` to list. Called under the exclusive lock: no writer is
/// between its steps then, and a live process's file is left alone all
/// the same.
fn sweep_temporaries(dir: &Path) -> Vec<String> {
    let mut swept = Vec::new();
    for place in [dir.to_path_buf(), dir.join(RUNS)] {
        let Ok(entries) = fs::read_dir(&place) else {
            continue;
        };
        for e in entries.filter_map(|e| e.ok()) {
            let Some(pid) = temporary_owner(&e.file_name()) else {
                continue;
            };
            let ended = i32::try_from(pid).is_ok_and(|pid| {
                nix::sys::signal::kill(Pid::from_raw(pid), None) == Err(Errno::ESRCH)
            });
            if ended
                && e.file_type().is_ok_and(|t| t.is_file())
                && fs::remove_file(e.path()).is_ok()
            {
                swept.push(format!(
                    "removed {}, a temporary file of process {pid}, which ended before it was done",
                    e.path().display()
                ));
            }
        }
    }
    swept
}

/// Whether `dir` holds a history (its mark), without opening it: a
/// directory that holds other files and no mark is refused.
pub fn exists(dir: &Path) -> Result<bool, HistoryError> {
    Ok(find_mark(dir)?.is_some())
}

/// The mark of the history in `dir`, open; `None` when there is no
/// history (nothing there, or an empty directory).
fn find_mark(dir: &Path) -> Result<Option<File>, HistoryError> {
    let mark_path = dir.join(MARK);
    let open_mark = || match File::open(&mark_path) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(source) => Err(HistoryError::Read {
            path: mark_path.clone(),
            source,
        }),
    };
    if let Some(mark) = open_mark()? {
        return Ok(Some(mark));
    }
    if !dir.is_dir() {
        return Ok(None);
    }
    // A directory ioz cannot list could hold anything: never claimed.
    let entries = fs::read_dir(dir).map_err(|source| HistoryError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    if !holds_others(entries) {
        return Ok(None);
    }
    // Another run may have made the history between the two looks: a mark
    // is made before anything else in it and never removed, so a mark seen
    // after the listing makes whatever the listing held a history's.
    open_mark()?.map(Some).ok_or_else(|| not_ours(dir))
}

/// Refuses a `runs/` that is a link (or anything but a directory): the
/// history acts on its own files only. A missing one is made by a writer.
fn refuse_linked_runs(dir: &Path) -> Result<(), HistoryError> {
    let path = dir.join(RUNS);
    match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => Err(HistoryError::LinkedRuns { path }),
        Ok(m) if !m.is_dir() => Err(HistoryError::RunsNotADirectory {
            path,
            kind: file_kind(m.mode()),
        }),
        _ => Ok(()),
    }
}

/// Whether `dir` can take a run, checked before the run so that a history
/// that cannot is refused before anything is measured: a directory that
/// is a history (or empty, or still to be made), whose runs/ is its own,
/// whose index this ioz can read, and in which a file can be made now (a
/// probe, made and removed at once) on a file system with room. A missing
/// directory is judged by the one it would be made in, which is left
/// untouched.
pub fn check(dir: &Path, caller: &mut Caller<'_>) -> Result<(), HistoryError> {
    let cannot_use = |source| HistoryError::CannotUse {
        dir: dir.to_path_buf(),
        source,
    };
    match fs::symlink_metadata(dir) {
        // A missing directory, or one under a file: judged where it would
        // be made.
        Err(e) if e.kind() == ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR) => {
            return check_parent(dir);
        }
        Err(source) => return Err(cannot_use(source)),
        Ok(m) if m.file_type().is_symlink() => match fs::metadata(dir) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(HistoryError::DanglingLink {
                    dir: dir.to_path_buf(),
                    target: fs::read_link(dir).unwrap_or_default(),
                });
            }
            Err(source) => return Err(cannot_use(source)),
            Ok(_) => {}
        },
        Ok(_) => {}
    }
    if !fs::metadata(dir).map_err(cannot_use)?.is_dir() {
        return Err(HistoryError::NotADirectory {
            dir: dir.to_path_buf(),
        });
    }
    let Some(mark) = find_mark(dir)? else {
        // Empty: the run makes the history here.
        return probe(dir);
    };
    refuse_linked_runs(dir)?;
    let _lock = lock(mark, dir.join(MARK), FlockArg::LockSharedNonblock, caller)?;
    let path = dir.join(INDEX);
    // A writer rebuilds a damaged index, migrates an older one.
    if let Err(e @ (Damage::Newer(_) | Damage::Unknown(_))) = index::open_to_read(&path) {
        return Err(index_error(&path, e));
    }
    let runs = dir.join(RUNS);
    probe(if runs.is_dir() { &runs } else { dir })?;
    if path.exists() {
        // Opened to write and closed, nothing written: a read-only index.
        File::options()
            .write(true)
            .open(&path)
            .map_err(|source| HistoryError::NotWritable {
                dir: path.clone(),
                source,
            })?;
    }
    match nix::sys::statvfs::statvfs(dir) {
        Ok(st) if st.blocks_free() == 0 => Err(HistoryError::Full {
            dir: dir.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Makes and removes a file in `dir`: whether a run file can be made
/// there now (a read-only mount, a directory this user may not write).
/// A probe name already there (another check of this process, at the same
/// moment) is passed over for the next.
fn probe(dir: &Path) -> Result<(), HistoryError> {
    let not_writable = |source| HistoryError::NotWritable {
        dir: dir.to_path_buf(),
        source,
    };
    let mut attempt = 0;
    loop {
        let path = dir.join(temporary_name(OsStr::new("probe"), attempt));
        let made = File::options()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path);
        match made {
            Ok(_) => {
                let _ = fs::remove_file(&path);
                return Ok(());
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(source) => return Err(not_writable(source)),
        }
    }
}

/// A history still to be made: the nearest directory that exists above it
/// must let this user make directories (checked, not tried: it is not
/// ioz's).
fn check_parent(dir: &Path) -> Result<(), HistoryError> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let Some(existing) = absolute
        .ancestors()
        .skip(1)
        .find(|a| fs::symlink_metadata(a).is_ok())
    else {
        return Ok(());
    };
    if !existing.is_dir() {
        return Err(HistoryError::NotADirectory {
            dir: existing.to_path_buf(),
        });
    }
    eaccess(existing, AccessFlags::W_OK | AccessFlags::X_OK).map_err(|e| {
        HistoryError::NotWritable {
            dir: existing.to_path_buf(),
            source: e.into(),
        }
    })
}

/// `dir` with every link followed.
fn canonical(dir: &Path) -> Result<PathBuf, HistoryError> {
    fs::canonicalize(dir).map_err(|source| HistoryError::UseDirectory {
        dir: dir.to_path_buf(),
        source,
    })
}

/// The mark's lock (`how`: shared or exclusive, without blocking), tried
/// again for [`LOCK_WAIT`] at most while another process holds it; said
/// once when it must be waited for, and given up at a stop signal.
fn lock(
    mut mark: File,
    path: PathBuf,
    how: FlockArg,
    caller: &mut Caller<'_>,
) -> Result<Flock<File>, HistoryError> {
    let began = Instant::now();
    let mut said = false;
    loop {
        match Flock::lock(mark, how) {
            Ok(lock) => return Ok(lock),
            Err((back, Errno::EWOULDBLOCK)) | Err((back, Errno::EINTR)) => mark = back,
            Err((_, source)) => return Err(HistoryError::Lock { path, source }),
        }
        if let Some(sig) = (caller.stopped)() {
            return Err(HistoryError::StoppedWaiting {
                path,
                signal: signal_name(sig),
            });
        }
        if began.elapsed() >= LOCK_WAIT {
            return Err(HistoryError::Busy {
                path,
                seconds: LOCK_WAIT.as_secs(),
            });
        }
        if !said {
            said = true;
            (caller.say)(format!(
                "waiting for {}, locked by another process (at most {} s)",
                path.display(),
                LOCK_WAIT.as_secs()
            ));
        }
        std::thread::sleep(LOCK_RETRY);
    }
}

/// Makes `dir` ioz's history (an empty directory gets the mark) or finds
/// it so; refuses a directory that holds anything else. Returns the mark,
/// open for locking.
fn claim(dir: &Path) -> Result<File, HistoryError> {
    if let Some(mark) = find_mark(dir)? {
        return Ok(mark);
    }
    let mark_path = dir.join(MARK);
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
    File::open(&mark_path).map_err(|source| HistoryError::Read {
        path: mark_path,
        source,
    })
}

/// Whether a directory without the mark holds anything but ioz's own
/// temporaries: of runs starting at once on a history still to be made,
/// one's check puts its probe in the empty directory for a moment, and the
/// others must not take that for a foreign file.
fn holds_others(entries: fs::ReadDir) -> bool {
    entries
        .filter_map(|e| e.ok())
        .any(|e| temporary_owner(&e.file_name()).is_none())
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
        Damage::Unknown(version) => HistoryError::UnknownIndex { path, version },
        Damage::Older(v) => HistoryError::OpenIndex {
            path,
            why: format!("written by an older ioz (version {v})"),
        },
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
    if let Ok(PeerFile { peer_file }) = serde_json::from_slice(&bytes) {
        return Ok(Stored::Peer(peer_file));
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
        job: run.job.as_ref().map(Job::summary).unwrap_or_default(),
        stamp: run
            .stamp
            .as_ref()
            .map(|s| format!("{} {}", s.rules.name(), s.run.word()))
            .unwrap_or_default(),
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
    // Each once, in one pass: a job may have thousands of ranks.
    let hosts: Vec<String> = hosts_of(ranks.iter().map(String::as_str))
        .into_iter()
        .map(|(h, _)| h)
        .collect();
    let ranks = match ranks.len() {
        1 => "1 rank".to_string(),
        n => format!("{n} ranks"),
    };
    format!("{} ({ranks})", hosts.join(","))
}

/// The index row of an imported peer's file: what the file says of itself
/// (its kind is the tool's name, as "fio"; a file that no longer reads is
/// listed with its source as its command).
pub(super) fn entry_of_peer(peer: &ImportedPeer) -> Entry {
    let (kind, host, command) = match peer.read() {
        Ok((_, run)) => (
            run.tool.name().to_ascii_lowercase(),
            run.host.unwrap_or_default(),
            run.command
                .unwrap_or_else(|| format!("({} file {})", run.tool.name(), peer.source)),
        ),
        Err(_) => ("peer".into(), String::new(), format!("({})", peer.source)),
    };
    Entry {
        id: 0,
        file: String::new(),
        kind,
        date: peer.date.clone(),
        label: peer.label.clone(),
        host,
        fs: String::new(),
        device: String::new(),
        target: String::new(),
        command,
        status: "complete".into(),
        job: String::new(),
        stamp: String::new(),
    }
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
        job: String::new(),
        stamp: String::new(),
    }
}

#[cfg(test)]
mod tests;
