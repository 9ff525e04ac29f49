//! One throughput worker: set up (untimed), wait at the barrier, run the timed
//! loop under stonewalling, then finish untimed. The same code runs in a forked
//! process or in a thread; only the [`Gate`] differs.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

use nix::sys::resource::UsageWho;
use serde::{Deserialize, Serialize};

use super::shared::SharedFlags;
use super::shared_latencies::SharedLatencies;
use crate::data::pattern::{IoOp, OpKind};
use crate::engine::{EarlyStop, Engine, Stops, WithEngine};
use crate::error::IoFailure;
use crate::model::config::ThroughputConfig;
use crate::model::histogram::{LatencyHistogram, WORDS as HISTOGRAM_WORDS};
use crate::model::identity::Expected;
use crate::model::result::WorkerResult;
use crate::model::say::say;
use crate::runner::intervals::IntervalRings;
use crate::runner::pass::{
    Buffers, ReadyPass, ResidencyWatch, UsageSample, after_loop, before_loop, with_engine,
};
use crate::runner::recipe::{CellRecipe, PassRecipe};
use crate::system::signals::StopFlag;

/// How a worker meets the others at the barrier.
pub(super) trait Gate {
    /// Setup is done (`ok`) or failed; either way the worker arrives.
    fn arrive(&self, ok: bool);
    /// Blocks until the parent opens the barrier.
    fn wait_for_release(&self);
}

/// What a worker reports to the parent.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum WorkerReport {
    /// Boxed: the result (usage, intervals) dwarfs the other reports.
    Done(Box<WorkerResult>),
    Failed {
        worker: u32,
        message: String,
    },
    Interrupted {
        worker: u32,
        signal: i32,
    },
    /// The phase was aborted (another worker failed) before this one measured.
    Aborted {
        worker: u32,
    },
}

/// Everything a worker needs, prepared before it starts.
pub(super) struct WorkerJob<'a> {
    pub index: u32,
    pub cell: &'a CellRecipe<'a>,
    pub pass: &'a PassRecipe,
    pub throughput: &'a ThroughputConfig,
    pub path: &'a Path,
    /// The file the path must lead to (recorded when the run claimed it).
    pub expect: Option<Expected>,
    /// This worker's operations (in the mix they depend on its role).
    pub ops: &'a [IoOp],
    /// `-Q`: where the worker leaves its latencies for the parent.
    pub latencies: Option<&'a SharedLatencies>,
    /// `--latency` and `-+z`: where the worker leaves its histogram and
    /// IOzone buckets, as words.
    pub summaries: Option<&'a SharedLatencies>,
    pub stop: &'a StopFlag,
    pub shared: &'a SharedFlags,
    /// `--interval`: where the workers hand their intervals over (worker n
    /// in ring n).
    pub intervals: Option<&'a IntervalRings>,
    /// RUSAGE_SELF in a worker process, RUSAGE_THREAD in a worker thread.
    pub cpu_scope: UsageWho,
}

/// Runs the worker to the end and says how it went.
pub(super) fn run_worker(job: &WorkerJob<'_>, gate: &dyn Gate) -> WorkerReport {
    let worker = job.index;
    if let Some(first) = job.throughput.first_cpu {
        // Placement is a request, not a measurement: a failure is reported, not fatal.
        if let Err(e) = pin_to_cpu(job.throughput.worker_cpu(first, worker)) {
            say(format_args!("worker {worker}: cannot bind to a CPU: {e}"));
        }
    }
    // Untimed: the stack the timed loop reaches mapped now (a thread's own).
    crate::system::program_pages::touch_stack();
    // Each worker its own buffers (with -m, its own work areas), made before
    // the barrier: dedup images can take a while to build.
    let mut read_buf = job.cell.read_buf(job.pass.slots());
    // Data and roles go by the worker's number in the job (across ranks, a
    // rank's workers are some of the job's).
    let in_job = job.throughput.job_worker(worker);
    let mut pool = job.cell.write_pool(in_job, 1 + in_job as u64);
    let body = WorkerBody {
        job,
        gate,
        buffers: Buffers {
            read_buf: &mut read_buf,
            pool: &mut pool,
        },
    };
    let spec = job.pass.open_for(in_job).expecting(job.expect);
    let report = with_engine(job.pass, &spec, job.path, body).unwrap_or_else(|e| {
        // The open failed: arrive anyway so the barrier is not left waiting.
        gate.arrive(false);
        gate.wait_for_release();
        Err(e)
    });
    match report {
        Ok(r) => r,
        Err(e) => {
            // Stop the other workers now rather than at the end of their pass.
            job.shared.abort.store(true, Ordering::SeqCst);
            job.shared.stonewall.store(true, Ordering::SeqCst);
            WorkerReport::Failed {
                worker,
                message: format!("worker {worker}: {e}"),
            }
        }
    }
}

fn pin_to_cpu(cpu: usize) -> nix::Result<()> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut set = nix::sched::CpuSet::new();
    set.set(cpu % cpus)?;
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
}

struct WorkerBody<'a, 'j> {
    job: &'a WorkerJob<'j>,
    gate: &'a dyn Gate,
    buffers: Buffers<'a>,
}

impl WithEngine for WorkerBody<'_, '_> {
    type Output = Result<WorkerReport, IoFailure>;

    fn run<E: Engine>(self, mut engine: E) -> Self::Output {
        let WorkerBody {
            job,
            gate,
            mut buffers,
        } = self;
        let (pass, path) = (job.pass, job.path);
        if let Err(e) = before_loop(&mut engine, pass, path, &mut buffers, job.ops) {
            gate.arrive(false);
            gate.wait_for_release();
            return Err(e);
        }
        // -Q and -V/-+d: everything they need is made before the barrier.
        let record_bytes = job.cell.verified_record_bytes(pass, job.ops);
        let mut ready = ReadyPass::new(pass, path, job.ops, record_bytes);
        // Before the barrier: the release is the clock's start.
        let watch = ResidencyWatch::start(engine.raw_fd());
        gate.arrive(true);
        gate.wait_for_release();
        let shared = job.shared;
        if shared.abort.load(Ordering::SeqCst) {
            return Ok(WorkerReport::Aborted { worker: job.index });
        }
        let delay_us = job.throughput.start_delay_us * job.throughput.job_worker(job.index) as u64;
        if delay_us > 0 {
            std::thread::sleep(Duration::from_micros(delay_us));
        }
        // Without stonewalling (-x), the loop still ends when another worker fails.
        let stonewall = if job.throughput.stonewall {
            &shared.stonewall
        } else {
            &shared.abort
        };
        let stops = Stops {
            signal: job.stop.word(),
            stonewall: Some(stonewall),
        };
        let marks = job.intervals.map(|rings| rings.marks(job.index));
        let before = UsageSample::now(job.cpu_scope);
        let outcome = ready.timed(&mut engine, job.ops, &mut buffers, stops, marks)?;
        let used = UsageSample::now(job.cpu_scope).since(&before);
        let residency = watch.end();
        let release_ns = shared.release_ns.load(Ordering::SeqCst);
        match outcome.stopped {
            None => {
                // The first worker to finish stops the others.
                shared.stonewall.store(true, Ordering::Relaxed);
            }
            Some(EarlyStop::Signal(signal)) => {
                return Ok(WorkerReport::Interrupted {
                    worker: job.index,
                    signal,
                });
            }
            Some(EarlyStop::Stonewall) => {
                if shared.abort.load(Ordering::SeqCst) {
                    return Ok(WorkerReport::Aborted { worker: job.index });
                }
                // Writers finish their file, uncounted, so later readers find it whole.
                let rest = &job.ops[outcome.ops_done..];
                if rest.iter().any(|op| op.kind == OpKind::Write) {
                    let stops = Stops {
                        signal: job.stop.word(),
                        stonewall: None,
                    };
                    let finish = ready.finish_writes(&mut engine, rest, &mut buffers, stops)?;
                    if let Some(EarlyStop::Signal(signal)) = finish.stopped {
                        return Ok(WorkerReport::Interrupted {
                            worker: job.index,
                            signal,
                        });
                    }
                }
            }
        }
        after_loop(&mut engine, pass, path)?;
        if let (Some(area), Some(latencies)) = (job.latencies, ready.latencies_ns()) {
            area.store(job.index, latencies);
        }
        if let Some(area) = job.summaries {
            let mut words = ready
                .histogram()
                .map(LatencyHistogram::to_words)
                .unwrap_or_else(|| vec![0; HISTOGRAM_WORDS]);
            words.extend(ready.bands().map_or([0; 40], |b| b.counts));
            area.store(job.index, &words);
        }
        // Whole records, or with telemetry the sum of the replayed sizes.
        ready.check_bytes(&outcome)?;
        Ok(WorkerReport::Done(Box::new(WorkerResult {
            worker: job.index,
            bytes: outcome.bytes,
            records: pass.records_done(outcome.bytes, outcome.ops_done, job.cell.cell.record_bytes),
            latency: None,
            elapsed_ns: outcome.elapsed_ns(),
            start_after_release_ns: outcome.start_ns as i64 - release_ns as i64,
            end_after_release_ns: outcome.end_ns as i64 - release_ns as i64,
            stonewalled: outcome.stopped.is_some(),
            cpu_user_ns: used.user_ns,
            cpu_system_ns: used.system_ns,
            usage: Some(used.counts()),
            residency: Some(residency),
            client: None,
            // The parent's keeper has them.
            intervals: Vec::new(),
        })))
    }
}
