//! `--latency`: the latency table printed after the throughput table, one
//! row per cell and pass (single and auto mode) or per phase (throughput
//! mode, with a row per worker under it with `-C`): the operations counted,
//! min, the percentiles the run asked for and max, in µs.
//!
//! Each row starts with the pass's name, so the scripts that read IOzone's
//! tables (rows of digits only, or a first field that is a number) skip it.

use std::fmt::Write;

use crate::model::config::RunConfig;
use crate::model::engines;
use crate::model::histogram::LatencySummary;
use crate::model::result::RunResult;
use crate::model::units::{KIB, kb_number};

/// The latency table of `result`, empty when the run had no `--latency`.
pub fn latency_table(result: &RunResult) -> String {
    let config = &result.config;
    if !config.latency.histograms {
        return String::new();
    }
    let percentiles = config.latency.percentiles();
    // With --runs, each run's row says which run it is ("write#2").
    let run_mark = |run: u32| {
        if config.runs > 1 {
            format!("#{}", run + 1)
        } else {
            String::new()
        }
    };
    let mut rows: Vec<(String, u64, u64, &LatencySummary)> = Vec::new();
    for cell in &result.cells {
        for m in &cell.measurements {
            if let Some(l) = &m.latency {
                let name = format!("{}{}", m.pass.name().replace(' ', "_"), run_mark(m.run));
                rows.push((name, m.file_bytes, m.record_bytes, l));
            }
        }
    }
    let per_worker = config
        .throughput
        .as_ref()
        .is_some_and(|t| t.per_worker_lines);
    for phase in &result.throughput {
        let name = format!(
            "{}({}){}",
            phase.pass.name().replace(' ', "_"),
            phase.workers,
            run_mark(phase.run)
        );
        if let Some(l) = &phase.latency {
            rows.push((name, phase.file_bytes, phase.record_bytes, l));
        }
        if per_worker {
            for w in &phase.results {
                if let Some(l) = &w.latency {
                    let label = format!("  worker_{}", w.worker);
                    rows.push((label, phase.file_bytes, phase.record_bytes, l));
                }
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!("\n{}\n", heading(config));
    let name_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    let _ = write!(
        s,
        "{:<name_width$} {:>10} {:>7} {:>10} {:>10}",
        "test", "kB", "reclen", "ops", "min"
    );
    for &p in percentiles {
        let _ = write!(s, " {:>10}", format!("p{p}"));
    }
    let _ = writeln!(s, " {:>10}", "max");
    for (name, file_bytes, record_bytes, l) in rows {
        let _ = write!(
            s,
            "{name:<name_width$} {:>10} {:>7} {:>10} {:>10}",
            // As the main table prints them: the file in IOzone's whole kB,
            // the record exact (8 bytes: 0.0078125).
            file_bytes / KIB,
            kb_number(record_bytes),
            l.count,
            micros(l.min_ns)
        );
        for &p in percentiles {
            let _ = write!(s, " {:>10}", l.at(p).map_or("-".into(), micros));
        }
        let _ = writeln!(s, " {:>10}", micros(l.max_ns));
    }
    s
}

/// `-+O`: the rate each pass or phase achieved against the limit, in
/// operations per second per worker (a phase: its slowest and fastest worker).
pub fn rate_lines(result: &RunResult) -> String {
    let Some(limit) = result.config.latency.rate_limit else {
        return String::new();
    };
    let mut s = format!(
        "\nOperation rate achieved (-+O {limit}: at most {limit} per second per worker):\n"
    );
    for m in result.cells.iter().flat_map(|c| &c.measurements) {
        let _ = writeln!(
            s,
            "{:<16} {:>10.1} ops/sec",
            m.pass.name().replace(' ', "_"),
            m.records as f64 * 1e9 / m.elapsed_ns.max(1) as f64
        );
    }
    for phase in &result.throughput {
        let rates = phase
            .results
            .iter()
            .map(|w| w.records as f64 * 1e9 / w.elapsed_ns.max(1) as f64);
        let (min, max) = rates.fold((f64::MAX, 0.0f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
        let name = format!("{}({})", phase.pass.name().replace(' ', "_"), phase.workers);
        let _ = writeln!(s, "{name:<16} {min:>10.1} to {max:.1} ops/sec per worker");
    }
    s
}

/// What the numbers are: the unit, and for engines with requests in flight
/// that a latency runs from submission to completion.
fn heading(config: &RunConfig) -> String {
    let what = if engines::queued(config.variations.engine) {
        "each from submission to completion, with other requests in flight"
    } else {
        "each operation's system call(s)"
    };
    format!("Latency in microseconds ({what}; within 0.8 %):")
}

/// Nanoseconds as microseconds with two decimals.
fn micros(ns: u64) -> String {
    format!("{:.2}", ns as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::histogram::LatencyHistogram;
    use crate::model::result::{sample_cells, sample_result};
    use crate::model::workload::Pass;

    #[test]
    fn a_row_per_cell_and_pass_with_the_percentiles_asked_for() {
        let mut config = crate::cli::test_config(&["-s", "64k", "-r", "4k", "-i", "0"]);
        config.latency.histograms = true;
        config.latency.percentiles = vec![50.0, 99.0, 99.9];
        let mut cells = sample_cells(&config, &[Pass::Write, Pass::Rewrite], |_, _| 1 << 20);
        let mut h = LatencyHistogram::new();
        for ns in [1_000, 2_000, 3_000, 40_000] {
            h.record(ns);
        }
        cells[0].measurements[0].latency = Some(h.summary(&[50.0, 99.0, 99.9]));
        let text = latency_table(&sample_result(config, cells));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "");
        assert!(lines[1].starts_with("Latency in microseconds (each operation's"));
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            [
                "test", "kB", "reclen", "ops", "min", "p50", "p99", "p99.9", "max"
            ]
        );
        // 2000 ns falls in the bucket 2000..=2015: its middle, 2007 ns.
        assert_eq!(
            lines[3].split_whitespace().collect::<Vec<_>>(),
            [
                "write", "64", "4", "4", "1.00", "2.01", "40.00", "40.00", "40.00"
            ]
        );
        assert_eq!(lines.len(), 4, "the rewrite had no histogram: no row");
    }

    #[test]
    fn nothing_without_latency() {
        let config = crate::cli::test_config(&["-s", "64k", "-r", "4k", "-i", "0"]);
        let cells = sample_cells(&config, &[Pass::Write], |_, _| 1 << 20);
        assert_eq!(latency_table(&sample_result(config, cells)), "");
    }
}
