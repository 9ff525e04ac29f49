//! POSIX AIO with several requests in flight (-H, -k): glibc's `aio_read`,
//! `aio_write`, `aio_suspend`, `aio_error` and `aio_return`.
//!
//! [`Engine::run_ops`] keeps up to `depth` requests in flight (no more than the
//! loop has read slots). Each request has its own control block and, for a
//! read, its own read slot; a completed read is checked before its slot is
//! used again. An operation that overlaps one still in flight waits for it, so
//! the file ends up as a one-at-a-time run would leave it (record rewrite, -i 4,
//! writes record 0 over and over). Stops are checked before each submission;
//! whatever is in flight is always drained before `run_ops` returns, so the
//! operations done are a prefix of `ops` and no request outlives its buffers.
//!
//! **Copy or no copy.** IOzone's `-k` hands the AIO library's own buffers back
//! to the test without copying, while `-H` copies (`bcopy`) each completed
//! read from the library's buffer into the test's buffer. Here the read slots
//! already are the I/O buffers, so `-k` uses the data where it landed, and
//! `-H` copies each completed read into one destination buffer (and checks
//! it there) — the copy IOzone pays for, so the two modes differ as IOzone's
//! do. Writes are submitted straight from the write pool in both modes.
//!
//! A request that moves fewer bytes than asked is finished synchronously with
//! `pread`/`pwrite`; an error becomes the failure of that operation.

mod control_blocks;
#[cfg(test)]
mod tests;

use std::io;
use std::path::Path;
use std::ptr::NonNull;

use super::batch::{
    Engine, LoopFailure, LoopIo, Progress, QueuedLatencies, QueuedLoop, Stops, delay_before,
    mark_interval, probe_with_pread, queued_ops,
};
use super::descriptor::{Descriptor, on_descriptor};
use super::open::OpenSpec;
use crate::data::buffer::AlignedBuf;
use crate::data::check::DataCheck;
use crate::data::pattern::{IoOp, OpKind};
use crate::engine::clock::now_ns;

pub struct AioEngine {
    fd: Descriptor,
    /// One control block per request in flight. Allocated once and reached
    /// only through raw pointers, because the library's threads write into
    /// them while a request runs; freed in Drop.
    cbs: NonNull<libc::aiocb>,
    depth: usize,
    /// The control blocks in flight (null where free), as aio_suspend wants.
    waiting: Box<[*const libc::aiocb]>,
    /// The index in `ops` of the operation each control block carries.
    op_of: Box<[usize]>,
    /// `-Q`: when each control block's request was submitted.
    submitted_ns: Box<[u64]>,
    /// Free control blocks.
    free: Vec<usize>,
    /// `-H`: completed reads are copied here; None for `-k`.
    copy_to: Option<AlignedBuf>,
}

// SAFETY: no request outlives the call that submitted it (every call drains
// what it started), so between calls the engine owns only plain memory.
unsafe impl Send for AioEngine {}

impl AioEngine {
    /// `-H`: the copy of a completed read into the destination buffer; returns
    /// the bytes to check (the copy with -H, the slot itself with -k).
    #[inline]
    fn copied<'a>(copy_to: &'a mut Option<AlignedBuf>, data: &'a [u8]) -> &'a [u8] {
        match copy_to {
            Some(dest) => {
                if dest.len() < data.len() {
                    *dest = AlignedBuf::zeroed(data.len());
                }
                let dest = &mut dest[..data.len()];
                dest.copy_from_slice(data);
                dest
            }
            None => data,
        }
    }

    /// One request, waited for: read_at and write_at.
    fn one(&mut self, kind: OpKind, buf: *mut u8, len: usize, offset: u64) -> io::Result<()> {
        debug_assert!(self.waiting.iter().all(|p| p.is_null()));
        let slot = self.free.pop().expect("no request is in flight");
        if let Err(e) = self.submit(slot, kind, buf, len, offset) {
            self.free.push(slot);
            return Err(e);
        }
        loop {
            if let Some(result) = self.reap(slot) {
                return result.and_then(|n| self.complete(slot, kind, n));
            }
            if let Err(e) = self.wait_any() {
                self.drain();
                return Err(e);
            }
        }
    }
}

/// Whether `a..a+a_len` and `b..b+b_len` share a byte.
#[inline]
fn overlaps(a: u64, a_len: usize, b: u64, b_len: usize) -> bool {
    a < b + b_len as u64 && b < a + a_len as u64
}

/// Whether `range` lies wholly inside `pool` (so it stays valid and unchanged
/// while a write from it is in flight).
#[inline]
fn within(pool: &std::ops::Range<*const u8>, data: &[u8]) -> bool {
    let d = data.as_ptr_range();
    pool.start <= d.start && d.end <= pool.end
}

impl Engine for AioEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<AioEngine> {
        let fd = Descriptor::open(path, spec)?;
        let depth = (spec.depth.max(1)) as usize;
        // SAFETY: aiocb is plain data; all zeroes is a valid (idle) value.
        let blocks: Box<[libc::aiocb]> =
            (0..depth).map(|_| unsafe { std::mem::zeroed() }).collect();
        let cbs = NonNull::new(Box::into_raw(blocks).cast::<libc::aiocb>())
            .expect("Box::into_raw is never null");
        Ok(AioEngine {
            fd,
            cbs,
            depth,
            waiting: vec![std::ptr::null(); depth].into_boxed_slice(),
            op_of: vec![0; depth].into_boxed_slice(),
            submitted_ns: vec![0; depth].into_boxed_slice(),
            free: (0..depth).rev().collect(),
            copy_to: (!spec.aio_no_copy).then(|| AlignedBuf::zeroed(spec.record_bytes.max(1))),
        })
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.one(OpKind::Read, buf.as_mut_ptr(), buf.len(), offset)?;
        Self::copied(&mut self.copy_to, buf);
        Ok(())
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        // aio_write only reads the buffer; the pointer is mut because aiocb's is.
        self.one(OpKind::Write, buf.as_ptr().cast_mut(), buf.len(), offset)
    }

    on_descriptor!(fd);

    fn run_ops<C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure> {
        queued_ops(self, ops, io, stops)
    }
}

// SAFETY: operations are submitted in order, none after a stop or a
// failure, and without a failure every one submitted was reaped (and, with
// RECORD_LATENCY, recorded) before the loop returns.
unsafe impl QueuedLoop for AioEngine {
    /// The timed loop. With `RECORD_LATENCY` (-Q), each operation's latency
    /// is from just before its `aio_read`/`aio_write` to when ioz sees it
    /// finished (after the `aio_suspend` that returned with it done).
    #[inline(always)]
    fn run_queued<const RECORD_LATENCY: bool, C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure> {
        let slots = io.slots.max(1);
        let slot_bytes = io.read_buf.len() / slots;
        // Never more in flight than the loop has read slots for.
        let depth = self.depth.min(slots);
        // Where the pool lies: writes from it are submitted as they are.
        let pool = io.pool.as_ptr_range();
        let mut progress = Progress::default();
        let mut failure: Option<LoopFailure> = None;
        let mut next = 0;
        let mut in_flight = 0;
        let mut probed = usize::MAX;
        loop {
            // Submit while there is room, nothing has failed and no stop came.
            while next < ops.len()
                && in_flight < depth
                && failure.is_none()
                && progress.stopped.is_none()
            {
                let op = &ops[next];
                let busy = self.waiting.iter().enumerate().any(|(slot, p)| {
                    !p.is_null() && {
                        let other = &ops[self.op_of[slot]];
                        overlaps(op.offset, op.len, other.offset, other.len)
                    }
                });
                if busy {
                    break;
                }
                if let Some(why) = stops.check() {
                    progress.stopped = Some(why);
                    break;
                }
                let slot = *self.free.last().expect("a free control block");
                // -K: once per operation, though a submission the library
                // has no room for is tried again.
                if op.probes.any() && probed != next {
                    let probe_buf = io.read_slot(slot, op.probes.bytes_each());
                    if let Err(f) = probe_with_pread(self.fd.raw(), probe_buf, op) {
                        failure = Some(f);
                        break;
                    }
                    probed = next;
                }
                let too_big = op.len > slot_bytes;
                // The slot's buffer: for a read, where the data lands; for a
                // write whose data is not in the pool (a check that builds it
                // per operation), a stable copy while the request runs.
                let buf = match op.kind {
                    OpKind::Read if !too_big => io.read_slot(slot, op.len).as_mut_ptr(),
                    OpKind::Write => {
                        let data = io.check.write_data(op, io.pool);
                        if within(&pool, data) {
                            data.as_ptr().cast_mut()
                        } else if too_big {
                            std::ptr::null_mut()
                        } else {
                            let data_ptr = data.as_ptr();
                            let dest = io.read_slot(slot, op.len);
                            // SAFETY: data is op.len bytes the check owns, and
                            // disjoint from the read slot it is copied into.
                            unsafe {
                                std::ptr::copy_nonoverlapping(data_ptr, dest.as_mut_ptr(), op.len)
                            };
                            dest.as_mut_ptr()
                        }
                    }
                    OpKind::Read => std::ptr::null_mut(),
                };
                if buf.is_null() {
                    failure = Some(LoopFailure::of(
                        op,
                        io::Error::other(format!(
                            "{}-byte operation is larger than its {slot_bytes}-byte buffer slot",
                            op.len
                        )),
                    ));
                    break;
                }
                io.busy_ns += delay_before(op, io.compute_delay_ns, &stops, &io.intervals);
                if RECORD_LATENCY {
                    self.submitted_ns[slot] = now_ns();
                }
                match self.submit(slot, op.kind, buf, op.len, op.offset) {
                    Ok(()) => {
                        self.free.pop();
                        self.op_of[slot] = next;
                        next += 1;
                        in_flight += 1;
                    }
                    // The library is out of resources: wait for a request to finish.
                    Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && in_flight > 0 => break,
                    Err(e) => {
                        failure = Some(LoopFailure::of(op, e));
                        break;
                    }
                }
            }
            if in_flight == 0 {
                break;
            }
            if let Err(e) = self.wait_any() {
                failure.get_or_insert(LoopFailure::of(&ops[next.saturating_sub(1)], e));
                self.drain();
                break;
            }
            // Every request this scan finds done was seen done at this moment.
            let seen_ns = if RECORD_LATENCY { now_ns() } else { 0 };
            for slot in 0..self.depth {
                let Some(result) = self.reap(slot) else {
                    continue;
                };
                in_flight -= 1;
                let index = self.op_of[slot];
                let op = &ops[index];
                if failure.is_some() {
                    continue; // draining after a failure: results no longer matter
                }
                if RECORD_LATENCY {
                    let ns = seen_ns.saturating_sub(self.submitted_ns[slot]);
                    QueuedLatencies::record(&mut io.timing, index, ns);
                }
                let done = result.and_then(|n| self.complete(slot, op.kind, n));
                let checked = done.and_then(|()| match op.kind {
                    OpKind::Read => {
                        let (buf, len, _) = self.request(slot);
                        // SAFETY: the read into this slot finished; nothing
                        // else writes the slot until it is submitted again.
                        let data = unsafe { std::slice::from_raw_parts(buf, len) };
                        io.check
                            .check_read(op, Self::copied(&mut self.copy_to, data))
                    }
                    OpKind::Write => Ok(()),
                });
                match checked {
                    Ok(()) => {
                        progress.bytes += op.len as u64;
                        progress.done += 1;
                    }
                    Err(e) => failure = Some(LoopFailure::of(op, e)),
                }
            }
            // --interval: at the end of a scan of completions.
            mark_interval(&mut io.intervals, &progress, &mut io.timing);
        }
        match failure {
            Some(f) => Err(f),
            None => Ok(progress),
        }
    }
}

impl Drop for AioEngine {
    fn drop(&mut self) {
        // Only a panic can leave requests in flight; wait for them before the
        // control blocks (and the buffers they point at) go away.
        self.drain();
        // SAFETY: the blocks came from Box::into_raw of a `depth`-long boxed
        // slice and nothing refers to them any more.
        drop(unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                self.cbs.as_ptr(),
                self.depth,
            ))
        });
    }
}
