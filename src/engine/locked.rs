//! `-+l`/`-+L`: every operation takes an fcntl byte-range lock on the bytes it
//! moves (read lock for reads, write lock for writes) and releases it after,
//! as IOzone's record locking does. The locks are part of what is measured.

use std::io;
use std::os::fd::RawFd;
use std::path::Path;

use super::batch::Engine;
use super::open::OpenSpec;

pub struct LockedEngine<E> {
    inner: E,
}

impl<E: Engine> LockedEngine<E> {
    #[inline]
    fn range_lock(&self, kind: libc::c_int, offset: u64, len: usize) -> io::Result<()> {
        // SAFETY: flock is plain data; zeroed is a valid starting value.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = kind as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        fl.l_start = offset as libc::off_t;
        fl.l_len = len as libc::off_t;
        loop {
            // SAFETY: F_SETLKW with a valid flock on the engine's descriptor.
            if unsafe { libc::fcntl(self.inner.raw_fd(), libc::F_SETLKW, &fl) } == 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

impl<E: Engine> Engine for LockedEngine<E> {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<LockedEngine<E>> {
        Ok(LockedEngine {
            inner: E::open(path, spec)?,
        })
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.range_lock(libc::F_RDLCK, offset, buf.len())?;
        let r = self.inner.read_at(buf, offset);
        self.range_lock(libc::F_UNLCK, offset, buf.len())?;
        r
    }

    /// `-+l` locks records (§2.11 of the spec); a `-K` probe is not one.
    #[inline]
    fn probe_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.inner.probe_at(buf, offset)
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.range_lock(libc::F_WRLCK, offset, buf.len())?;
        let r = self.inner.write_at(buf, offset);
        self.range_lock(libc::F_UNLCK, offset, buf.len())?;
        r
    }

    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
    }

    fn settle(&mut self) -> io::Result<()> {
        self.inner.settle()
    }

    fn close(&mut self) -> io::Result<()> {
        self.inner.close()
    }

    fn raw_fd(&self) -> RawFd {
        self.inner.raw_fd()
    }
}
