//! The system calls a metadata benchmark times, one each, on names made
//! before the clock (NUL-terminated, relative to a directory descriptor the
//! runner holds), and the timer around each: one clock read before the call
//! and one after, the latency recorded into a histogram made before the
//! run. Nothing here allocates.

use std::ffi::CStr;
use std::os::fd::RawFd;

use nix::errno::Errno;

use crate::engine::clock::{OpClock, Tsc};
use crate::model::histogram::LatencyHistogram;

/// The per-operation clock of a run: the TSC (calibrated once, about
/// 20 ms) where it is the clocksource, else CLOCK_MONOTONIC.
pub(crate) fn op_clock() -> OpClock {
    OpClock(
        crate::system::time::tsc_is_the_clocksource()
            .then(Tsc::calibrate)
            .flatten(),
    )
}

/// Times one call: a clock read before and after it, nothing else between;
/// the latency goes to `h` whether the call worked or not.
#[inline(always)]
pub(crate) fn timed<T>(clock: &OpClock, h: &mut LatencyHistogram, call: impl FnOnce() -> T) -> T {
    let t0 = clock.now();
    let r = call();
    let t1 = clock.now();
    h.record(clock.ns(t0, t1));
    r
}

#[inline(always)]
fn check(r: libc::c_int) -> Result<(), Errno> {
    if r < 0 { Err(Errno::last()) } else { Ok(()) }
}

#[inline(always)]
pub(crate) fn mkdir(dir: RawFd, name: &CStr) -> Result<(), Errno> {
    // SAFETY: a NUL-terminated name and a descriptor the runner holds.
    check(unsafe { libc::mkdirat(dir, name.as_ptr(), 0o755) })
}

#[inline(always)]
pub(crate) fn rmdir(dir: RawFd, name: &CStr) -> Result<(), Errno> {
    // SAFETY: as in mkdir.
    check(unsafe { libc::unlinkat(dir, name.as_ptr(), libc::AT_REMOVEDIR) })
}

#[inline(always)]
pub(crate) fn unlink(dir: RawFd, name: &CStr) -> Result<(), Errno> {
    // SAFETY: as in mkdir.
    check(unsafe { libc::unlinkat(dir, name.as_ptr(), 0) })
}

/// A new file (never an existing one: O_EXCL), for writing.
#[inline(always)]
pub(crate) fn create(dir: RawFd, name: &CStr) -> Result<RawFd, Errno> {
    let flags = libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW;
    // SAFETY: as in mkdir; the mode is a plain integer.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags, 0o644 as libc::c_uint) };
    if fd < 0 { Err(Errno::last()) } else { Ok(fd) }
}

/// An existing file of the tree, for reading (a link put in its place is
/// not followed).
#[inline(always)]
pub(crate) fn open_read(dir: RawFd, name: &CStr) -> Result<RawFd, Errno> {
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW;
    // SAFETY: as in mkdir.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags) };
    if fd < 0 { Err(Errno::last()) } else { Ok(fd) }
}

/// A directory of the tree (a link put in its place is not followed).
pub(crate) fn open_dir(dir: RawFd, name: &CStr) -> Result<RawFd, Errno> {
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOFOLLOW;
    // SAFETY: as in mkdir.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags) };
    if fd < 0 { Err(Errno::last()) } else { Ok(fd) }
}

#[inline(always)]
pub(crate) fn close(fd: RawFd) -> Result<(), Errno> {
    // SAFETY: a descriptor the runner opened and closes once.
    check(unsafe { libc::close(fd) })
}

/// All of `buf`, however many calls it takes (one for an empty `buf`).
#[inline(always)]
pub(crate) fn write_all(fd: RawFd, buf: &[u8]) -> Result<(), Errno> {
    let mut done = 0;
    loop {
        // SAFETY: the pointer and length stay within `buf`.
        let n = unsafe { libc::write(fd, buf[done..].as_ptr().cast(), buf.len() - done) };
        match n {
            n if n >= 0 => done += n as usize,
            _ if Errno::last() == Errno::EINTR => continue,
            _ => return Err(Errno::last()),
        }
        if done >= buf.len() {
            return Ok(());
        }
        if n == 0 {
            return Err(Errno::EIO);
        }
    }
}

/// Up to `buf.len()` bytes, until the file ends.
#[inline(always)]
pub(crate) fn read_up_to(fd: RawFd, buf: &mut [u8]) -> Result<(), Errno> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer and length stay within `buf`.
        let n = unsafe { libc::read(fd, buf[done..].as_mut_ptr().cast(), buf.len() - done) };
        match n {
            n if n > 0 => done += n as usize,
            0 => break,
            _ if Errno::last() == Errno::EINTR => {}
            _ => return Err(Errno::last()),
        }
    }
    Ok(())
}

#[inline(always)]
pub(crate) fn fsync(fd: RawFd) -> Result<(), Errno> {
    // SAFETY: a descriptor the runner holds.
    check(unsafe { libc::fsync(fd) })
}

#[inline(always)]
pub(crate) fn stat(dir: RawFd, name: &CStr, st: &mut libc::stat) -> Result<(), Errno> {
    // SAFETY: as in mkdir; `st` is ours to fill.
    check(unsafe { libc::fstatat(dir, name.as_ptr(), st, libc::AT_SYMLINK_NOFOLLOW) })
}

#[inline(always)]
pub(crate) fn access(dir: RawFd, name: &CStr) -> Result<(), Errno> {
    // SAFETY: as in mkdir.
    check(unsafe { libc::faccessat(dir, name.as_ptr(), libc::R_OK | libc::W_OK, 0) })
}

#[inline(always)]
pub(crate) fn chmod(dir: RawFd, name: &CStr, mode: libc::mode_t) -> Result<(), Errno> {
    // SAFETY: as in mkdir.
    check(unsafe { libc::fchmodat(dir, name.as_ptr(), mode, 0) })
}

#[inline(always)]
pub(crate) fn link(dir: RawFd, from: &CStr, to: &CStr) -> Result<(), Errno> {
    // SAFETY: as in mkdir, both names in the same directory.
    check(unsafe { libc::linkat(dir, from.as_ptr(), dir, to.as_ptr(), 0) })
}

#[inline(always)]
pub(crate) fn rename(dir: RawFd, from: &CStr, to: &CStr) -> Result<(), Errno> {
    // SAFETY: as in link.
    check(unsafe { libc::renameat(dir, from.as_ptr(), dir, to.as_ptr()) })
}

#[inline(always)]
pub(crate) fn chdir(name: &CStr) -> Result<(), Errno> {
    // SAFETY: a NUL-terminated name.
    check(unsafe { libc::chdir(name.as_ptr()) })
}

pub(crate) fn fchdir(fd: RawFd) -> Result<(), Errno> {
    // SAFETY: a descriptor the runner holds.
    check(unsafe { libc::fchdir(fd) })
}

/// Every entry of the directory `fd`, read to its end from its start
/// (readdir: getdents64 until it returns nothing).
#[inline(always)]
pub(crate) fn read_dir(fd: RawFd, buf: &mut [u8]) -> Result<(), Errno> {
    loop {
        // SAFETY: getdents64 writes at most `buf.len()` bytes into buf.
        let n = unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len()) };
        match n {
            0 => return Ok(()),
            n if n > 0 => {}
            _ => return Err(Errno::last()),
        }
    }
}
