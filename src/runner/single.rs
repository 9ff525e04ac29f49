//! Single and auto mode: the plan's cells in order, each cell's passes on one
//! test file, every pass and row handed out as soon as it is done.

use nix::sys::resource::UsageWho;

use super::events::{Event, Outcome};
use super::intervals::{self, LiveSink, Loops, one_loop};
use super::pass::{
    Buffers, ReadyPass, ResidencyWatch, UsageSample, after_loop, before_loop, failure, with_engine,
};
use super::prepare::fill_if_short;
use super::recipe::{CellRecipe, PassRecipe, Recipe};
use crate::data::buffer::KeptBuf;
use crate::data::pattern::IoOp;
use crate::engine::{EarlyStop, Engine, Stops, WithEngine};
use crate::error::{IoFailure, RunError};
use crate::model::latency::{IozoneBands, OpLatency};
use crate::model::plan::Cell;
use crate::model::result::{CellResult, Measurement};
use crate::safety::test_file::{RemoveError, TargetFile};
use crate::system::remount::{Cycle, Remounter};
use crate::system::signals::StopFlag;

/// What may stop or interrupt the passes: signals, -U before each pass,
/// and in cluster mode the other ranks around each cell.
pub(crate) struct Controls<'a> {
    pub stop: &'a StopFlag,
    pub remount: Option<&'a mut Remounter>,
    pub meeting: Option<&'a dyn CellMeeting>,
    /// `--live`: where each interval goes as it ends.
    pub live: Option<&'a dyn LiveSink>,
}

/// Cluster mode: every rank runs the whole plan on its own file, and the
/// ranks meet around each cell, outside any timing.
pub(crate) trait CellMeeting {
    /// Before `cell` of repetition `run`: returns once every rank is there,
    /// so that the ranks begin the cell together.
    fn before_cell(&self, cell: Cell, run: u32) -> Result<(), RunError>;
    /// After the cell (its file removed, its row handed out): this rank's
    /// end of it (`Some` signal: stopped), settled with every rank's. The
    /// job's first failure (named by its rank) is every rank's, and else a
    /// stop on any rank stops every one (with that rank's signal), so that
    /// all end at the same cell.
    fn after_cell(&self, end: Result<Option<i32>, RunError>) -> Result<Option<i32>, RunError>;
}

/// Runs every cell of the plan on the run's test file.
pub(crate) fn run(
    recipe: &Recipe<'_>,
    mut controls: Controls<'_>,
    mut on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    // Untimed: the first run of a page of code takes a fault; none in a pass.
    crate::system::program_pages::map_program_pages();
    let plan = recipe.plan();
    let mut target = match recipe.check_target(&recipe.test_path(0)) {
        Ok(t) => t,
        Err(e) => {
            let e = match (controls.meeting, plan.cells.first()) {
                (Some(meeting), Some(&first)) => fail_first_cell(meeting, first, e),
                _ => e,
            };
            return Outcome::ended(Vec::new(), Vec::new(), None, Some(e), Vec::new());
        }
    };
    let mut cells = Vec::new();
    let mut signal = None;
    let mut error: Option<RunError> = None;
    let mut left = Vec::new();
    let mut kept = KeptBuffers::for_cells(recipe, &plan.cells);
    // --runs: the whole plan again, one repetition after the other, so that
    // a drift over time shows across runs rather than inside one cell.
    'runs: for run in 0..recipe.runs() {
        for (index, &cell) in plan.cells.iter().enumerate() {
            let stopped = controls.stop.signal();
            if let (Some(sig), None) = (stopped, controls.meeting) {
                signal = Some(sig);
                break 'runs;
            }
            if let Some(meeting) = controls.meeting {
                if let Err(e) = meeting.before_cell(cell, run) {
                    error = Some(e);
                    break 'runs;
                }
                // A stop raised on this rank alone (its stdout failed as the
                // opening printed) must not end it before the others' next
                // meeting, where they would wait for it: it meets them, skips
                // the cell, and settles the stop with them, so that every
                // rank ends here together.
                if let Some(sig) = stopped {
                    match settle_cell(meeting, Ok(Some(sig)), &left) {
                        Ok(settled) => signal = settled.or(Some(sig)),
                        Err(e) => error = Some(e),
                    }
                    break 'runs;
                }
            }
            let cell = recipe.cell(cell);
            let mut row = CellResult {
                cell: cell.cell,
                measurements: Vec::new(),
            };
            let end = run_cell(
                &cell,
                (index as u64, run),
                &mut kept,
                &mut target,
                &mut controls,
                &mut row,
                &mut on_event,
            )
            .and_then(|sig| {
                remove_unless_kept(recipe, &mut target, &mut left)?;
                Ok(sig)
            });
            let mut end = end;
            if !row.measurements.is_empty() {
                let shown = on_event(Event::RowDone(&row));
                add_run(&mut cells, row);
                if let Err(e) = shown {
                    end = Err(e);
                }
            }
            if let Some(meeting) = controls.meeting {
                // A stop raised after the cell's passes (stdout closed as its
                // row printed) stops every rank here, not this one alone at
                // the next cell, where the others would wait for it.
                if let (Ok(None), Some(sig)) = (&end, controls.stop.signal()) {
                    end = Ok(Some(sig));
                }
                end = settle_cell(meeting, end, &left);
            }
            match end {
                // A file left behind would be in the next cell's way.
                Ok(None) if !left.is_empty() => break 'runs,
                Ok(None) => {}
                Ok(Some(sig)) => {
                    signal = Some(sig);
                    break 'runs;
                }
                Err(e) => {
                    error = Some(e);
                    break 'runs;
                }
            }
        }
        // --until-steady: no more rounds once every cell is steady.
        // (On one machine: ranks would have to agree on it.)
        if recipe.until_steady()
            && controls.meeting.is_none()
            && crate::model::steady::cells_steady(&cells)
        {
            break 'runs;
        }
    }
    // A file system -U could not mount back hides the file; the path now
    // leads below the mount point, where nothing is ioz's.
    if controls.remount.is_some_and(|r| r.is_unmounted()) {
        target.disown();
    }
    // Whatever ended the run, ioz's file goes (unless -w); the first error wins.
    let cleanup = remove_unless_kept(recipe, &mut target, &mut left);
    let error = error.or(cleanup.err());
    Outcome::ended(cells, Vec::new(), signal, error, left)
}

/// Across ranks, a rank that cannot begin still meets the others at the
/// first cell's barrier, where they wait for it, and fails that cell with
/// them, so that every rank stops.
fn fail_first_cell(meeting: &dyn CellMeeting, first: Cell, e: RunError) -> RunError {
    meeting
        .before_cell(first, 0)
        .and_then(|()| meeting.after_cell(Err(e)))
        .err()
        .unwrap_or_else(|| RunError::System("the other ranks went on without this one".into()))
}

/// A cell's end settled with the other ranks: an error or a file left in
/// the next cell's way is a failure every rank stops on, a signal a stop
/// every rank ends with, as one machine ends with it.
fn settle_cell(
    meeting: &dyn CellMeeting,
    end: Result<Option<i32>, RunError>,
    left: &[IoFailure],
) -> Result<Option<i32>, RunError> {
    let local = match (end, left.first()) {
        (Ok(None), Some(f)) => Err(RunError::Worker(format!(
            "cannot remove the test file {}: {}",
            f.path.display(),
            f.source
        ))),
        (end, _) => end,
    };
    meeting.after_cell(local)
}

/// A row measured by one run, added to the run's rows: the first run's
/// rows in plan order, later runs' measurements appended to the row of the
/// same cell.
fn add_run(cells: &mut Vec<CellResult>, row: CellResult) {
    match cells.iter_mut().find(|c| c.cell == row.cell) {
        Some(existing) => existing.measurements.extend(row.measurements),
        None => cells.push(row),
    }
}

/// Removes ioz's file unless -w keeps it: one that cannot be removed goes
/// to `left`; a path that now leads elsewhere is an error (nothing removed).
fn remove_unless_kept(
    recipe: &Recipe<'_>,
    target: &mut TargetFile,
    left: &mut Vec<IoFailure>,
) -> Result<(), RunError> {
    if recipe.keeps_files() {
        return Ok(());
    }
    match target.remove() {
        Ok(()) => Ok(()),
        Err(RemoveError::Changed(e)) => Err(RunError::Io(e)),
        Err(RemoveError::Left(e)) => {
            left.push(e);
            Ok(())
        }
    }
}

/// The buffers a run's cells share: mapped and touched once, as large as
/// the largest cell needs, and refilled for each cell as a new one would be
/// (data::buffer::KeptBuf).
struct KeptBuffers {
    read: KeptBuf,
    pool: KeptBuf,
}

impl KeptBuffers {
    fn for_cells(recipe: &Recipe<'_>, cells: &[Cell]) -> KeptBuffers {
        let (mut read, mut pool) = (0, 0);
        for &cell in cells {
            let cell = recipe.cell(cell);
            read = cell.read_buf_bytes(cell.max_slots()).max(read);
            pool = cell.pool_bytes.max(pool);
        }
        KeptBuffers {
            read: KeptBuf::new(read),
            pool: KeptBuf::new(pool),
        }
    }
}

/// Runs one cell's passes into `row`; returns the stopping signal, if any.
fn run_cell(
    cell: &CellRecipe<'_>,
    (seed, run): (u64, u32),
    kept: &mut KeptBuffers,
    target: &mut TargetFile,
    controls: &mut Controls<'_>,
    row: &mut CellResult,
    on_event: &mut impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Result<Option<i32>, RunError> {
    target.claim()?;
    let read_buf = kept.read.take(cell.read_buf_bytes(cell.max_slots()));
    let pool = kept.pool.take(cell.pool_bytes);
    cell.fill_pool(pool, 0, seed);
    let mut previous_test = None;
    for pass in &cell.passes {
        // Before a test that reads, once: the file must hold its data.
        let test = pass.pass.test();
        if previous_test != Some(test) && test.needs_existing_data() {
            fill_if_short(cell, target.path(), target.expected(), pool)?;
        }
        previous_test = Some(test);
        let ops = cell.ops(pass, pass.read_percent_of(0));
        // -U: the pass starts with the file system freshly mounted (untimed).
        if let Some(r) = controls.remount.as_deref_mut() {
            // The run's lock would keep the file system busy.
            target.release_for_unmount();
            let cycle = r.cycle(controls.stop)?;
            target.reclaim_after_mount()?;
            if let Cycle::Interrupted(sig) = cycle {
                return Ok(Some(sig));
            }
            if let Some(sig) = controls.stop.signal() {
                return Ok(Some(sig));
            }
        }
        let record_bytes = cell.verified_record_bytes(pass, &ops);
        let read_need = cell.read_buf_bytes(pass.slots());
        let buffers = if pass.reads_into_pool && pool.len() >= read_need {
            // IOzone's one buffer (PassRecipe::reads_into_pool): with two,
            // a pass of 4 MiB records read into a buffer apart from the one
            // just written from ran at half its rate (benches/parity.rs).
            Buffers {
                read_buf: &mut *pool,
                pool: &mut [],
            }
        } else {
            Buffers {
                read_buf: &mut *read_buf,
                pool: &mut *pool,
            }
        };
        let body = SinglePass {
            cell,
            pass,
            ops: &ops,
            record_bytes,
            path: target.path(),
            buffers,
            stop: controls.stop,
            run,
            live: controls.live,
        };
        let open = pass.open.expecting(target.expected());
        match with_engine(pass, &open, target.path(), body)?? {
            PassEnd::Measured(mut m, latencies, bands) => {
                m.run = run;
                on_event(Event::PassDone {
                    measurement: &m,
                    latencies: latencies.as_deref(),
                    bands: bands.as_deref(),
                })?;
                row.measurements.push(*m);
                pause_between_tests(cell);
            }
            PassEnd::Interrupted(sig) => return Ok(Some(sig)),
        }
    }
    Ok(None)
}

/// `-+q`: a pause after every pass (outside any timing).
pub(crate) fn pause_between_tests(cell: &CellRecipe<'_>) {
    let secs = cell.delay_between_tests_s();
    if secs > 0 {
        std::thread::sleep(std::time::Duration::from_secs(secs));
    }
}

enum PassEnd {
    /// With -Q each operation's latency, with -+z the IOzone buckets.
    Measured(
        Box<Measurement>,
        Option<Vec<OpLatency>>,
        Option<Box<IozoneBands>>,
    ),
    Interrupted(i32),
}

/// A pass of single or auto mode, for the engine it opens.
struct SinglePass<'a> {
    cell: &'a CellRecipe<'a>,
    pass: &'a PassRecipe,
    ops: &'a [IoOp],
    record_bytes: Option<usize>,
    path: &'a std::path::Path,
    buffers: Buffers<'a>,
    stop: &'a StopFlag,
    /// The repetition (`--runs`), for the live file.
    run: u32,
    live: Option<&'a dyn LiveSink>,
}

impl WithEngine for SinglePass<'_> {
    type Output = Result<PassEnd, IoFailure>;

    fn run<E: Engine>(self, mut engine: E) -> Self::Output {
        let SinglePass {
            cell,
            pass,
            ops,
            record_bytes,
            path,
            mut buffers,
            stop,
            run,
            live,
        } = self;
        before_loop(&mut engine, pass, path, &mut buffers, ops)?;
        // -V/-+d's check and -Q's room for latencies, made before the clock.
        let mut ready = ReadyPass::new(pass, path, ops, record_bytes);
        // --interval: the rings and the keeper, before the clock.
        let (rings, plan) = intervals::prepare(cell, pass, Loops::Pass { run }, path, live)
            .map_err(|e| failure(pass.pass, path)("share memory for --interval with", None, e))?
            .unzip();
        let watch = ResidencyWatch::start(engine.raw_fd());
        let before = UsageSample::now(UsageWho::RUSAGE_SELF);
        let stops = Stops {
            signal: stop.word(),
            stonewall: None,
        };
        let (outcome, kept) = one_loop(rings.as_ref().zip(plan), |marks| {
            ready.timed(&mut engine, ops, &mut buffers, stops, marks)
        });
        let outcome = outcome?;
        let used = UsageSample::now(UsageWho::RUSAGE_SELF).since(&before);
        let residency = watch.end();
        after_loop(&mut engine, pass, path)?;
        if let Some(EarlyStop::Signal(sig)) = outcome.stopped {
            return Ok(PassEnd::Interrupted(sig));
        }
        // Whole records, or with telemetry the sum of the replayed sizes.
        ready.check_bytes(&outcome)?;
        let measurement = Measurement {
            pass: pass.pass,
            file_bytes: cell.cell.file_bytes,
            record_bytes: cell.cell.record_bytes,
            workers: 1,
            bytes: outcome.bytes,
            records: pass.size.ops,
            latency: ready.histogram().map(|h| h.summary(cell.percentiles())),
            elapsed_ns: outcome.elapsed_ns(),
            cpu_user_ns: used.user_ns,
            cpu_system_ns: used.system_ns,
            usage: Some(used.counts()),
            residency: Some(residency),
            run: 0,
            intervals: kept.loops.into_iter().next().unwrap_or_default(),
        };
        Ok(PassEnd::Measured(
            Box::new(measurement),
            ready.latencies(ops),
            ready.bands().cloned().map(Box::new),
        ))
    }
}
