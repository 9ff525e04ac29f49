//! The timed region. Nothing happens here but the operations under test: the
//! offsets, buffers and data were prepared before, and the only other work per
//! operation is a relaxed atomic load (the stop flag) and an addition (with
//! `--interval`, one more load and comparison: engine/intervals.rs).

use crate::data::check::DataCheck;
use crate::data::pattern::IoOp;
use crate::engine::clock::now_ns;
use crate::engine::{EarlyStop, Engine, LoopFailure, LoopIo, Progress, Stops};

/// What the timed loop did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct LoopOutcome {
    /// CLOCK_MONOTONIC at the start and end of the timed region.
    pub start_ns: u64,
    pub end_ns: u64,
    pub bytes: u64,
    pub ops_done: usize,
    /// Why the loop stopped before its last operation, if it did.
    pub stopped: Option<EarlyStop>,
    /// `-J` compute time spent inside the region, which the result leaves out.
    pub busy_ns: u64,
}

impl LoopOutcome {
    /// Time of the I/O: the timed region less the -J compute time.
    pub fn elapsed_ns(&self) -> u64 {
        (self.end_ns - self.start_ns)
            .saturating_sub(self.busy_ns)
            .max(1)
    }
}

/// What to include in the timing besides the operations.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TimedExtras {
    /// `-e`: sync (fsync, or fflush+fsync) before the clock stops.
    pub sync: bool,
    /// `-c`: close before the clock stops.
    pub close: bool,
}

/// Runs `ops` on `engine` between two clock reads: reads land in the loop's
/// read slots, writes come from its pool, the check sees every operation.
#[inline(never)]
pub(crate) fn timed_loop<E: Engine, C: DataCheck>(
    engine: &mut E,
    ops: &[IoOp],
    io: &mut LoopIo<'_, C>,
    extras: TimedExtras,
    stops: Stops<'_>,
) -> Result<LoopOutcome, LoopFailure> {
    let start_ns = now_ns();
    if let Some(marks) = io.intervals.as_mut() {
        marks.begin(start_ns);
    }
    let Progress {
        bytes,
        done,
        stopped,
    } = engine.run_ops(ops, io, stops)?;
    if stopped.is_none() {
        if extras.sync {
            engine.sync().map_err(|error| LoopFailure {
                operation: "fsync",
                offset: None,
                error,
            })?;
        }
        if extras.close {
            engine.close().map_err(|error| LoopFailure {
                operation: "close",
                offset: None,
                error,
            })?;
        }
    }
    let end_ns = now_ns();
    // --interval: the last interval, handed over after the clock stopped.
    if let Some(marks) = io.intervals.as_mut() {
        marks.finish(end_ns, bytes, done, io.timing.histogram.as_deref_mut());
    }
    Ok(LoopOutcome {
        start_ns,
        end_ns,
        bytes,
        ops_done: done,
        stopped,
        // Measured busy time where the engine kept it, else the nominal delay.
        busy_ns: if io.busy_ns > 0 {
            io.busy_ns
        } else {
            io.compute_delay_ns * done as u64
        },
    })
}
