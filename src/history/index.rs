//! The index: one row per stored run in `history.sqlite`, for listing and
//! filtering without reading every file. Everything in it comes from the
//! run files, so it can be rebuilt from them at any time.
//!
//! The schema's version is SQLite's `user_version`; [`MIGRATIONS`] lists
//! the steps from each version to the next, applied in one transaction
//! when a writer opens an older database. A database from a newer ioz, or
//! of a version no ioz writes (a negative one), is refused, never
//! rewritten.
//!
//! A reader opens it read-only and changes nothing, not even a journal:
//! `immutable`, which is sound because every writer holds the history's
//! lock exclusively (history/store.rs) and a reader holds it shared; so a
//! history on a read-only mount, or another user's, can be listed. A
//! writer uses a rollback journal (`DELETE`), which leaves no file beside
//! the database once a transaction ends, even one that failed (a full
//! disk); an index left in WAL mode by an older ioz is switched back.

use std::io;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

/// How long a writer waits for another one (parallel runs) before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest id a run may have: the history numbers its runs from 1, and
/// a run file named beyond this (`runs/9223372036854775807.json`) is no run
/// of it, so the next id can always be given.
pub const MAX_RUN_ID: i64 = i32::MAX as i64;

/// Version N+1 is `MIGRATIONS[N]` applied to version N.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE runs (
        id       INTEGER PRIMARY KEY AUTOINCREMENT,
        file     TEXT NOT NULL,    -- its name in runs/
        kind     TEXT NOT NULL,    -- 'run' or 'iozone-log'
        date     TEXT NOT NULL,    -- RFC 3339, UTC
        label    TEXT,
        host     TEXT NOT NULL,
        fs       TEXT NOT NULL,
        device   TEXT NOT NULL,
        target   TEXT NOT NULL,    -- the mount point (or the test file's path)
        command  TEXT NOT NULL,
        status   TEXT NOT NULL     -- 'complete', 'interrupted by SIGINT', 'failed: …'
    );
    CREATE INDEX runs_by_date ON runs (date, id);
    CREATE INDEX runs_by_label ON runs (label, date);
",
    "
    -- A cluster run's job: 'mpirun 4 ranks on 2 hosts, Slurm job 17.0' ('' otherwise).
    ALTER TABLE runs ADD COLUMN job TEXT NOT NULL DEFAULT '';
",
    "
    -- --rules: the rules a run claimed and its stamp, 'iozone valid', 'io500 invalid',
    -- 'pts not checkable' ('' when it claimed none). The rows of an older index are
    -- filled from the run files after this step (STAMP_VERSION).
    ALTER TABLE runs ADD COLUMN stamp TEXT NOT NULL DEFAULT '';
",
];

/// The version that added the stamp: an index migrated from an older one
/// has its rows made again from the run files (the stamp is in them only).
pub const STAMP_VERSION: i64 = 3;

/// The schema version this ioz writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// One stored run, as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: i64,
    pub file: String,
    /// `run` or `iozone-log`.
    pub kind: String,
    pub date: String,
    pub label: Option<String>,
    pub host: String,
    pub fs: String,
    pub device: String,
    pub target: String,
    pub command: String,
    pub status: String,
    /// A cluster run's job (model::job::Job::summary); empty otherwise.
    pub job: String,
    /// `--rules`: the rules claimed and the run's stamp ("io500 invalid");
    /// empty when it claimed none (and for imported logs and peers' files).
    pub stamp: String,
}

impl Entry {
    pub fn status_kind(&self) -> StatusKind {
        if self.status.starts_with("interrupted") {
            StatusKind::Interrupted
        } else if self.status.starts_with("failed") {
            StatusKind::Failed
        } else {
            StatusKind::Complete
        }
    }

    pub fn stamp_kind(&self) -> StampKind {
        if self.stamp.ends_with(" invalid") {
            StampKind::Invalid
        } else if self.stamp.ends_with(" valid") {
            StampKind::Valid
        } else if self.stamp.ends_with(" not checkable") {
            StampKind::NotCheckable
        } else {
            StampKind::Unchecked
        }
    }
}

/// A run's stamp, as `--stamp` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StampKind {
    Valid,
    Invalid,
    /// Rules claimed, but the run lacks their evidence.
    NotCheckable,
    /// No rules claimed.
    Unchecked,
}

impl StampKind {
    /// `--stamp`'s words (cli/history_cmd.rs lists them).
    pub fn from_name(name: &str) -> Option<StampKind> {
        match name {
            "valid" => Some(StampKind::Valid),
            "invalid" => Some(StampKind::Invalid),
            "not-checkable" => Some(StampKind::NotCheckable),
            "unchecked" => Some(StampKind::Unchecked),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusKind {
    Complete,
    Interrupted,
    Failed,
}

impl StatusKind {
    pub fn from_name(name: &str) -> Option<StatusKind> {
        match name {
            "complete" => Some(StatusKind::Complete),
            "interrupted" => Some(StatusKind::Interrupted),
            "failed" => Some(StatusKind::Failed),
            _ => None,
        }
    }
}

/// What `ioz history list` (and the commands that pick runs) keeps; every
/// field set must match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Any of these labels (none: every label, and runs without one).
    pub labels: Vec<String>,
    pub host: Option<String>,
    pub fs: Option<String>,
    /// RFC 3339 bounds, both included.
    pub since: Option<String>,
    pub until: Option<String>,
    pub status: Option<StatusKind>,
    pub stamp: Option<StampKind>,
}

impl Filter {
    pub fn keeps(&self, e: &Entry) -> bool {
        (self.labels.is_empty() || e.label.as_ref().is_some_and(|l| self.labels.contains(l)))
            && self.host.as_ref().is_none_or(|h| *h == e.host)
            && self.fs.as_ref().is_none_or(|f| *f == e.fs)
            && self.since.as_ref().is_none_or(|s| e.date >= *s)
            && self.until.as_ref().is_none_or(|u| e.date <= *u)
            && self.status.is_none_or(|s| s == e.status_kind())
            && self.stamp.is_none_or(|s| s == e.stamp_kind())
    }
}

/// Opens (or creates) the index at `path` to change it: the rollback
/// journal, the busy timeout, a quick check of its pages, and the schema
/// migrated forward, with the version it had when that was older and not
/// new (0). An error is SQLite's; the caller decides whether it means a
/// damaged database.
pub fn open_to_write(path: &Path) -> Result<(Connection, Option<i64>), Damage> {
    let conn = Connection::open(path).map_err(Damage::from)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(Damage::from)?;
    quick_check(&conn)?;
    // Before the migration, so that a version no ioz writes is refused
    // before anything changes.
    version(&conn)?;
    let _mode: String = conn
        .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
        .map_err(Damage::from)?;
    // Only an older schema is written to: opening a current one writes
    // nothing (on a full disk, the record is what fails, and says so).
    let before = version(&conn)?;
    if before < SCHEMA_VERSION {
        migrate(&conn)?;
    }
    Ok((
        conn,
        (1..SCHEMA_VERSION).contains(&before).then_some(before),
    ))
}

/// Opens the index at `path` to read it, changing nothing (see the
/// module); `None` when there is none, or one that was never given a
/// schema (the next writer makes it).
pub fn open_to_read(path: &Path) -> Result<Option<Connection>, Damage> {
    if !path.exists() {
        return Ok(None);
    }
    let mut uri = b"file:".to_vec();
    for &b in path.as_os_str().as_encoded_bytes() {
        // The URI's own characters, and anything not printable, escaped.
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b);
        } else {
            uri.extend(format!("%{b:02X}").bytes());
        }
    }
    uri.extend(b"?immutable=1");
    let uri = String::from_utf8(uri).expect("ASCII");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags).map_err(Damage::from)?;
    quick_check(&conn)?;
    match version(&conn)? {
        0 => Ok(None),
        v if v < SCHEMA_VERSION => Err(Damage::Older(v)),
        _ => Ok(Some(conn)),
    }
}

/// An index in memory, of this ioz's schema: what a reader lists when the
/// one on disk cannot be used (missing, damaged, behind the run files),
/// filled from the run files, so that reading changes nothing on disk.
pub fn in_memory() -> rusqlite::Result<Connection> {
    let conn = Connection::open_in_memory()?;
    for step in MIGRATIONS {
        conn.execute_batch(step)?;
    }
    Ok(conn)
}

fn quick_check(conn: &Connection) -> Result<(), Damage> {
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(Damage::from)?;
    if check != "ok" {
        return Err(Damage::Damaged(check));
    }
    Ok(())
}

/// The schema's version, when it is one ioz writes or has written.
fn version(conn: &Connection) -> Result<i64, Damage> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    match version {
        v if v > SCHEMA_VERSION => Err(Damage::Newer(v)),
        v if v < 0 => Err(Damage::Unknown(v)),
        v => Ok(v),
    }
}

/// Why the index cannot be used.
#[derive(Debug)]
pub enum Damage {
    /// The file is not a database or its pages are broken: rebuild it.
    Damaged(String),
    /// Written by a newer ioz: leave it alone.
    Newer(i64),
    /// A version no ioz writes (negative): leave it alone.
    Unknown(i64),
    /// Written by an older ioz: a reader cannot migrate it.
    Older(i64),
    /// Anything else (locked past the timeout, a full disk): say it.
    Other(String),
}

impl From<rusqlite::Error> for Damage {
    fn from(e: rusqlite::Error) -> Damage {
        use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
        match e.sqlite_error_code() {
            Some(NotADatabase | DatabaseCorrupt) => Damage::Damaged(e.to_string()),
            _ => Damage::Other(e.to_string()),
        }
    }
}

fn migrate(conn: &Connection) -> Result<(), Damage> {
    // IMMEDIATE: two processes opening a new database migrate it once.
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let done = (|| {
        // Again under the transaction: another process may have migrated it.
        let version = version(conn)?;
        for step in MIGRATIONS.iter().skip(version as usize) {
            conn.execute_batch(step)?;
        }
        conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
        Ok(())
    })();
    match done {
        Ok(()) => conn.execute_batch("COMMIT").map_err(Damage::from),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// What SQLite said, with the system's error behind it where it had one:
/// "database or disk is full" is named as the ENOSPC it is, "disk I/O
/// error" with its errno.
pub fn failure(conn: &Connection, error: rusqlite::Error) -> IndexFailure {
    use rusqlite::ErrorCode::{CannotOpen, DiskFull, SystemIoFailure};
    let errno = match error.sqlite_error_code() {
        // SQLite's unix files say "full" for ENOSPC alone, and keep no
        // errno for it.
        Some(DiskFull) => Some(libc::ENOSPC),
        Some(SystemIoFailure | CannotOpen) => {
            // SAFETY: the handle is this live connection's; the call only
            // reads the errno its last failed system call left.
            let errno = unsafe { rusqlite::ffi::sqlite3_system_errno(conn.handle()) };
            (errno != 0).then_some(errno)
        }
        _ => None,
    };
    IndexFailure { error, errno }
}

/// What SQLite said of a change of the index, and the system's error
/// behind it where SQLite had one ("database or disk is full: No space
/// left on device (os error 28)").
#[derive(Debug, thiserror::Error)]
#[error("{error}{}", cause(*errno))]
pub struct IndexFailure {
    pub error: rusqlite::Error,
    pub errno: Option<i32>,
}

fn cause(errno: Option<i32>) -> String {
    match errno {
        Some(e) => format!(": {}", io::Error::from_raw_os_error(e)),
        None => String::new(),
    }
}

impl From<rusqlite::Error> for IndexFailure {
    /// A failure with no connection to ask for the system's error.
    fn from(error: rusqlite::Error) -> IndexFailure {
        IndexFailure { error, errno: None }
    }
}

/// Repairs the next id an older ioz left out of range (after a run file
/// named `runs/9223372036854775807.json` was indexed): the next run is
/// numbered after the largest id kept, never after a removed one below
/// the range.
pub fn keep_ids_in_range(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE sqlite_sequence SET seq = (SELECT coalesce(max(id), 0) FROM runs)
         WHERE name = 'runs' AND seq > ?1",
        params![MAX_RUN_ID],
    )?;
    Ok(())
}

/// Adds `entry` (its id when it is not 0, else a new one) and returns its id.
pub fn insert(conn: &Connection, entry: &Entry) -> rusqlite::Result<i64> {
    let id = (entry.id != 0).then_some(entry.id);
    conn.execute(
        "INSERT INTO runs (id, file, kind, date, label, host, fs, device, target, command, status,
                           job, stamp)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            id,
            entry.file,
            entry.kind,
            entry.date,
            entry.label,
            entry.host,
            entry.fs,
            entry.device,
            entry.target,
            entry.command,
            entry.status,
            entry.job,
            entry.stamp
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn set_file(conn: &Connection, id: i64, file: &str) -> rusqlite::Result<()> {
    conn.execute("UPDATE runs SET file = ?1 WHERE id = ?2", params![file, id])?;
    Ok(())
}

pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    Ok(conn.execute("DELETE FROM runs WHERE id = ?1", params![id])? == 1)
}

pub fn delete_all(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM runs", [])?;
    Ok(())
}

const COLUMNS: &str =
    "id, file, kind, date, label, host, fs, device, target, command, status, job, stamp";

fn entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
    Ok(Entry {
        id: r.get(0)?,
        file: r.get(1)?,
        kind: r.get(2)?,
        date: r.get(3)?,
        label: r.get(4)?,
        host: r.get(5)?,
        fs: r.get(6)?,
        device: r.get(7)?,
        target: r.get(8)?,
        command: r.get(9)?,
        status: r.get(10)?,
        job: r.get(11)?,
        stamp: r.get(12)?,
    })
}

/// Every run, oldest first (by date, then id).
pub fn all(conn: &Connection) -> rusqlite::Result<Vec<Entry>> {
    let mut q = conn.prepare(&format!("SELECT {COLUMNS} FROM runs ORDER BY date, id"))?;
    q.query_map([], entry)?.collect()
}

pub fn by_id(conn: &Connection, id: i64) -> rusqlite::Result<Option<Entry>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM runs WHERE id = ?1"),
        params![id],
        entry,
    )
    .optional()
}

/// The run recorded last: the largest id (the order runs were saved in,
/// whatever their dates).
pub fn last(conn: &Connection) -> rusqlite::Result<Option<Entry>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM runs ORDER BY id DESC LIMIT 1"),
        [],
        entry,
    )
    .optional()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(id: i64, label: Option<&str>, date: &str, status: &str) -> Entry {
        Entry {
            id,
            file: format!("{id}.json"),
            kind: "run".into(),
            date: date.into(),
            label: label.map(String::from),
            host: "h".into(),
            fs: "ext4".into(),
            device: "vda".into(),
            target: "/".into(),
            command: "ioz -a".into(),
            status: status.into(),
            job: String::new(),
            stamp: String::new(),
        }
    }

    #[test]
    fn rows_go_in_and_come_out_by_date() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, _) = open_to_write(&dir.path().join("h.sqlite")).unwrap();
        let a = insert(
            &conn,
            &sample(0, Some("a"), "2008-01-02T00:00:00Z", "complete"),
        )
        .unwrap();
        let b = insert(&conn, &sample(0, None, "2007-01-02T00:00:00Z", "failed: x")).unwrap();
        assert_eq!((a, b), (1, 2));
        let dates: Vec<i64> = all(&conn).unwrap().iter().map(|e| e.id).collect();
        assert_eq!(dates, [2, 1]);
        assert_eq!(last(&conn).unwrap().unwrap().id, 2);
        assert!(delete(&conn, 1).unwrap());
        assert!(!delete(&conn, 1).unwrap());
        assert_eq!(by_id(&conn, 1).unwrap(), None);
        // A given id is kept (a reindex keeps the files' ids).
        assert_eq!(insert(&conn, &sample(7, None, "x", "complete")).unwrap(), 7);
    }

    #[test]
    fn the_schema_is_versioned_and_a_newer_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let (conn, _) = open_to_write(&path).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        conn.execute_batch("PRAGMA user_version = 99").unwrap();
        drop(conn);
        assert!(matches!(open_to_write(&path), Err(Damage::Newer(99))));
        assert!(matches!(open_to_read(&path), Err(Damage::Newer(99))));
        // A negative version: refused, not a panic (it was an index out of
        // MIGRATIONS' range).
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA user_version = -3").unwrap();
        drop(conn);
        assert!(matches!(open_to_write(&path), Err(Damage::Unknown(-3))));
        assert!(matches!(open_to_read(&path), Err(Damage::Unknown(-3))));
    }

    #[test]
    fn a_reader_changes_nothing_and_needs_no_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        assert!(open_to_read(&path).unwrap().is_none());
        assert!(!path.exists(), "a reader made the index");
        let (conn, _) = open_to_write(&path).unwrap();
        insert(&conn, &sample(0, None, "2008-01-02T00:00:00Z", "complete")).unwrap();
        drop(conn);
        let before = std::fs::read(&path).unwrap();
        let names = || {
            let mut n: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(), ["h.sqlite"], "a journal left beside it");
        let conn = open_to_read(&path).unwrap().unwrap();
        assert_eq!(all(&conn).unwrap().len(), 1);
        assert!(conn.execute("DELETE FROM runs", []).is_err());
        drop(conn);
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(names(), ["h.sqlite"]);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        std::fs::write(&path, vec![b'x'; 8192]).unwrap();
        assert!(matches!(open_to_write(&path), Err(Damage::Damaged(_))));
        assert!(matches!(open_to_read(&path), Err(Damage::Damaged(_))));
    }

    #[test]
    fn filters_match_every_field_given() {
        let e = sample(
            1,
            Some("ubifs"),
            "2008-06-12T10:00:00Z",
            "interrupted by SIGINT",
        );
        assert!(Filter::default().keeps(&e));
        let f = Filter {
            labels: vec!["jffs2".into(), "ubifs".into()],
            since: Some("2008-06-12T00:00:00Z".into()),
            until: Some("2008-06-12T23:59:59Z".into()),
            ..Filter::default()
        };
        assert!(f.keeps(&e));
        let g = Filter {
            status: Some(StatusKind::Complete),
            ..Filter::default()
        };
        assert!(!g.keeps(&e));
        let h = Filter {
            host: Some("other".into()),
            ..Filter::default()
        };
        assert!(!h.keeps(&e));
    }
}
