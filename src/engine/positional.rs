//! `pread`/`pwrite` (IOzone's tests 9 and 10, and ioz's random mix).

use std::io;
use std::os::fd::RawFd;
use std::path::Path;

use super::{Descriptor, Engine, OpenSpec, syscall, transfer_all};

pub struct PositionalEngine {
    fd: Descriptor,
}

impl PositionalEngine {
    /// The length of the file it has open (a device's is 0, as its metadata
    /// says): the file checked at the open, not whatever the path names now.
    pub fn opened_len(&self) -> io::Result<u64> {
        Ok(self.fd.stat()?.size)
    }
}

/// `pread` until `buf` is full.
#[inline]
pub(crate) fn pread_all(fd: RawFd, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let len = buf.len();
    transfer_all(len, true, |done| {
        syscall::pread(fd, &mut buf[done..], offset + done as u64)
    })
}

/// `pwrite` until all of `buf` is written.
#[inline]
pub fn pwrite_all(fd: RawFd, buf: &[u8], offset: u64) -> io::Result<()> {
    let len = buf.len();
    transfer_all(len, false, |done| {
        syscall::pwrite(fd, &buf[done..], offset + done as u64)
    })
}

impl Engine for PositionalEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<PositionalEngine> {
        Ok(PositionalEngine {
            fd: Descriptor::open(path, spec)?,
        })
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        pread_all(self.fd.raw(), buf, offset)
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        pwrite_all(self.fd.raw(), buf, offset)
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
