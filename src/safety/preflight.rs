//! Everything a run must pass before its first byte of I/O, in one call:
//! the telemetry files it replays are read, its result paths, test files or
//! devices, remount (-U), memory and free space are checked. A refusal is a
//! [`RunError::Refused`] (exit status 2) and nothing has been written.

use super::{memory, outputs, space, test_file};
use crate::data::telemetry::{self, Replay};
use crate::error::RunError;
use crate::model::config::{RunConfig, Sizes};
use crate::model::result_files::ResultPlaces;
use crate::system::remount::Remounter;

/// A run that may start.
pub struct Ready {
    /// The configuration, completed with what the telemetry files say.
    pub config: RunConfig,
    /// The telemetry operations, when the run replays any.
    pub replay: Option<Replay>,
    /// `-U`: the file system to unmount and mount back before every pass.
    pub remount: Option<Remounter>,
    /// Said once before the run (the plan fits in RAM: the page cache is measured).
    pub warning: Option<String>,
    /// Where the result files go, approved.
    pub results: ResultPlaces,
}

/// Checks the run of `config`, in the order a user meets the problems: the
/// files it reads, the files it writes, the machine it changes.
pub fn preflight(mut config: RunConfig) -> Result<Ready, RunError> {
    if config.metadata.is_some() {
        let (results, remount) = super::tree_place::check(&config)?;
        return Ok(Ready {
            config,
            replay: None,
            remount,
            warning: None,
            results,
        });
    }
    // The telemetry files first: the file size of the run is theirs.
    let replay = attach_telemetry(&mut config)?;
    let results = outputs::check_for_run(&config).map_err(|e| RunError::Refused(e.to_string()))?;
    test_file::check_targets(&config)?;
    let remount = Remounter::for_run(&config)?;
    // Before the space check: a run too large for memory (operation lists,
    // buffers, dedup images, -Q, -p) is refused whatever the disk holds.
    memory::check_memory(&config)?;
    let warning = space::check(&config)?;
    Ok(Ready {
        config,
        replay,
        remount,
        warning,
        results,
    })
}

/// Reads the telemetry files the run replays (-X, -Y): the configuration
/// gets their summary and the file size they reach (-r only shapes the
/// passes no telemetry file drives, so it may exceed the file), and their
/// operations come back beside it; `None` when the run replays none.
pub(crate) fn attach_telemetry(config: &mut RunConfig) -> Result<Option<Replay>, RunError> {
    let v = &config.variations;
    let read = telemetry::read_files(
        v.write_telemetry.as_deref(),
        v.read_telemetry.as_deref(),
        config.open.direct,
    )
    .map_err(|e| RunError::Refused(e.to_string()))?;
    let Some((summary, replay)) = read else {
        return Ok(None);
    };
    if let Sizes::Single { file_bytes, .. } = &mut config.sizes {
        *file_bytes = summary.file_bytes();
    }
    config.telemetry = Some(summary);
    Ok(Some(replay))
}
