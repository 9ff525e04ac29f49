//! What every engine runs inside the timed region: the [`Engine`] trait (and
//! [`WithEngine`], the work handed an opened engine), and a sequence of
//! operations with the data checks and early stops of the run. Synchronous
//! engines use [`sync_ops`]; engines that keep several operations in flight
//! (io_uring, POSIX AIO) implement [`QueuedLoop`] and their
//! [`Engine::run_ops`] is [`queued_ops`], the one preamble they share.

use std::io;
use std::os::fd::RawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::intervals::IntervalMarks;
use super::open::OpenSpec;
use super::syscall;
use super::timing::OpTiming;
use crate::data::check::DataCheck;
use crate::data::pattern::{IoOp, OpKind};

/// Why a loop ended before its last operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyStop {
    /// A signal asked the whole run to stop.
    Signal(i32),
    /// Throughput mode: another worker finished first (stonewalling).
    Stonewall,
}

/// What can end a loop early: signals always, the stonewall when given.
#[derive(Clone, Copy, Debug)]
pub struct Stops<'a> {
    /// The number of the first stop signal received, 0 while there is none
    /// (the word of the run's `StopFlag`, which the engines need not know).
    pub signal: &'a AtomicUsize,
    pub stonewall: Option<&'a AtomicBool>,
}

impl Stops<'_> {
    #[inline]
    pub fn check(&self) -> Option<EarlyStop> {
        match self.signal.load(Ordering::Relaxed) {
            0 => {}
            sig => return Some(EarlyStop::Signal(sig as i32)),
        }
        match self.stonewall {
            Some(wall) if wall.load(Ordering::Relaxed) => Some(EarlyStop::Stonewall),
            _ => None,
        }
    }
}

/// The operation that failed inside the timed region.
#[derive(Debug)]
pub struct LoopFailure {
    pub operation: &'static str,
    pub offset: Option<u64>,
    pub error: io::Error,
}

impl LoopFailure {
    pub fn of(op: &IoOp, error: io::Error) -> LoopFailure {
        LoopFailure {
            operation: match op.kind {
                OpKind::Read => "read",
                OpKind::Write => "write",
            },
            offset: Some(op.offset),
            error,
        }
    }

    /// A `-K` probe read at `offset` failed.
    pub fn probe(offset: u64, error: io::Error) -> LoopFailure {
        LoopFailure {
            operation: "read (-K probe)",
            offset: Some(offset),
            error,
        }
    }
}

/// Buffers and per-operation work of a loop.
pub struct LoopIo<'a, C: DataCheck> {
    /// Where reads land: `slots` × the largest operation, so an engine with
    /// operations in flight gives each its own slot.
    pub read_buf: &'a mut [u8],
    pub slots: usize,
    /// Where writes come from (through the check's `write_data`, which may
    /// stamp a slot just before its write: data::stamp).
    pub pool: &'a mut [u8],
    pub check: &'a mut C,
    /// `-J`: busy-wait this long before each operation (subtracted later).
    pub compute_delay_ns: u64,
    /// The busy-waiting actually done (it can exceed the nominal delay when
    /// the CPU is taken away mid-wait); 0 when the engine did not measure it.
    pub busy_ns: u64,
    /// Per-operation latencies (-Q, --latency, -+z) and pacing (-+O), all
    /// made before the clock starts, so recording never allocates.
    pub timing: OpTiming<'a>,
    /// `--interval`: where the loop ends its intervals and hands them over.
    pub intervals: Option<IntervalMarks<'a>>,
}

/// `--interval` in a loop: the loop's totals for the keeper, and the
/// current interval ended when a tick has come, the loop having made
/// `progress` (out of line but for the test).
#[inline(always)]
pub fn mark_interval(
    marks: &mut Option<IntervalMarks<'_>>,
    progress: &Progress,
    timing: &mut OpTiming<'_>,
) {
    if let Some(m) = marks.as_mut() {
        m.progress(progress.bytes, progress.done);
        if m.due() {
            m.close(
                progress.bytes,
                progress.done,
                timing.histogram.as_deref_mut(),
            );
        }
    }
}

impl<C: DataCheck> LoopIo<'_, C> {
    /// The read slot `index` (of `slots`), `len` bytes long.
    #[inline]
    pub fn read_slot(&mut self, index: usize, len: usize) -> &mut [u8] {
        let size = self.read_buf.len() / self.slots.max(1);
        let start = (index % self.slots.max(1)) * size;
        &mut self.read_buf[start..start + len]
    }
}

/// `-Q`: a buffer for `n` latencies whose pages are already touched, so that
/// recording in the timed loop neither allocates nor page-faults.
pub fn latency_buffer(n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = Vec::with_capacity(n);
    // Reserved memory may be a fresh mapping nobody has touched: one store
    // per page maps it now (volatile, so that it is not left out).
    for at in (0..v.capacity()).step_by(4096 / std::mem::size_of::<u64>()) {
        // SAFETY: at < capacity: inside the allocation; the Vec stays empty.
        unsafe { v.as_mut_ptr().add(at).write_volatile(0) };
    }
    v
}

/// `-Q` for engines whose operations complete out of order (io_uring, AIO):
/// each latency is stored at its operation's index in the latency buffer's
/// spare room, and [`QueuedLatencies::commit`] makes the first `done` of
/// them part of the buffer once the loop is over.
pub(crate) struct QueuedLatencies;

impl QueuedLatencies {
    /// Makes room for one latency per operation (no allocation when the
    /// caller reserved it before the clock, as the runners do).
    #[inline]
    pub fn prepare<C: DataCheck>(io: &mut LoopIo<'_, C>, ops: usize) {
        if let Some(v) = io.timing.list.as_deref_mut() {
            v.reserve(ops);
        }
    }

    /// The latency of operation `index` of this loop (completion minus
    /// submission), to -Q's list at its index and to the summaries.
    #[inline(always)]
    pub fn record(timing: &mut OpTiming<'_>, index: usize, ns: u64) {
        if let Some(v) = timing.list.as_deref_mut() {
            v.spare_capacity_mut()[index].write(ns);
        }
        timing.record_summaries(ns);
    }

    /// Adds the latencies of operations `0..done` to the buffer.
    ///
    /// # Safety
    /// [`QueuedLatencies::record`] was called for every index in `0..done`
    /// since [`QueuedLatencies::prepare`].
    #[inline]
    pub unsafe fn commit<C: DataCheck>(io: &mut LoopIo<'_, C>, done: usize) {
        if let Some(v) = io.timing.list.as_deref_mut() {
            // SAFETY: the caller recorded (initialised) these `done` entries,
            // which lie within the capacity reserved by `prepare`.
            unsafe { v.set_len(v.len() + done) };
        }
    }
}

/// An engine with operations in flight (io_uring, POSIX AIO): its timed
/// loop, compiled twice by [`queued_ops`], with `RECORD_LATENCY` (-Q: a clock
/// read per request, each latency given to [`QueuedLatencies::record`]) and
/// without.
///
/// # Safety
/// With `RECORD_LATENCY`, an `Ok(progress)` means that the operations done
/// are the first `progress.done` of `ops` and that
/// [`QueuedLatencies::record`] was called for each of them.
pub(crate) unsafe trait QueuedLoop {
    fn run_queued<const RECORD_LATENCY: bool, C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure>;
}

/// [`Engine::run_ops`] of a queued engine: two compiled loops, so the usual
/// one reads no clock per request; with -Q, room for a latency per
/// operation before the loop and the recorded ones kept after it.
#[inline(always)]
pub(crate) fn queued_ops<E: QueuedLoop, C: DataCheck>(
    engine: &mut E,
    ops: &[IoOp],
    io: &mut LoopIo<'_, C>,
    stops: Stops<'_>,
) -> Result<Progress, LoopFailure> {
    if io.timing.is_on() {
        QueuedLatencies::prepare(io, ops.len());
        let progress = engine.run_queued::<true, C>(ops, io, stops)?;
        // SAFETY: QueuedLoop's contract: every one of the first
        // `progress.done` operations was recorded since `prepare`.
        unsafe { QueuedLatencies::commit(io, progress.done) };
        Ok(progress)
    } else {
        engine.run_queued::<false, C>(ops, io, stops)
    }
}

/// How far a loop got.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub bytes: u64,
    pub done: usize,
    pub stopped: Option<EarlyStop>,
}

/// Busy-waits `ns` nanoseconds (-J): compute time between operations, cut
/// short when `stops` says the loop must end (a delay may last up to an
/// hour). Returns the time actually spent.
#[inline]
pub fn compute_delay(ns: u64, stops: &Stops<'_>) -> u64 {
    if ns == 0 {
        return 0;
    }
    let start = crate::engine::clock::now_ns();
    let mut now = start;
    while now < start + ns && stops.check().is_none() {
        std::hint::spin_loop();
        now = crate::engine::clock::now_ns();
    }
    now - start
}

/// Busy-waits before `op`: the -J delay plus the operation's own telemetry
/// delay (0 outside telemetry runs), said to `marks` (--interval) as a
/// pause. Returns the time actually spent.
#[inline(always)]
pub fn delay_before(
    op: &IoOp,
    compute_delay_ns: u64,
    stops: &Stops<'_>,
    marks: &Option<IntervalMarks<'_>>,
) -> u64 {
    let ns = compute_delay_ns + op.delay_ms as u64 * 1_000_000;
    if ns == 0 {
        return 0;
    }
    paused(marks, || compute_delay(ns, stops))
}

/// `f`, a pause between operations, said to `marks` (--interval): while
/// it lasts no operation is in flight, so an interval the keeper ends
/// meanwhile is no stall.
#[cold]
#[inline(never)]
fn paused<T>(marks: &Option<IntervalMarks<'_>>, f: impl FnOnce() -> T) -> T {
    if let Some(m) = marks {
        m.pausing(true);
    }
    let out = f();
    if let Some(m) = marks {
        m.pausing(false);
    }
    out
}

/// One operation at a time, in order: the loop of every synchronous engine.
#[inline]
pub fn sync_ops<E: Engine, C: DataCheck>(
    engine: &mut E,
    ops: &[IoOp],
    io: &mut LoopIo<'_, C>,
    stops: Stops<'_>,
) -> Result<Progress, LoopFailure> {
    // Compiled apart, so the usual loop reads no clock and tests nothing
    // per operation for -Q, --latency, -+z, -+O or --interval.
    match (io.timing.is_on(), io.intervals.is_some()) {
        (false, false) => ops_loop::<false, false, E, C>(engine, ops, io, stops),
        (true, false) => ops_loop::<true, false, E, C>(engine, ops, io, stops),
        (false, true) => ops_loop::<false, true, E, C>(engine, ops, io, stops),
        (true, true) => ops_loop::<true, true, E, C>(engine, ops, io, stops),
    }
}

#[inline(always)]
fn ops_loop<const TIMED: bool, const MARKS: bool, E: Engine, C: DataCheck>(
    engine: &mut E,
    ops: &[IoOp],
    io: &mut LoopIo<'_, C>,
    stops: Stops<'_>,
) -> Result<Progress, LoopFailure> {
    let mut progress = Progress::default();
    // --interval: held here for the loop, given back at its end.
    let mut marks = if MARKS { io.intervals.take() } else { None };
    // One clock read per operation boundary: the end of one operation is
    // the start of the next (read again only after a -J/-K/-+O pause).
    // -+O's deadlines are monotonic ns: a paced loop never reads the TSC.
    debug_assert!(io.timing.pace_ns == 0 || io.timing.tsc.is_none());
    let mut started = if TIMED { io.timing.now() } else { 0 };
    // -+O: when the operation under way was due to start.
    let mut scheduled = started;
    for op in ops {
        if let Some(why) = stops.check() {
            progress.stopped = Some(why);
            break;
        }
        let busy = delay_before(op, io.compute_delay_ns, &stops, &marks);
        io.busy_ns += busy;
        if op.probes.any() {
            probe(engine, io.read_buf, op)?;
        }
        if TIMED && (busy != 0 || op.probes.any()) {
            started = io.timing.now();
        }
        let result = match op.kind {
            OpKind::Read => {
                let buf = &mut io.read_buf[op.source..op.source + op.len];
                engine
                    .read_at(buf, op.offset)
                    .and_then(|()| io.check.check_read(op, buf))
            }
            OpKind::Write => {
                let data = io.check.write_data(op, io.pool);
                engine.write_at(data, op.offset)
            }
        };
        if TIMED {
            let ended = io.timing.now();
            io.timing.record(io.timing.elapsed_ns(started, ended));
            started = ended;
            if io.timing.pace_ns > 0 {
                // -+O: the next operation is due one interval after this
                // one was; the wait is slept away outside its latency. Due
                // times follow the schedule (a late wake-up is not carried
                // over), and a late operation starts the schedule anew.
                let due = scheduled + io.timing.pace_ns;
                if ended < due {
                    started = paused(&marks, || pace(due, &stops));
                    scheduled = due;
                } else {
                    scheduled = ended;
                }
            }
        }
        if let Err(error) = result {
            return Err(LoopFailure::of(op, error));
        }
        progress.bytes += op.len as u64;
        progress.done += 1;
        if MARKS {
            mark_interval(&mut marks, &progress, &mut io.timing);
        }
    }
    io.intervals = marks.or(io.intervals.take());
    Ok(progress)
}

/// `-+O`: sleeps until `deadline_ns` (CLOCK_MONOTONIC), or until a stop
/// comes; returns the clock when it woke.
#[cold]
#[inline(never)]
fn pace(deadline_ns: u64, stops: &Stops<'_>) -> u64 {
    let deadline = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    // A signal (EINTR) ends the sleep early; the loop then sees the stop.
    if stops.check().is_none() {
        // SAFETY: clock_nanosleep reads the timespec we own; with
        // TIMER_ABSTIME the remainder pointer is not used.
        unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &deadline,
                std::ptr::null_mut(),
            )
        };
    }
    crate::engine::clock::now_ns()
}

/// `-K` for the engines with operations in flight: the probes before `op`,
/// done at once with plain `pread` on `fd` (the queue holds the records; the
/// probes only have to come between the records around them), into `buf`,
/// a read slot no request in flight uses.
#[cold]
#[inline(never)]
pub(crate) fn probe_with_pread(fd: RawFd, buf: &mut [u8], op: &IoOp) -> Result<(), LoopFailure> {
    for (offset, len) in op.probes.reads() {
        super::transfer::pread_all(fd, &mut buf[..len], offset)
            .map_err(|error| LoopFailure::probe(offset, error))?;
    }
    Ok(())
}

/// `-K`: the probe reads before `op`, into the start of the read buffer.
/// Out of line and marked cold, so the loop pays one predictable test per
/// operation for them.
#[cold]
#[inline(never)]
fn probe<E: Engine>(engine: &mut E, buf: &mut [u8], op: &IoOp) -> Result<(), LoopFailure> {
    for (offset, len) in op.probes.reads() {
        engine
            .probe_at(&mut buf[..len], offset)
            .map_err(|error| LoopFailure::probe(offset, error))?;
    }
    Ok(())
}

/// One way of moving records. Calls are made inside the timed region, so an
/// implementation does the syscall(s) and nothing else.
pub trait Engine {
    /// Untimed: opens `path` as `spec` says (checked against `spec.expect`)
    /// and makes ready what the engine keeps (a ring, a mapping, a stream).
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<Self>
    where
        Self: Sized;
    /// Fills `buf` from the file at `offset`.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` to the file at `offset`.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// A `-K` probe read: fills `buf` from `offset` like [`Engine::read_at`]
    /// (what a wrapper adds around records, such as locks, it leaves out).
    #[inline]
    fn probe_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.read_at(buf, offset)
    }
    /// Makes what was written durable (`-e`): fsync, or fflush+fsync for stdio.
    fn sync(&mut self) -> io::Result<()>;
    /// Untimed, before the clock: what earlier passes left dirty made
    /// durable, as IOzone fsyncs the file before its loop.
    fn settle(&mut self) -> io::Result<()> {
        syscall::fsync(self.raw_fd())
    }
    /// Closes the file, reporting any error the close reveals. Idempotent.
    fn close(&mut self) -> io::Result<()>;
    /// The descriptor, for untimed housekeeping (locks, fsync before the pass).
    fn raw_fd(&self) -> RawFd;

    /// Untimed, before the clock (and before a throughput barrier): the
    /// loop's read buffer and write pool, the same for every [`Engine::run_ops`]
    /// of this pass, outliving the engine. io_uring registers them with its
    /// ring; the others need nothing.
    fn prepare_buffers(&mut self, _read_buf: &[u8], _pool: &[u8]) {}

    /// Runs `ops` in the timed region. Synchronous engines keep this default,
    /// one operation at a time; engines with operations in flight override it.
    #[inline]
    fn run_ops<C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure>
    where
        Self: Sized,
    {
        sync_ops(self, ops, io, stops)
    }
}

/// Work to do with an opened engine, whatever its type: the engine is a type
/// parameter so the timed loop is compiled for each engine, with no dynamic calls.
pub trait WithEngine {
    type Output;
    fn run<E: Engine>(self, engine: E) -> Self::Output;
}
