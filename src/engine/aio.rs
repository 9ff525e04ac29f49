//! POSIX AIO with several requests in flight (-H, -k): glibc's `aio_read`,
//! `aio_write`, `aio_suspend`, `aio_error` and `aio_return`.
//!
//! [`Engine::run_ops`] keeps up to `depth` requests in flight (no more than the
//! loop has read slots). Each request has its own control block and, for a
//! read, its own read slot; a completed read is checked before its slot is
//! used again. An operation that overlaps one still in flight waits for it, so
//! the file ends up as a one-at-a-time run would leave it (record rewrite, -i 4,
//! writes record 0 over and over). Stops are checked before each submission;
//! whatever is in flight is always drained before `run_ops` returns, so the
//! operations done are a prefix of `ops` and no request outlives its buffers.
//!
//! **Copy or no copy.** IOzone's `-k` hands the AIO library's own buffers back
//! to the test without copying, while `-H` copies (`bcopy`) each completed
//! read from the library's buffer into the test's buffer. Here the read slots
//! already are the I/O buffers, so `-k` uses the data where it landed, and
//! `-H` copies each completed read into one destination buffer (and checks
//! it there) — the copy IOzone pays for, so the two modes differ as IOzone's
//! do. Writes are submitted straight from the write pool in both modes.
//!
//! A request that moves fewer bytes than asked is finished synchronously with
//! `pread`/`pwrite`; an error becomes the failure of that operation.

use std::io;
use std::os::fd::RawFd;
use std::path::Path;
use std::ptr::NonNull;

use super::batch::{QueuedLatencies, delay_before, probe_with_pread};
use super::{
    DataCheck, Descriptor, Engine, LoopFailure, LoopIo, OpenSpec, Progress, Stops, transfer_all,
};
use crate::buffer::AlignedBuf;
use crate::clock::now_ns;
use crate::pattern::{IoOp, OpKind};

pub struct AioEngine {
    fd: Descriptor,
    /// One control block per request in flight. Allocated once and reached
    /// only through raw pointers, because the library's threads write into
    /// them while a request runs; freed in Drop.
    cbs: NonNull<libc::aiocb>,
    depth: usize,
    /// The control blocks in flight (null where free), as aio_suspend wants.
    waiting: Box<[*const libc::aiocb]>,
    /// The index in `ops` of the operation each control block carries.
    op_of: Box<[usize]>,
    /// `-Q`: when each control block's request was submitted.
    submitted_ns: Box<[u64]>,
    /// Free control blocks.
    free: Vec<usize>,
    /// `-H`: completed reads are copied here; None for `-k`.
    copy_to: Option<AlignedBuf>,
}

// No request outlives the call that submitted it (every call drains what it
// started), so between calls the engine owns only plain memory.
unsafe impl Send for AioEngine {}

impl AioEngine {
    pub fn open(path: &Path, spec: &OpenSpec) -> io::Result<AioEngine> {
        let fd = Descriptor::open(path, spec)?;
        let depth = (spec.depth.max(1)) as usize;
        // SAFETY: aiocb is plain data; all zeroes is a valid (idle) value.
        let blocks: Box<[libc::aiocb]> =
            (0..depth).map(|_| unsafe { std::mem::zeroed() }).collect();
        let cbs = NonNull::new(Box::into_raw(blocks).cast::<libc::aiocb>())
            .expect("Box::into_raw is never null");
        Ok(AioEngine {
            fd,
            cbs,
            depth,
            waiting: vec![std::ptr::null(); depth].into_boxed_slice(),
            op_of: vec![0; depth].into_boxed_slice(),
            submitted_ns: vec![0; depth].into_boxed_slice(),
            free: (0..depth).rev().collect(),
            copy_to: (!spec.aio_no_copy).then(|| AlignedBuf::zeroed(spec.record_bytes.max(1))),
        })
    }

    #[inline]
    fn cb(&self, slot: usize) -> *mut libc::aiocb {
        debug_assert!(slot < self.depth);
        // SAFETY: slot < depth, inside the allocation.
        unsafe { self.cbs.as_ptr().add(slot) }
    }

    /// Starts a read or write of `len` bytes at `buf` ↔ `offset` on control
    /// block `slot`. The memory at `buf` must stay valid and untouched until
    /// the request is reaped.
    fn submit(
        &mut self,
        slot: usize,
        kind: OpKind,
        buf: *mut u8,
        len: usize,
        offset: u64,
    ) -> io::Result<()> {
        let cb = self.cb(slot);
        // SAFETY: the block is free (not in flight), so nothing else touches it;
        // zeroed is a valid aiocb, then we fill in the request.
        let ret = unsafe {
            cb.write(std::mem::zeroed());
            (*cb).aio_fildes = self.fd.raw();
            (*cb).aio_buf = buf.cast();
            (*cb).aio_nbytes = len;
            (*cb).aio_offset = offset as libc::off_t;
            (*cb).aio_sigevent.sigev_notify = libc::SIGEV_NONE;
            match kind {
                OpKind::Read => libc::aio_read(cb),
                OpKind::Write => libc::aio_write(cb),
            }
        };
        if ret < 0 {
            return Err(io::Error::last_os_error());
        }
        self.waiting[slot] = cb;
        Ok(())
    }

    /// Blocks until at least one request in flight has finished (or a signal
    /// arrived: the caller looks again either way).
    fn wait_any(&self) -> io::Result<()> {
        // SAFETY: `waiting` holds `depth` entries, each null or a block in flight.
        let r = unsafe {
            libc::aio_suspend(
                self.waiting.as_ptr(),
                self.depth as libc::c_int,
                std::ptr::null(),
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) | Some(libc::EAGAIN) => Ok(()),
            _ => Err(e),
        }
    }

    /// The result of the request on `slot` if it has finished (which frees
    /// the slot), or None while it runs. Ok(n) is the bytes it moved.
    fn reap(&mut self, slot: usize) -> Option<io::Result<usize>> {
        if self.waiting[slot].is_null() {
            return None;
        }
        let cb = self.cb(slot);
        // SAFETY: the block is in flight; aio_error may be asked at any time.
        let err = unsafe { libc::aio_error(cb) };
        if err == libc::EINPROGRESS {
            return None;
        }
        // SAFETY: the request finished; aio_return is called once for it.
        let ret = unsafe { libc::aio_return(cb) };
        self.waiting[slot] = std::ptr::null();
        self.free.push(slot);
        Some(match err {
            0 if ret >= 0 => Ok(ret as usize),
            0 => Err(io::Error::last_os_error()),
            e if e > 0 => Err(io::Error::from_raw_os_error(e)),
            _ => Err(io::Error::last_os_error()),
        })
    }

    /// The buffer and length of the request last submitted on `slot`.
    #[inline]
    fn request(&self, slot: usize) -> (*mut u8, usize, u64) {
        // SAFETY: the block is no longer in flight; reading its fields is a plain read.
        unsafe {
            let cb = &*self.cb(slot);
            (cb.aio_buf.cast(), cb.aio_nbytes, cb.aio_offset as u64)
        }
    }

    /// Finishes a request that moved `moved` bytes: continues a short transfer
    /// synchronously, as the other engines continue short reads and writes.
    fn complete(&self, slot: usize, kind: OpKind, moved: usize) -> io::Result<()> {
        let (buf, len, offset) = self.request(slot);
        if moved >= len {
            return Ok(());
        }
        finish_short(self.fd.raw(), kind, buf, len, offset, moved)
    }

    /// `-H`: the copy of a completed read into the destination buffer; returns
    /// the bytes to check (the copy with -H, the slot itself with -k).
    #[inline]
    fn copied<'a>(copy_to: &'a mut Option<AlignedBuf>, data: &'a [u8]) -> &'a [u8] {
        match copy_to {
            Some(dest) => {
                if dest.len() < data.len() {
                    *dest = AlignedBuf::zeroed(data.len());
                }
                let dest = &mut dest[..data.len()];
                dest.copy_from_slice(data);
                dest
            }
            None => data,
        }
    }

    /// One request, waited for: read_at and write_at.
    fn one(&mut self, kind: OpKind, buf: *mut u8, len: usize, offset: u64) -> io::Result<()> {
        debug_assert!(self.waiting.iter().all(|p| p.is_null()));
        let slot = self.free.pop().expect("no request is in flight");
        if let Err(e) = self.submit(slot, kind, buf, len, offset) {
            self.free.push(slot);
            return Err(e);
        }
        loop {
            if let Some(result) = self.reap(slot) {
                return result.and_then(|n| self.complete(slot, kind, n));
            }
            if let Err(e) = self.wait_any() {
                self.drain();
                return Err(e);
            }
        }
    }

    /// Waits for every request in flight, discarding the results.
    fn drain(&mut self) {
        while self.free.len() < self.depth {
            for slot in 0..self.depth {
                let _ = self.reap(slot);
            }
            if self.free.len() < self.depth && self.wait_any().is_err() {
                // aio_suspend itself failing leaves only polling.
                std::thread::yield_now();
            }
        }
    }
}

/// Whether `a..a+a_len` and `b..b+b_len` share a byte.
#[inline]
fn overlaps(a: u64, a_len: usize, b: u64, b_len: usize) -> bool {
    a < b + b_len as u64 && b < a + a_len as u64
}

/// Whether `range` lies wholly inside `pool` (so it stays valid and unchanged
/// while a write from it is in flight).
#[inline]
fn within(pool: &[u8], data: &[u8]) -> bool {
    let p = pool.as_ptr_range();
    let d = data.as_ptr_range();
    p.start <= d.start && d.end <= p.end
}

/// Finishes a transfer of `len` bytes at `buf` ↔ `offset` of which the first
/// `moved` were done: pread/pwrite the rest, as the other engines do.
fn finish_short(
    fd: RawFd,
    kind: OpKind,
    buf: *mut u8,
    len: usize,
    offset: u64,
    moved: usize,
) -> io::Result<()> {
    let mut first = Some(moved);
    transfer_all(len, kind == OpKind::Read, |done| {
        // The asynchronous request's bytes count as the first step (0 bytes
        // means end of file for a read, or a write the kernel refused).
        if let Some(n) = first.take() {
            return n as isize;
        }
        let at = (offset + done as u64) as libc::off_t;
        // SAFETY: buf+done..buf+len lies inside the request's buffer, which the
        // caller keeps valid and no request is using any more.
        unsafe {
            match kind {
                OpKind::Read => libc::pread(fd, buf.add(done).cast(), len - done, at),
                OpKind::Write => libc::pwrite(fd, buf.add(done).cast(), len - done, at),
            }
        }
    })
}

impl Engine for AioEngine {
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.one(OpKind::Read, buf.as_mut_ptr(), buf.len(), offset)?;
        Self::copied(&mut self.copy_to, buf);
        Ok(())
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        // aio_write only reads the buffer; the pointer is mut because aiocb's is.
        self.one(OpKind::Write, buf.as_ptr().cast_mut(), buf.len(), offset)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.fd.fsync()
    }

    fn close(&mut self) -> io::Result<()> {
        self.fd.close()
    }

    fn raw_fd(&self) -> RawFd {
        self.fd.raw()
    }

    fn run_ops<C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure> {
        // Two compiled loops, so the usual one reads no clock per request.
        if io.latencies.is_some() {
            self.run_queued::<true, C>(ops, io, stops)
        } else {
            self.run_queued::<false, C>(ops, io, stops)
        }
    }
}

impl AioEngine {
    /// The timed loop. With `RECORD_LATENCY` (-Q), each operation's latency
    /// is from just before its `aio_read`/`aio_write` to when ioz sees it
    /// finished (after the `aio_suspend` that returned with it done).
    #[inline(always)]
    fn run_queued<const RECORD_LATENCY: bool, C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure> {
        if RECORD_LATENCY {
            QueuedLatencies::prepare(io, ops.len());
        }
        let slots = io.slots.max(1);
        let slot_bytes = io.read_buf.len() / slots;
        // Never more in flight than the loop has read slots for.
        let depth = self.depth.min(slots);
        let mut progress = Progress::default();
        let mut failure: Option<LoopFailure> = None;
        let mut next = 0;
        let mut in_flight = 0;
        let mut probed = usize::MAX;
        loop {
            // Submit while there is room, nothing has failed and no stop came.
            while next < ops.len()
                && in_flight < depth
                && failure.is_none()
                && progress.stopped.is_none()
            {
                let op = &ops[next];
                let busy = self.waiting.iter().enumerate().any(|(slot, p)| {
                    !p.is_null() && {
                        let other = &ops[self.op_of[slot]];
                        overlaps(op.offset, op.len, other.offset, other.len)
                    }
                });
                if busy {
                    break;
                }
                if let Some(why) = stops.check() {
                    progress.stopped = Some(why);
                    break;
                }
                let slot = *self.free.last().expect("a free control block");
                // -K: once per operation, though a submission the library
                // has no room for is tried again.
                if op.probes.any() && probed != next {
                    let probe_buf = io.read_slot(slot, op.probes.bytes_each());
                    if let Err(f) = probe_with_pread(self.fd.raw(), probe_buf, op) {
                        failure = Some(f);
                        break;
                    }
                    probed = next;
                }
                let too_big = op.len > slot_bytes;
                // The slot's buffer: for a read, where the data lands; for a
                // write whose data is not in the pool (a check that builds it
                // per operation), a stable copy while the request runs.
                let buf = match op.kind {
                    OpKind::Read if !too_big => io.read_slot(slot, op.len).as_mut_ptr(),
                    OpKind::Write => {
                        let data = io.check.write_data(op, io.pool);
                        if within(io.pool, data) {
                            data.as_ptr().cast_mut()
                        } else if too_big {
                            std::ptr::null_mut()
                        } else {
                            let data_ptr = data.as_ptr();
                            let dest = io.read_slot(slot, op.len);
                            // SAFETY: data is op.len bytes the check owns, and
                            // disjoint from the read slot it is copied into.
                            unsafe {
                                std::ptr::copy_nonoverlapping(data_ptr, dest.as_mut_ptr(), op.len)
                            };
                            dest.as_mut_ptr()
                        }
                    }
                    OpKind::Read => std::ptr::null_mut(),
                };
                if buf.is_null() {
                    failure = Some(LoopFailure::of(
                        op,
                        io::Error::other(format!(
                            "{}-byte operation is larger than its {slot_bytes}-byte buffer slot",
                            op.len
                        )),
                    ));
                    break;
                }
                io.busy_ns += delay_before(op, io.compute_delay_ns);
                if RECORD_LATENCY {
                    self.submitted_ns[slot] = now_ns();
                }
                match self.submit(slot, op.kind, buf, op.len, op.offset) {
                    Ok(()) => {
                        self.free.pop();
                        self.op_of[slot] = next;
                        next += 1;
                        in_flight += 1;
                    }
                    // The library is out of resources: wait for a request to finish.
                    Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && in_flight > 0 => break,
                    Err(e) => {
                        failure = Some(LoopFailure::of(op, e));
                        break;
                    }
                }
            }
            if in_flight == 0 {
                break;
            }
            if let Err(e) = self.wait_any() {
                failure.get_or_insert(LoopFailure::of(&ops[next.saturating_sub(1)], e));
                self.drain();
                break;
            }
            // Every request this scan finds done was seen done at this moment.
            let seen_ns = if RECORD_LATENCY { now_ns() } else { 0 };
            for slot in 0..self.depth {
                let Some(result) = self.reap(slot) else {
                    continue;
                };
                in_flight -= 1;
                let index = self.op_of[slot];
                let op = &ops[index];
                if failure.is_some() {
                    continue; // draining after a failure: results no longer matter
                }
                if RECORD_LATENCY {
                    let ns = seen_ns.saturating_sub(self.submitted_ns[slot]);
                    QueuedLatencies::record(&mut io.latencies, index, ns);
                }
                let done = result.and_then(|n| self.complete(slot, op.kind, n));
                let checked = done.and_then(|()| match op.kind {
                    OpKind::Read => {
                        let (buf, len, _) = self.request(slot);
                        // SAFETY: the read into this slot finished; nothing
                        // else writes the slot until it is submitted again.
                        let data = unsafe { std::slice::from_raw_parts(buf, len) };
                        io.check
                            .check_read(op, Self::copied(&mut self.copy_to, data))
                    }
                    OpKind::Write => Ok(()),
                });
                match checked {
                    Ok(()) => {
                        progress.bytes += op.len as u64;
                        progress.done += 1;
                    }
                    Err(e) => failure = Some(LoopFailure::of(op, e)),
                }
            }
        }
        match failure {
            Some(f) => Err(f),
            None => {
                if RECORD_LATENCY {
                    // SAFETY: without a failure every request submitted was
                    // reaped (and recorded), and they are the first
                    // `progress.done` operations: submitted in order, none after a stop.
                    unsafe { QueuedLatencies::commit(io, progress.done) };
                }
                Ok(progress)
            }
        }
    }
}

impl Drop for AioEngine {
    fn drop(&mut self) {
        // Only a panic can leave requests in flight; wait for them before the
        // control blocks (and the buffers they point at) go away.
        self.drain();
        // SAFETY: the blocks came from Box::into_raw of a `depth`-long boxed
        // slice and nothing refers to them any more.
        drop(unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                self.cbs.as_ptr(),
                self.depth,
            ))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NoCheck;
    use crate::signals::StopFlag;
    use crate::variations::MsyncMode;

    fn spec(depth: u32, no_copy: bool) -> OpenSpec {
        OpenSpec {
            writable: true,
            create: false,
            truncate: false,
            extra_flags: 0,
            record_bytes: 4096,
            file_bytes: 16 * 4096,
            depth,
            msync: MsyncMode::None,
            madvise: None,
            aio_no_copy: no_copy,
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
        assert!(within(&pool, &pool[8..16]));
        assert!(within(&pool, &pool[..]));
        let other = [0u8; 8];
        assert!(!within(&pool, &other));
    }

    /// Records which operations a check saw, and what their first byte was.
    #[derive(Default)]
    struct Seen(Vec<(u64, u8)>);

    impl DataCheck for Seen {
        fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a [u8]) -> &'a [u8] {
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
        pool: &[u8],
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
            latencies: None,
        };
        let stops = Stops {
            signal: stop,
            stonewall: None,
        };
        e.run_ops(ops, &mut io, stops)
    }

    #[test]
    fn queued_writes_then_reads_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        std::fs::write(&path, b"").unwrap();
        let pool: Vec<u8> = (0..4).flat_map(|i| [i as u8 + 1; 4096]).collect();
        let stop = StopFlag::default();
        for no_copy in [false, true] {
            let mut e = AioEngine::open(&path, &spec(4, no_copy)).unwrap();
            let writes: Vec<IoOp> = (0..16)
                .map(|r| op(OpKind::Write, r, (r as usize % 4) * 4096))
                .collect();
            let p = run(&mut e, &writes, &mut NoCheck, &pool, 4, &stop).unwrap();
            assert_eq!((p.bytes, p.done, p.stopped), (16 * 4096, 16, None));
            e.sync().unwrap();

            let reads: Vec<IoOp> = (0..16).rev().map(|r| op(OpKind::Read, r, 0)).collect();
            let mut seen = Seen::default();
            let p = run(&mut e, &reads, &mut seen, &pool, 4, &stop).unwrap();
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
        let pool: Vec<u8> = (0..8).flat_map(|i| [i as u8; 4096]).collect();
        // Record 0 rewritten eight times, as -i 4 does: the last write wins.
        let ops: Vec<IoOp> = (0..8).map(|i| op(OpKind::Write, 0, i * 4096)).collect();
        let mut e = AioEngine::open(&path, &spec(8, true)).unwrap();
        let p = run(&mut e, &ops, &mut NoCheck, &pool, 8, &StopFlag::default()).unwrap();
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
        let f = run(&mut e, &ops, &mut NoCheck, &[], 4, &StopFlag::default()).unwrap_err();
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
        let p = run(&mut e, &ops[..1], &mut NoCheck, &[], 4, &stop).unwrap();
        assert_eq!(p.done, 0);
        assert!(p.stopped.is_some());
        e.close().unwrap();
    }

    /// Builds each write's data in one buffer of its own, overwritten by the
    /// next write (as -+d does): in-flight writes must not see the next one's data.
    struct PerOp(Vec<u8>);

    impl DataCheck for PerOp {
        fn write_data<'a>(&'a mut self, op: &IoOp, _pool: &'a [u8]) -> &'a [u8] {
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
        run(&mut e, &writes, &mut check, &[0u8; 4096], 4, &stop).unwrap();
        let reads: Vec<IoOp> = (0..16).map(|r| op(OpKind::Read, r, 0)).collect();
        let p = run(&mut e, &reads, &mut check, &[], 4, &stop).unwrap();
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
        fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a [u8]) -> &'a [u8] {
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
        let ops: Vec<IoOp> = crate::pattern::random_permutation(64)
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
                pool: &[],
                check: &mut check,
                compute_delay_ns: 0,
                busy_ns: 0,
                latencies: Some(&mut latencies),
            };
            let stops = Stops {
                signal: &stop,
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
        let p = run(&mut e, &ops, &mut seen, &[], 1, &StopFlag::default()).unwrap();
        assert_eq!(p.done, 8);
        assert!(seen.0.iter().all(|&(_, b)| b == 5));
        e.write_at(&[1u8; 4096], 0).unwrap();
        e.close().unwrap();
        assert_eq!(std::fs::read(&path).unwrap()[..4096], [1u8; 4096]);
    }
}
