//! The JSON run file (--json): the [`RunResult`] as serde writes it, each
//! measurement with its derived rates in explicit units; [`parse_run`] reads
//! it back for `ioz report` (app/input_files.rs reads the file).
//! `schema/run.schema.json` describes the layout.

use std::fmt;
use std::io;
use std::path::Path;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::Exporter;
use crate::analysis::summary::{Summary, summarize};
use crate::model::config::OutputUnit;
use crate::model::config::{MAX_LISTED_SIZES, RunConfig, SizeAxis, Sizes};
use crate::model::environment::Environment;
use crate::model::job::Job;
use crate::model::metadata::MetaOp;
use crate::model::metadata_result::{
    FsUsage, MetaMeasurement, MetadataResult, cells as metadata_cells,
};
use crate::model::order::MAX_RESHUFFLED_OPS;
use crate::model::plan::Cell;
use crate::model::regime::{Regime, regime};
use crate::model::residency::{MeasuredRegime, Residency};
use crate::model::result::{
    CellResult, CellStart, Client, Measurement, PhaseResult, READABLE_SCHEMA_VERSIONS, RunResult,
    RunStatus, SCHEMA_VERSION, phase_runs,
};
use crate::model::skew::CellSkew;
use crate::model::variations::Verify;
use crate::model::workload::Direction;
use crate::model::workload::Pass;

pub struct JsonReport;

impl Exporter for JsonReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        let mut text =
            serde_json::to_string_pretty(&RunFile::from(result)).map_err(io::Error::other)?;
        text.push('\n');
        // A stamped run holds its own digest (--rules; ioz check).
        Ok(crate::model::rules::seal(&text).into_bytes())
    }
}

/// The file's layout: [`RunResult`] field for field, in its order.
#[derive(Serialize)]
struct RunFile<'a> {
    schema_version: u32,
    tool_version: &'a str,
    config: &'a RunConfig,
    started: &'a str,
    started_at: &'a str,
    finished_at: &'a str,
    environment: &'a Environment,
    time_resolution_ns: u64,
    cells: Vec<CellFile<'a>>,
    throughput: Vec<PhaseFile<'a>>,
    /// Throughput mode: each phase's figures summarised over the runs.
    throughput_summaries: Vec<PhaseSummaryFile>,
    /// Cluster mode: each rank's host, test file and environment; in
    /// single and auto mode also its own cells (`cells` holds their sum).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ranks: Vec<RankFile<'a>>,
    /// `ioz fileop`, `ioz mdtest`: each operation's measurements.
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<MetadataFile<'a>>,
    /// Cluster mode's single and auto mode: the ranks' starts and ends in
    /// each cell.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    cell_skews: &'a [CellSkew],
    #[serde(skip_serializing_if = "Option::is_none")]
    job: &'a Option<Job>,
    status: &'a RunStatus,
    /// `--rules`: the run's stamp and each cell's.
    /// The workload's identity (model::workload_id), derived from `config`.
    workload_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    stamp: &'a Option<crate::model::rules::RunStamp>,
    /// A stamped run's digest of this file's text (model::rules::seal),
    /// last: written as the placeholder, then put in place.
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<&'static str>,
    /// The ceilings measured at the run's start, and the rates above them.
    #[serde(skip_serializing_if = "Option::is_none")]
    ceilings: Option<CeilingsFile<'a>>,
}

/// The ceilings as saved, with the rates held against them found
/// impossible (recomputed from the run on every write).
#[derive(Serialize)]
struct CeilingsFile<'a> {
    #[serde(flatten)]
    ceilings: &'a crate::model::ceilings::Ceilings,
    impossible: Vec<crate::model::impossible::Impossible>,
}

/// A metadata benchmark's measurements, each with its rates, and each
/// operation summarised over the runs (derived parts ignored on reading).
#[derive(Serialize)]
struct MetadataFile<'a> {
    measurements: Vec<MetaMeasurementFile<'a>>,
    hosts: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    fs: Option<&'a FsUsage>,
    summaries: Vec<MetaSummaryFile>,
    /// Across ranks: each rank's own measurements.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ranks: Vec<Vec<MetaMeasurementFile<'a>>>,
}

#[derive(Serialize)]
struct MetaMeasurementFile<'a> {
    #[serde(flatten)]
    measurement: &'a MetaMeasurement,
    /// Items over the time (fileop's A, mdtest's rate).
    ops_per_sec: f64,
    /// One over the fastest and the slowest operation (fileop's B and W).
    best_ops_per_sec: f64,
    worst_ops_per_sec: f64,
}

/// An operation (and force factor) over the runs: its `ops_per_sec`.
#[derive(Serialize)]
struct MetaSummaryFile {
    op: MetaOp,
    #[serde(skip_serializing_if = "is_zero")]
    factor: u32,
    of: &'static str,
    #[serde(flatten)]
    summary: Summary,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl<'a> MetadataFile<'a> {
    fn of(meta: &'a MetadataResult) -> MetadataFile<'a> {
        MetadataFile {
            measurements: MetaMeasurementFile::all(&meta.measurements),
            hosts: &meta.hosts,
            fs: meta.fs.as_ref(),
            summaries: metadata_cells(&meta.measurements)
                .into_iter()
                .filter_map(|cell| {
                    let rates: Vec<f64> = cell.iter().map(|m| m.rate()).collect();
                    let mut summary = summarize(&rates)?;
                    summary.outliers = summary
                        .outliers
                        .iter()
                        .map(|&i| cell[i].run as usize)
                        .collect();
                    Some(MetaSummaryFile {
                        op: cell[0].op,
                        factor: cell[0].factor,
                        of: "ops_per_sec",
                        summary,
                    })
                })
                .collect(),
            ranks: meta
                .ranks
                .iter()
                .map(|own| MetaMeasurementFile::all(own))
                .collect(),
        }
    }
}

impl<'a> MetaMeasurementFile<'a> {
    /// Each measurement with its rates.
    fn all(measurements: &'a [MetaMeasurement]) -> Vec<MetaMeasurementFile<'a>> {
        measurements
            .iter()
            .map(|m| MetaMeasurementFile {
                measurement: m,
                ops_per_sec: m.rate(),
                best_ops_per_sec: m.best_rate(),
                worst_ops_per_sec: m.worst_rate(),
            })
            .collect()
    }
}

/// One rank: its table's cells written as the run's own, their regimes
/// judged by the rank's own environment.
#[derive(Serialize)]
struct RankFile<'a> {
    client: &'a Client,
    test_file: &'a Path,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cells: Vec<CellFile<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    cell_starts: &'a [CellStart],
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<&'a Environment>,
}

#[derive(Serialize)]
struct CellFile<'a> {
    cell: &'a Cell,
    measurements: Vec<MeasurementFile<'a>>,
    /// Each pass's samples (one per run) summarised (ignored on reading).
    summaries: Vec<PassSummaryFile>,
}

/// A pass of a cell over the runs: the summary of the measurements' `of`
/// field (the table's unit), outliers named by their run.
#[derive(Serialize)]
struct PassSummaryFile {
    pass: Pass,
    of: &'static str,
    #[serde(flatten)]
    summary: Summary,
}

/// A throughput phase (a pass with a worker count) over the runs: each
/// figure of its block summarised, in the run's unit.
#[derive(Serialize)]
struct PhaseSummaryFile {
    pass: Pass,
    workers: u32,
    unit: &'static str,
    children_see: Summary,
    parent_sees: Summary,
    min_per_worker: Summary,
    max_per_worker: Summary,
    avg_per_worker: Summary,
}

/// The measurement field a unit's numbers come from.
fn unit_field(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kib_per_sec",
        OutputUnit::OpsPerSec => "ops_per_sec",
        OutputUnit::MicrosPerOp => "micros_per_op",
    }
}

/// The summaries of a cell's passes, in the order they first ran; an
/// outlier is named by its `run`, not its place among the samples.
fn pass_summaries(cell: &CellResult, unit: OutputUnit) -> Vec<PassSummaryFile> {
    cell.passes()
        .into_iter()
        .filter_map(|pass| {
            let runs = cell.get(pass)?;
            let samples: Vec<&Measurement> = runs.samples().collect();
            let mut summary = summarize(&runs.values(unit))?;
            summary.outliers = summary
                .outliers
                .iter()
                .map(|&i| samples[i].run as usize)
                .collect();
            Some(PassSummaryFile {
                pass,
                of: unit_field(unit),
                summary,
            })
        })
        .collect()
}

fn phase_summaries(phases: &[PhaseResult], unit: OutputUnit) -> Vec<PhaseSummaryFile> {
    phase_runs(phases)
        .into_iter()
        .filter_map(|runs| {
            let of = |figure: fn(&PhaseResult, OutputUnit) -> f64| {
                let values: Vec<f64> = runs.iter().map(|p| figure(p, unit)).collect();
                summarize(&values)
            };
            Some(PhaseSummaryFile {
                pass: runs[0].pass,
                workers: runs[0].workers,
                unit: unit_name(unit),
                children_see: of(PhaseResult::children_see)?,
                parent_sees: of(PhaseResult::parent_sees)?,
                min_per_worker: of(PhaseResult::min_rate)?,
                max_per_worker: of(PhaseResult::max_rate)?,
                avg_per_worker: of(PhaseResult::avg_rate)?,
            })
        })
        .collect()
}

/// The unit of the throughput figures.
fn unit_name(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "operations/s",
        OutputUnit::MicrosPerOp => "µs/operation",
    }
}

/// A measurement plus what the reports compute from it (ignored on reading).
#[derive(Serialize)]
struct MeasurementFile<'a> {
    #[serde(flatten)]
    measurement: &'a Measurement,
    /// KiB (1024 bytes) per second, truncated: the table's default unit.
    kib_per_sec: u64,
    /// Records per second (`-O`).
    ops_per_sec: u64,
    /// Microseconds per record (`-N`).
    micros_per_op: u64,
    /// Where the pass's data could have been served from (model::regime).
    regime: RegimeFile,
}

/// A throughput phase with its cache regime (all workers' files together;
/// derived, ignored on reading).
#[derive(Serialize)]
struct PhaseFile<'a> {
    #[serde(flatten)]
    phase: &'a PhaseResult,
    regime: RegimeFile,
}

/// A measurement's cache regime, with its one-word code and whether it was
/// served from a cache (derived; ignored on reading): the size-fit guess,
/// and what the page cache held where ioz measured it.
#[derive(Serialize)]
struct RegimeFile {
    /// cpu_cache, page_cache, device, uncached or unknown.
    code: &'static str,
    #[serde(flatten)]
    regime: Regime,
    cached: bool,
    /// True when nothing was measured: `code` is a guess from the sizes.
    guess: bool,
    /// The regime from the residency measured (model::residency).
    #[serde(skip_serializing_if = "Option::is_none")]
    measured: Option<MeasuredFile>,
}

/// The regime the residency shows.
#[derive(Serialize)]
struct MeasuredFile {
    /// device, page_cache, mixed (reads); left_dirty, written_through,
    /// written (writes).
    code: &'static str,
    words: String,
    /// Reads: the share of the file cached as the clock started.
    #[serde(skip_serializing_if = "Option::is_none")]
    cached_fraction: Option<f64>,
    /// Writes: pages dirty or under writeback as the clock stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    unwritten_pages: Option<u64>,
}

impl RegimeFile {
    fn new(regime: Regime, residency: Option<&Residency>, pass: Pass) -> Self {
        let measured = residency
            .and_then(|r| r.regime(pass))
            .map(|m| MeasuredFile {
                code: m.code(),
                words: m.words(),
                cached_fraction: match m {
                    MeasuredRegime::Device { cached }
                    | MeasuredRegime::PageCache { cached }
                    | MeasuredRegime::Mixed { cached } => Some(cached),
                    MeasuredRegime::Written { .. } => None,
                },
                unwritten_pages: match m {
                    MeasuredRegime::Written {
                        unwritten_pages, ..
                    } => unwritten_pages,
                    _ => None,
                },
            });
        RegimeFile {
            code: regime.code(),
            regime,
            cached: regime.cached(),
            guess: measured.is_none(),
            measured,
        }
    }
}

impl<'a> From<&'a RunResult> for RunFile<'a> {
    fn from(result: &'a RunResult) -> Self {
        // No `..`: a field added to RunResult must be added here too.
        let RunResult {
            schema_version,
            tool_version,
            config,
            started,
            started_at,
            finished_at,
            environment,
            time_resolution_ns,
            cells,
            throughput,
            ranks,
            metadata,
            cell_skews,
            job,
            status,
            stamp,
            ceilings,
        } = result;
        // A run read from an older file is written in this version's layout.
        let _ = schema_version;
        let unit = config.unit;
        RunFile {
            schema_version: SCHEMA_VERSION,
            tool_version,
            config,
            started,
            started_at,
            finished_at,
            environment,
            time_resolution_ns: *time_resolution_ns,
            cells: cell_files(cells, config, environment),
            throughput: throughput
                .iter()
                .map(|phase| PhaseFile {
                    phase,
                    regime: RegimeFile::new(
                        regime(
                            config,
                            environment,
                            phase.pass,
                            phase.file_bytes,
                            phase.workers,
                        ),
                        phase.residency().as_ref(),
                        phase.pass,
                    ),
                })
                .collect(),
            throughput_summaries: phase_summaries(throughput, unit),
            ranks: ranks
                .iter()
                .map(|r| RankFile {
                    client: &r.client,
                    test_file: &r.test_file,
                    cells: cell_files(
                        &r.cells,
                        config,
                        r.environment.as_ref().unwrap_or(environment),
                    ),
                    cell_starts: &r.cell_starts,
                    environment: r.environment.as_ref(),
                })
                .collect(),
            metadata: metadata.as_ref().map(MetadataFile::of),
            cell_skews,
            job,
            status,
            workload_id: crate::model::workload_id::id(config),
            digest: stamp
                .as_ref()
                .map(|_| crate::model::rules::DIGEST_PLACEHOLDER),
            stamp,
            ceilings: ceilings.as_ref().map(|ceilings| CeilingsFile {
                ceilings,
                impossible: crate::model::impossible::impossible(result),
            }),
        }
    }
}

/// Rows as the file writes them: each measurement with its rates and cache
/// regime, each pass summarised over the runs.
fn cell_files<'a>(
    cells: &'a [CellResult],
    config: &RunConfig,
    environment: &Environment,
) -> Vec<CellFile<'a>> {
    cells
        .iter()
        .map(|c| CellFile {
            cell: &c.cell,
            measurements: c
                .measurements
                .iter()
                .map(|m| MeasurementFile {
                    measurement: m,
                    kib_per_sec: m.kb_per_sec(),
                    ops_per_sec: m.ops_per_sec(),
                    micros_per_op: m.micros_per_op(),
                    regime: RegimeFile::new(
                        regime(config, environment, m.pass, m.file_bytes, m.workers),
                        m.residency.as_ref(),
                        m.pass,
                    ),
                })
                .collect(),
            summaries: pass_summaries(c, config.unit),
        })
        .collect()
}

/// Most bytes a saved run may hold. A worker's result takes about 300
/// bytes, so this holds over three million: a sweep of every worker count
/// from 1 to 1024 (524,800 results a phase) over six phases. The limit keeps
/// `ioz report` from reading a runaway file whole.
pub const MAX_RUN_BYTES: u64 = 1 << 30;

/// The first look at a saved run: whether it is a JSON object and, if so,
/// its `schema_version`, without keeping anything else (the run itself is
/// read once the version is known).
enum Probe {
    NotAnObject,
    Object {
        schema_version: Option<serde_json::Value>,
    },
}

impl<'de> Deserialize<'de> for Probe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Probe, D::Error> {
        d.deserialize_any(ProbeVisitor)
    }
}

struct ProbeVisitor;

impl<'de> Visitor<'de> for ProbeVisitor {
    type Value = Probe;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Probe, A::Error> {
        let mut schema_version = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "schema_version" {
                // The last of repeated keys, as a JSON object keeps it.
                schema_version = Some(map.next_value()?);
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(Probe::Object { schema_version })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Probe, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Probe::NotAnObject)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Probe, E> {
        Ok(Probe::NotAnObject)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Probe, E> {
        Ok(Probe::NotAnObject)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Probe, E> {
        Ok(Probe::NotAnObject)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Probe, E> {
        Ok(Probe::NotAnObject)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Probe, E> {
        Ok(Probe::NotAnObject)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Probe, E> {
        Ok(Probe::NotAnObject)
    }
}

/// Any JSON value, walked and dropped. Unlike serde's `IgnoredAny` it goes
/// through `deserialize_any`, so serde_json's nesting limit refuses a
/// value nested too deep, as it does in the run itself.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Skip, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
}

/// Why the bytes of a saved run are not one: a line naming the input
/// (`shown`) and what is wrong (serde's line and column for a malformed
/// file).
#[derive(Debug, thiserror::Error)]
pub enum ParseRunError {
    #[error("{shown} is not a saved ioz run: {source}")]
    Malformed {
        shown: String,
        source: serde_json::Error,
    },
    #[error("{shown} is not a saved ioz run: it holds no JSON object")]
    NoObject { shown: String },
    #[error("{shown} is not a saved ioz run: it has no schema_version")]
    NoVersion { shown: String },
    #[error("{shown} has schema_version {found}; this ioz reads 1 and {SCHEMA_VERSION}")]
    OtherVersion {
        shown: String,
        found: serde_json::Value,
    },
    #[error("{shown} is not a saved ioz run: {why}")]
    Sizes { shown: String, why: EndlessSizes },
    #[error("{shown}: {why}")]
    MixTooLong { shown: String, why: MixTooLong },
}

/// Parses the bytes of a run saved with --json; `shown` names the input in
/// the one-line error.
pub fn parse_run(bytes: &[u8], shown: &str) -> Result<RunResult, ParseRunError> {
    let shown = || shown.to_string();
    let malformed = |source| ParseRunError::Malformed {
        shown: shown(),
        source,
    };
    // The version first, so a file of another version is named as such
    // rather than as malformed.
    let probe: Probe = serde_json::from_slice(bytes).map_err(malformed)?;
    let Probe::Object { schema_version } = probe else {
        return Err(ParseRunError::NoObject { shown: shown() });
    };
    match schema_version {
        None => return Err(ParseRunError::NoVersion { shown: shown() }),
        Some(v)
            if !v
                .as_u64()
                .is_some_and(|v| READABLE_SCHEMA_VERSIONS.iter().any(|&r| u64::from(r) == v)) =>
        {
            return Err(ParseRunError::OtherVersion {
                shown: shown(),
                found: v,
            });
        }
        Some(_) => {}
    }
    let result: RunResult = serde_json::from_slice(bytes).map_err(malformed)?;
    check_ranges(&result.config).map_err(|why| ParseRunError::Sizes {
        shown: shown(),
        why,
    })?;
    check_reshuffles(&result).map_err(|why| ParseRunError::MixTooLong {
        shown: shown(),
        why,
    })?;
    Ok(result)
}

/// A verified random mix cut short after `done` of `records` operations,
/// more than the verification note counts the reads of.
#[derive(Debug, thiserror::Error)]
#[error(
    "its verified random mix stopped after {done} of {records} operations; \
     ioz report counts the reads of a mix cut short for at most \
     {MAX_RESHUFFLED_OPS} operations"
)]
pub struct MixTooLong {
    pub done: u64,
    pub records: u64,
}

/// The verification note counts the reads of a random mix cut short by
/// shuffling its choice of reads again: refuses a run that would need that
/// for more than [`MAX_RESHUFFLED_OPS`] operations.
fn check_reshuffles(result: &RunResult) -> Result<(), MixTooLong> {
    if result.config.variations.verify == Verify::None {
        return Ok(());
    }
    let cells = result
        .cells
        .iter()
        .flat_map(|c| &c.measurements)
        .map(|m| (m.pass, m.bytes / m.record_bytes.max(1), m.records));
    let workers = result.throughput.iter().flat_map(|p| {
        let records = p.file_bytes / p.record_bytes.max(1);
        p.results.iter().map(move |w| (p.pass, w.records, records))
    });
    for (pass, done, records) in cells.chain(workers) {
        if pass.direction() == Direction::Mixed && done < records && records > MAX_RESHUFFLED_OPS {
            return Err(MixTooLong { done, records });
        }
    }
    Ok(())
}

/// An auto-mode size axis (`file_sizes` or `record_sizes`) that no command
/// line makes and that rendering would step through for ever.
#[derive(Debug, thiserror::Error)]
pub enum EndlessSizes {
    #[error("its {axis} list has {len} sizes (at most {MAX_LISTED_SIZES})")]
    LongList { axis: &'static str, len: usize },
    #[error("its {axis} range starts at 0")]
    FromZero { axis: &'static str },
    #[error("its {axis} range has multiplier {multiplier} (at least 2)")]
    Multiplier { axis: &'static str, multiplier: u64 },
}

/// Refuses auto-mode size ranges the command line can never produce and
/// that have no end: a range from 0, or one stepping by 0 or 1, would be
/// stepped through forever when the run is rendered.
fn check_ranges(config: &RunConfig) -> Result<(), EndlessSizes> {
    let Sizes::Auto(auto) = &config.sizes else {
        return Ok(());
    };
    for (axis, sizes) in [
        ("file_sizes", &auto.file_sizes),
        ("record_sizes", &auto.record_sizes),
    ] {
        // Every file size meets every record size: long lists make a grid
        // no run has (and no memory holds).
        if let SizeAxis::List(list) = sizes
            && list.len() > MAX_LISTED_SIZES
        {
            let len = list.len();
            return Err(EndlessSizes::LongList { axis, len });
        }
        if let SizeAxis::Range {
            min, multiplier, ..
        } = sizes
        {
            if *min == 0 {
                return Err(EndlessSizes::FromZero { axis });
            }
            if *multiplier < 2 {
                let multiplier = *multiplier;
                return Err(EndlessSizes::Multiplier { axis, multiplier });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::result::{CellResult, sample_result};
    use crate::model::workload::Pass;

    fn measurement(pass: Pass) -> Measurement {
        Measurement {
            pass,
            file_bytes: 64 << 10,
            record_bytes: 4 << 10,
            workers: 1,
            bytes: 64 << 10,
            records: 16,
            latency: None,
            elapsed_ns: 250_000,
            cpu_user_ns: 1_000,
            cpu_system_ns: 200_000,
            usage: None,
            residency: None,
            run: 0,
            intervals: Vec::new(),
        }
    }

    fn sample() -> RunResult {
        let mut r = sample_result(
            test_config(&["-s", "64k", "-r", "4k", "-i", "0", "-i", "2"]),
            vec![CellResult {
                cell: Cell {
                    file_bytes: 64 << 10,
                    record_bytes: 4 << 10,
                },
                measurements: [
                    Pass::Write,
                    Pass::Rewrite,
                    Pass::RandomRead,
                    Pass::RandomWrite,
                ]
                .into_iter()
                .map(measurement)
                .collect(),
            }],
        );
        r.environment
            .cpu_caches
            .push(crate::model::environment::CpuCache {
                level: 1,
                kind: "Data".into(),
                size_bytes: 48 << 10,
            });
        r.environment.target.device = Some(crate::model::environment::DeviceInfo {
            name: "vda".into(),
            model: None,
            rotational: Some(true),
            scheduler: Some("mq-deadline".into()),
            driver: Some("virtio_blk".into()),
            ..Default::default()
        });
        r.status = RunStatus::Interrupted(2);
        r
    }

    /// The line that refuses `bytes` as the saved run `name`.
    fn refusal(name: &str, bytes: &[u8]) -> String {
        parse_run(bytes, name).unwrap_err().to_string()
    }

    #[test]
    fn derived_rates_are_added_to_each_measurement() {
        let result = sample();
        let bytes = JsonReport.render(&result).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let m = &v["cells"][0]["measurements"][2];
        assert_eq!(m["pass"], "random_read");
        assert_eq!(m["elapsed_ns"], 250_000);
        // 64 KiB in 250 µs: 262144000 B/s = 256000 KiB/s; 16 records: 64000 ops/s, 15 µs each.
        assert_eq!(m["kib_per_sec"], 256_000);
        assert_eq!(m["ops_per_sec"], 64_000);
        assert_eq!(m["micros_per_op"], 15);
        let original = &result.cells[0].measurements[2];
        assert_eq!(m["kib_per_sec"], original.kb_per_sec());
        assert_eq!(m["ops_per_sec"], original.ops_per_sec());
        assert_eq!(m["micros_per_op"], original.micros_per_op());
        // Nothing else is added: the top level is RunResult's fields, the
        // summaries of throughput mode's phases over the runs, and the
        // workload's identity.
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut keys = keys;
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "cells",
                "config",
                "environment",
                "finished_at",
                "schema_version",
                "started",
                "started_at",
                "status",
                "throughput",
                "throughput_summaries",
                "time_resolution_ns",
                "tool_version",
                "workload_id"
            ]
        );
        assert_eq!(
            v["workload_id"],
            crate::model::workload_id::id(&result.config)
        );
        assert!(bytes.ends_with(b"}\n"));
    }

    /// `sample()` measured three times: each pass's elapsed time 1×, 2×
    /// and 4× the first run's (kB/s 256000, 128000, 64000 for random read).
    fn three_runs() -> RunResult {
        let mut r = sample();
        r.config.runs = 3;
        r.config.label = Some("bcache-cfq".into());
        let first = r.cells[0].measurements.clone();
        for run in 1..3u32 {
            for m in &first {
                let mut m = m.clone();
                m.run = run;
                m.elapsed_ns <<= run;
                r.cells[0].measurements.push(m);
            }
        }
        r
    }

    #[test]
    fn a_repeated_cell_has_every_sample_and_each_pass_summarised() {
        let result = three_runs();
        let v: serde_json::Value =
            serde_json::from_slice(&JsonReport.render(&result).unwrap()).unwrap();
        assert_eq!(v["schema_version"], 2);
        assert_eq!(v["config"]["runs"], 3);
        assert_eq!(v["config"]["label"], "bcache-cfq");
        let cell = &v["cells"][0];
        let random_reads: Vec<&serde_json::Value> = cell["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["pass"] == "random_read")
            .collect();
        let runs: Vec<_> = random_reads.iter().map(|m| m["run"].clone()).collect();
        assert_eq!(runs, [0, 1, 2]);
        let summary = cell["summaries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["pass"] == "random_read")
            .unwrap();
        // 256000, 128000, 64000 kB/s: mean 149333.33, sd 97761.61 (NumPy:
        // np.std([256000, 128000, 64000], ddof=1)), t(0.975, 2) = 4.302653.
        assert_eq!(summary["of"], "kib_per_sec");
        assert_eq!(summary["n"], 3);
        let mean = summary["mean"].as_f64().unwrap();
        assert!((mean - 149_333.333_333).abs() < 1e-3, "{summary}");
        let sd = summary["sd"].as_f64().unwrap();
        assert!((sd - 97_761.614_825_724_58).abs() < 1e-6, "{summary}");
        // The interval on the log rates: their mean is ln 128000 and their
        // sd ln 2 (they are ln 64000 + 2 ln 2, ln 2, 0).
        let low = summary["ci95"]["low"].as_f64().unwrap();
        let half = 4.302_652_73 * 2f64.ln() / 3f64.sqrt();
        assert!((low - 128_000.0 * (-half).exp()).abs() < 1e-2, "{summary}");
        let high = summary["ci95"]["high"].as_f64().unwrap();
        assert!((high - 128_000.0 * half.exp()).abs() < 1e-1, "{summary}");
        assert_eq!(summary["median"], 128_000.0);
        assert_eq!(summary["mad"], 64_000.0);
        assert_eq!(
            (&summary["min"], &summary["max"]),
            (&64_000.0.into(), &256_000.0.into())
        );
        assert_eq!(summary["outliers"], serde_json::json!([]));
        // Read back: every sample, in run order.
        let bytes = JsonReport.render(&result).unwrap();
        assert_eq!(parse_run(&bytes, "r.json").unwrap(), result);
    }

    #[test]
    fn a_version_1_file_reads_as_one_run() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v["schema_version"] = 1.into();
        let config = v["config"].as_object_mut().unwrap();
        config.remove("runs");
        config.remove("label");
        for m in v["cells"][0]["measurements"].as_array_mut().unwrap() {
            m.as_object_mut().unwrap().remove("run");
        }
        let read = parse_run(v.to_string().as_bytes(), "v1.json").unwrap();
        assert_eq!(read.config.runs, 1);
        assert_eq!(read.config.label, None);
        assert!(read.cells[0].measurements.iter().all(|m| m.run == 0));
        assert_eq!(read.cells, sample().cells);
        // Written again, it is a version 2 file.
        let again: serde_json::Value =
            serde_json::from_slice(&JsonReport.render(&read).unwrap()).unwrap();
        assert_eq!(again["schema_version"], 2);
    }

    #[test]
    fn a_written_run_reads_back_equal() {
        let result = sample();
        let bytes = JsonReport.render(&result).unwrap();
        assert_eq!(parse_run(&bytes, "r.json").unwrap(), result);
    }

    #[test]
    fn another_schema_version_is_refused_by_name() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v["schema_version"] = 3.into();
        v["cells"] = "changed layout".into();
        let e = refusal("v3.json", v.to_string().as_bytes());
        assert_eq!(e, "v3.json has schema_version 3; this ioz reads 1 and 2");
        v["schema_version"] = "1".into();
        let e = refusal("str.json", v.to_string().as_bytes());
        assert!(e.contains("schema_version \"1\""), "{e}");
    }

    #[test]
    fn bad_files_give_one_line_naming_the_path() {
        let good = JsonReport.render(&sample()).unwrap();
        let mut missing_field = serde_json::to_value(sample()).unwrap();
        missing_field["cells"][0]["measurements"][0]
            .as_object_mut()
            .unwrap()
            .remove("elapsed_ns");
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            (
                "empty.json",
                vec![],
                "EOF while parsing a value at line 1 column 0",
            ),
            ("text.json", b"hello\n".to_vec(), "line 1 column 1"),
            (
                "cut.json",
                good[..good.len() / 2].to_vec(),
                "EOF while parsing",
            ),
            ("array.json", b"[1, 2]".to_vec(), "no JSON object"),
            (
                "noversion.json",
                b"{\"cells\": []}".to_vec(),
                "no schema_version",
            ),
            (
                "field.json",
                missing_field.to_string().into_bytes(),
                "missing field `elapsed_ns`",
            ),
            ("binary.json", vec![0xff, 0xfe, 0, 1], "line 1 column 1"),
        ];
        for (name, bytes, expect) in cases {
            let e = refusal(name, &bytes);
            assert!(e.starts_with(name), "{name}: {e}");
            assert!(e.contains(expect), "{name}: {e}");
            assert!(!e.contains('\n'), "{name}: {e}");
        }
    }

    #[test]
    fn a_grid_no_run_has_is_refused() {
        // 20,000 file sizes by 20,000 record sizes took ioz report down
        // (300 KB of JSON).
        let mut r = sample();
        r.config.sizes = Sizes::Auto(crate::model::config::AutoSizes {
            file_sizes: SizeAxis::List((1..=257).map(|k| k << 16).collect()),
            record_sizes: SizeAxis::List(vec![4096]),
            crossover: false,
        });
        let bytes = JsonReport.render(&r).unwrap();
        let e = parse_run(&bytes, "grid.json").unwrap_err();
        assert!(matches!(
            e,
            ParseRunError::Sizes {
                why: EndlessSizes::LongList { len: 257, .. },
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "grid.json is not a saved ioz run: its file_sizes list has 257 sizes (at most 256)"
        );
    }

    #[test]
    fn a_verified_mix_cut_short_is_counted_within_a_bound() {
        let mut r = sample();
        r.config.variations.verify = Verify::Pattern(0xa5);
        let mut mix = measurement(Pass::RandomMix);
        mix.records = 1 << 40;
        mix.record_bytes = 1;
        mix.bytes = 1 << 20;
        r.cells[0].measurements.push(mix.clone());
        let bytes = JsonReport.render(&r).unwrap();
        let e = parse_run(&bytes, "mix.json").unwrap_err().to_string();
        assert!(
            e.starts_with("mix.json: its verified random mix stopped after 1048576 of 1099511627776 operations"),
            "{e}"
        );
        // Done to the end: counted without shuffling, whatever its size.
        r.cells[0].measurements.last_mut().unwrap().bytes = 1 << 40;
        let bytes = JsonReport.render(&r).unwrap();
        assert!(parse_run(&bytes, "mix.json").is_ok());
    }

    #[test]
    fn the_version_is_read_without_the_rest() {
        // Repeated keys: the last one is the version, and the run is then
        // refused for the repetition, as before.
        let run = String::from_utf8(JsonReport.render(&sample()).unwrap()).unwrap();
        let twice = run.replacen("{", "{\"schema_version\": 7,", 1);
        let e = refusal("t.json", twice.as_bytes());
        assert!(e.contains("duplicate field `schema_version`"), "{e}");
        for (text, why) in [
            ("3", "no JSON object"),
            ("\"x\"", "no JSON object"),
            ("null", "no JSON object"),
            ("[{\"schema_version\": 1}]", "no JSON object"),
            ("{} {}", "trailing characters"),
            ("{\"schema_version\": 1", "EOF while parsing"),
        ] {
            let e = refusal("p.json", text.as_bytes());
            assert!(e.contains(why), "{text}: {e}");
        }
        // A field nested past serde_json's limit is refused, even one the
        // run does not have.
        let deep = format!(
            "{{\"x\": {}{}, \"schema_version\": 1}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        let e = refusal("d.json", deep.as_bytes());
        assert!(e.contains("recursion limit exceeded"), "{e}");
    }
}
