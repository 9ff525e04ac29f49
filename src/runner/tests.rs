use std::io;
use std::os::fd::RawFd;

use super::timed::{LoopOutcome, TimedExtras, timed_loop};
use super::{Event, Outcome, measure};
use crate::cli::test_config as config;
use crate::data::check::NoCheck;
use crate::data::pattern::{
    IoOp, OpKind, PatternOptions, build_ops, largest_op, random_permutation,
};
use crate::engine::{EarlyStop, Engine, LoopFailure, LoopIo, Stops};
use crate::model::config::RunConfig;
use crate::model::plan::Cell;
use crate::model::workload::{Pass, TestId};
use crate::system::signals::StopFlag;

/// Records every call instead of doing I/O; can fail at a chosen operation.
#[derive(Default)]
struct RecordingEngine {
    calls: Vec<(OpKind, u64, usize, u8)>,
    syncs: usize,
    closes: usize,
    fail_at: Option<usize>,
}

impl Engine for RecordingEngine {
    fn open(_: &std::path::Path, _: &crate::engine::OpenSpec) -> io::Result<RecordingEngine> {
        Ok(RecordingEngine::default())
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if self.fail_at == Some(self.calls.len()) {
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        buf.fill(0xab);
        self.calls.push((OpKind::Read, offset, buf.len(), 0));
        Ok(())
    }
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        if self.fail_at == Some(self.calls.len()) {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        self.calls.push((OpKind::Write, offset, buf.len(), buf[0]));
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        self.syncs += 1;
        Ok(())
    }
    fn close(&mut self) -> io::Result<()> {
        self.closes += 1;
        Ok(())
    }
    fn raw_fd(&self) -> RawFd {
        -1
    }
}

const REC: u64 = 4096;
const N: u64 = 20;

fn cell() -> Cell {
    Cell {
        file_bytes: N * REC,
        record_bytes: REC,
    }
}

fn record(pass: Pass, extras: TimedExtras) -> (RecordingEngine, LoopOutcome) {
    let opts = PatternOptions {
        stride: 3,
        mix_read_percent: 50,
        sequential_mix: false,
        window_bytes: 16 * REC as usize,
        disrupt: None,
        multi_buffer: false,
        queued_writes: false,
    };
    let ops = build_ops(pass, &cell(), &opts);
    let mut pool = vec![0u8; opts.window_bytes];
    for (slot, chunk) in pool.chunks_mut(REC as usize).enumerate() {
        chunk.fill(slot as u8);
    }
    let mut read_buf = vec![0u8; largest_op(&cell())];
    let mut engine = RecordingEngine::default();
    let outcome = looped(
        &mut engine,
        &ops,
        &mut read_buf,
        &mut pool,
        extras,
        Stops {
            signal: StopFlag::default().word(),
            stonewall: None,
        },
    )
    .unwrap();
    (engine, outcome)
}

fn offsets(e: &RecordingEngine) -> Vec<u64> {
    e.calls.iter().map(|c| c.1 / REC).collect()
}

#[test]
fn sequential_passes_visit_every_record_in_order() {
    for pass in [
        Pass::Write,
        Pass::Rewrite,
        Pass::Read,
        Pass::Reread,
        Pass::Fwrite,
        Pass::Fread,
        Pass::Pwrite,
        Pass::Pread,
    ] {
        let (e, out) = record(pass, TimedExtras::default());
        assert_eq!(offsets(&e), (0..N).collect::<Vec<_>>(), "{pass:?}");
        assert!(e.calls.iter().all(|c| c.2 == REC as usize));
        let kind = if pass.direction() == crate::model::workload::Direction::Write {
            OpKind::Write
        } else {
            OpKind::Read
        };
        assert!(e.calls.iter().all(|c| c.0 == kind), "{pass:?}");
        assert_eq!(out.bytes, N * REC);
        assert_eq!(out.ops_done, N as usize);
        assert_eq!((e.syncs, e.closes), (0, 0));
    }
}

#[test]
fn writes_rotate_through_the_pool() {
    let (e, _) = record(Pass::Write, TimedExtras::default());
    let slots: Vec<u8> = e.calls.iter().map(|c| c.3).collect();
    assert_eq!(&slots[14..18], &[14, 15, 0, 1]);
    assert_eq!(&slots[..3], &[0, 1, 2]);
}

#[test]
fn random_passes_follow_iozone_permutation_both_times() {
    let (r, _) = record(Pass::RandomRead, TimedExtras::default());
    let (w, _) = record(Pass::RandomWrite, TimedExtras::default());
    assert_eq!(offsets(&r), random_permutation(N));
    assert_eq!(offsets(&w), random_permutation(N));
    assert!(w.calls.iter().all(|c| c.0 == OpKind::Write));
}

#[test]
fn backward_stride_and_record_rewrite_patterns() {
    let (b, out) = record(Pass::BackwardRead, TimedExtras::default());
    assert_eq!(offsets(&b), (0..N).rev().collect::<Vec<_>>());
    assert_eq!(out.bytes, N * REC);
    let (s, _) = record(Pass::StrideRead, TimedExtras::default());
    assert_eq!(&offsets(&s)[..8], &[0, 3, 6, 9, 12, 15, 18, 1]);
    let mut seen = offsets(&s);
    seen.sort_unstable();
    assert_eq!(seen, (0..N).collect::<Vec<_>>());
    let (rr, out) = record(Pass::RecordRewrite, TimedExtras::default());
    assert!(offsets(&rr).iter().all(|&o| o == 0));
    assert_eq!(rr.calls.len(), N as usize);
    assert_eq!(out.bytes, N * REC);
}

#[test]
fn vectored_passes_move_runs_of_records() {
    let (e, out) = record(Pass::Pwritev, TimedExtras::default());
    // 20 records, 16 per call: two calls, of 16 and 4 records, covering the file once.
    let mut runs: Vec<(u64, usize)> = e.calls.iter().map(|c| (c.1, c.2)).collect();
    runs.sort_unstable();
    assert_eq!(
        runs,
        vec![(0, 16 * REC as usize), (16 * REC, 4 * REC as usize)]
    );
    assert_eq!(out.bytes, N * REC);
}

#[test]
fn random_mix_reads_and_writes_each_record_once() {
    let (e, out) = record(Pass::RandomMix, TimedExtras::default());
    let reads = e.calls.iter().filter(|c| c.0 == OpKind::Read).count();
    assert_eq!(reads, 10);
    let mut seen = offsets(&e);
    seen.sort_unstable();
    assert_eq!(seen, (0..N).collect::<Vec<_>>());
    assert_eq!(out.bytes, N * REC);
}

#[test]
fn fsync_and_close_are_timed_only_when_asked() {
    let (e, _) = record(
        Pass::Write,
        TimedExtras {
            sync: true,
            close: true,
        },
    );
    assert_eq!((e.syncs, e.closes), (1, 1));
}

#[test]
fn a_failed_operation_names_its_offset() {
    let ops = build_ops(
        Pass::Write,
        &cell(),
        &PatternOptions {
            stride: 17,
            mix_read_percent: 50,
            sequential_mix: false,
            window_bytes: REC as usize,
            disrupt: None,
            multi_buffer: false,
            queued_writes: false,
        },
    );
    let mut engine = RecordingEngine {
        fail_at: Some(5),
        ..Default::default()
    };
    let mut pool = vec![0u8; REC as usize];
    let err = looped(
        &mut engine,
        &ops,
        &mut [0u8; 4096],
        &mut pool,
        TimedExtras::default(),
        Stops {
            signal: StopFlag::default().word(),
            stonewall: None,
        },
    )
    .unwrap_err();
    assert_eq!(err.operation, "write");
    assert_eq!(err.offset, Some(5 * REC));
    assert_eq!(err.error.raw_os_error(), Some(libc::ENOSPC));
}

#[test]
fn a_raised_stop_flag_ends_the_loop_before_the_next_record() {
    let ops: Vec<IoOp> = build_ops(
        Pass::Read,
        &cell(),
        &PatternOptions {
            stride: 17,
            mix_read_percent: 50,
            sequential_mix: false,
            window_bytes: REC as usize,
            disrupt: None,
            multi_buffer: false,
            queued_writes: false,
        },
    );
    let stop = StopFlag::default();
    stop.raise(2);
    let mut engine = RecordingEngine::default();
    let out = looped(
        &mut engine,
        &ops,
        &mut [0u8; 4096],
        &mut [],
        TimedExtras {
            sync: true,
            close: true,
        },
        Stops {
            signal: stop.word(),
            stonewall: None,
        },
    )
    .unwrap();
    assert_eq!(out.stopped, Some(EarlyStop::Signal(2)));
    assert_eq!(out.ops_done, 0);
    assert!(engine.calls.is_empty());
    assert_eq!((engine.syncs, engine.closes), (0, 0));
}

/// Runs `ioz ARGS…` in-process on `path`.
fn run_on(path: &std::path::Path, args: &[&str]) -> (RunConfig, Outcome) {
    let mut all = args.to_vec();
    all.extend(["-f", path.to_str().unwrap()]);
    let cfg = config(&all);
    let out = measure(&cfg, (None, None, None), &StopFlag::default(), |_| Ok(()));
    (cfg, out)
}

#[test]
fn a_full_run_measures_every_pass_with_exact_byte_counts_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let p = path.to_str().unwrap();
    let cfg = config(&[
        "-s", "64k", "-r", "4k", "-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i", "4", "-i", "5",
        "-i", "6", "-i", "7", "-i", "8", "-i", "9", "-i", "10", "-i", "11", "-i", "12", "-f", p,
    ]);
    let mut rows = 0;
    let out = measure(&cfg, (None, None, None), &StopFlag::default(), |e| {
        if let Event::RowDone(_) = e {
            rows += 1
        }
        Ok(())
    });
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(rows, 1);
    let passes: usize = TestId::ALL.iter().map(|t| t.passes().len()).sum();
    assert_eq!(out.cells[0].measurements.len(), passes);
    for m in &out.cells[0].measurements {
        assert_eq!(m.bytes, 64 << 10, "{:?}", m.pass);
        assert_eq!(m.records, 16);
        assert!(m.elapsed_ns > 0);
    }
    assert!(!path.exists(), "the test file was not removed");
}

/// Whether every 4 KiB block of `data` differs from every other.
fn blocks_all_differ(data: &[u8]) -> bool {
    let mut seen = std::collections::HashSet::new();
    data.chunks(4096).all(|b| seen.insert(b))
}

#[test]
fn default_data_leaves_every_block_of_the_file_unique_whatever_the_test() {
    // Files four times the write window: without stamps the window repeats.
    for (tests, rec) in [
        (&["-i", "0"][..], "4k"),
        (&["-i", "0"], "64k"),
        (&["-i", "0"], "1m"),
        (&["-i", "0"], "3k"),
        (&["-i", "0", "-i", "2"], "4k"),
        (&["-i", "0", "-i", "4"], "4k"),
        (&["-i", "6"], "4k"),
        (&["-i", "9"], "64k"),
        (&["-i", "11"], "4k"),
        // A read test alone: the untimed fill writes the file.
        (&["-i", "1"], "4k"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tmp");
        let mut args = vec!["-s", "4m", "-r", rec, "-w"];
        args.extend(tests);
        let (_, out) = run_on(&path, &args);
        assert!(out.error.is_none(), "{args:?}: {:?}", out.error);
        let data = std::fs::read(&path).unwrap();
        // Whole records: 1365 of 3 KiB.
        assert!(data.len() > (4 << 20) - 3072, "{args:?}");
        assert!(blocks_all_differ(&data), "{args:?}: a block repeats");
        // Still random: the window's bytes around the stamps do not compress.
        let zeros = data.iter().filter(|&&b| b == 0).count();
        assert!(zeros < data.len() / 128, "{args:?}: {zeros} zero bytes");
    }
}

#[test]
fn default_data_is_the_window_with_each_block_stamped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let (cfg, out) = run_on(&path, &["-s", "2m", "-r", "4k", "-i", "0", "-w"]);
    assert!(out.error.is_none());
    let data = std::fs::read(&path).unwrap();
    assert_eq!(data.len(), 2 << 20);
    let cell = out.cells[0].cell;
    let mut pool = vec![0u8; crate::data::buffer::pool_bytes(&cell, cfg.data, false, 1)];
    assert_eq!(pool.len(), 1 << 20);
    crate::data::buffer::fill(&mut pool, cfg.data, 0);
    // Each block: its stamp (the rewrite's, which wrote last), then the
    // window's bytes; the second MiB holds the same bytes after its stamps.
    let tag = crate::data::stamp::pass_tag(Pass::Rewrite as u64);
    for (block, got) in data.chunks(4096).enumerate() {
        let word = crate::data::stamp::stamp_word(block as u64, tag).to_le_bytes();
        assert_eq!(got[..8], word, "block {block}");
        let at = (block * 4096) % (1 << 20);
        assert_eq!(got[8..], pool[at + 8..at + 4096], "block {block}");
    }
}

/// Every write pass's operations on `cell` under `args`, with the pool's size.
fn write_ops(args: &[&str], cell: Cell) -> (usize, Vec<(Pass, Vec<IoOp>)>) {
    let cfg = config(args);
    let recipe = super::recipe::Recipe::new(&cfg, None);
    let cell = recipe.cell(cell);
    let passes = cell
        .passes
        .iter()
        .filter(|p| !p.only_reads())
        .map(|p| (p.pass, cell.ops(p, 0)))
        .collect();
    (cell.pool_bytes, passes)
}

const ALL_TESTS: [&str; 26] = [
    "-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i", "4", "-i", "5", "-i", "6", "-i", "7", "-i",
    "8", "-i", "9", "-i", "10", "-i", "11", "-i", "12",
];

#[test]
fn default_writes_come_from_one_cache_sized_window() {
    use crate::data::buffer::WRITE_WINDOW_BYTES;
    for rec in [4 << 10, 64 << 10, 1 << 20, 16 << 20] {
        let cell = Cell {
            file_bytes: 64 << 20,
            record_bytes: rec,
        };
        let (pool, passes) = write_ops(&ALL_TESTS, cell);
        let window = (WRITE_WINDOW_BYTES as usize).max(rec as usize);
        assert!(passes.len() >= 10);
        for (pass, ops) in passes {
            for op in ops.iter().filter(|o| o.kind == OpKind::Write) {
                // A vectored call takes its records from one slot onwards.
                let limit = if op.len > rec as usize { pool } else { window };
                assert!(
                    op.source + op.len <= limit,
                    "{pass:?} {rec}-byte records: a write from {}..{}",
                    op.source,
                    op.source + op.len
                );
            }
        }
    }
    // -m: writes slide through the 16 MiB work area, as before.
    let cell = Cell {
        file_bytes: 64 << 20,
        record_bytes: 4 << 10,
    };
    let (pool, passes) = write_ops(&["-i", "0", "-m"], cell);
    assert_eq!(pool, 16 << 20);
    let sources: Vec<usize> = passes[0].1.iter().map(|o| o.source).collect();
    assert_eq!(sources[4095], 4095 * 4096);
    assert_eq!(sources[4096], 0);
}

#[test]
fn iozone_data_writes_every_record_from_one_buffer() {
    let mut args = ALL_TESTS.to_vec();
    args.extend(["--data", "iozone"]);
    for rec in [4 << 10, 1 << 20] {
        let cell = Cell {
            file_bytes: 64 << 20,
            record_bytes: rec,
        };
        let (pool, passes) = write_ops(&args, cell);
        // One buffer: a record, or a vectored call's 16.
        assert_eq!(pool, largest_op(&cell));
        for (pass, ops) in passes {
            assert!(ops.iter().all(|o| o.source == 0), "{pass:?}");
        }
    }
    // And IOzone's content: 8 pattern bytes at the start of each page.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let (_, out) = run_on(
        &path,
        &["-s", "2m", "-r", "64k", "-i", "0", "-w", "--data", "iozone"],
    );
    assert!(out.error.is_none());
    let data = std::fs::read(&path).unwrap();
    for page in data.chunks(4096) {
        assert_eq!(page[..8], [0x10; 8]);
        assert!(page[8..].iter().all(|&b| b == 0));
    }
}

#[test]
fn o_direct_refusal_or_success_is_never_silent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let (_, out) = run_on(&path, &["-s", "64k", "-r", "4k", "-i", "0", "-I"]);
    match out.error {
        None => assert_eq!(out.cells[0].measurements.len(), 2),
        Some(e) => assert!(e.to_string().contains("O_DIRECT"), "{e}"),
    }
    assert!(!path.exists());
}

#[test]
fn a_raised_stonewall_ends_the_loop_and_says_so() {
    let ops: Vec<IoOp> = build_ops(
        Pass::Read,
        &cell(),
        &PatternOptions {
            stride: 17,
            mix_read_percent: 50,
            sequential_mix: false,
            window_bytes: REC as usize,
            disrupt: None,
            multi_buffer: false,
            queued_writes: false,
        },
    );
    let wall = std::sync::atomic::AtomicBool::new(true);
    let mut engine = RecordingEngine::default();
    let no_signal = StopFlag::default();
    let stops = Stops {
        signal: no_signal.word(),
        stonewall: Some(&wall),
    };
    let out = looped(
        &mut engine,
        &ops,
        &mut [0u8; 4096],
        &mut [],
        TimedExtras::default(),
        stops,
    )
    .unwrap();
    assert_eq!(out.stopped, Some(EarlyStop::Stonewall));
    assert!(engine.calls.is_empty());
    assert!(out.end_ns >= out.start_ns);
}

/// Runs a throughput config in-process (threads, so no fork inside the test harness).
fn throughput_run(dir: &std::path::Path, args: &[&str]) -> (RunConfig, Outcome) {
    let base = dir.join("w");
    let mut all = args.to_vec();
    all.extend(["-T", "-f", base.to_str().unwrap()]);
    let cfg = config(&all);
    assert!(cfg.throughput.is_some(), "a throughput config");
    let out = measure(&cfg, (None, None, None), &StopFlag::default(), |_| Ok(()));
    (cfg, out)
}

#[test]
fn throughput_workers_move_exactly_their_files_without_stonewalling() {
    for workers in ["1", "2", "4"] {
        let dir = tempfile::tempdir().unwrap();
        let (_, out) = throughput_run(
            dir.path(),
            &[
                "-t", workers, "-s", "256k", "-r", "4k", "-i", "0", "-i", "1", "-x", "-w",
            ],
        );
        assert!(
            out.error.is_none(),
            "{:?}",
            out.error.map(|e| e.to_string())
        );
        let n: usize = workers.parse().unwrap();
        let names: Vec<Pass> = out.phases.iter().map(|p| p.pass).collect();
        assert_eq!(
            names,
            vec![Pass::Write, Pass::Rewrite, Pass::Read, Pass::Reread]
        );
        for phase in &out.phases {
            assert_eq!(phase.results.len(), n);
            for w in &phase.results {
                assert_eq!(w.bytes, 256 << 10, "{:?} worker {}", phase.pass, w.worker);
                assert_eq!(w.records, 64);
                assert!(!w.stonewalled);
                assert!(
                    w.start_after_release_ns >= 0,
                    "worker started before the release"
                );
                assert!(w.end_after_release_ns >= w.start_after_release_ns);
            }
            let last_end = phase
                .results
                .iter()
                .map(|w| w.end_after_release_ns)
                .max()
                .unwrap();
            assert_eq!(phase.parent_elapsed_ns, last_end as u64);
        }
        for i in 0..n {
            let len = std::fs::metadata(dir.path().join(format!("w.{i}")))
                .unwrap()
                .len();
            assert_eq!(len, 256 << 10, "worker {i}'s file");
        }
    }
}

#[test]
fn stonewalled_writers_still_fill_their_files_but_count_only_the_shared_time() {
    let dir = tempfile::tempdir().unwrap();
    let (_, out) = throughput_run(
        dir.path(),
        &["-t", "4", "-s", "1m", "-r", "4k", "-i", "0", "-w"],
    );
    assert!(out.error.is_none());
    for phase in &out.phases {
        assert!(phase.stonewall);
        // The first worker to finish moved its whole file; nobody moved more.
        assert!(
            phase
                .results
                .iter()
                .any(|w| !w.stonewalled && w.bytes == 1 << 20)
        );
        for w in &phase.results {
            assert!(w.bytes <= 1 << 20 && w.bytes % 4096 == 0);
            assert_eq!(w.stonewalled, w.bytes < 1 << 20);
        }
    }
    for i in 0..4 {
        let len = std::fs::metadata(dir.path().join(format!("w.{i}")))
            .unwrap()
            .len();
        assert_eq!(
            len,
            1 << 20,
            "a stonewalled writer must still complete its file"
        );
    }
}

#[test]
fn constant_total_divides_the_file_and_without_w_files_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (_, out) = throughput_run(
        dir.path(),
        &["-t", "4", "-s", "1m", "-r", "4k", "-i", "0", "-+k", "-x"],
    );
    assert!(out.error.is_none());
    let phase = &out.phases[0];
    assert_eq!(phase.file_bytes, 256 << 10);
    assert!(phase.results.iter().all(|w| w.bytes == 256 << 10));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "files left behind"
    );
}

#[test]
fn a_worker_file_that_cannot_be_created_fails_the_run_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Worker 1's file is in a directory that does not exist.
    let missing = dir.path().join("nowhere/b");
    let a = dir.path().join("a");
    let cfg = config(&[
        "-t",
        "2",
        "-T",
        "-s",
        "64k",
        "-i",
        "0",
        "-F",
        a.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    let out = measure(&cfg, (None, None, None), &StopFlag::default(), |_| Ok(()));
    let err = out.error.expect("the run should fail").to_string();
    assert!(err.contains("nowhere/b"), "{err}");
    assert!(!a.exists(), "worker 0's file was left behind");
}

/// The timed loop with plain buffers, no data checks and no compute delay.
fn looped<E: Engine>(
    engine: &mut E,
    ops: &[IoOp],
    read_buf: &mut [u8],
    pool: &mut [u8],
    extras: TimedExtras,
    stops: Stops<'_>,
) -> Result<LoopOutcome, LoopFailure> {
    let mut io = LoopIo {
        read_buf,
        slots: 1,
        pool,
        check: &mut NoCheck,
        compute_delay_ns: 0,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    timed_loop(engine, ops, &mut io, extras, stops)
}

/// A read pass over 250 records as the run's options shape it.
fn shaped_read_pass(args: &[&str], records: u64) -> Vec<IoOp> {
    let cfg = config(args);
    let recipe = super::recipe::Recipe::new(&cfg, None);
    let cell = recipe.cell(Cell {
        file_bytes: records * REC,
        record_bytes: REC,
    });
    let read = cell.passes.iter().find(|p| p.pass == Pass::Read).unwrap();
    cell.ops(read, 0)
}

fn run_recorded(ops: &[IoOp], read_buf: &mut [u8]) -> (RecordingEngine, LoopOutcome) {
    let mut engine = RecordingEngine::default();
    let no_signal = StopFlag::default();
    let stops = Stops {
        signal: no_signal.word(),
        stonewall: None,
    };
    let out = looped(
        &mut engine,
        ops,
        read_buf,
        &mut [],
        TimedExtras::default(),
        stops,
    )
    .unwrap();
    (engine, out)
}

#[test]
fn disrupted_reads_reach_the_engine_before_every_hundredth_record_uncounted() {
    for (args, probe_len) in [(&["-K"][..], 1), (&["-K", "-I"], 4096)] {
        let ops = shaped_read_pass(args, 250);
        let (e, out) = run_recorded(&ops, &mut [0u8; 4096]);
        assert_eq!(e.calls.len(), 250 + 6, "{args:?}");
        for (at, record) in [(0, 0), (102, 100), (204, 200)] {
            assert_eq!(e.calls[at].1, 0, "{args:?}");
            assert_eq!(e.calls[at + 1].1, 4096, "{args:?}");
            assert_eq!(e.calls[at].2, probe_len, "{args:?}");
            assert_eq!(e.calls[at + 1].2, probe_len, "{args:?}");
            assert_eq!(
                (e.calls[at + 2].1, e.calls[at + 2].2),
                (record * REC, REC as usize)
            );
        }
        assert_eq!(out.bytes, 250 * REC, "probes are not counted");
        assert_eq!(out.ops_done, 250);
    }
}

#[test]
fn multi_buffer_reads_land_where_their_operation_says() {
    // A work area of 5 records; 7 reads wrap into its first two slots.
    let area_of = |records: u64, multi_buffer| PatternOptions {
        stride: 17,
        mix_read_percent: 50,
        sequential_mix: false,
        window_bytes: records as usize * REC as usize,
        disrupt: None,
        multi_buffer,
        queued_writes: false,
    };
    let seven = Cell {
        file_bytes: 7 * REC,
        record_bytes: REC,
    };
    let ops = build_ops(Pass::Read, &seven, &area_of(5, true));
    let sources: Vec<usize> = ops.iter().map(|o| o.source / REC as usize).collect();
    assert_eq!(sources, vec![0, 1, 2, 3, 4, 0, 1]);
    let mut area = vec![0u8; 6 * REC as usize];
    run_recorded(&ops[..3], &mut area);
    // The recording engine fills what it reads into with 0xab.
    assert!(area[..3 * REC as usize].iter().all(|&b| b == 0xab));
    assert!(area[3 * REC as usize..].iter().all(|&b| b == 0));
    // Without -m every read lands at the start.
    let ops = build_ops(Pass::Read, &seven, &area_of(5, false));
    assert!(ops.iter().all(|o| o.source == 0));
    // -m's work area is the cell's read buffer: 16 MiB, so 7 reads slide on.
    let ops = shaped_read_pass(&["-m"], 7);
    let sources: Vec<usize> = ops.iter().map(|o| o.source / REC as usize).collect();
    assert_eq!(sources, (0..7).collect::<Vec<_>>());
}

#[test]
fn telemetry_delays_are_busy_waited_before_their_operation_and_left_out() {
    let mut engine = RecordingEngine::default();
    let op = |offset, delay_ms| IoOp {
        offset,
        len: 10,
        kind: OpKind::Write,
        source: 0,
        probes: crate::data::pattern::Probes::NONE,
        delay_ms,
    };
    let ops = [op(0, 3), op(100, 0), op(7, 2)];
    let mut pool = vec![1u8; 4096];
    let mut read_buf = vec![0u8; 4096];
    let mut io = LoopIo {
        read_buf: &mut read_buf,
        slots: 1,
        pool: &mut pool,
        check: &mut NoCheck,
        // -J 1 on top: 1+3, 1, 1+2 ms.
        compute_delay_ns: 1_000_000,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    let stop = StopFlag::default();
    let stops = Stops {
        signal: stop.word(),
        stonewall: None,
    };
    let out = timed_loop(&mut engine, &ops, &mut io, TimedExtras::default(), stops).unwrap();
    assert!(out.busy_ns >= 8_000_000, "busy {} ns", out.busy_ns);
    let region = out.end_ns - out.start_ns;
    assert!(region >= out.busy_ns);
    assert_eq!(out.elapsed_ns(), (region - out.busy_ns).max(1));
    let offsets: Vec<u64> = engine.calls.iter().map(|c| c.1).collect();
    assert_eq!(offsets, [0, 100, 7]);
    assert_eq!(out.bytes, 30);
}

/// Cluster mode's meeting around each cell, recorded; its `after_cell`
/// fails (as another rank's failure would reach this one) at `fail_at`,
/// and stops (as another rank's Ctrl-C would) at `stop_at`.
#[derive(Default)]
struct RecordingMeeting {
    calls: std::cell::RefCell<Vec<String>>,
    fail_at: Option<usize>,
    stop_at: Option<usize>,
}

impl super::single::CellMeeting for RecordingMeeting {
    fn before_cell(&self, cell: Cell, run: u32) -> Result<(), crate::error::RunError> {
        let mut calls = self.calls.borrow_mut();
        calls.push(format!(
            "meet {}k/{}k run {run}",
            cell.file_bytes >> 10,
            cell.record_bytes >> 10
        ));
        Ok(())
    }

    fn after_cell(
        &self,
        end: Result<Option<i32>, crate::error::RunError>,
    ) -> Result<Option<i32>, crate::error::RunError> {
        let mut calls = self.calls.borrow_mut();
        calls.push(match &end {
            Ok(None) => "settle ok".to_string(),
            Ok(Some(sig)) => format!("settle stopped by {sig}"),
            Err(_) => "settle failed".to_string(),
        });
        let settled = calls.iter().filter(|c| c.starts_with("settle")).count();
        if self.fail_at == Some(settled) {
            return Err(crate::error::RunError::Worker(
                "rank 1 on h: it broke".into(),
            ));
        }
        if self.stop_at == Some(settled) {
            return Ok(Some(15));
        }
        end
    }
}

/// Runs `ioz ARGS…` in-process on `path`, the ranks' `meeting` around
/// every cell.
fn run_meeting(path: &std::path::Path, args: &[&str], meeting: &RecordingMeeting) -> Outcome {
    let mut all = args.to_vec();
    all.extend(["-f", path.to_str().unwrap()]);
    let cfg = config(&all);
    let recipe = super::recipe::Recipe::new(&cfg, None);
    let controls = super::single::Controls {
        stop: &StopFlag::default(),
        remount: None,
        meeting: Some(meeting),
        live: None,
    };
    super::single::run(&recipe, controls, |_| Ok(()))
}

#[test]
fn across_ranks_every_cell_of_every_run_is_met_before_and_settled_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let meeting = RecordingMeeting::default();
    let out = run_meeting(
        &path,
        &[
            "-s", "64k", "-r", "4k", "-r", "16k", "-i", "0", "--runs", "2",
        ],
        &meeting,
    );
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(
        *meeting.calls.borrow(),
        [
            "meet 64k/4k run 0",
            "settle ok",
            "meet 64k/16k run 0",
            "settle ok",
            "meet 64k/4k run 1",
            "settle ok",
            "meet 64k/16k run 1",
            "settle ok",
        ]
    );
    assert_eq!(out.cells.len(), 2);
    assert_eq!(out.cells[0].measurements.len(), 4);
    assert!(!path.exists());
}

#[test]
fn across_ranks_another_rank_s_failure_stops_this_one_after_the_cell() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let meeting = RecordingMeeting {
        fail_at: Some(1),
        ..Default::default()
    };
    let out = run_meeting(
        &path,
        &["-s", "64k", "-r", "4k", "-r", "16k", "-i", "0"],
        &meeting,
    );
    assert_eq!(
        out.error.map(|e| e.to_string()).as_deref(),
        Some("rank 1 on h: it broke")
    );
    // The cell it failed in is kept; the next one never began.
    assert_eq!(*meeting.calls.borrow(), ["meet 64k/4k run 0", "settle ok"]);
    assert_eq!(out.cells.len(), 1);
    assert!(!path.exists());
}

#[test]
fn across_ranks_another_rank_s_stop_ends_this_one_stopped_after_the_cell() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let meeting = RecordingMeeting {
        stop_at: Some(1),
        ..Default::default()
    };
    let out = run_meeting(
        &path,
        &["-s", "64k", "-r", "4k", "-r", "16k", "-i", "0"],
        &meeting,
    );
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.status, crate::model::result::RunStatus::Interrupted(15));
    // The cell it stopped after is kept; the next one never began.
    assert_eq!(*meeting.calls.borrow(), ["meet 64k/4k run 0", "settle ok"]);
    assert_eq!(out.cells.len(), 1);
    assert!(!path.exists());
}

#[test]
fn across_ranks_a_stop_raised_before_a_cell_is_settled_at_its_meeting() {
    // Rank 0's stdout failed as its opening printed: it alone is stopped,
    // yet it meets the others at the first cell and settles the stop there
    // (the others would wait for it), running nothing: the run ends
    // stopped, as one machine's does, not failed.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let meeting = RecordingMeeting::default();
    let stop = StopFlag::default();
    stop.raise(13);
    let mut all = vec!["-s", "64k", "-r", "4k", "-r", "16k", "-i", "0"];
    all.extend(["-f", path.to_str().unwrap()]);
    let cfg = config(&all);
    let recipe = super::recipe::Recipe::new(&cfg, None);
    let controls = super::single::Controls {
        stop: &stop,
        remount: None,
        meeting: Some(&meeting),
        live: None,
    };
    let out = super::single::run(&recipe, controls, |_| Ok(()));
    assert_eq!(
        *meeting.calls.borrow(),
        ["meet 64k/4k run 0", "settle stopped by 13"]
    );
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.status, crate::model::result::RunStatus::Interrupted(13));
    assert!(out.cells.is_empty());
    assert!(!path.exists());
}

#[test]
fn across_ranks_a_rank_that_cannot_begin_still_meets_the_others_once() {
    let dir = tempfile::tempdir().unwrap();
    // The test file's directory does not exist: the run cannot begin.
    let path = dir.path().join("gone").join("t.tmp");
    let meeting = RecordingMeeting::default();
    let out = run_meeting(&path, &["-s", "64k", "-r", "4k", "-i", "0"], &meeting);
    assert!(out.error.is_some());
    assert_eq!(
        *meeting.calls.borrow(),
        ["meet 64k/4k run 0", "settle failed"]
    );
}
