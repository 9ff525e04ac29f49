//! The checks of a test file before anything runs: what the path names,
//! whether ioz may write it (its own file, or `--force`), whether ioz can
//! create it and remove it at the end, whether another run holds it, and
//! for `-+E` whether it holds what the test reads. Each refusal is one line
//! naming the path and the reason (exit 2), and nothing has been written.

use std::fs;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use nix::errno::Errno;
use nix::unistd::{AccessFlags, eaccess};

use super::device::{check_destroy_ids, check_device};
use super::{Role, TargetFile};
use crate::error::RunError;
use crate::model::config::{RunConfig, Sizes};
use crate::model::plan::{Cell, expand};
use crate::safety::lock::{Busy, LockKind, try_lock};
use crate::safety::ownership::{Mark, mark_of_path};
use crate::safety::writable_dir::check_writable_dir;
use crate::system::descriptor::{open_without_waiting, stat_of};
use crate::system::device::DeviceKind;

/// What the checks of one target need to know of the run.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RunFacts {
    pub force: bool,
    /// `-w`: the file stays, so ioz need not be able to remove it.
    pub keep_file: bool,
    /// `-W`, `-+l`/`-+L`: the run takes fcntl locks itself.
    pub fcntl_locks: bool,
}

impl RunFacts {
    pub fn of(config: &RunConfig) -> RunFacts {
        RunFacts {
            force: config.force,
            keep_file: config.keep_file,
            fcntl_locks: config.lock_file || config.record_locking,
        }
    }
}

pub(super) fn check_target(
    path: &Path,
    facts: RunFacts,
    run: Option<&RunConfig>,
) -> Result<TargetFile, RunError> {
    if let Some(run) = run {
        check_destroy_ids(run)?;
    }
    if path.as_os_str().as_bytes().ends_with(b"/") {
        return Err(RunError::Refused(format!(
            "the test file {} ends in a slash: name a file, not a directory",
            path.display()
        )));
    }
    if let Some(run) = run.filter(|r| r.variations.existing_file) {
        return existing_read_only(path, run, facts);
    }
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound && in_device_dir(path) => {
            return Err(RunError::Refused(format!(
                "{} does not exist, and ioz creates no files in /dev \
                 (is the device name right?)",
                path.display()
            )));
        }
        // Missing, or below something that is not a directory: to create.
        Err(e)
            if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            check_creatable(path)?;
            return Ok(TargetFile::new(path, Role::ToCreate, facts));
        }
        Err(e) => {
            return Err(RunError::Refused(format!(
                "cannot check the test file {}: {e}",
                path.display()
            )));
        }
        Ok(m) => m,
    };
    let kind = meta.file_type();
    // A block device is often given by a link (/dev/disk/by-id/…): followed.
    if DeviceKind::of(path) == Some(DeviceKind::Block) {
        check_device(path, run)?;
        return Ok(TargetFile::new(path, Role::Device, facts));
    }
    // Not followed here: a link to a character device is refused below as
    // not a regular file, like any other link.
    if kind.is_char_device() {
        return Err(RunError::Refused(format!(
            "{} is a character device; ioz tests regular files and block devices",
            path.display()
        )));
    }
    if !kind.is_file() {
        return Err(RunError::Refused(format!(
            "{} exists and is not a regular file",
            path.display()
        )));
    }
    let refusal = "refusing to overwrite it (choose another -f, or add --force \
                   to let ioz overwrite and delete it)";
    if !facts.force {
        match mark_of_path(path, &meta) {
            Mark::Trusted => {}
            Mark::Absent => {
                return Err(RunError::Refused(format!(
                    "{} exists and was not created by ioz; {refusal}",
                    path.display()
                )));
            }
            Mark::Untrusted(why) => {
                return Err(RunError::Refused(format!(
                    "{} carries ioz's mark but {why}; {refusal}",
                    path.display()
                )));
            }
        }
    }
    check_writable(path, facts.keep_file)?;
    check_not_held(path, false, LockKind::Exclusive)?;
    Ok(TargetFile::new(
        path,
        Role::Existing {
            forced: facts.force,
        },
        facts,
    ))
}

/// `-+E`: an existing regular file that ioz only reads: never created,
/// written, truncated or removed. It must hold what the test reads.
fn existing_read_only(
    path: &Path,
    run: &RunConfig,
    facts: RunFacts,
) -> Result<TargetFile, RunError> {
    let len = match fs::metadata(path) {
        Ok(m) if m.is_file() => m.len(),
        Ok(_) => {
            return Err(RunError::Refused(format!(
                "-+E: {} is not a regular file",
                path.display()
            )));
        }
        Err(e) => {
            return Err(RunError::Refused(format!(
                "-+E: cannot use {}: {e}",
                path.display()
            )));
        }
    };
    let needed = bytes_read(run, path);
    if len < needed {
        return Err(RunError::Refused(format!(
            "-+E: {} holds {len} bytes but the test reads {needed}; \
             give a smaller -s, or a file that holds them",
            path.display()
        )));
    }
    check_not_held(path, true, LockKind::Shared)?;
    Ok(TargetFile::new(path, Role::ReadOnly, facts))
}

/// The most bytes a reading pass of `run` reads from the file at `path`:
/// whole records of the largest file, or with telemetry anywhere up to the
/// file size (as the runner's untimed fill sees it).
fn bytes_read(run: &RunConfig, path: &Path) -> u64 {
    let reads = |cell: Cell| {
        if run.telemetry.is_some() {
            cell.file_bytes
        } else {
            cell.pass_bytes()
        }
    };
    match (&run.throughput, &run.sizes) {
        (
            Some(tp),
            Sizes::Single {
                file_bytes,
                record_bytes,
            },
        ) if *record_bytes > 0 => tp
            .counts()
            .filter(|&(n, _)| (0..n).any(|i| tp.worker_path(&run.path, i) == path))
            .map(|(_, job)| {
                reads(Cell {
                    file_bytes: tp.worker_file_bytes(*file_bytes, *record_bytes, job),
                    record_bytes: *record_bytes,
                })
            })
            .max()
            .unwrap_or(0),
        _ => expand(run).cells.into_iter().map(reads).max().unwrap_or(0),
    }
}

/// The directory of `path` (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether `path` names an entry of /dev itself (or of its device-link
/// directories), where a missing name is a mistyped device, not a new file.
fn in_device_dir(path: &Path) -> bool {
    fs::canonicalize(parent_of(path)).is_ok_and(|dir| {
        dir == Path::new("/dev") || dir == Path::new("/dev/mapper") || dir.starts_with("/dev/disk")
    })
}

/// A file ioz will create: its directory exists, and ioz may create (and
/// later remove) files in it. An immutable directory and a read-only mount
/// are found here, not after the header.
fn check_creatable(path: &Path) -> Result<(), RunError> {
    let dir = parent_of(path);
    let refuse = |why: String| {
        RunError::Refused(format!(
            "cannot create the test file {}: {why}",
            path.display()
        ))
    };
    match fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(refuse(format!(
                "the directory {} does not exist",
                dir.display()
            )));
        }
        Err(e) => return Err(refuse(format!("{}: {e}", dir.display()))),
        Ok(m) if !m.is_dir() => {
            return Err(refuse(format!("{} is not a directory", dir.display())));
        }
        Ok(_) => {}
    }
    check_writable_dir(dir)
        .map_err(|why| refuse(format!("cannot write in {}: {why}", dir.display())))
}

/// An existing file ioz will write: it may be written, and unless `-w`
/// keeps it, removed from its directory at the end.
fn check_writable(path: &Path, keep_file: bool) -> Result<(), RunError> {
    // With the effective user's rights, as the run's opens: a read-only
    // mount and an immutable file are refused even to root.
    eaccess(path, AccessFlags::W_OK).map_err(|e| {
        let why = match e {
            Errno::EROFS => "it is on a read-only file system".to_string(),
            e => e.desc().to_lowercase(),
        };
        RunError::Refused(format!(
            "cannot write the test file {}: {why}",
            path.display()
        ))
    })?;
    if keep_file {
        return Ok(());
    }
    let dir = parent_of(path);
    check_writable_dir(dir).map_err(|why| {
        RunError::Refused(format!(
            "cannot remove the test file {} after the run: cannot write in {}: {why} \
             (add -w to keep the file)",
            path.display(),
            dir.display()
        ))
    })
}

/// Refuses a file another run holds (its lock is taken, and let go, here:
/// the run takes it for good when it claims the file).
fn check_not_held(path: &Path, follow_links: bool, kind: LockKind) -> Result<(), RunError> {
    // Without waiting: a FIFO slipped in since the check must not hang it.
    let Ok(fd) = open_without_waiting(path, follow_links) else {
        // What cannot be opened cannot be locked: the run's own open says why.
        return Ok(());
    };
    let Ok(stat) = stat_of(&fd) else {
        return Ok(());
    };
    try_lock(fd.as_fd(), &stat, kind).map(drop).map_err(|busy| {
        let Busy { holder } = &busy;
        let whose = if holder.is_some() {
            format!("in use by another run: {busy}")
        } else {
            format!("in use: {busy}")
        };
        RunError::Refused(format!(
            "{} is {whose}; refusing to share it",
            path.display()
        ))
    })
}
