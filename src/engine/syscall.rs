//! The system calls of the timed loops, never through glibc's named
//! wrappers.
//!
//! Why: glibc's `read`, `write`, `pread`, `pwrite`, `preadv`, `pwritev`,
//! `fsync`, `msync` and `close` are cancellation points. While the process
//! has one thread they go straight to the kernel; once it has had a second
//! one (the `--interval` keeper, a throughput run's worker threads, POSIX
//! AIO's helpers) — and glibc never forgets it — each wraps the call in two
//! atomic read-modify-writes of the thread's cancellation state: ~6 ns a
//! call here, 0.8 % of a cached 4 KiB read (`perf record -e cpu-clock` of
//! `ioz -s 2g -r 4k -i 1 --interval 100ms`: `__pthread_enable_asynccancel`
//! and `__pthread_disable_asynccancel`). Made without them, a pass costs the
//! same whatever the process's threads, and what IOzone's one-thread loop
//! pays. ioz never cancels a thread, so nothing is lost.
//!
//! The per-operation calls are made two ways, one per build:
//! - [`direct`] (release builds, the ones that measure): the `syscall`
//!   instruction inline in the engine (rustix's raw Linux backend), no
//!   function of the C library called or returned from. A return right
//!   after a system call is dear on this project's VM (AMD, SRSO
//!   mitigations): a bare C loop of cached 4 KiB reads takes ~780 ns with
//!   `read()` or `syscall()` and ~550 ns with the instruction inline; the
//!   engine's own call stays, so ioz keeps IOzone's one return (`read()`'s)
//!   and saves the stub's (the interval benchmark: 0.994/0.995 with this,
//!   0.971–0.999 through `syscall()`).
//! - [`stub`] (debug builds, the ones the tests run): glibc's plain
//!   `syscall()`, no cancellation point either, but a symbol the tests'
//!   fault-injection shim (tests/fixtures/flip_byte.c, LD_PRELOAD) can
//!   stand in front of to corrupt what a read returns.
//!
//! Both are compiled and tested alike (the tests below run over both).
//! Every call returns the kernel's count or its error as an `io::Error`
//! (EINTR included: the callers retry it).

use std::io;
use std::os::fd::RawFd;

#[cfg(not(debug_assertions))]
pub use direct::{pread, preadv, pwrite, pwritev, read, seek_to, write};
#[cfg(debug_assertions)]
pub use stub::{pread, preadv, pwrite, pwritev, read, seek_to, write};

/// The kernel's answer: a count, or -1 with errno set. (Every argument is
/// passed as a whole register: descriptors and flags widened to longs.)
#[inline(always)]
fn count(r: libc::c_long) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// The per-operation calls through glibc's `syscall()` (see the module).
#[cfg_attr(
    all(not(debug_assertions), not(test)),
    expect(dead_code, reason = "the tests' build")
)]
pub mod stub {
    use std::io;
    use std::os::fd::RawFd;

    use super::count;

    /// `read(2)` at the file position.
    #[inline(always)]
    pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: the kernel writes at most buf.len() bytes into buf.
        count(unsafe {
            libc::syscall(
                libc::SYS_read,
                fd as libc::c_long,
                buf.as_mut_ptr(),
                buf.len(),
            )
        })
    }

    /// `write(2)` at the file position.
    #[inline(always)]
    pub fn write(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: the kernel reads at most buf.len() bytes from buf.
        count(unsafe {
            libc::syscall(libc::SYS_write, fd as libc::c_long, buf.as_ptr(), buf.len())
        })
    }

    /// `pread(2)`.
    #[inline(always)]
    pub fn pread(fd: RawFd, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        // SAFETY: the kernel writes at most buf.len() bytes into buf.
        count(unsafe {
            libc::syscall(
                libc::SYS_pread64,
                fd as libc::c_long,
                buf.as_mut_ptr(),
                buf.len(),
                offset,
            )
        })
    }

    /// `pwrite(2)`.
    #[inline(always)]
    pub fn pwrite(fd: RawFd, buf: &[u8], offset: u64) -> io::Result<usize> {
        // SAFETY: the kernel reads at most buf.len() bytes from buf.
        count(unsafe {
            libc::syscall(
                libc::SYS_pwrite64,
                fd as libc::c_long,
                buf.as_ptr(),
                buf.len(),
                offset,
            )
        })
    }

    /// `preadv(2)` (the kernel takes the offset as two longs, low word first).
    #[inline(always)]
    pub fn preadv(fd: RawFd, bufs: &mut [io::IoSliceMut<'_>], offset: u64) -> io::Result<usize> {
        // SAFETY: IoSliceMut is ABI-compatible with struct iovec, and each
        // describes a live buffer the kernel may write.
        count(unsafe {
            libc::syscall(
                libc::SYS_preadv,
                fd as libc::c_long,
                bufs.as_mut_ptr(),
                bufs.len(),
                offset,
                0,
            )
        })
    }

    /// `pwritev(2)`.
    #[inline(always)]
    pub fn pwritev(fd: RawFd, bufs: &[io::IoSlice<'_>], offset: u64) -> io::Result<usize> {
        // SAFETY: IoSlice is ABI-compatible with struct iovec, and each
        // describes a live buffer the kernel reads.
        count(unsafe {
            libc::syscall(
                libc::SYS_pwritev,
                fd as libc::c_long,
                bufs.as_ptr(),
                bufs.len(),
                offset,
                0,
            )
        })
    }

    /// `lseek(2)` to `offset` from the start.
    #[inline(always)]
    pub fn seek_to(fd: RawFd, offset: u64) -> io::Result<()> {
        // SAFETY: plain system call on a descriptor number.
        count(unsafe {
            libc::syscall(
                libc::SYS_lseek,
                fd as libc::c_long,
                offset,
                libc::SEEK_SET as libc::c_long,
            )
        })
        .map(drop)
    }
}

/// The per-operation calls as the `syscall` instruction inline (see the
/// module).
#[cfg_attr(
    all(debug_assertions, not(test)),
    expect(dead_code, reason = "the measuring build")
)]
pub mod direct {
    use std::io;
    use std::os::fd::{BorrowedFd, RawFd};

    use rustix::io::Errno;

    /// The descriptor for one call.
    #[inline(always)]
    fn fd(raw: RawFd) -> BorrowedFd<'static> {
        // SAFETY: every caller passes a descriptor it holds open for the
        // call (an engine's own); the borrow does not outlive the call.
        unsafe { BorrowedFd::borrow_raw(raw) }
    }

    #[inline(always)]
    fn os(e: Errno) -> io::Error {
        io::Error::from_raw_os_error(e.raw_os_error())
    }

    /// `read(2)` at the file position.
    #[inline(always)]
    pub fn read(raw: RawFd, buf: &mut [u8]) -> io::Result<usize> {
        rustix::io::read(fd(raw), buf).map_err(os)
    }

    /// `write(2)` at the file position.
    #[inline(always)]
    pub fn write(raw: RawFd, buf: &[u8]) -> io::Result<usize> {
        rustix::io::write(fd(raw), buf).map_err(os)
    }

    /// `pread(2)`.
    #[inline(always)]
    pub fn pread(raw: RawFd, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        rustix::io::pread(fd(raw), buf, offset).map_err(os)
    }

    /// `pwrite(2)`.
    #[inline(always)]
    pub fn pwrite(raw: RawFd, buf: &[u8], offset: u64) -> io::Result<usize> {
        rustix::io::pwrite(fd(raw), buf, offset).map_err(os)
    }

    /// `preadv(2)`.
    #[inline(always)]
    pub fn preadv(raw: RawFd, bufs: &mut [io::IoSliceMut<'_>], offset: u64) -> io::Result<usize> {
        rustix::io::preadv(fd(raw), bufs, offset).map_err(os)
    }

    /// `pwritev(2)`.
    #[inline(always)]
    pub fn pwritev(raw: RawFd, bufs: &[io::IoSlice<'_>], offset: u64) -> io::Result<usize> {
        rustix::io::pwritev(fd(raw), bufs, offset).map_err(os)
    }

    /// `lseek(2)` to `offset` from the start.
    #[inline(always)]
    pub fn seek_to(raw: RawFd, offset: u64) -> io::Result<()> {
        rustix::fs::seek(fd(raw), rustix::fs::SeekFrom::Start(offset))
            .map(drop)
            .map_err(os)
    }
}

/// `fsync(2)`.
#[inline]
pub fn fsync(fd: RawFd) -> io::Result<()> {
    // SAFETY: plain system call on a descriptor number.
    count(unsafe { libc::syscall(libc::SYS_fsync, fd as libc::c_long) }).map(drop)
}

/// `msync(2)` of `len` bytes at `addr` with the flags `flags`.
///
/// # Safety
/// `addr..addr+len` is a mapping of the caller's, `addr` page-aligned.
#[inline]
pub unsafe fn msync(addr: *mut u8, len: usize, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: as the caller promises.
    count(unsafe { libc::syscall(libc::SYS_msync, addr, len, flags as libc::c_long) }).map(drop)
}

/// `close(2)` of a descriptor the caller owns and never uses again: the
/// kernel's answer, which `-c` times and which NFS may make an error (a
/// failed write-back).
#[inline]
pub fn close(fd: RawFd) -> io::Result<()> {
    // SAFETY: the caller owns `fd` and never uses it again.
    count(unsafe { libc::syscall(libc::SYS_close, fd as libc::c_long) }).map(drop)
}

#[cfg(test)]
mod tests {
    use std::io::{IoSlice, IoSliceMut};
    use std::os::fd::{AsRawFd, IntoRawFd};

    use super::{close, fsync};

    /// The same checks for each way of making the calls.
    macro_rules! every_call_moves_the_bytes_asked {
        ($name:ident, $way:ident) => {
            #[test]
            fn $name() {
                use super::$way::*;
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("f");
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(true)
                    .read(true)
                    .write(true)
                    .open(&path)
                    .unwrap();
                let raw = file.as_raw_fd();
                assert_eq!(write(raw, b"abcd").unwrap(), 4);
                assert_eq!(pwrite(raw, b"XY", 1).unwrap(), 2);
                let halves = [IoSlice::new(b"12"), IoSlice::new(b"34")];
                assert_eq!(pwritev(raw, &halves, 4).unwrap(), 4);
                assert_eq!(std::fs::read(&path).unwrap(), b"aXYd1234");
                seek_to(raw, 2).unwrap();
                let mut two = [0u8; 2];
                assert_eq!(read(raw, &mut two).unwrap(), 2);
                assert_eq!(&two, b"Yd");
                assert_eq!(pread(raw, &mut two, 6).unwrap(), 2);
                assert_eq!(&two, b"34");
                let (mut a, mut b) = ([0u8; 3], [0u8; 3]);
                let mut both = [IoSliceMut::new(&mut a), IoSliceMut::new(&mut b)];
                assert_eq!(preadv(raw, &mut both, 1).unwrap(), 6);
                assert_eq!((&a, &b), (b"XYd", b"123"));
                // The end of the file reads 0 bytes.
                assert_eq!(pread(raw, &mut two, 8).unwrap(), 0);
                fsync(raw).unwrap();
                close(file.into_raw_fd()).unwrap();
                // The kernel's errors come back as they are (a number above
                // any descriptor limit is never open).
                let never = i32::MAX;
                assert_eq!(
                    read(never, &mut two).unwrap_err().raw_os_error(),
                    Some(libc::EBADF)
                );
                assert_eq!(
                    seek_to(never, 0).unwrap_err().raw_os_error(),
                    Some(libc::EBADF)
                );
                assert_eq!(close(never).unwrap_err().raw_os_error(), Some(libc::EBADF));
            }
        };
    }

    every_call_moves_the_bytes_asked!(
        inline_calls_move_the_bytes_asked_at_the_offsets_asked,
        direct
    );
    every_call_moves_the_bytes_asked!(stub_calls_move_the_bytes_asked_at_the_offsets_asked, stub);
}
