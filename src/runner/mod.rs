//! Cells and passes → measurements, handed out as events.
//!
//! [`measure`] runs a whole plan: single and auto mode cell by cell on one
//! test file ([`single`]), throughput mode worker count by worker count
//! ([`throughput`]). What each pass needs is decided once, before the first
//! cell ([`recipe`]); a pass is opened, prepared, timed and closed by the
//! steps in [`pass`], around the timed region in [`timed`]. Nothing here
//! prints or writes result files: every pass, row and phase is handed to the
//! caller as an [`Event`] as soon as it is done. The metadata benchmarks
//! (`ioz fileop`, `ioz mdtest`) have a runner of their own ([`metadata`]):
//! their operations are timed one by one on a tree of their own.

mod events;
mod intervals;
mod metadata;
mod pass;
mod prepare;
mod recipe;
mod setup;
mod shared_words;
mod single;
mod throughput;
mod timed;

#[cfg(test)]
mod tests;

pub(crate) use events::{Event, Outcome};
pub(crate) use intervals::LiveSink;
#[cfg(feature = "mpi")]
pub(crate) use metadata::Meeting;
#[cfg(feature = "mpi")]
pub(crate) use single::CellMeeting;
#[cfg(feature = "mpi")]
pub(crate) use throughput::Across;

use crate::data::telemetry::Replay;
use crate::error::RunError;
use crate::model::config::RunConfig;
use crate::system::remount::Remounter;
use crate::system::signals::StopFlag;
use recipe::{MetadataRecipe, Recipe};
use single::Controls;

/// Measures the plan of `config` (with the telemetry `replay` when it
/// replays any): signals stop it at the next record, `remount` (-U) cycles
/// the file system before every pass, `live` (--live) gets every interval
/// as it ends, and `on_event` sees every step as soon as it is done (an
/// error from it ends the run).
pub(crate) fn measure(
    config: &RunConfig,
    (replay, remount, live): (
        Option<&Replay>,
        Option<&mut Remounter>,
        Option<&dyn LiveSink>,
    ),
    stop: &StopFlag,
    on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    if let Some(benchmark) = MetadataRecipe::of(config) {
        return metadata::measure(benchmark, stop, remount, None, on_event);
    }
    let recipe = Recipe::new(config, replay);
    match recipe.throughput() {
        Some(tp) => throughput::run(&recipe, tp, (stop, live), None, on_event),
        None => single::run(
            &recipe,
            Controls {
                stop,
                remount,
                meeting: None,
                live,
            },
            on_event,
        ),
    }
}

/// Measures this rank's share of a cluster run: `config` is the rank's
/// (throughput mode, its workers and their files), every phase taken with
/// the other ranks of `across`. Rank 0's events carry the whole job's
/// phases; the others' their own.
#[cfg(feature = "mpi")]
pub(crate) fn measure_across(
    config: &RunConfig,
    (stop, live): (&StopFlag, Option<&dyn LiveSink>),
    across: &Across<'_>,
    on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    let recipe = Recipe::new(config, None);
    match &config.throughput {
        Some(tp) => throughput::run(&recipe, tp, (stop, live), Some(across), on_event),
        None => Outcome::ended(
            Vec::new(),
            Vec::new(),
            None,
            Some(RunError::Refused(
                "cluster mode runs throughput mode: give -t".into(),
            )),
            Vec::new(),
        ),
    }
}

/// Measures this rank's part of a metadata benchmark across the ranks of
/// `meeting` (`mpirun -np N ioz mdtest …`).
#[cfg(feature = "mpi")]
pub(crate) fn measure_metadata_across(
    config: &RunConfig,
    stop: &StopFlag,
    meeting: &dyn Meeting,
    on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    match MetadataRecipe::of(config) {
        Some(benchmark) => metadata::measure(benchmark, stop, None, Some(meeting), on_event),
        None => metadata::not_a_benchmark(),
    }
}

/// Measures this rank's run of a cluster job in single or auto mode:
/// `config` is the rank's (the whole plan, on its own test file), and
/// `meeting` brings the ranks together around every cell.
#[cfg(feature = "mpi")]
pub(crate) fn measure_cells_across(
    config: &RunConfig,
    (stop, live): (&StopFlag, Option<&dyn LiveSink>),
    meeting: &dyn CellMeeting,
    on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    let recipe = Recipe::new(config, None);
    let controls = Controls {
        stop,
        remount: None,
        meeting: Some(meeting),
        live,
    };
    single::run(&recipe, controls, on_event)
}
