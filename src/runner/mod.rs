//! Runs a plan cell by cell: prepares the file and buffers (untimed), runs each
//! selected test's passes, and hands every finished row to the caller at once.

mod pass;
mod throughput;
mod timed;

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

use crate::data::buffer::{AlignedBuf, fill, pool_bytes, read_buf_bytes};
use crate::data::dedup::DedupModel;
use crate::data::pattern::{DisruptReads, IoOp, PROBE_PAGE, PatternOptions, build_ops};
use crate::data::telemetry::{self, Replay};
use crate::engine::{Engine, OpenSpec, PositionalEngine};
use crate::error::{IoFailure, RunError};
use crate::model::config::RunConfig;
use crate::model::plan::{Cell, Plan};
use crate::model::result::{CellResult, Measurement, RunStatus};
use crate::model::workload::{Direction, Pass};
use crate::safety::target::TargetFile;
use crate::system::remount::{Cycle, Remounter};
use crate::system::signals::StopFlag;

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
    replay: &Replay,
    plan: &Plan,
    target: TargetFile,
    stop: &StopFlag,
    on_event: impl FnMut(RunEvent<'_>),
) -> RunOutcome {
    run_remounting(config, replay, plan, target, stop, None, on_event)
}

/// [`run`], unmounting and mounting back the test file's file system before
/// every pass (-U) when `remount` is given.
pub fn run_remounting(
    config: &RunConfig,
    replay: &Replay,
    plan: &Plan,
    mut target: TargetFile,
    stop: &StopFlag,
    mut remount: Option<&mut Remounter>,
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
        let controls = Controls {
            stop,
            remount: remount.as_deref_mut(),
        };
        let end = run_cell(
            config,
            replay,
            cell,
            index as u64,
            &mut target,
            controls,
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
    // A file system -U could not mount back hides the file; the path now
    // leads below the mount point, where nothing is ioz's.
    if remount.is_some_and(|r| r.is_unmounted()) {
        target.disown();
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

/// What may stop or interrupt the passes: signals, and -U before each pass.
struct Controls<'a> {
    stop: &'a StopFlag,
    remount: Option<&'a mut Remounter>,
}

/// Runs one cell's passes into `row`; returns the stopping signal, if any.
fn run_cell(
    config: &RunConfig,
    replay: &Replay,
    cell: &Cell,
    seed: u64,
    target: &mut TargetFile,
    controls: Controls<'_>,
    row: &mut CellResult,
    on_event: &mut impl FnMut(RunEvent<'_>),
) -> Result<Option<i32>, IoFailure> {
    let Controls { stop, mut remount } = controls;
    target.ensure_exists()?;
    // One read slot per operation an engine may keep in flight.
    let slots = config
        .tests
        .iter()
        .flat_map(|t| t.passes())
        .map(|&p| pass::depth_for(p, config))
        .max()
        .unwrap_or(1) as usize;
    let mut read_buf = AlignedBuf::zeroed(read_buf_len(config, cell, slots));
    let pool = write_pool(config, cell, 0, seed);
    let opts = pattern_options(config, pool.len(), false);
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
            let ops = pass_ops(config, replay, cell, pass, &opts);
            // -U: the pass starts with the file system freshly mounted (untimed).
            if let Some(r) = remount.as_deref_mut() {
                if let Cycle::Interrupted(sig) = r.cycle(stop)? {
                    return Ok(Some(sig));
                }
                if let Some(sig) = stop.signal() {
                    return Ok(Some(sig));
                }
            }
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

/// How the run's options shape every pass's operations; `pool_bytes` as the
/// pool was made.
pub(crate) fn pattern_options(
    config: &RunConfig,
    pool_bytes: usize,
    throughput: bool,
) -> PatternOptions {
    let v = &config.variations;
    PatternOptions {
        stride: config.stride,
        mix_read_percent: config.mix_read_percent,
        sequential_mix: v.sequential_mix,
        pool_bytes,
        disrupt: v.disrupt_reads.then_some(DisruptReads {
            // O_DIRECT reads must be aligned: IOzone reads a page with -I.
            probe_len: if config.open.direct {
                PROBE_PAGE as usize
            } else {
                1
            },
            throughput,
        }),
        multi_buffer: v.multi_buffer,
    }
}

/// Bytes of the write pool of every worker on `cell`: a telemetry run's
/// (sized for its largest operation), a dedup run's file image, or the usual
/// pool (the -m work area with -m).
pub(crate) fn write_pool_bytes(config: &RunConfig, cell: &Cell) -> usize {
    if config.telemetry.is_some() {
        telemetry::pool_bytes(config, cell)
    } else if config.variations.dedup.any() {
        cell.pass_bytes() as usize
    } else {
        pool_bytes(cell, config.data, config.variations.multi_buffer)
    }
}

/// What the writes of `worker` send on `cell`, made before any clock starts:
/// the run's data pool (filled with `seed`), or with dedup options the
/// worker's whole file image, which writes take at their own offsets.
pub(crate) fn write_pool(config: &RunConfig, cell: &Cell, worker: u32, seed: u64) -> AlignedBuf {
    let mut pool = AlignedBuf::zeroed(write_pool_bytes(config, cell));
    match DedupModel::new(&config.variations.dedup) {
        // Dedup and telemetry are never combined (the CLI refuses it).
        Some(model) if config.telemetry.is_none() => {
            model.fill_file(&mut pool, cell.record_bytes, worker)
        }
        _ => fill(&mut pool, config.data, seed),
    }
    pool
}

/// Bytes of the read buffer for `slots` operations in flight on `cell`.
pub(crate) fn read_buf_len(config: &RunConfig, cell: &Cell, slots: usize) -> usize {
    if config.telemetry.is_some() {
        crate::model::plan::largest_replayed_op(config, cell) * slots
    } else {
        read_buf_bytes(cell, slots, config.variations.multi_buffer)
    }
}

/// The operations of `pass` on `cell`: the replayed telemetry file's, or the
/// test's access pattern shaped by `opts`.
pub(crate) fn pass_ops(
    config: &RunConfig,
    replay: &Replay,
    cell: &Cell,
    pass: Pass,
    opts: &PatternOptions,
) -> Vec<IoOp> {
    if config.telemetry.is_some() {
        telemetry::build_ops(config, replay, cell, pass, opts.pool_bytes)
    } else {
        build_ops(pass, cell, opts)
    }
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
    if file_is_short(config, cell, path)? {
        fill_file(config, cell, path, pool)?;
    }
    Ok(())
}

fn preparing_failure(
    path: &std::path::Path,
) -> impl Fn(&'static str, Option<u64>, std::io::Error) -> IoFailure + '_ {
    move |operation, offset, source| IoFailure {
        operation,
        path: path.to_path_buf(),
        offset,
        pass: None,
        source,
    }
}

/// Whether the file holds less than a pass reads (an error for -+E, whose
/// file ioz may not write).
pub(crate) fn file_is_short(
    config: &RunConfig,
    cell: &Cell,
    path: &std::path::Path,
) -> Result<bool, IoFailure> {
    let fail = preparing_failure(path);
    let meta = fs::metadata(path).map_err(|e| fail("stat", None, e))?;
    // A block device always holds its size in bytes (checked against the run).
    let len = if std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type()) {
        crate::system::device::usable_len(path).map_err(|e| fail("stat", None, e))?
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
        return Ok(false);
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
    Ok(true)
}

/// Writes the whole file from `pool` (untimed): record `i` from pool slot
/// `i mod slots`, so a dedup image (one slot per record) lands at its offsets.
pub(crate) fn fill_file(
    config: &RunConfig,
    cell: &Cell,
    path: &std::path::Path,
    pool: &[u8],
) -> Result<(), IoFailure> {
    let fail = preparing_failure(path);
    let needed = cell.pass_bytes();
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
        // Only the tail the telemetry reads reach beyond what was written.
        let len = fs::metadata(path).map_err(|e| fail("stat", None, e))?.len();
        telemetry::fill_ops(config, cell, len, pool.len())
    } else {
        let whole_records = PatternOptions {
            stride: 1,
            mix_read_percent: 0,
            sequential_mix: true,
            pool_bytes: pool.len(),
            disrupt: None,
            multi_buffer: false,
        };
        build_ops(crate::model::workload::Pass::Write, cell, &whole_records)
    };
    for op in &ops {
        engine
            .write_at(&pool[op.source..op.source + op.len], op.offset)
            .map_err(|e| fail("write (preparing the file)", Some(op.offset), e))?;
    }
    engine.sync().map_err(|e| fail("fsync", None, e))?;
    engine.close().map_err(|e| fail("close", None, e))
}
