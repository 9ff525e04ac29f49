//! The CSV table (--csv): a header row, then one row per measurement in run
//! order, every column in an explicit unit.
//!
//! Single and auto mode: one row per pass of a cell ([`CSV_HEADER`]).
//! Throughput mode has no cells but phases, so its file has a header of its
//! own ([`throughput_header`]): one row per phase, with the figures of
//! IOzone's block (children see, parent sees, min, max and avg per worker,
//! min xfer) in the run's unit, and with `-C` one row per worker after its
//! phase's row, as the text prints a `Child[n]` line per worker.
//!
//! A metadata benchmark (`ioz fileop`, `ioz mdtest`) has its own columns
//! too ([`metadata`]): a row per operation, force factor and run.
//!
//! With `--runs N` every sample is a row (one per measurement, as ever: a
//! row of means would be counted twice by any sum), and a last column,
//! `run`, says which repetition measured it (from 0, as in the JSON); the
//! means are in the table, `-R`, `-b` and the JSON summaries. Without
//! repetitions the file is as it was, with no `run` column.

use std::io;

use serde::Serialize;

mod latency;
mod metadata;

use super::Exporter;
use crate::model::config::{OutputUnit, RunConfig};
use crate::model::regime::regime;
use crate::model::residency::Residency;
use crate::model::result::{PhaseResult, RunResult, WorkerResult};
use crate::model::workload::Pass;

/// The header row: the names of [`CsvRow`]'s fields, in order.
pub const CSV_HEADER: [&str; 20] = [
    "test",
    "pass",
    "file_bytes",
    "record_bytes",
    "workers",
    "bytes",
    "records",
    "elapsed_ns",
    "cpu_user_ns",
    "cpu_system_ns",
    "kib_per_sec",
    "ops_per_sec",
    "micros_per_op",
    "regime",
    "measured_regime",
    "residency_source",
    "file_pages",
    "cached_pages_start",
    "cached_pages_end",
    "unwritten_pages_end",
];

pub struct CsvReport;

/// One measurement. `pass` is written as in the JSON run file ("random_read").
#[derive(Serialize)]
struct CsvRow {
    /// The IOzone test number (`-i N`).
    test: u32,
    pass: Pass,
    file_bytes: u64,
    record_bytes: u64,
    workers: u32,
    bytes: u64,
    records: u64,
    elapsed_ns: u64,
    cpu_user_ns: u64,
    cpu_system_ns: u64,
    kib_per_sec: u64,
    ops_per_sec: u64,
    micros_per_op: u64,
    /// The cache regime's code (model::regime): cpu_cache, page_cache,
    /// device, uncached or unknown.
    regime: &'static str,
    /// What the page cache held (model::residency): the regime it shows,
    /// its source, the file's pages, those cached at the clock's start and
    /// end, and those dirty or under writeback at its end (empty where
    /// nothing was counted).
    measured_regime: Option<&'static str>,
    residency_source: Option<&'static str>,
    file_pages: Option<u64>,
    cached_pages_start: Option<u64>,
    cached_pages_end: Option<u64>,
    unwritten_pages_end: Option<u64>,
    /// With `--runs` above 1 only: which run measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<u32>,
    /// With `--rules` only: the cell's pass's stamp (valid, invalid,
    /// not_checkable).
    #[serde(skip_serializing_if = "Option::is_none")]
    stamp: Option<&'static str>,
}

/// The residency columns' names, as [`CSV_HEADER`] ends: single, auto and
/// throughput mode write the same six.
const RESIDENCY_COLUMNS: usize = 6;

/// What the page cache held, in the residency columns' order: the regime
/// it shows, its source, the file's pages (the larger of start and end: a
/// first write starts on an empty file), those cached at the clock's start
/// and end, and those dirty or under writeback at its end.
type ResidencyCells = (
    Option<&'static str>,
    Option<&'static str>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
);

fn residency_cells(r: Option<&Residency>, pass: Pass) -> ResidencyCells {
    let (start, end) = (r.and_then(|r| r.start), r.and_then(|r| r.end));
    (
        r.and_then(|r| r.regime(pass)).map(|g| g.code()),
        r.map(|r| r.source.code()),
        start.zip(end).map(|(a, b)| a.pages.max(b.pages)),
        start.map(|c| c.cached),
        end.map(|c| c.cached),
        end.and_then(|c| c.unwritten()),
    )
}

/// The stamp's word in the CSV (as the JSON's verdict).
fn verdict(stamp: &crate::model::rules::Stamp) -> &'static str {
    use crate::model::rules::Stamp;
    match stamp {
        Stamp::Valid => "valid",
        Stamp::Invalid { .. } => "invalid",
        Stamp::NotCheckable { .. } => "not_checkable",
    }
}

impl Exporter for CsvReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        // The header is written by hand so a run without measurements still has it.
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        if let Some(meta) = &result.metadata {
            return metadata::table(result, meta);
        }
        let repeated = result.config.runs > 1;
        if let Some(tp) = &result.config.throughput {
            let mut header = throughput_header(result.config.unit);
            if repeated {
                header.push("run".to_string());
            }
            if result.stamp.is_some() {
                header.push("stamp".to_string());
            }
            w.write_record(header)?;
            let run_of = |phase: &PhaseResult| repeated.then_some(phase.run);
            // A phase's stamp, on its row and its workers' rows.
            let stamp_of = |phase: &PhaseResult| {
                result.stamp.as_ref().map(|s| {
                    s.phase(
                        phase.pass,
                        phase.file_bytes,
                        phase.record_bytes,
                        phase.workers,
                    )
                    .map_or("not_checkable", |c| verdict(&c.stamp))
                })
            };
            for phase in &result.throughput {
                let code = regime(
                    &result.config,
                    &result.environment,
                    phase.pass,
                    phase.file_bytes,
                    phase.workers,
                )
                .code();
                w.serialize(ThroughputCsvRow {
                    run: run_of(phase),
                    regime: code,
                    stamp: stamp_of(phase),
                    ..phase_row(phase, &result.config)
                })?;
                if tp.per_worker_lines {
                    for worker in &phase.results {
                        w.serialize(ThroughputCsvRow {
                            run: run_of(phase),
                            regime: code,
                            stamp: stamp_of(phase),
                            ..worker_row(phase, worker, &result.config)
                        })?;
                    }
                }
            }
            let table = w
                .into_inner()
                .map_err(|e| io::Error::other(e.to_string()))?;
            return latency::with_latency_columns(table, result);
        }
        let mut header: Vec<&str> = CSV_HEADER.to_vec();
        if repeated {
            header.push("run");
        }
        if result.stamp.is_some() {
            header.push("stamp");
        }
        w.write_record(header)?;
        for m in result.cells.iter().flat_map(|c| &c.measurements) {
            let (
                measured_regime,
                residency_source,
                file_pages,
                cached_pages_start,
                cached_pages_end,
                unwritten_pages_end,
            ) = residency_cells(m.residency.as_ref(), m.pass);
            w.serialize(CsvRow {
                test: m.pass.test().number(),
                pass: m.pass,
                file_bytes: m.file_bytes,
                record_bytes: m.record_bytes,
                workers: m.workers,
                bytes: m.bytes,
                records: m.records,
                elapsed_ns: m.elapsed_ns,
                cpu_user_ns: m.cpu_user_ns,
                cpu_system_ns: m.cpu_system_ns,
                kib_per_sec: m.kb_per_sec(),
                ops_per_sec: m.ops_per_sec(),
                micros_per_op: m.micros_per_op(),
                regime: regime(
                    &result.config,
                    &result.environment,
                    m.pass,
                    m.file_bytes,
                    m.workers,
                )
                .code(),
                measured_regime,
                residency_source,
                file_pages,
                cached_pages_start,
                cached_pages_end,
                unwritten_pages_end,
                run: repeated.then_some(m.run),
                stamp: result.stamp.as_ref().map(|s| {
                    s.cell(m.pass, m.file_bytes, m.record_bytes)
                        .map_or("not_checkable", |c| verdict(&c.stamp))
                }),
            })?;
        }
        let table = w
            .into_inner()
            .map_err(|e| io::Error::other(e.to_string()))?;
        latency::with_latency_columns(table, result)
    }
}

/// The quantity of a rate in the unit, for column names: `kib_per_sec`,
/// `ops_per_sec` or `micros_per_op` (as the single-mode columns say), and
/// what a transfer is counted in: `kib` or `ops` (IOzone's "Min xfer").
fn unit_names(unit: OutputUnit) -> (&'static str, &'static str) {
    match unit {
        OutputUnit::KbPerSec => ("kib_per_sec", "kib"),
        OutputUnit::OpsPerSec => ("ops_per_sec", "ops"),
        OutputUnit::MicrosPerOp => ("micros_per_op", "ops"),
    }
}

/// The header row of a throughput run: the columns the single-mode rows
/// share (sizes, bytes, records, time, CPU) and the worker count, then
/// which worker (empty on a phase's row), whether stonewalling cut the
/// counts, the planned bytes, IOzone's six figures of the phase (in the
/// run's unit, named after it) and a worker's own rate and transfer.
pub fn throughput_header(unit: OutputUnit) -> Vec<String> {
    let (rate, xfer) = unit_names(unit);
    let fixed = [
        "test",
        "pass",
        "workers",
        "worker",
        "file_bytes",
        "record_bytes",
        "planned_bytes",
        "bytes",
        "records",
        "elapsed_ns",
        "cpu_user_ns",
        "cpu_system_ns",
        "stonewalled",
    ];
    let mut header: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
    header.extend([
        format!("children_see_{rate}"),
        format!("parent_sees_{rate}"),
        format!("min_{rate}"),
        format!("max_{rate}"),
        format!("avg_{rate}"),
        format!("min_xfer_{xfer}"),
        rate.to_string(),
        format!("xfer_{xfer}"),
        "regime".to_string(),
    ]);
    header.extend(
        CSV_HEADER[CSV_HEADER.len() - RESIDENCY_COLUMNS..]
            .iter()
            .map(|s| s.to_string()),
    );
    header
}

/// One row of a throughput run, in [`throughput_header`]'s order; `None`
/// is an empty cell. Figures are strings with the text block's two
/// decimals, so the CSV and the text agree to the digit.
#[derive(Serialize)]
struct ThroughputCsvRow {
    test: u32,
    pass: Pass,
    workers: u32,
    worker: Option<u32>,
    file_bytes: u64,
    record_bytes: u64,
    planned_bytes: u64,
    bytes: u64,
    records: u64,
    elapsed_ns: u64,
    cpu_user_ns: u64,
    cpu_system_ns: u64,
    stonewalled: bool,
    /// The phase's figures: children see, parent sees, min, max, avg, min xfer.
    phase: [Option<String>; 6],
    /// A worker's rate and transfer.
    rate: Option<String>,
    xfer: Option<String>,
    /// The phase's cache regime (model::regime): all workers' files together.
    regime: &'static str,
    /// What the page cache held of the phase's files together (a worker's
    /// row: of its own), as single mode's columns.
    residency: ResidencyCells,
    /// With `--runs` above 1 only: which run measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<u32>,
    /// With `--rules` only: the phase's stamp (valid, invalid,
    /// not_checkable).
    #[serde(skip_serializing_if = "Option::is_none")]
    stamp: Option<&'static str>,
}

fn figure(v: f64) -> Option<String> {
    Some(format!("{v:.2}"))
}

/// A phase: the workers' bytes, records and CPU added up, the time from
/// the barrier's release to the last worker's end (what "Parent sees"
/// divides by), stonewalled when any worker was stopped early, and the
/// block's six figures.
fn phase_row(phase: &PhaseResult, config: &RunConfig) -> ThroughputCsvRow {
    let unit = config.unit;
    let sum = |f: fn(&WorkerResult) -> u64| phase.results.iter().map(f).sum::<u64>();
    ThroughputCsvRow {
        test: phase.pass.test().number(),
        pass: phase.pass,
        workers: phase.workers,
        worker: None,
        file_bytes: phase.file_bytes,
        record_bytes: phase.record_bytes,
        planned_bytes: phase.planned_bytes(config),
        bytes: phase.moved_bytes(),
        records: sum(|w| w.records),
        elapsed_ns: phase.parent_elapsed_ns,
        cpu_user_ns: sum(|w| w.cpu_user_ns),
        cpu_system_ns: sum(|w| w.cpu_system_ns),
        stonewalled: phase.results.iter().any(|w| w.stonewalled),
        phase: phase.figures(unit).map(figure),
        rate: None,
        xfer: None,
        regime: "",
        residency: residency_cells(phase.residency().as_ref(), phase.pass),
        run: None,
        stamp: None,
    }
}

/// One worker of a phase (`-C`): its own counts and time, its share of the
/// planned bytes, and its rate and transfer (the text's `Child[n]` line).
fn worker_row(phase: &PhaseResult, w: &WorkerResult, config: &RunConfig) -> ThroughputCsvRow {
    let unit = config.unit;
    ThroughputCsvRow {
        test: phase.pass.test().number(),
        pass: phase.pass,
        workers: phase.workers,
        worker: Some(w.worker),
        file_bytes: phase.file_bytes,
        record_bytes: phase.record_bytes,
        planned_bytes: phase.planned_bytes(config) / u64::from(phase.workers.max(1)),
        bytes: w.bytes,
        records: w.records,
        elapsed_ns: w.elapsed_ns,
        cpu_user_ns: w.cpu_user_ns,
        cpu_system_ns: w.cpu_system_ns,
        stonewalled: w.stonewalled,
        phase: Default::default(),
        rate: figure(w.rate(unit)),
        xfer: figure(w.xfer(unit)),
        regime: "",
        residency: residency_cells(w.residency.as_ref(), phase.pass),
        run: None,
        stamp: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::plan::Cell;
    use crate::model::result::{CellResult, Measurement, sample_phase, sample_result};

    fn m(pass: Pass, file_kb: u64, rec_kb: u64, elapsed_ns: u64) -> Measurement {
        Measurement {
            pass,
            file_bytes: file_kb << 10,
            record_bytes: rec_kb << 10,
            workers: 1,
            bytes: file_kb << 10,
            records: file_kb / rec_kb,
            latency: None,
            elapsed_ns,
            cpu_user_ns: 7,
            cpu_system_ns: 11,
            usage: None,
            residency: None,
            run: 0,
            intervals: Vec::new(),
        }
    }

    fn cell(file_kb: u64, rec_kb: u64, passes: &[Pass]) -> CellResult {
        CellResult {
            cell: Cell {
                file_bytes: file_kb << 10,
                record_bytes: rec_kb << 10,
            },
            measurements: passes
                .iter()
                .map(|&p| m(p, file_kb, rec_kb, 1_000_000))
                .collect(),
        }
    }

    #[test]
    fn one_row_per_measurement_in_run_order() {
        let mut result = sample_result(
            test_config(&["-a", "-n", "64k", "-g", "128k", "-i", "0", "-i", "2"]),
            vec![
                cell(64, 4, &[Pass::Write, Pass::Rewrite, Pass::RandomRead]),
                cell(128, 64, &[Pass::Write, Pass::RandomWrite]),
            ],
        );
        // A 96 KiB last-level cache and 1 MiB free: 64 KiB fits the CPU
        // cache, 128 KiB the page cache.
        result.environment.cpu_caches = vec![crate::model::environment::CpuCache {
            level: 3,
            kind: "Unified".into(),
            size_bytes: 96 << 10,
        }];
        result.environment.memory_available_bytes = Some(1 << 20);
        // The random read found a quarter of its file cached.
        let pages = |cached| crate::model::residency::PageCounts {
            pages: 16,
            cached,
            dirty: Some(0),
            writeback: Some(0),
            ..Default::default()
        };
        result.cells[0].measurements[2].residency = Some(crate::model::residency::Residency {
            source: crate::model::residency::ResidencySource::Cachestat,
            why: None,
            start: Some(pages(4)),
            end: Some(pages(16)),
        });
        let text = String::from_utf8(CsvReport.render(&result).unwrap()).unwrap();
        // 64 KiB in 1 ms = 64000 KiB/s; 16 records: 16000 ops/s, 62 µs each.
        let expected = "\
test,pass,file_bytes,record_bytes,workers,bytes,records,elapsed_ns,cpu_user_ns,cpu_system_ns,kib_per_sec,ops_per_sec,micros_per_op,regime,measured_regime,residency_source,file_pages,cached_pages_start,cached_pages_end,unwritten_pages_end
0,write,65536,4096,1,65536,16,1000000,7,11,64000,16000,62,cpu_cache,,,,,,
0,rewrite,65536,4096,1,65536,16,1000000,7,11,64000,16000,62,cpu_cache,,,,,,
2,random_read,65536,4096,1,65536,16,1000000,7,11,64000,16000,62,cpu_cache,mixed,cachestat,16,4,16,0
0,write,131072,65536,1,131072,2,1000000,7,11,128000,2000,500,page_cache,,,,,,
2,random_write,131072,65536,1,131072,2,1000000,7,11,128000,2000,500,page_cache,,,,,,
";
        assert_eq!(text, expected);
        for row in result.cells.iter().flat_map(|c| &c.measurements) {
            assert!(text.contains(&format!(
                ",{},{},{},",
                row.kb_per_sec(),
                row.ops_per_sec(),
                row.micros_per_op()
            )));
        }
    }

    #[test]
    fn every_pass_is_named_as_in_json_and_numbered_by_its_test() {
        let passes: Vec<Pass> = crate::model::workload::TestId::ALL
            .iter()
            .flat_map(|t| t.passes().iter().copied())
            .collect();
        let result = sample_result(test_config(&["-s", "64k"]), vec![cell(64, 4, &passes)]);
        let bytes = CsvReport.render(&result).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(reader.headers().unwrap(), CSV_HEADER.as_slice());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), passes.len());
        for (row, pass) in rows.iter().zip(&passes) {
            assert_eq!(row.len(), CSV_HEADER.len());
            assert_eq!(row[0], pass.test().number().to_string());
            let json = serde_json::to_value(pass).unwrap();
            assert_eq!(Some(&row[1]), json.as_str());
        }
    }

    /// A throughput run of 2 workers: its write phase (each moving 1 MiB in
    /// 1 s), and a read phase where worker 1 was stonewalled at half.
    fn throughput_run(args: &[&str]) -> RunResult {
        let mut result = sample_result(test_config(args), vec![]);
        let mut read = sample_phase(Pass::Read, 2, 1 << 20);
        read.results[1].bytes = 512 << 10;
        read.results[1].records = 8;
        read.results[1].stonewalled = true;
        read.stonewall = true;
        result.throughput = vec![sample_phase(Pass::Write, 2, 1 << 20), read];
        result
    }

    #[test]
    fn a_throughput_run_has_a_row_per_phase_with_the_blocks_figures() {
        let result = throughput_run(&["-t", "2", "-s", "1m", "-r", "64k", "-i", "0", "-i", "1"]);
        let text = String::from_utf8(CsvReport.render(&result).unwrap()).unwrap();
        let expected = "\
test,pass,workers,worker,file_bytes,record_bytes,planned_bytes,bytes,records,elapsed_ns,cpu_user_ns,cpu_system_ns,stonewalled,children_see_kib_per_sec,parent_sees_kib_per_sec,min_kib_per_sec,max_kib_per_sec,avg_kib_per_sec,min_xfer_kib,kib_per_sec,xfer_kib,regime,measured_regime,residency_source,file_pages,cached_pages_start,cached_pages_end,unwritten_pages_end
0,write,2,,1048576,65536,2097152,2097152,32,1000000000,0,0,false,2048.00,2048.00,1024.00,1024.00,1024.00,1024.00,,,unknown,,,,,,
1,read,2,,1048576,65536,2097152,1572864,24,1000000000,0,0,true,1536.00,1536.00,512.00,1024.00,768.00,512.00,,,unknown,,,,,,
";
        assert_eq!(text, expected);
        // The same figures as the text's block.
        let block =
            crate::report::text::throughput::phase_block(&result.throughput[1], &result.config);
        for figure in ["1536.00", "512.00", "1024.00", "768.00"] {
            assert!(block.contains(&format!("= {figure:>10} KB")), "{block}");
        }
    }

    #[test]
    fn a_throughput_phase_has_its_workers_residency_summed_and_each_its_own() {
        use crate::model::residency::{PageCounts, Residency, ResidencySource};
        let mut result =
            throughput_run(&["-t", "2", "-s", "1m", "-r", "64k", "-i", "1", "-C", "-O"]);
        let counts = |cached| PageCounts {
            pages: 256,
            cached,
            dirty: Some(0),
            writeback: Some(0),
            ..Default::default()
        };
        // Worker 0's file all cached at its start, worker 1's none.
        for (w, cached) in result.throughput[1].results.iter_mut().zip([256, 0]) {
            w.residency = Some(Residency {
                source: ResidencySource::Cachestat,
                why: None,
                start: Some(counts(cached)),
                end: Some(counts(256)),
            });
        }
        let bytes = CsvReport.render(&result).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let header = reader.headers().unwrap().clone();
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        let read: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[1] == "read").collect();
        // The phase: 512 pages, 256 cached at the start (half: mixed).
        assert_eq!(&read[0][col("file_pages")], "512");
        assert_eq!(&read[0][col("cached_pages_start")], "256");
        assert_eq!(&read[0][col("cached_pages_end")], "512");
        assert_eq!(&read[0][col("measured_regime")], "mixed");
        assert_eq!(&read[0][col("residency_source")], "cachestat");
        // Each worker its own.
        assert_eq!(&read[1][col("cached_pages_start")], "256");
        assert_eq!(&read[1][col("measured_regime")], "page_cache");
        assert_eq!(&read[2][col("cached_pages_start")], "0");
        assert_eq!(&read[2][col("measured_regime")], "device");
        // The write phase measured nothing: empty cells.
        let write = rows.iter().find(|r| &r[1] == "write").unwrap();
        assert_eq!(&write[col("measured_regime")], "");
    }

    #[test]
    fn with_dash_c_each_phase_row_is_followed_by_its_workers() {
        let result = throughput_run(&["-t", "2", "-s", "1m", "-r", "64k", "-i", "1", "-C", "-O"]);
        let bytes = CsvReport.render(&result).unwrap();
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let header = reader.headers().unwrap().clone();
        assert_eq!(
            header.iter().collect::<Vec<_>>(),
            throughput_header(OutputUnit::OpsPerSec)
        );
        assert_eq!(&header[13], "children_see_ops_per_sec");
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        let kinds: Vec<(&str, &str)> = rows.iter().map(|r| (&r[1], &r[3])).collect();
        assert_eq!(
            kinds,
            [
                ("write", ""),
                ("write", "0"),
                ("write", "1"),
                ("read", ""),
                ("read", "0"),
                ("read", "1")
            ]
        );
        let worker = &rows[5];
        assert_eq!(
            &worker[6], "1048576",
            "one worker's share of the planned bytes"
        );
        assert_eq!(&worker[7], "524288");
        assert_eq!(&worker[12], "true");
        assert!((13..19).all(|i| worker[i].is_empty()), "{worker:?}");
        assert_eq!((&worker[19], &worker[20]), ("8.00", "8.00"), "8 ops in 1 s");
        // The phase's row leaves the worker's columns empty.
        assert!(rows[3][19].is_empty() && rows[3][20].is_empty());
        assert_eq!(&rows[3][13], "24.00");
    }

    #[test]
    fn an_empty_run_still_has_the_header() {
        let result = sample_result(test_config(&["-s", "64k"]), vec![]);
        let text = String::from_utf8(CsvReport.render(&result).unwrap()).unwrap();
        assert_eq!(text, format!("{}\n", CSV_HEADER.join(",")));
    }
}
