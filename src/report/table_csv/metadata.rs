//! A metadata benchmark's CSV (`ioz fileop`, `ioz mdtest` with --csv): a
//! row per operation (or phase), force factor and run, with its rates and
//! its operations' latency (min, the run's percentiles, max) in ns: every
//! operation is timed, so every row has them.

use std::io;

use crate::model::metadata_result::MetadataResult;
use crate::model::result::RunResult;

/// The columns before the latency's percentiles.
pub const METADATA_HEADER: [&str; 10] = [
    "op",
    "factor",
    "run",
    "items",
    "elapsed_ns",
    "ops_per_sec",
    "best_ops_per_sec",
    "worst_ops_per_sec",
    "latency_min_ns",
    "latency_sum_ns",
];

/// The table of `meta`, measured by `result`'s run.
pub fn table(result: &RunResult, meta: &MetadataResult) -> io::Result<Vec<u8>> {
    let percentiles = result.config.latency.percentiles();
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    let header: Vec<String> = METADATA_HEADER
        .iter()
        .map(|h| h.to_string())
        .chain(percentiles.iter().map(|p| format!("latency_p{p}_ns")))
        .chain(std::iter::once("latency_max_ns".to_string()))
        .collect();
    w.write_record(&header)?;
    for m in &meta.measurements {
        let l = &m.latency;
        let mut row = vec![
            m.op.key(),
            m.factor.to_string(),
            m.run.to_string(),
            m.items.to_string(),
            m.elapsed_ns.to_string(),
            format!("{:.3}", m.rate()),
            format!("{:.3}", m.best_rate()),
            format!("{:.3}", m.worst_rate()),
            l.min_ns.to_string(),
            l.sum_ns.to_string(),
        ];
        row.extend(
            percentiles
                .iter()
                .map(|&p| l.at(p).map_or(String::new(), |ns| ns.to_string())),
        );
        row.push(l.max_ns.to_string());
        w.write_record(&row)?;
    }
    w.into_inner().map_err(|e| io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::histogram::LatencyHistogram;
    use crate::model::metadata::MetaOp;
    use crate::model::metadata_result::MetaMeasurement;
    use crate::model::result::sample_result;

    #[test]
    fn a_row_per_operation_factor_and_run() {
        let mut h = LatencyHistogram::new();
        for ns in [1_000, 3_000] {
            h.record(ns);
        }
        let meta = MetadataResult {
            measurements: vec![
                MetaMeasurement::of_operations(MetaOp::Stat, 2, 0, &h),
                MetaMeasurement::of_operations(MetaOp::Stat, 2, 1, &h),
            ],
            hosts: vec!["h".into()],
            fs: None,
            ranks: Vec::new(),
            walk: None,
        };
        let run = sample_result(crate::cli::test_config(&["-s", "64k"]), Vec::new());
        let text = String::from_utf8(table(&run, &meta).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("op,factor,run,items,elapsed_ns,ops_per_sec"));
        assert!(lines[0].ends_with("latency_p99.99_ns,latency_max_ns"));
        // 2 stats in 4 µs: 500000 ops/s; the fastest 1 µs, the slowest 3.
        assert!(
            lines[2].starts_with("stat,2,1,2,4000,500000.000,1000000.000,333333.333,1000,4000,"),
            "{}",
            lines[2]
        );
        assert!(lines[2].ends_with(",3000"));
    }
}
