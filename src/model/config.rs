//! The validated, typed description of a run. Nothing after the CLI sees raw flags.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::formats::OutputFiles;
use crate::model::telemetry::Telemetry;
use crate::model::units::{KIB, MIB};
use crate::model::variations::IoVariations;
use crate::model::workload::{Pass, TestId};

/// Largest record IOzone accepts (its buffer size), kept for compatibility.
pub const MAX_RECORD_BYTES: u64 = 16 * MIB;
/// File sizes above this use records of at least [`CROSSOVER_MIN_RECORD`] in `-a` mode.
pub const CROSSOVER_FILE_BYTES: u64 = 16 * MIB;
pub const CROSSOVER_MIN_RECORD: u64 = 64 * KIB;
pub const DEFAULT_FILE_BYTES: u64 = 512 * KIB;
pub const DEFAULT_RECORD_BYTES: u64 = 4 * KIB;
pub const DEFAULT_AUTO_MIN_FILE: u64 = 64 * KIB;
pub const DEFAULT_AUTO_MAX_FILE: u64 = 512 * MIB;
pub const DEFAULT_AUTO_MIN_RECORD: u64 = 4 * KIB;
pub const DEFAULT_AUTO_MAX_RECORD: u64 = 16 * MIB;
pub const DEFAULT_STRIDE: u64 = 17;
pub const DEFAULT_MIX_READ_PERCENT: u32 = 50;
pub const DEFAULT_FILE_NAME: &str = "ioz.tmp";
/// Most workers a throughput run may ask for.
pub const MAX_WORKERS: u64 = 1024;
/// Largest file a run may use (`-s`, `-n`, `-g`, and how far a telemetry
/// file reaches): 1 PiB. Written once at 10 GB/s it takes 31 hours, so no
/// benchmark needs more, and sizes times workers stay far inside 64 bits.
pub const MAX_FILE_BYTES: u64 = 1 << 50;
/// Most sizes a `-s` or `-r` list may give (auto mode runs every file size
/// with every record size): far more than IOzone's own grid (14 file sizes,
/// 13 record sizes), few enough that the grid stays small.
pub const MAX_LISTED_SIZES: usize = 256;

/// The most repetitions `--runs` takes: far beyond any useful count, low
/// enough that a typo (`--runs 10000000`) is refused rather than started.
pub const MAX_RUNS: u32 = 10_000;
/// Longest any delay or pause may be (`-J`, `-+q`, `-d`, a telemetry line's
/// delay): an hour. A longer wait measures nothing a shorter one does not,
/// and a mistyped number must not leave ioz asleep for years.
pub const MAX_DELAY_SECONDS: u64 = 3600;

/// What the table's numbers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputUnit {
    /// kB/s with kB = 1024 bytes (IOzone's default).
    KbPerSec,
    /// µs per operation (`-N`).
    MicrosPerOp,
    /// Operations per second (`-O`).
    OpsPerSec,
}

/// How the plots and the HTML report draw values (`--plot-scale`, `--plot-log`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlotStyle {
    /// `--plot-scale shared`: one value range (and unit) for every test, so
    /// that side-by-side panels compare; else each test fills its own.
    #[serde(default)]
    pub shared_scale: bool,
    /// `--plot-log`: a logarithmic value axis.
    #[serde(default)]
    pub log_values: bool,
}

impl PlotStyle {
    /// The words `--plot-scale` takes, the default first.
    pub const SCALE_NAMES: [&'static str; 2] = ["own", "shared"];
}

/// What written data looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataPattern {
    /// Incompressible pseudo-random bytes (ioz's default).
    Random,
    /// IOzone's buffer: the pattern byte 0x10 in the first 8 bytes of each 4 KiB page, zeros elsewhere.
    Iozone,
}

/// The sizes a run covers, before the plan expands them into cells.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sizes {
    /// One file size and one record size.
    Single { file_bytes: u64, record_bytes: u64 },
    /// Auto mode over a file-size and record-size grid.
    Auto(AutoSizes),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoSizes {
    /// The file sizes, smallest first as IOzone steps them (or exactly the `-s` list).
    pub file_sizes: SizeAxis,
    /// The record sizes (or exactly the `-r` list).
    pub record_sizes: SizeAxis,
    /// IOzone's crossover rule: records below 64 KiB skipped for files above 16 MiB.
    pub crossover: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeAxis {
    /// min, min×multiplier, … while ≤ max.
    Range { min: u64, max: u64, multiplier: u64 },
    /// Exactly these values, in the order given.
    List(Vec<u64>),
}

impl SizeAxis {
    pub fn values(&self) -> Vec<u64> {
        match self {
            SizeAxis::Range {
                min,
                max,
                multiplier,
            } => {
                let mut out = Vec::new();
                let mut v = *min;
                while v <= *max {
                    out.push(v);
                    // A range that cannot grow (multiplier < 2, or 0) has one
                    // value; the CLI never makes one, a hand-edited file might.
                    match v.checked_mul(*multiplier) {
                        Some(next) if next > v => v = next,
                        _ => break,
                    }
                }
                out
            }
            SizeAxis::List(list) => list.clone(),
        }
    }
}

/// Flags added to every open (or every writer's open) of the test file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenOptions {
    /// `-o`: O_SYNC on writers.
    pub sync_writes: bool,
    /// `-+D`: O_DSYNC on writers.
    pub dsync_writes: bool,
    /// `-+r`: O_RSYNC|O_SYNC on every open.
    pub sync_all: bool,
    /// `-I`: O_DIRECT on every open.
    pub direct: bool,
}

/// Throughput mode: several workers, each on its own file (or one shared file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThroughputConfig {
    /// Worker counts, run one after another (`-t` list, or `-l`..=`-u`).
    pub worker_counts: Vec<u32>,
    /// `-l`/`-u` as given, for the header lines.
    pub min_workers: Option<u32>,
    pub max_workers: Option<u32>,
    /// `-T`: POSIX threads instead of processes.
    pub threads: bool,
    /// `-F`: the workers' files; empty means `<-f path>.<worker>`.
    pub files: Vec<PathBuf>,
    /// `-C`: a line per worker with its bytes and rate.
    pub per_worker_lines: bool,
    /// `-P`: pin worker i to CPU (first + i) mod CPUs.
    pub first_cpu: Option<usize>,
    /// `-+k`: each worker's file is the file size divided by the worker count.
    pub constant_total: bool,
    /// `-+V`/`-+L`: every worker uses worker 0's file.
    pub shared_file: bool,
    /// Stonewalling (on unless `-x`): when the first worker finishes, the others stop.
    pub stonewall: bool,
    /// `-d`: worker i starts i × this many µs after the barrier opens.
    pub start_delay_us: u64,
    /// Cluster mode: this rank's part of the job's workers (`worker_counts`
    /// and `files` are then the rank's; -d and the result files count the
    /// job's). Never saved: a saved run is the whole job's.
    #[serde(skip)]
    pub ranks: Option<crate::model::rank_share::RankShare>,
}

impl ThroughputConfig {
    /// -P: the CPU of worker `index` when the first is `first` (in cluster
    /// mode the host's CPUs are dealt to the workers of the host's ranks).
    pub fn worker_cpu(&self, first: usize, index: u32) -> usize {
        first
            + self
                .ranks
                .as_ref()
                .map_or(index as usize, |s| s.cpu_offset(index))
    }

    /// The job's number of worker `index` (in cluster mode the rank's
    /// workers are some of the job's).
    pub fn job_worker(&self, index: u32) -> u32 {
        self.ranks.as_ref().map_or(index, |s| s.job_worker(index))
    }

    /// The job's worker count of `worker_counts[k]` (a rank's share in
    /// cluster mode).
    pub fn job_count(&self, k: usize) -> u32 {
        let own = self.worker_counts.get(k).copied().unwrap_or(1);
        self.ranks
            .as_ref()
            .and_then(|s| s.job_count(k))
            .unwrap_or(own)
    }

    /// Each worker count with the count of the job it is a share of (the
    /// same on one host): -+k divides the file by the job's.
    pub fn counts(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.worker_counts
            .iter()
            .enumerate()
            .map(|(k, &n)| (n, self.job_count(k)))
    }

    pub fn max_worker_count(&self) -> u32 {
        self.worker_counts.iter().copied().max().unwrap_or(1)
    }

    /// The file worker `index` uses.
    pub fn worker_path(&self, base: &std::path::Path, index: u32) -> PathBuf {
        let index = if self.shared_file { 0 } else { index };
        match self.files.get(index as usize) {
            Some(p) => p.clone(),
            None => {
                let mut name = base.as_os_str().to_owned();
                name.push(format!(".{index}"));
                PathBuf::from(name)
            }
        }
    }

    /// Bytes each worker's file holds with `workers` workers.
    pub fn worker_file_bytes(&self, file_bytes: u64, record_bytes: u64, workers: u32) -> u64 {
        if self.constant_total {
            (file_bytes / workers.max(1) as u64) / record_bytes * record_bytes
        } else {
            file_bytes
        }
    }

    pub fn worker_noun(&self) -> &'static str {
        if self.threads { "thread" } else { "process" }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// argv as given, argv[0] included.
    pub command_line: Vec<String>,
    /// Header lines the options asked for, in command-line order.
    pub option_lines: Vec<String>,
    pub sizes: Sizes,
    /// `-A`: only tests 0 and 1, four-column table.
    pub obsolete_auto: bool,
    /// Selected tests, ascending.
    pub tests: Vec<TestId>,
    /// `-E`: show the pwrite/pread columns even when those tests are not selected.
    pub extended: bool,
    pub path: PathBuf,
    /// `-w`: keep the test file.
    pub keep_file: bool,
    pub open: OpenOptions,
    /// `-e`: fsync (fflush+fsync for stdio) inside the timed region.
    pub fsync_in_timing: bool,
    /// `-c`: close inside the timed region.
    pub close_in_timing: bool,
    /// `-W`: lock the whole file (fcntl) for each pass.
    pub lock_file: bool,
    pub unit: OutputUnit,
    /// `-R`: the Excel-style text report after the table.
    pub excel_report: bool,
    /// `-j`: stride of test 5, in records.
    pub stride: u64,
    /// `-+p`: percentage of reads in test 8.
    pub mix_read_percent: u32,
    /// `-+n`: skip the second pass of each test.
    pub no_retest: bool,
    /// `--force`: allow using an existing file that ioz did not create.
    pub force: bool,
    pub data: DataPattern,
    /// Where the results go besides standard output.
    #[serde(default)]
    pub outputs: OutputFiles,
    /// How the plots and the HTML report draw values.
    #[serde(default)]
    pub plot_style: PlotStyle,
    /// Throughput mode (`-t`, `-l`/`-u`), if asked for.
    #[serde(default)]
    pub throughput: Option<ThroughputConfig>,
    /// `-+l`/`-+L`: lock each record (fcntl byte-range lock) around its operation.
    #[serde(default)]
    pub record_locking: bool,
    /// `--quiet`: no progress bar.
    #[serde(default)]
    pub quiet: bool,
    /// `-M`: the header shows the machine's settings after uname.
    #[serde(default)]
    pub environment_header: bool,
    /// `--destroy-data=ID` (repeatable): the block devices, named by WWN,
    /// serial, /dev/disk/by-id name or (lacking those) path, whose data the
    /// run may destroy.
    #[serde(default)]
    pub destroy_data: Vec<String>,
    /// Engines, cache and timing controls, verification (IOzone's I/O variations).
    #[serde(default)]
    pub variations: IoVariations,
    /// `--latency`, `--percentiles`, `-+z`, `-+O`, `-+T`: per-operation
    /// timing (left out of the JSON when none is asked for).
    #[serde(
        default,
        skip_serializing_if = "crate::model::latency::LatencyOptions::is_off"
    )]
    pub latency: crate::model::latency::LatencyOptions,
    /// `-X`/`-Y`: a summary of the telemetry files the run replays, filled in
    /// when they are read before the run (the command line only names them).
    /// The file size is then the largest end over them (`sizes` holds it, with
    /// the record size of the passes they do not drive); the table's reclen is 0.
    #[serde(default)]
    pub telemetry: Option<Telemetry>,
    /// `--interval D`: every pass and phase recorded in consecutive
    /// intervals of D ns (model::intervals); off when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ns: Option<u64>,
    /// `--runs N`: the whole plan is measured N times, one repetition after
    /// the other (a run saved before repetitions existed is one run).
    #[serde(default = "one_run")]
    pub runs: u32,
    /// `--label NAME`: the configuration being measured (e.g. `bcache-cfq`).
    #[serde(default)]
    pub label: Option<String>,
    /// `--rules iozone|io500|pts|none`: the run rules the run is stamped by.
    #[serde(default, skip_serializing_if = "is_no_rules")]
    pub rules: crate::model::rules::Rules,
    /// `--until-steady MAX`: the rounds (`runs`, at most MAX) stop once
    /// every cell's pass is steady (model::steady).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_steady: Option<u32>,
    /// `ioz fileop`, `ioz mdtest`: a metadata benchmark instead of
    /// IOzone's tests (which `tests` then leaves empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<crate::model::metadata::MetadataConfig>,
    /// `--history DIR`, `--no-history`: where the run is recorded. Not
    /// saved: it says where the run went, not what it measured.
    #[serde(skip)]
    pub history: HistoryChoice,
}

fn is_no_rules(rules: &crate::model::rules::Rules) -> bool {
    *rules == crate::model::rules::Rules::None
}

/// Where a run is recorded, as the command line says (the environment and
/// the default directory are asked in `history::locate`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HistoryChoice {
    /// `--history DIR`.
    pub dir: Option<PathBuf>,
    /// `--no-history`.
    pub off: bool,
}

fn one_run() -> u32 {
    1
}

impl RunConfig {
    /// `-I`: whether `pass` opens its file with O_DIRECT (not the stdio
    /// tests: [`Pass::direct_with_i`]).
    pub fn direct(&self, pass: Pass) -> bool {
        self.open.direct && pass.direct_with_i()
    }

    /// The distinct files the run uses, in worker order.
    pub fn run_paths(&self) -> Vec<PathBuf> {
        match &self.throughput {
            None => vec![self.path.clone()],
            Some(tp) => {
                let mut seen = std::collections::HashSet::new();
                (0..tp.max_worker_count())
                    .map(|i| tp.worker_path(&self.path, i))
                    .filter(|p| seen.insert(p.clone()))
                    .collect()
            }
        }
    }

    /// Who reads and who writes in test 8, the random mix.
    pub fn mix_roles(&self) -> MixRoles {
        MixRoles {
            readers: self.variations.mix_readers,
            truncate_writers: self.variations.mix_truncate_writers,
            read_percent: self.mix_read_percent,
        }
    }

    /// The share of test 8's operations (percent) that worker `worker` reads.
    pub fn mix_read_percent_of(&self, worker: u32) -> u32 {
        self.mix_roles().read_percent_of(worker)
    }

    /// Whether worker `worker` opens its file with O_TRUNC for test 8.
    pub fn truncates_in_mix(&self, worker: u32) -> bool {
        self.mix_roles().truncates(worker)
    }
}

/// Test 8's roles: `-+p` (the share of reads), `-+K n` (workers below n only
/// read, the others only write, as in IOzone) and `-+F` (those writers
/// truncate their files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixRoles {
    pub readers: Option<u32>,
    pub truncate_writers: bool,
    pub read_percent: u32,
}

impl MixRoles {
    /// The share of the mix's operations (percent) that worker `worker`
    /// reads: 100 or 0 with `-+K`, otherwise every worker mixes reads and
    /// writes in `-+p`'s proportion (ioz's mix).
    pub fn read_percent_of(&self, worker: u32) -> u32 {
        match self.readers {
            Some(readers) if worker < readers => 100,
            Some(_) => 0,
            None => self.read_percent,
        }
    }

    /// Whether worker `worker` opens its file with O_TRUNC (`-+F`: the
    /// mix's writer workers truncate).
    pub fn truncates(&self, worker: u32) -> bool {
        self.truncate_writers && self.read_percent_of(worker) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::SizeAxis;

    #[test]
    fn a_range_that_cannot_grow_has_one_value() {
        let r = |min, max, multiplier| {
            SizeAxis::Range {
                min,
                max,
                multiplier,
            }
            .values()
        };
        assert_eq!(r(1, u64::MAX, 0), vec![1]);
        assert_eq!(r(4, 64, 1), vec![4]);
        assert_eq!(r(0, 64, 2), vec![0]);
        assert_eq!(r(4, 64, 4), vec![4, 16, 64]);
        assert_eq!(r(u64::MAX / 2, u64::MAX, 2).len(), 2);
    }
}
