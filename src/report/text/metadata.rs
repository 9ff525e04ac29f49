//! A metadata benchmark's text (`ioz fileop`, `ioz mdtest`), piece by piece
//! as the live printer hands it out: the opening, what one force factor
//! (or iteration) printed as soon as it was measured, and the closing —
//! with ioz's additions after the benchmark's own layout: `--latency`'s
//! table (every operation's min, percentiles and max) and, over several
//! runs, each operation's spread.

use std::fmt::Write as _;

use super::{fileop, mdtest};
use crate::model::config::RunConfig;
use crate::model::metadata::{MDTEST_ROWS, MetadataConfig};
use crate::model::metadata_result::{MetaMeasurement, WalkKind};
use crate::model::result::RunResult;

/// Everything before the first measurement.
pub fn opening(metadata: &MetadataConfig) -> String {
    match metadata {
        MetadataConfig::Fileop(f) => fileop::opening(f),
        // mdtest's header names the ranks' nodes and the file system: it is
        // printed with the tables, once they are known.
        MetadataConfig::Mdtest(_) => String::new(),
    }
}

/// Whether each force factor is printed as soon as it is measured: fileop
/// with one run on one machine (a run across ranks, or of several runs,
/// prints its numbers once they are all known).
fn live(config: &RunConfig, hosts: usize) -> bool {
    matches!(config.metadata, Some(MetadataConfig::Fileop(_))) && config.runs <= 1 && hosts <= 1
}

/// What one force factor (or iteration) prints as soon as it is measured.
pub fn measured(config: &RunConfig, measured: &[MetaMeasurement]) -> String {
    match &config.metadata {
        Some(MetadataConfig::Fileop(f)) if live(config, 1) => {
            let figures: Vec<fileop::Figures> = measured.iter().map(fileop::Figures::of).collect();
            fileop::factor(f, &figures)
        }
        _ => String::new(),
    }
}

/// Everything after the last measurement.
pub fn closing(result: &RunResult) -> String {
    let (Some(metadata), Some(meta)) = (&result.config.metadata, &result.metadata) else {
        return String::new();
    };
    let mut s = String::new();
    match metadata {
        MetadataConfig::Fileop(f) => {
            if !live(&result.config, meta.hosts.len()) {
                s.push_str(&fileop::all_factors(f, &meta.measurements));
            }
            if result.config.runs > 1 {
                s.push_str(&fileop::spread(&meta.measurements, result.config.runs));
            }
        }
        MetadataConfig::Mdtest(m) => {
            s.push_str(&mdtest::text(result, m, meta));
            if result.config.runs > 1 {
                s.push_str(&interval_lines(&meta.measurements));
            }
        }
    }
    s.push_str(&latency_table(result, &meta.measurements));
    s.push_str(&super::rank_lines::environment_differences(result));
    s.push_str(&walk_line(metadata, meta.walk));
    s
}

/// Where ioz's calls were not the peer's own: guarded walks (no private
/// view of the tree without root) cost a call or two an item more.
fn walk_line(metadata: &MetadataConfig, walk: Option<WalkKind>) -> String {
    match walk {
        Some(WalkKind::Guarded) => format!(
            "ioz differs: each path was walked by openat2 inside ioz's tree (no link or mount \
             followed; the private view that keeps {0}'s own calls safe needs root), one or two \
             system calls an item more than {0} makes\n",
            metadata.command()
        ),
        _ => String::new(),
    }
}

/// mdtest over several iterations: each phase's 95 % interval of the mean
/// rate (its SUMMARY has the max, min, mean and deviation).
fn interval_lines(measurements: &[MetaMeasurement]) -> String {
    let mut s = String::from("95 % interval of the mean rate (ops/sec, on log rates):\n");
    for op in MDTEST_ROWS {
        let cell: Vec<&MetaMeasurement> = measurements.iter().filter(|m| m.op == op).collect();
        if cell.is_empty() {
            continue;
        }
        let rates: Vec<f64> = cell.iter().map(|m| m.rate()).collect();
        if let Some(ci) = crate::analysis::summary::summarize(&rates).and_then(|x| x.ci95) {
            let _ = writeln!(
                s,
                "   {:<22} {:>14.3} {:>14.3}",
                cell[0].op.name(),
                ci.low,
                ci.high
            );
        }
    }
    s
}

/// `--latency`: a row per operation (and force factor, and run): the
/// operations counted, min, the percentiles and max, in µs.
fn latency_table(result: &RunResult, measurements: &[MetaMeasurement]) -> String {
    let config = &result.config;
    if !config.latency.histograms || measurements.is_empty() {
        return String::new();
    }
    let percentiles = config.latency.percentiles();
    let name = |m: &MetaMeasurement| {
        let mut name = m.op.key();
        if m.factor > 0 {
            let _ = write!(name, "(X={})", m.factor);
        }
        if config.runs > 1 {
            let _ = write!(name, "#{}", m.run + 1);
        }
        name
    };
    let width = measurements
        .iter()
        .map(|m| name(m).len())
        .max()
        .unwrap_or(2)
        .max(2);
    let mut s = String::from(
        "\nLatency in microseconds (each operation's system call(s), alone; within 0.8 %):\n",
    );
    let _ = write!(s, "{:<width$} {:>10} {:>10}", "op", "ops", "min");
    for p in percentiles {
        let _ = write!(s, " {:>10}", format!("p{p}"));
    }
    let _ = writeln!(s, " {:>10}", "max");
    let micros = |ns: u64| format!("{:.2}", ns as f64 / 1000.0);
    for m in measurements {
        let l = &m.latency;
        let _ = write!(
            s,
            "{:<width$} {:>10} {:>10}",
            name(m),
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
