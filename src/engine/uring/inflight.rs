//! The in-flight bookkeeping of the timed loop: what each ring entry is
//! doing, which operations must wait for one in flight, where a read lands,
//! and how a completion that moved less than asked is finished.

use std::io;
use std::ops::Range;
use std::os::fd::RawFd;

use crate::engine::positional::{pread_all, pwrite_all};
use crate::engine::{DataCheck, LoopIo, transfer_all};
use crate::pattern::{IoOp, OpKind};

/// What one ring entry is doing.
#[derive(Clone, Copy)]
pub(super) struct InFlight {
    /// Index into the loop's operations; [`FREE`] when the entry is idle.
    pub(super) op: usize,
    /// The bytes the kernel reads into or writes from.
    pub(super) data: *mut u8,
    /// `-Q`: when the request was queued (0 when latencies are not recorded).
    pub(super) queued_ns: u64,
}

pub(super) const FREE: usize = usize::MAX;

impl InFlight {
    pub(super) const IDLE: InFlight = InFlight {
        op: FREE,
        data: std::ptr::null_mut(),
        queued_ns: 0,
    };
}

/// Where read slot `index` of `io` lies in its read buffer: the same bytes
/// [`LoopIo::read_slot`] hands out.
#[inline]
pub(super) fn slot_range<C: DataCheck>(
    io: &LoopIo<'_, C>,
    index: usize,
    len: usize,
) -> Range<usize> {
    let slots = io.slots.max(1);
    let start = (index % slots) * (io.read_buf.len() / slots);
    start..start + len
}

/// Whether `a` and `b` touch common bytes and one of them writes.
#[inline]
pub(super) fn conflict(a: &IoOp, b: &IoOp) -> bool {
    (a.kind == OpKind::Write || b.kind == OpKind::Write)
        && a.offset < b.offset + b.len as u64
        && b.offset < a.offset + a.len as u64
}

/// Finishes a completed operation whose first `res` bytes moved (or which
/// failed with `-res`): the rest synchronously, as the synchronous engines do.
pub(super) fn finish(fd: RawFd, op: &IoOp, data: *mut u8, res: i32) -> io::Result<()> {
    let len = op.len;
    if res < 0 {
        return match -res {
            // Not expected for files, but nothing moved: do it synchronously.
            libc::EINTR | libc::EAGAIN => {
                // SAFETY: `data` is the operation's buffer of `len` bytes,
                // which nothing else uses until this operation is finished.
                unsafe {
                    match op.kind {
                        OpKind::Read => {
                            pread_all(fd, std::slice::from_raw_parts_mut(data, len), op.offset)
                        }
                        OpKind::Write => {
                            pwrite_all(fd, std::slice::from_raw_parts(data, len), op.offset)
                        }
                    }
                }
            }
            code => Err(io::Error::from_raw_os_error(code)),
        };
    }
    let moved = res as usize;
    if moved >= len {
        return Ok(());
    }
    // The first step reports what the kernel already moved; a zero there is
    // end of file (read) or a write that took nothing, as transfer_all says.
    let mut first = Some(moved as isize);
    let is_read = op.kind == OpKind::Read;
    transfer_all(len, is_read, |done| {
        if let Some(n) = first.take() {
            return n;
        }
        let at = (op.offset + done as u64) as libc::off_t;
        // SAFETY: data+done..data+len lies inside the operation's buffer.
        unsafe {
            if is_read {
                libc::pread(fd, data.add(done).cast(), len - done, at)
            } else {
                libc::pwrite(fd, data.add(done).cast(), len - done, at)
            }
        }
    })
}
