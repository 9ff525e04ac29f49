//! Starting a phase's workers and meeting them at the barrier: threads
//! behind two barriers (-T), or forked processes behind pipes; either way
//! the release time goes to shared memory before any worker's clock starts.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Barrier;
use std::sync::atomic::Ordering;
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::resource::UsageWho;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid, waitpid};
use nix::unistd::{ForkResult, Pid, fork, getpid, pipe};

use super::shared::SharedState;
use super::worker::{Gate, WorkerJob, WorkerReport, run_worker};
use crate::engine::clock::now_ns;
use crate::error::RunError;
use crate::system::signals::{self, StopFlag};

/// What the parent of a rank's workers does besides waiting for them, in
/// cluster mode: meet the other ranks before the release, and watch for
/// their stops (and tell them of its own) while the workers run. Called on
/// the parent's thread, never in the timed region of a worker.
pub(super) trait Coordinator {
    /// Every local worker has arrived; the release waits for this.
    fn before_release(&self);
    /// Called about once a millisecond while any worker runs.
    fn while_running(&self);
}

/// How often the parent of a rank's workers looks for the other ranks'
/// stops: at most once a millisecond (the measured bound).
const COORDINATOR_PERIOD: Duration = Duration::from_millis(1);

/// Threads: two barriers; the parent reads the release time between them, so
/// no worker's clock can start before it. With a `coordinator` (cluster
/// mode) the parent meets the other ranks before the release and polls for
/// theirs while the workers run.
pub(super) fn run_threads<'a>(
    workers: u32,
    shared: &SharedState,
    job: &(dyn Fn(u32, UsageWho) -> WorkerJob<'a> + Sync),
    coordinator: Option<&dyn Coordinator>,
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
        if let Some(c) = coordinator {
            c.before_release();
        }
        shared.flags().release_ns.store(now_ns(), Ordering::SeqCst);
        released.wait();
        if let Some(c) = coordinator {
            while !handles.iter().all(|h| h.is_finished()) {
                c.while_running();
                std::thread::sleep(COORDINATOR_PERIOD);
            }
        }
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
/// `forked` is called once every worker is forked (before the release):
/// the parent may start threads from then on.
pub(super) fn run_processes<'a>(
    workers: u32,
    shared: &SharedState,
    stop: &StopFlag,
    job: &dyn Fn(u32, UsageWho) -> WorkerJob<'a>,
    forked: &mut dyn FnMut(),
) -> Result<Vec<WorkerReport>, RunError> {
    let pipe_error =
        |e: nix::Error| RunError::System(format!("cannot create a pipe for the workers: {e}"));
    let (ready_read, ready_write) = pipe().map_err(pipe_error)?;
    let (go_read, go_write) = pipe().map_err(pipe_error)?;
    let mut children: Vec<(Pid, OwnedFd)> = Vec::new();
    crate::engine::before_fork();
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    for index in 0..workers {
        let (report_read, report_write) = pipe().map_err(pipe_error)?;
        match fork_worker() {
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
                // A panic must not unwind out of this arm: the child would go
                // on as a copy of the parent, and its destructors would act
                // on the parent's behalf (remove its files, print its results).
                let report = panic::catch_unwind(AssertUnwindSafe(|| {
                    run_worker(&job(index, UsageWho::RUSAGE_SELF), &gate)
                }))
                .unwrap_or_else(|_| WorkerReport::Failed {
                    worker: index,
                    message: format!("worker {index} panicked"),
                });
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
                return Err(RunError::System(format!(
                    "cannot start worker {index}: {e}"
                )));
            }
        }
    }
    drop(ready_write);
    drop(go_read);
    forked();

    // Wait until every worker has arrived (or one has died), forwarding a
    // stop signal.
    let mut ready = std::fs::File::from(ready_read);
    let mut arrived = 0;
    let mut forwarded = false;
    while arrived < workers {
        forward_stop(stop, &children, &mut forwarded);
        if !readable(ready.as_raw_fd(), 100) {
            // A worker killed before it arrived never will, and the others
            // keep the pipe open: without this the phase would wait forever.
            if any_ended(&children) {
                break;
            }
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
        let mut file =
            std::fs::File::from(fd.try_clone().map_err(|e| {
                RunError::System(format!("cannot read worker {index}'s report: {e}"))
            })?);
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

/// Forks a worker process. The child becomes a worker (its own handling of
/// the stop signals, death with its parent) before it handles any signal.
fn fork_worker() -> nix::Result<ForkResult> {
    let parent = getpid();
    let _held = signals::hold_stop_signals();
    // SAFETY: ioz is single-threaded here (no helper threads are running in
    // throughput mode with processes), so the child may allocate and run
    // ordinary code; the caller's child arm leaves with _exit and never returns.
    let forked = unsafe { fork() }?;
    if let ForkResult::Child = forked {
        signals::become_worker(parent);
        // Untimed: the code the worker runs mapped again after the fork.
        crate::system::program_pages::map_program_pages();
    }
    Ok(forked)
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

/// Passes a stop signal the parent received on to every worker, once: a
/// signal sent to the parent alone must stop them too. A worker that also
/// had it from the terminal (Ctrl-C reaches the whole process group) counts
/// the two as one stop (see system::signals).
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

/// Whether a worker process has ended; it stays a zombie for [`reap`].
fn any_ended(children: &[(Pid, OwnedFd)]) -> bool {
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    children.iter().any(|(pid, _)| {
        !matches!(
            waitid(Id::Pid(*pid), flags),
            Ok(WaitStatus::StillAlive) | Err(nix::errno::Errno::EINTR)
        )
    })
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
