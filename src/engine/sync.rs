//! `read`/`write` at the file position, with `lseek` only when the next offset
//! is not where the previous operation left the position (IOzone's tests 0–5).

use std::io;
use std::path::Path;

use super::batch::Engine;
use super::descriptor::{Descriptor, on_descriptor};
use super::open::OpenSpec;
use super::syscall;
use super::transfer::transfer_all;

pub struct SyncEngine {
    fd: Descriptor,
    position: u64,
}

impl SyncEngine {
    #[inline]
    fn seek_to(&mut self, offset: u64) -> io::Result<()> {
        if offset != self.position {
            syscall::seek_to(self.fd.raw(), offset)?;
            self.position = offset;
        }
        Ok(())
    }
}

impl Engine for SyncEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<SyncEngine> {
        Ok(SyncEngine {
            fd: Descriptor::open(path, spec)?,
            position: 0,
        })
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.seek_to(offset)?;
        let fd = self.fd.raw();
        let len = buf.len();
        // On error the position is unknown; force a seek next time.
        self.position = u64::MAX;
        transfer_all(len, true, |done| syscall::read(fd, &mut buf[done..]))?;
        self.position = offset + len as u64;
        Ok(())
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.seek_to(offset)?;
        let fd = self.fd.raw();
        let len = buf.len();
        self.position = u64::MAX;
        transfer_all(len, false, |done| syscall::write(fd, &buf[done..]))?;
        self.position = offset + len as u64;
        Ok(())
    }

    on_descriptor!(fd);
}
