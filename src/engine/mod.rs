//! How one operation moves bytes between a buffer and the file: one engine per
//! file, one trait for all. Engines move every byte they are asked to (short
//! transfers are continued) or fail with the OS error. What the rest of ioz
//! knows of an engine is its row in model::engines; [`open_chosen`] is where a
//! row's choice becomes its implementation.

mod aio;
pub mod batch;
pub mod clock;
pub mod intervals;
mod locked;
pub(crate) mod metadata;
mod mmap;
mod open;
mod positional;
mod stdio;
mod sync;
pub(crate) mod syscall;
pub mod timing;
mod uring;
mod vectored;

use std::io;
use std::os::fd::{BorrowedFd, RawFd};
use std::path::Path;

use aio::AioEngine;
pub use batch::{EarlyStop, LoopFailure, LoopIo, Progress, Stops, latency_buffer, sync_ops};
use locked::LockedEngine;
use mmap::MmapEngine;

use crate::data::check::DataCheck;
use crate::data::pattern::IoOp;
use crate::model::engines::EngineChoice;
use crate::model::identity::Expected;
use open::{UntimedStat, open_fd, stat_untimed};
pub use positional::{PositionalEngine, pwrite_all};
use stdio::StdioEngine;
use sync::SyncEngine;
pub use timing::OpTiming;
use uring::UringEngine;
use vectored::VectoredEngine;

/// Before throughput workers are forked: process-wide engine state that the
/// workers must share with the parent is set up here.
pub fn before_fork() {
    uring::share_with_workers();
}

/// One way of moving records. Calls are made inside the timed region, so an
/// implementation does the syscall(s) and nothing else.
pub trait Engine {
    /// Untimed: opens `path` as `spec` says (checked against `spec.expect`)
    /// and makes ready what the engine keeps (a ring, a mapping, a stream).
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<Self>
    where
        Self: Sized;
    /// Fills `buf` from the file at `offset`.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` to the file at `offset`.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// A `-K` probe read: fills `buf` from `offset` like [`Engine::read_at`]
    /// (what a wrapper adds around records, such as locks, it leaves out).
    #[inline]
    fn probe_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.read_at(buf, offset)
    }
    /// Makes what was written durable (`-e`): fsync, or fflush+fsync for stdio.
    fn sync(&mut self) -> io::Result<()>;
    /// Untimed, before the clock: what earlier passes left dirty made
    /// durable, as IOzone fsyncs the file before its loop.
    fn settle(&mut self) -> io::Result<()> {
        syscall::fsync(self.raw_fd())
    }
    /// Closes the file, reporting any error the close reveals. Idempotent.
    fn close(&mut self) -> io::Result<()>;
    /// The descriptor, for untimed housekeeping (locks, fsync before the pass).
    fn raw_fd(&self) -> RawFd;

    /// Untimed, before the clock (and before a throughput barrier): the
    /// loop's read buffer and write pool, the same for every [`Engine::run_ops`]
    /// of this pass, outliving the engine. io_uring registers them with its
    /// ring; the others need nothing.
    fn prepare_buffers(&mut self, _read_buf: &[u8], _pool: &[u8]) {}

    /// Runs `ops` in the timed region. Synchronous engines keep this default,
    /// one operation at a time; engines with operations in flight override it.
    #[inline]
    fn run_ops<C: DataCheck>(
        &mut self,
        ops: &[IoOp],
        io: &mut LoopIo<'_, C>,
        stops: Stops<'_>,
    ) -> Result<Progress, LoopFailure>
    where
        Self: Sized,
    {
        sync_ops(self, ops, io, stops)
    }
}

/// Work to do with an opened engine, whatever its type: the engine is a type
/// parameter so the timed loop is compiled for each engine, with no dynamic calls.
pub trait WithEngine {
    type Output;
    fn run<E: Engine>(self, engine: E) -> Self::Output;
}

/// Opens the engine `choice` names on `path` as `spec` says (untimed) and
/// hands it to `body`, wrapped in per-record locking with `record_locking`
/// (-+l/-+L). The error is the open's.
pub fn open_chosen<W: WithEngine>(
    choice: EngineChoice,
    path: &Path,
    spec: &OpenSpec,
    record_locking: bool,
    body: W,
) -> io::Result<W::Output> {
    fn open_and_run<E: Engine, W: WithEngine>(
        path: &Path,
        spec: &OpenSpec,
        record_locking: bool,
        body: W,
    ) -> io::Result<W::Output> {
        Ok(if record_locking {
            body.run(LockedEngine::<E>::open(path, spec)?)
        } else {
            body.run(E::open(path, spec)?)
        })
    }
    let run = match choice {
        EngineChoice::Sync => open_and_run::<SyncEngine, W>,
        EngineChoice::Psync => open_and_run::<PositionalEngine, W>,
        EngineChoice::Vec => open_and_run::<VectoredEngine, W>,
        EngineChoice::Stdio => open_and_run::<StdioEngine, W>,
        EngineChoice::Mmap => open_and_run::<MmapEngine, W>,
        EngineChoice::Aio => open_and_run::<AioEngine, W>,
        EngineChoice::IoUring => open_and_run::<UringEngine, W>,
    };
    run(path, spec, record_locking, body)
}

/// How a pass opens the test file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenSpec {
    /// The pass writes: opened read-write (and mapped writable, streamed
    /// "r+", synced as a writer).
    pub writable: bool,
    /// Opened read-write although the pass only reads: IOzone's random read
    /// (single and auto mode) opens its file that way.
    pub read_write: bool,
    pub create: bool,
    pub truncate: bool,
    /// O_SYNC, O_DSYNC, O_DIRECT … as the run's options ask.
    pub extra_flags: libc::c_int,
    /// Bytes per record (the vectored engine splits calls into records).
    pub record_bytes: usize,
    /// Bytes of the file the pass covers (mmap maps this much).
    pub file_bytes: u64,
    /// Operations in flight for queued engines (aio, io_uring); 1 otherwise.
    pub depth: u32,
    /// `-D`/`-G`: msync after each record of an mmap'd file.
    pub msync: crate::model::variations::MsyncMode,
    /// `-+A`: madvise advice for mmap'd files.
    pub madvise: Option<u32>,
    /// `-k`: POSIX AIO without copying.
    pub aio_no_copy: bool,
    /// The test file the path must still lead to (recorded when ioz created
    /// or accepted it): checked on the opened descriptor before anything is
    /// written or truncated. `None` only for files of no run (unit tests).
    pub expect: Option<Expected>,
}

impl OpenSpec {
    /// The same open, checked against `expect`.
    pub fn expecting(self, expect: Option<Expected>) -> OpenSpec {
        OpenSpec { expect, ..self }
    }
}

/// An owned descriptor whose close is explicit, so close errors are reported.
#[derive(Debug)]
pub struct Descriptor {
    fd: RawFd,
    open: bool,
}

impl Descriptor {
    pub fn open(path: &Path, spec: &OpenSpec) -> io::Result<Descriptor> {
        Ok(Descriptor {
            fd: open_fd(path, spec)?,
            open: true,
        })
    }

    #[inline]
    pub fn raw(&self) -> RawFd {
        self.fd
    }

    /// The descriptor, lent to a safe wrapper's call (untimed) while it is
    /// open; once closed or given away, EBADF.
    fn borrowed(&self) -> io::Result<BorrowedFd<'_>> {
        if !self.open {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
        // SAFETY: the descriptor is ours and open, and only close() or
        // disown() (both `&mut self`) end that, so it stays open while lent.
        Ok(unsafe { BorrowedFd::borrow_raw(self.fd) })
    }

    /// The open file's type, identity and size: the file checked at the
    /// open, not whatever the path leads to now (and never its timestamps:
    /// engine/open.rs says why).
    pub fn stat(&self) -> io::Result<UntimedStat> {
        stat_untimed(self.borrowed()?)
    }

    pub fn fsync(&self) -> io::Result<()> {
        syscall::fsync(self.fd)
    }

    /// Gives up ownership: the descriptor now belongs to someone else (a stdio stream).
    pub fn disown(&mut self) {
        self.open = false;
    }

    pub fn close(&mut self) -> io::Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        // The descriptor is ours and still open; it is never used again.
        syscall::close(self.fd)
    }
}

impl Drop for Descriptor {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// Turns a C return value into a Result, retrying nothing.
#[inline]
pub(crate) fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Error for a read that hit end of file before the buffer was full.
pub(crate) fn short_read(done: usize, wanted: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("short read: end of file after {done} of {wanted} bytes"),
    )
}

/// Error for a write the kernel accepted zero bytes of.
pub(crate) fn short_write(done: usize, wanted: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::WriteZero,
        format!("short write: {done} of {wanted} bytes written"),
    )
}

/// Runs a transfer syscall until `len` bytes moved, continuing short transfers
/// and retrying EINTR. `step(done)` moves bytes from position `done`
/// (engine::syscall's calls).
#[inline]
pub(crate) fn transfer_all(
    len: usize,
    is_read: bool,
    mut step: impl FnMut(usize) -> io::Result<usize>,
) -> io::Result<()> {
    let mut done = 0;
    while done < len {
        match step(done) {
            Ok(0) => {
                return Err(if is_read {
                    short_read(done, len)
                } else {
                    short_write(done, len)
                });
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
