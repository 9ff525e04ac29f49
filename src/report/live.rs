//! `--live`: one JSON object per line for each interval (model::intervals::
//! LiveLine). A run writes each line as its interval ends (app/live.rs,
//! through [`line`]); `ioz report --live` writes the same lines again from
//! the saved run ([`LiveReport`]), in the order the run wrote them: the
//! passes as they ran (run by run, cell by cell), then the phases, each
//! phase's sums with every worker's (cluster mode: every rank's) interval
//! of the same index beside.

use std::io;

use super::Exporter;
use crate::model::intervals::{Beside, Interval, LiveHeading, LiveLine, of_index};
use crate::model::result::RunResult;

pub struct LiveReport;

/// One line of the live file, with its newline.
pub fn line(line: &LiveLine) -> io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec(line).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

impl Exporter for LiveReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        for l in lines(result) {
            out.extend(line(&l)?);
        }
        Ok(out)
    }
}

/// Every line of the run, in the order it wrote them.
pub fn lines(result: &RunResult) -> Vec<LiveLine> {
    let mut lines = Vec::new();
    for run in 0..result.config.runs.max(1) {
        for cell in &result.cells {
            for m in cell.measurements.iter().filter(|m| m.run == run) {
                // Cluster mode: each rank's own beside the ranks' sum.
                let ranks: Vec<(u32, &[Interval])> = result
                    .ranks
                    .iter()
                    .filter_map(|r| {
                        let own = r.measurement(&cell.cell, m.pass, run)?;
                        Some((r.client.rank, &own.intervals[..]))
                    })
                    .collect();
                let heading = LiveHeading {
                    pass: m.pass,
                    run,
                    file_bytes: m.file_bytes,
                    record_bytes: m.record_bytes,
                    workers: None,
                };
                for i in &m.intervals {
                    let beside = beside(&ranks, i.index, Beside::rank);
                    lines.push(LiveLine::new(heading, &job_sum(i, &beside), beside));
                }
            }
        }
    }
    for phase in &result.throughput {
        let heading = LiveHeading {
            pass: phase.pass,
            run: phase.run,
            file_bytes: phase.file_bytes,
            record_bytes: phase.record_bytes,
            workers: Some(phase.workers),
        };
        let workers: Vec<(u32, &[Interval])> = phase
            .results
            .iter()
            .map(|w| (w.worker, &w.intervals[..]))
            .collect();
        let ranks: Vec<(u32, &[Interval])> = phase
            .rank_intervals
            .iter()
            .map(|r| (r.rank, &r.intervals[..]))
            .collect();
        for sum in &phase.intervals {
            let line = if ranks.is_empty() {
                LiveLine::new(heading, sum, beside(&workers, sum.index, Beside::worker))
            } else {
                let beside = beside(&ranks, sum.index, Beside::rank);
                LiveLine::new(heading, &job_sum(sum, &beside), beside)
            };
            lines.push(line);
        }
    }
    lines
}

/// A cluster job's sum as its live line shows it: without latency (the
/// ranks' lines in flight hold their percentiles, not their histograms:
/// app/cluster/live.rs); on one machine, as it is.
fn job_sum(sum: &Interval, ranks_beside: &[Beside]) -> Interval {
    let mut shown = sum.clone();
    if !ranks_beside.is_empty() {
        shown.latency = None;
    }
    shown
}

/// Each one's interval of `index` among `series` (a worker's or a rank's,
/// by its number), as `of` shows it.
fn beside(
    series: &[(u32, &[Interval])],
    index: u32,
    of: fn(u32, &Interval) -> Beside,
) -> Vec<Beside> {
    series
        .iter()
        .filter_map(|&(n, intervals)| Some(of(n, of_index(intervals, index)?)))
        .collect()
}
