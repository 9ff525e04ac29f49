//! One pass: open (untimed), flush what earlier passes left dirty (untimed),
//! the timed loop, then fsync and close (untimed unless -e/-c), and the byte
//! check. The steps are public so throughput workers run the same ones with a
//! barrier between setup and the timed loop.

use std::io;
use std::path::Path;

use nix::sys::resource::{UsageWho, getrusage};

use super::timed::{
    EarlyStop, LoopFailure, LoopIo, LoopOutcome, NoCheck, Stops, TimedExtras, timed_loop,
};
use crate::data::dedup::ImageWrites;
use crate::data::pattern::IoOp;
use crate::data::verify::Verifier;
use crate::engine::{
    AioEngine, Engine, LockedEngine, MmapEngine, OpenSpec, PositionalEngine, StdioEngine,
    SyncEngine, UringEngine, VectoredEngine, latency_buffer,
};
use crate::error::IoFailure;
use crate::model::config::RunConfig;
use crate::model::plan::Cell;
use crate::model::result::Measurement;
use crate::model::variations::{DropCaches, EngineChoice};
use crate::model::workload::{Direction, EngineKind, Pass};
use crate::system::signals::StopFlag;

/// Everything a pass needs that was prepared before it.
pub struct PassInputs<'a> {
    pub config: &'a RunConfig,
    pub cell: &'a Cell,
    pub path: &'a Path,
    pub ops: &'a [IoOp],
    pub read_buf: &'a mut [u8],
    pub pool: &'a [u8],
    pub stop: &'a StopFlag,
}

pub enum PassEnd {
    Measured(Measurement),
    Interrupted(i32),
}

/// The engine a pass runs on: its own, unless --engine (or -B, -H, -k) picks
/// one for the tests that move records with read/write or pread/pwrite. The
/// stdio (6, 7) and vectored (11, 12) tests keep their engines: that is what
/// they measure.
pub fn engine_for(pass: Pass, config: &RunConfig) -> EngineChoice {
    let own = match pass.engine() {
        EngineKind::Sync => EngineChoice::Sync,
        EngineKind::Positional => EngineChoice::Psync,
        EngineKind::Vectored => return EngineChoice::Vec,
        EngineKind::Stdio => return EngineChoice::Stdio,
    };
    config.variations.engine.unwrap_or(own)
}

/// Operations in flight for the pass's engine.
pub fn depth_for(pass: Pass, config: &RunConfig) -> u32 {
    match engine_for(pass, config) {
        EngineChoice::Aio | EngineChoice::IoUring => config.variations.iodepth.max(1),
        _ => 1,
    }
}

/// How the pass opens the file, from its direction and the run's options.
pub fn open_spec(pass: Pass, config: &RunConfig, cell: &Cell) -> OpenSpec {
    let writable = pass.direction() != Direction::Read;
    let mut flags = 0;
    if config.open.direct {
        flags |= libc::O_DIRECT;
    }
    if config.open.sync_all {
        flags |= libc::O_RSYNC | libc::O_SYNC;
    }
    if writable && config.open.sync_writes {
        flags |= libc::O_SYNC;
    }
    if writable && config.open.dsync_writes {
        flags |= libc::O_DSYNC;
    }
    OpenSpec {
        writable,
        create: false,
        truncate: pass.truncates() && !config.variations.no_truncate,
        extra_flags: flags,
        // A telemetry pass's "record" is its largest operation.
        record_bytes: crate::model::plan::pass_size(config, cell, pass).largest as usize,
        file_bytes: if config.telemetry.is_some() {
            cell.file_bytes
        } else {
            cell.pass_bytes()
        },
        depth: depth_for(pass, config),
        msync: config.variations.msync,
        madvise: config.variations.madvise,
        aio_no_copy: config.variations.aio_no_copy,
    }
}

/// Work to do with an opened engine, whatever its type: the engine is a type
/// parameter so the timed loop is compiled for each engine, with no dynamic calls.
pub trait WithEngine {
    type Output;
    fn run<E: Engine>(self, engine: E) -> Self::Output;
}

/// Opens the engine `pass` uses on `path` (untimed) and hands it to `body`.
pub fn with_engine<W: WithEngine>(
    pass: Pass,
    config: &RunConfig,
    path: &Path,
    cell: &Cell,
    body: W,
) -> Result<W::Output, IoFailure> {
    with_engine_opened(pass, config, path, open_spec(pass, config, cell), body)
}

/// [`with_engine`], opening the file as `spec` says.
pub fn with_engine_opened<W: WithEngine>(
    pass: Pass,
    config: &RunConfig,
    path: &Path,
    spec: OpenSpec,
    body: W,
) -> Result<W::Output, IoFailure> {
    let fail = failure(pass, path);
    let open_failure = |e: io::Error| {
        if config.open.direct && e.raw_os_error() == Some(libc::EINVAL) {
            fail(
                "open with O_DIRECT (-I)",
                None,
                io::Error::new(e.kind(), "the file system does not support O_DIRECT"),
            )
        } else {
            fail("open", None, e)
        }
    };
    let locking = config.record_locking;
    macro_rules! open_and_run {
        ($engine:ty) => {
            run_maybe_locked(
                <$engine>::open(path, &spec).map_err(open_failure)?,
                locking,
                body,
            )
        };
    }
    Ok(match engine_for(pass, config) {
        EngineChoice::Sync => open_and_run!(SyncEngine),
        EngineChoice::Psync => open_and_run!(PositionalEngine),
        EngineChoice::Vec => open_and_run!(VectoredEngine),
        EngineChoice::Stdio => open_and_run!(StdioEngine),
        EngineChoice::Mmap => open_and_run!(MmapEngine),
        EngineChoice::Aio => open_and_run!(AioEngine),
        EngineChoice::IoUring => open_and_run!(UringEngine),
    })
}

/// Runs `body` on the engine, wrapped in per-record locking with -+l/-+L.
fn run_maybe_locked<E: Engine, W: WithEngine>(engine: E, locking: bool, body: W) -> W::Output {
    if locking {
        body.run(LockedEngine::new(engine))
    } else {
        body.run(engine)
    }
}

pub fn run_pass(pass: Pass, inputs: PassInputs<'_>) -> Result<PassEnd, IoFailure> {
    let (config, path, cell) = (inputs.config, inputs.path, inputs.cell);
    with_engine(pass, config, path, cell, SinglePass { pass, inputs })?
}

/// A pass of single or auto mode.
struct SinglePass<'a> {
    pass: Pass,
    inputs: PassInputs<'a>,
}

impl WithEngine for SinglePass<'_> {
    type Output = Result<PassEnd, IoFailure>;

    fn run<E: Engine>(self, mut engine: E) -> Self::Output {
        let SinglePass { pass, inputs } = self;
        let fail = failure(pass, inputs.path);
        let buffers = (&*inputs.read_buf, inputs.pool);
        before_loop(&mut engine, pass, inputs.config, inputs.path, buffers)?;
        // -Q: room for every operation's latency, reserved before the clock.
        let mut latencies = inputs
            .config
            .variations
            .offset_latency_files
            .then(|| latency_buffer(inputs.ops.len()));
        // -V/-+d: the check and its write buffer, made before the clock.
        let mut check = Verifier::for_pass(pass, inputs.config, inputs.ops);
        let (user0, sys0) = cpu_ns(UsageWho::RUSAGE_SELF);
        let stops = Stops {
            signal: inputs.stop.word(),
            stonewall: None,
        };
        let outcome = timed(
            &mut engine,
            pass,
            inputs.config,
            inputs.path,
            inputs.ops,
            inputs.read_buf,
            inputs.pool,
            stops,
            check.as_mut(),
            latencies.as_mut(),
        )?;
        let (user1, sys1) = cpu_ns(UsageWho::RUSAGE_SELF);
        after_loop(&mut engine, pass, inputs.config, inputs.path)?;
        if let Some(EarlyStop::Signal(sig)) = outcome.stopped {
            return Ok(PassEnd::Interrupted(sig));
        }
        if let Some(latencies) = &latencies {
            let cpu = (user1.saturating_sub(user0), sys1.saturating_sub(sys0));
            crate::report::latency_files::append(
                pass,
                inputs.ops,
                latencies,
                cpu,
                outcome.elapsed_ns(),
            )
            .map_err(|e| fail("write the -Q latency file for", None, e))?;
        }
        // Whole records, or with telemetry the sum of the replayed sizes.
        let size = crate::model::plan::pass_size(inputs.config, inputs.cell, pass);
        let expected = size.bytes;
        if outcome.bytes != expected {
            return Err(fail(
                "check byte count of",
                None,
                io::Error::other(format!(
                    "moved {} bytes, expected {expected}",
                    outcome.bytes
                )),
            ));
        }
        Ok(PassEnd::Measured(Measurement {
            pass,
            file_bytes: inputs.cell.file_bytes,
            record_bytes: inputs.cell.record_bytes,
            workers: 1,
            bytes: outcome.bytes,
            records: size.ops,
            elapsed_ns: outcome.elapsed_ns(),
            cpu_user_ns: user1.saturating_sub(user0),
            cpu_system_ns: sys1.saturating_sub(sys0),
        }))
    }
}

/// Builds the error for an operation of `pass` on `path`.
pub fn failure(
    pass: Pass,
    path: &Path,
) -> impl Fn(&'static str, Option<u64>, io::Error) -> IoFailure + '_ {
    move |operation, offset, source| IoFailure {
        operation,
        path: path.to_path_buf(),
        offset,
        pass: Some(pass),
        source,
    }
}

/// User and system CPU time of this process (RUSAGE_SELF) or thread (RUSAGE_THREAD), ns.
pub fn cpu_ns(who: UsageWho) -> (u64, u64) {
    match getrusage(who) {
        Ok(u) => {
            let ns = |t: nix::sys::time::TimeVal| {
                t.tv_sec() as u64 * 1_000_000_000 + t.tv_usec() as u64 * 1000
            };
            (ns(u.user_time()), ns(u.system_time()))
        }
        Err(_) => (0, 0),
    }
}

fn lock(fd: i32, kind: libc::c_int) -> io::Result<()> {
    // SAFETY: flock is plain data; zeroed is a valid starting value.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    // l_start = 0, l_len = 0: the whole file.
    // SAFETY: F_SETLKW with a valid flock struct on our descriptor.
    if unsafe { libc::fcntl(fd, libc::F_SETLKW, &fl) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `-p`: evict the CPU caches before a pass (untimed) by walking a buffer
/// twice the cache's size, one write per cache line. The size is -S, else the
/// largest cache sysfs reports for CPU 0, else IOzone's 1 MiB.
fn purge_cpu_cache(config: &RunConfig) {
    let cache = config.variations.cpu_cache_bytes.unwrap_or_else(|| {
        crate::system::environment::cpu0_caches()
            .iter()
            .map(|c| c.size_bytes)
            .max()
            .unwrap_or(1 << 20)
    });
    let line = config.variations.cache_line_bytes.unwrap_or(64).max(1) as usize;
    let mut scratch = vec![0u8; (2 * cache) as usize];
    for i in (0..scratch.len()).step_by(line) {
        scratch[i] = scratch[i].wrapping_add(1);
    }
    std::hint::black_box(&scratch);
}

/// `--drop-caches`: evict the file's pages (after the fsync above wrote them
/// back), and with `=all` every clean page of the machine; untimed.
fn drop_caches(fd: i32, how: DropCaches) -> io::Result<()> {
    if how == DropCaches::None {
        return Ok(());
    }
    // SAFETY: plain syscall on an open descriptor.
    let r = unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    if how == DropCaches::All {
        // SAFETY: sync has no preconditions.
        unsafe { libc::sync() };
        std::fs::write("/proc/sys/vm/drop_caches", b"3\n")?;
    }
    Ok(())
}

/// Untimed, before the clock: flush what earlier passes left dirty, drop the
/// page cache before reads with --drop-caches, take the -W lock, and let the
/// engine prepare for the loop's buffers (io_uring registers them).
pub fn before_loop<E: Engine>(
    engine: &mut E,
    pass: Pass,
    config: &RunConfig,
    path: &Path,
    (read_buf, pool): (&[u8], &[u8]),
) -> Result<(), IoFailure> {
    let fail = failure(pass, path);
    // SAFETY: plain syscall on the engine's open descriptor.
    if unsafe { libc::fsync(engine.raw_fd()) } < 0 {
        return Err(fail("fsync", None, io::Error::last_os_error()));
    }
    // Before -p's purge, which should be the last thing to touch the caches.
    engine.prepare_buffers(read_buf, pool);
    if config.variations.purge_cpu_cache {
        purge_cpu_cache(config);
    }
    if config.variations.mix_mmap_file_io && pass.direction() != Direction::Read {
        // -Z: plain file I/O on the file the pass then writes (through mmap
        // with -B); the pass overwrites this page, so its content is moot.
        let page = crate::data::buffer::AlignedBuf::zeroed(4096);
        crate::engine::pwrite_all(engine.raw_fd(), &page, 0)
            .map_err(|e| fail("write (-Z) to", Some(0), e))?;
    }
    if pass.direction() != Direction::Write {
        drop_caches(engine.raw_fd(), config.variations.drop_caches)
            .map_err(|e| fail("drop the page cache of", None, e))?;
    }
    if config.lock_file {
        let writable = pass.direction() != Direction::Read;
        let kind = if writable {
            libc::F_WRLCK
        } else {
            libc::F_RDLCK
        };
        lock(engine.raw_fd(), kind).map_err(|e| fail("lock", None, e))?;
    }
    Ok(())
}

/// The timed region, with `-e`/`-c` as the run asks. `check` is the -V/-+d
/// verifier ([`Verifier::for_pass`]), made before the clock; its mismatches
/// fail the pass once the clock has stopped.
#[allow(clippy::too_many_arguments)]
pub fn timed<E: Engine>(
    engine: &mut E,
    pass: Pass,
    config: &RunConfig,
    path: &Path,
    ops: &[IoOp],
    read_buf: &mut [u8],
    pool: &[u8],
    stops: Stops<'_>,
    check: Option<&mut Verifier>,
    mut latencies: Option<&mut Vec<u64>>,
) -> Result<LoopOutcome, IoFailure> {
    let extras = TimedExtras {
        sync: config.fsync_in_timing,
        close: config.close_in_timing,
    };
    let slots = depth_for(pass, config) as usize;
    let compute_delay_ns = config.variations.compute_delay_ms.unwrap_or(0) * 1_000_000;
    let fail = failure(pass, path);
    let loop_failure = |LoopFailure {
                            operation,
                            offset,
                            error,
                        }| fail(operation, offset, error);
    // Dedup data: the pool is the file's image (runner::write_pool), and
    // writes take it at their offsets.
    if config.variations.dedup.any() {
        debug_assert!(
            ops.iter()
                .all(|op| op.offset as usize + op.len <= pool.len())
        );
        let mut io = LoopIo {
            read_buf,
            slots,
            pool,
            check: &mut ImageWrites,
            compute_delay_ns,
            busy_ns: 0,
            latencies: latencies.as_deref_mut(),
        };
        return timed_loop(engine, ops, &mut io, extras, stops).map_err(loop_failure);
    }
    let Some(check) = check else {
        let mut io = LoopIo {
            read_buf,
            slots,
            pool,
            check: &mut NoCheck,
            compute_delay_ns,
            busy_ns: 0,
            latencies: latencies.as_deref_mut(),
        };
        return timed_loop(engine, ops, &mut io, extras, stops).map_err(loop_failure);
    };
    let mut io = LoopIo {
        read_buf,
        slots,
        pool,
        check: &mut *check,
        compute_delay_ns,
        busy_ns: 0,
        latencies,
    };
    let outcome = timed_loop(engine, ops, &mut io, extras, stops).map_err(loop_failure)?;
    // Mismatches are counted to the end of the pass, then fail it (after the clock).
    if let Some(bad) = check.mismatches() {
        return Err(fail(
            "verify the data read from",
            Some(bad.first.unit_offset),
            bad.to_io_error(),
        ));
    }
    Ok(outcome)
}

/// Untimed, after the clock: make written data durable (so the next pass does
/// not pay for it), release the lock and close — unless -e/-c timed them.
pub fn after_loop<E: Engine>(
    engine: &mut E,
    pass: Pass,
    config: &RunConfig,
    path: &Path,
) -> Result<(), IoFailure> {
    if config.close_in_timing {
        return Ok(());
    }
    let fail = failure(pass, path);
    if !config.fsync_in_timing && pass.direction() != Direction::Read {
        engine.sync().map_err(|e| fail("fsync", None, e))?;
    }
    if config.lock_file {
        lock(engine.raw_fd(), libc::F_UNLCK).map_err(|e| fail("unlock", None, e))?;
    }
    engine.close().map_err(|e| fail("close", None, e))
}
