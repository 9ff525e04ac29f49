//! The steps of one pass, shared by single and auto mode and by throughput
//! workers (which wait at a barrier between setup and the clock): open the
//! engine (untimed), [`before_loop`] (untimed), the timed region
//! ([`ReadyPass::timed`]), [`after_loop`] (untimed unless -e/-c), and the
//! byte check.

use std::io;
use std::os::fd::RawFd;
use std::path::Path;

use nix::sys::resource::{UsageWho, getrusage};

use super::recipe::{CheckKind, PassRecipe};
use super::setup::{drop_caches, lock_whole_file, purge_cpu_cache};
use super::timed::{LoopOutcome, timed_loop};
use crate::data::buffer::touch;
use crate::data::check::{DataCheck, NoCheck};
use crate::data::dedup::ImageWrites;
use crate::data::pattern::{IoOp, OpKind, PROBE_PAGE};
use crate::data::stamp::Stamped;
use crate::data::verify::Verifier;
use crate::engine::intervals::IntervalMarks;
use crate::engine::{
    Engine, LoopFailure, LoopIo, OpTiming, OpenSpec, Stops, WithEngine, latency_buffer, open_chosen,
};
use crate::error::IoFailure;
use crate::model::histogram::LatencyHistogram;
use crate::model::latency::{IozoneBands, OpLatency};
use crate::model::residency::Residency;
use crate::model::result::RegionUsage;
use crate::model::workload::Pass;
use crate::system::residency::{Reading, ResidencyProbe, Sources};

/// Opens the engine of `recipe` on `path` as `spec` says (untimed) and hands
/// it to `body`, wrapped in per-record locking with -+l/-+L.
pub(crate) fn with_engine<W: WithEngine>(
    recipe: &PassRecipe,
    spec: &OpenSpec,
    path: &Path,
    body: W,
) -> Result<W::Output, IoFailure> {
    let fail = failure(recipe.pass, path);
    open_chosen(recipe.engine, path, spec, recipe.record_locking, body).map_err(|e| {
        if recipe.direct && e.raw_os_error() == Some(libc::EINVAL) {
            fail(
                "open with O_DIRECT (-I)",
                None,
                io::Error::new(e.kind(), "the file system does not support O_DIRECT"),
            )
        } else {
            fail("open", None, e)
        }
    })
}

/// The loop's memory: where reads land (one slot per operation in flight)
/// and where writes come from (stamped just before each write with the
/// default data: data::stamp).
pub(crate) struct Buffers<'a> {
    pub read_buf: &'a mut [u8],
    pub pool: &'a mut [u8],
}

/// Untimed, before the clock: flush what earlier passes left dirty, let the
/// engine prepare for the loop's buffers (io_uring registers them), bring
/// the buffers `ops` use into the caches, evict the CPU caches (-p), write a
/// page (-Z), drop the page cache before reads (--drop-caches) and take the
/// -W lock.
pub(crate) fn before_loop<E: Engine>(
    engine: &mut E,
    recipe: &PassRecipe,
    path: &Path,
    buffers: &mut Buffers<'_>,
    ops: &[IoOp],
) -> Result<(), IoFailure> {
    let fail = failure(recipe.pass, path);
    let setup = &recipe.setup;
    engine.settle().map_err(|e| fail("fsync", None, e))?;
    // Before -p's purge, which should be the last thing to touch the caches.
    engine.prepare_buffers(buffers.read_buf, buffers.pool);
    if setup.touch_buffers {
        let (read, pool) = reach(recipe, ops, buffers);
        touch(&mut buffers.read_buf[..read]);
        touch(&mut buffers.pool[..pool]);
    }
    if let Some(purge) = setup.purge {
        purge_cpu_cache(purge);
    }
    if setup.write_page_first {
        // -Z: plain file I/O on the file the pass then writes (through mmap
        // with -B); the pass overwrites this page, so its content is moot.
        let page = crate::data::buffer::AlignedBuf::zeroed(4096);
        crate::engine::pwrite_all(engine.raw_fd(), &page, 0)
            .map_err(|e| fail("write (-Z) to", Some(0), e))?;
    }
    drop_caches(engine.raw_fd(), setup.drop_caches)
        .map_err(|e| fail("drop the page cache of", None, e))?;
    if setup.lock_file {
        let kind = if recipe.only_reads() {
            libc::F_RDLCK
        } else {
            libc::F_WRLCK
        };
        lock_whole_file(engine.raw_fd(), kind).map_err(|e| fail("lock", None, e))?;
    }
    Ok(())
}

/// The bytes of the read buffer and of the write pool that `ops` use, each
/// from its start: where reads land (every slot of an engine that keeps
/// reads in flight) and where writes take their data (none from the pool
/// under -V/-+d, whose writes send the check's own buffer).
fn reach(recipe: &PassRecipe, ops: &[IoOp], buffers: &Buffers<'_>) -> (usize, usize) {
    let (mut read, mut pool) = (0, 0);
    for op in ops {
        if op.probes.any() {
            read = read.max(PROBE_PAGE as usize);
        }
        match op.kind {
            OpKind::Read if recipe.slots() > 1 => read = buffers.read_buf.len(),
            OpKind::Read => read = read.max(op.source + op.len),
            OpKind::Write => {
                let end = match recipe.check {
                    CheckKind::Image => op.offset as usize + op.len,
                    CheckKind::Verify { .. } => 0,
                    CheckKind::Plain | CheckKind::Stamped { .. } => op.source + op.len,
                };
                pool = pool.max(end);
            }
        }
    }
    (
        read.min(buffers.read_buf.len()),
        pool.min(buffers.pool.len()),
    )
}

/// Untimed, after the clock: make written data durable (so the next pass does
/// not pay for it; IOzone syncs after its reads too, and so does a pass of
/// single and auto mode), release the lock and close — unless -e/-c timed
/// them.
pub(crate) fn after_loop<E: Engine>(
    engine: &mut E,
    recipe: &PassRecipe,
    path: &Path,
) -> Result<(), IoFailure> {
    if recipe.extras.close {
        return Ok(());
    }
    let fail = failure(recipe.pass, path);
    if recipe.sync_after {
        engine.sync().map_err(|e| fail("fsync", None, e))?;
    }
    if recipe.setup.lock_file {
        lock_whole_file(engine.raw_fd(), libc::F_UNLCK).map_err(|e| fail("unlock", None, e))?;
    }
    engine.close().map_err(|e| fail("close", None, e))
}

/// How a ready pass sends and checks data.
enum Check {
    Plain,
    Stamped(Stamped),
    Image,
    Verify(Verifier),
}

/// A pass made ready before the clock: its data check (-V/-+d, with its
/// write buffer) and room for every operation's latency (-Q), histogram
/// (--latency) and IOzone buckets (-+z).
pub(crate) struct ReadyPass<'r> {
    checked: CheckedLoop<'r>,
    latencies: Option<Vec<u64>>,
    histogram: Option<LatencyHistogram>,
    bands: Option<IozoneBands>,
}

/// The loop of a pass with its data check.
struct CheckedLoop<'r> {
    recipe: &'r PassRecipe,
    path: &'r Path,
    check: Check,
}

impl<'r> ReadyPass<'r> {
    /// `record_bytes`: what verification reports call a record.
    pub fn new(
        recipe: &'r PassRecipe,
        path: &'r Path,
        ops: &[IoOp],
        record_bytes: Option<usize>,
    ) -> ReadyPass<'r> {
        let check = match recipe.check {
            CheckKind::Plain => Check::Plain,
            CheckKind::Stamped { tag } => Check::Stamped(Stamped::new(tag)),
            CheckKind::Image => Check::Image,
            CheckKind::Verify { verify, slide } => {
                match Verifier::for_ops(verify, slide, record_bytes, ops) {
                    Some(v) => Check::Verify(v),
                    None => Check::Plain,
                }
            }
        };
        ReadyPass {
            checked: CheckedLoop {
                recipe,
                path,
                check,
            },
            latencies: recipe.record_latencies.then(|| latency_buffer(ops.len())),
            histogram: recipe.latency_histogram.then(LatencyHistogram::new),
            bands: recipe.iozone_bands.then(IozoneBands::default),
        }
    }

    /// The timed region over `ops`, with `-e`/`-c` as the run asks and every
    /// operation's latency recorded with -Q. Verification mismatches fail the
    /// pass once the clock has stopped.
    /// With --interval, `intervals` is where the loop hands its intervals over.
    pub fn timed<E: Engine>(
        &mut self,
        engine: &mut E,
        ops: &[IoOp],
        buffers: &mut Buffers<'_>,
        stops: Stops<'_>,
        intervals: Option<IntervalMarks<'_>>,
    ) -> Result<LoopOutcome, IoFailure> {
        let timing = OpTiming {
            list: self.latencies.as_mut(),
            histogram: self.histogram.as_mut(),
            bands: self.bands.as_mut(),
            pace_ns: self.checked.recipe.pace_ns,
            tsc: self.checked.recipe.tsc,
        };
        self.checked
            .run(engine, ops, buffers, stops, (timing, intervals))
    }

    /// After a stonewall, uncounted: the writes a worker had left, so that
    /// later readers find the file whole.
    pub fn finish_writes<E: Engine>(
        &mut self,
        engine: &mut E,
        rest: &[IoOp],
        buffers: &mut Buffers<'_>,
        stops: Stops<'_>,
    ) -> Result<LoopOutcome, IoFailure> {
        self.checked
            .run(engine, rest, buffers, stops, (OpTiming::none(), None))
    }

    /// With --latency, the pass's histogram.
    pub fn histogram(&self) -> Option<&LatencyHistogram> {
        self.histogram.as_ref()
    }

    /// With -+z, the pass's counts in IOzone's buckets.
    pub fn bands(&self) -> Option<&IozoneBands> {
        self.bands.as_ref()
    }

    /// Fails the pass when a complete loop moved other than the whole pass.
    pub fn check_bytes(&self, outcome: &LoopOutcome) -> Result<(), IoFailure> {
        let recipe = self.checked.recipe;
        let expected = recipe.size.bytes;
        if outcome.stopped.is_none() && outcome.bytes != expected {
            return Err(failure(recipe.pass, self.checked.path)(
                "check byte count of",
                None,
                io::Error::other(format!(
                    "moved {} bytes, expected {expected}",
                    outcome.bytes
                )),
            ));
        }
        Ok(())
    }

    /// With -Q, each operation done with its latency, in the order done.
    pub fn latencies(&self, ops: &[IoOp]) -> Option<Vec<OpLatency>> {
        self.latencies.as_ref().map(|ns| {
            ops.iter()
                .zip(ns)
                .map(|(op, &latency_ns)| OpLatency {
                    offset: op.offset,
                    bytes: op.len as u64,
                    latency_ns,
                })
                .collect()
        })
    }

    /// The raw latencies (ns, in operation order), for a worker to hand over.
    pub fn latencies_ns(&self) -> Option<&[u64]> {
        self.latencies.as_deref()
    }
}

impl CheckedLoop<'_> {
    fn run<E: Engine>(
        &mut self,
        engine: &mut E,
        ops: &[IoOp],
        buffers: &mut Buffers<'_>,
        stops: Stops<'_>,
        timing: (OpTiming<'_>, Option<IntervalMarks<'_>>),
    ) -> Result<LoopOutcome, IoFailure> {
        let recipe = self.recipe;
        let fail = failure(recipe.pass, self.path);
        let loop_failure = |LoopFailure {
                                operation,
                                offset,
                                error,
                            }| fail(operation, offset, error);
        let looped = match &mut self.check {
            Check::Plain => run_loop(engine, ops, buffers, &mut NoCheck, recipe, stops, timing),
            // The default data: each write's blocks stamped in its pool slot.
            Check::Stamped(stamped) => {
                run_loop(engine, ops, buffers, stamped, recipe, stops, timing)
            }
            // Dedup data: the pool is the file's image, and writes take it at
            // their offsets.
            Check::Image => {
                debug_assert!(
                    ops.iter()
                        .all(|op| op.offset as usize + op.len <= buffers.pool.len())
                );
                run_loop(
                    engine,
                    ops,
                    buffers,
                    &mut ImageWrites,
                    recipe,
                    stops,
                    timing,
                )
            }
            Check::Verify(verifier) => {
                let outcome = run_loop(engine, ops, buffers, verifier, recipe, stops, timing)
                    .map_err(loop_failure)?;
                // Mismatches are counted to the end of the pass, then fail it.
                if let Some(bad) = verifier.mismatches() {
                    return Err(fail(
                        "verify the data read from",
                        Some(bad.first.unit_offset),
                        bad.to_io_error(),
                    ));
                }
                return Ok(outcome);
            }
        };
        looped.map_err(loop_failure)
    }
}

/// The one place the loop's inputs are put together.
fn run_loop<E: Engine, C: DataCheck>(
    engine: &mut E,
    ops: &[IoOp],
    buffers: &mut Buffers<'_>,
    check: &mut C,
    recipe: &PassRecipe,
    stops: Stops<'_>,
    (timing, intervals): (OpTiming<'_>, Option<IntervalMarks<'_>>),
) -> Result<LoopOutcome, LoopFailure> {
    let mut io = LoopIo {
        read_buf: buffers.read_buf,
        slots: recipe.slots(),
        pool: buffers.pool,
        check,
        compute_delay_ns: recipe.compute_delay_ns,
        busy_ns: 0,
        timing,
        intervals,
    };
    timed_loop(engine, ops, &mut io, recipe.extras, stops)
}

/// Builds the error for an operation of `pass` on `path`.
pub(crate) fn failure(
    pass: Pass,
    path: &Path,
) -> impl Fn(&'static str, Option<u64>, io::Error) -> IoFailure + '_ {
    failure_in(Some(pass), path)
}

/// Builds the error for an operation on `path`, during `pass` when there is
/// one (the untimed fill before a reading test belongs to none).
pub(crate) fn failure_in(
    pass: Option<Pass>,
    path: &Path,
) -> impl Fn(&'static str, Option<u64>, io::Error) -> IoFailure + '_ {
    move |operation, offset, source| IoFailure {
        operation,
        path: path.to_path_buf(),
        offset,
        pass,
        source,
    }
}

/// What the page cache held of a pass's file: read once just before the
/// clock starts ([`ResidencyWatch::start`], after every untimed step before
/// it: the fsync, --drop-caches) and once just after it stops
/// ([`ResidencyWatch::end`], before the untimed fsync after it, so a write
/// pass shows what its clock left dirty). Its read-only descriptor is held
/// until the watch is dropped, after [`after_loop`]: a close of ours would
/// drop a -W lock.
pub(crate) struct ResidencyWatch {
    probe: ResidencyProbe,
    start: Reading,
}

impl ResidencyWatch {
    /// The pages of the file open on `fd` (the pass's) now, the last thing
    /// before the clock.
    pub fn start(fd: RawFd) -> ResidencyWatch {
        let probe = ResidencyProbe::of_fd(fd, Sources::from_env());
        let start = probe.read();
        ResidencyWatch { probe, start }
    }

    /// The file's pages now, the first thing after the clock, with those at
    /// the start.
    pub fn end(&self) -> Residency {
        match (&self.start, self.probe.read()) {
            (Ok((source, start)), Ok((_, end))) => Residency {
                source: *source,
                why: None,
                start: Some(*start),
                end: Some(end),
            },
            (Err(why), _) => Residency::unknown(why.clone()),
            (_, Err(why)) => Residency::unknown(why),
        }
    }
}

/// What this process (RUSAGE_SELF) or thread (RUSAGE_THREAD) has used so
/// far: taken just before and just after a timed region, with one getrusage
/// each, outside the clock.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct UsageSample {
    pub user_ns: u64,
    pub system_ns: u64,
    counts: RegionUsage,
}

impl UsageSample {
    /// The usage so far (all zero when getrusage fails, which it does not
    /// for these two).
    pub fn now(who: UsageWho) -> UsageSample {
        let Ok(u) = getrusage(who) else {
            return UsageSample::default();
        };
        let ns = |t: nix::sys::time::TimeVal| {
            t.tv_sec() as u64 * 1_000_000_000 + t.tv_usec() as u64 * 1000
        };
        let count = |n: libc::c_long| n.max(0) as u64;
        UsageSample {
            user_ns: ns(u.user_time()),
            system_ns: ns(u.system_time()),
            counts: RegionUsage {
                minor_faults: count(u.minor_page_faults()),
                major_faults: count(u.major_page_faults()),
                voluntary_context_switches: count(u.voluntary_context_switches()),
                involuntary_context_switches: count(u.involuntary_context_switches()),
            },
        }
    }

    /// What was used between `before` and this sample.
    pub fn since(&self, before: &UsageSample) -> UsageSample {
        let c = (&self.counts, &before.counts);
        UsageSample {
            user_ns: self.user_ns.saturating_sub(before.user_ns),
            system_ns: self.system_ns.saturating_sub(before.system_ns),
            counts: RegionUsage {
                minor_faults: c.0.minor_faults.saturating_sub(c.1.minor_faults),
                major_faults: c.0.major_faults.saturating_sub(c.1.major_faults),
                voluntary_context_switches: c
                    .0
                    .voluntary_context_switches
                    .saturating_sub(c.1.voluntary_context_switches),
                involuntary_context_switches: c
                    .0
                    .involuntary_context_switches
                    .saturating_sub(c.1.involuntary_context_switches),
            },
        }
    }

    /// The page faults and context switches of the difference.
    pub fn counts(&self) -> RegionUsage {
        self.counts
    }
}
