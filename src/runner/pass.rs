//! One pass: open (untimed), flush what earlier passes left dirty (untimed),
//! the timed loop, then fsync and close (untimed unless -e/-c), and the byte check.

use std::io;
use std::path::Path;

use nix::sys::resource::{UsageWho, getrusage};

use super::timed::{LoopFailure, TimedExtras, timed_loop};
use crate::config::RunConfig;
use crate::engine::{Engine, OpenSpec, PositionalEngine, StdioEngine, SyncEngine, VectoredEngine};
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

pub fn run_pass(pass: Pass, inputs: PassInputs<'_>) -> Result<PassEnd, IoFailure> {
    let spec = open_spec(pass, inputs.config, inputs.cell.record_bytes as usize);
    let fail = failure(pass, inputs.path);
    let open_failure = |e: io::Error| {
        if inputs.config.open.direct && e.raw_os_error() == Some(libc::EINVAL) {
            fail(
                "open with O_DIRECT (-I)",
                None,
                io::Error::new(e.kind(), "the file system does not support O_DIRECT"),
            )
        } else {
            fail("open", None, e)
        }
    };
    match pass.engine() {
        EngineKind::Sync => {
            let e = SyncEngine::open(inputs.path, &spec).map_err(open_failure)?;
            measure(pass, e, inputs)
        }
        EngineKind::Positional => {
            let e = PositionalEngine::open(inputs.path, &spec).map_err(open_failure)?;
            measure(pass, e, inputs)
        }
        EngineKind::Vectored => {
            let e = VectoredEngine::open(inputs.path, &spec).map_err(open_failure)?;
            measure(pass, e, inputs)
        }
        EngineKind::Stdio => {
            let e = StdioEngine::open(inputs.path, &spec).map_err(open_failure)?;
            measure(pass, e, inputs)
        }
    }
}

/// Builds the error for an operation of `pass` on `path`.
fn failure(
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

fn cpu_ns() -> (u64, u64) {
    match getrusage(UsageWho::RUSAGE_SELF) {
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

/// Runs the pass on an opened engine (generic so the timed loop is monomorphic).
pub fn measure<E: Engine>(
    pass: Pass,
    mut engine: E,
    inputs: PassInputs<'_>,
) -> Result<PassEnd, IoFailure> {
    let fail = failure(pass, inputs.path);
    let writable = pass.direction() != Direction::Read;
    // Data left dirty by earlier passes must not be flushed inside this one.
    // SAFETY: plain syscall on the engine's open descriptor.
    if unsafe { libc::fsync(engine.raw_fd()) } < 0 {
        return Err(fail("fsync", None, io::Error::last_os_error()));
    }
    if inputs.config.lock_file {
        let kind = if writable {
            libc::F_WRLCK
        } else {
            libc::F_RDLCK
        };
        lock(engine.raw_fd(), kind).map_err(|e| fail("lock", None, e))?;
    }
    let extras = TimedExtras {
        sync: inputs.config.fsync_in_timing,
        close: inputs.config.close_in_timing,
    };
    let (user0, sys0) = cpu_ns();
    let outcome = timed_loop(
        &mut engine,
        inputs.ops,
        inputs.read_buf,
        inputs.pool,
        extras,
        inputs.stop,
    )
    .map_err(
        |LoopFailure {
             operation,
             offset,
             error,
         }| fail(operation, offset, error),
    )?;
    let (user1, sys1) = cpu_ns();
    if !extras.close {
        if !extras.sync && writable {
            engine.sync().map_err(|e| fail("fsync", None, e))?;
        }
        if inputs.config.lock_file {
            lock(engine.raw_fd(), libc::F_UNLCK).map_err(|e| fail("unlock", None, e))?;
        }
        engine.close().map_err(|e| fail("close", None, e))?;
    }
    if let Some(sig) = outcome.interrupted {
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
        elapsed_ns: outcome.elapsed_ns,
        cpu_user_ns: user1.saturating_sub(user0),
        cpu_system_ns: sys1.saturating_sub(sys0),
    }))
}
