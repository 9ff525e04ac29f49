use std::collections::BTreeMap;
use std::fs;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::sys::mman::{MapFlags, ProtFlags, mmap_anonymous};

use super::*;
use crate::data::check::NoCheck;
use crate::data::pattern::random_permutation;
use crate::engine::batch::Stops;
use crate::system::signals::StopFlag;

const REC: usize = 4096;

fn spec(depth: u32, writable: bool) -> OpenSpec {
    OpenSpec {
        writable,
        read_write: false,
        create: true,
        truncate: false,
        extra_flags: 0,
        record_bytes: REC,
        file_bytes: 0,
        depth,
        msync: Default::default(),
        madvise: None,
        aio_no_copy: false,
        expect: None,
    }
}

/// Records that the running test could not run (all or part of it) here:
/// "test: reason" on a line of the file IOZ_SKIP_LEDGER names, which
/// .ci/run counts as skipped rather than passed, and the same on stderr.
fn skipped(reason: &str) {
    let test = std::thread::current().name().unwrap_or("?").to_string();
    eprintln!("skipped {test}: {reason}");
    if let Some(ledger) = std::env::var_os("IOZ_SKIP_LEDGER") {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(ledger)
            .expect("cannot open the skip ledger");
        writeln!(f, "{test}: {reason}").expect("cannot write the skip ledger");
    }
}

/// The engine, or None (the test recorded as skipped) where io_uring is unavailable.
fn open(path: &Path, depth: u32, writable: bool) -> Option<UringEngine> {
    match UringEngine::open(path, &spec(depth, writable)) {
        Ok(e) => Some(e),
        Err(e) if e.to_string().contains("io_uring is not available") => {
            skipped(&e.to_string());
            None
        }
        Err(e) => panic!("open: {e}"),
    }
}

/// The byte record `i` holds in the test files.
fn fill_byte(i: u64) -> u8 {
    (i * 37 + 11) as u8
}

/// Registers the buffers as a pass does; false (the test recorded as
/// skipped) where the kernel refuses.
fn register(engine: &mut UringEngine, read_buf: &[u8], pool: &[u8]) -> bool {
    engine.prepare_buffers(read_buf, pool);
    let registered = engine.fixed != FixedBuffers::default();
    if !registered {
        skipped("the kernel refused to register the buffers (RLIMIT_MEMLOCK?)");
    }
    registered
}

/// The ring's `/proc/self/fdinfo` text, which lists registered buffers.
fn ring_fdinfo(engine: &UringEngine) -> String {
    use std::os::fd::AsRawFd;
    let fd = engine.ring.as_ref().expect("an open ring").as_raw_fd();
    fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap()
}

fn record_file(dir: &Path, n: u64) -> std::path::PathBuf {
    let path = dir.join("f");
    let mut data = Vec::new();
    for i in 0..n {
        let mut rec = vec![fill_byte(i); REC];
        rec[..8].copy_from_slice(&i.to_le_bytes());
        data.extend_from_slice(&rec);
    }
    fs::write(&path, data).unwrap();
    path
}

fn read_ops(records: &[u64]) -> Vec<IoOp> {
    records
        .iter()
        .map(|&r| IoOp::at(r * REC as u64, REC, OpKind::Read))
        .collect()
}

/// Counts check_read calls per offset and checks each read's bytes; can
/// raise a stonewall after some reads.
#[derive(Default)]
struct Counting<'a> {
    seen: BTreeMap<u64, usize>,
    wall_after: Option<(usize, &'a AtomicBool)>,
}

impl DataCheck for Counting<'_> {
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8] {
        &pool[op.source..op.source + op.len]
    }
    fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()> {
        *self.seen.entry(op.offset).or_default() += 1;
        let i = op.offset / REC as u64;
        assert_eq!(data.len(), op.len);
        assert_eq!(data[..8], i.to_le_bytes(), "record {i} read another record");
        assert!(data[8..].iter().all(|&b| b == fill_byte(i)), "record {i}");
        if let Some((n, wall)) = self.wall_after
            && self.seen.values().sum::<usize>() >= n
        {
            wall.store(true, Ordering::Relaxed);
        }
        Ok(())
    }
}

fn stops<'a>(flag: &'a StopFlag, wall: Option<&'a AtomicBool>) -> Stops<'a> {
    Stops {
        signal: flag.word(),
        stonewall: wall,
    }
}

fn read_buf(depth: usize) -> AlignedBuf {
    AlignedBuf::zeroed(REC * depth)
}

#[test]
fn every_read_reaches_check_read_once_with_its_own_data() {
    every_read_reaches_check_read_once(&[(1, false), (7, false), (32, false)]);
}

#[test]
fn every_fixed_buffer_read_reaches_check_read_once_with_its_own_data() {
    every_read_reaches_check_read_once(&[(1, true), (32, true)]);
}

/// At each (depth, fixed buffers) of `cases`.
fn every_read_reaches_check_read_once(cases: &[(u32, bool)]) {
    let dir = tempfile::tempdir().unwrap();
    let n = 1000;
    let path = record_file(dir.path(), n);
    for &(depth, fixed) in cases {
        let Some(mut engine) = open(&path, depth, false) else {
            return;
        };
        let ops = read_ops(&random_permutation(n));
        let mut buf = read_buf(depth as usize);
        if fixed && !register(&mut engine, &buf, &[]) {
            return;
        }
        let mut check = Counting::default();
        let mut io = LoopIo {
            read_buf: &mut buf,
            slots: depth as usize,
            pool: &mut [],
            check: &mut check,
            compute_delay_ns: 0,
            busy_ns: 0,
            timing: crate::engine::OpTiming::none(),
            intervals: None,
        };
        let flag = StopFlag::default();
        let p = engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
        assert_eq!(
            (p.bytes, p.done, p.stopped),
            (n * REC as u64, n as usize, None)
        );
        let offsets: Vec<u64> = check.seen.keys().copied().collect();
        let all: Vec<u64> = (0..n).map(|i| i * REC as u64).collect();
        assert_eq!(offsets, all, "depth {depth}, fixed {fixed}: every offset");
        assert!(
            check.seen.values().all(|&c| c == 1),
            "depth {depth}, fixed {fixed}: once each"
        );
        engine.close().unwrap();
        engine.close().unwrap();
    }
}

/// Remembers whether each read saw its record or zeros.
#[derive(Default)]
struct SeenData {
    right: usize,
    zeros: usize,
}

impl DataCheck for SeenData {
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8] {
        &pool[op.source..op.source + op.len]
    }
    fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()> {
        let i = op.offset / REC as u64;
        if data[..8] == i.to_le_bytes() && data[8..].iter().all(|&b| b == fill_byte(i)) {
            self.right += 1;
        } else if data.iter().all(|&b| b == 0) {
            self.zeros += 1;
        }
        Ok(())
    }
}

#[test]
fn registered_reads_land_in_the_pages_registered_before_the_clock() {
    use nix::sys::mman::{MmapAdvise, madvise, munmap};
    let dir = tempfile::tempdir().unwrap();
    let n = 64;
    let path = record_file(dir.path(), n);
    let Some(mut engine) = open(&path, 8, false) else {
        return;
    };
    let len = NonZeroUsize::new(8 * REC).unwrap();
    // SAFETY: a fresh private anonymous mapping, unmapped at the end.
    let map = unsafe {
        mmap_anonymous(
            None,
            len,
            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
            MapFlags::MAP_PRIVATE,
        )
    }
    .unwrap();
    // SAFETY: the mapping is ours, len bytes, zero-filled.
    let buf = unsafe { std::slice::from_raw_parts_mut(map.as_ptr().cast::<u8>(), len.get()) };
    buf.fill(1);
    let ops = read_ops(&random_permutation(n));
    let flag = StopFlag::default();
    let run = |engine: &mut UringEngine, buf: &mut [u8]| {
        let mut check = SeenData::default();
        let mut io = LoopIo {
            read_buf: buf,
            slots: 8,
            pool: &mut [],
            check: &mut check,
            compute_delay_ns: 0,
            busy_ns: 0,
            timing: crate::engine::OpTiming::none(),
            intervals: None,
        };
        let p = engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
        assert_eq!(p.done, n as usize);
        (check.right, check.zeros)
    };
    assert!(!ring_fdinfo(&engine).contains("UserBufs:\t1"));
    if !register(&mut engine, buf, &[]) {
        return;
    }
    assert!(
        ring_fdinfo(&engine).contains("UserBufs:\t1"),
        "{}",
        ring_fdinfo(&engine)
    );
    assert_eq!(run(&mut engine, buf), (n as usize, 0), "registered");
    // Swap the pages under the buffer: the kernel keeps the registered
    // (pinned) ones, so fixed reads land there and the buffer reads zeros.
    // That is how we know the loop used READ_FIXED on those pages.
    // SAFETY: the range is our mapping; its contents are not needed.
    unsafe { madvise(map, len.get(), MmapAdvise::MADV_DONTNEED) }.unwrap();
    assert_eq!(run(&mut engine, buf), (0, n as usize), "stale registration");
    // Registering again (as every pass does, before its clock) repairs it.
    assert!(register(&mut engine, buf, &[]));
    assert_eq!(run(&mut engine, buf), (n as usize, 0), "registered again");
    engine.close().unwrap();
    // SAFETY: unmapping our mapping; `buf` is not used after this.
    unsafe { munmap(map, len.get()) }.unwrap();
}

#[test]
fn buffers_outside_the_registration_use_plain_requests() {
    let a = [0u8; 64];
    let fixed = Some(FixedBuf {
        start: a.as_ptr() as usize,
        len: 32,
        index: 1,
    });
    assert_eq!(FixedBuf::index_for(fixed, &a[..32]), Some(1));
    assert_eq!(FixedBuf::index_for(fixed, &a[8..16]), Some(1));
    assert_eq!(FixedBuf::index_for(fixed, &a[..33]), None);
    assert_eq!(FixedBuf::index_for(fixed, &a[40..]), None);
    assert_eq!(FixedBuf::index_for(None, &a), None);
}

#[test]
fn a_stop_drains_what_is_in_flight_and_reports_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let n = 500;
    let path = record_file(dir.path(), n);
    let Some(mut engine) = open(&path, 16, false) else {
        return;
    };
    let ops = read_ops(&(0..n).collect::<Vec<_>>());
    let mut buf = read_buf(16);
    let wall = AtomicBool::new(false);
    let mut check = Counting {
        wall_after: Some((100, &wall)),
        ..Default::default()
    };
    let mut io = LoopIo {
        read_buf: &mut buf,
        slots: 16,
        pool: &mut [],
        check: &mut check,
        compute_delay_ns: 0,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    let flag = StopFlag::default();
    let p = engine
        .run_ops(&ops, &mut io, stops(&flag, Some(&wall)))
        .unwrap();
    assert_eq!(p.stopped, Some(crate::engine::EarlyStop::Stonewall));
    assert!(p.done >= 100 && p.done < n as usize, "done {}", p.done);
    assert_eq!(p.bytes, (p.done * REC) as u64);
    // What completed is exactly the first `done` operations.
    let expect: Vec<u64> = (0..p.done as u64).map(|i| i * REC as u64).collect();
    assert_eq!(check.seen.keys().copied().collect::<Vec<_>>(), expect);
}

#[test]
fn q_latencies_follow_the_operations_done() {
    let dir = tempfile::tempdir().unwrap();
    let n = 300;
    let path = record_file(dir.path(), n);
    let Some(mut engine) = open(&path, 16, false) else {
        return;
    };
    let ops = read_ops(&random_permutation(n));
    let flag = StopFlag::default();
    for wall_after in [None, Some(100)] {
        let wall = AtomicBool::new(false);
        let mut check = Counting {
            wall_after: wall_after.map(|n| (n, &wall)),
            ..Default::default()
        };
        // An earlier pass's latency is kept in front.
        let mut latencies = vec![7u64];
        let mut buf = read_buf(16);
        let mut io = LoopIo {
            read_buf: &mut buf,
            slots: 16,
            pool: &mut [],
            check: &mut check,
            compute_delay_ns: 0,
            busy_ns: 0,
            timing: crate::engine::OpTiming {
                list: Some(&mut latencies),
                ..Default::default()
            },
            intervals: None,
        };
        let p = engine
            .run_ops(&ops, &mut io, stops(&flag, Some(&wall)))
            .unwrap();
        match wall_after {
            None => assert_eq!(p.done, n as usize),
            Some(_) => assert!(p.done >= 100 && p.done < n as usize, "{}", p.done),
        }
        assert_eq!(latencies.len(), 1 + p.done);
        assert_eq!(latencies[0], 7);
        assert!(latencies[1..].iter().all(|&ns| ns > 0), "{latencies:?}");
    }
    engine.close().unwrap();
}

#[test]
fn writes_at_depth_land_like_one_at_a_time_even_over_one_record() {
    writes_land_like_one_at_a_time(false);
}

#[test]
fn fixed_buffer_writes_at_depth_land_like_one_at_a_time_even_over_one_record() {
    writes_land_like_one_at_a_time(true);
}

fn writes_land_like_one_at_a_time(fixed: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w");
    let Some(mut engine) = open(&path, 32, true) else {
        return;
    };
    let n = 300u64;
    let mut pool = AlignedBuf::zeroed(REC * 16);
    for (i, chunk) in pool.chunks_mut(REC).enumerate() {
        chunk.fill(i as u8 + 1);
    }
    // Random writes over the file, then 40 writes of record 0 (record rewrite).
    let mut ops: Vec<IoOp> = random_permutation(n)
        .into_iter()
        .enumerate()
        .map(|(i, r)| IoOp {
            source: (i % 16) * REC,
            ..IoOp::at(r * REC as u64, REC, OpKind::Write)
        })
        .collect();
    ops.extend((0..40).map(|i| IoOp {
        source: (i % 16) * REC,
        ..IoOp::at(0, REC, OpKind::Write)
    }));
    let mut buf = read_buf(32);
    if fixed && !register(&mut engine, &buf, &pool) {
        return;
    }
    let mut io = LoopIo {
        read_buf: &mut buf,
        slots: 32,
        pool: &mut pool,
        check: &mut NoCheck,
        compute_delay_ns: 0,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    let flag = StopFlag::default();
    let p = engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
    assert_eq!(p.done, ops.len());
    engine.sync().unwrap();
    engine.close().unwrap();
    let mut expect = vec![0u8; n as usize * REC];
    for op in &ops {
        let at = op.offset as usize;
        expect[at..at + REC].copy_from_slice(&pool[op.source..op.source + REC]);
    }
    assert!(
        fs::read(&path).unwrap() == expect,
        "file differs (fixed {fixed})"
    );
}

/// Sends bytes from its own buffer, which it changes on every call.
struct OwnData(Vec<u8>);

impl DataCheck for OwnData {
    fn write_data<'a>(&'a mut self, op: &IoOp, _pool: &'a mut [u8]) -> &'a [u8] {
        self.0.clear();
        self.0.resize(op.len, (op.offset / REC as u64) as u8 ^ 0x5a);
        &self.0
    }
    fn check_read(&mut self, _op: &IoOp, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_data_from_outside_the_pool_is_copied_per_request() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w");
    let Some(mut engine) = open(&path, 8, true) else {
        return;
    };
    let ops: Vec<IoOp> = (0..64u64)
        .map(|r| IoOp::at(r * REC as u64, REC, OpKind::Write))
        .collect();
    let mut buf = read_buf(8);
    // Registered buffers do not cover the check's own data: plain writes.
    if !register(&mut engine, &buf, &[]) {
        return;
    }
    let mut check = OwnData(Vec::new());
    let mut io = LoopIo {
        read_buf: &mut buf,
        slots: 8,
        pool: &mut [],
        check: &mut check,
        compute_delay_ns: 0,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    let flag = StopFlag::default();
    engine.run_ops(&ops, &mut io, stops(&flag, None)).unwrap();
    engine.close().unwrap();
    let file = fs::read(&path).unwrap();
    for (r, rec) in file.chunks(REC).enumerate() {
        assert!(rec.iter().all(|&b| b == r as u8 ^ 0x5a), "record {r}");
    }
}

#[test]
fn errors_name_the_operation_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = record_file(dir.path(), 8);
    let Some(mut engine) = open(&path, 4, false) else {
        return;
    };
    let mut buf = read_buf(4);
    let flag = StopFlag::default();
    // Past the end: a short read.
    let ops = read_ops(&[1, 2, 20, 3]);
    let mut io = LoopIo {
        read_buf: &mut buf,
        slots: 4,
        pool: &mut [],
        check: &mut NoCheck,
        compute_delay_ns: 0,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    let f = engine
        .run_ops(&ops, &mut io, stops(&flag, None))
        .unwrap_err();
    assert_eq!((f.operation, f.offset), ("read", Some(20 * REC as u64)));
    assert_eq!(f.error.kind(), io::ErrorKind::UnexpectedEof, "{}", f.error);
    // A write on a read-only descriptor: the kernel's EBADF.
    let mut pool = AlignedBuf::zeroed(REC);
    let ops = [IoOp::at(0, REC, OpKind::Write)];
    let mut io = LoopIo {
        read_buf: &mut buf,
        slots: 4,
        pool: &mut pool,
        check: &mut NoCheck,
        compute_delay_ns: 0,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    let f = engine
        .run_ops(&ops, &mut io, stops(&flag, None))
        .unwrap_err();
    assert_eq!((f.operation, f.offset), ("write", Some(0)));
    assert_eq!(f.error.raw_os_error(), Some(libc::EBADF));
    // The engine is still usable afterwards.
    let mut one = vec![0u8; REC];
    engine.read_at(&mut one, 5 * REC as u64).unwrap();
    assert_eq!(one[..8], 5u64.to_le_bytes());
}

#[test]
fn single_calls_continue_short_transfers_and_report_eof() {
    let dir = tempfile::tempdir().unwrap();
    let path = record_file(dir.path(), 4);
    let Some(mut engine) = open(&path, 1, true) else {
        return;
    };
    engine.write_at(&[7u8; 100], 3 * REC as u64 + 50).unwrap();
    let mut buf = vec![0u8; 2 * REC];
    engine.read_at(&mut buf, REC as u64).unwrap();
    assert_eq!(buf[..8], 1u64.to_le_bytes());
    // Crosses end of file: the kernel returns part, the rest is EOF.
    let err = engine.read_at(&mut buf, 3 * REC as u64).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    assert!(
        err.to_string().contains(&format!("after {REC} of")),
        "{err}"
    );
    engine.close().unwrap();
    assert!(engine.read_at(&mut buf, 0).is_err());
}
