//! Before any I/O: will what ioz builds in memory fit? Everything a run
//! holds grows with its options, and all of it is made before the clock:
//!
//! - the operation list of each pass (32 bytes an operation, one list, or
//!   one per role in the mix with `-+K`; forked workers share the parent's),
//!   with the random order it is built from, and the untimed fill's list;
//! - per worker: the write pool (with dedup data the file's whole image),
//!   the read buffer (a slot per operation in flight), `-V`/`-+d`'s buffer;
//! - `-Q`: a latency per operation and worker, kept, handed over (the
//!   shared area of throughput mode) and turned into records for the files;
//! - `-p`: a buffer twice the CPU cache, in every worker at once;
//! - `-X`/`-Y`: the telemetry files' operations, for the whole run.
//!
//! The run is refused when the most it holds at once is more than half of
//! the memory available (or of `ulimit -v`), naming the part that weighs
//! most and what to change. Dedup images keep their own message.

use std::fmt::Write as _;

use crate::data::buffer;
use crate::data::pattern::{IoOp, build_bytes_per_record};
use crate::data::telemetry::{TraceOp, pool_bytes as telemetry_pool_bytes};
use crate::error::RunError;
use crate::model::config::{RunConfig, Sizes};
use crate::model::plan::{self, Cell, largest_replayed_op, pass_size, sequential_record};
use crate::model::units::Size;
use crate::model::variations::Verify;
use crate::model::workload::{Direction, Pass};
use crate::system::environment::{parse_mem_available, purge_cache_bytes};

/// Bytes of one operation in a list.
const OP_BYTES: u64 = std::mem::size_of::<IoOp>() as u64;
/// Bytes of one telemetry operation as loaded.
const TRACE_OP_BYTES: u64 = std::mem::size_of::<TraceOp>() as u64;
/// Bytes `-Q` keeps per operation and worker: the latency itself (8), its
/// copy handed to the parent or the record made of it for the files (24).
const LATENCY_BYTES: u64 = 8 + 24;

/// Bytes of dedup images alive at once at the largest moment of the run: one
/// per worker, as large as the worker's file.
pub fn image_bytes_needed(config: &RunConfig) -> u64 {
    match (&config.throughput, &config.sizes) {
        (
            None,
            Sizes::Single {
                file_bytes,
                record_bytes,
            },
        ) => Cell {
            file_bytes: *file_bytes,
            record_bytes: *record_bytes,
        }
        .pass_bytes(),
        (None, Sizes::Auto(auto)) => auto.file_sizes.values().into_iter().max().unwrap_or(0),
        (
            Some(tp),
            Sizes::Single {
                file_bytes,
                record_bytes,
            },
        ) => tp
            .counts()
            .map(|(n, job)| {
                let cell = Cell {
                    file_bytes: tp.worker_file_bytes(*file_bytes, *record_bytes, job),
                    record_bytes: *record_bytes,
                };
                cell.pass_bytes().saturating_mul(n as u64)
            })
            .max()
            .unwrap_or(0),
        (Some(_), Sizes::Auto(_)) => 0,
    }
}

/// What a run may hold in memory: half of what it could have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The most the run may hold.
    pub cap: u64,
    /// What the cap is half of, for the message ("the 8.0 GiB available").
    pub of: String,
}

impl Budget {
    /// Half of the smaller of MemAvailable and the address-space limit
    /// (`ulimit -v`); None when neither is known (no /proc: nothing to
    /// judge by).
    pub fn of_this_machine() -> Option<Budget> {
        let available = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| parse_mem_available(&m));
        let address_space = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_AS)
            .ok()
            .map(|(soft, _)| soft)
            .filter(|&soft| soft != nix::sys::resource::RLIM_INFINITY);
        Budget::half_of(available, address_space)
    }

    fn half_of(available: Option<u64>, address_space: Option<u64>) -> Option<Budget> {
        let (whole, of) = match (available, address_space) {
            (Some(a), Some(l)) if l < a => (
                l,
                format!("the {:.1} address-space limit (ulimit -v)", Size(l)),
            ),
            (Some(a), _) => (a, format!("the {:.1} available", Size(a))),
            (None, Some(l)) => (
                l,
                format!("the {:.1} address-space limit (ulimit -v)", Size(l)),
            ),
            (None, None) => return None,
        };
        Some(Budget { cap: whole / 2, of })
    }
}

/// Refuses, before anything is created, a run whose dedup images or whole
/// footprint would not fit in its [`Budget`].
pub fn check_memory(config: &RunConfig) -> Result<(), RunError> {
    let Some(budget) = Budget::of_this_machine() else {
        return Ok(());
    };
    if config.variations.dedup.any() {
        memory_verdict(config, image_bytes_needed(config), &budget)?;
    }
    footprint_verdict(&footprint(config), &budget)
}

fn memory_verdict(config: &RunConfig, needed: u64, budget: &Budget) -> Result<(), RunError> {
    if needed <= budget.cap {
        return Ok(());
    }
    let workers = match &config.throughput {
        Some(_) => " (one file image per worker)",
        None => "",
    };
    Err(RunError::Refused(format!(
        "dedup data (-+w/-+y/-+C) is built in memory before the clock: the run needs {:.1}{workers} \
         but only {:.1} may be used (half of {}); use smaller files (-s, -g) or fewer workers",
        Size(needed),
        Size(budget.cap),
        budget.of
    )))
}

/// What a run holds at its fullest moment, part by part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Operation lists, and what building them takes beside them.
    pub operations: u64,
    /// Write pools, read buffers and verification buffers of every worker.
    pub buffers: u64,
    /// `-Q`'s latencies.
    pub latencies: u64,
    /// `-p`'s eviction buffers.
    pub purge: u64,
    /// The telemetry files' operations.
    pub traces: u64,
    /// The moment: which pass (None for the fill before a reading test),
    /// how many operations its list holds, and how many workers run.
    pub pass: Option<Pass>,
    pub ops: u64,
    pub workers: u32,
    /// Whether a telemetry file drives the pass, and whether the run
    /// replays any (for what to change).
    pub replayed: bool,
    pub telemetry: bool,
}

impl Footprint {
    pub fn total(&self) -> u64 {
        self.operations
            .saturating_add(self.buffers)
            .saturating_add(self.latencies)
            .saturating_add(self.purge)
            .saturating_add(self.traces)
    }
}

/// The run's fullest moment: the largest [`Footprint`] over its cells (or
/// worker counts) and passes.
pub fn footprint(config: &RunConfig) -> Footprint {
    let mut fullest = Footprint::default();
    for (cell, workers) in moments(config) {
        for moment in cell_moments(config, cell, workers) {
            if moment.total() > fullest.total() {
                fullest = moment;
            }
        }
    }
    fullest
}

/// The cells a run goes through, each with how many workers run it.
fn moments(config: &RunConfig) -> Vec<(Cell, u32)> {
    match (&config.throughput, &config.sizes) {
        (
            Some(tp),
            Sizes::Single {
                file_bytes,
                record_bytes,
            },
        ) => tp
            .counts()
            .map(|(n, job)| {
                let cell = Cell {
                    file_bytes: tp.worker_file_bytes(*file_bytes, *record_bytes, job),
                    record_bytes: *record_bytes,
                };
                (cell, n)
            })
            .collect(),
        (Some(_), Sizes::Auto(_)) => Vec::new(),
        (None, _) => plan::expand(config)
            .cells
            .into_iter()
            .map(|c| (c, 1))
            .collect(),
    }
}

/// Every moment of one cell: each pass that runs, and the fill before the
/// first reading test.
fn cell_moments(config: &RunConfig, cell: Cell, workers: u32) -> Vec<Footprint> {
    let v = &config.variations;
    let telemetry = config.telemetry.is_some();
    let w = workers as u64;
    let slots = v.engine.map_or(1, |e| e.depth(v.iodepth)) as usize;
    // Writes in flight take a pool slot each (data::stamp): as the recipe,
    // those of the passes that write on the queued engine.
    let queued_writes = plan::passes(config)
        .iter()
        .any(|p| p.direction() != Direction::Read && p.engine().or_chosen(v.engine).is_queued());
    let writes_in_flight = if queued_writes { slots } else { 1 };
    let pool = if telemetry {
        telemetry_pool_bytes(
            largest_replayed_op(config, &cell),
            config.data,
            cell.file_bytes,
            writes_in_flight,
        )
    } else if v.dedup.any() {
        cell.pass_bytes() as usize
    } else {
        buffer::pool_bytes(&cell, config.data, v.multi_buffer, writes_in_flight)
    } as u64;
    let read_buf = if telemetry {
        largest_replayed_op(config, &cell).saturating_mul(slots)
    } else {
        buffer::read_buf_bytes(&cell, slots, v.multi_buffer)
    } as u64;
    // -V/-+d write from their own buffer: at most a pool's worth.
    let verify = if v.verify == Verify::None { 0 } else { pool };
    let per_worker = pool.saturating_add(read_buf).saturating_add(verify);
    let traces = config.telemetry.as_ref().map_or(0, |t| {
        t.traces()
            .map(|(_, trace)| trace.ops.saturating_mul(TRACE_OP_BYTES))
            .fold(0, u64::saturating_add)
    });
    let purge = if v.purge_cpu_cache {
        purge_bytes(config).saturating_mul(2).saturating_mul(w)
    } else {
        0
    };
    let passes = plan::passes(config);
    let mut out: Vec<Footprint> = passes
        .iter()
        .map(|&pass| {
            let ops = pass_size(config, &cell, pass).ops;
            let replayed = config
                .telemetry
                .as_ref()
                .is_some_and(|t| t.trace_for(pass).is_some());
            let lists = if pass == Pass::RandomMix {
                mix_lists(config, workers)
            } else {
                1
            };
            // Telemetry passes are replayed or sequential: no order to build.
            let build = if telemetry {
                0
            } else {
                build_bytes_per_record(
                    pass.pattern(),
                    pass.direction() == Direction::Mixed,
                    v.sequential_mix,
                    ops,
                )
                .saturating_mul(ops)
            };
            Footprint {
                operations: OP_BYTES
                    .saturating_mul(ops)
                    .saturating_mul(lists)
                    .saturating_add(build),
                buffers: per_worker.saturating_mul(w),
                latencies: if v.offset_latency_files {
                    LATENCY_BYTES.saturating_mul(ops).saturating_mul(w)
                } else {
                    0
                },
                purge,
                traces,
                pass: Some(pass),
                ops,
                workers,
                replayed,
                telemetry,
            }
        })
        .collect();
    // Before the first reading test, untimed: the whole file written from
    // a list of its own (one file at a time in throughput mode).
    if passes.iter().any(|p| p.test().needs_existing_data()) {
        let ops = if telemetry {
            cell.file_bytes.div_ceil(sequential_record(config))
        } else {
            cell.records()
        };
        out.push(Footprint {
            operations: OP_BYTES.saturating_mul(ops),
            buffers: per_worker,
            traces,
            pass: None,
            ops,
            workers: 1,
            telemetry,
            ..Footprint::default()
        });
    }
    out
}

/// Operation lists of the random mix: one per role (`-+K`: readers and
/// writers), else one.
fn mix_lists(config: &RunConfig, workers: u32) -> u64 {
    let roles = config.mix_roles();
    let readers = (0..workers).any(|w| roles.read_percent_of(w) == 100);
    let writers = (0..workers).any(|w| roles.read_percent_of(w) == 0);
    if config.throughput.is_some() && roles.readers.is_some() && readers && writers {
        2
    } else {
        1
    }
}

/// `-p`'s cache size, as the runner takes it.
fn purge_bytes(config: &RunConfig) -> u64 {
    purge_cache_bytes(config.variations.cpu_cache_bytes)
}

fn footprint_verdict(f: &Footprint, budget: &Budget) -> Result<(), RunError> {
    let total = f.total();
    if total <= budget.cap {
        return Ok(());
    }
    let (part, advice) = heaviest_part(f);
    Err(RunError::Refused(format!(
        "the run would hold {:.1} in memory at once ({part}) but only {:.1} may be used (half of {}); \
         {advice}",
        Size(total),
        Size(budget.cap),
        budget.of
    )))
}

/// The part of `f` that weighs most, described with its figures, and what
/// to change to make it smaller.
fn heaviest_part(f: &Footprint) -> (String, String) {
    let parts = [f.operations, f.buffers, f.latencies, f.purge, f.traces];
    let heaviest = (0..parts.len()).max_by_key(|&i| parts[i]).unwrap_or(0);
    let bytes = format!("{:.1}", Size(parts[heaviest]));
    let each_worker = if f.workers > 1 {
        format!(" for each of {} workers", f.workers)
    } else {
        String::new()
    };
    let which = match f.pass {
        Some(pass) => format!("the {} pass", pass.name()),
        None => "the fill before the reading tests".to_string(),
    };
    let mut part = String::new();
    let advice = match heaviest {
        0 => {
            let _ = write!(
                part,
                "{bytes} of it for the operation list of {which}: {} operations of \
                 {OP_BYTES} bytes, made before the clock",
                f.ops
            );
            if f.replayed {
                "use shorter telemetry files (-X, -Y)".to_string()
            } else if f.telemetry {
                "use larger records (-r) for the pass no telemetry file drives".to_string()
            } else {
                "use larger records (-r) or a smaller file (-s)".to_string()
            }
        }
        1 => {
            let _ = write!(
                part,
                "{bytes} of it for the write pools and read buffers{each_worker}"
            );
            "use fewer operations in flight (--iodepth), smaller records (-r) or fewer \
             workers"
                .to_string()
        }
        2 => {
            let _ = write!(
                part,
                "{bytes} of it for -Q's latencies of {which}: {} operations of \
                 {LATENCY_BYTES} bytes{each_worker}",
                f.ops
            );
            "use larger records (-r), a smaller file (-s) or fewer workers, or leave out -Q"
                .to_string()
        }
        3 => {
            let _ = write!(
                part,
                "{bytes} of it for -p's buffers, twice the CPU cache{each_worker}"
            );
            "give a smaller cache size (-S) or fewer workers".to_string()
        }
        _ => {
            let _ = write!(
                part,
                "{bytes} of it for the telemetry files' operations ({TRACE_OP_BYTES} bytes \
                 each)"
            );
            "use shorter telemetry files (-X, -Y)".to_string()
        }
    };
    (part, advice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;

    fn budget(cap: u64) -> Budget {
        Budget {
            cap,
            of: format!("the {:.1} available", Size(cap * 2)),
        }
    }

    #[test]
    fn memory_beyond_half_of_what_is_available_is_refused_with_the_sizes() {
        let c = test_config(&["-s", "64m", "-+w", "50", "-i", "0"]);
        assert_eq!(image_bytes_needed(&c), 64 << 20);
        assert!(memory_verdict(&c, 64 << 20, &budget(64 << 20)).is_ok());
        let err = memory_verdict(&c, 64 << 20, &budget(50 << 20)).unwrap_err();
        assert_eq!(err.exit(), crate::error::Exit::Usage);
        let msg = err.to_string();
        assert!(
            msg.contains("needs 64.0 MiB") && msg.contains("50.0 MiB may be used"),
            "{msg}"
        );
        let t = test_config(&["-t", "3", "-s", "1m", "-+w", "50", "-i", "0"]);
        assert_eq!(image_bytes_needed(&t), 3 << 20);
        let k = test_config(&["-l", "1", "-u", "4", "-s", "4m", "-+k", "-+y", "9"]);
        assert_eq!(image_bytes_needed(&k), 4 << 20);
    }

    #[test]
    fn the_budget_is_half_of_the_smaller_of_memory_and_ulimit() {
        assert_eq!(Budget::half_of(None, None), None);
        let b = Budget::half_of(Some(8 << 30), None).unwrap();
        assert_eq!((b.cap, b.of.as_str()), (4 << 30, "the 8.0 GiB available"));
        let b = Budget::half_of(Some(8 << 30), Some(2 << 30)).unwrap();
        assert_eq!(b.cap, 1 << 30);
        assert_eq!(b.of, "the 2.0 GiB address-space limit (ulimit -v)");
        assert_eq!(
            Budget::half_of(Some(1 << 30), Some(2 << 30)).unwrap().cap,
            512 << 20
        );
    }

    #[test]
    fn byte_records_on_a_large_file_are_refused_for_their_operation_list() {
        // -r 1b -s 4g -i 0: 2^32 operations of 32 bytes (it aborted asking
        // for 34 GB).
        let c = test_config(&["-r", "1b", "-s", "4g", "-i", "0"]);
        let f = footprint(&c);
        assert_eq!(f.ops, 4 << 30);
        assert_eq!(f.operations, 32 * (4 << 30));
        let msg = footprint_verdict(&f, &budget(8 << 30))
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "the run would hold 128.0 GiB in memory at once (128.0 GiB of it for the \
             operation list of the write pass: 4294967296 operations of 32 bytes, made \
             before the clock) but only 8.0 GiB may be used (half of the 16.0 GiB \
             available); use larger records (-r) or a smaller file (-s)"
        );
        // 4 KiB records: 32 MiB of list for the same file.
        let c = test_config(&["-s", "4g", "-i", "0"]);
        assert_eq!(footprint(&c).operations, 32 << 20);
        assert!(footprint_verdict(&footprint(&c), &budget(8 << 30)).is_ok());
    }

    #[test]
    fn random_passes_count_their_order_and_the_mix_its_choice() {
        let c = test_config(&["-s", "64m", "-i", "2"]);
        let records = 16 << 10;
        assert_eq!(footprint(&c).operations, records * (32 + 4));
        let c = test_config(&["-s", "64m", "-i", "8"]);
        assert_eq!(footprint(&c).operations, records * (32 + 4 + 4 + 1));
        // -+B: the mix in order, with its choice of reads only.
        let c = test_config(&["-s", "64m", "-i", "8", "-+B"]);
        assert_eq!(footprint(&c).operations, records * (32 + 4 + 1));
        // -+K: readers and writers each have a list.
        let c = test_config(&["-t", "3", "-s", "64m", "-i", "8", "-+K", "1"]);
        assert_eq!(footprint(&c).operations, records * (2 * 32 + 4 + 4 + 1));
    }

    #[test]
    fn workers_multiply_buffers_latencies_and_purges() {
        let c = test_config(&["-t", "4", "-s", "1m", "-i", "0", "-Q", "-p", "-S", "1024"]);
        let f = footprint(&c);
        let records = 256;
        assert_eq!(f.workers, 4);
        assert_eq!(f.latencies, 4 * 32 * records);
        assert_eq!(f.purge, 4 * 2 * (1 << 20));
        // Each worker: a 1 MiB pool and a read slot for the largest
        // operation (pwritev's 16 records).
        assert_eq!(f.buffers, 4 * ((1 << 20) + (64 << 10)));
        // --iodepth: a read slot per operation in flight.
        let c = test_config(&[
            "-s",
            "64m",
            "-r",
            "16m",
            "-i",
            "1",
            "--engine",
            "io_uring",
            "--iodepth",
            "64",
        ]);
        assert_eq!(footprint(&c).buffers, (16 << 20) + 64 * (16 << 20));
        let msg = footprint_verdict(&footprint(&c), &budget(512 << 20))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("for the write pools and read buffers"),
            "{msg}"
        );
        assert!(
            msg.ends_with(
                "use fewer operations in flight (--iodepth), smaller records (-r) or fewer workers"
            ),
            "{msg}"
        );
    }

    #[test]
    fn a_purge_buffer_past_the_budget_names_minus_s() {
        let c = test_config(&["-s", "64k", "-i", "0", "-p", "-S", "4194304"]);
        let f = footprint(&c);
        assert_eq!(f.purge, 8 << 30);
        let msg = footprint_verdict(&f, &budget(2 << 30))
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("the run would hold 8.0 GiB in memory at once (8.0 GiB of it for -p's buffers, twice the CPU cache)"), "{msg}");
        assert!(
            msg.ends_with("give a smaller cache size (-S) or fewer workers"),
            "{msg}"
        );
    }

    #[test]
    fn minus_q_is_named_when_its_latencies_weigh_most() {
        let c = test_config(&["-t", "8", "-s", "64m", "-r", "1k", "-i", "0", "-Q"]);
        let f = footprint(&c);
        assert_eq!(f.latencies, 8 * 65536 * 32);
        let msg = footprint_verdict(&f, &budget(4 << 20))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("for -Q's latencies of the write pass: 65536 operations of 32 bytes for each of 8 workers"), "{msg}");
    }

    #[test]
    fn a_telemetry_run_counts_the_pass_no_file_drives_and_the_fill() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("w.txt");
        // One operation at 15 TiB: the read pass no file drives, and the
        // fill, go over the whole 15 TiB in 4 KiB records.
        std::fs::write(&trace, "16492674416640 4096\n").unwrap();
        let mut c = test_config(&["-X", trace.to_str().unwrap(), "-f", "/x/t"]);
        crate::safety::preflight::attach_telemetry(&mut c).unwrap();
        let f = footprint(&c);
        let ops = (16492674416640u64 + 4096) / 4096;
        assert_eq!(f.ops, ops);
        assert_eq!(f.operations, 32 * ops);
        assert_eq!(f.traces, 16);
        assert!(footprint_verdict(&f, &budget(64 << 30)).is_err());
        // -r 16m: 983041 operations, 30 MiB.
        let mut c = test_config(&["-X", trace.to_str().unwrap(), "-r", "16m", "-f", "/x/t"]);
        crate::safety::preflight::attach_telemetry(&mut c).unwrap();
        assert_eq!(
            footprint(&c).ops,
            (16492674416640u64 + 4096).div_ceil(16 << 20)
        );
    }

    #[test]
    fn auto_mode_takes_its_largest_cell() {
        let c = test_config(&["-a", "-n", "64k", "-g", "4m", "-i", "0"]);
        let f = footprint(&c);
        // The 4 MiB file in records of 256 KiB or more: a pool and a read
        // buffer of the whole file (pwritev moves 16 records a call).
        assert_eq!(f.buffers, 8 << 20);
        assert_eq!(f.ops, 16);
    }
}
