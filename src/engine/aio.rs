//! POSIX AIO with several requests in flight (-H, -k).

use std::io;
use std::os::fd::RawFd;
use std::path::Path;

use super::{Engine, OpenSpec};

pub struct AioEngine {
    _never: std::convert::Infallible,
}

impl AioEngine {
    pub fn open(_path: &Path, _spec: &OpenSpec) -> io::Result<AioEngine> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this engine is not built yet",
        ))
    }
}

impl Engine for AioEngine {
    fn read_at(&mut self, _buf: &mut [u8], _offset: u64) -> io::Result<()> {
        match self._never {}
    }
    fn write_at(&mut self, _buf: &[u8], _offset: u64) -> io::Result<()> {
        match self._never {}
    }
    fn sync(&mut self) -> io::Result<()> {
        match self._never {}
    }
    fn close(&mut self) -> io::Result<()> {
        match self._never {}
    }
    fn raw_fd(&self) -> RawFd {
        match self._never {}
    }
}
