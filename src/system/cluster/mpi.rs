//! The MPI backend of [`Peers`] (ferrompi over the system's MPI): MPI is
//! started only when a launcher started ioz, with every thread allowed to
//! call it (the rank's stonewall watcher polls from its own thread while
//! the main one waits for the workers; their calls never overlap).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use ferrompi::{Communicator, Mpi, ReduceOp, Source, Tag, ThreadLevel};

use super::{Launcher, PeerError, Peers, Reduction, offset_of};
use crate::error::Exit;
use crate::model::job::Traffic;
use crate::model::skew::{ClockOffset, LONGEST_TRUSTED_ROUND_TRIP_NS};

/// Tag of the stop messages (one byte: why).
const STOP: i32 = 17;
/// Tag of the clock round trips (rank 0's ping, the peer's clock).
const CLOCK: i32 = 18;
/// Tag of the network test's messages (-+t).
const NETWORK: i32 = 19;
/// Tag of `--live`'s lines, sent to rank 0 as each interval ends.
const LIVE: i32 = 20;
/// Tag of a gather's pieces, where its bytes pass MPI's counts.
const GATHER: i32 = 21;
/// Tag of the network test's answers (-+t).
const NETWORK_REPLY: i32 = 22;

/// The network test's tag of a question or an answer.
fn network_tag(reply: bool) -> i32 {
    if reply { NETWORK_REPLY } else { NETWORK }
}

/// The most bytes one gather moves in MPI's own vector gather, whose
/// counts and displacements are C ints; past it each rank sends its bytes
/// to rank 0 in pieces of [`GATHER_PIECE`].
const VECTOR_GATHER_LIMIT: u64 = i32::MAX as u64;
const GATHER_PIECE: usize = 1 << 30;

/// CLOCK_MONOTONIC now, in nanoseconds (the clock every rank times itself
/// with: see engine::clock).
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own; CLOCK_MONOTONIC
    // always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The round trips each rank's clock offset is estimated from, and the
/// pause after each: 32 at once; when none of them was short enough (both
/// ranks bound to one core, or a loaded machine: one of them was not
/// running when the other's message came), 96 more spread over 0.1 s, so
/// that some land where both are running.
const CLOCK_ROUNDS: &[(u32, Duration)] = &[(32, Duration::ZERO), (96, Duration::from_millis(1))];

/// Rank 0's clock messages: answer with your clock, or that is all.
const PING: u8 = 1;
const DONE: u8 = 0;

/// A rank waiting for a clock message yields its core this many times
/// before it sleeps between looks (its turn may be a while: rank 0 times
/// the ranks one after the other).
const YIELDS_BEFORE_SLEEPING: u32 = 100;

/// The longest sleep between two looks.
const LONGEST_NAP: Duration = Duration::from_millis(1);

/// MPI_COMM_WORLD, for the panic hook, which aborts the job from wherever
/// it runs, and for the threads that wait in collective calls.
static WORLD: OnceLock<Communicator> = OnceLock::new();

/// How long a rank keeps waiting for the others in a call across the
/// ranks once the job is ending (a stop: Ctrl-C to the launcher, its
/// SIGCONT when a rank died, the time limit): a healthy job agrees on a
/// stop in 0.02 to 0.3 s on 2 loaded cores, a rank in the fsync of a
/// large dirty file takes longer; Open MPI's mpirun sends its SIGTERM 1 s
/// after its SIGCONT and its SIGKILL soon after by default (3 and 6 s
/// under -+m). Past it the rank gives up, rank 0 saves what it has, and
/// every rank leaves: a rank killed outright ends the job in under 2 s.
const STOP_PATIENCE: Duration = Duration::from_millis(1500);

/// How often a rank waiting in a call across the ranks looks whether to
/// give up (and rank 0 passes a stop on, in a phase's drain).
const WAIT_LOOK: Duration = Duration::from_millis(1);

/// The job as this rank sees it: MPI is finalized when it drops.
pub struct MpiJob {
    /// Held for its drop (MPI_Finalize), after the peers'.
    _mpi: Mpi,
    pub peers: MpiPeers,
}

/// This rank among the others.
pub struct MpiPeers {
    world: Communicator,
    host: String,
    /// Stops received in the current phase (the drain receives the rest).
    stops_received: AtomicU32,
    /// Whether this rank sent its stop in the current phase (rank 0: to
    /// every other rank; another rank: to rank 0).
    stop_sent: AtomicBool,
    traffic: Counters,
    /// A call gave up on the others: none is made after it, and the rank
    /// leaves without MPI_Finalize (which would wait for them).
    abandoned: AtomicBool,
    /// The job's time limit on CLOCK_MONOTONIC (ns; 0: none): past it no
    /// call waits.
    deadline_ns: AtomicU64,
    #[cfg(feature = "test-hooks")]
    faults: Faults,
}

/// [`Traffic`], counted as the calls are made (from any thread).
#[derive(Default)]
struct Counters {
    messages: AtomicU64,
    stop_messages: AtomicU64,
    collectives: AtomicU64,
    gathered_bytes: AtomicU64,
    reduced_bytes: AtomicU64,
    broadcast_bytes: AtomicU64,
}

impl Counters {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    fn collective(&self, field: &AtomicU64, bytes: u64) {
        Counters::add(&self.collectives, 1);
        Counters::add(field, bytes);
    }

    fn read(&self) -> Traffic {
        let r = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Traffic {
            messages: r(&self.messages),
            stop_messages: r(&self.stop_messages),
            collectives: r(&self.collectives),
            gathered_bytes: r(&self.gathered_bytes),
            reduced_bytes: r(&self.reduced_bytes),
            broadcast_bytes: r(&self.broadcast_bytes),
        }
    }
}

/// Faults the end-to-end tests inject (app/cluster/test_hooks.rs), in the
/// test-hooks build only.
#[cfg(feature = "test-hooks")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    /// Answer this many of rank 0's clock pings this late each: a rank
    /// too far, or too loaded, for its clock to be aligned.
    pub slow_clock_answers: (u32, Duration),
    /// Never look for the other ranks' stops during a phase: a rank cut
    /// off from them (the phase's drain still receives them).
    pub deaf_to_stops: bool,
    /// Gathers past this many bytes come in pieces of this size: the way
    /// past MPI's counts, tried on small runs.
    pub gather_limit: Option<u64>,
    /// Release this rank's workers this late after each phase's barrier:
    /// a rank that starts late.
    pub late_release: Duration,
}

#[cfg(feature = "test-hooks")]
impl MpiPeers {
    pub fn inject(&mut self, faults: Faults) {
        self.faults = faults;
    }
}

/// Why MPI could not start this rank.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot start MPI: {0}")]
    Init(ferrompi::Error),
    #[error(
        "this MPI allows calls from one thread only ({level:?}); ioz's ranks need at least \
         MPI_THREAD_SERIALIZED"
    )]
    OneThread { level: ThreadLevel },
    /// A binary built against another MPI than its launcher's.
    #[error(
        "started by a launcher of {ranks} ranks ({variable} is set) but MPI sees {size}: this ioz \
         was built with another MPI than the launcher's ({library})"
    )]
    OtherMpi {
        ranks: u32,
        variable: &'static str,
        size: i32,
        library: String,
    },
    #[error("cannot ask MPI for the host name: {0}")]
    HostName(ferrompi::Error),
    /// srun started several tasks, and MPI sees each alone: srun's MPI
    /// plugin was none, or one this MPI cannot talk to.
    #[error("{}", super::srun_without_mpi(*tasks))]
    SrunWithoutMpi { tasks: u32 },
}

/// Starts MPI for a rank that `launcher` started. Refuses a binary started
/// by another MPI's launcher: it would run as that many independent
/// one-rank jobs on the same files.
pub fn start(launcher: &Launcher) -> Result<MpiJob, StartError> {
    let mpi = Mpi::init_thread(ThreadLevel::Multiple).map_err(StartError::Init)?;
    if mpi.thread_level() < ThreadLevel::Serialized {
        return Err(StartError::OneThread {
            level: mpi.thread_level(),
        });
    }
    let world = mpi.world();
    if let Some(ranks) = launcher.ranks
        && ranks != world.size() as u32
    {
        return Err(StartError::OtherMpi {
            ranks,
            variable: launcher.variable,
            size: world.size(),
            library: Mpi::library_version()
                .map(|v| v.lines().next().unwrap_or_default().to_string())
                .unwrap_or_default(),
        });
    }
    if launcher.ranks.is_none()
        && world.size() == 1
        && let Some(tasks) = super::srun_tasks()
    {
        return Err(StartError::SrunWithoutMpi { tasks });
    }
    let host = world.processor_name().map_err(StartError::HostName)?;
    let _ = WORLD.set(mpi.world());
    Ok(MpiJob {
        _mpi: mpi,
        peers: MpiPeers {
            world,
            host,
            stops_received: AtomicU32::new(0),
            stop_sent: AtomicBool::new(false),
            traffic: Counters::default(),
            abandoned: AtomicBool::new(false),
            deadline_ns: AtomicU64::new(0),
            #[cfg(feature = "test-hooks")]
            faults: Faults::default(),
        },
    })
}

/// Ends this rank with `exit` without MPI_Finalize (which waits for the
/// other ranks): its output flushed, no atexit handler run (MPI's may wait
/// for them too). Its files are already removed.
pub fn leave_without_finalize(exit: Exit) -> ! {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: _exit takes a plain integer and never returns.
    unsafe { libc::_exit(exit.code()) }
}

/// Ends the whole job with `exit` (MPI_Abort), from any thread. Without a
/// job (MPI not started) ends this process.
pub fn abort_job(exit: Exit) -> ! {
    let code = exit.code();
    match WORLD.get() {
        Some(world) => world.abort(code),
        None => std::process::exit(code),
    }
}

fn mpi_error(call: &'static str) -> impl Fn(ferrompi::Error) -> PeerError {
    move |e| PeerError::Call {
        call,
        source: Box::new(e),
    }
}

impl MpiPeers {
    /// The job's time limit is `limit` from now: past it, no call across
    /// the ranks waits.
    pub fn keep_deadline(&self, limit: Duration) {
        let at = monotonic_ns().saturating_add(limit.as_nanos() as u64);
        self.deadline_ns.store(at, Ordering::SeqCst);
    }

    /// Whether a call gave up on the other ranks (the rank must leave
    /// without MPI_Finalize).
    pub fn abandoned(&self) -> bool {
        self.abandoned.load(Ordering::SeqCst)
    }

    /// Why to stop waiting for the others now, if it is time to.
    fn reason_to_give_up(&self) -> Option<String> {
        let now = monotonic_ns();
        let deadline = self.deadline_ns.load(Ordering::SeqCst);
        if deadline != 0 && now > deadline {
            return Some("past the job's time limit".into());
        }
        let stopped = crate::system::signals::first_stop_ns()?;
        let waited = Duration::from_nanos(now.saturating_sub(stopped));
        (waited > STOP_PATIENCE).then(|| {
            format!(
                "the job was stopping {:.1} s ago (a stop, or a rank that died)",
                waited.as_secs_f64()
            )
        })
    }

    /// Makes the call `f` across the ranks on a thread of its own and waits
    /// for it, doing `meanwhile` at each look, until it returns or it is
    /// time to give up ([`STOP_PATIENCE`], the time limit): MPI's calls
    /// cannot be abandoned, a thread waiting in one can. A rank that gave
    /// up makes no call after it.
    fn patiently<T: Send + 'static>(
        &self,
        call: &'static str,
        f: impl FnOnce(&'static Communicator) -> ferrompi::Result<T> + Send + 'static,
        mut meanwhile: impl FnMut() -> Result<(), PeerError>,
    ) -> Result<T, PeerError> {
        if self.abandoned() {
            return Err(PeerError::GaveUp {
                call,
                why: "an earlier call gave up".into(),
            });
        }
        let Some(world) = WORLD.get() else {
            return Err(PeerError::Call {
                call,
                source: "MPI is not started".into(),
            });
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("ioz-mpi-wait".into())
            .spawn(move || {
                let _ = tx.send(f(world));
            })
            .map_err(|e| PeerError::Call {
                call,
                source: Box::new(e),
            })?;
        loop {
            match rx.recv_timeout(WAIT_LOOK) {
                Ok(done) => return done.map_err(mpi_error(call)),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PeerError::GaveUp {
                        call,
                        why: "its thread ended".into(),
                    });
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            meanwhile()?;
            if let Some(why) = self.reason_to_give_up() {
                self.abandoned.store(true, Ordering::SeqCst);
                return Err(PeerError::GaveUp { call, why });
            }
        }
    }

    /// Returns once a clock message from `source` has arrived, without
    /// spinning on a core another rank needs: MPI's blocking receive polls
    /// without pause, so that a waiting rank bound to the same core as the
    /// one it waits for delays it by a whole time slice (4 to 12 ms
    /// measured), too long a round trip to align a clock with.
    fn wait_for<T: ferrompi::MpiDatatype>(&self, source: i32) -> Result<(), PeerError> {
        let mut looks = 0u32;
        while self
            .world
            .iprobe::<T>(source, Tag::Value(CLOCK))
            .map_err(mpi_error("probe"))?
            .is_none()
        {
            looks += 1;
            nap(looks);
        }
        Ok(())
    }

    /// The name of the clock this rank reads: its host, the kernel's boot
    /// (its boot id) and its time namespace's offset of CLOCK_MONOTONIC.
    /// Ranks whose names are equal read one clock: there is nothing to
    /// estimate between them.
    fn clock_name(&self) -> u64 {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let boot = read("/proc/sys/kernel/random/boot_id");
        let namespace: String = read("/proc/self/timens_offsets")
            .lines()
            .filter(|l| l.starts_with("monotonic"))
            .collect();
        let mut hasher = std::hash::DefaultHasher::new();
        (&self.host, boot.trim(), namespace).hash(&mut hasher);
        // A slow clock (the test hooks) must be one to estimate.
        #[cfg(feature = "test-hooks")]
        if self.faults.slow_clock_answers.0 > 0 {
            self.world.rank().hash(&mut hasher);
        }
        hasher.finish()
    }

    /// Sends a stop's byte to `peer`.
    fn send_stop_to(&self, peer: i32) -> Result<(), PeerError> {
        self.world
            .send(&[1u8], peer, STOP)
            .map_err(mpi_error("send"))?;
        Counters::add(&self.traffic.messages, 1);
        Counters::add(&self.traffic.stop_messages, 1);
        Ok(())
    }

    /// Receives one stop that has arrived, or says none has.
    fn receive_a_stop(&self) -> Result<bool, PeerError> {
        let Some(status) = self
            .world
            .iprobe::<u8>(Source::Any, Tag::Value(STOP))
            .map_err(mpi_error("probe"))?
        else {
            return Ok(false);
        };
        let mut byte = [0u8; 1];
        self.world
            .recv(&mut byte, status.source, Tag::Value(STOP))
            .map_err(mpi_error("receive"))?;
        self.stops_received.fetch_add(1, Ordering::SeqCst);
        Ok(true)
    }

    /// Rank 0: tells every other rank to stop, once a phase.
    fn stop_everyone(&self) -> Result<(), PeerError> {
        if self.stop_sent.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        for peer in 1..self.world.size() {
            self.send_stop_to(peer)?;
        }
        Ok(())
    }

    /// The bytes past which a gather comes in pieces, and their size.
    fn gather_limits(&self) -> (u64, usize) {
        #[cfg(feature = "test-hooks")]
        if let Some(limit) = self.faults.gather_limit {
            return (limit, limit.max(1) as usize);
        }
        (VECTOR_GATHER_LIMIT, GATHER_PIECE)
    }
}

/// Between two looks for a message (the `looks`-th): a yield at first,
/// then naps a microsecond longer each time, up to the longest nap, so
/// that a waiting rank gives its core to the one it waits for.
fn nap(looks: u32) {
    match looks.checked_sub(YIELDS_BEFORE_SLEEPING) {
        None => std::thread::yield_now(),
        Some(naps) => std::thread::sleep(Duration::from_micros(u64::from(naps)).min(LONGEST_NAP)),
    }
}

/// The gather of `bytes` (`lengths`: every rank's, at rank 0) rank by rank
/// in pieces of `piece` bytes: past MPI's counts. The pieces each rank
/// sent, and rank 0's list.
fn gather_in_pieces(
    world: &Communicator,
    bytes: &[u8],
    lengths: &[u64],
    piece: usize,
) -> ferrompi::Result<(u64, Vec<Vec<u8>>)> {
    if world.rank() != 0 {
        let mut sent = 0;
        for chunk in bytes.chunks(piece) {
            world.send(chunk, 0, GATHER)?;
            sent += 1;
        }
        return Ok((sent, Vec::new()));
    }
    let mut all = vec![bytes.to_vec()];
    for (rank, &length) in lengths.iter().enumerate().skip(1) {
        let mut mine = vec![0u8; length as usize];
        for chunk in mine.chunks_mut(piece) {
            world.recv(chunk, rank as i32, Tag::Value(GATHER))?;
        }
        all.push(mine);
    }
    Ok((0, all))
}

/// Rank 0's list of every rank's bytes from one vector gather (`lengths`
/// at rank 0; all within MPI's counts).
fn gather_in_one(
    world: &Communicator,
    bytes: &[u8],
    lengths: &[u64],
    total: u64,
) -> ferrompi::Result<Vec<Vec<u8>>> {
    let root = world.rank() == 0;
    let size = world.size() as usize;
    // Within MPI's counts: every length and offset fits a C int.
    let lengths: Vec<i32> = if root {
        lengths.iter().map(|&n| n as i32).collect()
    } else {
        vec![0; size]
    };
    let displacements: Vec<i32> = lengths
        .iter()
        .scan(0i32, |at, &n| {
            let here = *at;
            *at += n;
            Some(here)
        })
        .collect();
    let mut all = vec![0u8; if root { total as usize } else { 0 }];
    world.gatherv(bytes, &mut all, &lengths, &displacements, 0)?;
    if !root {
        return Ok(Vec::new());
    }
    Ok(lengths
        .iter()
        .zip(&displacements)
        .map(|(&n, &at)| all[at as usize..(at + n) as usize].to_vec())
        .collect())
}

/// MPI's operation for a reduction.
fn op_of(how: Reduction) -> ReduceOp {
    match how {
        Reduction::Sum => ReduceOp::Sum,
        Reduction::Max => ReduceOp::Max,
        Reduction::Min => ReduceOp::Min,
    }
}

impl Peers for MpiPeers {
    fn rank(&self) -> u32 {
        self.world.rank() as u32
    }

    fn size(&self) -> u32 {
        self.world.size() as u32
    }

    fn host(&self) -> &str {
        &self.host
    }

    fn barrier(&self) -> Result<(), PeerError> {
        self.patiently("barrier", |w| w.barrier(), || Ok(()))?;
        Counters::add(&self.traffic.collectives, 1);
        #[cfg(feature = "test-hooks")]
        std::thread::sleep(self.faults.late_release);
        Ok(())
    }

    fn send_stop(&self) -> Result<(), PeerError> {
        // One byte: small enough for every MPI's eager protocol, so the
        // send returns without waiting for the peer to receive it.
        if self.world.rank() == 0 {
            return self.stop_everyone();
        }
        if !self.stop_sent.swap(true, Ordering::SeqCst) {
            self.send_stop_to(0)?;
        }
        Ok(())
    }

    fn stop_arrived(&self) -> Result<bool, PeerError> {
        #[cfg(feature = "test-hooks")]
        if self.faults.deaf_to_stops {
            return Ok(false);
        }
        let heard = self.receive_a_stop()?;
        if heard && self.world.rank() == 0 {
            self.stop_everyone()?;
        }
        Ok(heard)
    }

    fn drain_stops(&self) -> Result<(), PeerError> {
        let me = self.world.rank();
        // Every rank has ended its phase once the barrier completes; till
        // then rank 0 passes on a stop that comes.
        self.patiently(
            "barrier",
            |w| w.barrier(),
            || {
                if me == 0 && !self.stop_sent.load(Ordering::SeqCst) {
                    self.stop_arrived()?;
                }
                Ok(())
            },
        )?;
        Counters::add(&self.traffic.collectives, 1);
        // How many stops reached rank 0, and whether rank 0 sent its.
        let sent = self.stop_sent.swap(false, Ordering::SeqCst);
        let mine = [u64::from(sent && me != 0), u64::from(sent && me == 0)];
        let sums = self.reduce(&mine, Reduction::Sum, true)?;
        let expected = if me == 0 { sums[0] } else { sums[1] };
        let received = u64::from(self.stops_received.swap(0, Ordering::SeqCst));
        let missing = expected.saturating_sub(received);
        if missing > 0 {
            self.patiently(
                "receive",
                move |w| {
                    for _ in 0..missing {
                        let mut byte = [0u8; 1];
                        w.recv(&mut byte, Source::Any, Tag::Value(STOP))?;
                    }
                    Ok(())
                },
                || Ok(()),
            )?;
        }
        Ok(())
    }

    fn gather(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, PeerError> {
        let root = self.world.rank() == 0;
        let size = self.world.size() as usize;
        let length = bytes.len() as u64;
        // Every rank learns the whole length, so that all take one way.
        let total = self.reduce(&[length], Reduction::Sum, true)?[0];
        let (limit, piece) = self.gather_limits();
        let mine = bytes.to_vec();
        let (pieces, all) = self.patiently(
            "gather",
            move |w| {
                let mut lengths = vec![0u64; if root { size } else { 1 }];
                w.gather(&[length], &mut lengths, 0)?;
                if total > limit {
                    gather_in_pieces(w, &mine, &lengths, piece)
                } else {
                    gather_in_one(w, &mine, &lengths, total).map(|all| (0, all))
                }
            },
            || Ok(()),
        )?;
        Counters::add(&self.traffic.gathered_bytes, length + 8);
        Counters::add(&self.traffic.collectives, if pieces > 0 { 1 } else { 2 });
        Counters::add(&self.traffic.messages, pieces);
        Ok(all)
    }

    fn reduce(
        &self,
        values: &[u64],
        how: Reduction,
        everywhere: bool,
    ) -> Result<Vec<u64>, PeerError> {
        let mine = values.to_vec();
        let out = self.patiently(
            if everywhere { "allreduce" } else { "reduce" },
            move |w| {
                let mut out = vec![0u64; mine.len()];
                if everywhere {
                    w.allreduce(&mine, &mut out, op_of(how))?;
                } else {
                    w.reduce(&mine, &mut out, op_of(how), 0)?;
                    if w.rank() != 0 {
                        out.clear();
                    }
                }
                Ok(out)
            },
            || Ok(()),
        )?;
        self.traffic
            .collective(&self.traffic.reduced_bytes, 8 * values.len() as u64);
        Ok(out)
    }

    fn traffic(&self) -> Traffic {
        self.traffic.read()
    }

    fn clock_offsets(&self) -> Result<Vec<ClockOffset>, PeerError> {
        let me = self.world.rank();
        // Rank 0's clock's name to every rank, every rank's to rank 0.
        let mine = self.clock_name();
        let mut zero = [mine];
        self.world
            .broadcast(&mut zero, 0)
            .map_err(mpi_error("broadcast"))?;
        let mut names = vec![
            0u64;
            if me == 0 {
                self.world.size() as usize
            } else {
                1
            }
        ];
        self.world
            .gather(&[mine], &mut names, 0)
            .map_err(mpi_error("gather"))?;
        self.traffic.collective(&self.traffic.broadcast_bytes, 8);
        self.traffic.collective(&self.traffic.gathered_bytes, 8);
        if me != 0 && mine == zero[0] {
            // Rank 0's own clock: nothing to estimate, no message.
            return Ok(Vec::new());
        }
        if me != 0 {
            // Answer rank 0's pings with this clock until it says done.
            #[cfg(feature = "test-hooks")]
            let (mut slow, late_by) = self.faults.slow_clock_answers;
            loop {
                self.wait_for::<u8>(0)?;
                let mut ping = [0u8; 1];
                self.world
                    .recv(&mut ping, 0, Tag::Value(CLOCK))
                    .map_err(mpi_error("receive"))?;
                if ping[0] == DONE {
                    return Ok(Vec::new());
                }
                #[cfg(feature = "test-hooks")]
                if slow > 0 {
                    slow -= 1;
                    std::thread::sleep(late_by);
                }
                self.world
                    .send(&[monotonic_ns()], 0, CLOCK)
                    .map_err(mpi_error("send"))?;
                Counters::add(&self.traffic.messages, 1);
            }
        }
        let mut offsets = vec![ClockOffset::OWN];
        // A clock estimated once serves every rank that reads it.
        let mut known: HashMap<u64, ClockOffset> = HashMap::new();
        for peer in 1..self.world.size() {
            let name = names[peer as usize];
            if name == names[0] {
                offsets.push(ClockOffset::OWN);
                continue;
            }
            if let Some(&offset) = known.get(&name) {
                self.world
                    .send(&[DONE], peer, CLOCK)
                    .map_err(mpi_error("send"))?;
                Counters::add(&self.traffic.messages, 1);
                offsets.push(offset);
                continue;
            }
            let mut best: Option<(i64, u64)> = None;
            let mut trips = 0;
            for &(count, pause) in CLOCK_ROUNDS {
                for _ in 0..count {
                    let sent = monotonic_ns();
                    self.world
                        .send(&[PING], peer, CLOCK)
                        .map_err(mpi_error("send"))?;
                    Counters::add(&self.traffic.messages, 1);
                    self.wait_for::<u64>(peer)?;
                    let mut theirs = [0u64; 1];
                    self.world
                        .recv(&mut theirs, peer, Tag::Value(CLOCK))
                        .map_err(mpi_error("receive"))?;
                    let (offset, trip) = offset_of(sent, theirs[0], monotonic_ns());
                    if best.is_none_or(|(_, shortest)| trip < shortest) {
                        best = Some((offset, trip));
                    }
                    trips += 1;
                    if !pause.is_zero() {
                        std::thread::sleep(pause);
                    }
                }
                if best.is_some_and(|(_, trip)| trip <= LONGEST_TRUSTED_ROUND_TRIP_NS) {
                    break;
                }
            }
            self.world
                .send(&[DONE], peer, CLOCK)
                .map_err(mpi_error("send"))?;
            Counters::add(&self.traffic.messages, 1);
            let offset = ClockOffset::from_shortest(best, trips);
            if offset.offset_ns.is_some() {
                known.insert(name, offset);
            }
            offsets.push(offset);
        }
        Ok(offsets)
    }

    fn send_live(&self, line: &[u8]) -> Result<(), PeerError> {
        // A line is a few hundred bytes: under every MPI's eager limit, so
        // the send returns before rank 0 receives it.
        self.world.send(line, 0, LIVE).map_err(mpi_error("send"))?;
        Counters::add(&self.traffic.messages, 1);
        Ok(())
    }

    fn live_arrived(&self) -> Result<Vec<(u32, Vec<u8>)>, PeerError> {
        let mut lines = Vec::new();
        while let Some(status) = self
            .world
            .iprobe::<u8>(Source::Any, Tag::Value(LIVE))
            .map_err(mpi_error("probe"))?
        {
            let mut line = vec![0u8; status.count.unwrap_or(0)];
            self.world
                .recv(&mut line, status.source, Tag::Value(LIVE))
                .map_err(mpi_error("receive"))?;
            let rank = match status.source {
                Source::Rank(rank) => rank as u32,
                _ => continue,
            };
            lines.push((rank, line));
        }
        Ok(lines)
    }

    fn send_to(&self, to: u32, bytes: &[u8], reply: bool) -> Result<(), PeerError> {
        self.world
            .send(bytes, to as i32, network_tag(reply))
            .map_err(mpi_error("send"))?;
        Counters::add(&self.traffic.messages, 1);
        Ok(())
    }

    fn receive_from(&self, from: u32, into: &mut [u8], reply: bool) -> Result<(), PeerError> {
        self.world
            .recv(into, from as i32, Tag::Value(network_tag(reply)))
            .map(drop)
            .map_err(mpi_error("receive"))
    }

    fn broadcast_from(&self, root: u32, bytes: &[u8]) -> Result<Vec<u8>, PeerError> {
        let root_rank = root as i32;
        let mine = bytes.to_vec();
        let data = self.patiently(
            "broadcast",
            move |w| {
                let mut length = [mine.len() as u64];
                w.broadcast(&mut length, root_rank)?;
                let mut data = if w.rank() == root_rank {
                    mine
                } else {
                    vec![0u8; length[0] as usize]
                };
                w.broadcast(&mut data, root_rank)?;
                Ok(data)
            },
            || Ok(()),
        )?;
        // Two broadcasts: the length, then the bytes.
        self.traffic
            .collective(&self.traffic.broadcast_bytes, 8 + data.len() as u64);
        Counters::add(&self.traffic.collectives, 1);
        Ok(data)
    }
}
