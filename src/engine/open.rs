//! Opening the test file for a pass, and making sure it is still the file
//! ioz created or accepted before anything is written or truncated.
//!
//! A path is looked up again at every open, and between two passes anyone
//! who can write the directory may have put another file, or a symbolic
//! link, in its place. So the open never truncates (no O_TRUNC): the
//! descriptor is checked first (its type, device and inode, or a block
//! device's number, against the recorded ones), and only then truncated
//! with ftruncate. ioz's own files are opened with O_NOFOLLOW (a link in their
//! place is a change, whatever it points to) and O_NONBLOCK (a FIFO in
//! their place must not hang the open), which is cleared once checked.
//!
//! An empty file is not truncated: there is nothing to cut, and on ext4 a
//! truncate to zero arms `auto_da_alloc`, so the pass's close would start
//! writing the file back, inside the timing with `-c` (1–3 ms against
//! IOzone's 0.02 ms for a 4 MiB file). The write test's file is empty when
//! ioz has just made it, as IOzone's is after `creat` of a new file.
//!
//! The access mode is the test's, as IOzone opens it
//! (../shared/IOZONE-SEMANTICS.md §2): read-only or read-write, with
//! [`OpenSpec::read_write`] for IOzone's random read, which opens its file
//! read-write. O_CREAT is never given here: the file exists by then (ioz
//! made it, O_CREAT|O_EXCL, when it claimed it), the kernel keeps no trace
//! of O_CREAT in an open file, and a file someone removed must stop the run
//! with "No such file", not be made again empty.
//!
//! The check asks for the file's type, mode, inode and size and nothing
//! else ([`stat_untimed`]): a stat that returns a file's ctime or mtime
//! marks them as seen, and with multigrain timestamps (Linux 6.13+: ext4,
//! xfs, btrfs, tmpfs) the next change of the file then takes a fine-grained
//! time, so the pass's first write dirties the inode (a journal update) and
//! its first read after a write updates the atime: about 1 µs inside the
//! pass's clock, half of a 64 KiB pass (benches/parity.rs). IOzone stats
//! nothing between its passes.

use std::fs;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use nix::fcntl::{self, FcntlArg, OFlag};
use nix::sys::stat::{Mode, fstat};
use nix::unistd::ftruncate;

use crate::model::identity::{Changed, Expected, FileIdentity, Found};

/// How a pass opens the test file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenSpec {
    /// The pass writes: opened read-write (and mapped writable, streamed
    /// "r+", synced as a writer).
    pub writable: bool,
    /// Opened read-write although the pass only reads: IOzone's random read
    /// (single and auto mode) opens its file that way.
    pub read_write: bool,
    pub create: bool,
    pub truncate: bool,
    /// O_SYNC, O_DSYNC, O_DIRECT … as the run's options ask.
    pub extra_flags: libc::c_int,
    /// Bytes per record (the vectored engine splits calls into records).
    pub record_bytes: usize,
    /// Bytes of the file the pass covers (mmap maps this much).
    pub file_bytes: u64,
    /// Operations in flight for queued engines (aio, io_uring); 1 otherwise.
    pub depth: u32,
    /// `-D`/`-G`: msync after each record of an mmap'd file.
    pub msync: crate::model::variations::MsyncMode,
    /// `-+A`: madvise advice for mmap'd files.
    pub madvise: Option<u32>,
    /// `-k`: POSIX AIO without copying.
    pub aio_no_copy: bool,
    /// The test file the path must still lead to (recorded when ioz created
    /// or accepted it): checked on the opened descriptor before anything is
    /// written or truncated. `None` only for files of no run (unit tests).
    pub expect: Option<Expected>,
}

impl OpenSpec {
    /// The same open, checked against `expect`.
    pub fn expecting(self, expect: Option<Expected>) -> OpenSpec {
        OpenSpec { expect, ..self }
    }
}

/// Mode of files ioz creates (IOzone uses 0640).
const CREATE_MODE: Mode = Mode::from_bits_truncate(0o640);

/// Opens `path` as `spec` says and returns the raw descriptor. With
/// `spec.expect`, a path that no longer leads to that file is an error
/// carrying [`Changed`], and nothing was written or truncated.
pub fn open_fd(path: &Path, spec: &OpenSpec) -> io::Result<RawFd> {
    let mut flags = if spec.writable || spec.read_write {
        OFlag::O_RDWR
    } else {
        OFlag::O_RDONLY
    } | OFlag::O_CLOEXEC
        | OFlag::from_bits_retain(spec.extra_flags);
    if spec.create {
        flags |= OFlag::O_CREAT;
    }
    if let Some(expect) = spec.expect {
        flags |= OFlag::O_NONBLOCK;
        if !expect.follow_links {
            flags |= OFlag::O_NOFOLLOW;
        }
    }
    let fd = fcntl::open(path, flags, CREATE_MODE).map_err(|errno| {
        let e = io::Error::from(errno);
        match spec.expect {
            Some(expect) => what_is_there(path, expect).map_or(e, Changed::into_io_error),
            None => e,
        }
    })?;
    // From here on an early return closes the descriptor.
    let stat = stat_untimed(fd.as_fd())?;
    if let Some(expect) = spec.expect {
        let found = FileIdentity::from_stat(stat.mode, stat.dev, stat.ino, stat.rdev);
        if found != Ok(expect.identity) {
            return Err(Changed {
                expected: expect.identity,
                found: found.map_or_else(|other| other, Found::Identity),
            }
            .into_io_error());
        }
        clear_nonblock(&fd)?;
    }
    // Only now that the file is known to be the right one; a device is
    // never truncated (O_TRUNC never applied to one either), nor is an
    // empty file (see the module: ext4's auto_da_alloc).
    if spec.truncate && stat.mode & libc::S_IFMT == libc::S_IFREG && stat.size > 0 {
        ftruncate(&fd, 0)?;
    }
    Ok(fd.into_raw_fd())
}

/// What a pass asks of its open file: no timestamps (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UntimedStat {
    /// Type and permissions (`st_mode`).
    pub mode: u32,
    pub dev: u64,
    pub ino: u64,
    /// A device's number.
    pub rdev: u64,
    pub size: u64,
}

/// The type, mode, identity and size of the file open on `fd`, without
/// asking for its timestamps (statx with only those fields; fstat where
/// the kernel has no statx).
pub fn stat_untimed(fd: BorrowedFd<'_>) -> io::Result<UntimedStat> {
    const ASKED: u32 = libc::STATX_TYPE | libc::STATX_MODE | libc::STATX_INO | libc::STATX_SIZE;
    // SAFETY: libc::statx is plain integers, so all-zero bytes are a valid
    // value; statx reads the empty NUL-terminated path and writes at most one
    // struct statx through the pointer, which is live.
    let (r, st) = unsafe {
        let mut st: libc::statx = std::mem::zeroed();
        let r = libc::statx(
            fd.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            ASKED,
            &mut st,
        );
        (r, st)
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ENOSYS) {
            return Err(e);
        }
        let st = fstat(fd)?;
        return Ok(UntimedStat {
            mode: st.st_mode,
            dev: st.st_dev,
            ino: st.st_ino,
            rdev: st.st_rdev,
            size: st.st_size.max(0) as u64,
        });
    }
    Ok(UntimedStat {
        mode: u32::from(st.stx_mode),
        dev: libc::makedev(st.stx_dev_major, st.stx_dev_minor),
        ino: st.stx_ino,
        rdev: libc::makedev(st.stx_rdev_major, st.stx_rdev_minor),
        size: st.stx_size,
    })
}

/// The descriptor back to blocking I/O, as an open without O_NONBLOCK gives.
fn clear_nonblock(fd: &OwnedFd) -> io::Result<()> {
    let flags = OFlag::from_bits_retain(fcntl::fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl::fcntl(fd, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
    Ok(())
}

/// After a failed open: what the path leads to when that is not the
/// expected file (a link refused by O_NOFOLLOW, a directory, a socket…);
/// `None` when it is gone or is the expected file after all, so that the
/// open's own error tells what happened.
fn what_is_there(path: &Path, expect: Expected) -> Option<Changed> {
    let meta = if expect.follow_links {
        fs::metadata(path)
    } else {
        fs::symlink_metadata(path)
    }
    .ok()?;
    let found = FileIdentity::from_stat(meta.mode(), meta.dev(), meta.ino(), meta.rdev());
    (found != Ok(expect.identity)).then(|| Changed {
        expected: expect.identity,
        found: found.map_or_else(|other| other, Found::Identity),
    })
}

#[cfg(test)]
mod tests {
    use std::os::fd::FromRawFd;

    use super::*;
    use crate::model::variations::MsyncMode;

    fn spec(writable: bool, truncate: bool, expect: Option<Expected>) -> OpenSpec {
        OpenSpec {
            writable,
            read_write: false,
            create: false,
            truncate,
            extra_flags: 0,
            record_bytes: 4096,
            file_bytes: 4096,
            depth: 1,
            msync: MsyncMode::None,
            madvise: None,
            aio_no_copy: false,
            expect,
        }
    }

    fn identity_of(path: &Path) -> Expected {
        let m = fs::symlink_metadata(path).unwrap();
        Expected {
            identity: FileIdentity::File {
                dev: m.dev(),
                ino: m.ino(),
            },
            follow_links: false,
        }
    }

    fn close(fd: RawFd) {
        // SAFETY: the descriptor was returned by open_fd and is ours.
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
    }

    #[test]
    fn the_untimed_stat_is_fstat_s_type_identity_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tmp");
        fs::write(&path, b"abc").unwrap();
        let file = fs::File::open(&path).unwrap();
        let full = fstat(&file).unwrap();
        assert_eq!(
            stat_untimed(file.as_fd()).unwrap(),
            UntimedStat {
                mode: full.st_mode,
                dev: full.st_dev,
                ino: full.st_ino,
                rdev: full.st_rdev,
                size: 3,
            }
        );
    }

    #[test]
    fn the_expected_file_is_opened_and_truncated_after_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tmp");
        fs::write(&path, b"old data").unwrap();
        let expect = identity_of(&path);
        close(open_fd(&path, &spec(true, true, Some(expect))).unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"");
        // The descriptor is blocking again once checked.
        let fd = open_fd(&path, &spec(false, false, Some(expect))).unwrap();
        // SAFETY: plain fcntl on our descriptor.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        assert_eq!(flags & libc::O_NONBLOCK, 0);
        close(fd);
    }

    #[test]
    fn a_replaced_file_is_neither_truncated_nor_opened() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tmp");
        fs::write(&path, b"ioz").unwrap();
        let expect = identity_of(&path);
        // Someone else's file in its place.
        let other = dir.path().join("other");
        fs::write(&other, b"precious").unwrap();
        fs::rename(&other, &path).unwrap();
        let e = open_fd(&path, &spec(true, true, Some(expect))).unwrap_err();
        let changed = Changed::in_io_error(&e).expect("a Changed error");
        assert!(matches!(changed.found, Found::Identity(_)), "{changed}");
        assert_eq!(fs::read(&path).unwrap(), b"precious");
        // A symbolic link in its place, to a file of someone else's.
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let e = open_fd(&path, &spec(true, true, Some(expect))).unwrap_err();
        assert_eq!(
            Changed::in_io_error(&e).map(|c| c.found),
            Some(Found::Symlink),
            "{e}"
        );
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        // A FIFO: the open does not hang, and the FIFO is reported.
        fs::remove_file(&path).unwrap();
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let e = open_fd(&path, &spec(false, false, Some(expect))).unwrap_err();
        assert_eq!(
            Changed::in_io_error(&e).map(|c| c.found),
            Some(Found::Other("a FIFO")),
            "{e}"
        );
        // Gone: the open's own error.
        fs::remove_file(&path).unwrap();
        let e = open_fd(&path, &spec(true, false, Some(expect))).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
