//! The control blocks: starting a request on one, waiting for any in flight,
//! reaping the one that finished, and finishing a short transfer.

use std::io;
use std::os::fd::RawFd;

use super::AioEngine;
use crate::data::pattern::OpKind;
use crate::engine::syscall;
use crate::engine::transfer::transfer_all;

impl AioEngine {
    #[inline]
    fn cb(&self, slot: usize) -> *mut libc::aiocb {
        debug_assert!(slot < self.depth);
        // SAFETY: slot < depth, inside the allocation.
        unsafe { self.cbs.as_ptr().add(slot) }
    }

    /// Starts a read or write of `len` bytes at `buf` ↔ `offset` on control
    /// block `slot`. The memory at `buf` must stay valid and untouched until
    /// the request is reaped.
    pub(super) fn submit(
        &mut self,
        slot: usize,
        kind: OpKind,
        buf: *mut u8,
        len: usize,
        offset: u64,
    ) -> io::Result<()> {
        let cb = self.cb(slot);
        // SAFETY: the block is free (not in flight), so nothing else touches it;
        // zeroed is a valid aiocb, then we fill in the request.
        let ret = unsafe {
            cb.write(std::mem::zeroed());
            (*cb).aio_fildes = self.fd.raw();
            (*cb).aio_buf = buf.cast();
            (*cb).aio_nbytes = len;
            (*cb).aio_offset = offset as libc::off_t;
            (*cb).aio_sigevent.sigev_notify = libc::SIGEV_NONE;
            match kind {
                OpKind::Read => libc::aio_read(cb),
                OpKind::Write => libc::aio_write(cb),
            }
        };
        if ret < 0 {
            return Err(io::Error::last_os_error());
        }
        self.waiting[slot] = cb;
        Ok(())
    }

    /// Blocks until at least one request in flight has finished (or a signal
    /// arrived: the caller looks again either way).
    pub(super) fn wait_any(&self) -> io::Result<()> {
        // SAFETY: `waiting` holds `depth` entries, each null or a block in flight.
        let r = unsafe {
            libc::aio_suspend(
                self.waiting.as_ptr(),
                self.depth as libc::c_int,
                std::ptr::null(),
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) | Some(libc::EAGAIN) => Ok(()),
            _ => Err(e),
        }
    }

    /// The result of the request on `slot` if it has finished (which frees
    /// the slot), or None while it runs. Ok(n) is the bytes it moved.
    pub(super) fn reap(&mut self, slot: usize) -> Option<io::Result<usize>> {
        if self.waiting[slot].is_null() {
            return None;
        }
        let cb = self.cb(slot);
        // SAFETY: the block is in flight; aio_error may be asked at any time.
        let err = unsafe { libc::aio_error(cb) };
        if err == libc::EINPROGRESS {
            return None;
        }
        // SAFETY: the request finished; aio_return is called once for it.
        let ret = unsafe { libc::aio_return(cb) };
        self.waiting[slot] = std::ptr::null();
        self.free.push(slot);
        Some(match err {
            0 if ret >= 0 => Ok(ret as usize),
            0 => Err(io::Error::last_os_error()),
            e if e > 0 => Err(io::Error::from_raw_os_error(e)),
            _ => Err(io::Error::last_os_error()),
        })
    }

    /// The buffer and length of the request last submitted on `slot`.
    #[inline]
    pub(super) fn request(&self, slot: usize) -> (*mut u8, usize, u64) {
        // SAFETY: the block is no longer in flight; reading its fields is a plain read.
        unsafe {
            let cb = &*self.cb(slot);
            (cb.aio_buf.cast(), cb.aio_nbytes, cb.aio_offset as u64)
        }
    }

    /// Finishes a request that moved `moved` bytes: continues a short transfer
    /// synchronously, as the other engines continue short reads and writes.
    pub(super) fn complete(&self, slot: usize, kind: OpKind, moved: usize) -> io::Result<()> {
        let (buf, len, offset) = self.request(slot);
        if moved >= len {
            return Ok(());
        }
        finish_short(self.fd.raw(), kind, buf, len, offset, moved)
    }

    /// Waits for every request in flight, discarding the results.
    pub(super) fn drain(&mut self) {
        while self.free.len() < self.depth {
            for slot in 0..self.depth {
                let _ = self.reap(slot);
            }
            if self.free.len() < self.depth && self.wait_any().is_err() {
                // aio_suspend itself failing leaves only polling.
                std::thread::yield_now();
            }
        }
    }
}

/// Finishes a transfer of `len` bytes at `buf` ↔ `offset` of which the first
/// `moved` were done: pread/pwrite the rest, as the other engines do.
fn finish_short(
    fd: RawFd,
    kind: OpKind,
    buf: *mut u8,
    len: usize,
    offset: u64,
    moved: usize,
) -> io::Result<()> {
    let mut first = Some(moved);
    transfer_all(len, kind == OpKind::Read, |done| {
        // The asynchronous request's bytes count as the first step (0 bytes
        // means end of file for a read, or a write the kernel refused).
        if let Some(n) = first.take() {
            return Ok(n);
        }
        let at = offset + done as u64;
        // SAFETY: buf+done..buf+len lies inside the request's buffer, which the
        // caller keeps valid and no request is using any more.
        unsafe {
            match kind {
                OpKind::Read => syscall::pread(
                    fd,
                    std::slice::from_raw_parts_mut(buf.add(done), len - done),
                    at,
                ),
                OpKind::Write => syscall::pwrite(
                    fd,
                    std::slice::from_raw_parts(buf.add(done), len - done),
                    at,
                ),
            }
        }
    })
}
