//! The measured values of one pass, laid out on the file × record grid.

use super::scale::measured;
use crate::model::result::RunResult;
use crate::model::workload::Pass;

/// The measured values of one pass on the file × record grid.
pub(super) struct Grid {
    pub(super) files: Vec<u64>,
    pub(super) records: Vec<u64>,
    /// `values[file][record]`, `None` where the cell was not measured.
    pub(super) values: Vec<Vec<Option<f64>>>,
}

impl Grid {
    pub(super) fn of(result: &RunResult, pass: Pass) -> Grid {
        let unit = result.config.unit;
        let points: Vec<(u64, u64, f64)> = result
            .cells
            .iter()
            .filter_map(|c| {
                c.get(pass)
                    .map(|m| (c.cell.file_bytes, c.cell.record_bytes, measured(m, unit)))
            })
            .collect();
        let mut files: Vec<u64> = points.iter().map(|p| p.0).collect();
        files.sort_unstable();
        files.dedup();
        let mut records: Vec<u64> = points.iter().map(|p| p.1).collect();
        records.sort_unstable();
        records.dedup();
        let mut values = vec![vec![None; records.len()]; files.len()];
        for (f, r, v) in points {
            if let (Ok(i), Ok(j)) = (files.binary_search(&f), records.binary_search(&r)) {
                values[i][j] = Some(v);
            }
        }
        Grid {
            files,
            records,
            values,
        }
    }

    /// Every measured value.
    pub(super) fn all(&self) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().flatten().flatten().copied()
    }
}
