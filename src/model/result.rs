//! What a run measured: plain data, serialisable, rendered by the exporters.

use serde::{Deserialize, Serialize};

pub use crate::model::client::Client;
use crate::model::config::{OutputUnit, RunConfig};
use crate::model::environment::Environment;
use crate::model::histogram::LatencySummary;
use crate::model::intervals::{Interval, RankIntervals, sum_together};
use crate::model::plan::Cell;
use crate::model::residency::Residency;
use crate::model::skew::{CellSkew, RankSkew};
use crate::model::workload::Pass;

/// One timed pass over one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub pass: Pass,
    pub file_bytes: u64,
    pub record_bytes: u64,
    /// Workers that ran the pass together (1 outside throughput mode).
    pub workers: u32,
    /// Bytes the pass moved (checked against what it should move).
    pub bytes: u64,
    /// Records moved (a vectored call moves several).
    pub records: u64,
    /// `--latency`: every operation's latency (in throughput mode, of every worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    pub elapsed_ns: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    /// What the timed region cost ioz beside its CPU time (absent in runs
    /// saved before ioz counted it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<RegionUsage>,
    /// What the page cache held of the pass's file (of every worker's, in
    /// throughput mode: each WorkerResult has its own) just before the clock
    /// started and just after it stopped (absent in runs saved before ioz
    /// measured it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residency: Option<Residency>,
    /// Which repetition of the plan (`--runs`) measured it, from 0; a run
    /// saved before repetitions existed is one run, run 0.
    #[serde(default)]
    pub run: u32,
    /// `--interval`: the pass in consecutive intervals (model::intervals).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<Interval>,
}

impl Measurement {
    fn seconds(&self) -> f64 {
        self.elapsed_ns.max(1) as f64 / 1e9
    }

    /// Bytes per second, unrounded: `--rules pts`'s tracking variable.
    pub fn bytes_per_sec(&self) -> f64 {
        self.bytes as f64 / self.seconds()
    }

    /// kB/s with kB = 1024 bytes, truncated as IOzone prints it.
    pub fn kb_per_sec(&self) -> u64 {
        ((self.bytes as f64 / self.seconds()) as u64) >> 10
    }

    pub fn ops_per_sec(&self) -> u64 {
        (self.records as f64 / self.seconds()) as u64
    }

    pub fn micros_per_op(&self) -> u64 {
        (1e6 * self.seconds() / self.records.max(1) as f64) as u64
    }

    /// CPU time (user + system) as a percentage of the pass's wall time (-+u).
    pub fn cpu_percent(&self) -> f64 {
        100.0 * (self.cpu_user_ns + self.cpu_system_ns) as f64 / self.elapsed_ns.max(1) as f64
    }

    /// The number the table and `-R` report show for this pass.
    pub fn value(&self, unit: OutputUnit) -> u64 {
        match unit {
            OutputUnit::KbPerSec => self.kb_per_sec(),
            OutputUnit::OpsPerSec => self.ops_per_sec(),
            OutputUnit::MicrosPerOp => self.micros_per_op(),
        }
    }
}

/// What a timed region cost ioz beside its CPU time: its page faults and
/// context switches, from getrusage just before and just after it (of the
/// process in single and auto mode, of each worker in throughput mode). A
/// pass of a synchronous engine takes no page fault: everything it touches
/// was mapped and touched before the clock. The mmap engine's are
/// inherent: the file's pages are mapped into ioz ([`faults_are_inherent`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionUsage {
    /// Page faults served without I/O: a page mapped on first touch.
    pub minor_faults: u64,
    /// Page faults that waited for I/O.
    pub major_faults: u64,
    /// Times ioz gave up the CPU to wait (for I/O, a lock, a sleep).
    pub voluntary_context_switches: u64,
    /// Times the scheduler took the CPU away from ioz.
    pub involuntary_context_switches: u64,
}

impl RegionUsage {
    /// Both counts added, field by field.
    pub fn plus(self, other: RegionUsage) -> RegionUsage {
        RegionUsage {
            minor_faults: self.minor_faults + other.minor_faults,
            major_faults: self.major_faults + other.major_faults,
            voluntary_context_switches: self.voluntary_context_switches
                + other.voluntary_context_switches,
            involuntary_context_switches: self.involuntary_context_switches
                + other.involuntary_context_switches,
        }
    }

    /// The sum over `all`; None when any of them was not counted.
    pub fn sum<'a>(all: impl IntoIterator<Item = Option<&'a RegionUsage>>) -> Option<RegionUsage> {
        all.into_iter()
            .try_fold(RegionUsage::default(), |sum, u| u.map(|u| sum.plus(*u)))
    }
}

/// Whether `pass` of a run with `config` takes page faults by its nature:
/// its engine maps the file (mmap, -B), so the loop faults the file's pages
/// in as it touches them.
pub fn faults_are_inherent(config: &RunConfig, pass: Pass) -> bool {
    pass.engine()
        .or_chosen(config.variations.engine)
        .row()
        .maps_file
}

/// The passes measured on one cell (one table row): with `--runs N`, N
/// measurements of each pass, in run order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    pub cell: Cell,
    pub measurements: Vec<Measurement>,
}

impl CellResult {
    /// Every run's measurement of `pass`, if it ran at all.
    pub fn get(&self, pass: Pass) -> Option<PassRuns<'_>> {
        let first = self.measurements.iter().find(|m| m.pass == pass)?;
        Some(PassRuns {
            first,
            all: &self.measurements,
        })
    }

    /// The passes measured, each once, in the order they first ran.
    pub fn passes(&self) -> Vec<Pass> {
        let mut passes: Vec<Pass> = Vec::new();
        for m in &self.measurements {
            if !passes.contains(&m.pass) {
                passes.push(m.pass);
            }
        }
        passes
    }
}

/// One pass of one cell over every run (`--runs`): what the table, `-R`,
/// the spreadsheets, CSV, HTML and plots show is the mean over the runs,
/// which for one run is that run's number exactly.
#[derive(Clone, Copy, Debug)]
pub struct PassRuns<'a> {
    first: &'a Measurement,
    all: &'a [Measurement],
}

impl<'a> PassRuns<'a> {
    /// Each run's measurement, in run order.
    pub fn samples(&self) -> impl Iterator<Item = &'a Measurement> + 'a {
        let pass = self.first.pass;
        self.all.iter().filter(move |m| m.pass == pass)
    }

    /// The first run's measurement: sizes and counts, which every run shares.
    pub fn first(&self) -> &'a Measurement {
        self.first
    }

    pub fn runs(&self) -> usize {
        self.samples().count()
    }

    /// Each run's number in the unit, in run order.
    pub fn values(&self, unit: OutputUnit) -> Vec<f64> {
        self.samples().map(|m| m.value(unit) as f64).collect()
    }

    /// The mean of the runs' numbers, rounded to a whole number as the
    /// table prints them (one run: its number, untouched).
    pub fn value(&self, unit: OutputUnit) -> u64 {
        match self.runs() {
            1 => self.first.value(unit),
            _ => mean(self.samples().map(|m| m.value(unit) as f64)).round() as u64,
        }
    }

    /// The mean CPU percentage (-+u) over the runs.
    pub fn cpu_percent(&self) -> f64 {
        mean(self.samples().map(Measurement::cpu_percent))
    }
}

/// The arithmetic mean (0 for nothing): the one figure the IOzone-shaped
/// outputs show for several runs. The full summary is `analysis::summary`'s.
pub fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// One worker's share of a throughput phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerResult {
    pub worker: u32,
    /// Bytes moved inside the worker's timed region before stonewalling (if any).
    pub bytes: u64,
    pub records: u64,
    /// `--latency`: this worker's operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    pub elapsed_ns: u64,
    /// Start and end of the timed region, ns after the barrier opened
    /// (signed, so a start before the release would show as negative).
    pub start_after_release_ns: i64,
    pub end_after_release_ns: i64,
    /// Stopped early because another worker finished first.
    pub stonewalled: bool,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    /// What the worker's timed region cost it beside its CPU time (absent
    /// in runs saved before ioz counted it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<RegionUsage>,
    /// What the page cache held of this worker's file just before its clock
    /// started and just after it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residency: Option<Residency>,
    /// Cluster mode: the rank that ran this worker, and its host (absent
    /// on one machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<Client>,
    /// `--interval`: this worker's timed loop in intervals, from the release.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<Interval>,
}

impl WorkerResult {
    /// CPU time (user + system), seconds.
    pub fn cpu_seconds(&self) -> f64 {
        (self.cpu_user_ns + self.cpu_system_ns) as f64 / 1e9
    }

    /// This worker's rate in the unit.
    pub fn rate(&self, unit: OutputUnit) -> f64 {
        let secs = self.elapsed_ns.max(1) as f64 / 1e9;
        match unit {
            OutputUnit::KbPerSec => self.bytes as f64 / 1024.0 / secs,
            OutputUnit::OpsPerSec => self.records as f64 / secs,
            OutputUnit::MicrosPerOp if self.records == 0 => 0.0,
            OutputUnit::MicrosPerOp => secs * 1e6 / self.records as f64,
        }
    }

    /// What the worker moved, in the unit's quantity (kB, or operations).
    pub fn xfer(&self, unit: OutputUnit) -> f64 {
        match unit {
            OutputUnit::KbPerSec => self.bytes as f64 / 1024.0,
            _ => self.records as f64,
        }
    }
}

/// One phase of a throughput run (e.g. "initial writers") with N workers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    pub pass: Pass,
    pub workers: u32,
    /// Threads (-T) rather than processes.
    pub threads: bool,
    /// Each worker's file size and record size.
    pub file_bytes: u64,
    pub record_bytes: u64,
    /// From the barrier's release to the end of the last worker's timed
    /// region. Across MPI ranks: from the first rank's release to the last
    /// rank's end on rank 0's clock, the ranks' clocks aligned by message
    /// round trips (`parent_estimated`); without that alignment, the
    /// longest of the ranks' own spans, and no "Parent sees" is printed.
    pub parent_elapsed_ns: u64,
    /// Cluster mode: `parent_elapsed_ns` spans the ranks' aligned clocks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub parent_estimated: bool,
    pub stonewall: bool,
    /// `--latency`: every worker's operations together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    pub results: Vec<WorkerResult>,
    /// Which repetition of the plan (`--runs`) it belongs to, from 0.
    #[serde(default)]
    pub run: u32,
    /// `--interval`: every worker's intervals summed index by index, from
    /// the release (model::intervals::sum_by_index), with the page cache.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<Interval>,
    /// Cluster mode with `--interval`: each rank's own sum, beside the job's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rank_intervals: Vec<RankIntervals>,
    /// Cluster mode: the ranks' starts and ends (absent on one machine;
    /// boxed: a phase travels in every event of a run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew: Option<Box<RankSkew>>,
}

impl PhaseResult {
    /// What the workers' timed regions cost them together (None when a
    /// worker's was not counted: a run saved before ioz counted it).
    pub fn usage(&self) -> Option<RegionUsage> {
        RegionUsage::sum(self.results.iter().map(|w| w.usage.as_ref()))
    }

    /// What the page cache held of the workers' files together (None when
    /// a worker's was not measured).
    pub fn residency(&self) -> Option<Residency> {
        Residency::sum(self.results.iter().map(|w| w.residency.as_ref()))
    }

    /// Cluster mode with `--interval`: the job's intervals, the ranks' own
    /// (`rank_intervals`) summed index by index.
    pub fn sum_rank_intervals(&mut self, interval_ns: u64, percentiles: &[f64]) {
        if !self.rank_intervals.is_empty() {
            let series: Vec<&[Interval]> = self
                .rank_intervals
                .iter()
                .map(|r| &r.intervals[..])
                .collect();
            self.intervals = sum_together(&series, interval_ns, percentiles);
        }
    }

    /// IOzone's "Children see": the sum of the workers' rates (for µs/op, their mean).
    pub fn children_see(&self, unit: OutputUnit) -> f64 {
        let sum: f64 = self.results.iter().map(|w| w.rate(unit)).sum();
        match unit {
            OutputUnit::MicrosPerOp => sum / self.results.len().max(1) as f64,
            _ => sum,
        }
    }

    /// IOzone's "Parent sees": everything moved over the parent's elapsed time.
    pub fn parent_sees(&self, unit: OutputUnit) -> f64 {
        let secs = self.parent_elapsed_ns.max(1) as f64 / 1e9;
        let records: u64 = self.results.iter().map(|w| w.records).sum();
        match unit {
            OutputUnit::KbPerSec => self.moved_bytes() as f64 / 1024.0 / secs,
            OutputUnit::OpsPerSec => records as f64 / secs,
            OutputUnit::MicrosPerOp if records == 0 => 0.0,
            OutputUnit::MicrosPerOp => secs * 1e6 / records as f64 * self.results.len() as f64,
        }
    }

    fn rates(&self, unit: OutputUnit) -> impl Iterator<Item = f64> + '_ {
        self.results.iter().map(move |w| w.rate(unit))
    }

    pub fn min_rate(&self, unit: OutputUnit) -> f64 {
        self.rates(unit).reduce(f64::min).unwrap_or(0.0)
    }

    pub fn max_rate(&self, unit: OutputUnit) -> f64 {
        self.rates(unit).fold(0.0, f64::max)
    }

    pub fn avg_rate(&self, unit: OutputUnit) -> f64 {
        self.rates(unit).sum::<f64>() / self.results.len().max(1) as f64
    }

    /// The least any worker moved (IOzone's "Min xfer"), in kB or operations.
    pub fn min_xfer(&self, unit: OutputUnit) -> f64 {
        self.results
            .iter()
            .map(|w| w.xfer(unit))
            .reduce(f64::min)
            .unwrap_or(0.0)
    }

    /// The six figures of IOzone's block of a phase, in its order: children
    /// see, parent sees, min, max and avg per worker (rates), and min xfer.
    pub fn figures(&self, unit: OutputUnit) -> [f64; 6] {
        [
            self.children_see(unit),
            self.parent_sees(unit),
            self.min_rate(unit),
            self.max_rate(unit),
            self.avg_rate(unit),
            self.min_xfer(unit),
        ]
    }

    /// -+u: (wall = the longest worker's time, CPU = all workers' CPU, percent).
    pub fn cpu_utilisation(&self) -> (f64, f64, f64) {
        let wall = self.results.iter().map(|w| w.elapsed_ns).max().unwrap_or(0) as f64 / 1e9;
        let cpu: f64 = self.results.iter().map(WorkerResult::cpu_seconds).sum();
        let pct = if wall > 0.0 { 100.0 * cpu / wall } else { 0.0 };
        (wall, cpu, pct)
    }

    pub fn moved_bytes(&self) -> u64 {
        self.results.iter().map(|w| w.bytes).sum()
    }

    /// What all workers would move in full passes over their files (with
    /// telemetry, the replayed operations' sizes).
    pub fn planned_bytes(&self, config: &crate::model::config::RunConfig) -> u64 {
        let cell = crate::model::plan::Cell {
            file_bytes: self.file_bytes,
            record_bytes: self.record_bytes,
        };
        crate::model::plan::pass_size(config, &cell, self.pass).bytes * self.workers as u64
    }
}

/// Throughput mode's phases over every run (`--runs`): one group per phase
/// of the plan, in the order of the first run, each holding that phase of
/// every run in run order. A run measures the same phases in the same
/// order, so a phase is matched by its place in its run.
pub fn phase_runs(phases: &[PhaseResult]) -> Vec<Vec<&PhaseResult>> {
    let mut groups: Vec<Vec<&PhaseResult>> = Vec::new();
    let mut place = 0;
    let mut run = phases.first().map_or(0, |p| p.run);
    for phase in phases {
        if phase.run != run {
            run = phase.run;
            place = 0;
        }
        match groups.get_mut(place) {
            Some(group) => group.push(phase),
            None => groups.push(vec![phase]),
        }
        place += 1;
    }
    groups
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Complete,
    /// Stopped by this signal number at a record boundary.
    Interrupted(i32),
    /// Ended by an I/O error (the message names path, operation and offset).
    Failed(String),
}

/// A stopping signal by its name (the ones ioz stops on), else its number.
pub fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGPIPE => "SIGPIPE".into(),
        libc::SIGTERM => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// Version of the JSON layout of [`RunResult`]; bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 2;

/// The layouts a reader accepts: version 1 is version 2 with one run (no
/// `run` fields, no `runs` in the config).
pub const READABLE_SCHEMA_VERSIONS: [u32; 2] = [1, 2];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub tool_version: String,
    pub config: RunConfig,
    /// `Run began` as ctime(3) prints it, local time (for the text report).
    pub started: String,
    /// Start and end of the run, RFC 3339 UTC.
    pub started_at: String,
    pub finished_at: String,
    pub environment: Environment,
    pub time_resolution_ns: u64,
    pub cells: Vec<CellResult>,
    /// Throughput mode's phases, in run order (empty outside throughput mode).
    #[serde(default)]
    pub throughput: Vec<PhaseResult>,
    /// Cluster mode's single and auto mode: each rank's own table, in rank
    /// order (`cells` then holds their sum, [`sum_of_ranks`]); empty
    /// otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RankCells>,
    /// `ioz fileop`, `ioz mdtest`: what the metadata benchmark measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<crate::model::metadata_result::MetadataResult>,
    /// Cluster mode's single and auto mode: the ranks' starts and ends in
    /// each cell of each run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cell_skews: Vec<CellSkew>,
    /// Cluster mode: the job the run was (launcher, Slurm, hosts, what
    /// crossed between the ranks). Absent on one machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<crate::model::job::Job>,
    pub status: RunStatus,
    /// `--rules`: the stamp the run earned (analysis::rules), recomputed by
    /// `ioz check` from the rest of the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<crate::model::rules::RunStamp>,
    /// The ceilings the run's rates are held against, measured at its start
    /// (model/ceilings.rs); absent in runs saved before ioz measured them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceilings: Option<crate::model::ceilings::Ceilings>,
}

impl RunResult {
    /// Whether a pass or a phase was recorded in intervals (`--interval`).
    pub fn has_intervals(&self) -> bool {
        self.cells
            .iter()
            .flat_map(|c| &c.measurements)
            .any(|m| !m.intervals.is_empty())
            || self.throughput.iter().any(|p| !p.intervals.is_empty())
    }

    /// A cluster run's ranks: each rank's host, in rank order, as its
    /// ranks' tables (single and auto mode) or its workers' results
    /// (throughput mode) name them (empty on one machine, and for a
    /// throughput run that ended before its first phase).
    pub fn rank_hosts(&self) -> Vec<String> {
        let mut hosts: Vec<Option<String>> = Vec::new();
        let clients = self.ranks.iter().map(|r| &r.client).chain(
            self.throughput
                .iter()
                .flat_map(|p| &p.results)
                .filter_map(|w| w.client.as_ref()),
        );
        for c in clients {
            let rank = c.rank as usize;
            if hosts.len() <= rank {
                hosts.resize(rank + 1, None);
            }
            hosts[rank].get_or_insert_with(|| c.host.clone());
        }
        hosts.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// Cluster mode's single and auto mode: each rank's own table (in
    /// throughput mode the ranks hold no table of their own).
    pub fn rank_tables(&self) -> &[RankCells] {
        if self.config.throughput.is_some() {
            &[]
        } else {
            &self.ranks
        }
    }
}

/// One rank of a cluster run: its host, its (first) test file and its
/// environment; in single or auto mode also its own table (every rank runs
/// the whole plan on its own test file, each cell started on every rank
/// after a barrier).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankCells {
    pub client: Client,
    pub test_file: std::path::PathBuf,
    /// The rank's rows, as a run on one machine holds them (single and
    /// auto mode).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellResult>,
    /// When each cell began on this rank (released by the cell's barrier),
    /// in the order the cells ran, every run's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cell_starts: Vec<CellStart>,
    /// The rank's machine and its own target, as it captured them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
}

impl RankCells {
    /// This rank's measurement of `pass` of `cell` in repetition `run`.
    pub fn measurement(&self, cell: &Cell, pass: Pass, run: u32) -> Option<&Measurement> {
        self.cells
            .iter()
            .filter(|c| c.cell == *cell)
            .flat_map(|c| &c.measurements)
            .find(|m| m.pass == pass && m.run == run)
    }
}

/// The moment a rank began a cell: Unix time in ns on the rank's own
/// clock (across hosts, as close as their clocks are synchronised).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellStart {
    pub cell: Cell,
    pub run: u32,
    pub unix_ns: u64,
}

/// The ranks' aggregate, cell by cell: for each pass of each run that every
/// rank measured, one measurement whose rate is the sum of the ranks'
/// rates (what the simultaneous clients got together). It holds the bytes
/// and records of all the ranks, their CPU time, and as its time the
/// "effective" one that makes its rate that sum (total bytes over the
/// summed rate, down to the nanosecond): the rates of the ranks add up, their
/// times do not. A pass some rank lacks (the run ended inside it) is left
/// out.
/// With `--interval` (from `config`) its intervals are the ranks' summed
/// index by index.
pub fn sum_of_ranks(ranks: &[RankCells], config: &RunConfig) -> Vec<CellResult> {
    let Some((first, others)) = ranks.split_first() else {
        return Vec::new();
    };
    first
        .cells
        .iter()
        .map(|row| CellResult {
            cell: row.cell,
            measurements: row
                .measurements
                .iter()
                .filter_map(|m| {
                    let mut all = vec![m];
                    for rank in others {
                        let theirs = rank
                            .cells
                            .iter()
                            .find(|c| c.cell == row.cell)?
                            .measurements
                            .iter()
                            .find(|o| o.pass == m.pass && o.run == m.run)?;
                        all.push(theirs);
                    }
                    Some(summed(&all, config))
                })
                .collect(),
        })
        .filter(|row| !row.measurements.is_empty())
        .collect()
}

/// One measurement for several simultaneous ones of the same pass (see
/// [`sum_of_ranks`]).
fn summed(all: &[&Measurement], config: &RunConfig) -> Measurement {
    let bytes: u64 = all.iter().map(|m| m.bytes).sum();
    let rate: f64 = all
        .iter()
        .map(|m| m.bytes as f64 / m.elapsed_ns.max(1) as f64)
        .sum();
    let elapsed_ns = if rate > 0.0 {
        // Down to the nanosecond, so that a sum that is a whole number of
        // kB/s is not truncated to one less.
        ((bytes as f64 / rate).floor() as u64).max(1)
    } else {
        all.iter().map(|m| m.elapsed_ns).max().unwrap_or(1)
    };
    Measurement {
        pass: all[0].pass,
        file_bytes: all[0].file_bytes,
        record_bytes: all[0].record_bytes,
        workers: all.iter().map(|m| m.workers).sum(),
        bytes,
        records: all.iter().map(|m| m.records).sum(),
        latency: None,
        elapsed_ns,
        cpu_user_ns: all.iter().map(|m| m.cpu_user_ns).sum(),
        cpu_system_ns: all.iter().map(|m| m.cpu_system_ns).sum(),
        usage: RegionUsage::sum(all.iter().map(|m| m.usage.as_ref())),
        residency: Residency::sum(all.iter().map(|m| m.residency.as_ref())),
        run: all[0].run,
        intervals: match config.interval_ns {
            Some(interval_ns) => {
                let series: Vec<&[Interval]> = all.iter().map(|m| &m.intervals[..]).collect();
                sum_together(&series, interval_ns, config.latency.percentiles())
            }
            None => Vec::new(),
        },
    }
}

/// A finished run around the given rows, with fixed times and environment:
/// input for exporter tests.
#[cfg(test)]
pub(crate) fn sample_result(config: RunConfig, cells: Vec<CellResult>) -> RunResult {
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool_version: "0.0.0-test".into(),
        config,
        started: "Sat Nov 21 21:05:03 2026".into(),
        started_at: "2026-11-21T21:05:03Z".into(),
        finished_at: "2026-11-21T21:05:09Z".into(),
        environment: Environment::default(),
        time_resolution_ns: 20,
        cells,
        throughput: Vec::new(),
        ranks: Vec::new(),
        metadata: None,
        cell_skews: Vec::new(),
        job: None,
        status: RunStatus::Complete,
        stamp: None,
        ceilings: None,
    }
}

/// A throughput phase for exporter tests: `workers` workers on 1 MiB files of
/// 64 KiB records, each moving `bytes_each` in one second.
#[cfg(test)]
pub(crate) fn sample_phase(pass: Pass, workers: u32, bytes_each: u64) -> PhaseResult {
    PhaseResult {
        pass,
        workers,
        threads: false,
        file_bytes: 1 << 20,
        record_bytes: 64 << 10,
        parent_elapsed_ns: 1_000_000_000,
        parent_estimated: false,
        stonewall: false,
        latency: None,
        results: (0..workers)
            .map(|w| WorkerResult {
                worker: w,
                bytes: bytes_each,
                records: 16,
                latency: None,
                elapsed_ns: 1_000_000_000,
                start_after_release_ns: 0,
                end_after_release_ns: 1_000_000_000,
                stonewalled: false,
                cpu_user_ns: 0,
                cpu_system_ns: 0,
                usage: None,
                residency: None,
                client: None,
                intervals: Vec::new(),
            })
            .collect(),
        run: 0,
        intervals: Vec::new(),
        rank_intervals: Vec::new(),
        skew: None,
    }
}

/// Every cell of `config`'s plan with a measurement of each pass, moving
/// `bytes(file_bytes, record_bytes)` in one second: rows for exporter tests.
#[cfg(test)]
pub(crate) fn sample_cells(
    config: &RunConfig,
    passes: &[Pass],
    bytes: impl Fn(u64, u64) -> u64,
) -> Vec<CellResult> {
    crate::model::plan::expand(config)
        .cells
        .into_iter()
        .map(|cell| CellResult {
            cell,
            measurements: passes
                .iter()
                .map(|&pass| Measurement {
                    pass,
                    file_bytes: cell.file_bytes,
                    record_bytes: cell.record_bytes,
                    workers: 1,
                    bytes: bytes(cell.file_bytes, cell.record_bytes),
                    records: cell.records(),
                    latency: None,
                    elapsed_ns: 1_000_000_000,
                    cpu_user_ns: 0,
                    cpu_system_ns: 0,
                    usage: None,
                    residency: None,
                    run: 0,
                    intervals: Vec::new(),
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_usage_sums_only_what_was_counted() {
        let u = |minor| RegionUsage {
            minor_faults: minor,
            major_faults: 1,
            voluntary_context_switches: 2,
            involuntary_context_switches: 3,
        };
        assert_eq!(
            RegionUsage::sum([Some(&u(4)), Some(&u(5))]),
            Some(RegionUsage {
                minor_faults: 9,
                major_faults: 2,
                voluntary_context_switches: 4,
                involuntary_context_switches: 6,
            })
        );
        assert_eq!(RegionUsage::sum([Some(&u(4)), None]), None);
        let mut phase = sample_phase(Pass::Read, 2, 1 << 20);
        assert_eq!(phase.usage(), None, "saved before ioz counted it");
        for w in &mut phase.results {
            w.usage = Some(u(1));
        }
        assert_eq!(phase.usage().map(|u| u.minor_faults), Some(2));
    }

    #[test]
    fn only_the_mmap_engine_faults_by_its_nature() {
        let config = |args: &[&str]| crate::cli::test_config(args);
        assert!(faults_are_inherent(&config(&["-a", "-B"]), Pass::Read));
        assert!(!faults_are_inherent(&config(&["-a"]), Pass::Read));
        // The stdio tests keep their engine whatever the run's.
        assert!(!faults_are_inherent(&config(&["-a", "-B"]), Pass::Fread));
    }

    fn rank(rank: u32, cells: Vec<CellResult>) -> RankCells {
        RankCells {
            client: Client {
                rank,
                host: format!("h{rank}"),
            },
            test_file: format!("ioz.tmp.{rank}").into(),
            cells,
            cell_starts: Vec::new(),
            environment: None,
        }
    }

    fn cell(file_kb: u64, passes: &[(Pass, u64, u64)]) -> CellResult {
        let cell = Cell {
            file_bytes: file_kb << 10,
            record_bytes: 4 << 10,
        };
        CellResult {
            cell,
            measurements: passes
                .iter()
                .map(|&(pass, bytes, elapsed_ns)| Measurement {
                    pass,
                    file_bytes: cell.file_bytes,
                    record_bytes: cell.record_bytes,
                    workers: 1,
                    bytes,
                    records: bytes / 4096,
                    latency: None,
                    elapsed_ns,
                    cpu_user_ns: 10,
                    cpu_system_ns: 5,
                    usage: None,
                    residency: None,
                    run: 0,
                    intervals: Vec::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn the_sum_of_ranks_adds_their_rates_not_their_times() {
        // 1 MiB in 1 s and 1 MiB in 0.5 s: 1024 + 2048 kB/s.
        let a = rank(
            0,
            vec![cell(1024, &[(Pass::Write, 1 << 20, 1_000_000_000)])],
        );
        let b = rank(1, vec![cell(1024, &[(Pass::Write, 1 << 20, 500_000_000)])]);
        let sum = sum_of_ranks(&[a, b], &crate::cli::test_config(&["-a"]));
        assert_eq!(sum.len(), 1);
        let m = &sum[0].measurements[0];
        assert_eq!(m.kb_per_sec(), 3072);
        assert_eq!((m.bytes, m.records, m.workers), (2 << 20, 512, 2));
        assert_eq!((m.cpu_user_ns, m.cpu_system_ns), (20, 10));
    }

    #[test]
    fn a_pass_some_rank_lacks_is_left_out_of_the_sum() {
        let both = [(Pass::Write, 1 << 20, 1_000_000_000)];
        let a = rank(
            0,
            vec![
                cell(1024, &[both[0], (Pass::Rewrite, 1 << 20, 1_000_000_000)]),
                cell(2048, &both),
            ],
        );
        let b = rank(1, vec![cell(1024, &both)]);
        let sum = sum_of_ranks(&[a, b], &crate::cli::test_config(&["-a"]));
        assert_eq!(sum.len(), 1);
        assert_eq!(sum[0].passes(), [Pass::Write]);
        assert!(sum_of_ranks(&[], &crate::cli::test_config(&["-a"])).is_empty());
    }
}
