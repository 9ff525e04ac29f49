//! The CSV table (--csv): a header row, then one row per measurement in run
//! order, every column in an explicit unit.

use std::io;

use serde::Serialize;

use super::Exporter;
use crate::model::result::RunResult;
use crate::model::workload::Pass;

/// The header row: the names of [`CsvRow`]'s fields, in order.
pub const CSV_HEADER: [&str; 13] = [
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
}

impl Exporter for CsvReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        // The header is written by hand so a run without measurements still has it.
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(CSV_HEADER)?;
        for m in result.cells.iter().flat_map(|c| &c.measurements) {
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
            })?;
        }
        w.into_inner().map_err(|e| io::Error::other(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::plan::Cell;
    use crate::model::result::{CellResult, Measurement, sample_result};

    fn m(pass: Pass, file_kb: u64, rec_kb: u64, elapsed_ns: u64) -> Measurement {
        Measurement {
            pass,
            file_bytes: file_kb << 10,
            record_bytes: rec_kb << 10,
            workers: 1,
            bytes: file_kb << 10,
            records: file_kb / rec_kb,
            elapsed_ns,
            cpu_user_ns: 7,
            cpu_system_ns: 11,
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
        let result = sample_result(
            test_config(&["-a", "-n", "64k", "-g", "128k", "-i", "0", "-i", "2"]),
            vec![
                cell(64, 4, &[Pass::Write, Pass::Rewrite, Pass::RandomRead]),
                cell(128, 64, &[Pass::Write, Pass::RandomWrite]),
            ],
        );
        let text = String::from_utf8(CsvReport.render(&result).unwrap()).unwrap();
        // 64 KiB in 1 ms = 64000 KiB/s; 16 records: 16000 ops/s, 62 µs each.
        let expected = "\
test,pass,file_bytes,record_bytes,workers,bytes,records,elapsed_ns,cpu_user_ns,cpu_system_ns,kib_per_sec,ops_per_sec,micros_per_op
0,write,65536,4096,1,65536,16,1000000,7,11,64000,16000,62
0,rewrite,65536,4096,1,65536,16,1000000,7,11,64000,16000,62
2,random_read,65536,4096,1,65536,16,1000000,7,11,64000,16000,62
0,write,131072,65536,1,131072,2,1000000,7,11,128000,2000,500
2,random_write,131072,65536,1,131072,2,1000000,7,11,128000,2000,500
";
        assert_eq!(text, expected);
        for row in result.cells.iter().flat_map(|c| &c.measurements) {
            assert!(text.contains(&format!(
                ",{},{},{}\n",
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

    #[test]
    fn an_empty_run_still_has_the_header() {
        let result = sample_result(test_config(&["-s", "64k"]), vec![]);
        let text = String::from_utf8(CsvReport.render(&result).unwrap()).unwrap();
        assert_eq!(text, format!("{}\n", CSV_HEADER.join(",")));
    }
}
