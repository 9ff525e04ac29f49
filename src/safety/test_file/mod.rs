//! ioz never truncates, overwrites or deletes a file it did not create, and
//! never writes to a block device that holds data or is in use.
//!
//! Files ioz creates carry an extended attribute naming ioz as their owner, so
//! a later run (after `-w`, or after a crash) recognises them; the mark
//! counts only on a file of the running user's that no one else may write
//! (safety/ownership.rs). On a file system without user xattrs the file is
//! still ioz's for the run that created it.
//!
//! Everything is checked before the run (check.rs, device.rs). Then, when
//! the run first needs the file, ioz creates it (O_CREAT|O_EXCL) or takes
//! the existing one, records its identity (device and inode; a block
//! device's number) from the descriptor, and locks it for the whole run
//! (safety/lock.rs). Every later open checks the descriptor against that
//! identity before anything is written or truncated (engine/open.rs), and
//! the removal at the end unlinks the path only while it still leads there:
//! a file put in its place is never written, truncated or removed.
//!
//! A block device is usable when it is blank: no partition table, file system,
//! LVM, RAID, LUKS or swap signature, and no partitions. One that holds any of
//! these is refused unless `--destroy-data` names that very device (by WWN,
//! serial or /dev/disk/by-id name; by path only when it has none of those). A
//! device that is mounted, active swap or held by another device (or has a
//! partition that is) is always refused. Devices are never created, truncated
//! or removed, and a run that would write past a device's end is refused.

use std::fs;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::{IoFailure, RunError};
use crate::model::config::RunConfig;
use crate::model::identity::{Changed, Expected, FileIdentity, Found};
use crate::safety::lock::{LockKind, device_holder, on_nfs, try_lock};
use crate::safety::ownership::{Mark, mark_of_fd, set_mark};
use crate::system::descriptor::{create_new, open_device_exclusive, open_without_waiting, stat_of};
use crate::system::signals;
use check::{RunFacts, check_target};

mod check;
mod device;
#[cfg(test)]
mod tests;

/// What a test target is to ioz.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Not there: ioz creates it, and removes it at the end.
    ToCreate,
    /// There already and ioz's own (its trusted mark, or `--force`): used in
    /// place, removed at the end.
    Existing { forced: bool },
    /// `-+E`: someone else's existing file, only ever read.
    ReadOnly,
    /// A block device: used in place, never created, truncated or removed.
    Device,
}

/// The test file (or block device) and what ioz may do to it.
#[derive(Debug)]
pub struct TargetFile {
    path: PathBuf,
    role: Role,
    facts: RunFacts,
    /// ioz created it or was allowed (--force) to treat it as its own, and
    /// nothing (-U) made the path lead elsewhere: it may be removed.
    owned: bool,
    /// From the moment ioz created or accepted it: what it is, and the lock.
    held: Option<Held>,
}

#[derive(Debug)]
struct Held {
    expected: Expected,
    /// The descriptor holding the run's lock (and a device's exclusive
    /// claim); none while -U has the file system unmounted.
    lock: Option<OwnedFd>,
}

/// Why a test file was not removed.
#[derive(Debug)]
pub enum RemoveError {
    /// The path leads elsewhere now: nothing was removed, and the run fails.
    Changed(IoFailure),
    /// ioz's file could not be removed (a read-only file system, EIO): it
    /// is left behind.
    Left(IoFailure),
}

impl TargetFile {
    /// Checks the path before anything is written: an existing file must be
    /// ioz's own, or `force` must be given; a block device must be blank and
    /// unused (see the module), with no `--destroy-data` to name it.
    #[cfg(test)]
    pub fn check(path: &Path, force: bool) -> Result<TargetFile, RunError> {
        let facts = RunFacts {
            force,
            ..RunFacts::default()
        };
        check_target(path, facts, None)
    }

    /// [`TargetFile::check`] for a target of `config`'s run: its `--force`,
    /// `-w`, `--destroy-data`, `-+E`, locks and the bytes it writes to each
    /// device.
    pub fn check_for_run(path: &Path, config: &RunConfig) -> Result<TargetFile, RunError> {
        check_target(path, RunFacts::of(config), Some(config))
    }

    fn new(path: &Path, role: Role, facts: RunFacts) -> TargetFile {
        TargetFile {
            path: path.to_path_buf(),
            role,
            facts,
            owned: matches!(role, Role::Existing { .. }),
            held: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What every open of the file must find, once ioz has claimed it.
    pub fn expected(&self) -> Option<Expected> {
        self.held.as_ref().map(|h| h.expected)
    }

    /// Whether `path` leads to this file, claimed (another name of it).
    pub fn is_reached_by(&self, path: &Path) -> bool {
        self.held.as_ref().is_some_and(|h| {
            identity_at(path, h.expected.follow_links).is_ok_and(|id| id == Ok(h.expected.identity))
        })
    }

    /// Before the file's first use in the run: creates it if it is missing
    /// (marked as ioz's), or takes the existing one; records its identity
    /// and locks it for the run. Nothing is written. Done once; again after
    /// [`TargetFile::remove`].
    pub fn claim(&mut self) -> Result<(), IoFailure> {
        if self.held.is_some() {
            return Ok(());
        }
        let fd = match self.role {
            Role::Device => self.open_device()?,
            Role::ReadOnly => self.open_existing(true)?,
            Role::Existing { forced } => {
                let fd = self.open_existing(false)?;
                if !forced {
                    self.check_mark(&fd)?;
                }
                fd
            }
            Role::ToCreate => {
                let fd = self.create()?;
                self.owned = true;
                fd
            }
        };
        let stat = stat_of(&fd).map_err(|e| self.failure("stat", e))?;
        let identity =
            FileIdentity::from_stat(stat.st_mode, stat.st_dev, stat.st_ino, stat.st_rdev);
        let identity = match (identity, self.role) {
            (Ok(id @ FileIdentity::Device { .. }), Role::Device) => id,
            (Ok(id @ FileIdentity::File { .. }), role) if role != Role::Device => id,
            (found, _) => {
                let found = found.map_or_else(|other| other, Found::Identity);
                return Err(self.failure(
                    "open",
                    io::Error::other(format!(
                        "it changed since it was checked: it is now {found}"
                    )),
                ));
            }
        };
        self.lock(&fd, &stat)?;
        // A second Ctrl-C may now unlink it, but only while it is this file.
        if let (true, FileIdentity::File { dev, ino }) = (self.owned, identity) {
            signals::remember_identity(&self.path, Some((dev, ino)));
        }
        self.held = Some(Held {
            expected: Expected {
                identity,
                follow_links: matches!(self.role, Role::Device | Role::ReadOnly),
            },
            lock: Some(fd),
        });
        Ok(())
    }

    /// Lets go of the lock's descriptor, which would keep the file system
    /// busy, before -U unmounts it; the identity stays recorded.
    pub fn release_for_unmount(&mut self) {
        if let Some(held) = &mut self.held {
            held.lock = None;
        }
    }

    /// After -U mounted the file system back: the file is opened again,
    /// checked against its identity and locked again.
    pub fn reclaim_after_mount(&mut self) -> Result<(), IoFailure> {
        let Some(expected) = self
            .held
            .as_ref()
            .filter(|h| h.lock.is_none())
            .map(|h| h.expected)
        else {
            return Ok(());
        };
        let fd = self.open_existing(expected.follow_links)?;
        let stat = stat_of(&fd).map_err(|e| self.failure("stat", e))?;
        let found = FileIdentity::from_stat(stat.st_mode, stat.st_dev, stat.st_ino, stat.st_rdev);
        if found != Ok(expected.identity) {
            let changed = Changed {
                expected: expected.identity,
                found: found.map_or_else(|other| other, Found::Identity),
            };
            return Err(self.failure("reopen", changed.into_io_error()));
        }
        self.lock(&fd, &stat)?;
        if let Some(held) = &mut self.held {
            held.lock = Some(fd);
        }
        Ok(())
    }

    /// Cluster mode, -+V/-+L: the job's one file, which rank 0 created and
    /// claimed, reached by this rank through `path`. It must be that very
    /// file: `shared` is rank 0's identity of it, compared whole on rank
    /// 0's host (`same_host`) and by inode elsewhere (a shared file system
    /// gives a file the same inode number on every client, not the same
    /// device number). Never locked here (rank 0's lock holds it for the
    /// job) and never removed by this rank.
    pub fn join(
        path: &Path,
        config: &RunConfig,
        shared: FileIdentity,
        same_host: bool,
    ) -> Result<TargetFile, IoFailure> {
        let mut t = TargetFile::new(path, Role::Existing { forced: false }, RunFacts::of(config));
        t.owned = false;
        let fd = t.open_existing(false).map_err(|mut e| {
            if e.source.kind() == io::ErrorKind::NotFound {
                e.operation = "share";
                e.source = io::Error::new(
                    io::ErrorKind::NotFound,
                    "it is not there: rank 0's file is elsewhere (-+V/-+L: every rank must \
                     reach the same file)",
                );
            }
            e
        })?;
        let stat = stat_of(&fd).map_err(|e| t.failure("stat", e))?;
        let found = FileIdentity::from_stat(stat.st_mode, stat.st_dev, stat.st_ino, stat.st_rdev);
        let identity = match (found, shared) {
            (Ok(id), _) if same_host && id == shared => id,
            (Ok(id @ FileIdentity::File { ino, .. }), FileIdentity::File { ino: theirs, .. })
                if !same_host && ino == theirs =>
            {
                // An inode number alone may be another file system's file
                // (a path not on the shared storage): only ioz's own mark
                // makes it rank 0's new file.
                if mark_of_fd(fd.as_fd(), &stat) != Mark::Trusted {
                    return Err(t.failure(
                        "share",
                        io::Error::other(
                            "it has the inode of rank 0's file but not ioz's mark, so it may be \
                             another file (-+V/-+L across hosts needs a shared file system that \
                             keeps user extended attributes, and the same user on every host)",
                        ),
                    ));
                }
                id
            }
            _ => {
                return Err(t.failure(
                    "share",
                    io::Error::other(
                        "it is not the file rank 0 shares (-+V/-+L: every rank must reach \
                         the same file)",
                    ),
                ));
            }
        };
        t.held = Some(Held {
            expected: Expected {
                identity,
                follow_links: false,
            },
            lock: None,
        });
        Ok(t)
    }

    /// Gives up any claim on the path (it no longer leads to ioz's file: -U
    /// could not mount its file system back), so nothing there is removed.
    pub fn disown(&mut self) {
        self.owned = false;
    }

    /// Deletes the file if ioz owns it and the path still leads to the file
    /// ioz claimed; lets go of the run's lock once it is gone. Never touches
    /// a foreign file, a file put in its place, or a device.
    pub fn remove(&mut self) -> Result<(), RemoveError> {
        // Dropped at the end of this call, after the unlink: no other run can
        // take the file between the two.
        let held = self.held.take();
        let owned = std::mem::replace(&mut self.owned, false);
        signals::remember_identity(&self.path, None);
        let Some(held) = held else {
            // Never claimed in this run: nothing of the run's is there.
            return Ok(());
        };
        if !owned || matches!(self.role, Role::Device | Role::ReadOnly) {
            return Ok(());
        }
        let expected = held.expected;
        match identity_at(&self.path, expected.follow_links) {
            Ok(Ok(id)) if id == expected.identity => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.role = Role::ToCreate;
                return Ok(());
            }
            Err(e) => return Err(RemoveError::Left(self.failure("remove", e))),
            Ok(found) => {
                let changed = Changed {
                    expected: expected.identity,
                    found: found.map_or_else(|other| other, Found::Identity),
                };
                return Err(RemoveError::Changed(
                    self.failure("remove", changed.into_io_error()),
                ));
            }
        }
        match fs::remove_file(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(RemoveError::Left(self.failure("remove", e))),
        }
        self.role = Role::ToCreate;
        drop(held);
        Ok(())
    }

    fn failure(&self, operation: &'static str, source: io::Error) -> IoFailure {
        IoFailure {
            operation,
            path: self.path.clone(),
            offset: None,
            pass: None,
            source,
        }
    }

    /// Creates the file, never over an existing one, never through a link.
    /// Read-only: the descriptor only holds the lock (and a descriptor open
    /// for writing would keep its file system from being remounted
    /// read-only).
    fn create(&self) -> Result<OwnedFd, IoFailure> {
        let fd = create_new(&self.path, CREATE_MODE).map_err(|e| {
            if e.kind() != io::ErrorKind::AlreadyExists {
                return self.failure("create", e);
            }
            // Someone made it since the check: another run, most likely.
            let by = fs::symlink_metadata(&self.path)
                .ok()
                .and_then(|m| crate::system::locks::holder(m.dev(), m.ino(), false))
                .map(|h| format!(" ({h} holds its lock)"))
                .unwrap_or_default();
            self.failure(
                "create",
                io::Error::new(
                    e.kind(),
                    format!("someone else created it after ioz checked it{by}; leaving it alone"),
                ),
            )
        })?;
        // Best effort: without xattrs the file is still ours for this run.
        let _ = set_mark(fd.as_fd());
        Ok(fd)
    }

    /// Opens the existing file for its lock (O_NONBLOCK: a FIFO slipped in
    /// must not hang the open).
    fn open_existing(&self, follow_links: bool) -> Result<OwnedFd, IoFailure> {
        open_without_waiting(&self.path, follow_links).map_err(|e| {
            if !follow_links && e.raw_os_error() == Some(libc::ELOOP) {
                let link = io::Error::other(
                    "it changed since it was checked: it is now a symbolic link; leaving it alone",
                );
                self.failure("open", link)
            } else {
                self.failure("open", e)
            }
        })
    }

    /// Opens the block device with O_EXCL: the kernel's exclusive claim,
    /// which every node of the device shares and which keeps it from being
    /// mounted while the run lasts.
    fn open_device(&self) -> Result<OwnedFd, IoFailure> {
        open_device_exclusive(&self.path).map_err(|e| {
            if e.raw_os_error() != Some(libc::EBUSY) {
                return self.failure("open", e);
            }
            let who = fs::metadata(&self.path)
                .ok()
                .and_then(|node| device_holder(node.dev(), node.ino()))
                .map_or_else(
                    || "another process has it open exclusively (or mounted it)".to_string(),
                    |h| format!("in use by another run: {h} holds its lock"),
                );
            self.failure("open", io::Error::new(e.kind(), who))
        })
    }

    /// The file's mark, checked again on the descriptor: the file opened is
    /// the one the check trusted.
    fn check_mark(&self, fd: &OwnedFd) -> Result<(), IoFailure> {
        let stat = stat_of(fd).map_err(|e| self.failure("stat", e))?;
        match mark_of_fd(fd.as_fd(), &stat) {
            Mark::Trusted => Ok(()),
            Mark::Absent => Err(self.failure(
                "open",
                io::Error::other(
                    "it changed since it was checked: it no longer carries ioz's mark; leaving it alone",
                ),
            )),
            Mark::Untrusted(why) => Err(self.failure(
                "open",
                io::Error::other(format!(
                    "it changed since it was checked: it {why}; leaving it alone"
                )),
            )),
        }
    }

    /// Takes the run's lock on `fd` (see safety/lock.rs).
    fn lock(&self, fd: &OwnedFd, stat: &libc::stat) -> Result<(), IoFailure> {
        // NFS's flock is a POSIX lock, which the run's own -W/-+l locks would
        // wait for forever.
        if self.facts.fcntl_locks && on_nfs(fd.as_fd()) {
            return Ok(());
        }
        let kind = if self.role == Role::ReadOnly {
            LockKind::Shared
        } else {
            LockKind::Exclusive
        };
        match try_lock(fd.as_fd(), stat, kind) {
            Ok(_) => Ok(()),
            // O_EXCL is a device's claim; its flock only names the run to
            // others. udev holds a shared one for a moment while it probes a
            // device: try a little longer, then go on without.
            Err(_) if self.role == Role::Device => {
                for _ in 0..DEVICE_LOCK_TRIES {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                    if try_lock(fd.as_fd(), stat, kind).is_ok() {
                        break;
                    }
                }
                Ok(())
            }
            Err(busy) => Err(self.failure(
                "lock",
                io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!("in use by another run: {busy}; refusing to share it"),
                ),
            )),
        }
    }
}

/// Checks every target of `config`'s run (each distinct file once).
pub fn check_targets(config: &RunConfig) -> Result<(), RunError> {
    config
        .run_paths()
        .iter()
        .try_for_each(|p| TargetFile::check_for_run(p, config).map(drop))
}

/// Tries of a device's flock, 10 ms apart, while udev probes it.
const DEVICE_LOCK_TRIES: u32 = 100;

/// Mode of files ioz creates (IOzone uses 0640): no one but their owner
/// may write them, which the owner mark relies on.
const CREATE_MODE: u32 = 0o640;

/// What `path` leads to (through a final link only with `follow_links`):
/// an identity, or what is there instead.
fn identity_at(path: &Path, follow_links: bool) -> io::Result<Result<FileIdentity, Found>> {
    let m = if follow_links {
        fs::metadata(path)
    } else {
        fs::symlink_metadata(path)
    }?;
    Ok(FileIdentity::from_stat(
        m.mode(),
        m.dev(),
        m.ino(),
        m.rdev(),
    ))
}
