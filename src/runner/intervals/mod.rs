//! `--interval` around the timed loops of a pass (single and auto mode) or
//! a phase (throughput mode, one loop per worker): the rings the loops hand
//! their intervals over in, shared with forked workers, and the keeper — a
//! thread of the process that waits for the loops, never one that times —
//! which ticks every D from the clock's start, reads the page cache at each
//! tick ([`CacheProbe`]), turns the loops' records into intervals
//! ([`series`]), ends the intervals of a loop stuck in one operation (a
//! stall: no operation completed for a whole tick after its time was up)
//! and writes each one to the live file as soon as it is whole.
//!
//! The keeper runs from before the loops' clock starts to after every loop
//! ended: [`Keeper::start`] in a thread scope, [`Keeper::finish`] once the
//! loops are over, which gives every loop's intervals and their sum.

mod series;

use std::os::fd::RawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Duration;

use crate::engine::clock::now_ns;
use crate::engine::intervals::{IntervalMarks, IntervalRing};
use crate::model::intervals::{Interval, LiveHeading, LiveLine};
use crate::runner::recipe::{CellRecipe, PassRecipe};
use crate::runner::shared_words::SharedWords;
use crate::system::dirty::CacheProbe;
use crate::system::fd_table;
use series::Series;

/// Where the live file's lines go as intervals end (app writes them).
pub(crate) trait LiveSink: Sync {
    fn line(&self, line: &LiveLine);
    /// Called each time the keeper wakes: a sink that gathers other
    /// processes' lines (cluster mode's rank 0) takes them here.
    fn poll(&self) {}
    /// The keeper's loops have ended and their every line is written: a
    /// sink that gathers may wait for the others' last ones here.
    fn loops_ended(&self) {}
    /// The descriptors it writes through, when those are all it needs
    /// (`None`: it needs the process's every one, as MPI does): a keeper
    /// beside a pass's loop keeps only these in a table of its own.
    fn descriptors(&self) -> Option<Vec<RawFd>> {
        None
    }
}

/// With a live file, the longest the keeper sleeps between looks at the
/// rings: an interval a loop closed is in the live file within about this
/// (and a write). Without one it wakes at its ticks only, and when the
/// loops end ([`Keeper::finish`] wakes it): every wake of a thread beside
/// the loop is a chance for the machine to disturb it.
const POLL: Duration = Duration::from_millis(20);

/// The words before the rings: the tick, the clock's start, whether the
/// loops have ended and whether the keeper is ready, each on its own cache
/// line.
const TICK: usize = 0;
const ORIGIN: usize = 8;
const ENDED: usize = 16;
const READY: usize = 24;
const RINGS: usize = 32;

/// The longest a pass waits for its keeper to be ready (untimed).
const READY_WAIT: Duration = Duration::from_secs(2);

/// The rings of a pass's or a phase's loops, and the keeper's tick, in
/// shared memory made before any worker is forked.
pub(crate) struct IntervalRings {
    words: SharedWords,
    loops: u32,
    histogram: bool,
}

impl IntervalRings {
    /// Rings for `loops` loops, with room for their histograms (`--latency`).
    pub fn new(loops: u32, histogram: bool) -> std::io::Result<IntervalRings> {
        let each = IntervalRing::words_for(histogram);
        let words = (loops as usize)
            .checked_mul(each)
            .and_then(|w| w.checked_add(RINGS))
            .ok_or_else(|| std::io::Error::other("too many loops"))?;
        Ok(IntervalRings {
            words: SharedWords::new(words)?,
            loops,
            histogram,
        })
    }

    fn ring(&self, index: u32) -> IntervalRing<'_> {
        let each = IntervalRing::words_for(self.histogram);
        let at = RINGS + index as usize * each;
        IntervalRing::over(&self.words.words()[at..at + each], self.histogram)
    }

    /// Worker `index`'s side of a phase (the keeper's clock is the release).
    pub fn marks(&self, index: u32) -> IntervalMarks<'_> {
        IntervalMarks::new(self.ring(index), self.tick(), None)
    }

    /// A pass's one loop's side: its start starts the keeper's clock.
    fn pass_marks(&self) -> IntervalMarks<'_> {
        IntervalMarks::new(self.ring(0), self.tick(), Some(self.origin()))
    }

    fn tick(&self) -> &AtomicU64 {
        &self.words.words()[TICK]
    }

    /// Where the ticks count from in single and auto mode: the loop's start
    /// (its marks set it).
    fn origin(&self) -> &AtomicU64 {
        &self.words.words()[ORIGIN]
    }

    fn ended(&self) -> bool {
        self.words.words()[ENDED].load(Ordering::Acquire) != 0
    }

    /// The loops are over.
    fn end(&self) {
        self.words.words()[ENDED].store(1, Ordering::Release);
    }

    /// Waits (untimed, at most READY_WAIT) until the keeper is set up.
    fn wait_ready(&self) {
        let started = std::time::Instant::now();
        while self.words.words()[READY].load(Ordering::Acquire) == 0
            && started.elapsed() < READY_WAIT
        {
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

/// What the keeper needs besides the rings.
pub(crate) struct KeeperPlan<'a> {
    pub interval_ns: u64,
    /// Throughput mode: the barrier's release, which the workers' intervals
    /// are timed from (`None`: the rings' own start, and each loop's
    /// intervals from its own start).
    pub release: Option<&'a AtomicU64>,
    pub percentiles: &'a [f64],
    pub probe: CacheProbe,
    pub live: Option<(&'a dyn LiveSink, LiveHeading)>,
    /// A pass's one loop, whose thread is the only one measuring: the
    /// keeper leaves it the process's descriptor table (system::fd_table).
    pub alone: bool,
}

/// Whose loops a keeper keeps.
#[derive(Clone, Copy)]
pub(crate) enum Loops<'a> {
    /// A pass of single or auto mode, in repetition `run`.
    Pass { run: u32 },
    /// A phase of `workers` workers released at `release`.
    Phase {
        run: u32,
        workers: u32,
        release: &'a AtomicU64,
    },
}

/// The rings and the keeper's plan of a pass or a phase on `target`, made
/// before the clock; `None` without `--interval`.
pub(crate) fn prepare<'a>(
    cell: &'a CellRecipe<'_>,
    pass: &PassRecipe,
    loops: Loops<'a>,
    target: &Path,
    live: Option<&'a dyn LiveSink>,
) -> std::io::Result<Option<(IntervalRings, KeeperPlan<'a>)>> {
    let Some(interval_ns) = pass.interval_ns else {
        return Ok(None);
    };
    let (run, workers, release) = match loops {
        Loops::Pass { run } => (run, None, None),
        Loops::Phase {
            run,
            workers,
            release,
        } => (run, Some(workers), Some(release)),
    };
    let heading = LiveHeading {
        pass: pass.pass,
        run,
        file_bytes: cell.cell.file_bytes,
        record_bytes: cell.cell.record_bytes,
        workers,
    };
    let rings = IntervalRings::new(workers.unwrap_or(1), pass.latency_histogram)?;
    let plan = KeeperPlan {
        interval_ns,
        release,
        percentiles: cell.percentiles(),
        probe: CacheProbe::for_target(Path::new("/"), target),
        live: live.map(|sink| (sink, heading)),
        alone: matches!(loops, Loops::Pass { .. }),
    };
    Ok(Some((rings, plan)))
}

/// The intervals a keeper kept.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// Each loop's, in loop order (with the page cache when there is one loop).
    pub loops: Vec<Vec<Interval>>,
    /// Several loops: their sum index by index, with the page cache.
    pub sum: Vec<Interval>,
}

/// The keeper thread. Dropped unfinished (a phase that failed), it is
/// told the loops are over, and its scope waits for it.
pub(crate) struct Keeper<'scope, 'env> {
    rings: &'env IntervalRings,
    handle: Option<ScopedJoinHandle<'scope, Kept>>,
}

impl<'scope, 'env> Keeper<'scope, 'env> {
    /// Starts the keeper of `rings` in `scope`. With worker processes, only
    /// once they are all forked (a fork copies only the forking thread).
    pub fn start(
        scope: &'scope Scope<'scope, 'env>,
        rings: &'env IntervalRings,
        plan: KeeperPlan<'env>,
    ) -> Keeper<'scope, 'env> {
        Keeper {
            rings,
            handle: Some(scope.spawn(move || keep(rings, plan))),
        }
    }

    /// Every loop has ended (handed over its last interval, or failed):
    /// the keeper takes what is left and gives the intervals.
    pub fn finish(mut self) -> Kept {
        self.end();
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }

    /// Tells the keeper the loops are over, and wakes it.
    fn end(&self) {
        self.rings.end();
        if let Some(handle) = &self.handle {
            handle.thread().unpark();
        }
    }
}

impl Drop for Keeper<'_, '_> {
    fn drop(&mut self) {
        self.end();
    }
}

/// A pass's one loop, run by `body` with its marks, beside its keeper when
/// the pass has intervals (`keeper`).
pub(crate) fn one_loop<T>(
    keeper: Option<(&IntervalRings, KeeperPlan<'_>)>,
    body: impl FnOnce(Option<IntervalMarks<'_>>) -> T,
) -> (T, Kept) {
    match keeper {
        None => (body(None), Kept::default()),
        Some((rings, plan)) => std::thread::scope(|scope| {
            let keeper = Keeper::start(scope, rings, plan);
            rings.wait_ready();
            let out = body(Some(rings.pass_marks()));
            (out, keeper.finish())
        }),
    }
}

/// The keeper's work (see the module).
fn keep(rings: &IntervalRings, plan: KeeperPlan<'_>) -> Kept {
    if plan.alone {
        let kept = match plan.live {
            None => Some(Vec::new()),
            Some((sink, _)) => sink.descriptors(),
        };
        // Where it fails, the table stays shared: the loop pays the
        // kernel's cost of a second thread, and the intervals are as exact.
        if let Some(kept) = kept {
            let _ = fd_table::keep_only(&kept);
        }
    }
    rings.words.words()[READY].store(1, Ordering::Release);
    let origin_word = plan.release.unwrap_or(rings.origin());
    let origin = loop {
        let origin = origin_word.load(Ordering::Acquire);
        if origin != 0 {
            break Some(origin);
        }
        if rings.ended() {
            break None;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let mut series = Series::new(rings.loops, &plan, origin.unwrap_or(0));
    if let Some(origin) = origin {
        let d = plan.interval_ns;
        let mut tick = 0;
        loop {
            let now = now_ns();
            // Each loop's totals, looked at before a tick is raised: a
            // loop whose totals stay as they are has completed nothing
            // since before that tick (series.rs: a stall).
            for index in 0..rings.loops {
                let ring = rings.ring(index);
                let state = (ring.begun(), ring.totals(), ring.stopped(), ring.paused());
                series.look(index, state, now);
            }
            let passed = now.saturating_sub(origin) / d;
            if passed > tick {
                tick = passed;
                series.raised(tick, now_ns());
                series.sampled(tick, plan.probe.sample());
                rings.tick().store(tick, Ordering::Release);
            }
            let ended = rings.ended();
            for index in 0..rings.loops {
                while let Some(record) = rings.ring(index).take() {
                    series.add(index, record, &plan);
                }
            }
            if ended {
                break;
            }
            series.end_stalled(&plan, |index| {
                let ring = rings.ring(index);
                (ring.totals(), ring.stopped(), ring.paused())
            });
            series.write_whole(&plan);
            if let Some((sink, _)) = plan.live {
                sink.poll();
            }
            let next = origin + (tick + 1) * d;
            let wait = Duration::from_nanos(next.saturating_sub(now_ns()));
            // Woken early by the loops' end (or spuriously): the loop
            // looks again either way.
            std::thread::park_timeout(if plan.live.is_some() {
                wait.min(POLL)
            } else {
                wait
            });
        }
    }
    let kept = series.finish(&plan);
    if let Some((sink, _)) = plan.live {
        sink.loops_ended();
    }
    kept
}

#[cfg(test)]
mod tests;
