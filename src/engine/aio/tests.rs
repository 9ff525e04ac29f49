use super::*;
use crate::data::check::NoCheck;
use crate::model::variations::MsyncMode;
use crate::system::signals::StopFlag;

fn spec(depth: u32, no_copy: bool) -> OpenSpec {
    OpenSpec {
        writable: true,
        read_write: false,
        create: false,
        truncate: false,
        extra_flags: 0,
        record_bytes: 4096,
        file_bytes: 16 * 4096,
        depth,
        msync: MsyncMode::None,
        madvise: None,
        aio_no_copy: no_copy,
        expect: None,
    }
}

fn op(kind: OpKind, record: u64, source: usize) -> IoOp {
    IoOp {
        source,
        ..IoOp::at(record * 4096, 4096, kind)
    }
}

#[test]
fn overlap_and_pool_ranges() {
    assert!(overlaps(0, 4096, 0, 4096));
    assert!(overlaps(0, 4096, 4095, 1));
    assert!(!overlaps(0, 4096, 4096, 4096));
    assert!(!overlaps(8192, 4096, 4096, 4096));
    assert!(!overlaps(0, 0, 0, 4096));
    let pool = [0u8; 64];
    let range = pool.as_ptr_range();
    assert!(within(&range, &pool[8..16]));
    assert!(within(&range, &pool[..]));
    let other = [0u8; 8];
    assert!(!within(&range, &other));
}

/// Records which operations a check saw, and what their first byte was.
#[derive(Default)]
struct Seen(Vec<(u64, u8)>);

impl DataCheck for Seen {
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8] {
        &pool[op.source..op.source + op.len]
    }
    fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()> {
        assert_eq!(data.len(), op.len);
        self.0.push((op.offset, data[0]));
        Ok(())
    }
}

fn run<C: DataCheck>(
    e: &mut AioEngine,
    ops: &[IoOp],
    check: &mut C,
    pool: &mut [u8],
    slots: usize,
    stop: &StopFlag,
) -> Result<Progress, LoopFailure> {
    let mut read_buf = vec![0u8; 4096 * slots];
    let mut io = LoopIo {
        read_buf: &mut read_buf,
        slots,
        pool,
        check,
        compute_delay_ns: 0,
        busy_ns: 0,
        timing: crate::engine::OpTiming::none(),
        intervals: None,
    };
    let stops = Stops {
        signal: stop.word(),
        stonewall: None,
    };
    e.run_ops(ops, &mut io, stops)
}

#[test]
fn queued_writes_then_reads_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a");
    std::fs::write(&path, b"").unwrap();
    let mut pool: Vec<u8> = (0..4).flat_map(|i| [i as u8 + 1; 4096]).collect();
    let stop = StopFlag::default();
    for no_copy in [false, true] {
        let mut e = AioEngine::open(&path, &spec(4, no_copy)).unwrap();
        let writes: Vec<IoOp> = (0..16)
            .map(|r| op(OpKind::Write, r, (r as usize % 4) * 4096))
            .collect();
        let p = run(&mut e, &writes, &mut NoCheck, &mut pool, 4, &stop).unwrap();
        assert_eq!((p.bytes, p.done, p.stopped), (16 * 4096, 16, None));
        e.sync().unwrap();

        let reads: Vec<IoOp> = (0..16).rev().map(|r| op(OpKind::Read, r, 0)).collect();
        let mut seen = Seen::default();
        let p = run(&mut e, &reads, &mut seen, &mut pool, 4, &stop).unwrap();
        assert_eq!(p.done, 16);
        seen.0.sort();
        let want: Vec<(u64, u8)> = (0..16).map(|r| (r * 4096, (r % 4) as u8 + 1)).collect();
        assert_eq!(seen.0, want);
        e.close().unwrap();
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 16 * 4096);
}

#[test]
fn overlapping_writes_land_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o");
    std::fs::write(&path, b"").unwrap();
    let mut pool: Vec<u8> = (0..8).flat_map(|i| [i as u8; 4096]).collect();
    // Record 0 rewritten eight times, as -i 4 does: the last write wins.
    let ops: Vec<IoOp> = (0..8).map(|i| op(OpKind::Write, 0, i * 4096)).collect();
    let mut e = AioEngine::open(&path, &spec(8, true)).unwrap();
    let p = run(
        &mut e,
        &ops,
        &mut NoCheck,
        &mut pool,
        8,
        &StopFlag::default(),
    )
    .unwrap();
    assert_eq!(p.done, 8);
    e.close().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 4096]);
}

#[test]
fn short_reads_fail_cleanly_and_stops_drain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    std::fs::write(&path, vec![9u8; 4096 + 100]).unwrap();
    let mut e = AioEngine::open(&path, &spec(4, false)).unwrap();
    let ops: Vec<IoOp> = (0..4).map(|r| op(OpKind::Read, r, 0)).collect();
    let f = run(&mut e, &ops, &mut NoCheck, &mut [], 4, &StopFlag::default()).unwrap_err();
    assert_eq!(f.operation, "read");
    assert_eq!(f.error.kind(), io::ErrorKind::UnexpectedEof, "{}", f.error);
    assert!(f.offset.unwrap() >= 4096);

    // read_at: one request; a short one is an error too.
    let mut buf = vec![0u8; 4096];
    e.read_at(&mut buf, 0).unwrap();
    assert_eq!(buf, vec![9u8; 4096]);
    assert!(e.read_at(&mut buf, 4096).is_err());

    // A stop before the first submission: nothing is done, nothing left in flight.
    let stop = StopFlag::default();
    stop.raise(libc::SIGINT);
    let p = run(&mut e, &ops[..1], &mut NoCheck, &mut [], 4, &stop).unwrap();
    assert_eq!(p.done, 0);
    assert!(p.stopped.is_some());
    e.close().unwrap();
}

/// Builds each write's data in one buffer of its own, overwritten by the
/// next write (as -+d does): in-flight writes must not see the next one's data.
struct PerOp(Vec<u8>);

impl DataCheck for PerOp {
    fn write_data<'a>(&'a mut self, op: &IoOp, _pool: &'a mut [u8]) -> &'a [u8] {
        self.0.clear();
        self.0.resize(op.len, (op.offset / 4096) as u8 + 100);
        &self.0
    }
    fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()> {
        let want = (op.offset / 4096) as u8 + 100;
        match data.iter().position(|&b| b != want) {
            None => Ok(()),
            Some(i) => Err(io::Error::other(format!("byte {i} of {}", op.offset))),
        }
    }
}

#[test]
fn write_data_from_outside_the_pool_stays_put_while_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p");
    std::fs::write(&path, b"").unwrap();
    let mut e = AioEngine::open(&path, &spec(4, false)).unwrap();
    let mut check = PerOp(Vec::new());
    let writes: Vec<IoOp> = (0..16).map(|r| op(OpKind::Write, r, 0)).collect();
    let stop = StopFlag::default();
    run(&mut e, &writes, &mut check, &mut [0u8; 4096], 4, &stop).unwrap();
    let reads: Vec<IoOp> = (0..16).map(|r| op(OpKind::Read, r, 0)).collect();
    let p = run(&mut e, &reads, &mut check, &mut [], 4, &stop).unwrap();
    assert_eq!(p.done, 16);
    e.close().unwrap();
    let data = std::fs::read(&path).unwrap();
    for (r, record) in data.chunks(4096).enumerate() {
        assert!(record.iter().all(|&b| b == r as u8 + 100), "record {r}");
    }
}

/// Raises a stonewall after `after` reads.
struct WallAfter<'a> {
    after: usize,
    reads: usize,
    wall: &'a std::sync::atomic::AtomicBool,
}

impl DataCheck for WallAfter<'_> {
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8] {
        &pool[op.source..op.source + op.len]
    }
    fn check_read(&mut self, _op: &IoOp, _data: &[u8]) -> io::Result<()> {
        self.reads += 1;
        if self.reads >= self.after {
            self.wall.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }
}

#[test]
fn q_latencies_follow_the_operations_done() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q");
    std::fs::write(&path, vec![3u8; 64 * 4096]).unwrap();
    let mut e = AioEngine::open(&path, &spec(8, true)).unwrap();
    let ops: Vec<IoOp> = crate::data::pattern::random_permutation(64)
        .into_iter()
        .map(|r| op(OpKind::Read, r, 0))
        .collect();
    let stop = StopFlag::default();
    for wall_after in [usize::MAX, 20] {
        let wall = std::sync::atomic::AtomicBool::new(false);
        let mut check = WallAfter {
            after: wall_after,
            reads: 0,
            wall: &wall,
        };
        // An earlier pass's latency is kept in front.
        let mut latencies = vec![7u64];
        let mut read_buf = vec![0u8; 4096 * 8];
        let mut io = LoopIo {
            read_buf: &mut read_buf,
            slots: 8,
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
        let stops = Stops {
            signal: stop.word(),
            stonewall: Some(&wall),
        };
        let p = e.run_ops(&ops, &mut io, stops).unwrap();
        if wall_after == usize::MAX {
            assert_eq!(p.done, 64);
        } else {
            assert!(p.done >= 20 && p.done < 64, "done {}", p.done);
        }
        assert_eq!(latencies.len(), 1 + p.done);
        assert_eq!(latencies[0], 7);
        assert!(latencies[1..].iter().all(|&ns| ns > 0), "{latencies:?}");
    }
    e.close().unwrap();
}

#[test]
fn depth_is_capped_by_the_read_slots() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c");
    std::fs::write(&path, vec![5u8; 8 * 4096]).unwrap();
    let mut e = AioEngine::open(&path, &spec(8, true)).unwrap();
    let ops: Vec<IoOp> = (0..8).map(|r| op(OpKind::Read, r, 0)).collect();
    let mut seen = Seen::default();
    // Only one slot: one request at a time, and every read checked.
    let p = run(&mut e, &ops, &mut seen, &mut [], 1, &StopFlag::default()).unwrap();
    assert_eq!(p.done, 8);
    assert!(seen.0.iter().all(|&(_, b)| b == 5));
    e.write_at(&[1u8; 4096], 0).unwrap();
    e.close().unwrap();
    assert_eq!(std::fs::read(&path).unwrap()[..4096], [1u8; 4096]);
}
