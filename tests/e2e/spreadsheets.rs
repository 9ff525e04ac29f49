//! End to end: `-b FILE.xlsx` and `-b FILE.xls` written by the real binary
//! hold the same numbers as ioz's own `-R` report on standard output, and the
//! .xls has IOzone's -b layout.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use calamine::{Data, Reader, Xlsx, open_workbook};

use crate::fixtures::{IOZ, Test, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        xlsx_grids_hold_the_numbers_of_the_r_report,
        xls_has_iozones_layout_and_the_numbers_of_the_r_report,
        wks_gets_the_same_biff_worksheet,
        throughput_xls_has_iozones_layout_and_the_r_numbers,
        throughput_xls_has_the_cpu_block_of_the_r_report,
        throughput_xlsx_holds_the_r_numbers,
        throughput_xlsx_has_the_cpu_figures_below_the_phases,
        xls_has_the_cpu_blocks_of_the_r_report_after_one_empty_row,
        xlsx_pass_sheets_hold_the_cpu_blocks_of_the_r_report,
        report_renders_the_same_spreadsheets_as_the_run,
        xlrd_reads_every_cell_the_walker_reads => [Xlrd],
    ]
}

/// A small auto run: 3 file sizes × 5 record sizes, tests 0 and 1.
const AUTO: &[&str] = &[
    "-a", "-n", "64k", "-g", "256k", "-q", "64k", "-i", "0", "-i", "1", "-f", "t.tmp",
];

/// Runs ioz in `dir` with `args` and `-b out`; returns stdout.
fn run_ioz(dir: &Path, args: &[&str], out: &str) -> String {
    let output = Command::new(IOZ)
        .args(args)
        .args(["-b", out])
        .current_dir(dir)
        .output()
        .expect("cannot start ioz");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "ioz failed: {:?}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        output.status
    );
    assert!(dir.join(out).is_file(), "{out} was not written\n{stderr}");
    stdout
}

/// One block of the -R report: title, record sizes, and (file, values) rows.
#[derive(Debug)]
struct Block {
    title: String,
    records: Vec<f64>,
    rows: Vec<(f64, Vec<f64>)>,
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches('"')
}

/// The blocks after "Excel output is below:" on ioz's stdout.
fn excel_blocks(stdout: &str) -> Vec<Block> {
    let start = stdout
        .find("Excel output is below:")
        .expect("no -R report on stdout");
    let mut blocks: Vec<Block> = Vec::new();
    let mut lines = stdout[start..].lines().skip(1).peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let is_title = t.starts_with('"') && t.ends_with('"') && unquote(t).parse::<f64>().is_err();
        if !is_title {
            // A row of a block: "file kB" and one value per record size.
            let mut fields = t.split_whitespace();
            let file: f64 = unquote(fields.next().unwrap()).parse().unwrap();
            let values = fields.map(|f| f.parse().unwrap()).collect();
            blocks
                .last_mut()
                .expect("row before any title")
                .rows
                .push((file, values));
            continue;
        }
        let header = lines.next().expect("title without header");
        let records = header
            .split_whitespace()
            .map(|f| unquote(f).parse().unwrap())
            .collect();
        blocks.push(Block {
            title: unquote(t).to_string(),
            records,
            rows: Vec::new(),
        });
    }
    assert!(!blocks.is_empty(), "empty -R report");
    blocks
}

/// The `Command line used:` words of the banner.
fn command_line(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("Command line used: "))
        .expect("no command line in the banner")
        .to_string()
}

/// One cell of a BIFF2 worksheet.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Number(f64),
    Label(String),
}

/// Walks the records of a BIFF2 worksheet (BOF, NUMBER, LABEL, EOF, nothing
/// else), checking the framing, and returns its cells by (row, col).
fn walk_biff(bytes: &[u8]) -> BTreeMap<(u16, u16), Cell> {
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    assert_eq!(&bytes[..8], &[9, 0, 4, 0, 2, 0, 0x10, 0], "BOF");
    let mut cells = BTreeMap::new();
    let mut i = 8;
    loop {
        let (op, len) = (u16_at(i), usize::from(u16_at(i + 2)));
        let body = &bytes[i + 4..i + 4 + len];
        i += 4 + len;
        let cell = match op {
            0x000A => break,
            0x0003 => {
                assert_eq!(len, 15, "NUMBER length");
                Cell::Number(f64::from_le_bytes(body[7..15].try_into().unwrap()))
            }
            0x0004 => {
                assert_eq!(len, 264, "LABEL length");
                let n = usize::from(body[7]);
                assert!(body[8 + n..].iter().all(|&b| b == 0), "label padding");
                Cell::Label(String::from_utf8(body[8..8 + n].to_vec()).unwrap())
            }
            other => panic!("unexpected BIFF record {other:#06x}"),
        };
        assert_eq!(&body[4..7], &[0, 0, 0], "cell attributes");
        let at = (
            u16::from_le_bytes([body[0], body[1]]),
            u16::from_le_bytes([body[2], body[3]]),
        );
        assert!(cells.insert(at, cell).is_none(), "cell {at:?} twice");
    }
    assert_eq!(i, bytes.len(), "bytes after EOF");
    cells
}

/// Whether a -R block is one of -+u's CPU blocks.
fn is_cpu_block(b: &Block) -> bool {
    b.title
        .ends_with(" CPU utilization report (Zero values should be ignored)")
}

/// Checks a worksheet (cells by (row, col)) against the -R blocks, IOzone's
/// -b layout: title row, header row (no col 0), one row per file size; one
/// empty row before the first -+u CPU block.
fn check_biff_blocks(cells: &BTreeMap<(u16, u16), Cell>, blocks: &[Block]) {
    let mut row = 3u16;
    let mut in_cpu_blocks = false;
    for b in blocks {
        if is_cpu_block(b) && !in_cpu_blocks {
            in_cpu_blocks = true;
            assert_eq!(
                cells.range((row, 0)..(row + 1, 0)).count(),
                0,
                "row {row} before the CPU blocks is not empty"
            );
            row += 1;
        }
        assert_eq!(
            is_cpu_block(b),
            in_cpu_blocks,
            "{} after a CPU block",
            b.title
        );
        match &cells[&(row, 0)] {
            Cell::Label(t) => assert!(t.eq_ignore_ascii_case(&b.title), "{t} vs {}", b.title),
            other => panic!("row {row}: {other:?} where a title belongs"),
        }
        assert_eq!(cells.range((row, 1)..(row + 1, 0)).count(), 0);
        row += 1;
        assert!(!cells.contains_key(&(row, 0)), "header row has col 0");
        for (i, rec) in b.records.iter().enumerate() {
            assert_eq!(cells[&(row, i as u16 + 1)], Cell::Number(*rec));
        }
        assert_eq!(cells.range((row, 0)..(row + 1, 0)).count(), b.records.len());
        row += 1;
        for (file, values) in &b.rows {
            assert_eq!(cells[&(row, 0)], Cell::Number(*file), "row {row}");
            for (i, v) in values.iter().enumerate() {
                assert_eq!(cells[&(row, i as u16 + 1)], Cell::Number(*v), "row {row}");
            }
            assert_eq!(
                cells.range((row, 0)..(row + 1, 0)).count(),
                values.len() + 1,
                "row {row} has extra cells"
            );
            row += 1;
        }
    }
    assert_eq!(
        cells.keys().last().map(|k| k.0),
        Some(row - 1),
        "rows after the last block"
    );
}

fn xlsx_grids_hold_the_numbers_of_the_r_report() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = run_ioz(dir.path(), AUTO, "out.xlsx");
    let blocks = excel_blocks(&stdout);
    assert_eq!(blocks.len(), 4, "{stdout}");

    let mut book: Xlsx<_> = open_workbook(dir.path().join("out.xlsx")).unwrap();
    let names = book.sheet_names();
    assert_eq!(names.len(), blocks.len() + 1, "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("Environment"));
    for (b, name) in blocks.iter().zip(&names) {
        assert!(
            name.eq_ignore_ascii_case(&b.title),
            "sheet {name} for block {}",
            b.title
        );
        let range = book.worksheet_range(name).unwrap();
        let get = |r: u32, c: u32| range.get_value((r, c)).cloned().unwrap_or(Data::Empty);
        match get(0, 0) {
            Data::String(s) => assert!(s.starts_with(name.as_str()), "{s}"),
            other => panic!("title cell of {name}: {other:?}"),
        }
        assert!(matches!(get(1, 0), Data::String(_)), "header corner label");
        for (i, rec) in b.records.iter().enumerate() {
            assert_eq!(get(1, i as u32 + 1), Data::Float(*rec), "{name} header");
        }
        assert_eq!(get(1, b.records.len() as u32 + 1), Data::Empty);
        for (r, (file, values)) in b.rows.iter().enumerate() {
            let row = r as u32 + 2;
            assert_eq!(get(row, 0), Data::Float(*file), "{name} row {row}");
            for (i, v) in values.iter().enumerate() {
                let cell = get(row, i as u32 + 1);
                let ok = cell == Data::Float(*v) || (*v == 0.0 && cell == Data::Empty);
                assert!(ok, "{name} ({file} kB, col {}): {cell:?} vs {v}", i + 1);
            }
            for c in values.len() + 1..=b.records.len() {
                assert_eq!(get(row, c as u32), Data::Empty, "{name} row {row}");
            }
        }
        assert_eq!(get(b.rows.len() as u32 + 2, 0), Data::Empty);
    }

    let env = book.worksheet_range("Environment").unwrap();
    let field = |key: &str| {
        (0..env.height() as u32)
            .find(|&r| env.get_value((r, 0)) == Some(&Data::String(key.into())))
            .and_then(|r| env.get_value((r, 1)).cloned())
            .unwrap_or_else(|| panic!("no {key} in the Environment sheet"))
    };
    assert_eq!(field("Command line"), Data::String(command_line(&stdout)));
    assert_eq!(field("Status"), Data::String("complete".into()));
    for key in ["Started (UTC)", "Finished (UTC)", "Kernel", "Test file"] {
        assert!(
            matches!(field(key), Data::String(s) if !s.is_empty()),
            "{key}"
        );
    }
}

fn xls_has_iozones_layout_and_the_numbers_of_the_r_report() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = run_ioz(dir.path(), AUTO, "out.xls");
    let blocks = excel_blocks(&stdout);
    let bytes = std::fs::read(dir.path().join("out.xls")).unwrap();
    let cells = walk_biff(&bytes);

    let mut cmd = format!("{} ", command_line(&stdout));
    cmd.truncate(255);
    assert_eq!(cells[&(0, 0)], Cell::Label(cmd));
    assert_eq!(cells[&(1, 0)], Cell::Label(" ".into()));
    assert_eq!(
        cells[&(2, 0)],
        Cell::Label("The top row is records sizes, the left column is file sizes".into())
    );
    let titles: Vec<_> = blocks.iter().map(|b| b.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Writer report",
            "Re-writer report",
            "Reader report",
            "Re-Reader report"
        ]
    );
    // IOzone's -b spells the titles with a capital R.
    assert_eq!(cells[&(3, 0)], Cell::Label("Writer Report".into()));
    assert_eq!(cells[&(18, 0)], Cell::Label("Re-reader Report".into()));
    check_biff_blocks(&cells, &blocks);
}

fn wks_gets_the_same_biff_worksheet() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-s", "64k", "-r", "16k", "-i", "0", "-f", "t.tmp"];
    let stdout = run_ioz(dir.path(), &args, "out.wks");
    let cells = walk_biff(&std::fs::read(dir.path().join("out.wks")).unwrap());
    assert_eq!(cells[&(3, 0)], Cell::Label("Writer Report".into()));
    check_biff_blocks(&cells, &excel_blocks(&stdout));
}

/// The .xls files of the tests above (an auto run with and without CPU
/// blocks, a throughput run, a throughput sweep with CPU figures), read by
/// Python's xlrd: every cell as the walker reads it.
fn xlrd_reads_every_cell_the_walker_reads() {
    let auto_with_cpu = [AUTO, &["-+u"]].concat();
    let sweep_with_cpu = [
        "-l", "1", "-u", "2", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-R", "-+u", "-F",
        "a.tmp", "b.tmp",
    ];
    for args in [AUTO, &auto_with_cpu, THROUGHPUT, &sweep_with_cpu] {
        let dir = tempfile::tempdir().unwrap();
        run_ioz(dir.path(), args, "out.xls");
        let path = dir.path().join("out.xls");
        let cells = walk_biff(&std::fs::read(&path).unwrap());
        check_with_xlrd(&path, &cells);
    }
}

/// Reads the .xls with Python's xlrd and compares every cell with the walker's.
fn check_with_xlrd(path: &Path, cells: &BTreeMap<(u16, u16), Cell>) {
    let script = r#"
import sys, xlrd
s = xlrd.open_workbook(sys.argv[1], logfile=open('/dev/null', 'w')).sheet_by_index(0)
for r in range(s.nrows):
    for c in range(s.ncols):
        t = s.cell_type(r, c)
        if t == xlrd.XL_CELL_NUMBER:
            print(r, c, 'N', repr(s.cell_value(r, c)))
        elif t == xlrd.XL_CELL_TEXT:
            print(r, c, 'L', s.cell_value(r, c).encode('latin-1').hex())
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .expect("cannot run python3");
    assert!(
        out.status.success(),
        "xlrd failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut seen = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.splitn(4, ' ').collect();
        let at = (f[0].parse().unwrap(), f[1].parse().unwrap());
        let cell = if f[2] == "N" {
            Cell::Number(f[3].parse().unwrap())
        } else {
            let hex = f[3];
            let raw: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            Cell::Label(String::from_utf8(raw).unwrap())
        };
        seen.insert(at, cell);
    }
    assert_eq!(&seen, cells, "xlrd reads other cells than the walker");
}

/// A small throughput run: 2 workers, tests 0 and 1.
const THROUGHPUT: &[&str] = &[
    "-t", "2", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-R", "-F", "a.tmp", "b.tmp",
];

/// One block of the throughput -R report: its three heading lines, and one
/// (label, values) pair per phase row.
#[derive(Debug)]
struct ThroughputBlock {
    heading: Vec<String>,
    rows: Vec<(String, Vec<f64>)>,
}

/// The throughput -R blocks on stdout: the report, and with -+u the CPU block.
fn throughput_blocks(stdout: &str) -> Vec<ThroughputBlock> {
    let start = stdout
        .find("\"Throughput report")
        .expect("no throughput -R report on stdout");
    let mut blocks: Vec<ThroughputBlock> = Vec::new();
    for line in stdout[start..].lines() {
        let Some(rest) = line.strip_prefix('"') else {
            continue;
        };
        let (label, values) = rest.split_once('"').unwrap();
        let values: Vec<f64> = values
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        // A line without values after a block's rows starts the next block.
        let starts_block = values.is_empty() && blocks.last().is_none_or(|b| !b.rows.is_empty());
        if starts_block {
            blocks.push(ThroughputBlock {
                heading: Vec::new(),
                rows: Vec::new(),
            });
        }
        let block = blocks.last_mut().unwrap();
        if values.is_empty() {
            block.heading.push(label.to_string());
        } else {
            block.rows.push((label.to_string(), values));
        }
    }
    for b in &blocks {
        assert_eq!(b.heading.len(), 3, "{b:?}");
    }
    blocks
}

/// The run's .xls against its throughput -R blocks: IOzone's layout, every
/// block's heading then its phase rows, with no row between blocks.
fn check_throughput_xls(dir: &Path, stdout: &str, blocks: &[ThroughputBlock]) {
    let cells = walk_biff(&std::fs::read(dir.join("out.xls")).unwrap());
    let mut cmd = format!("{} ", command_line(stdout));
    cmd.truncate(255);
    assert_eq!(cells[&(0, 0)], Cell::Label(cmd));
    let mut row = 1u16;
    for b in blocks {
        // IOzone's text has "Record size = 64 Kbytes " (trailing space); its .xls does not.
        for h in &b.heading {
            assert_eq!(cells[&(row, 0)], Cell::Label(h.trim_end().to_string()));
            assert_eq!(cells.range((row, 1)..(row + 1, 0)).count(), 0);
            row += 1;
        }
        for (label, values) in &b.rows {
            assert_eq!(cells[&(row, 0)], Cell::Label(label.clone()));
            assert!(!cells.contains_key(&(row, 1)), "column 1 stays empty");
            for (j, v) in values.iter().enumerate() {
                assert_eq!(cells[&(row, j as u16 + 2)], Cell::Number(*v), "row {row}");
            }
            assert_eq!(
                cells.range((row, 0)..(row + 1, 0)).count(),
                values.len() + 1
            );
            row += 1;
        }
    }
    assert_eq!(
        cells.keys().last().map(|k| k.0),
        Some(row - 1),
        "rows after"
    );
}

fn throughput_xls_has_iozones_layout_and_the_r_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = run_ioz(dir.path(), THROUGHPUT, "out.xls");
    let blocks = throughput_blocks(&stdout);
    assert_eq!(blocks.len(), 1, "{stdout}");
    assert_eq!(blocks[0].rows.len(), 4, "{stdout}");
    check_throughput_xls(dir.path(), &stdout, &blocks);
}

fn throughput_xls_has_the_cpu_block_of_the_r_report() {
    let dir = tempfile::tempdir().unwrap();
    // Two runs (1 and 2 workers), so the CPU rows have two columns too.
    let args = [
        "-l", "1", "-u", "2", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-R", "-+u", "-F",
        "a.tmp", "b.tmp",
    ];
    let stdout = run_ioz(dir.path(), &args, "out.xls");
    let blocks = throughput_blocks(&stdout);
    assert_eq!(blocks.len(), 2, "{stdout}");
    let cpu = &blocks[1];
    assert_eq!(
        cpu.heading,
        [
            "CPU utilization report Y-axis is type of test X-axis is number of processes",
            "Record size = 64 Kbytes ",
            "Output is in CPU%"
        ]
    );
    assert_eq!(cpu.rows.len(), 4, "{stdout}");
    assert!(cpu.rows.iter().all(|r| r.1.len() == 2), "{stdout}");
    // A pass that moves data costs some CPU.
    assert!(
        cpu.rows.iter().flat_map(|r| &r.1).any(|&v| v > 0.0),
        "{stdout}"
    );
    check_throughput_xls(dir.path(), &stdout, &blocks);
}

/// The Throughput sheet's block from `top` on against a -R block: worker
/// counts in the header row, a row per phase.
fn check_throughput_sheet_block(
    get: &dyn Fn(u32, u32) -> Data,
    top: u32,
    counts: &[f64],
    block: &ThroughputBlock,
) {
    assert!(matches!(get(top, 0), Data::String(_)), "title at row {top}");
    for (i, n) in counts.iter().enumerate() {
        assert_eq!(
            get(top + 1, i as u32 + 1),
            Data::Float(*n),
            "worker count header"
        );
    }
    for (i, (label, values)) in block.rows.iter().enumerate() {
        let row = top + 2 + i as u32;
        assert_eq!(get(row, 0), Data::String(label.trim().to_string()));
        for (j, v) in values.iter().enumerate() {
            assert_eq!(get(row, j as u32 + 1), Data::Float(*v), "row {row}");
        }
        assert_eq!(get(row, values.len() as u32 + 1), Data::Empty);
    }
    assert_eq!(get(top + 2 + block.rows.len() as u32, 0), Data::Empty);
}

fn throughput_xlsx_holds_the_r_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = run_ioz(dir.path(), THROUGHPUT, "out.xlsx");
    let blocks = throughput_blocks(&stdout);
    assert_eq!(blocks.len(), 1, "{stdout}");
    let mut book: Xlsx<_> = open_workbook(dir.path().join("out.xlsx")).unwrap();
    assert_eq!(book.sheet_names(), ["Throughput", "Environment"]);
    let range = book.worksheet_range("Throughput").unwrap();
    let get = |r: u32, c: u32| range.get_value((r, c)).cloned().unwrap_or(Data::Empty);
    check_throughput_sheet_block(&get, 0, &[2.0], &blocks[0]);
    // Without -+u nothing follows the phase rows.
    assert_eq!(get(blocks[0].rows.len() as u32 + 3, 0), Data::Empty);
}

fn throughput_xlsx_has_the_cpu_figures_below_the_phases() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = THROUGHPUT.to_vec();
    args.push("-+u");
    let stdout = run_ioz(dir.path(), &args, "out.xlsx");
    let blocks = throughput_blocks(&stdout);
    assert_eq!(blocks.len(), 2, "{stdout}");
    let mut book: Xlsx<_> = open_workbook(dir.path().join("out.xlsx")).unwrap();
    let range = book.worksheet_range("Throughput").unwrap();
    let get = |r: u32, c: u32| range.get_value((r, c)).cloned().unwrap_or(Data::Empty);
    check_throughput_sheet_block(&get, 0, &[2.0], &blocks[0]);
    let top = blocks[0].rows.len() as u32 + 3;
    match get(top, 0) {
        Data::String(s) => assert!(s.starts_with("CPU utilization"), "{s}"),
        other => panic!("no CPU block title at row {top}: {other:?}"),
    }
    check_throughput_sheet_block(&get, top, &[2.0], &blocks[1]);
}

fn xls_has_the_cpu_blocks_of_the_r_report_after_one_empty_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = AUTO.to_vec();
    args.push("-+u");
    let stdout = run_ioz(dir.path(), &args, "out.xls");
    let blocks = excel_blocks(&stdout);
    let titles: Vec<_> = blocks.iter().map(|b| b.title.as_str()).collect();
    let cpu = |name: &str| format!("{name} CPU utilization report (Zero values should be ignored)");
    assert_eq!(
        titles[4..],
        [
            cpu("Writer"),
            cpu("Re-writer"),
            cpu("Reader"),
            cpu("Re-Reader")
        ]
    );
    let cells = walk_biff(&std::fs::read(dir.path().join("out.xls")).unwrap());
    // Four blocks of 2 + 3 rows from row 3, an empty row, then the CPU blocks.
    assert_eq!(cells.range((23, 0)..(24, 0)).count(), 0);
    assert_eq!(
        cells[&(24, 0)],
        Cell::Label(cpu("Writer")),
        "the first CPU title"
    );
    // The .xls spells the titles as its other blocks do.
    assert_eq!(cells[&(39, 0)], Cell::Label(cpu("Re-reader")));
    // The CPU cells are measured percentages, not placeholders.
    for b in &blocks[4..] {
        assert!(b.rows.iter().flat_map(|r| &r.1).any(|&v| v > 0.0), "{b:?}");
    }
    check_biff_blocks(&cells, &blocks);
}

fn xlsx_pass_sheets_hold_the_cpu_blocks_of_the_r_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = AUTO.to_vec();
    args.push("-+u");
    let stdout = run_ioz(dir.path(), &args, "out.xlsx");
    let blocks = excel_blocks(&stdout);
    let (rates, cpus) = blocks.split_at(4);
    assert!(cpus.iter().all(is_cpu_block), "{stdout}");
    let mut book: Xlsx<_> = open_workbook(dir.path().join("out.xlsx")).unwrap();
    let names = book.sheet_names();
    assert_eq!(
        names.len(),
        5,
        "{names:?}: one sheet per pass, not per CPU block"
    );
    for ((rate, cpu), name) in rates.iter().zip(cpus).zip(&names) {
        let range = book.worksheet_range(name).unwrap();
        let get = |r: u32, c: u32| range.get_value((r, c)).cloned().unwrap_or(Data::Empty);
        // The results grid, one empty row, then the CPU grid of the same shape.
        let top = rate.rows.len() as u32 + 3;
        assert_eq!(get(top - 1, 0), Data::Empty, "{name}");
        let pass = name.trim_end_matches(" Report");
        match get(top, 0) {
            Data::String(s) => assert!(s.starts_with(&format!("{pass} CPU utilization")), "{s}"),
            other => panic!("{name}: no CPU title at row {top}: {other:?}"),
        }
        for (i, rec) in cpu.records.iter().enumerate() {
            assert_eq!(get(top + 1, i as u32 + 1), Data::Float(*rec), "{name}");
        }
        for (r, (file, values)) in cpu.rows.iter().enumerate() {
            let row = top + 2 + r as u32;
            assert_eq!(get(row, 0), Data::Float(*file), "{name} row {row}");
            for (i, v) in values.iter().enumerate() {
                assert_eq!(get(row, i as u32 + 1), Data::Float(*v), "{name} row {row}");
            }
        }
        assert_eq!(get(top + 2 + cpu.rows.len() as u32, 0), Data::Empty);
    }
}

fn report_renders_the_same_spreadsheets_as_the_run() {
    let single: Vec<&str> = AUTO.iter().copied().chain(["-+u"]).collect();
    let mut throughput = THROUGHPUT.to_vec();
    throughput.push("-+u");
    for args in [&single, &throughput] {
        for out in ["out.xls", "out.xlsx"] {
            let dir = tempfile::tempdir().unwrap();
            let mut with_json = args.to_vec();
            with_json.extend(["--json", "r.json"]);
            run_ioz(dir.path(), &with_json, out);
            let again = format!("again.{}", out.rsplit('.').next().unwrap());
            let report = Command::new(IOZ)
                .args(["report", "r.json", "-b", &again])
                .current_dir(dir.path())
                .output()
                .expect("cannot start ioz");
            assert!(report.status.success(), "{report:?}");
            let run = std::fs::read(dir.path().join(out)).unwrap();
            let rendered = std::fs::read(dir.path().join(&again)).unwrap();
            assert!(
                run == rendered,
                "{args:?}: {again} differs from the run's {out}"
            );
        }
    }
}
