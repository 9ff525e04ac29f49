//! Throughput mode: for each worker count, every selected phase runs with that
//! many workers (processes by default, threads with -T) that start together
//! from a barrier. The parent measures from the barrier's release to the end
//! of the last worker's timed region.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Barrier;
use std::sync::atomic::Ordering;
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::resource::UsageWho;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid, fork, pipe};

mod shared;
mod shared_latencies;
mod worker;
mod worker_ops;

use super::{file_is_short, fill_file, write_pool};
use crate::data::telemetry::Replay;
use crate::engine::clock::now_ns;
use crate::error::{IoFailure, RunError};
use crate::model::config::{RunConfig, Sizes, ThroughputConfig};
use crate::model::plan::Cell;
use crate::model::result::{PhaseResult, RunStatus, WorkerResult};
use crate::model::workload::{Direction, Pass};
use crate::report::latency_files;
use crate::safety::target::TargetFile;
use crate::system::signals::StopFlag;
use shared::SharedState;
use shared_latencies::SharedLatencies;
use worker::{Gate, WorkerJob, WorkerReport, run_worker};
use worker_ops::WorkerOps;

/// Throughput phases in IOzone's order, for the selected tests.
pub fn phases(config: &RunConfig) -> Vec<Pass> {
    use Pass::*;
    [
        Write,
        Rewrite,
        Read,
        Reread,
        BackwardRead,
        StrideRead,
        RandomRead,
        RandomMix,
        RandomWrite,
        Pwrite,
        Pread,
        Fwrite,
        Fread,
        Pwritev,
        Preadv,
    ]
    .into_iter()
    .filter(|p| config.tests.contains(&p.test()))
    .filter(|p| !(config.no_retest && p.is_retest()))
    .filter(|p| !config.variations.existing_file || p.direction() == Direction::Read)
    .collect()
}

/// Progress of a throughput run.
pub enum ThroughputEvent<'a> {
    /// A run with this many workers (each on a file of `file_bytes`) begins.
    RunStart {
        workers: u32,
        file_bytes: u64,
    },
    PhaseDone(&'a PhaseResult),
    /// The run with this many workers is over.
    RunEnd {
        workers: u32,
    },
}

pub struct ThroughputOutcome {
    pub phases: Vec<PhaseResult>,
    pub status: RunStatus,
    pub error: Option<RunError>,
}

/// Runs every worker count of the throughput config.
pub fn run_throughput(
    config: &RunConfig,
    replay: &Replay,
    throughput: &ThroughputConfig,
    stop: &StopFlag,
    mut on_event: impl FnMut(ThroughputEvent<'_>),
) -> ThroughputOutcome {
    let Sizes::Single {
        file_bytes,
        record_bytes,
    } = config.sizes
    else {
        return ThroughputOutcome {
            phases: Vec::new(),
            status: RunStatus::Failed("throughput mode needs one file and record size".into()),
            error: Some(RunError::Refused(
                "throughput mode needs one file and record size".into(),
            )),
        };
    };
    let mut phases_done = Vec::new();
    let mut status = RunStatus::Complete;
    let mut error = None;
    'runs: for &workers in &throughput.worker_counts {
        let per_worker = throughput.worker_file_bytes(file_bytes, record_bytes, workers);
        let cell = Cell {
            file_bytes: per_worker,
            record_bytes,
        };
        if cell.records() == 0 {
            error = Some(RunError::Refused(format!(
                "-+k: {} kB shared by {workers} workers leaves less than one {} kB record each",
                file_bytes / 1024,
                record_bytes / 1024
            )));
            break;
        }
        on_event(ThroughputEvent::RunStart {
            workers,
            file_bytes: per_worker,
        });
        let mut targets = match worker_targets(config, throughput, workers) {
            Ok(t) => t,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        for pass in phases(config) {
            if let Some(sig) = stop.signal() {
                status = RunStatus::Interrupted(sig);
                break;
            }
            let result = prepare_files(config, throughput, workers, &cell, &targets, pass)
                .map_err(RunError::Io)
                .and_then(|()| {
                    run_phase(
                        config, replay, throughput, workers, cell, pass, &targets, stop,
                    )
                });
            match result {
                Ok(PhaseEnd::Done(phase)) => {
                    on_event(ThroughputEvent::PhaseDone(&phase));
                    phases_done.push(phase);
                    super::pause_between_tests(config);
                }
                Ok(PhaseEnd::Interrupted(sig)) => {
                    status = RunStatus::Interrupted(sig);
                    break;
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        on_event(ThroughputEvent::RunEnd { workers });
        if !config.keep_file {
            for t in &mut targets {
                if let Err(e) = t.remove() {
                    error.get_or_insert(RunError::Io(e));
                }
            }
        }
        if error.is_some() || status != RunStatus::Complete {
            break 'runs;
        }
    }
    if let Some(e) = &error {
        status = RunStatus::Failed(e.to_string());
    }
    ThroughputOutcome {
        phases: phases_done,
        status,
        error,
    }
}

/// The distinct files of a run with `workers` workers, checked and created.
fn worker_targets(
    config: &RunConfig,
    throughput: &ThroughputConfig,
    workers: u32,
) -> Result<Vec<TargetFile>, RunError> {
    let mut paths: Vec<PathBuf> = (0..workers)
        .map(|i| throughput.worker_path(&config.path, i))
        .collect();
    paths.dedup();
    let mut targets: Vec<TargetFile> = Vec::new();
    for p in paths {
        let created = TargetFile::check_for_run(&p, config).and_then(|mut t| {
            t.ensure_exists()?;
            Ok(t)
        });
        match created {
            Ok(t) => targets.push(t),
            Err(e) => {
                // Leave nothing behind: remove the files already created.
                for t in &mut targets {
                    let _ = t.remove();
                }
                return Err(e);
            }
        }
    }
    Ok(targets)
}

/// Read phases need files with data: write any that are short, untimed, with
/// what the writer of the file (its first worker) would have written.
fn prepare_files(
    config: &RunConfig,
    throughput: &ThroughputConfig,
    workers: u32,
    cell: &Cell,
    targets: &[TargetFile],
    pass: Pass,
) -> Result<(), IoFailure> {
    if !pass.test().needs_existing_data() {
        return Ok(());
    }
    for t in targets {
        let worker = (0..workers)
            .find(|&i| throughput.worker_path(&config.path, i) == t.path())
            .unwrap_or(0);
        if file_is_short(config, cell, t.path())? {
            fill_file(config, cell, t.path(), &write_pool(config, cell, worker, 0))?;
        }
    }
    Ok(())
}

enum PhaseEnd {
    Done(PhaseResult),
    Interrupted(i32),
}

#[allow(clippy::too_many_arguments)]
fn run_phase(
    config: &RunConfig,
    replay: &Replay,
    throughput: &ThroughputConfig,
    workers: u32,
    cell: Cell,
    pass: Pass,
    targets: &[TargetFile],
    stop: &StopFlag,
) -> Result<PhaseEnd, RunError> {
    let ops = WorkerOps::build(config, replay, pass, &cell, workers);
    let shared = SharedState::new()
        .map_err(|e| RunError::Refused(format!("cannot share memory between workers: {e}")))?;
    let latencies = if config.variations.offset_latency_files {
        let most = ops.lists.iter().map(Vec::len).max().unwrap_or(0);
        Some(SharedLatencies::new(workers, most).map_err(|e| {
            RunError::Refused(format!("cannot share memory for the -Q latencies: {e}"))
        })?)
    } else {
        None
    };
    let paths: Vec<PathBuf> = (0..workers)
        .map(|i| throughput.worker_path(&config.path, i))
        .collect();
    debug_assert!(paths.iter().all(|p| targets.iter().any(|t| t.path() == p)));
    let job = |index: u32, cpu_scope| WorkerJob {
        index,
        pass,
        config,
        throughput,
        path: &paths[index as usize],
        cell,
        ops: ops.of(index),
        truncate: pass == Pass::RandomMix && config.truncates_in_mix(index),
        latencies: latencies.as_ref(),
        stop,
        shared: shared.flags(),
        cpu_scope,
    };
    let reports = if throughput.threads {
        run_threads(workers, &shared, &job)
    } else {
        run_processes(workers, &shared, stop, &job)?
    };
    let mut results: Vec<WorkerResult> = Vec::new();
    let mut interrupted = None;
    let mut failures = Vec::new();
    for report in reports {
        match report {
            WorkerReport::Done(r) => results.push(r),
            WorkerReport::Failed { message, .. } => failures.push(message),
            WorkerReport::Interrupted { signal, .. } => interrupted = Some(signal),
            WorkerReport::Aborted { .. } => {}
        }
    }
    if let Some(first) = failures.into_iter().next() {
        return Err(RunError::Worker(first));
    }
    if let Some(sig) = interrupted.or(stop.signal()) {
        return Ok(PhaseEnd::Interrupted(sig));
    }
    results.sort_by_key(|r| r.worker);
    if let Some(area) = &latencies {
        write_latency_files(pass, &results, &ops, area, &paths)?;
    }
    // The parent's view: from the release to the end of the last timed region.
    let parent_end = results
        .iter()
        .map(|r| r.end_after_release_ns.max(0) as u64)
        .max()
        .unwrap_or(0);
    Ok(PhaseEnd::Done(PhaseResult {
        pass,
        workers,
        threads: throughput.threads,
        file_bytes: cell.file_bytes,
        record_bytes: cell.record_bytes,
        parent_elapsed_ns: parent_end,
        stonewall: throughput.stonewall,
        results,
    }))
}

/// `-Q`: IOzone's per-child files, `Child_<n>_<test>.dat` in the current
/// directory, written once every worker of the phase is done.
fn write_latency_files(
    pass: Pass,
    results: &[WorkerResult],
    ops: &WorkerOps,
    area: &SharedLatencies,
    paths: &[PathBuf],
) -> Result<(), RunError> {
    for r in results {
        let name = latency_files::worker_file_name(pass, r.worker);
        latency_files::append_to(
            Path::new(&name),
            ops.of(r.worker),
            &area.load(r.worker),
            (r.cpu_user_ns, r.cpu_system_ns),
            r.elapsed_ns,
        )
        .map_err(|e| {
            RunError::Io(IoFailure {
                operation: "write the -Q latency file for",
                path: paths[r.worker as usize].clone(),
                offset: None,
                pass: Some(pass),
                source: io::Error::new(e.kind(), format!("{name}: {e}")),
            })
        })?;
    }
    Ok(())
}

/// Threads: two barriers; the parent reads the release time between them, so
/// no worker's clock can start before it.
fn run_threads<'a>(
    workers: u32,
    shared: &SharedState,
    job: &(dyn Fn(u32, UsageWho) -> WorkerJob<'a> + Sync),
) -> Vec<WorkerReport> {
    struct BarrierGate<'b> {
        arrived: &'b Barrier,
        released: &'b Barrier,
        shared: &'b SharedState,
    }
    impl Gate for BarrierGate<'_> {
        fn arrive(&self, ok: bool) {
            if !ok {
                self.shared.abort();
            }
            self.arrived.wait();
        }
        fn wait_for_release(&self) {
            self.released.wait();
        }
    }
    let arrived = Barrier::new(workers as usize + 1);
    let released = Barrier::new(workers as usize + 1);
    let gate = BarrierGate {
        arrived: &arrived,
        released: &released,
        shared,
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|i| {
                let gate = &gate;
                s.spawn(move || run_worker(&job(i, UsageWho::RUSAGE_THREAD), gate))
            })
            .collect();
        arrived.wait();
        shared.flags().release_ns.store(now_ns(), Ordering::SeqCst);
        released.wait();
        handles
            .into_iter()
            .enumerate()
            .map(|(i, h)| {
                h.join().unwrap_or_else(|_| WorkerReport::Failed {
                    worker: i as u32,
                    message: format!("worker {i} panicked"),
                })
            })
            .collect()
    })
}

/// Processes: each worker is forked after setup data is ready. Workers say
/// "ready" on a pipe; the parent records the release time in shared memory and
/// closes the "go" pipe, which wakes every worker at once; each worker sends
/// its report as one JSON line on its own pipe and exits.
fn run_processes<'a>(
    workers: u32,
    shared: &SharedState,
    stop: &StopFlag,
    job: &dyn Fn(u32, UsageWho) -> WorkerJob<'a>,
) -> Result<Vec<WorkerReport>, RunError> {
    let pipe_error =
        |e: nix::Error| RunError::Refused(format!("cannot create a pipe for the workers: {e}"));
    let (ready_read, ready_write) = pipe().map_err(pipe_error)?;
    let (go_read, go_write) = pipe().map_err(pipe_error)?;
    let mut children: Vec<(Pid, OwnedFd)> = Vec::new();
    crate::engine::before_fork();
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    for index in 0..workers {
        let (report_read, report_write) = pipe().map_err(pipe_error)?;
        // SAFETY: ioz is single-threaded here (no helper threads are running in
        // throughput mode with processes), so the child may allocate and run
        // ordinary code; it leaves with _exit and never returns.
        match unsafe { fork() } {
            Ok(ForkResult::Child) => {
                drop(ready_read);
                drop(go_write);
                drop(report_read);
                for (_, fd) in children.drain(..) {
                    drop(fd);
                }
                let gate = PipeGate {
                    ready: ready_write,
                    go: go_read,
                };
                let report = run_worker(&job(index, UsageWho::RUSAGE_SELF), &gate);
                let code = i32::from(!matches!(report, WorkerReport::Done(_)));
                let mut out = std::fs::File::from(report_write);
                let line = serde_json::to_string(&report).unwrap_or_default();
                let _ = writeln!(out, "{line}");
                drop(out);
                // SAFETY: _exit skips the parent's atexit handlers and stdio buffers.
                unsafe { libc::_exit(code) };
            }
            Ok(ForkResult::Parent { child }) => {
                drop(report_write);
                children.push((child, report_read));
            }
            Err(e) => {
                shared.abort();
                drop(go_write);
                reap(&children);
                return Err(RunError::Refused(format!(
                    "cannot start worker {index}: {e}"
                )));
            }
        }
    }
    drop(ready_write);
    drop(go_read);

    // Wait until every worker has arrived (or died), forwarding a stop signal.
    let mut ready = std::fs::File::from(ready_read);
    let mut arrived = 0;
    let mut forwarded = false;
    while arrived < workers {
        forward_stop(stop, &children, &mut forwarded);
        if !readable(ready.as_raw_fd(), 100) {
            continue;
        }
        let mut byte = [0u8; 64];
        match ready.read(&mut byte) {
            Ok(0) | Err(_) => break, // every worker has exited or closed its end
            Ok(n) => {
                if byte[..n].contains(&b'E') {
                    shared.abort();
                }
                arrived += n as u32;
            }
        }
    }
    if arrived < workers {
        shared.abort();
    }
    shared.flags().release_ns.store(now_ns(), Ordering::SeqCst);
    drop(go_write);

    let mut reports = Vec::new();
    for (index, (pid, fd)) in children.iter().enumerate() {
        let mut text = String::new();
        let mut file = std::fs::File::from(
            fd.try_clone()
                .map_err(|e| RunError::Refused(e.to_string()))?,
        );
        loop {
            forward_stop(stop, &children, &mut forwarded);
            if readable(file.as_raw_fd(), 100) {
                break;
            }
        }
        let _ = file.read_to_string(&mut text);
        let report = serde_json::from_str::<WorkerReport>(text.trim()).unwrap_or_else(|_| {
            WorkerReport::Failed {
                worker: index as u32,
                message: format!("worker {index} (pid {pid}) ended without a report"),
            }
        });
        reports.push(report);
    }
    reap(&children);
    Ok(reports)
}

/// A pipe-based barrier for worker processes.
struct PipeGate {
    ready: OwnedFd,
    go: OwnedFd,
}

impl Gate for PipeGate {
    fn arrive(&self, ok: bool) {
        let byte = if ok { b"R" } else { b"E" };
        // SAFETY: writing one byte from a live buffer to our pipe end.
        let _ = unsafe { libc::write(self.ready.as_raw_fd(), byte.as_ptr().cast(), 1) };
    }

    fn wait_for_release(&self) {
        let mut byte = [0u8; 1];
        loop {
            // SAFETY: reading into a live one-byte buffer from our pipe end.
            let n = unsafe { libc::read(self.go.as_raw_fd(), byte.as_mut_ptr().cast(), 1) };
            // EOF: the parent closed the pipe, which is the release.
            if n == 0 || (n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted)
            {
                return;
            }
        }
    }
}

fn readable(fd: i32, timeout_ms: u16) -> bool {
    // SAFETY: the descriptor is open for the duration of the call.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let mut fds = [PollFd::new(borrowed, PollFlags::POLLIN)];
    matches!(poll(&mut fds, PollTimeout::from(timeout_ms)), Ok(n) if n > 0)
}

/// Passes a stop signal the parent received on to every worker, once.
fn forward_stop(stop: &StopFlag, children: &[(Pid, OwnedFd)], forwarded: &mut bool) {
    if *forwarded {
        return;
    }
    if let Some(sig) = stop.signal() {
        let signal = Signal::try_from(sig).unwrap_or(Signal::SIGTERM);
        for (pid, _) in children {
            let _ = kill(*pid, signal);
        }
        *forwarded = true;
    }
}

/// Waits for every worker process, so none is left behind.
fn reap(children: &[(Pid, OwnedFd)]) {
    for (pid, _) in children {
        loop {
            match waitpid(*pid, None) {
                Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(1)),
                Err(nix::errno::Errno::EINTR) => {}
                _ => break,
            }
        }
    }
}
