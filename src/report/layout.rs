//! The columns of IOzone's results table: which passes, in which order, how wide.

use crate::model::config::RunConfig;
use crate::model::plan;
use crate::model::workload::{Pass, TestId};

/// One column: the pass it shows, and its header and data widths. IOzone's
/// header widths differ from its data widths for some columns; both are kept
/// so the header lines match IOzone's byte for byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub pass: Pass,
    pub upper_label: &'static str,
    pub label: &'static str,
    pub head_width: usize,
    pub data_width: usize,
}

const fn col(
    pass: Pass,
    upper: &'static str,
    label: &'static str,
    head: usize,
    data: usize,
) -> Column {
    Column {
        pass,
        upper_label: upper,
        label,
        head_width: head,
        data_width: data,
    }
}

/// IOzone's 13 classic columns (tests 0–7).
const CLASSIC: [Column; 13] = [
    col(Pass::Write, "", "write", 8, 8),
    col(Pass::Rewrite, "", "rewrite", 8, 8),
    col(Pass::Read, "", "read", 8, 9),
    col(Pass::Reread, "", "reread", 10, 9),
    col(Pass::RandomRead, "random", "read", 8, 8),
    col(Pass::RandomWrite, "random", "write", 8, 8),
    col(Pass::BackwardRead, "bkwd", "read", 8, 8),
    col(Pass::RecordRewrite, "record", "rewrite", 9, 9),
    col(Pass::StrideRead, "stride", "read", 9, 9),
    col(Pass::Fwrite, "", "fwrite", 9, 9),
    col(Pass::Frewrite, "", "frewrite", 9, 9),
    col(Pass::Fread, "", "fread", 8, 8),
    col(Pass::Freread, "", "freread", 9, 9),
];

/// Columns after freread, shown when their test is selected (9 and 10 also with -E).
/// 9 and 10 come first, where IOzone's -E puts them; the random mix comes last.
const EXTRA: [(TestId, [Option<Column>; 2]); 5] = [
    (
        TestId::Pwrite,
        [
            Some(col(Pass::Pwrite, "", "pwrite", 8, 8)),
            Some(col(Pass::Repwrite, "", "repwrite", 9, 9)),
        ],
    ),
    (
        TestId::Pread,
        [
            Some(col(Pass::Pread, "", "pread", 7, 8)),
            Some(col(Pass::Repread, "", "repread", 10, 9)),
        ],
    ),
    (
        TestId::Pwritev,
        [
            Some(col(Pass::Pwritev, "", "pwritev", 9, 9)),
            Some(col(Pass::Repwritev, "", "repwritev", 10, 10)),
        ],
    ),
    (
        TestId::Preadv,
        [
            Some(col(Pass::Preadv, "", "preadv", 10, 10)),
            Some(col(Pass::Repreadv, "", "repreadv", 9, 9)),
        ],
    ),
    (
        TestId::RandomMix,
        [Some(col(Pass::RandomMix, "random", "mix", 9, 9)), None],
    ),
];

/// Width of the file-size and record-size columns.
pub const KB_WIDTH: usize = 16;
pub const RECLEN_WIDTH: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableLayout {
    pub columns: Vec<Column>,
}

impl TableLayout {
    pub fn for_config(config: &RunConfig) -> TableLayout {
        if config.obsolete_auto {
            return TableLayout {
                columns: CLASSIC[..4].to_vec(),
            };
        }
        let mut columns = CLASSIC.to_vec();
        for (test, cols) in EXTRA {
            let shown = config.tests.contains(&test)
                || (config.extended && matches!(test, TestId::Pwrite | TestId::Pread));
            if shown {
                columns.extend(cols.into_iter().flatten());
            }
        }
        TableLayout { columns }
    }

    /// Passes that have a block in the `-R` report: the ones that run
    /// ([`plan::passes`]), in table order.
    pub fn reported_passes(&self, config: &RunConfig) -> Vec<Pass> {
        let run = plan::passes(config);
        self.columns
            .iter()
            .map(|c| c.pass)
            .filter(|p| run.contains(p))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;

    #[test]
    fn only_the_passes_that_run_are_reported() {
        let reported = |args: &[&str]| {
            let c = test_config(args);
            TableLayout::for_config(&c).reported_passes(&c)
        };
        use Pass::*;
        assert_eq!(
            reported(&["-i", "0", "-i", "2", "-i", "9"]),
            [Write, Rewrite, RandomRead, RandomWrite, Pwrite, Repwrite]
        );
        assert_eq!(reported(&["-i", "0", "-+n"]), [Write]);
        // -+E never writes: no random write block of zeros.
        assert_eq!(
            reported(&["-i", "1", "-i", "2", "-+E", "-f", "x"]),
            [Read, Reread, RandomRead]
        );
    }
}
