//! The options as the command line gave them, before they are checked against
//! each other (validate.rs) and turned into a [`RunConfig`](crate::model::config::RunConfig).

use std::path::PathBuf;

use super::grammar::Target;
use super::spelling::Spelling;
use crate::model::config::{DataPattern, HistoryChoice, OpenOptions, PlotStyle};
use crate::model::formats::OutputFiles;
use crate::model::latency::LatencyOptions;
use crate::model::variations::IoVariations;
use crate::model::workload::TestId;

/// Options as seen, before validation. Each flag's entry in the table sets
/// its fields; `given` records which flags appeared, in order.
#[derive(Default)]
pub(super) struct Seen {
    pub given: Vec<Spelling<'static>>,
    pub option_lines: Vec<String>,
    pub auto: bool,
    pub obsolete_auto: bool,
    pub no_crossover: bool,
    pub file_sizes: Vec<u64>,
    pub record_sizes: Vec<u64>,
    pub min_file: Option<u64>,
    pub max_file: Option<u64>,
    pub min_record: Option<u64>,
    pub max_record: Option<u64>,
    pub multiplier: Option<u64>,
    pub tests: Vec<TestId>,
    pub extended: bool,
    pub path: Option<PathBuf>,
    pub keep_file: bool,
    pub open: OpenOptions,
    pub fsync_in_timing: bool,
    pub close_in_timing: bool,
    pub lock_file: bool,
    pub micros_per_op: bool,
    pub ops_per_sec: bool,
    pub excel_report: bool,
    pub stride: Option<u64>,
    pub mix_read_percent: Option<u32>,
    pub no_retest: bool,
    pub force: bool,
    pub data: Option<DataPattern>,
    pub outputs: OutputFiles,
    pub plot_style: PlotStyle,
    pub quiet: bool,
    /// `-M`: the machine's settings in the header.
    pub machine: bool,
    pub worker_counts: Vec<u32>,
    pub min_workers: Option<u32>,
    pub max_workers: Option<u32>,
    pub threads: bool,
    pub files: Vec<PathBuf>,
    pub per_worker_lines: bool,
    pub first_cpu: Option<usize>,
    pub constant_total: bool,
    pub shared_file: bool,
    pub no_stonewall: bool,
    /// `-+t`: the network test instead of a run; `--every-pair`: between
    /// every pair of ranks.
    pub network_test: bool,
    pub every_pair: bool,
    pub start_delay_us: Option<u64>,
    pub record_locking: bool,
    pub destroy_data: Vec<String>,
    /// `--runs`: repetitions of the whole plan.
    pub runs: Option<u32>,
    /// `--label`: the configuration's name, as given (checked in validate.rs).
    pub label: Option<String>,
    /// `--rules`: the run rules the run is stamped by.
    pub rules: crate::model::rules::Rules,
    /// `--until-steady MAX`.
    pub until_steady: Option<u32>,
    /// `--history DIR`, `--no-history`.
    pub history: HistoryChoice,
    pub variations: IoVariations,
    /// `--latency`, `-+z`, `-+O`, `-+T` (the percentiles come from `percentiles`).
    pub latency: LatencyOptions,
    /// `--percentiles`, as given (checked in validate.rs).
    pub percentiles: Option<String>,
    /// `--interval`, ns.
    pub interval_ns: Option<u64>,
    pub mmap_flag: bool,
    /// `-H` or `-k` (their letter) and the depth.
    pub aio_depth: Option<(char, u32)>,
}

impl Target for Seen {
    fn applied(&mut self, flag: Spelling<'static>, lines: Vec<String>) {
        self.given.push(flag);
        self.option_lines.extend(lines);
    }

    fn was_given(&self, flag: Spelling<'_>) -> bool {
        self.given.contains(&flag)
    }
}

impl Seen {
    pub fn throughput_requested(&self) -> bool {
        !self.worker_counts.is_empty() || self.min_workers.is_some() || self.max_workers.is_some()
    }
}
