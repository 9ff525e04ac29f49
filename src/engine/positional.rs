//! `pread`/`pwrite` (IOzone's tests 9 and 10, and ioz's random mix).

use std::io;
use std::path::Path;

use super::batch::Engine;
use super::descriptor::{Descriptor, on_descriptor};
use super::open::OpenSpec;
use super::transfer::{pread_all, pwrite_all};

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

impl Engine for PositionalEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<PositionalEngine> {
        Ok(PositionalEngine {
            fd: Descriptor::open(path, spec)?,
        })
    }

    #[inline(always)]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        pread_all(self.fd.raw(), buf, offset)
    }

    #[inline(always)]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        pwrite_all(self.fd.raw(), buf, offset)
    }

    on_descriptor!(fd);
}
