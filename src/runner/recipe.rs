//! What the run's options decide about each cell and each pass, asked once.
//!
//! A [`Recipe`] is built from the configuration (and the telemetry replay,
//! when there is one) before the first cell; for each cell it gives a
//! [`CellRecipe`] (buffer sizes, the write pool's data, where operations come
//! from) holding a [`PassRecipe`] per pass that runs (engine, open flags,
//! operations in flight, what is done before and after the clock, what is
//! timed, how data is checked, the bytes the pass must move). The runner
//! reads these and never asks the configuration the same question twice.

use std::path::{Path, PathBuf};

use crate::data::buffer::{self, AlignedBuf};
use crate::data::dedup::DedupModel;
use crate::data::pattern::{self, DisruptReads, IoOp, PROBE_PAGE, PatternOptions};
use crate::data::stamp;
use crate::data::telemetry::{self, Replay, ReplayOptions};
use crate::data::verify::record_bytes_for;
use crate::engine::OpenSpec;
use crate::engine::clock::Tsc;
use crate::error::{IoFailure, RunError};
use crate::model::config::{DataPattern, MixRoles, RunConfig, Sizes, ThroughputConfig};
use crate::model::engines::EngineChoice;
use crate::model::identity::FileIdentity;
use crate::model::metadata::MetadataConfig;
use crate::model::plan::{
    self, Cell, PassSize, Plan, expand, largest_replayed_op, pass_size, sequential_record,
};
use crate::model::variations::{DropCaches, MsyncMode, Verify};
use crate::model::workload::{Direction, Pass};
use crate::runner::timed::TimedExtras;
use crate::safety::test_file::TargetFile;
use crate::system::environment::purge_cache_bytes;
use crate::system::time::tsc_is_the_clocksource;

/// What a metadata benchmark's options decide (`ioz fileop`, `ioz mdtest`):
/// the benchmark and how many times it runs. Its runner reads nothing else
/// of the configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MetadataRecipe<'a> {
    pub benchmark: &'a MetadataConfig,
    /// `--runs` (mdtest's `-i`).
    pub runs: u32,
}

impl<'a> MetadataRecipe<'a> {
    /// The recipe of a metadata run; none for any other.
    pub fn of(config: &'a RunConfig) -> Option<MetadataRecipe<'a>> {
        config.metadata.as_ref().map(|benchmark| MetadataRecipe {
            benchmark,
            runs: config.runs,
        })
    }
}

/// The run-wide decisions, and the source of every cell's recipe.
pub(crate) struct Recipe<'a> {
    config: &'a RunConfig,
    /// The telemetry run's operations (None outside telemetry runs).
    replay: Option<&'a Replay>,
    /// What the telemetry run's passes take from the options.
    replay_options: ReplayOptions,
    /// Throughput mode disturbs more readers (-K) than single and auto mode.
    throughput: bool,
    /// The passes that run, in order.
    passes: Vec<Pass>,
    /// `-p`: the CPU cache to evict before each pass.
    purge: Option<CachePurge>,
    /// The per-operation clock of --latency, -Q and -+z, where the TSC may
    /// be used (not with -+O, which sleeps to monotonic deadlines).
    tsc: Option<Tsc>,
}

/// The TSC, calibrated once, when operations are timed one by one (--latency,
/// -Q, -+z) without -+O and the kernel keeps time with it; else none (the
/// loop then reads CLOCK_MONOTONIC).
fn op_clock(config: &RunConfig) -> Option<Tsc> {
    let l = &config.latency;
    let timed = l.histograms || l.iozone_histograms || config.variations.offset_latency_files;
    if !timed || l.rate_limit.is_some() || !tsc_is_the_clocksource() {
        return None;
    }
    Tsc::calibrate()
}

/// `-p`: walk a buffer twice the cache's size, one write per cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CachePurge {
    pub cache_bytes: u64,
    pub line_bytes: usize,
}

/// Where the write pool's bytes come from.
#[derive(Clone, Copy, Debug)]
enum PoolData {
    /// The run's data pattern (random or IOzone's), seeded per pool.
    Pattern(DataPattern),
    /// Dedup data: the worker's whole file image.
    Dedup(DedupModel),
}

impl<'a> Recipe<'a> {
    /// `replay` is the run's telemetry (it must be given when, and only when,
    /// the configuration replays telemetry files).
    pub fn new(config: &'a RunConfig, replay: Option<&'a Replay>) -> Recipe<'a> {
        debug_assert_eq!(config.telemetry.is_some(), replay.is_some());
        let v = &config.variations;
        let purge = v.purge_cpu_cache.then(|| CachePurge {
            cache_bytes: purge_cache_bytes(v.cpu_cache_bytes),
            line_bytes: v.cache_line_bytes.unwrap_or(64).max(1) as usize,
        });
        Recipe {
            config,
            replay: replay.filter(|_| config.telemetry.is_some()),
            replay_options: ReplayOptions {
                data: config.data,
                record_bytes: sequential_record(config),
                direct: config.open.direct,
            },
            throughput: config.throughput.is_some(),
            passes: plan::passes(config),
            purge,
            tsc: op_clock(config),
        }
    }

    /// The cells of the plan, in order (single and auto mode).
    pub fn plan(&self) -> Plan {
        expand(self.config)
    }

    /// Throughput mode's workers, files and controls (None in single and auto mode).
    pub fn throughput(&self) -> Option<&'a ThroughputConfig> {
        self.config.throughput.as_ref()
    }

    /// Throughput mode's one file and record size (None with several).
    pub fn single_sizes(&self) -> Option<(u64, u64)> {
        match self.config.sizes {
            Sizes::Single {
                file_bytes,
                record_bytes,
            } => Some((file_bytes, record_bytes)),
            Sizes::Auto(_) => None,
        }
    }

    /// `-w`: the test files stay after the run.
    pub fn keeps_files(&self) -> bool {
        self.config.keep_file
    }

    /// `--percentiles`: those a latency summary shows.
    pub fn percentiles(&self) -> &'a [f64] {
        self.config.latency.percentiles()
    }

    /// The test file of the run, or in throughput mode of `worker` (`-F`,
    /// or `-f` numbered by worker).
    pub fn test_path(&self, worker: u32) -> PathBuf {
        match &self.config.throughput {
            Some(tp) => tp.worker_path(&self.config.path, worker),
            None => self.config.path.clone(),
        }
    }

    /// The test file at `path`, checked against what the run may write.
    pub fn check_target(&self, path: &Path) -> Result<TargetFile, RunError> {
        TargetFile::check_for_run(path, self.config)
    }

    /// -+V/-+L across ranks: the job's one file at `path`, which rank 0
    /// made (`shared` is its identity there).
    pub fn join_target(
        &self,
        path: &Path,
        shared: FileIdentity,
        same_host: bool,
    ) -> Result<TargetFile, IoFailure> {
        TargetFile::join(path, self.config, shared, same_host)
    }

    /// `--runs`: how many times the whole plan is measured (a config saved
    /// without the field, or a zero, is one run).
    pub fn runs(&self) -> u32 {
        self.config.runs.max(1)
    }

    /// `--until-steady`: the rounds end once every cell is steady.
    pub fn until_steady(&self) -> bool {
        self.config.until_steady.is_some()
    }

    /// Everything the passes of `cell` need.
    pub fn cell(&self, cell: Cell) -> CellRecipe<'_> {
        let config = self.config;
        let v = &config.variations;
        let pool_data = match DedupModel::new(&v.dedup) {
            // Dedup and telemetry are never combined (the CLI refuses it).
            Some(model) if self.replay.is_none() => PoolData::Dedup(model),
            _ => PoolData::Pattern(config.data),
        };
        let passes: Vec<PassRecipe> = self
            .passes
            .iter()
            .map(|&pass| self.pass(&cell, pass, &pool_data))
            .collect();
        // io_uring and AIO keep writes in flight: each its own pool slot.
        let in_flight = passes
            .iter()
            .filter(|p| !p.only_reads())
            .map(PassRecipe::slots)
            .max()
            .unwrap_or(1);
        let (pool_bytes, window_bytes) = if self.replay.is_some() {
            let largest = largest_replayed_op(config, &cell);
            let pool = telemetry::pool_bytes(largest, config.data, cell.file_bytes, in_flight);
            (pool, pool)
        } else if matches!(pool_data, PoolData::Dedup(_)) {
            let image = cell.pass_bytes() as usize;
            (image, image)
        } else {
            (
                buffer::pool_bytes(&cell, config.data, v.multi_buffer, in_flight),
                buffer::write_window_bytes(&cell, config.data, v.multi_buffer, in_flight),
            )
        };
        let patterns = PatternOptions {
            stride: config.stride,
            mix_read_percent: config.mix_read_percent,
            sequential_mix: v.sequential_mix,
            window_bytes,
            disrupt: v.disrupt_reads.then_some(DisruptReads {
                // O_DIRECT reads must be aligned: IOzone reads a page with -I.
                probe_len: if config.open.direct {
                    PROBE_PAGE as usize
                } else {
                    1
                },
                throughput: self.throughput,
            }),
            multi_buffer: v.multi_buffer,
            queued_writes: in_flight > 1,
        };
        CellRecipe {
            recipe: self,
            cell,
            pool_bytes,
            pool_data,
            patterns,
            passes,
        }
    }

    fn pass(&self, cell: &Cell, pass: Pass, pool_data: &PoolData) -> PassRecipe {
        let config = self.config;
        let v = &config.variations;
        let engine = self.engine_for(pass);
        let reads = pass.direction() != Direction::Write;
        let writes = pass.direction() != Direction::Read;
        let mut flags = 0;
        if config.direct(pass) {
            flags |= libc::O_DIRECT;
        }
        if config.open.sync_all {
            flags |= libc::O_RSYNC | libc::O_SYNC;
        }
        if writes && config.open.sync_writes {
            flags |= libc::O_SYNC;
        }
        if writes && config.open.dsync_writes {
            flags |= libc::O_DSYNC;
        }
        let size = pass_size(config, cell, pass);
        let open = OpenSpec {
            writable: writes,
            // IOzone's random read opens read-write in single and auto
            // mode (its throughput readers do not); never a file -+E only reads.
            read_write: pass == Pass::RandomRead && !self.throughput && !v.existing_file,
            create: false,
            truncate: pass.truncates() && !v.no_truncate,
            extra_flags: flags,
            // A telemetry pass's "record" is its largest operation.
            record_bytes: size.largest as usize,
            file_bytes: self.bytes_reads_need(cell),
            depth: engine.depth(v.iodepth),
            msync: v.msync,
            madvise: v.madvise,
            aio_no_copy: v.aio_no_copy,
            // The file's identity is the target's, added where it is opened.
            expect: None,
        };
        let check = match (pool_data, v.verify) {
            (PoolData::Dedup(_), _) => CheckKind::Image,
            // The default data: every block a write sends stamped (data::stamp).
            (PoolData::Pattern(DataPattern::Random), Verify::None) if writes => {
                CheckKind::Stamped {
                    tag: stamp::pass_tag(pass as u64),
                }
            }
            (_, Verify::None) => CheckKind::Plain,
            (_, verify) => CheckKind::Verify {
                verify,
                slide: v.multi_buffer,
            },
        };
        // IOzone's data is IOzone's one buffer: reads land where writes come
        // from (the file holds what that buffer holds, so its content stays
        // as it is). Not in throughput mode, whose workers keep their own
        // buffers, nor for a replay, whose operations the pool need not fit.
        let reads_into_pool = !writes
            && !self.throughput
            && self.replay.is_none()
            && matches!(pool_data, PoolData::Pattern(DataPattern::Iozone))
            && check == CheckKind::Plain;
        PassRecipe {
            pass,
            engine,
            open,
            record_locking: config.record_locking,
            direct: config.direct(pass),
            setup: Setup {
                purge: self.purge,
                write_page_first: v.mix_mmap_file_io && writes,
                drop_caches: if reads {
                    v.drop_caches
                } else {
                    DropCaches::None
                },
                lock_file: config.lock_file,
                touch_buffers: self.purge.is_none() && !v.multi_buffer,
            },
            extras: TimedExtras {
                sync: config.fsync_in_timing,
                close: config.close_in_timing,
            },
            // Untimed, as IOzone does after every pass of single and auto
            // mode, reads too (strace_I_stdio.txt: two fsyncs a pass).
            sync_after: !config.fsync_in_timing && (writes || !self.throughput),
            compute_delay_ns: v.compute_delay_ms.unwrap_or(0) * 1_000_000,
            size,
            check,
            reads_into_pool,
            record_latencies: v.offset_latency_files,
            latency_histogram: config.latency.histograms,
            iozone_bands: config.latency.iozone_histograms,
            pace_ns: config.latency.pace_ns(),
            tsc: self.tsc,
            interval_ns: config.interval_ns,
            counts_operations: self.replay.is_some(),
            mix_roles: (pass == Pass::RandomMix).then(|| config.mix_roles()),
        }
    }

    /// The engine a pass runs on: its own, unless --engine (or -B, -H, -k)
    /// picks one for the tests that move records with read/write or
    /// pread/pwrite. The stdio and vectored tests keep their engines: that is
    /// what they measure.
    fn engine_for(&self, pass: Pass) -> EngineChoice {
        pass.engine().or_chosen(self.config.variations.engine)
    }

    /// Bytes a reading pass reaches: whole records, or with telemetry
    /// anywhere up to the file size.
    fn bytes_reads_need(&self, cell: &Cell) -> u64 {
        if self.replay.is_some() {
            cell.file_bytes
        } else {
            cell.pass_bytes()
        }
    }
}

/// Everything the passes of one cell need.
pub(crate) struct CellRecipe<'r> {
    recipe: &'r Recipe<'r>,
    pub cell: Cell,
    /// Bytes of each write pool (one per worker).
    pub pool_bytes: usize,
    pool_data: PoolData,
    patterns: PatternOptions,
    /// One per pass that runs, in order.
    pub passes: Vec<PassRecipe>,
}

impl CellRecipe<'_> {
    /// `--percentiles`: those a latency summary shows.
    pub fn percentiles(&self) -> &[f64] {
        self.recipe.percentiles()
    }

    /// The test file of `worker` (throughput mode) or of the run.
    pub fn test_path(&self, worker: u32) -> PathBuf {
        self.recipe.test_path(worker)
    }

    /// What the writes of `worker` send, made before any clock starts: the
    /// run's data (filled from `seed`), or with dedup options the worker's
    /// whole file image, which writes take at their own offsets.
    pub fn write_pool(&self, worker: u32, seed: u64) -> AlignedBuf {
        let mut pool = AlignedBuf::zeroed(self.pool_bytes);
        self.fill_pool(&mut pool, worker, seed);
        pool
    }

    /// [`Self::write_pool`] in a buffer kept from an earlier cell: every
    /// byte of `pool` (`pool_bytes` long) written as a new pool's would be.
    pub fn fill_pool(&self, pool: &mut [u8], worker: u32, seed: u64) {
        debug_assert_eq!(pool.len(), self.pool_bytes);
        match self.pool_data {
            PoolData::Dedup(model) => model.fill_file(pool, self.cell.record_bytes, worker),
            PoolData::Pattern(data) => buffer::fill(pool, data, seed),
        }
    }

    /// A read buffer for `slots` operations in flight.
    pub fn read_buf(&self, slots: usize) -> AlignedBuf {
        AlignedBuf::zeroed(self.read_buf_bytes(slots))
    }

    /// Bytes of a read buffer for `slots` operations in flight.
    pub fn read_buf_bytes(&self, slots: usize) -> usize {
        if self.recipe.replay.is_some() {
            largest_replayed_op(self.recipe.config, &self.cell) * slots
        } else {
            buffer::read_buf_bytes(
                &self.cell,
                slots,
                self.recipe.config.variations.multi_buffer,
            )
        }
    }

    /// The most operations any pass of the cell keeps in flight.
    pub fn max_slots(&self) -> usize {
        self.passes.iter().map(PassRecipe::slots).max().unwrap_or(1)
    }

    /// The operations of `pass`, built before the clock: the replayed
    /// telemetry file's, or the test's access pattern with `read_percent`
    /// of the random mix's operations reading.
    pub fn ops(&self, pass: &PassRecipe, read_percent: u32) -> Vec<IoOp> {
        match self.recipe.replay {
            Some(replay) => telemetry::build_ops(
                &self.recipe.replay_options,
                replay,
                self.cell.file_bytes,
                pass.pass,
                self.pool_bytes,
            ),
            None => pattern::build_ops(
                pass.pass,
                &self.cell,
                &PatternOptions {
                    mix_read_percent: read_percent,
                    ..self.patterns
                },
            ),
        }
    }

    /// Bytes a file must hold before a reading pass.
    pub fn bytes_reads_need(&self) -> u64 {
        self.recipe.bytes_reads_need(&self.cell)
    }

    /// `-+q`: seconds to sleep after every pass (outside any timing).
    pub fn delay_between_tests_s(&self) -> u64 {
        self.recipe.config.variations.delay_between_tests_s
    }

    /// Whether ioz may only read the file (`-+E`).
    pub fn read_only(&self) -> bool {
        self.recipe.config.variations.existing_file
    }

    /// How the untimed fill before a reading test opens the file.
    pub fn fill_spec(&self) -> OpenSpec {
        OpenSpec {
            writable: true,
            read_write: false,
            create: false,
            truncate: false,
            extra_flags: if self.recipe.config.open.direct {
                libc::O_DIRECT
            } else {
                0
            },
            record_bytes: self.cell.record_bytes as usize,
            file_bytes: self.cell.pass_bytes(),
            depth: 1,
            msync: MsyncMode::None,
            madvise: None,
            aio_no_copy: false,
            // The file's identity is the target's, added where it is opened.
            expect: None,
        }
    }

    /// The untimed fill of a file now `len` bytes long: every record from
    /// its pool slot, or with telemetry only the tail its reads reach.
    pub fn fill_ops(&self, len: u64) -> Vec<IoOp> {
        if self.recipe.replay.is_some() {
            return telemetry::fill_ops(
                &self.recipe.replay_options,
                self.cell.file_bytes,
                len,
                self.pool_bytes,
            );
        }
        let whole_records = PatternOptions {
            stride: 1,
            mix_read_percent: 0,
            sequential_mix: true,
            window_bytes: self.patterns.window_bytes,
            disrupt: None,
            multi_buffer: false,
            queued_writes: false,
        };
        pattern::build_ops(Pass::Write, &self.cell, &whole_records)
    }

    /// The stamps of the untimed fill, with the default data: those of the
    /// write test's first pass, which the fill stands in for.
    pub fn fill_stamps(&self) -> Option<stamp::Stamped> {
        matches!(self.pool_data, PoolData::Pattern(DataPattern::Random))
            .then(|| stamp::Stamped::new(stamp::pass_tag(Pass::Write as u64)))
    }

    /// The record size that verification reports name records by.
    pub fn verified_record_bytes(&self, pass: &PassRecipe, ops: &[IoOp]) -> Option<usize> {
        record_bytes_for(pass.pass, &self.recipe.config.sizes, ops)
    }
}

/// How one pass runs.
#[derive(Clone, Debug)]
pub(crate) struct PassRecipe {
    pub pass: Pass,
    pub engine: EngineChoice,
    /// How the pass opens the file (for its first, or only, worker).
    pub open: OpenSpec,
    /// `-+l`/`-+L`: an fcntl lock around each record.
    pub record_locking: bool,
    /// `-I`: an EINVAL at open means the file system refuses O_DIRECT.
    pub direct: bool,
    /// Untimed, before the clock.
    pub setup: Setup,
    /// What the timed region includes besides the operations (-e, -c).
    pub extras: TimedExtras,
    /// Untimed, after the clock: the engine's sync (unless -e timed it),
    /// after every pass of single and auto mode as IOzone's, a throughput
    /// phase's writers only.
    pub sync_after: bool,
    /// `-J`: busy-wait before every operation, left out of the time.
    pub compute_delay_ns: u64,
    /// What a whole pass moves: the byte count it is checked against.
    pub size: PassSize,
    pub check: CheckKind,
    /// `--data iozone`, a pass that only reads: its reads land in the pool,
    /// as IOzone reads into the one buffer it writes from (single and auto
    /// mode, where the pool is as large as the reads need).
    pub reads_into_pool: bool,
    /// `-Q`: time every operation.
    pub record_latencies: bool,
    /// `--latency`: every operation in a histogram.
    pub latency_histogram: bool,
    /// `-+z`: every operation in IOzone's buckets.
    pub iozone_bands: bool,
    /// `-+O`: the least time from one operation's start to the next's, ns.
    pub pace_ns: u64,
    /// The TSC as the per-operation clock, where the kernel trusts it.
    pub tsc: Option<Tsc>,
    /// `--interval`: the loop's intervals, ns.
    pub interval_ns: Option<u64>,
    /// Telemetry: a replayed operation is not a record, so throughput
    /// workers count operations instead of whole records.
    pub counts_operations: bool,
    /// The random mix's reader and writer roles (test 8 only).
    mix_roles: Option<MixRoles>,
}

/// Untimed work before the clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Setup {
    pub purge: Option<CachePurge>,
    /// `-Z`: write a page with write() first (mixing mmap and file I/O).
    pub write_page_first: bool,
    /// `--drop-caches` (reading passes only).
    pub drop_caches: DropCaches,
    /// `-W`: hold an fcntl lock on the whole file over the pass.
    pub lock_file: bool,
    /// Bring the buffers the pass uses into the CPU's caches (data::buffer::
    /// touch), as IOzone does unless -p or -m: -p evicts them again, and
    /// -m's work area slides through memory so as to miss them.
    pub touch_buffers: bool,
}

/// How writes get their data and reads are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CheckKind {
    /// Writes send pool slices as they are (IOzone's data); reads are not checked.
    Plain,
    /// The default data: writes send pool slices with every 4 KiB block of
    /// the file stamped with its number (data::stamp); reads are not checked.
    Stamped { tag: u64 },
    /// `-V`/`-+d`: writes send the pattern and every byte read is checked.
    Verify { verify: Verify, slide: bool },
    /// Dedup data: writes send the file image at their offsets.
    Image,
}

impl PassRecipe {
    /// Operations the engine keeps in flight (one read slot each).
    pub fn slots(&self) -> usize {
        self.open.depth as usize
    }

    /// The share of the mix's operations (percent) that worker `worker`
    /// reads. With `-+K n` the workers have roles, as in IOzone: those below
    /// n only read (100) and the others only write (0). Otherwise every
    /// worker mixes reads and writes in `-+p`'s proportion (ioz's mix).
    /// The share of the mix's operations (percent) that worker `worker`
    /// reads ([`MixRoles`]); outside the mix no operation has a choice: 0.
    pub fn read_percent_of(&self, worker: u32) -> u32 {
        self.mix_roles.map_or(0, |r| r.read_percent_of(worker))
    }

    /// How worker `worker` opens its file: `-+F` truncates the mix's writers.
    pub fn open_for(&self, worker: u32) -> OpenSpec {
        let truncates = self.mix_roles.is_some_and(|r| r.truncates(worker));
        OpenSpec {
            truncate: self.open.truncate || truncates,
            ..self.open
        }
    }

    /// Records a worker that moved `bytes` in `ops_done` operations counts.
    pub fn records_done(&self, bytes: u64, ops_done: usize, record_bytes: u64) -> u64 {
        if self.counts_operations {
            ops_done as u64
        } else {
            bytes / record_bytes.max(1)
        }
    }

    /// Whether the pass only reads.
    pub fn only_reads(&self) -> bool {
        !self.open.writable
    }
}
