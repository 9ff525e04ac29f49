//! `preadv`/`pwritev` (IOzone's tests 11 and 12): one call moves several
//! consecutive records, each through its own iovec.

use std::io::{self, IoSlice, IoSliceMut};
use std::path::Path;

use super::batch::Engine;
use super::descriptor::{Descriptor, on_descriptor};
use super::open::OpenSpec;
use super::syscall;
use super::transfer::{pread_all, pwrite_all, short_read, short_write};

/// Most iovecs in one call (IOzone uses at most 16 records per call).
const MAX_IOVECS: usize = 16;

pub struct VectoredEngine {
    fd: Descriptor,
    record_bytes: usize,
}

impl VectoredEngine {
    /// How many records (iovecs) a call of `len` bytes moves: one a record,
    /// the last taking any remainder, at most MAX_IOVECS.
    #[inline]
    fn pieces(&self, len: usize) -> usize {
        len.div_ceil(self.record_bytes).clamp(1, MAX_IOVECS)
    }

    /// The length of piece `i` of `count` over `len` bytes.
    #[inline]
    fn piece_len(&self, i: usize, count: usize, len: usize) -> usize {
        if i + 1 == count {
            len - i * self.record_bytes
        } else {
            self.record_bytes
        }
    }
}

/// Runs a vectored call, retrying EINTR; returns the bytes moved.
#[inline]
fn vectored_call(mut call: impl FnMut() -> io::Result<usize>) -> io::Result<usize> {
    loop {
        match call() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            moved => return moved,
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
        let len = buf.len();
        let count = self.pieces(len);
        let n = {
            let mut iov: [IoSliceMut<'_>; MAX_IOVECS] =
                std::array::from_fn(|_| IoSliceMut::new(&mut []));
            let mut rest = &mut buf[..];
            for (i, v) in iov.iter_mut().enumerate().take(count) {
                let (piece, after) = rest.split_at_mut(self.piece_len(i, count, len));
                *v = IoSliceMut::new(piece);
                rest = after;
            }
            vectored_call(|| syscall::preadv(fd, &mut iov[..count], offset))?
        };
        match n {
            n if n == len => Ok(()),
            0 => Err(short_read(0, len)),
            // A short transfer: the rest goes through plain pread.
            n => pread_all(fd, &mut buf[n..], offset + n as u64),
        }
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        let fd = self.fd.raw();
        let len = buf.len();
        let count = self.pieces(len);
        let mut iov: [IoSlice<'_>; MAX_IOVECS] = [IoSlice::new(&[]); MAX_IOVECS];
        let mut rest = buf;
        for (i, v) in iov.iter_mut().enumerate().take(count) {
            let (piece, after) = rest.split_at(self.piece_len(i, count, len));
            *v = IoSlice::new(piece);
            rest = after;
        }
        let n = vectored_call(|| syscall::pwritev(fd, &iov[..count], offset))?;
        match n {
            n if n == len => Ok(()),
            0 => Err(short_write(0, len)),
            n => pwrite_all(fd, &buf[n..], offset + n as u64),
        }
    }

    on_descriptor!(fd);
}
