//! Cluster mode's single and auto mode (`mpirun -np N ioz -a …`): each
//! rank's own table, titled with its rank, host and test file, then the
//! table of their sum, each in IOzone's layout.

use std::fmt::Write as _;

use super::table::{spread_section, table_header, table_row};
use crate::model::config::OutputUnit;
use crate::model::result::{CellResult, RunResult};
use crate::report::layout::TableLayout;

/// Every rank's table, then their sum's (the run's own cells); with
/// `--runs`, each table holds the means and is followed by its spread.
pub fn rank_tables(layout: &TableLayout, result: &RunResult) -> String {
    let ranks = result.ranks.len();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\tCluster mode: {ranks} ranks ran this plan at the same time, each on its own test \
         file; every cell began on all of them after a barrier."
    );
    for r in &result.ranks {
        let _ = writeln!(
            s,
            "\n\tRank {} on {}, test file {}:",
            r.client.rank,
            r.client.host,
            r.test_file.display()
        );
        s.push_str(&table(layout, result, &r.cells));
    }
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
    s.push_str(&table(layout, result, &result.cells));
    s
}

/// One table of `cells` under its header.
fn table(layout: &TableLayout, result: &RunResult, cells: &[CellResult]) -> String {
    let mut s = table_header(layout);
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
