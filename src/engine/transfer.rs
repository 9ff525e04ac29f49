//! A transfer carried to its end: C return values made Results, short
//! transfers continued, and the errors of those that cannot be.

use std::io;
use std::os::fd::RawFd;

use super::syscall;

/// Turns a C return value into a Result, retrying nothing.
#[inline]
pub(crate) fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Error for a read that hit end of file before the buffer was full.
pub(crate) fn short_read(done: usize, wanted: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("short read: end of file after {done} of {wanted} bytes"),
    )
}

/// Error for a write the kernel accepted zero bytes of.
pub(crate) fn short_write(done: usize, wanted: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::WriteZero,
        format!("short write: {done} of {wanted} bytes written"),
    )
}

/// Runs a transfer syscall until `len` bytes moved, continuing short transfers
/// and retrying EINTR. `step(done)` moves bytes from position `done`
/// (engine::syscall's calls). Always inlined: it is the body of the
/// positional engines' records, inside the timed loop.
#[inline(always)]
pub(crate) fn transfer_all(
    len: usize,
    is_read: bool,
    mut step: impl FnMut(usize) -> io::Result<usize>,
) -> io::Result<()> {
    let mut done = 0;
    while done < len {
        match step(done) {
            Ok(0) => {
                return Err(if is_read {
                    short_read(done, len)
                } else {
                    short_write(done, len)
                });
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `pread` until `buf` is full. Always inlined, as is
/// PositionalEngine's record that calls it: the default engine's timed loop.
#[inline(always)]
pub(crate) fn pread_all(fd: RawFd, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let len = buf.len();
    transfer_all(len, true, |done| {
        syscall::pread(fd, &mut buf[done..], offset + done as u64)
    })
}

/// `pwrite` until all of `buf` is written.
#[inline(always)]
pub fn pwrite_all(fd: RawFd, buf: &[u8], offset: u64) -> io::Result<()> {
    let len = buf.len();
    transfer_all(len, false, |done| {
        syscall::pwrite(fd, &buf[done..], offset + done as u64)
    })
}
