//! Throughput mode across the ranks of an MPI job: each rank runs its share
//! of the workers (threads) on its own files; before every phase the ranks
//! meet at a barrier, during it the first rank to finish (or fail) stops the
//! others, and after it rank 0 gathers every rank's workers into one phase.
//!
//! How it measures: the workers' loops poll only their rank's shared flag,
//! as on one machine; the rank's parent thread looks for the other ranks'
//! stops at most once a millisecond (spawn::Coordinator), outside any
//! worker's timing, and the stops of a phase are drained at its end so that
//! none reaches the next.

use std::cell::Cell;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};

use super::PhaseEnd;
use super::shared::SharedFlags;
use super::spawn::Coordinator;
use crate::engine::clock::now_ns;
use crate::error::RunError;
use crate::model::histogram::{LatencyHistogram, LatencySummary};
use crate::model::identity::FileIdentity;
use crate::model::intervals::{Interval, RankIntervals};
use crate::model::latency::IozoneBands;
use crate::model::rank_share::RankShare;
use crate::model::result::{Client, PhaseResult, WorkerResult};
use crate::model::skew::{ClockOffset, RankPhaseTimes, RankSkew};
use crate::system::cluster::{PeerError, Peers, Reduction};

/// The ranks a throughput run is spread over, and what this rank knows of
/// the phase under way.
pub(crate) struct Across<'a> {
    peers: &'a dyn Peers,
    /// The job's ranks.
    ranks: u32,
    /// The job's -T: its workers are threads (within a rank they always
    /// are; the ranks are processes).
    threads: bool,
    /// Whether this rank met the others at the phase's barrier.
    met: Cell<bool>,
    /// Whether this rank told the others to stop.
    sent: Cell<bool>,
    /// Whether another rank told this one to stop.
    heard: Cell<bool>,
    /// Whether this rank's first worker finished (stonewalling) or one
    /// failed: the others must be told.
    stopped: Cell<bool>,
    /// A failure of the MPI calls during the phase.
    failure: Cell<Option<String>>,
    /// This rank's release of the phase's workers (its CLOCK_MONOTONIC).
    release_ns: Cell<u64>,
    /// When another rank's stop reached this one (its CLOCK_MONOTONIC).
    heard_ns: Cell<Option<u64>>,
    /// Rank 0: how far each rank's clock is ahead of rank 0's, where known
    /// ([`Across::align_clocks`]).
    clocks: Vec<ClockOffset>,
}

/// What a rank tells rank 0 after a phase.
#[derive(Serialize, Deserialize)]
enum RankPhase {
    Done {
        /// Each worker's result, with its --latency histogram (sparse:
        /// only the buckets that counted) where asked for.
        results: Vec<WorkerResult>,
        parent_elapsed_ns: u64,
        release_ns: u64,
        /// When another rank's stop reached this one.
        heard_ns: Option<u64>,
        /// -+z: each worker's 40 IOzone buckets, in the order of `results`.
        bands: Option<Vec<Vec<u64>>>,
        /// --interval: the rank's workers summed, with its page cache.
        #[serde(default)]
        intervals: Vec<Interval>,
    },
    Failed(String),
    Interrupted(i32),
}

/// What rank 0 tells every rank after a phase or a step every rank takes.
#[derive(Serialize, Deserialize)]
enum Verdict {
    GoOn,
    Fail(String),
    /// Refused before any I/O (exit 2 on every rank).
    Refuse(String),
    Interrupted(i32),
}

impl<'a> Across<'a> {
    #[cfg(feature = "mpi")]
    pub(crate) fn new(peers: &'a dyn Peers, threads: bool) -> Across<'a> {
        Across {
            peers,
            ranks: peers.size(),
            threads,
            met: Cell::new(false),
            sent: Cell::new(false),
            heard: Cell::new(false),
            stopped: Cell::new(false),
            failure: Cell::new(None),
            release_ns: Cell::new(0),
            heard_ns: Cell::new(None),
            clocks: Vec::new(),
        }
    }

    /// Collective: rank 0 estimates how far each rank's clock is from its
    /// own, so that the job's "Parent sees" can span the ranks.
    #[cfg(feature = "mpi")]
    pub(crate) fn align_clocks(&mut self) -> Result<(), RunError> {
        self.clocks = self.peers.clock_offsets().map_err(RunError::from)?;
        Ok(())
    }

    /// Rank 0: how it knows each rank's clock (empty before
    /// [`Across::align_clocks`], and on the other ranks).
    #[cfg(feature = "mpi")]
    pub(crate) fn clocks(&self) -> &[ClockOffset] {
        &self.clocks
    }

    /// Where this rank's failures are named: "rank 2 on node7".
    fn place(&self, rank: u32, host: &str) -> String {
        let _ = self;
        format!("rank {rank} on {host}")
    }

    /// Every rank's step ended well, or the job's first failure (named by
    /// rank and host) is every rank's error. Collective.
    pub(crate) fn agree(&self, local: Result<(), RunError>) -> Result<(), RunError> {
        self.agree_on_stop(local.map(|()| None)).map(drop)
    }

    /// Every rank's end of a step: the job's first failure (named by rank
    /// and host) is every rank's error; else a stop on any rank (`Some`
    /// signal: a Ctrl-C passed on by the launcher, rank 0's stdout closed)
    /// stops every rank with the first rank's signal. Collective.
    pub(crate) fn agree_on_stop(
        &self,
        local: Result<Option<i32>, RunError>,
    ) -> Result<Option<i32>, RunError> {
        let rank = self.peers.rank();
        let mine = match &local {
            Ok(None) => Verdict::GoOn,
            Ok(Some(sig)) => Verdict::Interrupted(*sig),
            Err(RunError::Refused(m)) => {
                Verdict::Refuse(format!("{}: {m}", self.place(rank, self.peers.host())))
            }
            Err(e) => Verdict::Fail(format!("{}: {e}", self.place(rank, self.peers.host()))),
        };
        // Reduced, not gathered: the first rank that failed (or refused),
        // else the first that stopped, found by one minimum over a word a
        // rank, then that rank's verdict broadcast from it. Eight bytes a
        // rank a step, where every rank's verdict gathered at rank 0 was
        // the job's largest traffic in auto mode (a step every cell).
        let first = self
            .peers
            .reduce(&[verdict_key(rank, &mine)], Reduction::Min, true)
            .map_err(RunError::from)?[0];
        if first == u64::MAX {
            return local;
        }
        let root = (first & u64::from(u32::MAX)) as u32;
        let bytes = if root == rank {
            serde_json::to_vec(&mine).unwrap_or_default()
        } else {
            Vec::new()
        };
        let bytes = self
            .peers
            .broadcast_from(root, &bytes)
            .map_err(RunError::from)?;
        let verdict = serde_json::from_slice(&bytes)
            .map_err(|e| RunError::System(format!("cannot read rank {root}'s verdict: {e}")))?;
        match verdict {
            Verdict::GoOn => local,
            Verdict::Interrupted(sig) => Ok(Some(sig)),
            Verdict::Refuse(m) => Err(RunError::Refused(m)),
            Verdict::Fail(m) => Err(RunError::Worker(m)),
        }
    }

    /// Blocks until every rank has called it (a barrier). Collective.
    #[cfg(feature = "mpi")]
    pub(crate) fn meet(&self) -> Result<(), RunError> {
        self.peers.barrier().map_err(RunError::from)
    }

    /// Collective: rank 0 gets every rank's `mine` with its host, in rank
    /// order; the others get an empty list.
    pub(crate) fn gather_with_hosts<T: Serialize + for<'d> Deserialize<'d>>(
        &self,
        mine: &T,
    ) -> Result<Vec<(String, T)>, RunError> {
        let bytes = serde_json::to_vec(&(self.peers.host(), mine))
            .map_err(|e| RunError::System(format!("cannot encode a rank's report: {e}")))?;
        let all = self.peers.gather(&bytes).map_err(RunError::from)?;
        all.iter()
            .map(|b| serde_json::from_slice::<(String, T)>(b))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| RunError::System(format!("cannot read a rank's report: {e}")))
    }

    /// Collective: every rank gets rank 0's `value`.
    #[cfg(feature = "mpi")]
    pub(crate) fn rank_0_s<T: Serialize + for<'d> Deserialize<'d>>(
        &self,
        value: &T,
    ) -> Result<T, RunError> {
        let bytes = if self.peers.rank() == 0 {
            serde_json::to_vec(value)
                .map_err(|e| RunError::System(format!("cannot encode rank 0's message: {e}")))?
        } else {
            Vec::new()
        };
        let bytes = self.peers.broadcast(&bytes).map_err(RunError::from)?;
        serde_json::from_slice(&bytes)
            .map_err(|e| RunError::System(format!("cannot read rank 0's message: {e}")))
    }

    /// Gathers `mine` (with this rank's host) at rank 0, which `judges`
    /// them in rank order; every rank gets the judgement.
    fn decide<T: Serialize + for<'d> Deserialize<'d>>(
        &self,
        mine: &T,
        judge: impl FnOnce(Vec<(String, T)>) -> Verdict,
    ) -> Result<Verdict, RunError> {
        let reports = self.gather_with_hosts(mine)?;
        let verdict = if self.peers.rank() == 0 {
            serde_json::to_vec(&judge(reports)).unwrap_or_default()
        } else {
            Vec::new()
        };
        let verdict = self.peers.broadcast(&verdict).map_err(RunError::from)?;
        serde_json::from_slice(&verdict)
            .map_err(|e| RunError::System(format!("cannot read rank 0's verdict: {e}")))
    }

    /// This rank, from 0.
    pub(super) fn rank(&self) -> u32 {
        self.peers.rank()
    }

    /// Collective, -+V/-+L: rank 0's `identity` of the job's one file, for
    /// every rank, with whether rank 0 runs on this rank's host. `None`
    /// when rank 0 has no regular file to share.
    pub(super) fn shared_file(
        &self,
        identity: Option<FileIdentity>,
    ) -> Result<Option<(FileIdentity, bool)>, RunError> {
        let mine = match identity {
            Some(FileIdentity::File { dev, ino }) if self.peers.rank() == 0 => {
                serde_json::to_vec(&(self.peers.host(), dev, ino)).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        let theirs = self.peers.broadcast(&mine).map_err(RunError::from)?;
        Ok(serde_json::from_slice::<(String, u64, u64)>(&theirs)
            .ok()
            .map(|(host, dev, ino)| (FileIdentity::File { dev, ino }, host == self.peers.host())))
    }

    /// A new phase: nothing met, sent or heard yet.
    pub(crate) fn begin_phase(&self) {
        self.met.set(false);
        self.sent.set(false);
        self.heard.set(false);
        self.stopped.set(false);
        self.heard_ns.set(None);
        self.failure.set(None);
    }

    /// The coordinator of this phase's workers on this rank.
    pub(super) fn coordinator<'c>(
        &'c self,
        flags: &'c SharedFlags,
        stonewall: bool,
    ) -> RankCoordinator<'c, 'a> {
        RankCoordinator {
            across: self,
            flags,
            stonewall,
        }
    }

    /// After the phase on this rank (whatever happened to it): meets the
    /// others if it had not, tells them to stop if it finished or failed
    /// first, drains the phase's stops, and settles the phase with every
    /// rank. Rank 0 gets the whole job's phase; the others their own.
    /// `percentiles`: those the job's --latency reports.
    pub(super) fn settle(
        &self,
        local: Result<PhaseEnd, RunError>,
        percentiles: &[f64],
    ) -> Result<PhaseEnd, RunError> {
        let stopped_here = self.stopped.get();
        let peers = self.peers;
        let failed = local.is_err();
        if !self.met.get() {
            // The phase failed before its workers arrived: meet the others
            // all the same, and stop them at once.
            peers.barrier().map_err(RunError::from)?;
            self.met.set(true);
        }
        if !self.sent.get() && !self.heard.get() && (stopped_here || failed) {
            peers.send_stop().map_err(RunError::from)?;
            self.sent.set(true);
        }
        peers.drain_stops().map_err(RunError::from)?;
        let mut local = local;
        if let Some(e) = self.failure.take() {
            local = Err(RunError::System(e));
        }
        // From here on every worker goes by its number in the job.
        let ranks = self.ranks;
        if let Ok(PhaseEnd::Done(phase, _, _)) = &mut local {
            for w in &mut phase.results {
                w.worker = job_worker(peers.rank(), ranks, w.worker);
            }
        }
        let mine = match &local {
            Ok(PhaseEnd::Done(phase, _, bands)) => RankPhase::Done {
                results: phase.results.clone(),
                parent_elapsed_ns: phase.parent_elapsed_ns,
                release_ns: self.release_ns.get(),
                heard_ns: self.heard_ns.get(),
                bands: bands
                    .as_ref()
                    .map(|b| b.iter().map(|w| w.counts.to_vec()).collect()),
                intervals: phase.intervals.clone(),
            },
            Ok(PhaseEnd::Interrupted(sig)) => RankPhase::Interrupted(*sig),
            Err(e) => RankPhase::Failed(e.to_string()),
        };
        let mut job_results = Vec::new();
        let mut job_bands: Vec<Option<IozoneBands>> = Vec::new();
        let mut job_parent_ns = 0;
        let mut rank_intervals = Vec::new();
        // On rank 0's clock: the first release, the last end, while every
        // rank's offset is known.
        let mut span: Option<(i64, i64)> = Some((i64::MAX, i64::MIN));
        let mut times: Vec<RankPhaseTimes> = Vec::new();
        let verdict = self.decide(&mine, |all| {
            let mut verdict = Verdict::GoOn;
            for (rank, (host, report)) in all.into_iter().enumerate() {
                let rank = rank as u32;
                match report {
                    RankPhase::Done {
                        results,
                        parent_elapsed_ns,
                        release_ns,
                        heard_ns,
                        bands,
                        intervals,
                    } => {
                        if !intervals.is_empty() {
                            rank_intervals.push(RankIntervals { rank, intervals });
                        }
                        times.push(RankPhaseTimes {
                            client: Client {
                                rank,
                                host: host.clone(),
                            },
                            release_ns,
                            elapsed_ns: parent_elapsed_ns,
                            operations: results.iter().map(|w| w.records).sum(),
                            first_done_after_release_ns: results
                                .iter()
                                .filter(|w| !w.stonewalled)
                                .map(|w| w.end_after_release_ns.max(0) as u64)
                                .min(),
                            heard_ns,
                        });
                        let mut bands = bands.unwrap_or_default().into_iter();
                        job_bands.extend(results.iter().map(|_| {
                            let counts = bands.next()?;
                            Some(IozoneBands {
                                counts: counts.try_into().ok()?,
                            })
                        }));
                        job_parent_ns = job_parent_ns.max(parent_elapsed_ns);
                        let offset = self.clocks.get(rank as usize).and_then(|c| c.offset_ns);
                        span = span.zip(offset).map(|((first, last), offset)| {
                            let release = release_ns as i64 - offset;
                            (
                                first.min(release),
                                last.max(release + parent_elapsed_ns as i64),
                            )
                        });
                        job_results.extend(results.into_iter().map(|mut w| {
                            w.client = Some(Client {
                                rank,
                                host: host.clone(),
                            });
                            w
                        }));
                    }
                    RankPhase::Failed(m) if !matches!(verdict, Verdict::Fail(_)) => {
                        verdict = Verdict::Fail(format!("{}: {m}", self.place(rank, &host)));
                    }
                    RankPhase::Interrupted(sig) if matches!(verdict, Verdict::GoOn) => {
                        verdict = Verdict::Interrupted(sig);
                    }
                    _ => {}
                }
            }
            verdict
        })?;
        match verdict {
            Verdict::Fail(m) => Err(RunError::Worker(m)),
            Verdict::Refuse(m) => Err(RunError::Refused(m)),
            Verdict::Interrupted(sig) => Ok(PhaseEnd::Interrupted(sig)),
            Verdict::GoOn => match local {
                Ok(PhaseEnd::Done(phase, latencies, bands)) if peers.rank() == 0 => {
                    // In the job's worker order, each worker's -+z buckets with it.
                    let mut workers: Vec<_> = job_results.into_iter().zip(job_bands).collect();
                    workers.sort_by_key(|(w, _)| w.worker);
                    let (job_results, job_bands): (Vec<_>, Vec<_>) = workers.into_iter().unzip();
                    let bands = bands.map(|_| job_bands.into_iter().flatten().collect());
                    // --latency: the phase's percentiles over every worker of the job.
                    let latency = phase
                        .latency
                        .as_ref()
                        .map(|_| job_latency(&job_results, percentiles));
                    let estimated = span.filter(|(first, last)| last >= first);
                    Ok(PhaseEnd::Done(
                        PhaseResult {
                            workers: job_results.len() as u32,
                            threads: self.threads,
                            results: job_results,
                            parent_elapsed_ns: estimated
                                .map_or(job_parent_ns, |(first, last)| (last - first) as u64),
                            parent_estimated: estimated.is_some(),
                            latency,
                            // The job's sum of them: app/cluster/throughput.rs.
                            rank_intervals,
                            skew: Some(Box::new(RankSkew::of_phase(
                                &times,
                                &self.clocks,
                                phase.stonewall,
                            ))),
                            ..phase
                        },
                        latencies,
                        bands,
                    ))
                }
                other => other,
            },
        }
    }
}

/// The word by which a rank's verdict of a step is ordered in the job's
/// minimum: a failure or refusal before any stop, then by rank; nothing to
/// say, `u64::MAX`.
fn verdict_key(rank: u32, verdict: &Verdict) -> u64 {
    match verdict {
        Verdict::Fail(_) | Verdict::Refuse(_) => u64::from(rank),
        Verdict::Interrupted(_) => 1 << 32 | u64::from(rank),
        Verdict::GoOn => u64::MAX,
    }
}

/// --latency: the histogram of every operation of `workers`, merged from
/// each worker's (what crossed MPI: only the buckets that counted).
fn job_latency(workers: &[WorkerResult], percentiles: &[f64]) -> LatencySummary {
    let mut job = LatencyHistogram::new();
    for summary in workers.iter().filter_map(|w| w.latency.as_ref()) {
        job.merge(&LatencyHistogram::from_summary(summary));
    }
    job.summary(percentiles)
}

/// The job's number of worker `local` of rank `rank` of `ranks` (dealt
/// round robin: model::rank_share).
fn job_worker(rank: u32, ranks: u32, local: u32) -> u32 {
    RankShare::new(rank, ranks, Vec::new()).job_worker(local)
}

/// The parent thread's part in a phase on one rank (see [`Across`]).
pub(super) struct RankCoordinator<'c, 'a> {
    across: &'c Across<'a>,
    flags: &'c SharedFlags,
    /// Stonewalling on (a finished rank stops the others); without it only
    /// a failure does.
    stonewall: bool,
}

impl RankCoordinator<'_, '_> {
    fn fail(&self, e: PeerError) {
        self.flags.abort.store(true, Ordering::SeqCst);
        self.flags.stonewall.store(true, Ordering::SeqCst);
        self.across.failure.set(Some(e.to_string()));
    }

    /// Whether this rank has something to tell the others: its first
    /// worker finished (stonewalling) or one failed.
    fn stopped_here(flags: &SharedFlags, stonewall: bool) -> bool {
        flags.abort.load(Ordering::SeqCst) || (stonewall && flags.stonewall.load(Ordering::SeqCst))
    }

    /// After the workers: what the others must still be told (see
    /// [`Across::settle`]).
    pub(super) fn workers_ended(&self) {
        self.across
            .stopped
            .set(Self::stopped_here(self.flags, self.stonewall));
        self.across
            .release_ns
            .set(self.flags.release_ns.load(Ordering::SeqCst));
    }
}

impl Coordinator for RankCoordinator<'_, '_> {
    fn before_release(&self) {
        match self.across.peers.barrier() {
            Ok(()) => self.across.met.set(true),
            Err(e) => self.fail(e),
        }
    }

    fn while_running(&self) {
        let across = self.across;
        if across.sent.get() || across.heard.get() || !across.met.get() {
            return;
        }
        if Self::stopped_here(self.flags, self.stonewall) {
            match across.peers.send_stop() {
                Ok(()) => across.sent.set(true),
                Err(e) => self.fail(e),
            }
            return;
        }
        match across.peers.stop_arrived() {
            Ok(false) => {}
            Ok(true) => {
                across.heard.set(true);
                across.heard_ns.set(Some(now_ns()));
                if !self.stonewall {
                    // Without stonewalling only a failure stops a rank.
                    self.flags.abort.store(true, Ordering::SeqCst);
                }
                self.flags.stonewall.store(true, Ordering::SeqCst);
            }
            Err(e) => self.fail(e),
        }
    }
}
