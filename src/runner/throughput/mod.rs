//! Throughput mode: for each worker count, every phase runs with that many
//! workers (processes by default, threads with -T) that start together from a
//! barrier. The parent measures from the barrier's release to the end of the
//! last worker's timed region.

mod rank_files;
mod ranks;
mod shared;
mod shared_latencies;
mod spawn;
mod worker;
mod worker_ops;

use std::path::PathBuf;

use super::events::{Event, Outcome};
use super::intervals::{self, Keeper, LiveSink, Loops};
use super::prepare::{fill, is_short};
use super::recipe::{CellRecipe, PassRecipe, Recipe};
use super::single::pause_between_tests;
use crate::error::{IoFailure, RunError};
use crate::model::config::ThroughputConfig;
use crate::model::histogram::{LatencyHistogram, LatencySummary, WORDS as HISTOGRAM_WORDS};
use crate::model::identity::Expected;
use crate::model::latency::{IozoneBands, OpLatency};
use crate::model::plan::Cell;
use crate::model::result::{PhaseResult, WorkerResult};
use crate::safety::test_file::{RemoveError, TargetFile};
use crate::system::signals::StopFlag;
use shared::SharedState;
use shared_latencies::SharedLatencies;
use spawn::{run_processes, run_threads};

pub(crate) use ranks::Across;
use worker::{WorkerJob, WorkerReport};
use worker_ops::WorkerOps;

/// Runs every worker count of the throughput config; with `across`, this
/// rank's share of a cluster run (`throughput` is the rank's: its workers,
/// as threads, and their files), every step taken with the other ranks.
pub(crate) fn run(
    recipe: &Recipe<'_>,
    throughput: &ThroughputConfig,
    (stop, live): (&StopFlag, Option<&dyn LiveSink>),
    across: Option<&Across<'_>>,
    mut on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    let Some((file_bytes, record_bytes)) = recipe.single_sizes() else {
        let refused = RunError::Refused("throughput mode needs one file and record size".into());
        return Outcome::ended(Vec::new(), Vec::new(), None, Some(refused), Vec::new());
    };
    // Untimed: the first run of a page of code takes a fault; none in a
    // worker thread's pass (a process maps its code again: spawn.rs).
    crate::system::program_pages::map_program_pages();
    let mut phases = Vec::new();
    let mut signal = None;
    let mut error = None;
    let mut left = Vec::new();
    // --runs: every worker count again, one repetition after the other.
    'runs: for repetition in 0..recipe.runs() {
        for (k, &workers) in throughput.worker_counts.iter().enumerate() {
            // Across ranks `workers` is this rank's share of the job's count.
            let job_workers = throughput.job_count(k);
            let per_worker = throughput.worker_file_bytes(file_bytes, record_bytes, job_workers);
            let cell = Cell {
                file_bytes: per_worker,
                record_bytes,
            };
            if cell.records() == 0 {
                error = Some(RunError::Refused(format!(
                    "-+k: {} kB shared by {job_workers} workers leaves less than one {} kB record each",
                    file_bytes / 1024,
                    record_bytes / 1024
                )));
                break;
            }
            let cell = recipe.cell(cell);
            let started = on_event(Event::WorkersStart {
                file_bytes: per_worker,
                record_bytes,
            });
            if let Err(e) = started {
                error = Some(e);
                break;
            }
            let claimed = match across {
                Some(a) if throughput.shared_file => {
                    rank_files::claim_shared(recipe, workers, a, &mut left)
                }
                _ => worker_files(recipe, workers, &mut left),
            };
            // Across ranks: every rank's files, or none.
            let claimed = match (claimed, across) {
                // Agreed on already.
                (claimed, Some(_)) if throughput.shared_file => claimed,
                (claimed, None) => claimed,
                (Ok(mut files), Some(a)) => match a.agree(Ok(())) {
                    Ok(()) => Ok(files),
                    Err(e) => {
                        // Another rank could not claim its files: remove ours.
                        files.remove_all(&mut None, &mut left);
                        Err(e)
                    }
                },
                (Err(e), Some(a)) => Err(a
                    .agree(Err(e))
                    .err()
                    .unwrap_or_else(|| RunError::System("the ranks disagree on a failure".into()))),
            };
            let mut files = match claimed {
                Ok(f) => f,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            };
            let run = Run {
                cell: &cell,
                throughput,
                workers,
                files: &files,
                stop,
                across,
                live,
                repetition,
            };
            for pass in &cell.passes {
                let stopped = stop.signal();
                if let (Some(sig), None) = (stopped, across) {
                    signal = Some(sig);
                    break;
                }
                if let Some(a) = across {
                    a.begin_phase();
                }
                // Across ranks a stop raised on this rank alone (its stdout
                // failed) skips the phase but still settles it with the
                // others, who would wait for it there: every rank then ends
                // together, interrupted.
                let phase = match stopped {
                    Some(sig) => Ok(PhaseEnd::Interrupted(sig)),
                    None => run
                        .prepare_files(pass)
                        .map_err(RunError::Io)
                        .and_then(|()| run.phase(pass)),
                };
                let phase = match across {
                    Some(a) => a.settle(phase, recipe.percentiles()),
                    None => phase,
                };
                let done = match phase {
                    Ok(PhaseEnd::Done(mut phase, latencies, bands)) => {
                        phase.run = repetition;
                        let shown = on_event(Event::PhaseDone {
                            phase: &phase,
                            latencies: latencies.as_deref(),
                            bands: bands.as_deref(),
                        });
                        // A rank whose phase could not be handed on (its -Q
                        // files not written) stops, and so must every other,
                        // or they would wait for it at the next barrier.
                        let shown = match across {
                            Some(a) => a.agree(shown),
                            None => shown,
                        };
                        // A phase whose results could not be handed on is not
                        // counted, as in single mode.
                        if shown.is_ok() {
                            phases.push(phase);
                        }
                        shown
                    }
                    Ok(PhaseEnd::Interrupted(sig)) => {
                        signal = Some(sig);
                        break;
                    }
                    Err(e) => Err(e),
                };
                if let Err(e) = done {
                    error = Some(e);
                    break;
                }
                pause_between_tests(&cell);
            }
            let ended = on_event(Event::WorkersEnd);
            if let Err(e) = ended {
                error.get_or_insert(e);
            }
            if !recipe.keeps_files() {
                files.remove_all(&mut error, &mut left);
            }
            let mut end = error.is_some() || signal.is_some() || !left.is_empty();
            if let Some(a) = across {
                // Every rank ends together: a file one could not remove ends
                // the job.
                let local = if end {
                    Err(RunError::Worker("ended".into()))
                } else {
                    Ok(())
                };
                if let Err(e) = a.agree(local) {
                    end = true;
                    if error.is_none() && signal.is_none() && left.is_empty() {
                        error = Some(e);
                    }
                }
            }
            if end {
                break 'runs;
            }
        }
    }
    Outcome::ended(Vec::new(), phases, signal, error, left)
}

/// The files of a run with a given worker count: each distinct file once,
/// checked, created or taken, and locked; and which of them each worker uses.
struct WorkerFiles {
    targets: Vec<TargetFile>,
    /// Per worker, its file's index in `targets`.
    of_worker: Vec<usize>,
}

impl WorkerFiles {
    /// The file of `worker`.
    fn of(&self, worker: u32) -> &TargetFile {
        &self.targets[self.of_worker[worker as usize]]
    }

    /// What `worker`'s opens must find.
    fn expected(&self, worker: u32) -> Option<Expected> {
        self.of(worker).expected()
    }

    /// Removes ioz's files: one that cannot be removed goes to `left`, a
    /// path that now leads elsewhere is the run's error (nothing removed).
    fn remove_all(&mut self, error: &mut Option<RunError>, left: &mut Vec<IoFailure>) {
        for t in &mut self.targets {
            match t.remove() {
                Ok(()) => {}
                Err(RemoveError::Changed(e)) => {
                    error.get_or_insert(RunError::Io(e));
                }
                Err(RemoveError::Left(e)) => left.push(e),
            }
        }
    }
}

/// The files of a run with `workers` workers, checked and claimed. A path
/// that leads to a file already claimed (named twice, or another way) is
/// that file: it is shared, not locked a second time.
fn worker_files(
    recipe: &Recipe<'_>,
    workers: u32,
    left: &mut Vec<IoFailure>,
) -> Result<WorkerFiles, RunError> {
    let mut files = WorkerFiles {
        targets: Vec::new(),
        of_worker: Vec::new(),
    };
    for worker in 0..workers {
        let p = recipe.test_path(worker);
        if let Some(k) = files
            .targets
            .iter()
            .position(|t| t.path() == p || t.is_reached_by(&p))
        {
            files.of_worker.push(k);
            continue;
        }
        let claimed = recipe.check_target(&p).and_then(|mut t| {
            t.claim()?;
            Ok(t)
        });
        match claimed {
            Ok(t) => {
                files.of_worker.push(files.targets.len());
                files.targets.push(t);
            }
            Err(e) => {
                // Leave nothing behind: remove the files already created.
                let mut ignored = None;
                files.remove_all(&mut ignored, left);
                return Err(e);
            }
        }
    }
    Ok(files)
}

/// One worker count's phases: their cell, workers and files.
struct Run<'a> {
    cell: &'a CellRecipe<'a>,
    throughput: &'a ThroughputConfig,
    workers: u32,
    files: &'a WorkerFiles,
    stop: &'a StopFlag,
    across: Option<&'a Across<'a>>,
    /// `--live`: where each interval goes as it ends.
    live: Option<&'a dyn LiveSink>,
    /// The repetition (`--runs`), for the live file.
    repetition: u32,
}

#[expect(
    clippy::large_enum_variant,
    reason = "one per pass, moved once: a box would buy nothing"
)]
enum PhaseEnd {
    /// The phase, and with -Q each worker's latencies in worker order, with
    /// -+z each worker's IOzone buckets.
    Done(
        PhaseResult,
        Option<Vec<Vec<OpLatency>>>,
        Option<Vec<IozoneBands>>,
    ),
    Interrupted(i32),
}

impl Run<'_> {
    /// Read phases need files with data: write any that are short, untimed,
    /// with what the writer of the file (its first worker) would have written.
    fn prepare_files(&self, pass: &PassRecipe) -> Result<(), crate::error::IoFailure> {
        if !pass.pass.test().needs_existing_data() {
            return Ok(());
        }
        // -+V/-+L across ranks: rank 0 fills the job's one file before the
        // barrier the others wait at.
        if self.throughput.shared_file && self.across.is_some_and(|a| a.rank() != 0) {
            return Ok(());
        }
        for (k, t) in self.files.targets.iter().enumerate() {
            let worker = (0..self.workers)
                .find(|&i| self.files.of_worker[i as usize] == k)
                .unwrap_or(0);
            if is_short(self.cell, t.path())? {
                let mut pool = self.cell.write_pool(self.throughput.job_worker(worker), 0);
                fill(self.cell, t.path(), t.expected(), &mut pool)?;
            }
        }
        Ok(())
    }

    fn phase(&self, pass: &PassRecipe) -> Result<PhaseEnd, RunError> {
        let workers = self.workers;
        let ops = WorkerOps::build(self.cell, pass, workers, |w| self.throughput.job_worker(w));
        let shared = SharedState::new()
            .map_err(|e| RunError::System(format!("cannot share memory between workers: {e}")))?;
        let latencies = if pass.record_latencies {
            Some(SharedLatencies::new(workers, ops.longest()).map_err(|e| {
                RunError::System(format!("cannot share memory for the -Q latencies: {e}"))
            })?)
        } else {
            None
        };
        // --latency and -+z: each worker's histogram and buckets, as words.
        let summaries = if pass.latency_histogram || pass.iozone_bands {
            Some(SharedLatencies::new(workers, SUMMARY_WORDS).map_err(|e| {
                RunError::System(format!("cannot share memory for the latencies: {e}"))
            })?)
        } else {
            None
        };
        let paths: Vec<PathBuf> = (0..workers).map(|i| self.cell.test_path(i)).collect();
        // --interval: the workers' rings, shared with them before any fork.
        let loops = Loops::Phase {
            run: self.repetition,
            workers,
            release: &shared.flags().release_ns,
        };
        // The page cache's device: the first file's (a rank of a sweep may
        // have no worker of its own in a phase, so not `paths[0]`).
        let probed = self.cell.test_path(0);
        let (rings, plan) = intervals::prepare(self.cell, pass, loops, &probed, self.live)
            .map_err(|e| RunError::System(format!("cannot share memory for --interval: {e}")))?
            .unzip();
        let job = |index: u32, cpu_scope| WorkerJob {
            index,
            cell: self.cell,
            pass,
            throughput: self.throughput,
            path: &paths[index as usize],
            expect: self.files.expected(index),
            ops: ops.of(index),
            latencies: latencies.as_ref(),
            summaries: summaries.as_ref(),
            stop: self.stop,
            shared: shared.flags(),
            intervals: rings.as_ref(),
            cpu_scope,
        };
        let (reports, kept) = std::thread::scope(|scope| {
            let mut keeper = None;
            let mut plan = rings.as_ref().zip(plan);
            // With processes, only once every worker is forked.
            let mut start_keeper = || {
                if let Some((rings, plan)) = plan.take() {
                    keeper = Some(Keeper::start(scope, rings, plan));
                }
            };
            let reports = if let Some(across) = self.across {
                // Cluster mode: threads, so that the rank's parent can meet the
                // others and watch for their stops while its workers run.
                start_keeper();
                let coordinator = across.coordinator(shared.flags(), self.throughput.stonewall);
                let reports = run_threads(workers, &shared, &job, Some(&coordinator));
                coordinator.workers_ended();
                Ok(reports)
            } else if self.throughput.threads {
                start_keeper();
                Ok(run_threads(workers, &shared, &job, None))
            } else {
                run_processes(workers, &shared, self.stop, &job, &mut start_keeper)
            };
            (reports, keeper.map(Keeper::finish).unwrap_or_default())
        });
        let reports = reports?;
        let mut results: Vec<WorkerResult> = Vec::new();
        let mut interrupted = None;
        let mut failures = Vec::new();
        let mut kept_loops = kept.loops;
        for report in reports {
            match report {
                WorkerReport::Done(mut r) => {
                    if let Some(own) = kept_loops.get_mut(r.worker as usize) {
                        r.intervals = std::mem::take(own);
                    }
                    results.push(*r);
                }
                WorkerReport::Failed { message, .. } => failures.push(message),
                WorkerReport::Interrupted { signal, .. } => interrupted = Some(signal),
                WorkerReport::Aborted { .. } => {}
            }
        }
        if let Some(first) = failures.into_iter().next() {
            return Err(RunError::Worker(first));
        }
        // The run's own signal first: a worker may have seen another one
        // (the terminal's) for the same stop.
        if let Some(sig) = self.stop.signal().or(interrupted) {
            return Ok(PhaseEnd::Interrupted(sig));
        }
        results.sort_by_key(|r| r.worker);
        let (phase_latency, bands) = match &summaries {
            Some(area) => {
                let percentiles = self.cell.percentiles();
                take_summaries(area, &mut results, percentiles, pass)
            }
            None => (None, None),
        };
        let latencies = latencies.map(|area| {
            results
                .iter()
                .map(|r| {
                    ops.of(r.worker)
                        .iter()
                        .zip(area.load(r.worker))
                        .map(|(op, latency_ns)| OpLatency {
                            offset: op.offset,
                            bytes: op.len as u64,
                            latency_ns,
                        })
                        .collect()
                })
                .collect()
        });
        // The parent's view: from the release to the end of the last timed region.
        let parent_end = results
            .iter()
            .map(|r| r.end_after_release_ns.max(0) as u64)
            .max()
            .unwrap_or(0);
        let phase = PhaseResult {
            pass: pass.pass,
            workers,
            threads: self.throughput.threads,
            file_bytes: self.cell.cell.file_bytes,
            record_bytes: self.cell.cell.record_bytes,
            parent_elapsed_ns: parent_end,
            parent_estimated: false,
            stonewall: self.throughput.stonewall,
            latency: phase_latency,
            results,
            run: 0,
            intervals: kept.sum,
            rank_intervals: Vec::new(),
            skew: None,
        };
        Ok(PhaseEnd::Done(phase, latencies, bands))
    }
}

/// Words a worker leaves for --latency and -+z: its histogram, then its
/// 40 IOzone buckets.
const SUMMARY_WORDS: usize = HISTOGRAM_WORDS + 40;

/// What each worker left: its histogram in its result and merged into the
/// phase's (--latency), and its IOzone buckets (-+z), in worker order.
fn take_summaries(
    area: &SharedLatencies,
    results: &mut [WorkerResult],
    percentiles: &[f64],
    pass: &PassRecipe,
) -> (Option<LatencySummary>, Option<Vec<IozoneBands>>) {
    let mut phase = LatencyHistogram::new();
    let mut bands = Vec::new();
    for r in results.iter_mut() {
        let words = area.load(r.worker);
        if words.len() != SUMMARY_WORDS {
            continue;
        }
        let (histogram, counts) = words.split_at(HISTOGRAM_WORDS);
        if pass.latency_histogram
            && let Some(h) = LatencyHistogram::from_words(histogram)
        {
            r.latency = Some(h.summary(percentiles));
            phase.merge(&h);
        }
        let mut b = IozoneBands::default();
        b.counts.copy_from_slice(counts);
        bands.push(b);
    }
    (
        pass.latency_histogram.then(|| phase.summary(percentiles)),
        pass.iozone_bands.then_some(bands),
    )
}
