//! A progress bar on stderr, only when stderr is a terminal (and not --quiet):
//! the whole plan's bytes, so the ETA covers every cell and pass.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::config::{RunConfig, Sizes};
use crate::model::metadata::MetadataConfig;
use crate::model::metadata_result::MetaMeasurement;
use crate::model::plan::{self, Cell, expand, pass_size};
use crate::model::result::{Measurement, PhaseResult};
use crate::model::units::kb_number;

/// The bar of one run.
pub(crate) struct Progress<'a> {
    bar: ProgressBar,
    config: &'a RunConfig,
}

impl<'a> Progress<'a> {
    /// A bar over everything the run will move; hidden when stderr is not a
    /// terminal or with --quiet.
    pub fn for_run(config: &'a RunConfig) -> Progress<'a> {
        let bar = if config.quiet {
            ProgressBar::hidden()
        } else if let Some(metadata) = &config.metadata {
            metadata_bar(config, metadata)
        } else {
            let bar = ProgressBar::with_draw_target(
                Some(planned_bytes(config)),
                ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg} (ETA {eta})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            // Drawn only when a pass ends (no ticker thread competes with the
            // timed region), so draw once now to show the plan's size from the start.
            bar.set_message("first pass running");
            bar.tick();
            bar
        };
        Progress { bar, config }
    }

    /// No bar: a rank that does not speak for its job.
    pub fn hidden(config: &'a RunConfig) -> Progress<'a> {
        Progress {
            bar: ProgressBar::hidden(),
            config,
        }
    }

    /// Runs `f` (which prints) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// A pass of single or auto mode is done.
    pub fn pass_done(&self, m: &Measurement) {
        // A telemetry run's cell has no record size (reclen 0).
        let records = match m.record_bytes {
            0 => "telemetry".to_string(),
            r => format!("{} kB records", kb_number(r)),
        };
        self.bar.set_message(format!(
            "{}{} kB file, {records}: {}",
            self.run_words(m.run),
            kb_number(m.file_bytes),
            m.pass.name()
        ));
        self.bar.inc(m.bytes);
    }

    /// A metadata benchmark's force factor (or iteration) is done.
    pub fn metadata_done(&self, measured: &[MetaMeasurement]) {
        if let Some(m) = measured.first() {
            let what = match m.factor {
                0 => "iteration".to_string(),
                x => format!("force factor {x}"),
            };
            self.bar
                .set_message(format!("{}{what} done", self.run_words(m.run)));
        }
        self.bar.inc(1);
    }

    /// A phase of throughput mode is done.
    pub fn phase_done(&self, phase: &PhaseResult) {
        self.bar.set_message(format!(
            "{}{} workers: {}",
            self.run_words(phase.run),
            phase.workers,
            phase.pass.name()
        ));
        self.bar.inc(phase.planned_bytes(self.config));
    }

    /// `run 2/3: ` with --runs, nothing for one run.
    fn run_words(&self, run: u32) -> String {
        match self.config.runs {
            0 | 1 => String::new(),
            runs => format!("run {}/{runs}: ", run + 1),
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Bytes every pass of the run will move: every cell's passes, or every
/// phase of every worker count (all workers), once per run (`--runs`), so
/// that the ETA counts every repetition.
pub(crate) fn planned_bytes(config: &RunConfig) -> u64 {
    one_run_bytes(config).saturating_mul(u64::from(config.runs.max(1)))
}

/// What one run of the plan moves.
fn one_run_bytes(config: &RunConfig) -> u64 {
    let passes = plan::passes(config);
    let Some(tp) = &config.throughput else {
        return expand(config)
            .cells
            .iter()
            .flat_map(|c| passes.iter().map(move |&p| pass_size(config, c, p).bytes))
            .sum();
    };
    let Sizes::Single {
        file_bytes,
        record_bytes,
    } = config.sizes
    else {
        return 0;
    };
    tp.worker_counts
        .iter()
        .flat_map(|&n| {
            let cell = Cell {
                file_bytes: tp.worker_file_bytes(file_bytes, record_bytes, n),
                record_bytes,
            };
            passes
                .iter()
                .map(move |&pass| pass_size(config, &cell, pass).bytes * n as u64)
        })
        .sum()
}

/// A metadata benchmark's bar: one step per force factor (fileop) or
/// iteration (mdtest) of every run.
fn metadata_bar(config: &RunConfig, metadata: &MetadataConfig) -> ProgressBar {
    let per_run = match metadata {
        MetadataConfig::Fileop(f) => f.factors.len() as u64,
        MetadataConfig::Mdtest(_) => 1,
    };
    let bar = ProgressBar::with_draw_target(
        Some(per_run * config.runs as u64),
        ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} (ETA {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("running");
    bar.tick();
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;

    #[test]
    fn the_plan_counts_only_the_passes_that_run() {
        // 64 KiB, tests 1 and 2: read, reread, random read, random write.
        assert_eq!(
            planned_bytes(&test_config(&["-s", "64k", "-i", "1", "-i", "2"])),
            4 * (64 << 10)
        );
        // -+E never writes: the random write pass does not run, nor count.
        assert_eq!(
            planned_bytes(&test_config(&[
                "-s", "64k", "-i", "1", "-i", "2", "-+E", "-f", "x"
            ])),
            3 * (64 << 10)
        );
        // Throughput mode: every worker of every count, every phase.
        assert_eq!(
            planned_bytes(&test_config(&[
                "-l", "1", "-u", "2", "-s", "64k", "-i", "0"
            ])),
            (1 + 2) * 2 * (64 << 10)
        );
    }

    #[test]
    fn the_plan_counts_every_run() {
        for mode in [
            &["-s", "64k", "-i", "0"][..],
            &["-a", "-n", "64k", "-g", "128k", "-i", "0"],
            &["-t", "2", "-s", "64k", "-i", "0"],
        ] {
            let once = planned_bytes(&test_config(mode));
            let thrice = planned_bytes(&test_config(&[mode, &["--runs", "3"]].concat()));
            assert!(once > 0, "{mode:?}");
            assert_eq!(thrice, 3 * once, "{mode:?}");
        }
    }
}
