//! How one operation moves bytes between a buffer and the file: one engine per
//! file, one trait for all. Engines move every byte they are asked to (short
//! transfers are continued) or fail with the OS error. What the rest of ioz
//! knows of an engine is its row in model::engines; [`open_chosen`] is where a
//! row's choice becomes its implementation.

mod aio;
pub mod batch;
pub mod clock;
mod descriptor;
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
mod transfer;
mod uring;
mod vectored;

use std::io;
use std::path::Path;

use crate::model::engines::EngineChoice;
use aio::AioEngine;
pub use batch::{
    EarlyStop, Engine, LoopFailure, LoopIo, Progress, Stops, WithEngine, latency_buffer,
};
use locked::LockedEngine;
use mmap::MmapEngine;
pub use open::OpenSpec;
pub use positional::PositionalEngine;
use stdio::StdioEngine;
use sync::SyncEngine;
pub use timing::OpTiming;
pub use transfer::pwrite_all;
use uring::UringEngine;
use vectored::VectoredEngine;

/// Before throughput workers are forked: process-wide engine state that the
/// workers must share with the parent is set up here.
pub fn before_fork() {
    uring::share_with_workers();
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
