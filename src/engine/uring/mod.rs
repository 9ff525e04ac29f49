//! Linux io_uring with several requests in flight (--engine io_uring).
//!
//! One ring per opened file, `depth` entries. The timed loop ([`Engine::run_ops`])
//! keeps up to `depth` reads and writes in flight: it queues until the ring is
//! full, submits the batch and waits for one completion in a single
//! `io_uring_enter`, reaps every completion there is, and queues again. Each
//! in-flight read lands in its own read slot (slot = ring entry) and is checked
//! before that slot is used again. Short transfers are finished synchronously
//! with `pread`/`pwrite`. Operations that overlap one still in flight (where
//! either writes) wait for it, so the file ends as a one-at-a-time run leaves
//! it (record rewrite writes one record over and over).
//!
//! The loop's read buffer and write pool are registered with the ring before
//! the clock ([`Engine::prepare_buffers`], IORING_REGISTER_BUFFERS), and the
//! loop moves them with READ_FIXED/WRITE_FIXED: the kernel pins their pages
//! once rather than on every O_DIRECT request. Where the kernel refuses the
//! registration (RLIMIT_MEMLOCK without CAP_IPC_LOCK, a buffer over 1 GiB, …),
//! the loop uses plain READ/WRITE, the same I/O without that saving, and one
//! warning per process says so; it is an optimisation, not another engine.
//! Write data from outside the pool (a data check's own buffer, copied per
//! request) and the untimed single calls use plain READ/WRITE. Descriptors
//! are not registered, as fio's defaults do not.
//! The ring is set up like fio's: single issuer with deferred task work where
//! the kernel has them (6.1+), cooperative task work (5.19+) otherwise, and no
//! flags on older kernels. A ring belongs to the thread that created it.
//!
//! When the kernel has no usable io_uring (`io_uring_setup` fails: ENOSYS,
//! EPERM from seccomp or `kernel.io_uring_disabled`, …) [`UringEngine::open`]
//! says so; ioz never falls back to another engine silently.
//!
//! Layout: the timed loop and what it calls or inlines (the in-flight table,
//! the fixed-buffer index, `enter`, `finish`) stay in this file, in this
//! order, above the loop. Moved into submodules or below the loop, the same
//! code compiled to a different loop (stack slots assigned differently in a
//! release build): the order of items reaches LLVM. Buffer registration
//! (`fixed.rs`) and ring setup (`ring.rs`) run outside the timed region.

mod fixed;
mod ring;
#[cfg(test)]
mod tests;

use std::io;
use std::ops::Range;
use std::os::fd::RawFd;
use std::path::Path;
use std::sync::atomic::Ordering;

use io_uring::{IoUring, opcode, squeue, types};

use super::batch::{
    Engine, LoopFailure, LoopIo, Progress, QueuedLatencies, QueuedLoop, Stops, delay_before,
    mark_interval, probe_with_pread, queued_ops,
};
use super::descriptor::{Descriptor, on_descriptor};
use super::open::OpenSpec;
use super::syscall;
use super::transfer::{pread_all, pwrite_all, transfer_all};
use crate::data::buffer::AlignedBuf;
use crate::data::check::DataCheck;
use crate::data::pattern::{IoOp, OpKind};
use crate::engine::clock::now_ns;
use crate::model::say::say;
use fixed::{FIXED_REFUSAL_TOLD, FixedBuffers, fixed_refusal, register};
use ring::new_ring;

pub use fixed::share_with_workers;

/// The most bytes one submission moves; the kernel moves at most about 2 GiB
/// per read or write anyway, and the rest is finished like any short transfer.
const MAX_SUBMIT: usize = u32::MAX as usize & !4095;

/// What one ring entry is doing.
#[derive(Clone, Copy)]
struct InFlight {
    /// Index into the loop's operations; [`FREE`] when the entry is idle.
    op: usize,
    /// The bytes the kernel reads into or writes from.
    data: *mut u8,
    /// `-Q`: when the request was queued (0 when latencies are not recorded).
    queued_ns: u64,
}

const FREE: usize = usize::MAX;

impl InFlight {
    const IDLE: InFlight = InFlight {
        op: FREE,
        data: std::ptr::null_mut(),
        queued_ns: 0,
    };
}

/// One buffer registered with the ring: where it lies and its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FixedBuf {
    start: usize,
    len: usize,
    index: u16,
}

impl FixedBuf {
    /// The index to name in a fixed request for `buf`, when `buf` lies
    /// inside this registered buffer.
    #[inline]
    fn index_for(this: Option<FixedBuf>, buf: &[u8]) -> Option<u16> {
        let fixed = this?;
        let start = buf.as_ptr() as usize;
        (fixed.start <= start && start + buf.len() <= fixed.start + fixed.len)
            .then_some(fixed.index)
    }
}

pub struct UringEngine {
    /// `None` once closed (or after a failure that left it unusable).
    ring: Option<IoUring>,
    /// The buffers [`Engine::prepare_buffers`] registered.
    fixed: FixedBuffers,
    fd: Descriptor,
    /// Ring entries (the requested depth, at least 1).
    entries: usize,
    /// One per ring entry, indexed by the entry's user_data.
    table: Vec<InFlight>,
    /// Idle ring entries.
    free: Vec<u32>,
    /// Copies of write data that does not come from the loop's pool (a data
    /// check's own buffer may change before the write completes): one per entry.
    staging: Vec<Option<AlignedBuf>>,
}

impl UringEngine {
    /// One operation, submitted and waited for (untimed preparation, locking).
    /// Returns the completion's result.
    fn one(&mut self, entry: squeue::Entry) -> io::Result<i32> {
        let ring = self.ring.as_mut().ok_or_else(closed)?;
        // SAFETY: the buffer behind `entry` outlives this call, which waits
        // for the completion (or drops the ring before the kernel saw it).
        unsafe { ring.submission().push(&entry.user_data(0)) }
            .map_err(|_| io::Error::other("io_uring submission queue is full"))?;
        loop {
            if let Some(cqe) = ring.completion().next() {
                return Ok(cqe.result());
            }
            if let Err(e) = enter(ring, 1, true) {
                self.ring = None;
                return Err(e);
            }
        }
    }
}

/// The error for an engine whose ring is gone.
fn closed() -> io::Error {
    io::Error::other("the io_uring engine is closed")
}

/// Submits what is queued and, with `wait`, waits for at least one
/// completion. An interrupted or busy enter returns Ok: what it did not submit
/// stays queued, and the caller reaps what there is and comes back. Another
/// failure with requests the kernel already took aborts: they read into and
/// write from the caller's buffers, and returning would let those buffers be
/// freed under them. Otherwise the error is returned and the ring must be
/// dropped (what it queued was never seen by the kernel).
fn enter(ring: &mut IoUring, in_flight: usize, wait: bool) -> io::Result<()> {
    match ring.submit_and_wait(usize::from(wait)) {
        Ok(_) => Ok(()),
        Err(e) => match e.raw_os_error() {
            Some(libc::EINTR) => Ok(()),
            Some(libc::EAGAIN | libc::EBUSY) => {
                std::thread::yield_now();
                Ok(())
            }
            _ => {
                let queued = ring.submission().len();
                if in_flight > queued {
                    // say() loses the line on a stderr that fails: no panic
                    // may unwind past the ring before the abort below.
                    say(format_args!(
                        "io_uring_enter failed ({e}) with {} requests in flight; \
                         they cannot be waited for",
                        in_flight - queued
                    ));
                    std::process::abort();
                }
                Err(e)
            }
        },
    }
}

/// The loop's failure for an `io_uring_enter` that failed outright.
fn enter_failure(error: io::Error) -> LoopFailure {
    LoopFailure {
        operation: "io_uring_enter",
        offset: None,
        error,
    }
}

/// Where read slot `index` of `io` lies in its read buffer: the same bytes
/// [`LoopIo::read_slot`] hands out.
#[inline]
fn slot_range<C: DataCheck>(io: &LoopIo<'_, C>, index: usize, len: usize) -> Range<usize> {
    let slots = io.slots.max(1);
    let start = (index % slots) * (io.read_buf.len() / slots);
    start..start + len
}

/// Whether `a` and `b` touch common bytes and one of them writes.
#[inline]
fn conflict(a: &IoOp, b: &IoOp) -> bool {
    (a.kind == OpKind::Write || b.kind == OpKind::Write)
        && a.offset < b.offset + b.len as u64
        && b.offset < a.offset + a.len as u64
}

/// Finishes a completed operation whose first `res` bytes moved (or which
/// failed with `-res`): the rest synchronously, as the synchronous engines do.
fn finish(fd: RawFd, op: &IoOp, data: *mut u8, res: i32) -> io::Result<()> {
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
    let mut first = Some(moved);
    let is_read = op.kind == OpKind::Read;
    transfer_all(len, is_read, |done| {
        if let Some(n) = first.take() {
            return Ok(n);
        }
        let at = op.offset + done as u64;
        // SAFETY: data+done..data+len lies inside the operation's buffer,
        // which nothing else uses until this operation is finished.
        unsafe {
            if is_read {
                syscall::pread(
                    fd,
                    std::slice::from_raw_parts_mut(data.add(done), len - done),
                    at,
                )
            } else {
                syscall::pwrite(
                    fd,
                    std::slice::from_raw_parts(data.add(done), len - done),
                    at,
                )
            }
        }
    })
}

impl Engine for UringEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<UringEngine> {
        let fd = Descriptor::open(path, spec)?;
        let entries = spec.depth.max(1);
        let ring = new_ring(entries)?;
        let entries = entries as usize;
        Ok(UringEngine {
            ring: Some(ring),
            fixed: FixedBuffers::default(),
            fd,
            entries,
            table: vec![InFlight::IDLE; entries],
            free: Vec::with_capacity(entries),
            staging: (0..entries).map(|_| None).collect(),
        })
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let len = buf.len().min(MAX_SUBMIT);
        let entry = opcode::Read::new(types::Fd(self.fd.raw()), buf.as_mut_ptr(), len as u32)
            .offset(offset)
            .build();
        let res = self.one(entry)?;
        let op = IoOp::at(offset, buf.len(), OpKind::Read);
        finish(self.fd.raw(), &op, buf.as_mut_ptr(), res)
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        let len = buf.len().min(MAX_SUBMIT);
        let entry = opcode::Write::new(types::Fd(self.fd.raw()), buf.as_ptr(), len as u32)
            .offset(offset)
            .build();
        let res = self.one(entry)?;
        let op = IoOp::at(offset, buf.len(), OpKind::Write);
        // finish only reads through the pointer of a write.
        finish(self.fd.raw(), &op, buf.as_ptr().cast_mut(), res)
    }

    // sync: nothing is in flight between calls, so a plain fsync is the same thing.
    on_descriptor!(fd: sync, raw_fd);

    fn close(&mut self) -> io::Result<()> {
        // The ring holds nothing in flight between calls; dropping it first
        // leaves the descriptor's close as the last one, whose error counts.
        self.ring = None;
        self.fd.close()
    }

    fn prepare_buffers(&mut self, read_buf: &[u8], pool: &[u8]) {
        self.fixed = FixedBuffers::default();
        let Some(ring) = self.ring.as_ref() else {
            return;
        };
        match register(ring, read_buf, pool) {
            Ok(fixed) => self.fixed = fixed,
            Err(e) => {
                if !FIXED_REFUSAL_TOLD.swap(true, Ordering::Relaxed) {
                    say(fixed_refusal(&e, read_buf.len() + pool.len()));
                }
            }
        }
    }

    fn run_ops<C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure> {
        queued_ops(self, ops, io, stops)
    }
}

// SAFETY: requests are queued in the order of `ops`, none after a stop or
// a failure, and without a failure each one's completion is reaped (and,
// with RECORD_LATENCY, recorded) before the loop returns.
unsafe impl QueuedLoop for UringEngine {
    /// The timed loop. With `RECORD_LATENCY` (-Q), each operation's latency
    /// is from when its request is queued in the ring to when its completion
    /// is reaped: what an application waits with this many in flight.
    #[inline(always)]
    fn run_queued<const RECORD_LATENCY: bool, C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure> {
        let fd = self.fd.raw();
        let UringEngine {
            ring: ring_slot,
            fixed,
            entries,
            table,
            free,
            staging,
            ..
        } = self;
        let Some(ring) = ring_slot.as_mut() else {
            return match ops.first() {
                Some(op) => Err(LoopFailure::of(op, closed())),
                None => Ok(Progress::default()),
            };
        };
        // Each in-flight read needs its own slot of the read buffer.
        let limit = (*entries).min(io.slots.max(1));
        free.clear();
        free.extend((0..limit as u32).rev());
        let pool = io.pool.as_ptr_range();
        // Fixed requests only for the buffers registered before the clock.
        let fixed_read = FixedBuf::index_for(fixed.read, io.read_buf);
        let fixed_pool = FixedBuf::index_for(fixed.pool, io.pool);

        let mut progress = Progress::default();
        let mut failure: Option<LoopFailure> = None;
        let mut next = 0;
        let mut in_flight = 0;
        let mut writes_in_flight = 0;
        loop {
            // Each request goes to the kernel as soon as it is made, as fio
            // does by default: a device then starts on it at once, rather than
            // after a batch is built and unplugged (about 12% more random-read
            // IOPS on a virtio disk). Once a request completes inside its own
            // submission (page cache hits), there is no device to keep busy,
            // and the rest of the round is queued and submitted with the wait:
            // one system call per round rather than one per request.
            let mut eager = true;
            // Queue what the ring and the stops allow.
            while failure.is_none()
                && progress.stopped.is_none()
                && next < ops.len()
                && in_flight < limit
            {
                if let Some(why) = stops.check() {
                    progress.stopped = Some(why);
                    break;
                }
                let op = &ops[next];
                let is_write = op.kind == OpKind::Write;
                if (writes_in_flight > 0 || (is_write && in_flight > 0))
                    && table[..limit]
                        .iter()
                        .any(|t| t.op != FREE && conflict(&ops[t.op], op))
                {
                    // Wait for the overlapping operation first.
                    break;
                }
                io.busy_ns += delay_before(op, io.compute_delay_ns, &stops, &io.intervals);
                let slot = free
                    .pop()
                    .expect("an idle entry while fewer than limit are in flight");
                if op.probes.any()
                    && let Err(f) = probe_with_pread(
                        fd,
                        io.read_slot(slot as usize, op.probes.bytes_each()),
                        op,
                    )
                {
                    free.push(slot);
                    failure = Some(f);
                    break;
                }
                let len = op.len.min(MAX_SUBMIT) as u32;
                let (entry, data) = if is_write {
                    let bytes = io.check.write_data(op, io.pool);
                    let mut data = bytes.as_ptr().cast_mut();
                    let end = bytes.as_ptr_range().end;
                    let in_pool = pool.start <= bytes.as_ptr() && end <= pool.end;
                    if !in_pool {
                        let copy = &mut staging[slot as usize];
                        if copy.as_ref().is_none_or(|c| c.len() < bytes.len()) {
                            *copy = Some(AlignedBuf::zeroed(bytes.len()));
                        }
                        let copy = copy.as_mut().expect("just made");
                        copy[..bytes.len()].copy_from_slice(bytes);
                        data = copy.as_mut_ptr();
                    }
                    let e = match fixed_pool.filter(|_| in_pool) {
                        Some(index) => opcode::WriteFixed::new(types::Fd(fd), data, len, index)
                            .offset(op.offset)
                            .build(),
                        None => opcode::Write::new(types::Fd(fd), data, len)
                            .offset(op.offset)
                            .build(),
                    };
                    (e, data)
                } else {
                    let data = io.read_slot(slot as usize, op.len).as_mut_ptr();
                    let e = match fixed_read {
                        Some(index) => opcode::ReadFixed::new(types::Fd(fd), data, len, index)
                            .offset(op.offset)
                            .build(),
                        None => opcode::Read::new(types::Fd(fd), data, len)
                            .offset(op.offset)
                            .build(),
                    };
                    (e, data)
                };
                let queued_ns = if RECORD_LATENCY { now_ns() } else { 0 };
                // SAFETY: the buffer stays valid and untouched by us until the
                // completion is reaped below: read slots are per entry, write
                // data is the pool (borrowed for the whole loop) or a staging
                // copy per entry. Every request is reaped before we return.
                unsafe { ring.submission().push(&entry.user_data(slot as u64)) }
                    .expect("room in the ring: no more in flight than entries");
                table[slot as usize] = InFlight {
                    op: next,
                    data,
                    queued_ns,
                };
                next += 1;
                in_flight += 1;
                writes_in_flight += usize::from(is_write);
                // The last request of the round goes with the wait below.
                if eager && in_flight < limit && next < ops.len() {
                    if let Err(e) = enter(ring, in_flight, false) {
                        *ring_slot = None;
                        return Err(enter_failure(e));
                    }
                    eager = ring.completion().is_empty();
                }
            }
            if in_flight == 0 {
                break;
            }
            if let Err(e) = enter(ring, in_flight, true) {
                // Nothing queued reached the kernel (enter aborts otherwise):
                // the ring is dropped with it, unusable.
                *ring_slot = None;
                return Err(enter_failure(e));
            }
            // Every completion of this round was seen at the same moment.
            let reaped_ns = if RECORD_LATENCY { now_ns() } else { 0 };
            for cqe in ring.completion() {
                let slot = cqe.user_data() as usize;
                let InFlight {
                    op: index,
                    data,
                    queued_ns,
                } = table[slot];
                table[slot] = InFlight::IDLE;
                if RECORD_LATENCY {
                    QueuedLatencies::record(&mut io.timing, index, reaped_ns - queued_ns);
                }
                let op = &ops[index];
                in_flight -= 1;
                let mut result = finish(fd, op, data, cqe.result());
                if op.kind == OpKind::Write {
                    writes_in_flight -= 1;
                } else if result.is_ok() {
                    let range = slot_range(io, slot, op.len);
                    result = io.check.check_read(op, &io.read_buf[range]);
                }
                free.push(slot as u32);
                match result {
                    Ok(()) => {
                        progress.bytes += op.len as u64;
                        progress.done += 1;
                    }
                    Err(e) => {
                        failure.get_or_insert_with(|| LoopFailure::of(op, e));
                    }
                }
            }
            // --interval: at the end of a round of completions.
            mark_interval(&mut io.intervals, &progress, &mut io.timing);
        }
        match failure {
            Some(f) => Err(f),
            None => Ok(progress),
        }
    }
}
