//! Expected values are read off the logs themselves (tests/fixtures/iozone-reference/).

use super::*;
use crate::model::workload::Pass::*;

fn log(name: &str) -> IozoneLog {
    let path = format!(
        "{}/tests/fixtures/iozone-reference/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn cell(log: &IozoneLog, pass: Pass, kb: u64, reclen: u64) -> Vec<f64> {
    let key = CellKey {
        pass: crate::analysis::samples::Test::Pass(pass),
        workers: None,
        file_bytes: kb << 10,
        record_bytes: reclen << 10,
    };
    log.samples.cells.get(&key).cloned().unwrap_or_default()
}

/// The `-R` blocks of a log, read the plain way (values in record-size
/// order from the first record size, as in these auto runs): (title, file
/// kB, record kB) → value.
fn report_blocks(text: &str) -> Vec<(String, u64, u64, f64)> {
    let mut out = Vec::new();
    let mut title = None;
    let mut records: Vec<u64> = Vec::new();
    let unquote = |s: &str| s.trim_matches('"').parse::<u64>().ok();
    for line in text
        .lines()
        .skip_while(|l| !l.starts_with("Excel output is below"))
    {
        if line.starts_with('"') && line.ends_with("report\"") {
            title = Some(line.trim_matches('"').to_string());
        } else if line.starts_with("        \"") {
            records = line.split_whitespace().filter_map(unquote).collect();
        } else if let (Some(t), Some(first)) = (&title, line.split_whitespace().next()) {
            let Some(kb) = unquote(first) else { continue };
            for (i, v) in line.split_whitespace().skip(1).enumerate() {
                out.push((t.clone(), kb, records[i], v.parse().unwrap()));
            }
        }
    }
    out
}

fn pass_of_title(title: &str) -> Pass {
    crate::model::workload::TestId::ALL
        .iter()
        .flat_map(|t| t.passes())
        .copied()
        .find(|p| p.report_title() == title)
        .unwrap_or_else(|| panic!("{title}"))
}

fn table_matches_its_report_blocks(name: &str, cells: usize) {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/iozone-reference/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let parsed = parse(&text).unwrap();
    let blocks = report_blocks(&text);
    assert_eq!(blocks.len(), cells, "{name}");
    for (title, kb, rec, value) in blocks {
        assert_eq!(
            cell(&parsed, pass_of_title(&title), kb, rec),
            [value],
            "{name}: {title} {kb} {rec}"
        );
    }
    // Every table value is in a block too: nothing read that is not there.
    assert_eq!(
        parsed.samples.cells.values().map(Vec::len).sum::<usize>(),
        cells
    );
}

#[test]
fn every_cell_of_an_auto_table_agrees_with_its_dash_r_blocks() {
    // 4 file sizes (64…512 kB) with 5+6+7+8 record sizes, 13 passes.
    table_matches_its_report_blocks("auto_report.txt", 26 * 13);
    table_matches_its_report_blocks("nfs_style.txt", 18 * 13);
}

#[test]
fn fused_numbers_are_split_by_column() {
    let l = log("auto.txt");
    // "64  16 2203800 6271021  9006179 2096219115972885 5283570 …"
    assert_eq!(cell(&l, Read, 64, 16), [9006179.0]);
    assert_eq!(cell(&l, Reread, 64, 16), [20962191.0]);
    assert_eq!(cell(&l, RandomRead, 64, 16), [15972885.0]);
    assert_eq!(cell(&l, RandomWrite, 64, 16), [5283570.0]);
    assert_eq!(cell(&l, Freread, 64, 16), [20962191.0]);
    assert_eq!(l.samples.unit, OutputUnit::KbPerSec);
    assert_eq!(l.began.as_deref(), Some("Sat Nov 21 21:05:03 2026"));
}

#[test]
fn tests_not_run_shift_the_columns_after_them() {
    // -i 0 -i 1 -i 9 -i 10 -E: the p-columns start 3 places early.
    let l = log("single_9_10_E.txt");
    assert_eq!(cell(&l, Write, 1024, 64), [1875690.0]);
    assert_eq!(cell(&l, Reread, 1024, 64), [8061038.0]);
    assert_eq!(cell(&l, Pwrite, 1024, 64), [6733974.0]);
    assert_eq!(cell(&l, Repwrite, 1024, 64), [6519323.0]);
    assert_eq!(cell(&l, Pread, 1024, 64), [7883484.0]);
    assert_eq!(cell(&l, Repread, 1024, 64), [11368190.0]);
    assert_eq!(l.samples.cells.len(), 8);
}

#[test]
fn dash_a_has_four_columns() {
    let l = log("auto2.txt");
    assert_eq!(cell(&l, Write, 64, 4), [955947.0]);
    assert_eq!(cell(&l, Reread, 256, 256), [31762157.0]);
    assert_eq!(l.samples.cells.len(), 18 * 4);
}

#[test]
fn units_of_dash_o_and_dash_n_and_dash_plus_u() {
    let ops = log("ops_per_sec.txt");
    assert_eq!(ops.samples.unit, OutputUnit::OpsPerSec);
    assert_eq!(cell(&ops, Write, 1024, 64), [51590.0]);
    let us = log("usec_per_op.txt");
    assert_eq!(us.samples.unit, OutputUnit::MicrosPerOp);
    assert_eq!(cell(&us, Reread, 1024, 64), [3.0]);
    let cpu = log("cpu_util.txt");
    assert_eq!(cell(&cpu, Read, 1024, 64), [10769573.0]);
    assert_eq!(cell(&cpu, Reread, 1024, 64), [16280798.0]);
    assert_eq!(cpu.samples.cells.len(), 4);
}

#[test]
fn every_record_size_of_dash_z_is_read() {
    // -z -i 0: two file sizes with 13 record sizes each, write and rewrite;
    // the last row's values agree with the Re-writer -R block.
    let l = log("auto_crossover.txt");
    assert_eq!(l.samples.cells.len(), 26 * 2);
    assert_eq!(cell(&l, Rewrite, 16384, 4096), [5675165.0]);
    assert_eq!(cell(&l, Rewrite, 32768, 16384), [5162839.0]);
}

fn phase(log: &IozoneLog, pass: Pass, workers: u32) -> Vec<f64> {
    let key = CellKey {
        pass: crate::analysis::samples::Test::Pass(pass),
        workers: Some(workers),
        file_bytes: 1 << 20,
        record_bytes: 64 << 10,
    };
    log.samples.cells.get(&key).cloned().unwrap_or_default()
}

#[test]
fn throughput_phases_are_read_from_children_see() {
    let l = log("throughput.txt");
    assert_eq!(l.samples.cells.len(), 6);
    assert_eq!(phase(&l, Write, 2), [446749.97]);
    assert_eq!(phase(&l, Reread, 2), [4949226.50]);
    assert_eq!(phase(&l, RandomWrite, 2), [10343503.00]);
    let r = log("throughput_report.txt");
    assert_eq!(r.samples.cells.len(), 4);
    assert_eq!(phase(&r, Rewrite, 2), [7491904.00]);
    let lu = log("throughput_lu.txt");
    assert_eq!(phase(&lu, Write, 1), [3304315.00]);
    assert_eq!(phase(&lu, Write, 2), [2805690.75]);
    assert_eq!(lu.samples.cells.len(), 8);
}

#[test]
fn text_that_is_not_iozone_output_is_refused() {
    assert!(!looks_like_iozone("hello\nworld\n"));
    let e = parse("\tRun began: now\n").unwrap_err();
    assert_eq!(e, LogError::NoResults);
    assert_eq!(
        e.to_string(),
        "it holds no IOzone results (no table, no throughput lines)"
    );
}

/// A row of the auto log with `value` in place of its first write rate.
fn with_write_rate(value: &str) -> String {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/iozone-reference/auto.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let row = lines.iter().position(|l| l.contains("KB  reclen")).unwrap() + 1;
    // The write column: 8 wide after the 24 of the sizes.
    let mut bytes = lines[row].clone().into_bytes();
    let cell = format!("{value:>8}");
    bytes.splice(24..32, cell.bytes());
    lines[row] = String::from_utf8(bytes).unwrap();
    lines.join("\n")
}

#[test]
fn a_rate_that_is_no_number_is_refused_naming_its_line() {
    let line = std::fs::read_to_string(format!(
        "{}/tests/fixtures/iozone-reference/auto.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .lines()
    .position(|l| l.contains("KB  reclen"))
    .unwrap()
        + 2;
    for bad in ["NaN", "inf", "-5", "-inf", "1e400", "12x", "+3"] {
        let e = parse(&with_write_rate(bad)).unwrap_err();
        assert_eq!(
            e,
            LogError::Unusable {
                line,
                value: bad.into(),
                what: "rate"
            },
            "{bad}"
        );
        assert!(
            e.to_string()
                .starts_with(&format!("line {line}: \"{bad}\" is not a usable rate"))
        );
    }
    // A blank is a cell not measured; a number is a number.
    assert!(parse(&with_write_rate("")).is_ok());
    assert_eq!(
        cell(&parse(&with_write_rate("7")).unwrap(), Write, 64, 4),
        [7.0]
    );
    for bad in ["NaN", "-1.5", "1000000000000000000000000000000"] {
        let children = format!(
            "\tEach process writes a 1024 Kbyte file in 64 Kbyte records\n\
             \tChildren see throughput for  2 initial writers \t=  {bad} KB/sec\n"
        );
        assert_eq!(
            parse(&children).unwrap_err(),
            LogError::Unusable {
                line: 2,
                value: bad.into(),
                what: "rate"
            }
        );
    }
}
