//! `preadv`/`pwritev` (IOzone's tests 11 and 12): one call moves several
//! consecutive records, each through its own iovec.

use std::io;
use std::os::fd::RawFd;
use std::path::Path;

use super::positional::{pread_all, pwrite_all};
use super::{Descriptor, Engine, OpenSpec, short_read, short_write};

/// Most iovecs in one call (IOzone uses at most 16 records per call).
const MAX_IOVECS: usize = 16;

pub struct VectoredEngine {
    fd: Descriptor,
    record_bytes: usize,
}

impl VectoredEngine {
    /// iovecs over `ptr..ptr+len`, one per record (the last takes any remainder).
    #[inline]
    fn iovecs(&self, ptr: *mut u8, len: usize) -> ([libc::iovec; MAX_IOVECS], libc::c_int) {
        let mut iov = [libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        }; MAX_IOVECS];
        let count = len.div_ceil(self.record_bytes).clamp(1, MAX_IOVECS);
        for (i, v) in iov.iter_mut().enumerate().take(count) {
            let start = i * self.record_bytes;
            let end = if i + 1 == count {
                len
            } else {
                start + self.record_bytes
            };
            // SAFETY: start <= len, so the pointer stays inside the buffer.
            v.iov_base = unsafe { ptr.add(start) }.cast();
            v.iov_len = end - start;
        }
        (iov, count as libc::c_int)
    }
}

/// Runs a vectored call, retrying EINTR; returns the bytes moved.
#[inline]
fn vectored_call(mut call: impl FnMut() -> isize) -> io::Result<usize> {
    loop {
        let n = call();
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

impl Engine for VectoredEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<VectoredEngine> {
        Ok(VectoredEngine {
            fd: Descriptor::open(path, spec)?,
            record_bytes: spec.record_bytes.max(1),
        })
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let fd = self.fd.raw();
        let (iov, count) = self.iovecs(buf.as_mut_ptr(), buf.len());
        // SAFETY: the iovecs point into buf, which outlives the call.
        let n = vectored_call(|| unsafe {
            libc::preadv(fd, iov.as_ptr(), count, offset as libc::off_t)
        })?;
        match n {
            n if n == buf.len() => Ok(()),
            0 => Err(short_read(0, buf.len())),
            // A short transfer: the rest goes through plain pread.
            n => pread_all(fd, &mut buf[n..], offset + n as u64),
        }
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        let fd = self.fd.raw();
        // pwritev only reads through the iovecs; the C type is *mut regardless.
        let (iov, count) = self.iovecs(buf.as_ptr() as *mut u8, buf.len());
        // SAFETY: the iovecs point into buf, which outlives the call.
        let n = vectored_call(|| unsafe {
            libc::pwritev(fd, iov.as_ptr(), count, offset as libc::off_t)
        })?;
        match n {
            n if n == buf.len() => Ok(()),
            0 => Err(short_write(0, buf.len())),
            n => pwrite_all(fd, &buf[n..], offset + n as u64),
        }
    }

    fn sync(&mut self) -> io::Result<()> {
        self.fd.fsync()
    }

    fn close(&mut self) -> io::Result<()> {
        self.fd.close()
    }

    fn raw_fd(&self) -> RawFd {
        self.fd.raw()
    }
}
