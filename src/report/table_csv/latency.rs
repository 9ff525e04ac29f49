//! `--latency` in the CSV table: after a table's own columns, the operations
//! timed, min, the run's percentiles and max, in ns, for each row (a pass, a
//! phase, or with `-C` a worker); empty where a row has no histogram.

use std::io;

use crate::model::histogram::LatencySummary;
use crate::model::result::RunResult;

/// `csv` with the latency columns added, when the run asked for them.
pub fn with_latency_columns(csv_bytes: Vec<u8>, result: &RunResult) -> io::Result<Vec<u8>> {
    let config = &result.config;
    if !config.latency.histograms {
        return Ok(csv_bytes);
    }
    let percentiles = config.latency.percentiles();
    let rows = row_summaries(result);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv_bytes.as_slice());
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    let mut summaries = rows.into_iter();
    for (k, record) in reader.records().enumerate() {
        let mut record = record.map_err(|e| io::Error::other(e.to_string()))?;
        if k == 0 {
            record.push_field("latency_ops");
            record.push_field("latency_min_ns");
            for p in percentiles {
                record.push_field(&format!("latency_p{p}_ns"));
            }
            record.push_field("latency_max_ns");
        } else {
            let fields: Vec<String> = match summaries.next().flatten() {
                Some(l) => std::iter::once(l.count.to_string())
                    .chain(std::iter::once(l.min_ns.to_string()))
                    .chain(
                        percentiles
                            .iter()
                            .map(|&p| l.at(p).map_or(String::new(), |ns| ns.to_string())),
                    )
                    .chain(std::iter::once(l.max_ns.to_string()))
                    .collect(),
                None => vec![String::new(); percentiles.len() + 3],
            };
            for f in &fields {
                record.push_field(f);
            }
        }
        w.write_record(&record)?;
    }
    w.into_inner().map_err(|e| io::Error::other(e.to_string()))
}

/// Each data row's histogram, in the order the table writes its rows.
fn row_summaries(result: &RunResult) -> Vec<Option<&LatencySummary>> {
    match &result.config.throughput {
        Some(tp) => result
            .throughput
            .iter()
            .flat_map(|phase| {
                let workers = phase
                    .results
                    .iter()
                    .filter(|_| tp.per_worker_lines)
                    .map(|w| w.latency.as_ref());
                std::iter::once(phase.latency.as_ref()).chain(workers)
            })
            .collect(),
        None => result
            .cells
            .iter()
            .flat_map(|c| &c.measurements)
            .map(|m| m.latency.as_ref())
            .collect(),
    }
}
