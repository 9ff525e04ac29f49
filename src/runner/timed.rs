//! The timed region. Nothing happens here but the operations under test: the
//! offsets, buffers and data were prepared before, and the only other work per
//! operation is a relaxed atomic load (the stop flag) and an addition.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::clock::now_ns;
use crate::engine::Engine;
use crate::pattern::{IoOp, OpKind};
use crate::signals::StopFlag;

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
    pub signal: &'a StopFlag,
    pub stonewall: Option<&'a AtomicBool>,
}

impl Stops<'_> {
    #[inline]
    fn check(&self) -> Option<EarlyStop> {
        if let Some(sig) = self.signal.signal() {
            return Some(EarlyStop::Signal(sig));
        }
        match self.stonewall {
            Some(wall) if wall.load(Ordering::Relaxed) => Some(EarlyStop::Stonewall),
            _ => None,
        }
    }
}

/// What the timed loop did.
#[derive(Debug, PartialEq, Eq)]
pub struct LoopOutcome {
    /// CLOCK_MONOTONIC at the start and end of the timed region.
    pub start_ns: u64,
    pub end_ns: u64,
    pub bytes: u64,
    pub ops_done: usize,
    /// Why the loop stopped before its last operation, if it did.
    pub stopped: Option<EarlyStop>,
}

impl LoopOutcome {
    pub fn elapsed_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }
}

/// The operation that failed inside the timed region.
#[derive(Debug)]
pub struct LoopFailure {
    pub operation: &'static str,
    pub offset: Option<u64>,
    pub error: io::Error,
}

/// What to include in the timing besides the operations.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimedExtras {
    /// `-e`: sync (fsync, or fflush+fsync) before the clock stops.
    pub sync: bool,
    /// `-c`: close before the clock stops.
    pub close: bool,
}

/// Runs `ops` on `engine`: reads land in `read_buf`, writes come from `pool`.
#[inline(never)]
pub fn timed_loop<E: Engine>(
    engine: &mut E,
    ops: &[IoOp],
    read_buf: &mut [u8],
    pool: &[u8],
    extras: TimedExtras,
    stops: Stops<'_>,
) -> Result<LoopOutcome, LoopFailure> {
    let mut bytes = 0u64;
    let mut done = 0usize;
    let mut stopped = None;
    let start_ns = now_ns();
    for op in ops {
        if let Some(why) = stops.check() {
            stopped = Some(why);
            break;
        }
        let result = match op.kind {
            OpKind::Read => engine.read_at(&mut read_buf[..op.len], op.offset),
            OpKind::Write => engine.write_at(&pool[op.source..op.source + op.len], op.offset),
        };
        if let Err(error) = result {
            return Err(LoopFailure {
                operation: match op.kind {
                    OpKind::Read => "read",
                    OpKind::Write => "write",
                },
                offset: Some(op.offset),
                error,
            });
        }
        bytes += op.len as u64;
        done += 1;
    }
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
    Ok(LoopOutcome {
        start_ns,
        end_ns,
        bytes,
        ops_done: done,
        stopped,
    })
}
