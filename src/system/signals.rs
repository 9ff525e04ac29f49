//! SIGINT, SIGTERM and SIGHUP ask the run to stop at the next record boundary.
//! A second SIGINT (the user pressing Ctrl-C again) ends ioz at once, after
//! removing the test files registered with [`remove_on_second_interrupt`] —
//! unless ioz holds that exit back ([`hold_exit`]) while a file system is
//! unmounted (-U): then it leaves as soon as the file system is mounted again.
//!
//! One stop often arrives twice: `timeout -s INT` sends its signal to ioz
//! and then to its whole process group, and a terminal's Ctrl-C reaches
//! ioz and a parent that passes it on. A SIGINT within
//! [`SAME_STOP_WINDOW`] of the first stop signal is that same stop, not a
//! second Ctrl-C (no one presses twice that fast): before, such a pair
//! sometimes arrived far enough apart to be handled one by one, and ioz
//! left at once — no closing line, no JSON, no history, its workers left
//! to die after it (2 runs in 8 of `timeout -s INT 4 ioz … -t 4`).
//!
//! A cluster rank handles them the same way. Open MPI 4.1's mpirun, given a
//! Ctrl-C or a SIGTERM, sends each rank's process group SIGCONT at once,
//! SIGTERM `odls_base_sigkill_timeout` seconds later (1 by default), and
//! SIGKILL at most as long again after that (measured with strace). The
//! SIGTERM stops every rank at its next record and the ranks end the job
//! together (app/driver.rs): rank 0 has saved it 0.02 to 0.3 s later on 2
//! loaded cores, and every rank then waits in MPI_Finalize, which mpirun
//! answers with the SIGKILL. A rank that could not stop in time (stuck in
//! an MPI call) is killed there, and its file warden removes its files.
//!
//! A throughput worker process ([`become_worker`]) handles them its own way:
//! every stop signal only stops it at the next record, however many arrive
//! (a terminal's Ctrl-C reaches the whole process group, and the parent
//! passes its own on: a worker sees two for one keypress). Leaving at once
//! is the parent's call. A worker whose parent has died removes the run's
//! files and leaves at once.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use nix::unistd::{Pid, getppid};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use super::{file_warden, unlink};
use crate::error::Exit;

/// Holds the number of the first stop signal received, or 0.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<LoopWord>);

/// The flag's word where the timed loops read it at every operation: never
/// in the first cache line of a page (128-byte aligned, 64 bytes in), where
/// a word read at every operation made a cached 4 KiB read 2–3 % slower
/// (runner/shared_words.rs). The heap would put it anywhere.
#[repr(C, align(128))]
#[derive(Debug, Default)]
struct LoopWord {
    _first_line: [u64; 8],
    word: AtomicUsize,
}

/// How close behind the first stop signal a SIGINT is the same stop
/// delivered twice (see the module). Two signals sent one after the other
/// are handled microseconds apart, a parent's relay a few milliseconds
/// after the terminal's; a person's second Ctrl-C comes hundreds later.
pub const SAME_STOP_WINDOW: Duration = Duration::from_millis(150);

/// When the first stop signal was handled (CLOCK_MONOTONIC, ns; 0: none).
static FIRST_STOP_NS: AtomicU64 = AtomicU64::new(0);

/// How many stop signals this process has handled, and the last one: what
/// tells a wait after the run (for the history's lock) that a stop came
/// while it waited.
static STOPS_HANDLED: AtomicUsize = AtomicUsize::new(0);
static LAST_STOP: AtomicI32 = AtomicI32::new(0);

/// The monotonic clock in ns; async-signal-safe (clock_gettime).
fn monotonic_ns() -> u64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .map(|t| t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64)
        .unwrap_or(0)
}

/// In the handler: notes a stop signal, and whether it is the first.
fn note_stop(signal: i32) {
    LAST_STOP.store(signal, Ordering::SeqCst);
    STOPS_HANDLED.fetch_add(1, Ordering::SeqCst);
    let _ = FIRST_STOP_NS.compare_exchange(
        0,
        monotonic_ns().max(1),
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
}

/// In the handler: whether a SIGINT now is the first stop delivered again.
fn same_stop() -> bool {
    let first = FIRST_STOP_NS.load(Ordering::SeqCst);
    first != 0 && monotonic_ns().saturating_sub(first) < SAME_STOP_WINDOW.as_nanos() as u64
}

/// When the first stop signal was handled (CLOCK_MONOTONIC, ns), if one was.
#[cfg_attr(
    not(feature = "mpi"),
    expect(
        dead_code,
        reason = "a cluster rank's patience (system/cluster/mpi.rs)"
    )
)]
pub fn first_stop_ns() -> Option<u64> {
    match FIRST_STOP_NS.load(Ordering::SeqCst) {
        0 => None,
        at => Some(at),
    }
}

/// Stops this process as a SIGTERM would (its handlers run): a cluster
/// rank at the job's time limit.
pub fn stop_self() {
    let _ = nix::sys::signal::raise(Signal::SIGTERM);
}

/// Whether the launcher's SIGCONT was taken as a stop already.
static LAUNCHER_CONTINUED: AtomicBool = AtomicBool::new(false);

/// In a cluster rank: the SIGCONT its launcher (its parent: mpirun, Open
/// MPI's orted, Slurm's slurmstepd) sends the moment it begins to end the
/// job — a Ctrl-C or SIGTERM to mpirun, a rank that died, the time limit —
/// is taken as the stop its SIGTERM will be, one to three seconds before
/// it comes: that much more time for rank 0 to print and save the run
/// before the launcher's SIGKILL, and for the ranks to leave once a peer
/// is gone. A SIGCONT from anyone else is what it always was. (mpirun
/// also passes on a SIGCONT it is sent, as the SIGSTOP it makes of a
/// SIGTSTP: a rank cannot tell that resume from the start of an ending, so
/// suspending mpirun and resuming it ends the run as a stop does.)
#[cfg_attr(
    not(feature = "mpi"),
    expect(dead_code, reason = "cluster ranks exist in the MPI build only")
)]
pub fn stop_on_launcher_continue() -> io::Result<()> {
    extern "C" fn on_continue(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
        let sender = unsafe { (*info).si_pid() };
        if sender == getppid().as_raw() && !LAUNCHER_CONTINUED.swap(true, Ordering::SeqCst) {
            // The stop handlers run as for the launcher's own SIGTERM.
            // SAFETY: raise is async-signal-safe.
            unsafe { libc::raise(libc::SIGTERM) };
        }
    }
    // SAFETY: a zeroed sigaction is a valid start; the handler only reads
    // its siginfo, calls getppid and raise and swaps an atomic, all
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_continue as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGCONT, &action, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// How many stop signals have been handled so far: a mark for
/// [`stop_since`].
pub fn stops_so_far() -> usize {
    STOPS_HANDLED.load(Ordering::SeqCst)
}

/// The last stop signal handled since `mark` (from [`stops_so_far`]), if
/// any came since.
pub fn stop_since(mark: usize) -> Option<i32> {
    (stops_so_far() != mark).then(|| LAST_STOP.load(Ordering::SeqCst))
}

/// Files to unlink if ioz has to leave at once; set once, before the run.
static EMERGENCY_REMOVALS: OnceLock<Vec<Removal>> = OnceLock::new();

/// A test file a quick exit may unlink: only while the path still leads to
/// the file ioz made (its device and inode, recorded when the run claims it
/// and cleared when the run removes it), never to what someone put in its
/// place. Atomics, because the signal handler reads them.
struct Removal {
    path: CString,
    /// Whether `dev` and `ino` hold the identity of ioz's file now.
    known: AtomicBool,
    dev: AtomicU64,
    ino: AtomicU64,
}

/// The second-SIGINT exit: free to happen, held back, or held back and asked for.
static EXIT_GATE: AtomicU8 = AtomicU8::new(GATE_OPEN);
const GATE_OPEN: u8 = 0;
const GATE_HELD: u8 = 1;
const GATE_HELD_ASKED: u8 = 2;

/// While alive, a second SIGINT does not end ioz at once; it ends it when the
/// guard drops (after a remount has put the file system back).
#[must_use]
pub struct ExitHold(());

pub fn hold_exit() -> ExitHold {
    EXIT_GATE.store(GATE_HELD, Ordering::SeqCst);
    ExitHold(())
}

impl Drop for ExitHold {
    fn drop(&mut self) {
        if EXIT_GATE.swap(GATE_OPEN, Ordering::SeqCst) == GATE_HELD_ASKED {
            leave_now(SIGINT);
        }
    }
}

/// In the handler: leaves now, or, while held, marks the exit as asked for.
fn leave_now_unless_held(signal: i32) {
    match EXIT_GATE.compare_exchange(
        GATE_HELD,
        GATE_HELD_ASKED,
        Ordering::SeqCst,
        Ordering::SeqCst,
    ) {
        Ok(_) | Err(GATE_HELD_ASKED) => {}
        Err(_) => leave_now(signal),
    }
}

/// Registers the files a second SIGINT removes before exiting (ioz's own test
/// files, never a device or a kept file), each once the run has claimed it
/// ([`remember_identity`]). Only the first call counts.
pub fn remove_on_second_interrupt(paths: Vec<PathBuf>) {
    let removals = paths
        .into_iter()
        .filter_map(|p| CString::new(p.as_os_str().as_bytes()).ok())
        .map(|path| Removal {
            path,
            known: AtomicBool::new(false),
            dev: AtomicU64::new(0),
            ino: AtomicU64::new(0),
        })
        .collect();
    let _ = EMERGENCY_REMOVALS.set(removals);
}

/// The registered test file at `path` is now ioz's file with this identity
/// (`None`: the run removed it, so nothing there is ioz's any more).
pub fn remember_identity(path: &Path, identity: Option<(u64, u64)>) {
    let Some(removals) = EMERGENCY_REMOVALS.get() else {
        return;
    };
    let bytes = path.as_os_str().as_bytes();
    let mut registered = false;
    for r in removals.iter().filter(|r| r.path.as_bytes() == bytes) {
        registered = true;
        r.known.store(false, Ordering::SeqCst);
        if let Some((dev, ino)) = identity {
            r.dev.store(dev, Ordering::SeqCst);
            r.ino.store(ino, Ordering::SeqCst);
            r.known.store(true, Ordering::SeqCst);
        }
    }
    // A cluster rank's warden removes them if the rank is killed outright.
    if registered {
        file_warden::tell(path, identity);
    }
}

/// Set when the registered paths may no longer lead to ioz's files (-U could
/// not mount their file system back): a quick exit then removes nothing.
static REMOVALS_CANCELLED: AtomicBool = AtomicBool::new(false);

/// Cancels the removals a second SIGINT would do.
pub fn cancel_removals_on_interrupt() {
    REMOVALS_CANCELLED.store(true, Ordering::SeqCst);
    file_warden::cancel();
}

/// In a worker process, the pid of the parent that forked it; 0 in ioz's own
/// process (and in worker threads, which share it).
static WORKER_OF: AtomicI32 = AtomicI32::new(0);

/// What the kernel sends a worker when its parent dies (PR_SET_PDEATHSIG).
/// A stop signal, so that a worker handles it with the others: in a worker
/// whose parent is gone, any stop signal removes the run's files and leaves.
const PARENT_DEATH_SIGNAL: Signal = Signal::SIGTERM;

/// Makes the calling process, just forked by `parent`, a throughput worker:
/// its stop signals never end it at once while `parent` lives, and it dies
/// with `parent`, removing the run's files (the removal list is inherited)
/// on the way. Call it in the child with the stop signals held
/// ([`hold_stop_signals`]), so that none is handled before it is a worker.
///
/// The parent-death signal fires when the *thread* that forked the worker
/// ends: workers are forked by ioz's main thread, which lives as long as ioz.
pub fn become_worker(parent: Pid) {
    WORKER_OF.store(parent.as_raw(), Ordering::SeqCst);
    // prctl(PR_SET_PDEATHSIG) fails only for a signal number out of range.
    let _ = nix::sys::prctl::set_pdeathsig(PARENT_DEATH_SIGNAL);
    // The parent may have died between fork and prctl: then no signal will
    // come, and the worker has been handed to another process already.
    if orphaned() {
        leave_now(PARENT_DEATH_SIGNAL as i32);
    }
}

/// True in a worker process whose parent has died. getppid is
/// async-signal-safe, and by the time the parent-death signal arrives the
/// kernel has already given the worker a new parent.
fn orphaned() -> bool {
    let parent = WORKER_OF.load(Ordering::SeqCst);
    parent != 0 && getppid().as_raw() != parent
}

/// SIGINT, SIGTERM and SIGHUP blocked for this thread until the guard drops
/// (then any that came meanwhile are handled).
#[must_use]
pub struct StopSignalsHeld(Option<SigSet>);

/// Blocks the stop signals around a fork: a child starts with the parent's
/// handling and must become a worker before it handles any.
pub fn hold_stop_signals() -> StopSignalsHeld {
    let mut stops = SigSet::empty();
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        stops.add(sig);
    }
    let mut old = SigSet::empty();
    let held = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&stops), Some(&mut old)).is_ok();
    StopSignalsHeld(held.then_some(old))
}

impl Drop for StopSignalsHeld {
    fn drop(&mut self) {
        if let Some(old) = &self.0 {
            let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(old), None);
        }
    }
}

/// What a stop signal does in a worker process: stop at the next record
/// while the parent lives (only the parent leaves at once on a second
/// SIGINT); once it is gone, remove the run's files and leave.
fn worker_signal(seen: &AtomicUsize, signal: i32) {
    if orphaned() {
        leave_now(signal);
    }
    let _ = seen.compare_exchange(0, signal as usize, Ordering::SeqCst, Ordering::SeqCst);
}

/// Runs inside the signal handler: only async-signal-safe calls (unlink, _exit).
fn leave_now(signal: i32) -> ! {
    remove_files_and_exit(Exit::Signal(signal))
}

/// Removes the registered test files that are still ioz's and ends the
/// process with `exit` at once, whatever its other threads are doing
/// (inside an MPI call, say). Async-signal-safe.
pub fn remove_files_and_exit(exit: Exit) -> ! {
    let code = exit.code();
    remove_registered_files();
    // nix has no _exit, and std::process::exit runs atexit handlers, which
    // are not async-signal-safe (and MPI's may wait for the other ranks).
    // SAFETY: _exit takes a plain integer, never returns, and is
    // async-signal-safe.
    unsafe { libc::_exit(code) }
}

/// Removes the registered test files that are still ioz's, and a metadata
/// benchmark's tree (a panicking rank's last act before it ends the job).
/// Async-signal-safe.
pub fn remove_registered_files() {
    if REMOVALS_CANCELLED.load(Ordering::SeqCst) {
        return;
    }
    super::tree::remove_registered();
    if let Some(removals) = EMERGENCY_REMOVALS.get() {
        for r in removals.iter().filter(|r| r.known.load(Ordering::SeqCst)) {
            unlink::unlink_if_ours(
                r.path.as_c_str(),
                r.dev.load(Ordering::SeqCst),
                r.ino.load(Ordering::SeqCst),
            );
        }
    }
}

impl StopFlag {
    /// A flag set by SIGINT, SIGTERM and SIGHUP.
    pub fn install() -> io::Result<StopFlag> {
        let flag = StopFlag::default();
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            let seen = Arc::clone(&flag.0);
            let action = move || {
                if WORKER_OF.load(Ordering::SeqCst) != 0 {
                    worker_signal(&seen.word, sig);
                    return;
                }
                // Before it is noted: the window runs from the first stop.
                let again = same_stop();
                note_stop(sig);
                let first = seen
                    .word
                    .compare_exchange(0, sig as usize, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok();
                if !first && sig == SIGINT && !again {
                    leave_now_unless_held(sig);
                }
            };
            // SAFETY: the action only does atomic loads, stores and
            // compare-exchanges, clock_gettime, getppid and, on a second
            // SIGINT or in an orphaned worker, unlink and _exit: all
            // async-signal-safe.
            unsafe { signal_hook::low_level::register(sig, action) }?;
        }
        Ok(flag)
    }

    /// The signal that asked to stop, if any. Cheap enough for the timed loop.
    #[inline]
    pub fn signal(&self) -> Option<i32> {
        match self.0.word.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s as i32),
        }
    }

    /// The flag's word (0, or the signal's number), for the timed loops,
    /// which poll it without depending on this module.
    pub fn word(&self) -> &AtomicUsize {
        &self.0.word
    }

    /// Passes the stop signal received, if any, on to the processes
    /// `pids`, once (`passed` remembers it): processes the signal did not
    /// reach (a launcher in a process group of its own) must stop too.
    pub fn pass_on(&self, pids: impl IntoIterator<Item = Pid>, passed: &mut bool) {
        if *passed {
            return;
        }
        if let Some(sig) = self.signal() {
            let signal = Signal::try_from(sig).unwrap_or(Signal::SIGTERM);
            for pid in pids {
                let _ = nix::sys::signal::kill(pid, signal);
            }
            *passed = true;
        }
    }

    /// Raises the flag by hand (tests, and errors that stop the run).
    pub fn raise(&self, signal: i32) {
        let _ =
            self.0
                .word
                .compare_exchange(0, signal as usize, Ordering::SeqCst, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_the_loops_read_is_never_in_a_page_s_first_cache_line() {
        for _ in 0..8 {
            let flags: Vec<StopFlag> = (0..3).map(|_| StopFlag::default()).collect();
            for flag in &flags {
                assert_eq!(std::ptr::from_ref(flag.word()) as usize % 128, 64);
            }
        }
    }

    #[test]
    fn a_second_interrupt_while_held_is_remembered_not_obeyed() {
        let hold = hold_exit();
        // Were the gate open, this would end the test process at once.
        leave_now_unless_held(SIGINT);
        leave_now_unless_held(SIGINT);
        assert_eq!(EXIT_GATE.load(Ordering::SeqCst), GATE_HELD_ASKED);
        // Dropping the guard would now exit; open the gate by hand instead.
        std::mem::forget(hold);
        EXIT_GATE.store(GATE_OPEN, Ordering::SeqCst);
    }
}
