//! One pass: open (untimed), flush what earlier passes left dirty (untimed),
//! the timed loop, then fsync and close (untimed unless -e/-c), and the byte
//! check. The steps are public so throughput workers run the same ones with a
//! barrier between setup and the timed loop.

use std::io;
use std::path::Path;

use nix::sys::resource::{UsageWho, getrusage};

use super::timed::{EarlyStop, LoopFailure, LoopOutcome, Stops, TimedExtras, timed_loop};
use crate::config::RunConfig;
use crate::engine::{
    Engine, LockedEngine, OpenSpec, PositionalEngine, StdioEngine, SyncEngine, VectoredEngine,
};
use crate::error::IoFailure;
use crate::pattern::IoOp;
use crate::plan::Cell;
use crate::result::Measurement;
use crate::signals::StopFlag;
use crate::workload::{Direction, EngineKind, Pass};

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

/// How the pass opens the file, from its direction and the run's options.
pub fn open_spec(pass: Pass, config: &RunConfig, record_bytes: usize) -> OpenSpec {
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
        truncate: pass.truncates(),
        extra_flags: flags,
        record_bytes,
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
    record_bytes: u64,
    body: W,
) -> Result<W::Output, IoFailure> {
    let spec = open_spec(pass, config, record_bytes as usize);
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
    Ok(match pass.engine() {
        EngineKind::Sync => run_maybe_locked(
            SyncEngine::open(path, &spec).map_err(open_failure)?,
            locking,
            body,
        ),
        EngineKind::Positional => run_maybe_locked(
            PositionalEngine::open(path, &spec).map_err(open_failure)?,
            locking,
            body,
        ),
        EngineKind::Vectored => run_maybe_locked(
            VectoredEngine::open(path, &spec).map_err(open_failure)?,
            locking,
            body,
        ),
        EngineKind::Stdio => run_maybe_locked(
            StdioEngine::open(path, &spec).map_err(open_failure)?,
            locking,
            body,
        ),
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
    let (config, path, record_bytes) = (inputs.config, inputs.path, inputs.cell.record_bytes);
    with_engine(
        pass,
        config,
        path,
        record_bytes,
        SinglePass { pass, inputs },
    )?
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
        before_loop(&engine, pass, inputs.config, inputs.path)?;
        let (user0, sys0) = cpu_ns(UsageWho::RUSAGE_SELF);
        let stops = Stops {
            signal: inputs.stop,
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
        )?;
        let (user1, sys1) = cpu_ns(UsageWho::RUSAGE_SELF);
        after_loop(&mut engine, pass, inputs.config, inputs.path)?;
        if let Some(EarlyStop::Signal(sig)) = outcome.stopped {
            return Ok(PassEnd::Interrupted(sig));
        }
        let expected = inputs.cell.pass_bytes();
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
            records: inputs.cell.records(),
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

/// Untimed, before the clock: flush what earlier passes left dirty, and take
/// the whole-file lock with -W.
pub fn before_loop<E: Engine>(
    engine: &E,
    pass: Pass,
    config: &RunConfig,
    path: &Path,
) -> Result<(), IoFailure> {
    let fail = failure(pass, path);
    // SAFETY: plain syscall on the engine's open descriptor.
    if unsafe { libc::fsync(engine.raw_fd()) } < 0 {
        return Err(fail("fsync", None, io::Error::last_os_error()));
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

/// The timed region, with `-e`/`-c` as the run asks.
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
) -> Result<LoopOutcome, IoFailure> {
    let extras = TimedExtras {
        sync: config.fsync_in_timing,
        close: config.close_in_timing,
    };
    timed_loop(engine, ops, read_buf, pool, extras, stops).map_err(
        |LoopFailure {
             operation,
             offset,
             error,
         }| failure(pass, path)(operation, offset, error),
    )
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
