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

use std::io;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::os::fd::RawFd;
use std::path::Path;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicBool, Ordering};

use io_uring::{IoUring, Probe, opcode, squeue, types};
use nix::sys::mman::{MapFlags, ProtFlags, mmap_anonymous};

use super::batch::{QueuedLatencies, delay_before, probe_with_pread};
use super::{DataCheck, Descriptor, Engine, LoopFailure, LoopIo, OpenSpec, Progress, Stops};
use super::{positional::pread_all, positional::pwrite_all, transfer_all};
use crate::buffer::AlignedBuf;
use crate::clock::now_ns;
use crate::pattern::{IoOp, OpKind};

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

/// The largest buffer the kernel registers (it refuses more than 1 GiB).
const MAX_FIXED: usize = 1 << 30;

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

/// The loop's buffers as registered with the ring; `None` where not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct FixedBuffers {
    read: Option<FixedBuf>,
    pool: Option<FixedBuf>,
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
    pub fn open(path: &Path, spec: &OpenSpec) -> io::Result<UringEngine> {
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

/// Registers `read_buf` and `pool` (those that are not empty and not over
/// [`MAX_FIXED`]) with `ring`, in place of what it had registered.
fn register(ring: &IoUring, read_buf: &[u8], pool: &[u8]) -> io::Result<FixedBuffers> {
    // Nothing registered is not an error worth telling apart (ENXIO).
    let _ = ring.submitter().unregister_buffers();
    let mut iovecs = Vec::with_capacity(2);
    let mut entry = |buf: &[u8]| {
        if buf.is_empty() || buf.len() > MAX_FIXED {
            return None;
        }
        iovecs.push(libc::iovec {
            iov_base: buf.as_ptr().cast_mut().cast(),
            iov_len: buf.len(),
        });
        Some(FixedBuf {
            start: buf.as_ptr() as usize,
            len: buf.len(),
            index: (iovecs.len() - 1) as u16,
        })
    };
    let fixed = FixedBuffers {
        read: entry(read_buf),
        pool: entry(pool),
    };
    if iovecs.is_empty() {
        return Ok(fixed);
    }
    // SAFETY: the iovecs describe live buffers. The kernel pins their pages
    // until they are unregistered or the ring is dropped, so it never writes
    // to memory that is no longer theirs; and fixed requests name them only
    // while they are the loop's buffers (see FixedBuf::index_for).
    unsafe { ring.submitter().register_buffers(&iovecs) }?;
    Ok(fixed)
}

/// Whether the fixed-buffer warning was printed. It lives in a shared
/// mapping made before throughput workers are forked ([`share_with_workers`]),
/// so a run prints it once however many workers and phases meet the refusal.
static FIXED_REFUSAL_TOLD: LazyLock<&'static AtomicBool> = LazyLock::new(shared_flag);

/// A flag in an anonymous shared mapping, never unmapped (one page a run);
/// a process-local one where the mapping cannot be made.
fn shared_flag() -> &'static AtomicBool {
    let len = NonZeroUsize::new(std::mem::size_of::<AtomicBool>()).expect("non-zero size");
    // SAFETY: a fresh anonymous mapping; a zero byte is a valid AtomicBool (false).
    let mapped = unsafe {
        mmap_anonymous(
            None,
            len,
            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
            MapFlags::MAP_SHARED,
        )
    };
    match mapped {
        // SAFETY: the mapping is valid, aligned and initialised for the rest
        // of the process, which never unmaps it.
        Ok(ptr) => unsafe { ptr.cast::<AtomicBool>().as_ref() },
        Err(_) => Box::leak(Box::new(AtomicBool::new(false))),
    }
}

/// Called before throughput workers are forked: makes the warning flag one
/// that they share with the parent.
pub fn share_with_workers() {
    LazyLock::force(&FIXED_REFUSAL_TOLD);
}

/// The warning for a refused registration of `bytes` bytes.
fn fixed_refusal(e: &io::Error, bytes: usize) -> String {
    let why = match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => e.to_string(),
    };
    let limit = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_MEMLOCK)
        .ok()
        .filter(|_| e.raw_os_error() == Some(libc::ENOMEM))
        .map(|(soft, _)| {
            if soft == libc::RLIM_INFINITY {
                "; RLIMIT_MEMLOCK is unlimited".to_string()
            } else {
                format!("; RLIMIT_MEMLOCK is {} KiB", soft / 1024)
            }
        })
        .unwrap_or_default();
    format!(
        "ioz: warning: io_uring did not register the {} KiB of I/O buffers \
         (IORING_REGISTER_BUFFERS: {why}{limit}): plain reads and writes instead of fixed-buffer ones",
        bytes.div_ceil(1024)
    )
}

/// The error for an engine whose ring is gone.
fn closed() -> io::Error {
    io::Error::other("the io_uring engine is closed")
}

/// A ring of `entries` entries, set up as fio does: single issuer with
/// deferred task work (6.1+), else cooperative task work (5.19+), else plain.
fn new_ring(entries: u32) -> io::Result<IoUring> {
    let attempts: [fn(&mut io_uring::Builder) -> &mut io_uring::Builder; 3] = [
        |b| {
            b.setup_coop_taskrun()
                .setup_single_issuer()
                .setup_defer_taskrun()
        },
        |b| b.setup_coop_taskrun(),
        |b| b,
    ];
    let mut last = None;
    for setup in attempts {
        match setup(&mut IoUring::builder()).build(entries) {
            Ok(ring) => return check_opcodes(ring),
            // Flags this kernel does not know: try fewer.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            Err(e) => return Err(unavailable("io_uring_setup", &e)),
        }
    }
    Err(unavailable(
        "io_uring_setup",
        &last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::EINVAL)),
    ))
}

/// Checks that the ring has the non-vectored read and write (Linux 5.6+).
fn check_opcodes(ring: IoUring) -> io::Result<IoUring> {
    let mut probe = Probe::new();
    if let Err(e) = ring.submitter().register_probe(&mut probe) {
        return Err(unavailable("IORING_REGISTER_PROBE (Linux 5.6+ needed)", &e));
    }
    if !probe.is_supported(opcode::Read::CODE) || !probe.is_supported(opcode::Write::CODE) {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "io_uring on this system lacks IORING_OP_READ/IORING_OP_WRITE (Linux 5.6+ needed)",
        ));
    }
    Ok(ring)
}

/// The one-line error that says io_uring cannot be used. It carries no OS
/// error code, so nothing mistakes it for the open's own error (O_DIRECT's EINVAL).
fn unavailable(call: &str, e: &io::Error) -> io::Error {
    let why = match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => e.to_string(),
    };
    let kind = match e.raw_os_error() {
        Some(libc::EPERM | libc::EACCES) => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Unsupported,
    };
    io::Error::new(
        kind,
        format!("io_uring is not available on this system ({call}: {why})"),
    )
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
                    eprintln!(
                        "ioz: io_uring_enter failed ({e}) with {} requests in flight; \
                         they cannot be waited for",
                        in_flight - queued
                    );
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

impl Engine for UringEngine {
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

    fn sync(&mut self) -> io::Result<()> {
        // Nothing is in flight between calls: a plain fsync is the same thing.
        self.fd.fsync()
    }

    fn close(&mut self) -> io::Result<()> {
        // The ring holds nothing in flight between calls; dropping it first
        // leaves the descriptor's close as the last one, whose error counts.
        self.ring = None;
        self.fd.close()
    }

    fn raw_fd(&self) -> RawFd {
        self.fd.raw()
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
                    eprintln!("{}", fixed_refusal(&e, read_buf.len() + pool.len()));
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
        // Two compiled loops, so the usual one reads no clock per request.
        if io.latencies.is_some() {
            self.run_queued::<true, C>(ops, io, stops)
        } else {
            self.run_queued::<false, C>(ops, io, stops)
        }
    }
}

impl UringEngine {
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
        if RECORD_LATENCY {
            QueuedLatencies::prepare(io, ops.len());
        }
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
                io.busy_ns += delay_before(op, io.compute_delay_ns);
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
                    QueuedLatencies::record(&mut io.latencies, index, reaped_ns - queued_ns);
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
        }
        match failure {
            Some(f) => Err(f),
            None => {
                if RECORD_LATENCY {
                    // SAFETY: without a failure every request queued was
                    // reaped (and recorded), and they are the first
                    // `progress.done` operations: queued in order, none after a stop.
                    unsafe { QueuedLatencies::commit(io, progress.done) };
                }
                Ok(progress)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fs;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::engine::{NoCheck, Stops};
    use crate::pattern::random_permutation;
    use crate::signals::StopFlag;

    const REC: usize = 4096;

    fn spec(depth: u32, writable: bool) -> OpenSpec {
        OpenSpec {
            writable,
            create: true,
            truncate: false,
            extra_flags: 0,
            record_bytes: REC,
            file_bytes: 0,
            depth,
            msync: Default::default(),
            madvise: None,
            aio_no_copy: false,
        }
    }

    /// The engine, or None (with the reason printed) where io_uring is unavailable.
    fn open(path: &Path, depth: u32, writable: bool) -> Option<UringEngine> {
        match UringEngine::open(path, &spec(depth, writable)) {
            Ok(e) => Some(e),
            Err(e) if e.to_string().contains("io_uring is not available") => {
                eprintln!("skipped: {e}");
                None
            }
            Err(e) => panic!("open: {e}"),
        }
    }

    /// The byte record `i` holds in the test files.
    fn fill_byte(i: u64) -> u8 {
        (i * 37 + 11) as u8
    }

    /// Registers the buffers as a pass does; false (with the reason printed)
    /// where the kernel refuses.
    fn register(engine: &mut UringEngine, read_buf: &[u8], pool: &[u8]) -> bool {
        engine.prepare_buffers(read_buf, pool);
        let registered = engine.fixed != FixedBuffers::default();
        if !registered {
            eprintln!("skipped the fixed-buffer case: the kernel refused the registration");
        }
        registered
    }

    /// The ring's `/proc/self/fdinfo` text, which lists registered buffers.
    fn ring_fdinfo(engine: &UringEngine) -> String {
        use std::os::fd::AsRawFd;
        let fd = engine.ring.as_ref().expect("an open ring").as_raw_fd();
        fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap()
    }

    fn record_file(dir: &Path, n: u64) -> std::path::PathBuf {
        let path = dir.join("f");
        let mut data = Vec::new();
        for i in 0..n {
            let mut rec = vec![fill_byte(i); REC];
            rec[..8].copy_from_slice(&i.to_le_bytes());
            data.extend_from_slice(&rec);
        }
        fs::write(&path, data).unwrap();
        path
    }

    fn read_ops(records: &[u64]) -> Vec<IoOp> {
        records
            .iter()
            .map(|&r| IoOp::at(r * REC as u64, REC, OpKind::Read))
            .collect()
    }

    /// Counts check_read calls per offset and checks each read's bytes; can
    /// raise a stonewall after some reads.
    #[derive(Default)]
    struct Counting<'a> {
        seen: BTreeMap<u64, usize>,
        wall_after: Option<(usize, &'a AtomicBool)>,
    }

    impl DataCheck for Counting<'_> {
        fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a [u8]) -> &'a [u8] {
            &pool[op.source..op.source + op.len]
        }
        fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()> {
            *self.seen.entry(op.offset).or_default() += 1;
            let i = op.offset / REC as u64;
            assert_eq!(data.len(), op.len);
            assert_eq!(data[..8], i.to_le_bytes(), "record {i} read another record");
            assert!(data[8..].iter().all(|&b| b == fill_byte(i)), "record {i}");
            if let Some((n, wall)) = self.wall_after
                && self.seen.values().sum::<usize>() >= n
            {
                wall.store(true, Ordering::Relaxed);
            }
            Ok(())
        }
    }

    fn stops<'a>(flag: &'a StopFlag, wall: Option<&'a AtomicBool>) -> Stops<'a> {
        Stops {
            signal: flag,
            stonewall: wall,
        }
    }

    fn read_buf(depth: usize) -> AlignedBuf {
        AlignedBuf::zeroed(REC * depth)
    }

    #[test]
    fn every_read_reaches_check_read_once_with_its_own_data() {
        let dir = tempfile::tempdir().unwrap();
        let n = 1000;
        let path = record_file(dir.path(), n);
        for (depth, fixed) in [
            (1u32, false),
            (7, false),
            (32, false),
            (1, true),
            (32, true),
        ] {
            let Some(mut engine) = open(&path, depth, false) else {
                return;
            };
            let ops = read_ops(&random_permutation(n));
            let mut buf = read_buf(depth as usize);
            if fixed && !register(&mut engine, &buf, &[]) {
                continue;
            }
            let mut check = Counting::default();
            let mut io = LoopIo {
                read_buf: &mut buf,
                slots: depth as usize,
                pool: &[],
                check: &mut check,
                compute_delay_ns: 0,
                busy_ns: 0,
                latencies: None,
            };
            let flag = StopFlag::default();
            let p = engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
            assert_eq!(
                (p.bytes, p.done, p.stopped),
                (n * REC as u64, n as usize, None)
            );
            let offsets: Vec<u64> = check.seen.keys().copied().collect();
            let all: Vec<u64> = (0..n).map(|i| i * REC as u64).collect();
            assert_eq!(offsets, all, "depth {depth}, fixed {fixed}: every offset");
            assert!(
                check.seen.values().all(|&c| c == 1),
                "depth {depth}, fixed {fixed}: once each"
            );
            engine.close().unwrap();
            engine.close().unwrap();
        }
    }

    /// Remembers whether each read saw its record or zeros.
    #[derive(Default)]
    struct SeenData {
        right: usize,
        zeros: usize,
    }

    impl DataCheck for SeenData {
        fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a [u8]) -> &'a [u8] {
            &pool[op.source..op.source + op.len]
        }
        fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()> {
            let i = op.offset / REC as u64;
            if data[..8] == i.to_le_bytes() && data[8..].iter().all(|&b| b == fill_byte(i)) {
                self.right += 1;
            } else if data.iter().all(|&b| b == 0) {
                self.zeros += 1;
            }
            Ok(())
        }
    }

    #[test]
    fn registered_reads_land_in_the_pages_registered_before_the_clock() {
        use nix::sys::mman::{MmapAdvise, madvise, munmap};
        let dir = tempfile::tempdir().unwrap();
        let n = 64;
        let path = record_file(dir.path(), n);
        let Some(mut engine) = open(&path, 8, false) else {
            return;
        };
        let len = NonZeroUsize::new(8 * REC).unwrap();
        // SAFETY: a fresh private anonymous mapping, unmapped at the end.
        let map = unsafe {
            mmap_anonymous(
                None,
                len,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_PRIVATE,
            )
        }
        .unwrap();
        // SAFETY: the mapping is ours, len bytes, zero-filled.
        let buf = unsafe { std::slice::from_raw_parts_mut(map.as_ptr().cast::<u8>(), len.get()) };
        buf.fill(1);
        let ops = read_ops(&random_permutation(n));
        let flag = StopFlag::default();
        let run = |engine: &mut UringEngine, buf: &mut [u8]| {
            let mut check = SeenData::default();
            let mut io = LoopIo {
                read_buf: buf,
                slots: 8,
                pool: &[],
                check: &mut check,
                compute_delay_ns: 0,
                busy_ns: 0,
                latencies: None,
            };
            let p = engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
            assert_eq!(p.done, n as usize);
            (check.right, check.zeros)
        };
        assert!(!ring_fdinfo(&engine).contains("UserBufs:\t1"));
        if !register(&mut engine, buf, &[]) {
            return;
        }
        assert!(
            ring_fdinfo(&engine).contains("UserBufs:\t1"),
            "{}",
            ring_fdinfo(&engine)
        );
        assert_eq!(run(&mut engine, buf), (n as usize, 0), "registered");
        // Swap the pages under the buffer: the kernel keeps the registered
        // (pinned) ones, so fixed reads land there and the buffer reads zeros.
        // That is how we know the loop used READ_FIXED on those pages.
        // SAFETY: the range is our mapping; its contents are not needed.
        unsafe { madvise(map, len.get(), MmapAdvise::MADV_DONTNEED) }.unwrap();
        assert_eq!(run(&mut engine, buf), (0, n as usize), "stale registration");
        // Registering again (as every pass does, before its clock) repairs it.
        assert!(register(&mut engine, buf, &[]));
        assert_eq!(run(&mut engine, buf), (n as usize, 0), "registered again");
        engine.close().unwrap();
        // SAFETY: unmapping our mapping; `buf` is not used after this.
        unsafe { munmap(map, len.get()) }.unwrap();
    }

    #[test]
    fn buffers_outside_the_registration_use_plain_requests() {
        let a = [0u8; 64];
        let fixed = Some(FixedBuf {
            start: a.as_ptr() as usize,
            len: 32,
            index: 1,
        });
        assert_eq!(FixedBuf::index_for(fixed, &a[..32]), Some(1));
        assert_eq!(FixedBuf::index_for(fixed, &a[8..16]), Some(1));
        assert_eq!(FixedBuf::index_for(fixed, &a[..33]), None);
        assert_eq!(FixedBuf::index_for(fixed, &a[40..]), None);
        assert_eq!(FixedBuf::index_for(None, &a), None);
    }

    #[test]
    fn a_stop_drains_what_is_in_flight_and_reports_a_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let n = 500;
        let path = record_file(dir.path(), n);
        let Some(mut engine) = open(&path, 16, false) else {
            return;
        };
        let ops = read_ops(&(0..n).collect::<Vec<_>>());
        let mut buf = read_buf(16);
        let wall = AtomicBool::new(false);
        let mut check = Counting {
            wall_after: Some((100, &wall)),
            ..Default::default()
        };
        let mut io = LoopIo {
            read_buf: &mut buf,
            slots: 16,
            pool: &[],
            check: &mut check,
            compute_delay_ns: 0,
            busy_ns: 0,
            latencies: None,
        };
        let flag = StopFlag::default();
        let p = engine
            .run_ops(&ops, &mut io, stops(&flag, Some(&wall)))
            .unwrap();
        assert_eq!(p.stopped, Some(crate::engine::EarlyStop::Stonewall));
        assert!(p.done >= 100 && p.done < n as usize, "done {}", p.done);
        assert_eq!(p.bytes, (p.done * REC) as u64);
        // What completed is exactly the first `done` operations.
        let expect: Vec<u64> = (0..p.done as u64).map(|i| i * REC as u64).collect();
        assert_eq!(check.seen.keys().copied().collect::<Vec<_>>(), expect);
    }

    #[test]
    fn q_latencies_follow_the_operations_done() {
        let dir = tempfile::tempdir().unwrap();
        let n = 300;
        let path = record_file(dir.path(), n);
        let Some(mut engine) = open(&path, 16, false) else {
            return;
        };
        let ops = read_ops(&random_permutation(n));
        let flag = StopFlag::default();
        for wall_after in [None, Some(100)] {
            let wall = AtomicBool::new(false);
            let mut check = Counting {
                wall_after: wall_after.map(|n| (n, &wall)),
                ..Default::default()
            };
            // An earlier pass's latency is kept in front.
            let mut latencies = vec![7u64];
            let mut buf = read_buf(16);
            let mut io = LoopIo {
                read_buf: &mut buf,
                slots: 16,
                pool: &[],
                check: &mut check,
                compute_delay_ns: 0,
                busy_ns: 0,
                latencies: Some(&mut latencies),
            };
            let p = engine
                .run_ops(&ops, &mut io, stops(&flag, Some(&wall)))
                .unwrap();
            match wall_after {
                None => assert_eq!(p.done, n as usize),
                Some(_) => assert!(p.done >= 100 && p.done < n as usize, "{}", p.done),
            }
            assert_eq!(latencies.len(), 1 + p.done);
            assert_eq!(latencies[0], 7);
            assert!(latencies[1..].iter().all(|&ns| ns > 0), "{latencies:?}");
        }
        engine.close().unwrap();
    }

    #[test]
    fn writes_at_depth_land_like_one_at_a_time_even_over_one_record() {
        writes_land_like_one_at_a_time(false);
        writes_land_like_one_at_a_time(true);
    }

    fn writes_land_like_one_at_a_time(fixed: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w");
        let Some(mut engine) = open(&path, 32, true) else {
            return;
        };
        let n = 300u64;
        let mut pool = AlignedBuf::zeroed(REC * 16);
        for (i, chunk) in pool.chunks_mut(REC).enumerate() {
            chunk.fill(i as u8 + 1);
        }
        // Random writes over the file, then 40 writes of record 0 (record rewrite).
        let mut ops: Vec<IoOp> = random_permutation(n)
            .into_iter()
            .enumerate()
            .map(|(i, r)| IoOp {
                source: (i % 16) * REC,
                ..IoOp::at(r * REC as u64, REC, OpKind::Write)
            })
            .collect();
        ops.extend((0..40).map(|i| IoOp {
            source: (i % 16) * REC,
            ..IoOp::at(0, REC, OpKind::Write)
        }));
        let mut buf = read_buf(32);
        if fixed && !register(&mut engine, &buf, &pool) {
            return;
        }
        let mut io = LoopIo {
            read_buf: &mut buf,
            slots: 32,
            pool: &pool,
            check: &mut NoCheck,
            compute_delay_ns: 0,
            busy_ns: 0,
            latencies: None,
        };
        let flag = StopFlag::default();
        let p = engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
        assert_eq!(p.done, ops.len());
        engine.sync().unwrap();
        engine.close().unwrap();
        let mut expect = vec![0u8; n as usize * REC];
        for op in &ops {
            let at = op.offset as usize;
            expect[at..at + REC].copy_from_slice(&pool[op.source..op.source + REC]);
        }
        assert!(
            fs::read(&path).unwrap() == expect,
            "file differs (fixed {fixed})"
        );
    }

    /// Sends bytes from its own buffer, which it changes on every call.
    struct OwnData(Vec<u8>);

    impl DataCheck for OwnData {
        fn write_data<'a>(&'a mut self, op: &IoOp, _pool: &'a [u8]) -> &'a [u8] {
            self.0.clear();
            self.0.resize(op.len, (op.offset / REC as u64) as u8 ^ 0x5a);
            &self.0
        }
        fn check_read(&mut self, _op: &IoOp, _data: &[u8]) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn write_data_from_outside_the_pool_is_copied_per_request() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w");
        let Some(mut engine) = open(&path, 8, true) else {
            return;
        };
        let ops: Vec<IoOp> = (0..64u64)
            .map(|r| IoOp::at(r * REC as u64, REC, OpKind::Write))
            .collect();
        let mut buf = read_buf(8);
        // Registered buffers do not cover the check's own data: plain writes.
        register(&mut engine, &buf, &[]);
        let mut check = OwnData(Vec::new());
        let mut io = LoopIo {
            read_buf: &mut buf,
            slots: 8,
            pool: &[],
            check: &mut check,
            compute_delay_ns: 0,
            busy_ns: 0,
            latencies: None,
        };
        let flag = StopFlag::default();
        engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
        engine.close().unwrap();
        let file = fs::read(&path).unwrap();
        for (r, rec) in file.chunks(REC).enumerate() {
            assert!(rec.iter().all(|&b| b == r as u8 ^ 0x5a), "record {r}");
        }
    }

    #[test]
    fn errors_name_the_operation_and_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = record_file(dir.path(), 8);
        let Some(mut engine) = open(&path, 4, false) else {
            return;
        };
        let mut buf = read_buf(4);
        let flag = StopFlag::default();
        // Past the end: a short read.
        let ops = read_ops(&[1, 2, 20, 3]);
        let mut io = LoopIo {
            read_buf: &mut buf,
            slots: 4,
            pool: &[],
            check: &mut NoCheck,
            compute_delay_ns: 0,
            busy_ns: 0,
            latencies: None,
        };
        let f = engine
            .run_ops(&ops, &mut io, stops(&flag, None))
            .unwrap_err();
        assert_eq!((f.operation, f.offset), ("read", Some(20 * REC as u64)));
        assert_eq!(f.error.kind(), io::ErrorKind::UnexpectedEof, "{}", f.error);
        // A write on a read-only descriptor: the kernel's EBADF.
        let pool = AlignedBuf::zeroed(REC);
        let ops = [IoOp::at(0, REC, OpKind::Write)];
        let mut io = LoopIo {
            read_buf: &mut buf,
            slots: 4,
            pool: &pool,
            check: &mut NoCheck,
            compute_delay_ns: 0,
            busy_ns: 0,
            latencies: None,
        };
        let f = engine
            .run_ops(&ops, &mut io, stops(&flag, None))
            .unwrap_err();
        assert_eq!((f.operation, f.offset), ("write", Some(0)));
        assert_eq!(f.error.raw_os_error(), Some(libc::EBADF));
        // The engine is still usable afterwards.
        let mut one = vec![0u8; REC];
        engine.read_at(&mut one, 5 * REC as u64).unwrap();
        assert_eq!(one[..8], 5u64.to_le_bytes());
    }

    #[test]
    fn single_calls_continue_short_transfers_and_report_eof() {
        let dir = tempfile::tempdir().unwrap();
        let path = record_file(dir.path(), 4);
        let Some(mut engine) = open(&path, 1, true) else {
            return;
        };
        engine.write_at(&[7u8; 100], 3 * REC as u64 + 50).unwrap();
        let mut buf = vec![0u8; 2 * REC];
        engine.read_at(&mut buf, REC as u64).unwrap();
        assert_eq!(buf[..8], 1u64.to_le_bytes());
        // Crosses end of file: the kernel returns part, the rest is EOF.
        let err = engine.read_at(&mut buf, 3 * REC as u64).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert!(
            err.to_string().contains(&format!("after {REC} of")),
            "{err}"
        );
        engine.close().unwrap();
        assert!(engine.read_at(&mut buf, 0).is_err());
    }
}
