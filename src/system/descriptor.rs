//! A path opened as a bare descriptor, for what safety/ does with a file
//! before and around a run (take its lock, read its identity and its mark),
//! and the descriptor's stat (never its timestamps). Each open says what it is for, so that its
//! flags are chosen once: none waits (O_NONBLOCK: a FIFO slipped in opens
//! at once instead of waiting for a writer), none leaks into a child
//! (O_CLOEXEC), and none writes.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use nix::fcntl::{OFlag, open};
use nix::sys::stat::Mode;

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

/// What the open file `fd` is (type, identity, owner, mode, size), from
/// the descriptor rather than a path that may since lead elsewhere; its
/// timestamps are not asked and read 0 (see [`stat_untimed`]).
pub fn stat_of(fd: impl AsFd) -> io::Result<libc::stat> {
    stat_untimed(fd.as_fd().as_raw_fd(), c"", libc::AT_EMPTY_PATH)
}

/// What `path` leads to (through a final link), as [`stat_of`] says it.
pub fn stat_at(path: &Path) -> io::Result<libc::stat> {
    let path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    stat_untimed(libc::AT_FDCWD, &path, 0)
}

/// A `stat` of everything but the timestamps (statx without them; fstatat
/// where the kernel has no statx), whose times read 0. A stat that returns
/// a file's ctime or mtime marks them as seen, and with multigrain
/// timestamps (Linux 6.13+: ext4, xfs, btrfs, tmpfs) the file's next change
/// then takes a fine-grained time: a pass's first write dirties the inode
/// (a journal update), a read pass's first read after a write updates the
/// atime, each about 1 µs inside the pass's clock, half of a 64 KiB pass
/// (benches/parity.rs). IOzone asks nothing of its file between passes.
fn stat_untimed(dirfd: RawFd, path: &CStr, flags: libc::c_int) -> io::Result<libc::stat> {
    const ASKED: u32 = libc::STATX_TYPE
        | libc::STATX_MODE
        | libc::STATX_NLINK
        | libc::STATX_UID
        | libc::STATX_GID
        | libc::STATX_INO
        | libc::STATX_SIZE
        | libc::STATX_BLOCKS;
    // SAFETY: libc::statx and libc::stat are plain integers, so all-zero
    // bytes are valid values; both calls read the NUL-terminated path, which
    // outlives them, and write at most one struct through a live pointer.
    unsafe {
        let mut x: libc::statx = std::mem::zeroed();
        let mut st: libc::stat = std::mem::zeroed();
        if libc::statx(dirfd, path.as_ptr(), flags, ASKED, &mut x) < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::ENOSYS) {
                return Err(e);
            }
            if libc::fstatat(dirfd, path.as_ptr(), &mut st, flags) < 0 {
                return Err(io::Error::last_os_error());
            }
            return Ok(st);
        }
        st.st_mode = x.stx_mode as _;
        st.st_nlink = x.stx_nlink as _;
        st.st_uid = x.stx_uid;
        st.st_gid = x.stx_gid;
        st.st_ino = x.stx_ino as _;
        st.st_size = x.stx_size as _;
        st.st_blocks = x.stx_blocks as _;
        st.st_blksize = x.stx_blksize as _;
        st.st_dev = libc::makedev(x.stx_dev_major, x.stx_dev_minor);
        st.st_rdev = libc::makedev(x.stx_rdev_major, x.stx_rdev_minor);
        Ok(st)
    }
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
    fn a_stat_gives_what_fstat_gives_but_never_asks_the_timestamps() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, b"12345").unwrap();
        let fd = open_without_waiting(&path, false).unwrap();
        let full = nix::sys::stat::fstat(&fd).unwrap();
        for stat in [stat_of(&fd).unwrap(), stat_at(&path).unwrap()] {
            let fields = |s: &libc::stat| {
                (
                    s.st_dev, s.st_ino, s.st_mode, s.st_nlink, s.st_uid, s.st_size,
                )
            };
            assert_eq!(fields(&stat), fields(&full));
            assert_eq!(stat.st_size, 5);
            // Asking a time marks it as seen: the next pass would pay for it.
            assert_ne!(full.st_mtime, 0);
            assert_eq!((stat.st_atime, stat.st_mtime, stat.st_ctime), (0, 0, 0));
        }
        assert_eq!(
            stat_at(&dir.path().join("gone")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
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
