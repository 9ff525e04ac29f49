//! The timed region. Nothing happens here but the operations under test: the
//! offsets, buffers and data were prepared before, and the only other work per
//! operation is a relaxed atomic load (the stop flag) and an addition.

use std::io;
use std::time::Instant;

use crate::engine::Engine;
use crate::pattern::{IoOp, OpKind};
use crate::signals::StopFlag;

/// What the timed loop did.
#[derive(Debug, PartialEq, Eq)]
pub struct LoopOutcome {
    pub elapsed_ns: u64,
    pub bytes: u64,
    pub ops_done: usize,
    /// The signal that stopped the loop early, if one did.
    pub interrupted: Option<i32>,
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
    stop: &StopFlag,
) -> Result<LoopOutcome, LoopFailure> {
    let mut bytes = 0u64;
    let mut done = 0usize;
    let mut interrupted = None;
    let start = Instant::now();
    for op in ops {
        if let Some(sig) = stop.signal() {
            interrupted = Some(sig);
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
    if interrupted.is_none() {
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
    let elapsed_ns = start.elapsed().as_nanos() as u64;
    Ok(LoopOutcome {
        elapsed_ns,
        bytes,
        ops_done: done,
        interrupted,
    })
}
