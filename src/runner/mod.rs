//! Runs a plan cell by cell: prepares the file and buffers (untimed), runs each
//! selected test's passes, and hands every finished row to the caller at once.

mod pass;
mod shared;
mod throughput;
mod timed;
mod worker;

#[cfg(test)]
mod tests;

use std::fs;

pub use pass::{
    PassEnd, PassInputs, WithEngine, after_loop, before_loop, cpu_ns, failure, open_spec, run_pass,
    timed, with_engine,
};
pub use throughput::{ThroughputEvent, ThroughputOutcome, phases, run_throughput};
pub use timed::{
    DataCheck, EarlyStop, LoopFailure, LoopIo, LoopOutcome, NoCheck, Stops, TimedExtras, timed_loop,
};

use crate::buffer::{AlignedBuf, fill, pool_bytes};
use crate::config::RunConfig;
use crate::engine::{Engine, OpenSpec, PositionalEngine};
use crate::error::{IoFailure, RunError};
use crate::pattern::{PatternOptions, build_ops, largest_op};
use crate::plan::{Cell, Plan};
use crate::result::{CellResult, Measurement, RunStatus};
use crate::safety::TargetFile;
use crate::signals::StopFlag;
use crate::telemetry;
use crate::workload::Direction;

/// Progress reported while the run goes on.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// A pass finished (for progress bars).
    PassDone(&'a Measurement),
    /// A row is complete (or, when the run ends inside it, as complete as it got).
    RowDone(&'a CellResult),
}

/// How the run ended, with every row measured before the end.
pub struct RunOutcome {
    pub cells: Vec<CellResult>,
    pub status: RunStatus,
    pub error: Option<RunError>,
}

/// Runs every cell of the plan; `on_event` sees each pass and each row as soon
/// as it is done (a partial row too, when a failure or signal ends the run in it).
pub fn run(
    config: &RunConfig,
    plan: &Plan,
    mut target: TargetFile,
    stop: &StopFlag,
    mut on_event: impl FnMut(RunEvent<'_>),
) -> RunOutcome {
    let mut cells = Vec::new();
    let mut status = RunStatus::Complete;
    let mut error: Option<IoFailure> = None;
    for (index, cell) in plan.cells.iter().enumerate() {
        if let Some(sig) = stop.signal() {
            status = RunStatus::Interrupted(sig);
            break;
        }
        let mut row = CellResult {
            cell: *cell,
            measurements: Vec::new(),
        };
        let end = run_cell(
            config,
            cell,
            index as u64,
            &mut target,
            stop,
            &mut row,
            &mut on_event,
        )
        .and_then(|signal| remove_unless_kept(config, &mut target).map(|_| signal));
        if !row.measurements.is_empty() {
            on_event(RunEvent::RowDone(&row));
            cells.push(row);
        }
        match end {
            Ok(None) => {}
            Ok(Some(sig)) => {
                status = RunStatus::Interrupted(sig);
                break;
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    // Whatever ended the run, ioz's file goes (unless -w); the first error wins.
    let cleanup = remove_unless_kept(config, &mut target);
    let error = error.or(cleanup.err());
    if let Some(e) = &error {
        status = RunStatus::Failed(e.to_string());
    }
    RunOutcome {
        cells,
        status,
        error: error.map(RunError::Io),
    }
}

fn remove_unless_kept(config: &RunConfig, target: &mut TargetFile) -> Result<(), IoFailure> {
    if config.keep_file {
        Ok(())
    } else {
        target.remove()
    }
}

/// Runs one cell's passes into `row`; returns the stopping signal, if any.
fn run_cell(
    config: &RunConfig,
    cell: &Cell,
    seed: u64,
    target: &mut TargetFile,
    stop: &StopFlag,
    row: &mut CellResult,
    on_event: &mut impl FnMut(RunEvent<'_>),
) -> Result<Option<i32>, IoFailure> {
    target.ensure_exists()?;
    // One read slot per operation an engine may keep in flight.
    let slots = config
        .tests
        .iter()
        .flat_map(|t| t.passes())
        .map(|&p| pass::depth_for(p, config))
        .max()
        .unwrap_or(1) as usize;
    let telemetry = config.telemetry.is_some();
    let (largest, pool_len) = if telemetry {
        (
            telemetry::largest_op(config, cell),
            telemetry::pool_bytes(config, cell),
        )
    } else {
        (largest_op(cell), pool_bytes(cell, config.data))
    };
    let mut read_buf = AlignedBuf::zeroed(largest * slots);
    let mut pool = AlignedBuf::zeroed(pool_len);
    fill(&mut pool, config.data, seed);
    let opts = PatternOptions {
        stride: config.stride,
        mix_read_percent: config.mix_read_percent,
        sequential_mix: config.variations.sequential_mix,
        pool_bytes: pool.len(),
    };
    for test in &config.tests {
        if test.needs_existing_data() {
            fill_file_if_short(config, cell, target.path(), &pool)?;
        }
        for &pass in test.passes() {
            if config.no_retest && pass.is_retest() {
                continue;
            }
            // -+E never writes: the random test runs its read pass only.
            if config.variations.existing_file && pass.direction() != Direction::Read {
                continue;
            }
            let ops = if telemetry {
                telemetry::build_ops(config, cell, pass, pool.len())
            } else {
                build_ops(pass, cell, &opts)
            };
            let inputs = PassInputs {
                config,
                cell,
                path: target.path(),
                ops: &ops,
                read_buf: &mut read_buf,
                pool: &pool,
                stop,
            };
            match run_pass(pass, inputs)? {
                PassEnd::Measured(m) => {
                    on_event(RunEvent::PassDone(&m));
                    row.measurements.push(m);
                    pause_between_tests(config);
                }
                PassEnd::Interrupted(sig) => return Ok(Some(sig)),
            }
        }
    }
    Ok(None)
}

/// `-+q`: a pause after every pass (outside any timing).
pub(crate) fn pause_between_tests(config: &RunConfig) {
    let secs = config.variations.delay_between_tests_s;
    if secs > 0 {
        std::thread::sleep(std::time::Duration::from_secs(secs));
    }
}

/// Read tests need a file with data: when no write test left one, write it
/// now, untimed, from the same pool the write tests use.
pub(crate) fn fill_file_if_short(
    config: &RunConfig,
    cell: &Cell,
    path: &std::path::Path,
    pool: &[u8],
) -> Result<(), IoFailure> {
    let fail = |operation, offset, source| IoFailure {
        operation,
        path: path.to_path_buf(),
        offset,
        pass: None,
        source,
    };
    let meta = fs::metadata(path).map_err(|e| fail("stat", None, e))?;
    // A block device always holds its size in bytes (checked against the run).
    let len = if std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type()) {
        crate::device::usable_len(path).map_err(|e| fail("stat", None, e))?
    } else {
        meta.len()
    };
    // A telemetry run's reads reach anywhere up to its file size.
    let needed = if config.telemetry.is_some() {
        cell.file_bytes
    } else {
        cell.pass_bytes()
    };
    if len >= needed {
        return Ok(());
    }
    if config.variations.existing_file {
        // -+E: the file is someone else's and is never written.
        return Err(fail(
            "read",
            None,
            std::io::Error::other(format!(
                "-+E: the file holds {len} bytes but the test reads {needed}"
            )),
        ));
    }
    let spec = OpenSpec {
        writable: true,
        create: false,
        truncate: false,
        extra_flags: if config.open.direct {
            libc::O_DIRECT
        } else {
            0
        },
        record_bytes: cell.record_bytes as usize,
        file_bytes: needed,
        depth: 1,
        msync: Default::default(),
        madvise: None,
        aio_no_copy: false,
    };
    let mut engine = PositionalEngine::open(path, &spec).map_err(|e| fail("open", None, e))?;
    let ops = if config.telemetry.is_some() {
        telemetry::fill_ops(config, cell, len, pool.len())
    } else {
        let whole_records = PatternOptions {
            stride: 1,
            mix_read_percent: 0,
            sequential_mix: true,
            pool_bytes: pool.len(),
        };
        build_ops(crate::workload::Pass::Write, cell, &whole_records)
    };
    for op in &ops {
        engine
            .write_at(&pool[op.source..op.source + op.len], op.offset)
            .map_err(|e| fail("write (preparing the file)", Some(op.offset), e))?;
    }
    engine.sync().map_err(|e| fail("fsync", None, e))?;
    engine.close().map_err(|e| fail("close", None, e))
}
