//! What a run prints on standard output, in IOzone's layout: one printer,
//! [`LiveText`], that the run feeds as it measures and that `ioz report`
//! feeds from a saved run, so both print the same bytes in the same order.

pub mod excel;
pub mod fileop;
pub mod latency;
pub mod mdtest;
pub mod metadata;
pub mod network;
pub mod rank_lines;
pub mod ranks;
pub mod residency;
pub mod stamp;
pub mod table;
pub mod throughput;
pub mod usage;

use std::io;
use std::path::Path;

use super::Exporter;
use super::layout::TableLayout;
use crate::model::config::RunConfig;
use crate::model::environment::Environment;
use crate::model::metadata_result::MetaMeasurement;
use crate::model::result::phase_runs;
use crate::model::result::{CellResult, Client, PhaseResult, RunResult};
use excel::render_excel_text;
use table::{closing_line, preamble, spread_section, table_header, table_row, verify_note};
use throughput::{
    phase_block, repeated_phase_block, run_header, throughput_preamble, throughput_report,
};

/// The text of a run, piece by piece, in the order it is printed: the
/// opening (banner, option lines, and the table header or the throughput
/// preamble), then rows (single and auto mode) or worker runs and their
/// phases (throughput mode), then the closing (the verify note, the closing
/// line and the `-R` report, each mode in IOzone's order).
pub struct LiveText<'a> {
    config: &'a RunConfig,
    layout: TableLayout,
}

impl<'a> LiveText<'a> {
    pub fn new(config: &'a RunConfig) -> LiveText<'a> {
        LiveText {
            config,
            layout: TableLayout::for_config(config),
        }
    }

    /// Everything before the first measurement.
    pub fn opening(&self, env: &Environment, started: &str, time_resolution_ns: u64) -> String {
        if let Some(m) = &self.config.metadata {
            return metadata::opening(m);
        }
        let mut s = preamble(self.config, env, started, time_resolution_ns);
        match &self.config.throughput {
            Some(tp) => s.push_str(&throughput_preamble(tp)),
            None => s.push_str(&table_header(&self.layout)),
        }
        s
    }

    /// Cluster mode's single and auto mode: everything before rank 0's
    /// first row (`ranks` ranks; rank 0 is `first`, on `file`). Rank 0's
    /// rows follow ([`Self::row`]); the other ranks' tables and their sum
    /// come in [`Self::closing`].
    pub fn opening_across_ranks(
        &self,
        (env, started, time_resolution_ns): (&Environment, &str, u64),
        ranks: usize,
        first: &Client,
        file: &Path,
    ) -> String {
        let mut s = preamble(self.config, env, started, time_resolution_ns);
        s.push_str(&ranks::ranks_opening(&self.layout, ranks, first, file));
        s
    }

    /// With `--runs` above 1 the table and the blocks show means, known
    /// only at the end: rows and phases print then, in [`Self::closing`].
    fn repeated(&self) -> bool {
        self.config.runs > 1
    }

    /// A row of the table.
    pub fn row(&self, row: &CellResult) -> String {
        if self.repeated() {
            return String::new();
        }
        table_row(&self.layout, row, self.config.unit)
    }

    /// Throughput mode: a run with this many workers begins.
    pub fn workers_start(&self, file_bytes: u64, record_bytes: u64) -> String {
        match &self.config.throughput {
            Some(_) if self.repeated() => String::new(),
            Some(tp) => run_header(tp, file_bytes, record_bytes),
            None => String::new(),
        }
    }

    /// Throughput mode: a phase's block.
    pub fn phase(&self, phase: &PhaseResult) -> String {
        if self.repeated() {
            return String::new();
        }
        phase_block(phase, self.config)
    }

    /// A metadata benchmark: a force factor (or an iteration) measured.
    pub fn metadata(&self, measured: &[MetaMeasurement]) -> String {
        metadata::measured(self.config, measured)
    }

    /// Throughput mode: the run with this many workers is over.
    pub fn workers_end(&self) -> String {
        if self.repeated() {
            return String::new();
        }
        "\n\n".to_string()
    }

    /// `--runs`: the table of means and the spread after it, or the
    /// throughput blocks of means, each worker count in turn.
    fn repeated_results(&self, result: &RunResult) -> String {
        let mut s = String::new();
        match &self.config.throughput {
            None => {
                for row in &result.cells {
                    s.push_str(&table_row(&self.layout, row, self.config.unit));
                }
                s.push_str(&spread_section(&self.layout, result));
            }
            Some(tp) => {
                let groups = phase_runs(&result.throughput);
                let mut rest = groups.as_slice();
                while let Some(first) = rest.first() {
                    let workers = first[0].workers;
                    let len = rest.iter().take_while(|g| g[0].workers == workers).count();
                    s.push_str(&run_header(tp, first[0].file_bytes, first[0].record_bytes));
                    for runs in &rest[..len] {
                        s.push_str(&repeated_phase_block(runs, self.config));
                    }
                    s.push_str("\n\n");
                    rest = &rest[len..];
                }
            }
        }
        s
    }

    /// Everything after the last measurement.
    pub fn closing(&self, result: &RunResult) -> String {
        if self.config.metadata.is_some() {
            return metadata::closing(result);
        }
        let mut s = String::new();
        if !result.rank_tables().is_empty() {
            s.push_str(&ranks::ranks_closing(&self.layout, result));
            s.push_str(&rank_lines::cell_skew_line(result));
        } else if self.repeated() {
            s.push_str(&self.repeated_results(result));
        }
        s.push_str(&rank_lines::environment_differences(result));
        if self.config.throughput.is_some() {
            // IOzone prints the throughput -R block before its closing line.
            if self.config.excel_report {
                s.push_str(&throughput_report(&result.throughput, self.config));
            }
            s.push_str(&latency::latency_table(result));
            s.push_str(&latency::rate_lines(result));
            s.push_str(&usage::usage_table(result));
            s.push_str(&residency::residency_block(result));
            s.push_str(&verify_note(result));
            s.push_str(&stamp::stamp_lines(result));
            s.push_str(&closing_line(&result.status));
        } else {
            s.push_str(&latency::latency_table(result));
            s.push_str(&latency::rate_lines(result));
            s.push_str(&usage::usage_table(result));
            s.push_str(&residency::residency_block(result));
            s.push_str(&verify_note(result));
            s.push_str(&stamp::stamp_lines(result));
            s.push_str(&closing_line(&result.status));
            if self.config.excel_report {
                s.push_str(&render_excel_text(result));
            }
        }
        s
    }
}

/// Everything a run printed on standard output, from its saved result: the
/// live printer fed with the result's rows or phases.
pub fn render_output(result: &RunResult) -> String {
    let text = LiveText::new(&result.config);
    let head = (
        &result.environment,
        result.started.as_str(),
        result.time_resolution_ns,
    );
    let tables = result.rank_tables();
    let mut s = match tables.first() {
        Some(first) => {
            text.opening_across_ranks(head, tables.len(), &first.client, &first.test_file)
        }
        None => text.opening(head.0, head.1, head.2),
    };
    if let Some(meta) = &result.metadata {
        // As the run printed them: each force factor of its one run.
        if meta.hosts.len() <= 1 {
            for (_, measured) in metadata_groups(&meta.measurements) {
                s.push_str(&text.metadata(measured));
            }
        }
        s.push_str(&text.closing(result));
        return s;
    }
    if result.config.throughput.is_some() {
        let mut rest = result.throughput.as_slice();
        while let Some(first) = rest.first() {
            // One run per worker count: its phases are consecutive.
            let len = rest
                .iter()
                .take_while(|p| p.workers == first.workers)
                .count();
            s.push_str(&text.workers_start(first.file_bytes, first.record_bytes));
            for phase in &rest[..len] {
                s.push_str(&text.phase(phase));
            }
            s.push_str(&text.workers_end());
            rest = &rest[len..];
        }
    } else {
        // Across ranks the live rows are rank 0's.
        let rows = tables.first().map_or(&result.cells, |r| &r.cells);
        for row in rows {
            s.push_str(&text.row(row));
        }
    }
    s.push_str(&text.closing(result));
    s
}

/// A metadata run's measurements as its runner handed them out: a slice
/// per force factor (or iteration) of each run.
fn metadata_groups(all: &[MetaMeasurement]) -> Vec<((u32, u32), &[MetaMeasurement])> {
    let mut groups = Vec::new();
    let mut rest = all;
    while let Some(first) = rest.first() {
        let key = (first.run, first.factor);
        let len = rest.iter().take_while(|m| (m.run, m.factor) == key).count();
        groups.push((key, &rest[..len]));
        rest = &rest[len..];
    }
    groups
}

/// The text a run printed, as an exporter.
pub struct TextReport;

impl Exporter for TextReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        Ok(render_output(result).into_bytes())
    }
}
