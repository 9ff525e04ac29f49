//! `ioz report --scaling`: the tables of a sweep, as a paper on scaling
//! prints them. Over one run (`-t 1 -t 2 -t 4 -t 8`, `-l 1 -u 8`) or several
//! (one per record size), a table per test: a row per worker count, a
//! column per record size, each cell the throughput in MB/s (10^6 bytes/s;
//! operations/s and µs/operation for runs in those units; the mean over
//! the runs and repetitions that measured it); then, for runs measured
//! with `--latency`, the same tables of each test's p50 and p99, in the
//! unit asked for or the one that suits the table.
//!
//! Single and auto mode's cells count as one worker; several file sizes
//! get a table each. A `-+k` sweep's phases are of the file size its
//! workers share, whatever each one's part of it (a worker writes 1/N of
//! it): one table per test, as a scaling study prints it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::analysis::samples::{exact_rate, unit_name};
use crate::model::config::{OutputUnit, Sizes};
use crate::model::histogram::{LatencyHistogram, LatencySummary};
use crate::model::result::RunResult;
use crate::model::units::{LatencyUnit, Size};
use crate::model::workload::Pass;
use crate::report::plots::number;

/// The latency percentiles tabled.
const PERCENTILES: [f64; 2] = [50.0, 99.0];

/// Where a measurement belongs: a test's table (and its file size), a row, a column.
type Place = (Pass, u64, u32, u64);

/// What every run measured, gathered by place.
#[derive(Default)]
struct Gathered {
    /// Each sample's rate, in the runs' unit.
    rates: BTreeMap<Place, Vec<f64>>,
    /// Every operation's latency, merged.
    latency: BTreeMap<Place, LatencyHistogram>,
}

impl Gathered {
    fn add(&mut self, place: Place, rate: f64, latency: Option<&LatencySummary>) {
        self.rates.entry(place).or_default().push(rate);
        if let Some(l) = latency.filter(|l| l.count > 0) {
            self.latency
                .entry(place)
                .or_default()
                .merge(&LatencyHistogram::from_summary(l));
        }
    }
}

/// Why the runs make no tables.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScalingError {
    #[error("{first} is in {unit} and {other} in {other_unit}; the tables take runs of one unit")]
    MixedUnits {
        first: String,
        unit: &'static str,
        other: String,
        other_unit: &'static str,
    },
    #[error("the runs hold no measurement to put in a table")]
    Empty,
}

/// The scaling tables of `runs` (each with the name it was given by),
/// latencies in `latency_unit` or each table's own.
pub fn scaling_tables(
    runs: &[(String, RunResult)],
    latency_unit: Option<LatencyUnit>,
) -> Result<String, ScalingError> {
    let Some((first_name, first)) = runs.first() else {
        return Err(ScalingError::Empty);
    };
    let unit = first.config.unit;
    if let Some((other, run)) = runs.iter().find(|(_, r)| r.config.unit != unit) {
        return Err(ScalingError::MixedUnits {
            first: first_name.clone(),
            unit: unit_name(unit),
            other: other.clone(),
            other_unit: unit_name(run.config.unit),
        });
    }
    let mut gathered = Gathered::default();
    for (_, run) in runs {
        for cell in &run.cells {
            for pass in cell.passes() {
                let Some(runs) = cell.get(pass) else { continue };
                let place = (pass, cell.cell.file_bytes, 1, cell.cell.record_bytes);
                for m in runs.samples() {
                    gathered.add(place, exact_rate(m, unit), m.latency.as_ref());
                }
            }
        }
        for p in &run.throughput {
            let place = (
                p.pass,
                table_file(run, p.file_bytes),
                p.workers,
                p.record_bytes,
            );
            gathered.add(place, p.children_see(unit), p.latency.as_ref());
        }
    }
    if gathered.rates.is_empty() {
        return Err(ScalingError::Empty);
    }
    let sums: BTreeSet<String> = runs.iter().filter_map(|(_, r)| r.summed_words()).collect();
    let summed = match sums.len() {
        0 => String::new(),
        _ => format!(
            " ({}: each cell is the clients' sum)",
            sums.into_iter().collect::<Vec<_>>().join(", ")
        ),
    };
    let names: Vec<&str> = runs.iter().map(|(n, _)| n.as_str()).collect();
    let shared = if runs.iter().any(|(_, r)| shares_the_file(r)) {
        "; with -+k the workers of a row share the file size, each writing its part"
    } else {
        ""
    };
    let mut out = format!(
        "Scaling tables of {}{summed}: a table per test, a row per worker count, a column \
         per record size; throughput is the workers' sum (IOzone's \"Children see\"){shared}\n",
        names.join(", ")
    );
    let several_files = gathered
        .rates
        .keys()
        .map(|p| p.1)
        .collect::<BTreeSet<_>>()
        .len()
        > 1;
    let tables: BTreeSet<(Pass, u64)> = gathered.rates.keys().map(|p| (p.0, p.1)).collect();
    let (rate_unit, factor) = table_unit(unit);
    for &(pass, file) in &tables {
        let title = table_title(pass, file, several_files);
        let _ = writeln!(out, "\n{title}: throughput in {rate_unit}");
        table(&mut out, &gathered.rates, pass, file, |v| {
            number(mean(v) * factor)
        });
    }
    if gathered.latency.is_empty() {
        out.push_str("\nNo latency tables: the runs were not measured with --latency.\n");
        return Ok(out);
    }
    for &(pass, file) in &tables {
        for p in PERCENTILES {
            let of = |h: &LatencyHistogram| h.percentile(p).map(|ns| ns as f64);
            let largest = gathered
                .latency
                .iter()
                .filter(|(k, _)| (k.0, k.1) == (pass, file))
                .filter_map(|(_, h)| of(h))
                .fold(0.0, f64::max);
            if largest == 0.0 {
                continue;
            }
            let unit = latency_unit.unwrap_or(LatencyUnit::for_largest(largest));
            let _ = writeln!(
                out,
                "\n{}: p{} latency in {}",
                table_title(pass, file, several_files),
                number(p),
                unit.symbol()
            );
            table(&mut out, &gathered.latency, pass, file, |h| {
                of(h).map_or("-".into(), |ns| number(ns / unit.ns()))
            });
        }
    }
    Ok(out)
}

/// `-+k`: the run's workers divide its file size among them.
fn shares_the_file(run: &RunResult) -> bool {
    run.config
        .throughput
        .as_ref()
        .is_some_and(|t| t.constant_total)
}

/// The file size a throughput phase's table is of: each worker's, or with
/// `-+k` the size the workers share (`-s`), whatever each one's part, so
/// that a sweep over worker counts is one table.
fn table_file(run: &RunResult, worker_file_bytes: u64) -> u64 {
    match run.config.sizes {
        Sizes::Single { file_bytes, .. } if shares_the_file(run) => file_bytes,
        _ => worker_file_bytes,
    }
}

/// A test's table title: its name, and its file size when the runs have several.
fn table_title(pass: Pass, file: u64, several_files: bool) -> String {
    if several_files {
        format!("{}, {} files", pass.name(), Size(file))
    } else {
        pass.name().to_string()
    }
}

/// One table: the header of record sizes, a row per worker count, `cell`
/// of each value present ("-" where none is).
fn table<V>(
    out: &mut String,
    values: &BTreeMap<Place, V>,
    pass: Pass,
    file: u64,
    cell: impl Fn(&V) -> String,
) {
    let of_table: Vec<(&Place, &V)> = values
        .iter()
        .filter(|(p, _)| (p.0, p.1) == (pass, file))
        .collect();
    let workers: BTreeSet<u32> = of_table.iter().map(|(p, _)| p.2).collect();
    let records: BTreeSet<u64> = of_table.iter().map(|(p, _)| p.3).collect();
    let head: Vec<String> = records.iter().map(|&r| Size(r).to_string()).collect();
    let rows: Vec<(u32, Vec<String>)> = workers
        .iter()
        .map(|&w| {
            let cells = records
                .iter()
                .map(|&r| values.get(&(pass, file, w, r)).map_or("-".into(), &cell))
                .collect();
            (w, cells)
        })
        .collect();
    let width = head
        .iter()
        .map(String::len)
        .chain(rows.iter().flat_map(|(_, c)| c.iter().map(String::len)))
        .max()
        .unwrap_or(1)
        .max(8);
    let _ = write!(out, "{:>7}", "workers");
    for h in &head {
        let _ = write!(out, "  {h:>width$}");
    }
    out.push('\n');
    for (w, cells) in rows {
        let _ = write!(out, "{w:>7}");
        for c in cells {
            let _ = write!(out, "  {c:>width$}");
        }
        out.push('\n');
    }
}

/// The unit of every throughput table, and the factor from the runs' unit
/// into it: MB/s (10^6 bytes) as papers give throughput, whatever the
/// magnitude, so that one sweep's tables read alike.
fn table_unit(unit: OutputUnit) -> (&'static str, f64) {
    match unit {
        OutputUnit::KbPerSec => ("MB/s", 1024.0 / 1e6),
        OutputUnit::OpsPerSec => ("operations/s", 1.0),
        OutputUnit::MicrosPerOp => ("µs/operation", 1.0),
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}
