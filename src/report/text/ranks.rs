//! Cluster mode's single and auto mode (`mpirun -np N ioz -a …`): each
//! rank's own table, titled with its rank, host and test file, then the
//! table of their sum, each in IOzone's layout. Rank 0's table prints as
//! its cells finish (the run's progress); the others' and the sum at the
//! end, once rank 0 has them.

use std::fmt::Write as _;
use std::path::Path;

use super::table::{spread_section, table_header, table_row};
use crate::model::config::OutputUnit;
use crate::model::result::{CellResult, Client, RunResult};
use crate::report::layout::TableLayout;

/// What comes before rank 0's first row: what the run is, then rank 0's
/// title and its table's header.
pub fn ranks_opening(layout: &TableLayout, ranks: usize, first: &Client, file: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\tCluster mode: {ranks} ranks run this plan at the same time, each on its own test \
         file; every cell begins on all of them after a barrier."
    );
    s.push_str(&title(first, file));
    s.push_str(&table_header(layout));
    s
}

fn title(client: &Client, file: &Path) -> String {
    format!(
        "\n\tRank {} on {}, test file {}:\n",
        client.rank,
        client.host,
        file.display()
    )
}

/// After the run: with `--runs` rank 0's table of means (its rows were
/// not printed as they came), then every other rank's table and the sum's
/// (the run's own cells), each followed by its spread over the runs.
pub fn ranks_closing(layout: &TableLayout, result: &RunResult) -> String {
    let repeated = result.config.runs > 1;
    let mut s = String::new();
    let tables = result.rank_tables();
    if let Some(first) = tables.first()
        && repeated
    {
        s.push_str(&rows(layout, result, &first.cells));
    }
    for r in tables.iter().skip(1) {
        s.push_str(&title(&r.client, &r.test_file));
        s.push_str(&table_header(layout));
        s.push_str(&rows(layout, result, &r.cells));
    }
    let ranks = tables.len();
    let per_op = match result.config.unit {
        OutputUnit::MicrosPerOp => " (in µs/operation: one over their summed rate)",
        _ => "",
    };
    let _ = writeln!(
        s,
        "\n\tSum of the {ranks} ranks: the aggregate of {ranks} simultaneous clients, each \
         pass's rates added{per_op}. Their passes overlap only approximately: each cell began \
         together, each rank ran it at its own pace."
    );
    s.push_str(&table_header(layout));
    s.push_str(&rows(layout, result, &result.cells));
    s
}

/// The rows of `cells`, and with `--runs` their spread.
fn rows(layout: &TableLayout, result: &RunResult, cells: &[CellResult]) -> String {
    let mut s = String::new();
    for row in cells {
        s.push_str(&table_row(layout, row, result.config.unit));
    }
    if result.config.runs > 1 {
        let these = RunResult {
            cells: cells.to_vec(),
            ranks: Vec::new(),
            ..result.clone()
        };
        s.push_str(&spread_section(layout, &these));
    }
    s
}
