//! `--interval-csv`: the run's intervals (model::intervals), one row each,
//! beside the CSV table (--csv). Single and auto mode: every pass's, in the
//! order the passes ran (cluster mode: the ranks' sum, then each rank's,
//! `rank` set); throughput mode: each phase's sum (`worker` empty), then
//! each worker's, then in cluster mode each rank's. Times in ns from the
//! pass's start (throughput mode: the barrier's release); the page cache
//! and percentiles empty where there are none, and `oldest_in_flight_ns`
//! but in a stall (no operation completed: model::intervals).

use std::io;

use serde::Serialize;

use super::Exporter;
use crate::model::intervals::Interval;
use crate::model::result::RunResult;
use crate::model::workload::Pass;

pub struct IntervalCsvReport;

/// The header row: the names of [`IntervalRow`]'s fields, in order.
pub const INTERVAL_CSV_HEADER: [&str; 23] = [
    "test",
    "pass",
    "run",
    "file_bytes",
    "record_bytes",
    "workers",
    "worker",
    "rank",
    "index",
    "start_ns",
    "length_ns",
    "bytes",
    "ops",
    "kib_per_sec",
    "ops_per_sec",
    "partial",
    "dirty_bytes",
    "writeback_bytes",
    "in_flight",
    "p50_ns",
    "p99_ns",
    "max_ns",
    "oldest_in_flight_ns",
];

#[derive(Serialize)]
struct IntervalRow {
    test: u32,
    pass: Pass,
    run: u32,
    file_bytes: u64,
    record_bytes: u64,
    workers: u32,
    worker: Option<u32>,
    rank: Option<u32>,
    index: u32,
    start_ns: u64,
    length_ns: u64,
    bytes: u64,
    ops: u64,
    kib_per_sec: u64,
    ops_per_sec: u64,
    partial: bool,
    dirty_bytes: Option<u64>,
    writeback_bytes: Option<u64>,
    in_flight: Option<u64>,
    p50_ns: Option<u64>,
    p99_ns: Option<u64>,
    max_ns: Option<u64>,
    /// A stall: how long the loop's oldest operation had been in flight.
    oldest_in_flight_ns: Option<u64>,
}

/// What a series of rows is of: the pass or phase, and whose intervals.
#[derive(Clone, Copy)]
struct Of {
    pass: Pass,
    run: u32,
    file_bytes: u64,
    record_bytes: u64,
    workers: u32,
    worker: Option<u32>,
    rank: Option<u32>,
}

impl Of {
    fn row(self, i: &Interval) -> IntervalRow {
        let latency = i.latency.as_ref();
        IntervalRow {
            test: self.pass.test().number(),
            pass: self.pass,
            run: self.run,
            file_bytes: self.file_bytes,
            record_bytes: self.record_bytes,
            workers: self.workers,
            worker: self.worker,
            rank: self.rank,
            index: i.index,
            start_ns: i.start_ns,
            length_ns: i.length_ns,
            bytes: i.bytes,
            ops: i.ops,
            kib_per_sec: i.kb_per_sec() as u64,
            ops_per_sec: i.ops_per_sec() as u64,
            partial: i.partial,
            dirty_bytes: i.cache.map(|c| c.dirty_bytes),
            writeback_bytes: i.cache.map(|c| c.writeback_bytes),
            in_flight: i.cache.and_then(|c| c.in_flight),
            p50_ns: latency.and_then(|l| l.at(50.0)),
            p99_ns: latency.and_then(|l| l.at(99.0)),
            max_ns: latency.filter(|l| l.count > 0).map(|l| l.max_ns),
            oldest_in_flight_ns: i.oldest_in_flight_ns,
        }
    }
}

impl Exporter for IntervalCsvReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(INTERVAL_CSV_HEADER)?;
        let mut put = |of: Of, intervals: &[Interval]| -> io::Result<()> {
            for i in intervals {
                w.serialize(of.row(i))?;
            }
            Ok(())
        };
        for run in 0..result.config.runs.max(1) {
            for cell in &result.cells {
                for m in cell.measurements.iter().filter(|m| m.run == run) {
                    let of = Of {
                        pass: m.pass,
                        run,
                        file_bytes: m.file_bytes,
                        record_bytes: m.record_bytes,
                        workers: m.workers,
                        worker: None,
                        rank: None,
                    };
                    put(of, &m.intervals)?;
                    for rank in &result.ranks {
                        if let Some(own) = rank.measurement(&cell.cell, m.pass, run) {
                            let rank = Some(rank.client.rank);
                            put(Of { rank, ..of }, &own.intervals)?;
                        }
                    }
                }
            }
        }
        for phase in &result.throughput {
            let of = Of {
                pass: phase.pass,
                run: phase.run,
                file_bytes: phase.file_bytes,
                record_bytes: phase.record_bytes,
                workers: phase.workers,
                worker: None,
                rank: None,
            };
            put(of, &phase.intervals)?;
            for worker in &phase.results {
                let of = Of {
                    worker: Some(worker.worker),
                    rank: worker.client.as_ref().map(|c| c.rank),
                    ..of
                };
                put(of, &worker.intervals)?;
            }
            for rank in &phase.rank_intervals {
                put(
                    Of {
                        rank: Some(rank.rank),
                        ..of
                    },
                    &rank.intervals,
                )?;
            }
        }
        w.into_inner().map_err(|e| io::Error::other(e.to_string()))
    }
}
