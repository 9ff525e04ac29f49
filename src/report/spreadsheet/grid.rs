//! What both spreadsheets (-b .xls and .xlsx) hold, as numbers and labels:
//! the `-R` report's blocks as grids, their titles, and the throughput
//! report's rows. The writers lay them out in their own formats.

use crate::analysis::summary::summarize;
use crate::model::config::OutputUnit;
use crate::model::plan::{Cell, expand};
use crate::model::result::{PassRuns, PhaseResult, RunResult, RunStatus, mean, phase_runs};
use crate::model::units::KIB;
use crate::model::workload::Pass;
use crate::report::layout::TableLayout;
use crate::report::text::excel::never_measured;

/// Row 2 of IOzone's -b file.
pub(crate) const AXES_NOTE: &str = "The top row is records sizes, the left column is file sizes";

/// The title of a pass's block in IOzone's spreadsheets, capital R and all
/// (the stdout `-R` titles are spelled differently, e.g. `Re-Reader report`).
pub(crate) fn spreadsheet_title(pass: Pass) -> &'static str {
    use Pass::*;
    match pass {
        Write => "Writer Report",
        Rewrite => "Re-writer Report",
        Read => "Reader Report",
        Reread => "Re-reader Report",
        RandomRead => "Random Read Report",
        RandomWrite => "Random Write Report",
        BackwardRead => "Backward Read Report",
        RecordRewrite => "Record Rewrite Report",
        StrideRead => "Stride Read Report",
        Fwrite => "Fwrite Report",
        Frewrite => "Re-fwrite Report",
        Fread => "Fread Report",
        Freread => "Re-fread Report",
        Pwrite => "Pwrite Report",
        Repwrite => "Re-pwrite Report",
        Pread => "Pread Report",
        Repread => "Re-pread Report",
        Pwritev => "Pwritev Report",
        Repwritev => "Re-pwritev Report",
        Preadv => "Preadv Report",
        Repreadv => "Re-preadv Report",
        RandomMix => "Random Mix Report",
    }
}

/// The command line as IOzone's spreadsheet shows it: each argv word followed
/// by one space.
pub(crate) fn command_line_label(result: &RunResult) -> String {
    result
        .config
        .command_line
        .iter()
        .map(|w| format!("{w} "))
        .collect()
}

/// How the run ended, in words.
pub(crate) fn status_text(status: &RunStatus) -> String {
    match status {
        RunStatus::Complete => "complete".into(),
        RunStatus::Interrupted(sig) => format!("interrupted by signal {sig}"),
        RunStatus::Failed(msg) => format!("failed: {msg}"),
    }
}

/// One file-size row of a pass's block.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GridRow {
    pub file_kb: u64,
    /// One slot per record size up to the file size, in record order.
    pub values: Vec<Slot>,
}

/// What a grid holds for one record size of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Slot {
    /// The value measured.
    Value(f64),
    /// Nothing to show of a cell that ran: outside the plan (the crossover
    /// rule's holes), or a standard deviation of one run. IOzone's .xls
    /// holds 0 there.
    Zero,
    /// A cell of the plan a run that stopped early never measured: empty
    /// in every spreadsheet, so that it cannot read as a measured 0.
    Blank,
}

impl Slot {
    /// The number a spreadsheet may chart: the value measured, else none.
    pub fn value(self) -> Option<f64> {
        match self {
            Slot::Value(v) => Some(v),
            Slot::Zero | Slot::Blank => None,
        }
    }
}

/// One reported pass: the block both spreadsheets hold.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Grid {
    pub pass: Pass,
    /// Every configured record size (bytes), ascending: the header row, in
    /// kB ([`kb_value`](crate::model::units::kb_value): `-r 8b` is 0.0078125).
    pub record_bytes: Vec<u64>,
    /// File sizes that have at least one measured cell, in run order.
    pub rows: Vec<GridRow>,
}

/// The blocks of the `-R` report, as numbers: the passes of
/// [`TableLayout::reported_passes`], file sizes without any cell left out.
pub(crate) fn grids(result: &RunResult) -> Vec<Grid> {
    let unit = result.config.unit;
    grids_of(result, |m| Some(m.value(unit) as f64))
}

/// With several runs, the `-R` grids of each cell's standard deviation
/// (none where a cell has one run: an empty cell, or IOzone's 0 in .xls).
pub(crate) fn sd_grids(result: &RunResult) -> Vec<Grid> {
    let unit = result.config.unit;
    grids_of(result, |m| {
        summarize(&m.values(unit))
            .and_then(|x| x.sd)
            .map(f64::round)
    })
}

/// The title of a pass's standard-deviation block in the spreadsheets.
pub(crate) fn sd_block_title(pass: Pass, runs: u32) -> String {
    format!(
        "{} standard deviation over {runs} runs",
        spreadsheet_title(pass)
    )
}

/// The -+u blocks of the `-R` report: the same grids, each cell the pass's
/// CPU time as a percentage of its wall time, as the text prints it.
pub(crate) fn cpu_grids(result: &RunResult) -> Vec<Grid> {
    grids_of(result, |m| Some(two_decimals(m.cpu_percent())))
}

/// The `-R` grids with `value` of each cell's pass (its runs) in the cells.
fn grids_of(result: &RunResult, value: impl Fn(PassRuns<'_>) -> Option<f64>) -> Vec<Grid> {
    let config = &result.config;
    let plan = expand(config);
    let layout = TableLayout::for_config(config);
    layout
        .reported_passes(config)
        .into_iter()
        .map(|pass| {
            let rows = plan
                .file_axis
                .iter()
                .filter_map(|&file| {
                    let cells: Vec<_> = result
                        .cells
                        .iter()
                        .filter(|c| c.cell.file_bytes == file)
                        .collect();
                    if cells.is_empty() {
                        return None;
                    }
                    let values = plan
                        .record_axis
                        .iter()
                        .filter(|&&rec| rec <= file)
                        .map(|&rec| {
                            let runs = cells
                                .iter()
                                .find(|c| c.cell.record_bytes == rec)
                                .and_then(|c| c.get(pass));
                            let at = Cell {
                                file_bytes: file,
                                record_bytes: rec,
                            };
                            match runs.map(&value) {
                                Some(Some(v)) => Slot::Value(v),
                                None if never_measured(result, &plan, at) => Slot::Blank,
                                _ => Slot::Zero,
                            }
                        })
                        .collect();
                    Some(GridRow {
                        file_kb: file / KIB,
                        values,
                    })
                })
                .collect();
            Grid {
                pass,
                record_bytes: plan.record_axis.clone(),
                rows,
            }
        })
        .collect()
}

/// The title of a pass's -+u block in IOzone's -b file (`Re-fread CPU
/// utilization report (Zero values should be ignored)`).
pub(crate) fn cpu_block_title(pass: Pass) -> String {
    let name = spreadsheet_title(pass).trim_end_matches(" Report");
    format!("{name} CPU utilization report (Zero values should be ignored)")
}

/// Row 1 of a throughput run's -b file.
pub(crate) const THROUGHPUT_HEADING: &str =
    "Throughput report Y-axis is type of test X-axis is number of processes";

pub(crate) use crate::report::text::throughput::{
    record_words as throughput_record_words, report_label as throughput_label,
    unit_words as throughput_unit,
};

/// Rows 1–3 of the -+u block of a throughput run's -b file (the record size
/// line sits between them).
pub(crate) const THROUGHPUT_CPU_HEADING: &str =
    "CPU utilization report Y-axis is type of test X-axis is number of processes";
pub(crate) const THROUGHPUT_CPU_UNIT: &str = "Output is in CPU%";

/// One row of the throughput report: a pass and, per run in order, its
/// worker count and figure (rounded to the 2 decimals the -R text prints).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ThroughputRow {
    pub pass: Pass,
    pub values: Vec<(u32, f64)>,
}

/// `v` as the -R text prints it (`%.2f`), so both files hold the same number.
fn two_decimals(v: f64) -> f64 {
    format!("{v:.2}").parse().unwrap_or(v)
}

/// The rows of the throughput report ("Children see"), passes in the order
/// they first ran.
pub(crate) fn throughput_rows(phases: &[PhaseResult], unit: OutputUnit) -> Vec<ThroughputRow> {
    throughput_rows_of(phases, |p| p.children_see(unit))
}

/// The rows of the -+u throughput block: all workers' CPU time as a
/// percentage of the longest worker's wall time, per run.
pub(crate) fn throughput_cpu_rows(phases: &[PhaseResult]) -> Vec<ThroughputRow> {
    throughput_rows_of(phases, |p| p.cpu_utilisation().2)
}

/// With several runs: the rows of the throughput report's standard
/// deviations (0 where a phase has one run).
pub(crate) fn throughput_sd_rows(phases: &[PhaseResult], unit: OutputUnit) -> Vec<ThroughputRow> {
    rows_over_runs(phases, |runs| {
        let values: Vec<f64> = runs.iter().map(|p| p.children_see(unit)).collect();
        summarize(&values).and_then(|x| x.sd).unwrap_or(0.0)
    })
}

/// Each phase's `value`, the mean over its runs.
fn throughput_rows_of(
    phases: &[PhaseResult],
    value: impl Fn(&PhaseResult) -> f64,
) -> Vec<ThroughputRow> {
    rows_over_runs(phases, |runs| mean(runs.iter().map(|p| value(p))))
}

fn rows_over_runs(
    phases: &[PhaseResult],
    value: impl Fn(&[&PhaseResult]) -> f64,
) -> Vec<ThroughputRow> {
    let mut rows: Vec<ThroughputRow> = Vec::new();
    for runs in phase_runs(phases) {
        let p = runs[0];
        let value = (p.workers, two_decimals(value(&runs)));
        match rows.iter_mut().find(|r| r.pass == p.pass) {
            Some(row) => row.values.push(value),
            None => rows.push(ThroughputRow {
                pass: p.pass,
                values: vec![value],
            }),
        }
    }
    rows
}
