//! Expands a [`RunConfig`] into the ordered cells of a run, with IOzone's auto-mode
//! rules. Pure: no I/O.

use serde::{Deserialize, Serialize};

use crate::model::config::{
    CROSSOVER_FILE_BYTES, CROSSOVER_MIN_RECORD, DEFAULT_RECORD_BYTES, RunConfig, Sizes,
};
use crate::model::workload::{Direction, Pass};

/// One (file size, record size) pair: one row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub file_bytes: u64,
    pub record_bytes: u64,
}

impl Cell {
    /// Whole records in the file (a partial last record is not moved, as in IOzone).
    /// 0 for a telemetry run's cell, whose record size is 0.
    pub fn records(&self) -> u64 {
        self.file_bytes.checked_div(self.record_bytes).unwrap_or(0)
    }

    /// Bytes every full pass over the file moves.
    pub fn pass_bytes(&self) -> u64 {
        self.records() * self.record_bytes
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Cells in run order: file size outer, record size inner, ascending records.
    pub cells: Vec<Cell>,
    /// Every file size of the run, in order (rows of the `-R` report).
    pub file_axis: Vec<u64>,
    /// Every configured record size (columns of the `-R` report), ascending.
    pub record_axis: Vec<u64>,
}

pub fn expand(config: &RunConfig) -> Plan {
    match &config.sizes {
        // A telemetry run: one row whose reclen is 0, as IOzone prints it.
        Sizes::Single { file_bytes, .. } if config.telemetry.is_some() => Plan {
            cells: vec![Cell {
                file_bytes: *file_bytes,
                record_bytes: 0,
            }],
            file_axis: vec![*file_bytes],
            record_axis: vec![0],
        },
        Sizes::Single {
            file_bytes,
            record_bytes,
        } => Plan {
            cells: vec![Cell {
                file_bytes: *file_bytes,
                record_bytes: *record_bytes,
            }],
            file_axis: vec![*file_bytes],
            record_axis: vec![*record_bytes],
        },
        Sizes::Auto(auto) => {
            let file_axis = auto.file_sizes.values();
            let mut record_axis = auto.record_sizes.values();
            record_axis.sort_unstable();
            let mut cells = Vec::new();
            for &file_bytes in &file_axis {
                for &record_bytes in &record_axis {
                    if record_bytes > file_bytes {
                        break;
                    }
                    if auto.crossover
                        && file_bytes > CROSSOVER_FILE_BYTES
                        && record_bytes < CROSSOVER_MIN_RECORD
                    {
                        continue;
                    }
                    cells.push(Cell {
                        file_bytes,
                        record_bytes,
                    });
                }
            }
            Plan {
                cells,
                file_axis,
                record_axis,
            }
        }
    }
}

/// The passes a run measures, in the order they run: test by test in single
/// and auto mode, in IOzone's phase order in throughput mode; without the
/// second passes under `-+n`, and only the reading ones under `-+E` (which
/// never writes). The one answer to "which passes run", for the runner, the
/// progress bar and the reports.
pub fn passes(config: &RunConfig) -> Vec<Pass> {
    let selected: Vec<Pass> = match config.throughput {
        None => config
            .tests
            .iter()
            .flat_map(|t| t.passes().iter().copied())
            .collect(),
        Some(_) => THROUGHPUT_ORDER
            .into_iter()
            .filter(|p| config.tests.contains(&p.test()))
            .collect(),
    };
    selected
        .into_iter()
        .filter(|p| !(config.no_retest && p.is_retest()))
        .filter(|p| !config.variations.existing_file || p.direction() == Direction::Read)
        .collect()
}

/// IOzone's order of throughput phases (test 4, record rewrite, has none).
const THROUGHPUT_ORDER: [Pass; 15] = [
    Pass::Write,
    Pass::Rewrite,
    Pass::Read,
    Pass::Reread,
    Pass::BackwardRead,
    Pass::StrideRead,
    Pass::RandomRead,
    Pass::RandomMix,
    Pass::RandomWrite,
    Pass::Pwrite,
    Pass::Pread,
    Pass::Fwrite,
    Pass::Fread,
    Pass::Pwritev,
    Pass::Preadv,
];

/// What one pass moves: the byte count it is checked against, its operations
/// (the measurement's `records`), and its largest operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassSize {
    pub bytes: u64,
    pub ops: u64,
    pub largest: u64,
}

/// What `pass` moves on `cell`: whole records normally; with telemetry, the
/// replayed file's operations, or the whole file in sequential records.
pub fn pass_size(config: &RunConfig, cell: &Cell, pass: Pass) -> PassSize {
    let Some(t) = &config.telemetry else {
        return PassSize {
            bytes: cell.pass_bytes(),
            ops: cell.records(),
            largest: cell.record_bytes,
        };
    };
    match t.trace_for(pass) {
        Some(trace) => PassSize {
            bytes: trace.bytes,
            ops: trace.ops,
            largest: trace.largest_op,
        },
        None => {
            let rec = sequential_record(config);
            PassSize {
                bytes: cell.file_bytes,
                ops: cell.file_bytes.div_ceil(rec),
                largest: rec.min(cell.file_bytes),
            }
        }
    }
}

/// The record size of the passes of a telemetry run that no telemetry file
/// drives (`-r`, default 4 KiB).
pub fn sequential_record(config: &RunConfig) -> u64 {
    match config.sizes {
        Sizes::Single { record_bytes, .. } => record_bytes.max(1),
        Sizes::Auto(_) => DEFAULT_RECORD_BYTES,
    }
}

/// The largest operation of any pass of a telemetry run on `cell` (its
/// buffers are sized for it).
pub fn largest_replayed_op(config: &RunConfig, cell: &Cell) -> usize {
    let traces = config
        .telemetry
        .iter()
        .flat_map(|t| t.traces())
        .map(|(_, t)| t.largest_op);
    let sequential = sequential_record(config).min(cell.file_bytes);
    traces.chain([sequential]).max().unwrap_or(1).max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;

    fn plan(args: &[&str]) -> Plan {
        expand(&test_config(args))
    }

    fn kb_pairs(p: &Plan) -> Vec<(u64, u64)> {
        p.cells
            .iter()
            .map(|c| (c.file_bytes >> 10, c.record_bytes >> 10))
            .collect()
    }

    #[test]
    fn default_auto_mode_has_every_pair_with_the_crossover() {
        let p = plan(&["-a"]);
        assert_eq!(p.file_axis.len(), 14);
        assert_eq!(p.file_axis[0], 64 << 10);
        assert_eq!(p.file_axis[13], 512 << 20);
        assert_eq!(p.record_axis.len(), 13);
        let pairs = kb_pairs(&p);
        // 64 KiB..16 MiB files (9 sizes) take every record up to their size: 5+6+…+13.
        let small: usize = (5..=13).sum();
        // 32 MiB..512 MiB files (5 sizes) take records 64 KiB..16 MiB: 9 each.
        assert_eq!(pairs.len(), small + 5 * 9);
        assert!(pairs.contains(&(16384, 4)));
        assert!(!pairs.contains(&(32768, 32)));
        assert!(pairs.contains(&(32768, 64)));
        assert_eq!(pairs[0], (64, 4));
        assert_eq!(*pairs.last().unwrap(), (524288, 16384));
    }

    #[test]
    fn z_keeps_small_records_for_large_files() {
        let p = plan(&["-az", "-n", "16m", "-g", "32m", "-i", "0"]);
        let pairs = kb_pairs(&p);
        assert_eq!(pairs.len(), 26);
        assert!(pairs.contains(&(32768, 4)));
    }

    #[test]
    fn crossover_applies_to_n_g_ranges() {
        let p = plan(&["-a", "-n", "16m", "-g", "32m"]);
        let pairs = kb_pairs(&p);
        assert_eq!(pairs.iter().filter(|p| p.0 == 16384).count(), 13);
        assert_eq!(pairs.iter().filter(|p| p.0 == 32768).count(), 9);
    }

    #[test]
    fn ranges_and_multiplier() {
        let p = plan(&[
            "-a", "-n", "64k", "-g", "4m", "-y", "8k", "-q", "256k", "-+x", "4",
        ]);
        assert_eq!(
            kb_pairs(&p),
            vec![
                (64, 8),
                (64, 32),
                (256, 8),
                (256, 32),
                (256, 128),
                (1024, 8),
                (1024, 32),
                (1024, 128),
                (4096, 8),
                (4096, 32),
                (4096, 128)
            ]
        );
        assert_eq!(p.record_axis, vec![8 << 10, 32 << 10, 128 << 10]);
    }

    #[test]
    fn a_range_that_is_not_a_power_of_two_stays_off_the_grid() {
        let p = plan(&["-a", "-n", "100k", "-g", "800k", "-y", "64k", "-q", "64k"]);
        assert_eq!(
            p.file_axis,
            vec![100 << 10, 200 << 10, 400 << 10, 800 << 10]
        );
    }

    #[test]
    fn lists_and_single_values() {
        let p = plan(&[
            "-s", "64", "-s", "128", "-s", "256", "-r", "64", "-r", "128",
        ]);
        assert_eq!(
            kb_pairs(&p),
            vec![(64, 64), (128, 64), (128, 128), (256, 64), (256, 128)]
        );
        let p = plan(&["-s", "64m", "-r", "4k", "-r", "64k"]);
        assert_eq!(kb_pairs(&p), vec![(65536, 4), (65536, 64)]);
        let p = plan(&["-a", "-s", "1m"]);
        assert_eq!(p.file_axis, vec![1 << 20]);
        assert_eq!(kb_pairs(&p).len(), 9);
        let p = plan(&["-s", "1m", "-r", "64k"]);
        assert_eq!(kb_pairs(&p), vec![(1024, 64)]);
        assert_eq!(kb_pairs(&plan(&["-i", "0"])), vec![(512, 4)]);
    }

    #[test]
    fn obsolete_auto_has_no_crossover() {
        let p = plan(&["-A", "-n", "32m", "-g", "32m"]);
        assert!(kb_pairs(&p).contains(&(32768, 4)));
    }

    #[test]
    fn cell_arithmetic_drops_a_partial_last_record() {
        let c = Cell {
            file_bytes: 100 << 10,
            record_bytes: 64 << 10,
        };
        assert_eq!(c.records(), 1);
        assert_eq!(c.pass_bytes(), 64 << 10);
        let telemetry = Cell {
            file_bytes: 100,
            record_bytes: 0,
        };
        assert_eq!((telemetry.records(), telemetry.pass_bytes()), (0, 0));
    }

    #[test]
    fn the_passes_that_run_in_each_mode() {
        use Pass::*;
        let p = |args: &[&str]| passes(&test_config(args));
        assert_eq!(
            p(&["-i", "0", "-i", "2"]),
            [Write, Rewrite, RandomRead, RandomWrite]
        );
        assert_eq!(p(&["-i", "0", "-i", "1", "-+n"]), [Write, Read]);
        // -+E never writes: the random test runs its read pass only.
        assert_eq!(
            p(&["-i", "1", "-i", "2", "-+E", "-f", "x"]),
            [Read, Reread, RandomRead]
        );
        // Throughput mode: IOzone's phase order, whatever order -i gave.
        assert_eq!(
            p(&["-t", "2", "-i", "2", "-i", "8", "-i", "0", "-i", "3"]),
            [
                Write,
                Rewrite,
                BackwardRead,
                RandomRead,
                RandomMix,
                RandomWrite
            ]
        );
        assert_eq!(p(&["-t", "2", "-i", "9", "-i", "6"]), [Pwrite, Fwrite]);
    }
}
