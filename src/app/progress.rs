//! A progress bar on stderr, only when stderr is a terminal (and not --quiet):
//! the whole plan's bytes, so the ETA covers every cell and pass.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::config::{RunConfig, Sizes, ThroughputConfig};
use crate::model::plan::Plan;
use crate::model::result::{Measurement, PhaseResult};
use crate::runner::phases;

/// Bytes every pass of the plan will move.
pub fn planned_bytes(config: &RunConfig, plan: &Plan) -> u64 {
    let passes: Vec<_> = config
        .tests
        .iter()
        .flat_map(|t| t.passes())
        .filter(|p| !(config.no_retest && p.is_retest()))
        .collect();
    plan.cells
        .iter()
        .flat_map(|c| {
            passes
                .iter()
                .map(move |&&p| crate::model::plan::pass_size(config, c, p).bytes)
        })
        .sum()
}

/// Bytes every phase of a throughput run will move (all workers, all counts).
pub fn planned_throughput_bytes(config: &RunConfig, tp: &ThroughputConfig) -> u64 {
    let Sizes::Single {
        file_bytes,
        record_bytes,
    } = config.sizes
    else {
        return 0;
    };
    let phases = phases(config);
    tp.worker_counts
        .iter()
        .flat_map(|&n| {
            let cell = crate::model::plan::Cell {
                file_bytes: tp.worker_file_bytes(file_bytes, record_bytes, n),
                record_bytes,
            };
            phases.iter().map(move |&pass| {
                crate::model::plan::pass_size(config, &cell, pass).bytes * n as u64
            })
        })
        .sum()
}

/// A bar over the planned bytes; hidden when stderr is not a terminal or with --quiet.
pub fn bar_for(config: &RunConfig, plan: &Plan) -> ProgressBar {
    bar_over(config, planned_bytes(config, plan))
}

/// A bar over a throughput run's planned bytes, advanced as phases end.
pub fn throughput_bar(config: &RunConfig, tp: &ThroughputConfig) -> ProgressBar {
    bar_over(config, planned_throughput_bytes(config, tp))
}

/// Advances a throughput bar past a finished phase.
pub fn advance_phase(bar: &ProgressBar, phase: &PhaseResult, config: &RunConfig) {
    bar.set_message(format!("{} workers: {}", phase.workers, phase.pass.name()));
    bar.inc(phase.planned_bytes(config));
}

fn bar_over(config: &RunConfig, total: u64) -> ProgressBar {
    if config.quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg} (ETA {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Drawn only when a pass ends (no ticker thread competes with the timed
    // region), so draw once now to show the plan's size from the start.
    bar.set_message("first pass running");
    bar.tick();
    bar
}

pub fn advance(bar: &ProgressBar, m: &Measurement) {
    // A telemetry run's cell has no record size (reclen 0).
    let records = match m.record_bytes {
        0 => "telemetry".to_string(),
        r => format!("{} kB records", r >> 10),
    };
    bar.set_message(format!(
        "{} kB file, {records}: {}",
        m.file_bytes >> 10,
        m.pass.name()
    ));
    bar.inc(m.bytes);
}
