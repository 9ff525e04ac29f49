//! A path opened as a bare descriptor, for what safety/ does with a file
//! before and around a run (take its lock, read its identity and its mark),
//! and the descriptor's fstat. Each open says what it is for, so that its
//! flags are chosen once: none waits (O_NONBLOCK: a FIFO slipped in opens
//! at once instead of waiting for a writer), none leaks into a child
//! (O_CLOEXEC), and none writes.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use nix::fcntl::{OFlag, open};
use nix::sys::stat::{Mode, fstat};

/// The file at `path` opened read-only without waiting on it; through a
/// final symbolic link only with `follow_links` (else such a link is
/// ELOOP).
pub fn open_without_waiting(path: &Path, follow_links: bool) -> io::Result<OwnedFd> {
    let mut flags = OFlag::O_RDONLY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    if !follow_links {
        flags |= OFlag::O_NOFOLLOW;
    }
    Ok(open(path, flags, Mode::empty())?)
}

/// A new file at `path`, of mode `mode` (less the umask): never over an
/// existing one (EEXIST), never through a link. Read-only: the descriptor
/// holds a lock and a mark, and one open for writing would keep its file
/// system from being remounted read-only.
pub fn create_new(path: &Path, mode: u32) -> io::Result<OwnedFd> {
    let flags =
        OFlag::O_RDONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    Ok(open(path, flags, Mode::from_bits_truncate(mode))?)
}

/// The block device at `path` with O_EXCL: the kernel's exclusive claim,
/// which every node of the device shares and which keeps it from being
/// mounted while the descriptor is open (EBUSY when another has it).
pub fn open_device_exclusive(path: &Path) -> io::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_EXCL | OFlag::O_CLOEXEC;
    Ok(open(path, flags, Mode::empty())?)
}

/// What the open file `fd` is (type, identity, owner, mode), from the
/// descriptor rather than a path that may since lead elsewhere.
pub fn stat_of(fd: impl AsFd) -> io::Result<libc::stat> {
    Ok(fstat(fd)?)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;

    #[test]
    fn a_fifo_opens_at_once_and_a_link_only_when_followed() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p");
        nix::unistd::mkfifo(&fifo, Mode::S_IRWXU).unwrap();
        // Without O_NONBLOCK this would wait for a writer for ever.
        let fd = open_without_waiting(&fifo, false).unwrap();
        assert_eq!(stat_of(&fd).unwrap().st_mode & libc::S_IFMT, libc::S_IFIFO);
        let link = dir.path().join("l");
        std::os::unix::fs::symlink("p", &link).unwrap();
        let e = open_without_waiting(&link, false).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
        assert!(open_without_waiting(&link, true).is_ok());
    }

    #[test]
    fn a_new_file_is_made_once_with_its_mode_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let fd = create_new(&path, 0o640).unwrap();
        let stat = stat_of(&fd).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!((stat.st_dev, stat.st_ino), (meta.dev(), meta.ino()));
        // The umask may only take bits away.
        assert_eq!(stat.st_mode & 0o7777 & !0o640, 0);
        let again = create_new(&path, 0o640).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        let link = dir.path().join("l");
        std::os::unix::fs::symlink("elsewhere", &link).unwrap();
        assert_eq!(
            create_new(&link, 0o640).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert!(!dir.path().join("elsewhere").exists());
    }

    #[test]
    fn a_device_s_claim_leaves_other_nodes_alone() {
        // O_EXCL without O_CREAT claims block devices only (the e2e tests
        // claim loop devices): a character device opens as often as asked.
        let first = open_device_exclusive(Path::new("/dev/null")).unwrap();
        let second = open_device_exclusive(Path::new("/dev/null")).unwrap();
        assert_eq!(
            stat_of(&first).unwrap().st_mode & libc::S_IFMT,
            libc::S_IFCHR
        );
        assert_eq!(
            stat_of(&second).unwrap().st_rdev,
            stat_of(&first).unwrap().st_rdev
        );
    }
}
