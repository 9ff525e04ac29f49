//! A run holds a lock on each of its test files from the moment it creates
//! or accepts the file until it has removed it, so a second ioz on the same
//! file is refused (naming the process that holds it) instead of sharing
//! it silently or deleting it under the first.
//!
//! Which lock, and why:
//! - flock(2), taken with LOCK_NB on a descriptor the run keeps open. A flock
//!   belongs to the open file description: closing the other descriptors of
//!   the file (ioz opens and closes it for every pass) leaves it held, and
//!   it is independent of the fcntl record locks that `-W` and `-+l`/`-+L`
//!   take and release on the pass's own descriptor.
//! - Not POSIX fcntl locks: they belong to the process and are dropped when
//!   any descriptor of the file is closed (after every pass), and `-W`'s
//!   unlock of the whole file would release them too.
//! - Not OFD locks: they conflict with POSIX locks even within one process,
//!   so `-W` (F_SETLKW) would wait forever for ioz's own run lock.
//! - Forked throughput workers inherit the descriptor, sharing the same
//!   description: the lock stays held while any of them lives (a worker
//!   outliving a killed parent still keeps other runs away), and a worker's
//!   exit does not release it. No worker ever unlocks it.
//! - Block devices: the descriptor is opened with O_EXCL, the kernel's
//!   exclusive claim, which every node naming the device shares and which
//!   also keeps it from being mounted during the run; the flock on the
//!   node is what lets a second ioz name the first (udev also honours it:
//!   it does not probe a device while someone holds LOCK_EX).
//! - NFS emulates flock with a whole-file POSIX lock on the server, owned
//!   apart from the process's own fcntl locks: with `-W` or `-+l` the run's
//!   own record locks would then conflict with its run lock and wait
//!   forever. On NFS those runs take no run lock (the only case without).
//!   Elsewhere on NFS the lock also keeps out runs on other clients, whose
//!   process /proc/locks cannot name.
//! - A file system that cannot lock at all (ENOLCK, EOPNOTSUPP) runs
//!   without one.
//! - `-+E` (the file is only read) takes a shared lock: other `-+E` runs may
//!   read along, a run that writes the file is kept out.
//! - With `-U` the descriptor would keep the file system busy: it is closed
//!   before each unmount and the file reopened, checked and locked again
//!   after the mount.

use std::fmt;
use std::os::fd::BorrowedFd;

use crate::system::locks::{Flock, Holder, holder, try_flock};

/// NFS_SUPER_MAGIC, statfs's f_type of an NFS mount.
const NFS_SUPER_MAGIC: libc::c_long = 0x6969;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// A run that writes the file.
    Exclusive,
    /// `-+E`: a run that only reads it.
    Shared,
}

/// Another process holds a lock on the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Busy {
    /// Who, when /proc/locks says.
    pub holder: Option<Holder>,
}

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.holder {
            Some(h) => write!(f, "{h} holds its lock"),
            None => f.write_str("another process holds a lock on it"),
        }
    }
}

impl std::error::Error for Busy {}

/// Takes the run's lock on the open file `fd` (whose fstat is `stat`),
/// without waiting. `Ok(false)` when the file system cannot lock.
pub fn try_lock(fd: BorrowedFd<'_>, stat: &libc::stat, kind: LockKind) -> Result<bool, Busy> {
    match try_flock(fd, kind == LockKind::Exclusive) {
        Flock::Taken => Ok(true),
        Flock::Held => Err(Busy {
            holder: holder(stat.st_dev, stat.st_ino, false),
        }),
        Flock::Unsupported => Ok(false),
    }
}

/// Whether the open file `fd` is on NFS, where flock is a POSIX lock.
pub fn on_nfs(fd: BorrowedFd<'_>) -> bool {
    nix::sys::statfs::fstatfs(fd)
        .is_ok_and(|s| s.filesystem_type().0 as libc::c_long == NFS_SUPER_MAGIC)
}

/// The process holding an exclusive lock on the device node whose `dev`
/// and `ino` are given: another run on that device.
pub fn device_holder(dev: u64, ino: u64) -> Option<Holder> {
    holder(dev, ino, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    fn stat_of(file: &std::fs::File) -> libc::stat {
        crate::system::descriptor::stat_of(file).unwrap()
    }

    #[test]
    fn a_second_description_of_the_file_is_refused_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tmp");
        std::fs::write(&path, b"").unwrap();
        let first = std::fs::File::open(&path).unwrap();
        let stat = stat_of(&first);
        assert_eq!(
            try_lock(first.as_fd(), &stat, LockKind::Exclusive),
            Ok(true)
        );
        let second = std::fs::File::open(&path).unwrap();
        // The holder is this process, which /proc/locks lookups leave out.
        let busy = try_lock(second.as_fd(), &stat, LockKind::Shared).unwrap_err();
        assert_eq!(busy.holder, None);
        assert_eq!(busy.to_string(), "another process holds a lock on it");
        // Closing another descriptor of the file keeps the lock (unlike fcntl locks).
        drop(second);
        let third = std::fs::File::open(&path).unwrap();
        assert!(try_lock(third.as_fd(), &stat, LockKind::Shared).is_err());
        drop(first);
        assert_eq!(try_lock(third.as_fd(), &stat, LockKind::Shared), Ok(true));
        let fourth = std::fs::File::open(&path).unwrap();
        // Readers share.
        assert_eq!(try_lock(fourth.as_fd(), &stat, LockKind::Shared), Ok(true));
        assert!(!on_nfs(fourth.as_fd()));
    }
}
