//! The MPI backend of [`Peers`] (ferrompi over the system's MPI): MPI is
//! started only when a launcher started ioz, with every thread allowed to
//! call it (the rank's stonewall watcher polls from its own thread while
//! the main one waits for the workers; their calls never overlap).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use ferrompi::{Communicator, Mpi, Source, Tag, ThreadLevel};

use super::{Launcher, PeerError, Peers, offset_of};
use crate::error::Exit;
use crate::model::skew::{ClockOffset, LONGEST_TRUSTED_ROUND_TRIP_NS};

/// Tag of the stop messages (one byte: why).
const STOP: i32 = 17;
/// Tag of the clock round trips (rank 0's ping, the peer's clock).
const CLOCK: i32 = 18;
/// Tag of the network test's messages (-+t).
const NETWORK: i32 = 19;

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
/// it runs.
static WORLD: OnceLock<Communicator> = OnceLock::new();

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
    #[cfg(feature = "test-hooks")]
    faults: Faults,
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
            #[cfg(feature = "test-hooks")]
            faults: Faults::default(),
        },
    })
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
            match looks.checked_sub(YIELDS_BEFORE_SLEEPING) {
                None => std::thread::yield_now(),
                // A microsecond more each time, up to the longest nap.
                Some(naps) => {
                    std::thread::sleep(Duration::from_micros(u64::from(naps)).min(LONGEST_NAP))
                }
            }
        }
        Ok(())
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
        self.world.barrier().map_err(mpi_error("barrier"))
    }

    fn send_stop(&self) -> Result<(), PeerError> {
        // One byte: small enough for every MPI's eager protocol, so the
        // send returns without waiting for the peer to receive it.
        for peer in 0..self.world.size() {
            if peer != self.world.rank() {
                self.world
                    .send(&[1u8], peer, STOP)
                    .map_err(mpi_error("send"))?;
            }
        }
        Ok(())
    }

    fn stop_arrived(&self) -> Result<bool, PeerError> {
        #[cfg(feature = "test-hooks")]
        if self.faults.deaf_to_stops {
            return Ok(false);
        }
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

    fn drain_stops(&self, sent: bool) -> Result<(), PeerError> {
        let mut senders = vec![0u8; self.world.size() as usize];
        self.world
            .allgather(&[u8::from(sent)], &mut senders)
            .map_err(mpi_error("allgather"))?;
        let me = self.world.rank() as usize;
        let expected = senders
            .iter()
            .enumerate()
            .filter(|&(rank, &s)| rank != me && s != 0)
            .count() as u32;
        let received = self.stops_received.swap(0, Ordering::SeqCst);
        for _ in received..expected {
            let mut byte = [0u8; 1];
            self.world
                .recv(&mut byte, Source::Any, Tag::Value(STOP))
                .map_err(mpi_error("receive"))?;
        }
        Ok(())
    }

    fn gather(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, PeerError> {
        let size = self.world.size() as usize;
        let root = self.world.rank() == 0;
        let mut lengths = vec![0i32; if root { size } else { 1 }];
        let length = i32::try_from(bytes.len()).map_err(|_| PeerError::GatherTooLong)?;
        self.world
            .gather(&[length], &mut lengths, 0)
            .map_err(mpi_error("gather"))?;
        let lengths = if root { lengths } else { vec![0; size] };
        let displacements: Vec<i32> = lengths
            .iter()
            .scan(0i32, |at, &n| {
                let here = *at;
                *at += n;
                Some(here)
            })
            .collect();
        let total: i32 = lengths.iter().sum();
        let mut all = vec![0u8; total as usize];
        self.world
            .gatherv(bytes, &mut all, &lengths, &displacements, 0)
            .map_err(mpi_error("gather"))?;
        if !root {
            return Ok(Vec::new());
        }
        Ok(lengths
            .iter()
            .zip(&displacements)
            .map(|(&n, &at)| all[at as usize..(at + n) as usize].to_vec())
            .collect())
    }

    fn clock_offsets(&self) -> Result<Vec<ClockOffset>, PeerError> {
        let me = self.world.rank();
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
            }
        }
        let mut offsets = vec![ClockOffset::OWN];
        for peer in 1..self.world.size() {
            let mut best: Option<(i64, u64)> = None;
            let mut trips = 0;
            for &(count, pause) in CLOCK_ROUNDS {
                for _ in 0..count {
                    let sent = monotonic_ns();
                    self.world
                        .send(&[PING], peer, CLOCK)
                        .map_err(mpi_error("send"))?;
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
            offsets.push(ClockOffset::from_shortest(best, trips));
        }
        Ok(offsets)
    }

    fn send_to(&self, to: u32, bytes: &[u8]) -> Result<(), PeerError> {
        self.world
            .send(bytes, to as i32, NETWORK)
            .map_err(mpi_error("send"))
    }

    fn receive_from(&self, from: u32, into: &mut [u8]) -> Result<(), PeerError> {
        self.world
            .recv(into, from as i32, Tag::Value(NETWORK))
            .map(drop)
            .map_err(mpi_error("receive"))
    }

    fn broadcast(&self, bytes: &[u8]) -> Result<Vec<u8>, PeerError> {
        let mut length = [bytes.len() as u64];
        self.world
            .broadcast(&mut length, 0)
            .map_err(mpi_error("broadcast"))?;
        let mut data = if self.world.rank() == 0 {
            bytes.to_vec()
        } else {
            vec![0u8; length[0] as usize]
        };
        self.world
            .broadcast(&mut data, 0)
            .map_err(mpi_error("broadcast"))?;
        Ok(data)
    }
}
