//! A measuring run on one machine: the run driver (app/driver.rs) with
//! nothing to agree on, the whole run here, and -X/-Y and -U at hand.

use super::driver::{self, OnEvent, Venue};
use super::record::{self, Destination};
use super::run_start::{Measured, RunStart};
use crate::data::telemetry::Replay;
use crate::error::{Exit, RunError};
use crate::model::config::RunConfig;
use crate::model::environment::Environment;
use crate::report::text::LiveText;
use crate::runner::{self, Outcome};
use crate::system::remount::Remounter;
use crate::system::signals::StopFlag;

/// Runs `config` to the end and says how it ended.
pub(crate) fn run(config: RunConfig) -> Exit {
    driver::drive(config, &mut OneMachine)
}

/// The run on this machine alone.
struct OneMachine;

impl Venue for OneMachine {
    fn speaks(&self) -> bool {
        true
    }

    fn history(&mut self, config: &RunConfig) -> Result<Option<Destination>, RunError> {
        record::place_for_run(&config.history)
    }

    fn share(&self, config: &RunConfig) -> RunConfig {
        config.clone()
    }

    fn agree<T>(&mut self, mine: Result<T, RunError>) -> Result<T, RunError> {
        mine
    }

    /// The run's own, as the preflight completed it (-X/-Y's sizes).
    fn described(&self, _config: RunConfig, mine: &RunConfig) -> RunConfig {
        mine.clone()
    }

    fn warning(&self, _mine: &RunConfig) -> Option<String> {
        None
    }

    fn opening(&self, text: &LiveText<'_>, start: &RunStart, _mine: &RunConfig) -> String {
        text.opening(&start.environment, &start.started, start.time_resolution_ns)
    }

    fn measure(
        &mut self,
        mine: &RunConfig,
        (replay, remount): (Option<&Replay>, Option<&mut Remounter>),
        stop: &StopFlag,
        on_event: &mut OnEvent<'_>,
    ) -> Outcome {
        runner::measure(mine, replay, stop, remount, on_event)
    }

    fn gather(
        &mut self,
        _mine: &RunConfig,
        _here: &Environment,
        measured: Measured,
    ) -> Result<Measured, RunError> {
        Ok(measured)
    }

    fn own_line(&self, line: &str) -> String {
        line.to_string()
    }

    fn job_exit(&mut self, mine: Exit) -> Exit {
        mine
    }
}
