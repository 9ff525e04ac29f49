//! The samples a comparison works on: every rate measured, per cell, as
//! plain numbers in the run's unit.
//!
//! A cell may hold several samples: a run with repetitions keeps several
//! measurements of one pass in one cell (and several throughput phases of
//! one shape), and a directory of runs pools them. [`of_run`] is the one
//! place that reads them out of a [`RunResult`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::config::OutputUnit;
use crate::model::histogram::LatencySummary;
use crate::model::intervals::Interval;
use crate::model::metadata::{MetaOp, MetadataConfig};
use crate::model::metadata_result::MetadataResult;
use crate::model::peer::{PeerRun, PeerTest};
use crate::model::recorded::{Cost, Recorded, Spread, settings_of_run};
use crate::model::regime::{Regime, regime};
use crate::model::residency::Residency;
use crate::model::result::{Measurement, PhaseResult, RunResult, faults_are_inherent};
use crate::model::workload::Pass;

/// What a sample measures: an IOzone pass, or an operation of a metadata
/// benchmark (`ioz fileop`, with its force factor; `ioz mdtest`'s phase,
/// factor 0). Saved as the pass's name, or as the operation and factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(untagged)]
pub enum Test {
    Pass(Pass),
    Metadata { op: MetaOp, factor: u32 },
}

impl Test {
    /// Its name in the reports: the pass's (`random read`), or the
    /// operation's with fileop's force factor (`mkdir (X=3)`).
    pub fn name(&self) -> String {
        match self {
            Test::Pass(pass) => pass.name().to_string(),
            Test::Metadata { op, factor: 0 } => op.name().to_string(),
            Test::Metadata { op, factor } => format!("{} (X={factor})", op.name()),
        }
    }

    /// The IOzone pass, if it is one.
    pub fn pass(&self) -> Option<Pass> {
        match self {
            Test::Pass(pass) => Some(*pass),
            Test::Metadata { .. } => None,
        }
    }
}

/// Where a sample was measured: a cell of the table (single and auto mode),
/// the shape of a throughput phase, or an operation of a metadata
/// benchmark (its file size the bytes each file is written, no records).
/// Ordered as a report lists them: by test, then workers, file size and
/// record size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct CellKey {
    pub pass: Test,
    /// Workers of a throughput phase; `None` for a cell of the table.
    pub workers: Option<u32>,
    pub file_bytes: u64,
    pub record_bytes: u64,
}

/// A percentile of the operations' latency that `ioz compare` compares
/// (runs measured with `--latency`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tail {
    P50,
    P99,
}

impl Tail {
    pub const ALL: [Tail; 2] = [Tail::P50, Tail::P99];

    pub fn percent(self) -> f64 {
        match self {
            Tail::P50 => 50.0,
            Tail::P99 => 99.0,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tail::P50 => "p50",
            Tail::P99 => "p99",
        }
    }
}

/// Every sample of one input (a run, a directory of runs, an IOzone log).
#[derive(Clone, Debug, PartialEq)]
pub struct SampleSet {
    /// The unit of every sample (kB/s, ops/s or µs/op).
    pub unit: OutputUnit,
    /// The samples of each cell, in the order they were read.
    pub cells: BTreeMap<CellKey, Vec<f64>>,
    /// Each cell's cache regime, where the input recorded what judges it
    /// (a saved run's configuration and environment; IOzone's output
    /// records neither). Pooled runs keep the first run's.
    pub regimes: BTreeMap<CellKey, Regime>,
    /// Each cell's regime from what the page cache held (its code and
    /// words: model::residency), where the run measured it; the first run's
    /// when runs are pooled.
    pub measured: BTreeMap<CellKey, (&'static str, String)>,
    /// With `--latency`: each run's p50 and p99 of a cell's operations, in
    /// µs (one sample per run, as the rates).
    pub latency: BTreeMap<(CellKey, Tail), Vec<f64>>,
    /// With `--interval`: each cell's intervals in its first run (a
    /// phase's: the workers' sum), for `ioz compare`'s overlay. Pooled
    /// runs keep the first run's.
    pub series: BTreeMap<CellKey, Vec<Interval>>,
    /// What each cell recorded beside its rates (its settings, cost,
    /// spread, start skew: model/recorded.rs), from its first measurement,
    /// for the causes of a difference (analysis/why.rs). Pooled runs keep
    /// the first run's.
    pub recorded: BTreeMap<CellKey, Recorded>,
}

impl SampleSet {
    pub fn new(unit: OutputUnit) -> SampleSet {
        SampleSet {
            unit,
            cells: BTreeMap::new(),
            regimes: BTreeMap::new(),
            measured: BTreeMap::new(),
            latency: BTreeMap::new(),
            series: BTreeMap::new(),
            recorded: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, key: CellKey, value: f64) {
        self.cells.entry(key).or_default().push(value);
    }

    /// The regime `residency` shows for `pass`, the cell's first.
    fn add_measured(&mut self, key: CellKey, residency: Option<&Residency>, pass: Pass) {
        if let Some(m) = residency.and_then(|r| r.regime(pass)) {
            self.measured.entry(key).or_insert((m.code(), m.words()));
        }
    }

    /// Pools `other`'s samples into this set (the caller checked the units agree).
    pub fn pool(&mut self, other: SampleSet) {
        for (key, values) in other.cells {
            self.cells.entry(key).or_default().extend(values);
        }
        for (key, regime) in other.regimes {
            self.regimes.entry(key).or_insert(regime);
        }
        for (key, measured) in other.measured {
            self.measured.entry(key).or_insert(measured);
        }
        for (key, values) in other.latency {
            self.latency.entry(key).or_default().extend(values);
        }
        for (key, intervals) in other.series {
            self.series.entry(key).or_insert(intervals);
        }
        for (key, recorded) in other.recorded {
            self.recorded.entry(key).or_insert(recorded);
        }
    }

    /// A cell's intervals, unless it has some already (an earlier run's).
    fn add_series(&mut self, key: CellKey, intervals: &[Interval]) {
        if !intervals.is_empty() {
            self.series.entry(key).or_insert_with(|| intervals.to_vec());
        }
    }

    /// A pass's p50 and p99 (when it was measured with `--latency`), in µs.
    fn add_latency(&mut self, key: CellKey, latency: Option<&LatencySummary>) {
        let Some(latency) = latency.filter(|l| l.count > 0) else {
            return;
        };
        for tail in Tail::ALL {
            if let Some(ns) = latency.at(tail.percent()) {
                self.latency
                    .entry((key, tail))
                    .or_default()
                    .push(ns as f64 / 1000.0);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.cells.values().all(Vec::is_empty)
    }
}

/// The samples of a saved run: each measurement of a pass in a cell is one
/// sample of that cell (several with repetitions), and each throughput
/// phase one sample ("Children see") of its pass and shape.
pub fn of_run(run: &RunResult) -> SampleSet {
    let unit = run.config.unit;
    let mut set = SampleSet::new(unit);
    for cell in &run.cells {
        for m in &cell.measurements {
            let key = CellKey {
                pass: Test::Pass(m.pass),
                workers: None,
                file_bytes: m.file_bytes,
                record_bytes: m.record_bytes,
            };
            set.add(key, exact_rate(m, unit));
            let judged = regime(&run.config, &run.environment, m.pass, m.file_bytes, 1);
            set.regimes.insert(key, judged);
            set.add_measured(key, m.residency.as_ref(), m.pass);
            set.add_latency(key, m.latency.as_ref());
            set.add_series(key, &m.intervals);
            set.recorded
                .entry(key)
                .or_insert_with(|| recorded_of_measurement(run, m));
        }
    }
    for phase in &run.throughput {
        let key = CellKey {
            pass: Test::Pass(phase.pass),
            workers: Some(phase.workers),
            file_bytes: phase.file_bytes,
            record_bytes: phase.record_bytes,
        };
        set.add(key, phase.children_see(unit));
        let judged = regime(
            &run.config,
            &run.environment,
            phase.pass,
            phase.file_bytes,
            phase.workers,
        );
        set.regimes.insert(key, judged);
        set.add_measured(key, phase.residency().as_ref(), phase.pass);
        set.add_latency(key, phase.latency.as_ref());
        set.add_series(key, &phase.intervals);
        set.recorded
            .entry(key)
            .or_insert_with(|| recorded_of_phase(run, phase));
    }
    if let Some(meta) = &run.metadata {
        add_metadata(&mut set, run, meta);
    }
    set
}

/// A metadata benchmark's samples: each operation's rate (ops/s) in each
/// run, a cell per operation and force factor, with its latency's p50
/// and p99. Across ranks the cell has the ranks as its workers.
fn add_metadata(set: &mut SampleSet, run: &RunResult, meta: &MetadataResult) {
    let file_bytes = match &run.config.metadata {
        Some(MetadataConfig::Fileop(f)) => f.file_bytes,
        Some(MetadataConfig::Mdtest(m)) => m.write_bytes,
        None => 0,
    };
    let workers = (meta.hosts.len() > 1).then_some(meta.hosts.len() as u32);
    for m in &meta.measurements {
        let key = CellKey {
            pass: Test::Metadata {
                op: m.op,
                factor: m.factor,
            },
            workers,
            file_bytes,
            record_bytes: 0,
        };
        set.add(key, m.rate());
        set.add_latency(key, Some(&m.latency));
    }
}

/// What a measurement of a single or auto run recorded beside its rate:
/// the run's settings for its pass, its CPU, switches and own page faults
/// per operation, its intervals' spread, a cluster cell's start skew.
fn recorded_of_measurement(run: &RunResult, m: &Measurement) -> Recorded {
    let own_faults = m.usage.and_then(|u| {
        (!faults_are_inherent(&run.config, m.pass)).then_some(u.minor_faults + u.major_faults)
    });
    let ops = m.records.max(1) as f64;
    let skew = run
        .cell_skews
        .iter()
        .filter(|s| s.cell.file_bytes == m.file_bytes && s.cell.record_bytes == m.record_bytes)
        .map(|s| s.skew.start_skew_ns)
        .max();
    Recorded {
        settings: settings_of_run(&run.config, m.pass, None),
        cost: Some(Cost {
            cpu_ns_per_op: Some((m.cpu_user_ns + m.cpu_system_ns) as f64 / ops),
            switches_per_op: m.usage.map(|u| {
                (u.voluntary_context_switches + u.involuntary_context_switches) as f64 / ops
            }),
            own_faults,
        }),
        spread: spread_of(&m.intervals),
        start_skew_ns: skew,
        elapsed_ns: Some(m.elapsed_ns),
    }
}

/// What a throughput phase recorded: as a measurement's, its workers'
/// together, and how far apart they started (or its ranks, across MPI).
fn recorded_of_phase(run: &RunResult, phase: &PhaseResult) -> Recorded {
    let records: u64 = phase.results.iter().map(|w| w.records).sum();
    let ops = records.max(1) as f64;
    let cpu: u64 = phase
        .results
        .iter()
        .map(|w| w.cpu_user_ns + w.cpu_system_ns)
        .sum();
    let usage = phase.usage();
    let starts = phase.results.iter().map(|w| w.start_after_release_ns);
    let skew = match (starts.clone().min(), starts.max()) {
        (Some(a), Some(b)) if phase.results.len() > 1 => Some((b - a).max(0) as u64),
        _ => None,
    };
    let skew = match &phase.skew {
        Some(ranks) => Some(ranks.start_skew_ns.max(skew.unwrap_or(0))),
        None => skew,
    };
    Recorded {
        settings: settings_of_run(&run.config, phase.pass, Some(phase.workers)),
        cost: Some(Cost {
            cpu_ns_per_op: Some(cpu as f64 / ops),
            switches_per_op: usage.map(|u| {
                (u.voluntary_context_switches + u.involuntary_context_switches) as f64 / ops
            }),
            own_faults: usage.and_then(|u| {
                (!faults_are_inherent(&run.config, phase.pass))
                    .then_some(u.minor_faults + u.major_faults)
            }),
        }),
        spread: spread_of(&phase.intervals),
        start_skew_ns: skew,
        elapsed_ns: Some(phase.parent_elapsed_ns),
    }
}

/// The spread of the rate over a pass's whole intervals (the last, partial
/// one left out: its few operations say little), kB/s.
fn spread_of(intervals: &[Interval]) -> Option<Spread> {
    let rates: Vec<f64> = intervals
        .iter()
        .filter(|i| !i.partial)
        .map(Interval::kb_per_sec)
        .collect();
    Spread::of(&rates)
}

/// The samples of another benchmark's result file in `unit`: each
/// repetition of a result one sample of its cell, with its latency's p50
/// and p99 (µs), what it recorded, and its series. A result with no rate
/// in `unit` (a metadata phase among data phases) is left out.
pub fn of_peer(run: &PeerRun, unit: OutputUnit) -> SampleSet {
    let mut set = SampleSet::new(unit);
    for r in &run.results {
        let key = CellKey {
            pass: match r.test {
                PeerTest::Pass(p) => Test::Pass(p),
                PeerTest::Metadata(op) => Test::Metadata { op, factor: 0 },
            },
            workers: r.workers,
            file_bytes: r.file_bytes,
            record_bytes: r.record_bytes,
        };
        let values: Vec<f64> = r.samples.iter().filter_map(|s| s.in_unit(unit)).collect();
        if values.is_empty() {
            continue;
        }
        for v in values {
            set.add(key, v);
        }
        set.add_latency(key, r.latency.as_ref());
        set.add_series(key, &r.series);
        set.recorded
            .entry(key)
            .or_insert_with(|| r.recorded.clone());
    }
    set
}

/// The pass's rate in `unit`, not truncated to an integer as the table
/// prints it (a small cell's truncation would be noise in the statistics).
pub fn exact_rate(m: &Measurement, unit: OutputUnit) -> f64 {
    let secs = m.elapsed_ns.max(1) as f64 / 1e9;
    match unit {
        OutputUnit::KbPerSec => m.bytes as f64 / 1024.0 / secs,
        OutputUnit::OpsPerSec => m.records as f64 / secs,
        OutputUnit::MicrosPerOp => 1e6 * secs / m.records.max(1) as f64,
    }
}

/// Whether a larger number is better in `unit` (not for µs per operation).
pub fn higher_is_better(unit: OutputUnit) -> bool {
    unit != OutputUnit::MicrosPerOp
}

/// The unit's name as reports print it.
pub fn unit_name(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "ops/s",
        OutputUnit::MicrosPerOp => "µs/op",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::Cell;
    use crate::model::result::{CellResult, sample_phase, sample_result};

    fn measurement(pass: Pass, bytes: u64, elapsed_ns: u64, run: u32) -> Measurement {
        Measurement {
            run,
            pass,
            file_bytes: 1 << 20,
            record_bytes: 64 << 10,
            workers: 1,
            bytes,
            records: bytes / (64 << 10),
            latency: None,
            elapsed_ns,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
            usage: None,
            residency: None,
            intervals: Vec::new(),
        }
    }

    #[test]
    fn repeated_measurements_of_a_pass_are_samples_of_one_cell() {
        let cell = CellResult {
            cell: Cell {
                file_bytes: 1 << 20,
                record_bytes: 64 << 10,
            },
            measurements: vec![
                measurement(Pass::Write, 1 << 20, 1_000_000_000, 0),
                measurement(Pass::Rewrite, 1 << 20, 500_000_000, 0),
                measurement(Pass::Write, 1 << 20, 2_000_000_000, 1),
            ],
        };
        let run = sample_result(
            crate::cli::test_config(&["-s", "1m", "-r", "64k"]),
            vec![cell],
        );
        let set = of_run(&run);
        let write = CellKey {
            pass: Test::Pass(Pass::Write),
            workers: None,
            file_bytes: 1 << 20,
            record_bytes: 64 << 10,
        };
        // 1 MiB in 1 s and in 2 s: 1024 and 512 kB/s, not truncated.
        assert_eq!(set.cells[&write], [1024.0, 512.0]);
        let rewrite = CellKey {
            pass: Test::Pass(Pass::Rewrite),
            ..write
        };
        assert_eq!(set.cells[&rewrite], [2048.0]);
    }

    #[test]
    fn repeated_throughput_phases_are_samples_of_one_shape() {
        let mut run = sample_result(
            crate::cli::test_config(&["-s", "1m", "-r", "64k"]),
            Vec::new(),
        );
        run.throughput = vec![
            sample_phase(Pass::Write, 2, 1 << 20),
            sample_phase(Pass::Read, 2, 1 << 20),
            sample_phase(Pass::Write, 2, 2 << 20),
        ];
        let set = of_run(&run);
        let write = CellKey {
            pass: Test::Pass(Pass::Write),
            workers: Some(2),
            file_bytes: 1 << 20,
            record_bytes: 64 << 10,
        };
        // Children see: the sum of two workers' 1024 (then 2048) kB/s.
        assert_eq!(set.cells[&write], [2048.0, 4096.0]);
        assert_eq!(set.cells.len(), 2);
    }

    #[test]
    fn a_peer_s_repetitions_are_samples_of_its_cell_in_the_unit_asked() {
        use crate::model::peer::{PeerResult, PeerRun, PeerSample, PeerTest, PeerTool};
        let mut run = PeerRun::empty(PeerTool::Ior);
        run.results.push(PeerResult {
            name: "test 0, write".into(),
            test: PeerTest::Pass(Pass::Write),
            workers: Some(2),
            file_bytes: 16 << 20,
            record_bytes: 64 << 10,
            samples: [3593.4173, 1028.6381]
                .iter()
                .map(|mib| PeerSample {
                    kb_per_sec: Some(mib * 1024.0),
                    ops_per_sec: Some(mib * 16.0),
                })
                .collect(),
            printed: String::new(),
            latency: None,
            recorded: Recorded::default(),
            series: Vec::new(),
        });
        let key = CellKey {
            pass: Test::Pass(Pass::Write),
            workers: Some(2),
            file_bytes: 16 << 20,
            record_bytes: 64 << 10,
        };
        let kb = of_peer(&run, OutputUnit::KbPerSec);
        assert_eq!(kb.cells[&key], [3593.4173 * 1024.0, 1028.6381 * 1024.0]);
        let ops = of_peer(&run, OutputUnit::OpsPerSec);
        assert_eq!(ops.cells[&key], [3593.4173 * 16.0, 1028.6381 * 16.0]);
        assert!(kb.recorded.contains_key(&key));
        // No rate in the unit: no cell.
        run.results[0].samples[0].ops_per_sec = None;
        run.results[0].samples[1].ops_per_sec = None;
        assert!(of_peer(&run, OutputUnit::OpsPerSec).is_empty());
    }

    #[test]
    fn a_throughput_phase_records_how_far_apart_its_workers_started() {
        let mut run = sample_result(
            crate::cli::test_config(&["-s", "1m", "-r", "64k", "-t", "2"]),
            Vec::new(),
        );
        let mut phase = sample_phase(Pass::Write, 2, 1 << 20);
        phase.results[1].start_after_release_ns = 30_000_000;
        run.throughput = vec![phase];
        let set = of_run(&run);
        let r = set.recorded.values().next().unwrap();
        assert_eq!(
            (r.start_skew_ns, r.elapsed_ns),
            (Some(30_000_000), Some(1_000_000_000))
        );
        assert_eq!(
            r.settings[crate::model::recorded::RATE_OF_WORKERS],
            "sum of each worker's rate, until the first finished (stonewall)"
        );
    }

    #[test]
    fn pooling_appends_the_samples_of_each_cell() {
        let key = CellKey {
            pass: Test::Pass(Pass::Read),
            workers: None,
            file_bytes: 1,
            record_bytes: 1,
        };
        let mut a = SampleSet::new(OutputUnit::KbPerSec);
        a.add(key, 1.0);
        let mut b = SampleSet::new(OutputUnit::KbPerSec);
        b.add(key, 2.0);
        a.pool(b);
        assert_eq!(a.cells[&key], [1.0, 2.0]);
    }
}
