//! IOzone's .xls spreadsheet (-b): a BIFF2 worksheet with the `-R` report's
//! blocks, cell for cell where IOzone's own -b file puts them.
//!
//! Layout (single and auto mode, checked against IOzone's auto_report.xls):
//! row 0 is the command line (every argv word followed by one space), row 1
//! is `" "`, row 2 explains the axes; then, for every reported pass and with
//! no blank rows, one label row with the block's title in column 0, one row of
//! record sizes (kB) in columns 1… (column 0 left empty), and one row per file
//! size: the size (kB) in column 0 and the pass's values in columns 1… for
//! every record size up to the file size (0 where such a record size did not
//! run; no cell at all where a run that stopped early never measured it).
//! Every number, sizes included, is a NUMBER record; every text is a
//! LABEL record with a fully zeroed 256-byte text area.
//!
//! Throughput runs (-t, -l/-u) get IOzone's throughput layout instead
//! (throughput.xls): row 0 the command line, rows 1–3 the report's heading,
//! record size and unit, then one row per phase with its label (`"%15s "`)
//! in column 0, column 1 empty, and the "Children see" figure of successive
//! worker counts in columns 2, 3, ….
//!
//! With -+u, the CPU blocks of the `-R` text follow, as IOzone's -b file has
//! them: in single and auto mode one empty row, then per reported pass a
//! block of the same shape titled `<Name> CPU utilization report (Zero values
//! should be ignored)` (the name spelled as in the block titles above) whose
//! cells are CPU time as a percentage of the pass's wall time; in throughput
//! mode, straight after the phase rows, the three heading rows `CPU
//! utilization report …`, `Record size = …`, `Output is in CPU%` and the
//! same phase rows with each run's CPU percentage. Percentages are rounded
//! to the two decimals the `-R` text prints, so both hold the same number.

use std::io;

use super::grid::*;
use crate::model::result::RunResult;
use crate::model::units::kb_value;
use crate::report::Exporter;

pub struct BiffReport;

impl Exporter for BiffReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        render_biff(result)
    }
}

/// Writes BIFF2 records.
struct Biff {
    bytes: Vec<u8>,
}

const BOF: [u8; 8] = [0x09, 0x00, 0x04, 0x00, 0x02, 0x00, 0x10, 0x00];
const EOF: [u8; 4] = [0x0A, 0x00, 0x00, 0x00];
const NUMBER: u16 = 0x0003;
const LABEL: u16 = 0x0004;
/// Bytes of a LABEL's text area, and the longest text it holds.
const LABEL_AREA: usize = 256;
const LABEL_MAX: usize = 255;

fn cell_index(n: usize, what: &str) -> io::Result<u16> {
    u16::try_from(n).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the .xls worksheet has no {what} {n} (BIFF2 stops at 65535)"),
        )
    })
}

impl Biff {
    fn new() -> Biff {
        Biff {
            bytes: BOF.to_vec(),
        }
    }

    fn cell_head(&mut self, opcode: u16, len: u16, row: usize, col: usize) -> io::Result<()> {
        let (row, col) = (cell_index(row, "row")?, cell_index(col, "column")?);
        self.bytes.extend_from_slice(&opcode.to_le_bytes());
        self.bytes.extend_from_slice(&len.to_le_bytes());
        self.bytes.extend_from_slice(&row.to_le_bytes());
        self.bytes.extend_from_slice(&col.to_le_bytes());
        // Three cell-attribute bytes: IOzone leaves them all zero.
        self.bytes.extend_from_slice(&[0, 0, 0]);
        Ok(())
    }

    fn number(&mut self, row: usize, col: usize, value: f64) -> io::Result<()> {
        self.cell_head(NUMBER, 15, row, col)?;
        self.bytes.extend_from_slice(&value.to_le_bytes());
        Ok(())
    }

    /// A LABEL of IOzone's fixed length 264; text over 255 bytes is cut
    /// (at a character boundary) and the length byte always tells the truth.
    fn label(&mut self, row: usize, col: usize, text: &str) -> io::Result<()> {
        let mut end = text.len().min(LABEL_MAX);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let text = &text.as_bytes()[..end];
        self.cell_head(LABEL, (7 + 1 + LABEL_AREA) as u16, row, col)?;
        self.bytes.push(text.len() as u8);
        self.bytes.extend_from_slice(text);
        self.bytes
            .resize(self.bytes.len() + LABEL_AREA - text.len(), 0);
        Ok(())
    }

    fn finish(mut self) -> Vec<u8> {
        self.bytes.extend_from_slice(&EOF);
        self.bytes
    }
}

/// The whole .xls file of a run.
pub fn render_biff(result: &RunResult) -> io::Result<Vec<u8>> {
    let mut biff = Biff::new();
    biff.label(0, 0, &command_line_label(result))?;
    if result.config.throughput.is_some() {
        throughput_sheet(&mut biff, result)?;
    } else {
        grid_sheet(&mut biff, result)?;
    }
    Ok(biff.finish())
}

/// Single and auto mode: the `-R` blocks, then with -+u the CPU blocks.
fn grid_sheet(biff: &mut Biff, result: &RunResult) -> io::Result<()> {
    biff.label(1, 0, " ")?;
    biff.label(2, 0, AXES_NOTE)?;
    let mut row = 3;
    for grid in grids(result) {
        row = grid_block(biff, row, spreadsheet_title(grid.pass), &grid)?;
    }
    if result.config.variations.cpu_utilisation {
        // IOzone leaves one empty row before the CPU blocks.
        row += 1;
        for grid in cpu_grids(result) {
            row = grid_block(biff, row, &cpu_block_title(grid.pass), &grid)?;
        }
    }
    let runs = result.config.runs;
    if runs > 1 {
        // --runs: the blocks above hold means; after one empty row, as the
        // CPU blocks, each cell's standard deviation.
        row += 1;
        for grid in sd_grids(result) {
            row = grid_block(biff, row, &sd_block_title(grid.pass, runs), &grid)?;
        }
    }
    Ok(())
}

/// One block from `row` on: title, record sizes, a row per file size (0
/// where a record size did not run, nothing where a run that stopped early
/// never measured it). Returns the row after it.
fn grid_block(biff: &mut Biff, mut row: usize, title: &str, grid: &Grid) -> io::Result<usize> {
    biff.label(row, 0, title)?;
    row += 1;
    for (i, &rec) in grid.record_bytes.iter().enumerate() {
        biff.number(row, i + 1, kb_value(rec))?;
    }
    row += 1;
    for r in &grid.rows {
        biff.number(row, 0, r.file_kb as f64)?;
        for (i, v) in r.values.iter().enumerate() {
            match v {
                Slot::Value(v) => biff.number(row, i + 1, *v)?,
                Slot::Zero => biff.number(row, i + 1, 0.0)?,
                // A cell the run never reached: no record, an empty cell.
                Slot::Blank => {}
            }
        }
        row += 1;
    }
    Ok(row)
}

/// Throughput mode: the report's heading and phase rows, then with -+u the
/// CPU heading and the same rows of CPU percentages.
fn throughput_sheet(biff: &mut Biff, result: &RunResult) -> io::Result<()> {
    let phases = &result.throughput;
    let record = format!("Record size = {}", throughput_record_words(phases));
    let unit = format!("Output is in {}", throughput_unit(result.config.unit));
    let rows = throughput_rows(phases, result.config.unit);
    let mut after = throughput_block(biff, 1, [THROUGHPUT_HEADING, &record, &unit], &rows)?;
    if result.config.variations.cpu_utilisation {
        let heading = [THROUGHPUT_CPU_HEADING, &record, THROUGHPUT_CPU_UNIT];
        after = throughput_block(biff, after, heading, &throughput_cpu_rows(phases))?;
    }
    if result.config.runs > 1 {
        let heading = format!(
            "Standard deviation over {} runs: {THROUGHPUT_HEADING}",
            result.config.runs
        );
        let sd_rows = throughput_sd_rows(phases, result.config.unit);
        throughput_block(biff, after, [&heading, &record, &unit], &sd_rows)?;
    }
    Ok(())
}

/// Three heading rows from `row` on, then a row per phase: its label in
/// column 0, column 1 empty, one run per column from 2. Returns the row after it.
fn throughput_block(
    biff: &mut Biff,
    mut row: usize,
    heading: [&str; 3],
    rows: &[ThroughputRow],
) -> io::Result<usize> {
    for text in heading {
        biff.label(row, 0, text)?;
        row += 1;
    }
    for r in rows {
        biff.label(row, 0, &format!("{:>15} ", throughput_label(r.pass)))?;
        for (j, &(_, v)) in r.values.iter().enumerate() {
            biff.number(row, 2 + j, v)?;
        }
        row += 1;
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::*;
    use crate::cli::test_config;
    use crate::model::plan::{Cell, expand};
    use crate::model::result::{CellResult, Measurement, PhaseResult, sample_result};
    use crate::model::workload::Pass;
    use crate::report::layout::TableLayout;

    /// One cell of a BIFF2 worksheet, as the walker reads it.
    #[derive(Clone, Debug, PartialEq)]
    enum Value {
        Number(f64),
        Label(String),
    }

    /// Walks BIFF2 records: checks the BOF/EOF framing, the record lengths,
    /// the zeroed attribute bytes and label padding (all of it, or all but
    /// the last byte, which IOzone never initialises), and returns the cells
    /// by (row, col).
    fn walk_checked(bytes: &[u8], whole_padding: bool) -> BTreeMap<(u16, u16), Value> {
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        assert_eq!(&bytes[..8], &BOF, "BOF");
        let mut cells = BTreeMap::new();
        let mut i = 8;
        loop {
            let (op, len) = (u16_at(i), usize::from(u16_at(i + 2)));
            let body = &bytes[i + 4..i + 4 + len];
            i += 4 + len;
            if op == 0x000A {
                assert_eq!(len, 0, "EOF length");
                break;
            }
            let at = (u16_at(i - len), u16_at(i - len + 2));
            let value = match op {
                0x0003 => {
                    assert_eq!(len, 15);
                    Value::Number(f64::from_le_bytes(body[7..15].try_into().unwrap()))
                }
                0x0004 => {
                    assert_eq!(len, 264);
                    let n = usize::from(body[7]);
                    let padding = &body[8 + n..];
                    let checked = if whole_padding {
                        padding
                    } else {
                        &padding[..padding.len() - 1]
                    };
                    assert!(checked.iter().all(|&b| b == 0), "text area of {at:?}");
                    Value::Label(String::from_utf8_lossy(&body[8..8 + n]).into_owned())
                }
                other => panic!("unexpected record {other:#06x}"),
            };
            assert_eq!(&body[4..7], &[0, 0, 0], "attributes of {at:?}");
            assert!(cells.insert(at, value).is_none(), "{at:?} twice");
        }
        assert_eq!(i, bytes.len(), "bytes after EOF");
        cells
    }

    /// Walks a file of ours: every padding byte must be zero.
    fn walk(bytes: &[u8]) -> BTreeMap<(u16, u16), Value> {
        walk_checked(bytes, true)
    }

    fn kind(v: &Value) -> &'static str {
        match v {
            Value::Number(_) => "number",
            Value::Label(_) => "label",
        }
    }

    fn measurement(pass: Pass, cell: Cell, kbps: u64) -> Measurement {
        Measurement {
            pass,
            file_bytes: cell.file_bytes,
            record_bytes: cell.record_bytes,
            workers: 1,
            bytes: kbps << 10,
            records: cell.records(),
            latency: None,
            elapsed_ns: 1_000_000_000,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
            usage: None,
            residency: None,
            run: 0,
            intervals: Vec::new(),
        }
    }

    /// Every planned cell with every reported pass, values from `value`.
    fn full_result(args: &[&str], value: impl Fn(Pass, Cell) -> u64) -> RunResult {
        let config = test_config(args);
        let passes = TableLayout::for_config(&config).reported_passes(&config);
        let cells = expand(&config)
            .cells
            .into_iter()
            .map(|cell| CellResult {
                cell,
                measurements: passes
                    .iter()
                    .map(|&p| measurement(p, cell, value(p, cell)))
                    .collect(),
            })
            .collect();
        sample_result(config, cells)
    }

    /// A file IOzone wrote (tests/fixtures/iozone-reference/, in the repository).
    fn reference(file: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/iozone-reference")
            .join(file);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn layout_matches_iozones_auto_report_xls() {
        let reference = reference("auto_report.xls");
        let args = [
            "-Ra",
            "-n",
            "64k",
            "-g",
            "512k",
            "-b",
            "auto_report.xls",
            "-f",
            "t.tmp",
        ];
        let mut result = full_result(&args, |p, c| {
            c.file_bytes / 1024 + c.record_bytes / 1024 + p as u64
        });
        result.config.command_line = std::iter::once("./iozone")
            .chain(args)
            .map(String::from)
            .collect();
        assert_eq!(
            TableLayout::for_config(&result.config)
                .reported_passes(&result.config)
                .len(),
            13
        );
        let ours = walk(&render_biff(&result).unwrap());
        let theirs = walk_checked(&reference, false);
        let shape = |cells: &BTreeMap<(u16, u16), Value>| -> Vec<_> {
            cells.iter().map(|(at, v)| (*at, kind(v))).collect()
        };
        assert_eq!(shape(&ours), shape(&theirs));
        let labels = |cells: &BTreeMap<(u16, u16), Value>| -> Vec<_> {
            cells
                .iter()
                .filter(|(_, v)| matches!(v, Value::Label(_)))
                .map(|(at, v)| (*at, v.clone()))
                .collect()
        };
        assert_eq!(labels(&ours), labels(&theirs));
        // The size cells (header rows, column 0) are the same numbers too.
        for (at, v) in &theirs {
            let is_size = at.0 >= 4 && (at.1 == 0 || !theirs.contains_key(&(at.0, 0)));
            if is_size {
                assert_eq!(ours.get(at), Some(v), "size cell {at:?}");
            }
        }
    }

    #[test]
    fn records_are_byte_exact() {
        let result = full_result(&["-R", "-s", "64k", "-r", "64k", "-i", "0"], |p, _| {
            if p == Pass::Write { 1255511 } else { 7 }
        });
        let bytes = render_biff(&result).unwrap();
        let cmd = b"ioz -R -s 64k -r 64k -i 0 ";
        let mut expected = BOF.to_vec();
        let label = |e: &mut Vec<u8>, row: u8, text: &[u8]| {
            e.extend_from_slice(&[4, 0, 8, 1, row, 0, 0, 0, 0, 0, 0, text.len() as u8]);
            e.extend_from_slice(text);
            e.extend(std::iter::repeat_n(0, 256 - text.len()));
        };
        let number = |e: &mut Vec<u8>, row: u8, col: u8, v: f64| {
            e.extend_from_slice(&[3, 0, 15, 0, row, 0, col, 0, 0, 0, 0]);
            e.extend_from_slice(&v.to_le_bytes());
        };
        label(&mut expected, 0, cmd);
        label(&mut expected, 1, b" ");
        label(&mut expected, 2, AXES_NOTE.as_bytes());
        label(&mut expected, 3, b"Writer Report");
        number(&mut expected, 4, 1, 64.0);
        number(&mut expected, 5, 0, 64.0);
        number(&mut expected, 5, 1, 1255511.0);
        label(&mut expected, 6, b"Re-writer Report");
        number(&mut expected, 7, 1, 64.0);
        number(&mut expected, 8, 0, 64.0);
        number(&mut expected, 8, 1, 7.0);
        expected.extend_from_slice(&EOF);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn long_labels_are_cut_at_255_bytes_with_a_true_length() {
        let mut result = full_result(&["-R", "-s", "64k", "-r", "64k", "-i", "0"], |_, _| 1);
        result.config.command_line = vec!["x".repeat(300), "é".repeat(200)];
        let cells = walk(&render_biff(&result).unwrap());
        assert_eq!(cells[&(0, 0)], Value::Label("x".repeat(255)));
        result.config.command_line = vec!["a".into(), "é".repeat(200)];
        let cells = walk(&render_biff(&result).unwrap());
        // "a " is 2 bytes, then 126 two-byte characters fit in 253 bytes.
        assert_eq!(
            cells[&(0, 0)],
            Value::Label(format!("a {}", "é".repeat(126)))
        );
    }

    #[test]
    fn records_that_did_not_run_are_zero_and_larger_ones_absent() {
        let config = test_config(&[
            "-R", "-a", "-n", "16m", "-g", "32m", "-y", "4k", "-q", "128k", "-i", "0",
        ]);
        let cell = |f: u64, r: u64| Cell {
            file_bytes: f << 10,
            record_bytes: r << 10,
        };
        let row = |c: Cell, v: u64| CellResult {
            cell: c,
            measurements: vec![
                measurement(Pass::Write, c, v),
                measurement(Pass::Rewrite, c, v + 1),
            ],
        };
        let result = sample_result(
            config,
            vec![
                row(cell(16384, 4), 100),
                row(cell(16384, 64), 101),
                row(cell(32768, 64), 102),
            ],
        );
        let cells = walk(&render_biff(&result).unwrap());
        let num = |r: u16, c: u16| match cells.get(&(r, c)) {
            Some(Value::Number(v)) => Some(*v),
            _ => None,
        };
        let header: Vec<_> = (1..=6).map(|c| num(4, c).unwrap()).collect();
        assert_eq!(header, [4.0, 8.0, 16.0, 32.0, 64.0, 128.0]);
        assert_eq!(num(4, 0), None);
        let row5: Vec<_> = (0..=6).map(|c| num(5, c).unwrap()).collect();
        assert_eq!(row5, [16384.0, 100.0, 0.0, 0.0, 0.0, 101.0, 0.0]);
        let row6: Vec<_> = (0..=6).map(|c| num(6, c).unwrap()).collect();
        assert_eq!(row6, [32768.0, 0.0, 0.0, 0.0, 0.0, 102.0, 0.0]);
        assert_eq!(cells[&(7, 0)], Value::Label("Re-writer Report".into()));
        assert_eq!(num(9, 1), Some(101.0));
        assert_eq!(num(10, 5), Some(103.0));
        assert_eq!(cells.keys().last(), Some(&(10, 6)));
    }

    #[test]
    fn cells_an_interrupted_run_never_measured_are_empty_not_zero() {
        use crate::model::result::RunStatus;
        let config = test_config(&["-R", "-a", "-n", "64k", "-g", "128k", "-i", "0"]);
        let cell = |f: u64, r: u64| Cell {
            file_bytes: f << 10,
            record_bytes: r << 10,
        };
        // Stopped in the rewrite of 64/8: 64/16 onwards never ran.
        let mut result = sample_result(
            config,
            vec![
                CellResult {
                    cell: cell(64, 4),
                    measurements: vec![
                        measurement(Pass::Write, cell(64, 4), 100),
                        measurement(Pass::Rewrite, cell(64, 4), 0),
                    ],
                },
                CellResult {
                    cell: cell(64, 8),
                    measurements: vec![measurement(Pass::Write, cell(64, 8), 101)],
                },
            ],
        );
        result.status = RunStatus::Interrupted(2);
        let cells = walk(&render_biff(&result).unwrap());
        let row = |r: u16| -> Vec<Option<f64>> {
            (0..=5)
                .map(|c| match cells.get(&(r, c)) {
                    Some(Value::Number(v)) => Some(*v),
                    _ => None,
                })
                .collect()
        };
        // Writer: 64/4 and 64/8 measured; the 128 kB row never began.
        assert_eq!(
            row(5),
            [Some(64.0), Some(100.0), Some(101.0), None, None, None]
        );
        assert_eq!(row(6), [None; 6]);
        // Re-writer: a measured 0 stays 0, the unmeasured 64/8 is empty.
        assert_eq!(cells[&(6, 0)], Value::Label("Re-writer Report".into()));
        assert_eq!(row(8), [Some(64.0), Some(0.0), None, None, None, None]);
        // The -R text leaves them out the same way.
        let text = crate::report::text::excel::render_excel_text(&result);
        assert!(text.contains("\"Writer report\""), "{text}");
        assert!(text.contains("\n\"64\"   100  101 \n"), "{text}");
        assert!(text.contains("\n\"64\"   0 \n"), "{text}");
        // Complete, the same rows read IOzone's 0 where nothing ran.
        result.status = RunStatus::Complete;
        let cells = walk(&render_biff(&result).unwrap());
        assert_eq!(cells.get(&(8, 2)), Some(&Value::Number(0.0)));
    }

    #[test]
    fn extra_passes_have_their_own_titles() {
        let result = full_result(
            &[
                "-R", "-s", "64k", "-r", "64k", "-i", "0", "-i", "9", "-i", "10",
            ],
            |_, _| 5,
        );
        let labels: Vec<String> = walk(&render_biff(&result).unwrap())
            .into_values()
            .filter_map(|v| match v {
                Value::Label(s) => Some(s),
                Value::Number(_) => None,
            })
            .skip(3)
            .collect();
        assert_eq!(
            labels,
            [
                "Writer Report",
                "Re-writer Report",
                "Pwrite Report",
                "Re-pwrite Report",
                "Pread Report",
                "Re-pread Report"
            ]
        );
    }

    #[test]
    fn cpu_blocks_follow_one_empty_row_with_percentages_of_two_decimals() {
        let mut result = full_result(
            &["-R", "-+u", "-s", "64k", "-r", "64k", "-i", "0", "-i", "2"],
            |_, _| 9,
        );
        // Write: 1/3 s of CPU per second; random read: 1.5 s (two CPUs).
        for m in result.cells.iter_mut().flat_map(|c| &mut c.measurements) {
            (m.cpu_user_ns, m.cpu_system_ns) = match m.pass {
                Pass::Write => (333_333_333, 0),
                Pass::RandomRead => (1_000_000_000, 500_000_000),
                _ => (0, 0),
            };
        }
        let cells = walk(&render_biff(&result).unwrap());
        let passes = ["Writer", "Re-writer", "Random Read", "Random Write"];
        // Four blocks of three rows from row 3; row 15 stays empty.
        assert_eq!(cells[&(12, 0)], Value::Label("Random Write Report".into()));
        assert_eq!(cells.range((15, 0)..(16, 0)).count(), 0);
        let expect = [33.33, 0.0, 150.0, 0.0];
        for (i, (name, pct)) in passes.into_iter().zip(expect).enumerate() {
            let top = 16 + 3 * i as u16;
            let title = format!("{name} CPU utilization report (Zero values should be ignored)");
            assert_eq!(cells[&(top, 0)], Value::Label(title));
            assert_eq!(cells[&(top + 1, 1)], Value::Number(64.0));
            assert_eq!(cells[&(top + 2, 0)], Value::Number(64.0));
            assert_eq!(cells[&(top + 2, 1)], Value::Number(pct), "{name}");
        }
        assert_eq!(cells.keys().last(), Some(&(27, 1)));
        // Without -+u the file ends with the last results block.
        result.config.variations.cpu_utilisation = false;
        let cells = walk(&render_biff(&result).unwrap());
        assert_eq!(cells.keys().last(), Some(&(14, 1)));
    }

    #[test]
    fn throughput_cpu_block_follows_the_phase_rows() {
        let mut result = sample_result(
            test_config(&[
                "-+u", "-l", "1", "-u", "2", "-s", "1m", "-r", "64k", "-i", "0",
            ]),
            Vec::new(),
        );
        let mut phases = vec![
            phase(Pass::Write, 1, 100),
            phase(Pass::Rewrite, 1, 200),
            phase(Pass::Write, 2, 300),
            phase(Pass::Rewrite, 2, 400),
        ];
        // 0.25 s of CPU per worker in 1 s: 25% per worker, summed over workers.
        for w in phases.iter_mut().flat_map(|p| &mut p.results) {
            w.cpu_system_ns = 250_000_000;
        }
        result.throughput = phases;
        let cells = walk(&render_biff(&result).unwrap());
        let label = |s: &str| Value::Label(s.into());
        assert_eq!(cells[&(5, 3)], Value::Number(800.0));
        assert_eq!(cells[&(6, 0)], label(THROUGHPUT_CPU_HEADING));
        assert_eq!(cells[&(7, 0)], label("Record size = 64 Kbytes"));
        assert_eq!(cells[&(8, 0)], label("Output is in CPU%"));
        assert_eq!(cells[&(9, 0)], label("  Initial write "));
        assert_eq!(cells[&(9, 2)], Value::Number(25.0));
        assert_eq!(cells[&(9, 3)], Value::Number(50.0));
        assert_eq!(cells[&(10, 0)], label("        Rewrite "));
        assert_eq!(cells[&(10, 3)], Value::Number(50.0));
        assert!(!cells.contains_key(&(9, 1)), "column 1 stays empty");
        assert_eq!(cells.len(), 2 * (4 + 2 * 3) - 1);
    }

    fn phase(pass: Pass, workers: u32, kb_each: u64) -> PhaseResult {
        crate::model::result::sample_phase(pass, workers, kb_each << 10)
    }

    #[test]
    fn throughput_layout_matches_iozones_throughput_xls() {
        let reference = reference("throughput.xls");
        let args = [
            "-t",
            "2",
            "-s",
            "1m",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "-R",
            "-b",
            "throughput.xls",
            "-F",
            "a.tmp",
            "b.tmp",
        ];
        let mut result = sample_result(test_config(&args), Vec::new());
        result.config.command_line = std::iter::once("./iozone")
            .chain(args)
            .map(String::from)
            .collect();
        result.throughput = [Pass::Write, Pass::Rewrite, Pass::Read, Pass::Reread]
            .into_iter()
            .map(|p| phase(p, 2, 1000))
            .collect();
        let ours = walk(&render_biff(&result).unwrap());
        let theirs = walk_checked(&reference, false);
        let shape = |cells: &BTreeMap<(u16, u16), Value>| -> Vec<_> {
            cells
                .iter()
                .map(|(at, v)| match v {
                    Value::Label(s) => (*at, s.clone()),
                    Value::Number(_) => (*at, "#".into()),
                })
                .collect()
        };
        assert_eq!(shape(&ours), shape(&theirs));
        assert_eq!(ours[&(4, 2)], Value::Number(2000.0));
    }

    #[test]
    fn throughput_worker_counts_fill_columns_from_2() {
        let mut result = sample_result(
            test_config(&["-l", "1", "-u", "2", "-s", "1m", "-r", "64k", "-i", "0"]),
            Vec::new(),
        );
        result.throughput = vec![
            phase(Pass::Write, 1, 100),
            phase(Pass::Rewrite, 1, 200),
            phase(Pass::Write, 2, 300),
            phase(Pass::Rewrite, 2, 400),
        ];
        let cells = walk(&render_biff(&result).unwrap());
        assert_eq!(cells[&(4, 0)], Value::Label("  Initial write ".into()));
        assert_eq!(cells[&(4, 2)], Value::Number(100.0));
        assert_eq!(cells[&(4, 3)], Value::Number(600.0));
        assert_eq!(cells[&(5, 0)], Value::Label("        Rewrite ".into()));
        assert_eq!(cells[&(5, 3)], Value::Number(800.0));
        assert_eq!(cells.len(), 4 + 2 * 3);
    }
}
