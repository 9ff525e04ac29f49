//! The system calls of the timed loops, made straight to the kernel
//! (rustix's raw Linux backend) rather than through the C library.
//!
//! Why: glibc's `read`, `write`, `pread`, `pwrite`, `preadv`, `pwritev`,
//! `lseek`'s neighbours `fsync`, `msync` and `close` are cancellation
//! points. While the process has one thread they go straight to the kernel;
//! once it has had a second one (the `--interval` keeper, a throughput
//! run's worker threads, POSIX AIO's helpers) — and glibc never forgets it —
//! each wraps the call in two atomic read-modify-writes of the thread's
//! cancellation state: ~6 ns a call here, 0.8 % of a cached 4 KiB read
//! (`perf record -e cpu-clock` of `ioz -s 2g -r 4k -i 1 --interval 100ms`:
//! `__pthread_enable_asynccancel` and `__pthread_disable_asynccancel`). A
//! raw call costs the same whatever the process's threads, so a pass
//! measures the same with and without them, and what IOzone's
//! single-threaded loop pays. ioz never cancels a thread, so nothing is lost.
//!
//! Every call here returns the kernel's count or its error as an
//! `io::Error` (EINTR included: the callers retry it).

use std::io;
use std::os::fd::{BorrowedFd, RawFd};

use rustix::io::Errno;

/// The descriptor for one call.
#[inline(always)]
fn fd(raw: RawFd) -> BorrowedFd<'static> {
    // SAFETY: every caller passes a descriptor it holds open for the call
    // (an engine's own); the borrow does not outlive the call.
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

/// `fsync(2)`.
#[inline]
pub fn fsync(raw: RawFd) -> io::Result<()> {
    rustix::fs::fsync(fd(raw)).map_err(os)
}

/// `msync(2)` of `len` bytes at `addr` with the C flags `flags`.
///
/// # Safety
/// `addr..addr+len` is a mapping of the caller's, `addr` page-aligned.
#[inline]
pub unsafe fn msync(addr: *mut u8, len: usize, flags: libc::c_int) -> io::Result<()> {
    let flags = rustix::mm::MsyncFlags::from_bits_retain(flags as u32);
    // SAFETY: as the caller promises.
    unsafe { rustix::mm::msync(addr.cast(), len, flags) }.map_err(os)
}

/// `close(2)` of a descriptor the caller owns and never uses again: the
/// kernel's answer, which `-c` times and a full device may make an error
/// (NFS reports a failed write-back there).
#[inline]
pub fn close(raw: RawFd) -> io::Result<()> {
    // rustix's own close hides the kernel's answer (a close that failed
    // still freed the descriptor); ioz reports it, so the call is made here.
    // SAFETY: the caller owns `raw` and never uses it again.
    let r = unsafe { libc::syscall(libc::SYS_close, raw) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::{IoSlice, IoSliceMut};
    use std::os::fd::{AsRawFd, IntoRawFd};

    use super::*;

    #[test]
    fn every_call_moves_the_bytes_asked_at_the_offsets_asked() {
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
        assert_eq!(
            pwritev(raw, &[IoSlice::new(b"12"), IoSlice::new(b"34")], 4).unwrap(),
            4
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"aXYd1234");
        seek_to(raw, 2).unwrap();
        let mut two = [0u8; 2];
        assert_eq!(read(raw, &mut two).unwrap(), 2);
        assert_eq!(&two, b"Yd");
        assert_eq!(pread(raw, &mut two, 6).unwrap(), 2);
        assert_eq!(&two, b"34");
        let (mut a, mut b) = ([0u8; 3], [0u8; 3]);
        let n = preadv(
            raw,
            &mut [IoSliceMut::new(&mut a), IoSliceMut::new(&mut b)],
            1,
        )
        .unwrap();
        assert_eq!((n, &a, &b), (6, b"XYd", b"123"));
        // The end of the file reads 0 bytes; its errors are the kernel's.
        assert_eq!(pread(raw, &mut two, 8).unwrap(), 0);
        fsync(raw).unwrap();
        close(file.into_raw_fd()).unwrap();
        // The kernel's errors come back as they are (a number above any
        // descriptor limit is never open).
        let never = i32::MAX;
        assert_eq!(
            read(never, &mut two).unwrap_err().raw_os_error(),
            Some(libc::EBADF)
        );
        assert_eq!(close(never).unwrap_err().raw_os_error(), Some(libc::EBADF));
    }
}
