use super::layout::TableLayout;
use super::text::excel::render_excel_text;
use super::text::table::{table_header, table_row};
use crate::cli::test_config as config;
use crate::model::config::OutputUnit;
use crate::model::plan::Cell;
use crate::model::result::{CellResult, Measurement, sample_result};
use crate::model::workload::Pass;

/// A measurement whose kB/s is exactly `kbps` (1 s elapsed).
fn m(pass: Pass, file_kb: u64, rec_kb: u64, kbps: u64) -> Measurement {
    Measurement {
        pass,
        file_bytes: file_kb << 10,
        record_bytes: rec_kb << 10,
        workers: 1,
        bytes: kbps << 10,
        records: kbps / rec_kb,
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

fn row(file_kb: u64, rec_kb: u64, values: &[(Pass, u64)]) -> CellResult {
    CellResult {
        cell: Cell {
            file_bytes: file_kb << 10,
            record_bytes: rec_kb << 10,
        },
        measurements: values
            .iter()
            .map(|&(p, v)| m(p, file_kb, rec_kb, v))
            .collect(),
    }
}

/// A reference IOzone output (tests/fixtures/iozone-reference/, in the repository).
fn reference_text(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/iozone-reference")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The line of a reference IOzone output that starts with `starts` (after
/// blanks, preferring an indented one).
fn reference_line(file: &str, starts: &str) -> String {
    let text = reference_text(file);
    text.lines()
        .find(|l| l.trim_start().starts_with(starts) && l.starts_with(' '))
        .map(str::to_string)
        .or_else(|| {
            text.lines()
                .find(|l| l.starts_with(starts))
                .map(str::to_string)
        })
        .unwrap_or_else(|| panic!("no line starting with {starts:?} in {file}"))
}

/// The two table header lines of a reference IOzone output.
fn header_lines(file: &str) -> (String, String) {
    let text = reference_text(file);
    let lines: Vec<&str> = text.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.trim_start().starts_with("KB  reclen"))
        .unwrap_or_else(|| panic!("no table header in {file}"));
    (lines[i - 1].to_string(), lines[i].to_string())
}

const CLASSIC_UPPER: &str = "                                                            random  random    bkwd   record   stride                                   ";
const CLASSIC_LOWER: &str = "              KB  reclen   write rewrite    read    reread    read   write    read  rewrite     read   fwrite frewrite   fread  freread";

#[test]
fn header_matches_iozone_byte_for_byte() {
    let layout = TableLayout::for_config(&config(&["-a"]));
    assert_eq!(
        table_header(&layout),
        format!("{CLASSIC_UPPER}\n{CLASSIC_LOWER}\n")
    );
    let (upper, lower) = header_lines("auto.txt");
    assert_eq!(
        (upper.as_str(), lower.as_str()),
        (CLASSIC_UPPER, CLASSIC_LOWER)
    );
}

#[test]
fn extended_and_obsolete_headers_match_iozone() {
    let e = table_header(&TableLayout::for_config(&config(&["-E", "-i", "0"])));
    let lower = e.lines().nth(1).unwrap();
    assert_eq!(
        lower,
        format!("{CLASSIC_LOWER}  pwrite repwrite  pread   repread")
    );
    let (u, l) = header_lines("single_9_10_E.txt");
    assert_eq!(e, format!("{u}\n{l}\n"));
    let a = table_header(&TableLayout::for_config(&config(&["-A"])));
    assert_eq!(a, format!("{}\n{}\n", " ".repeat(58), &CLASSIC_LOWER[..58]));
    let (u, l) = header_lines("auto2.txt");
    assert_eq!(a, format!("{u}\n{l}\n"));
}

#[test]
fn rows_align_under_the_header_and_blank_unselected_tests() {
    let cfg = config(&["-a", "-i", "0", "-i", "1"]);
    let layout = TableLayout::for_config(&cfg);
    let r = row(
        1024,
        64,
        &[
            (Pass::Write, 3324778),
            (Pass::Rewrite, 9142007),
            (Pass::Read, 10769573),
            (Pass::Reread, 16280798),
        ],
    );
    let line = table_row(&layout, &r, OutputUnit::KbPerSec);
    // The same line IOzone printed in reference/cpu_util.txt, trailing blanks included.
    let expected = format!(
        "{:>16}{:>8}{:>8}{:>8}{:>9}{:>9}{}\n",
        1024,
        64,
        3324778,
        9142007,
        10769573,
        16280798,
        " ".repeat(135 - 58)
    );
    assert_eq!(line, expected);
    assert_eq!(line.trim_end_matches('\n').len(), CLASSIC_LOWER.len());
}

#[test]
fn wide_numbers_widen_their_column_instead_of_fusing() {
    let cfg = config(&["-a", "-i", "1"]);
    let layout = TableLayout::for_config(&cfg);
    // IOzone prints "2096219120962191" for these two 9-wide values.
    let r = row(64, 16, &[(Pass::Read, 20962191), (Pass::Reread, 20962191)]);
    let line = table_row(&layout, &r, OutputUnit::KbPerSec);
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields, vec!["64", "16", "20962191", "20962191"]);
    let huge = row(
        64,
        16,
        &[(Pass::Read, 123456789), (Pass::Reread, 1234567890)],
    );
    let line = table_row(&layout, &huge, OutputUnit::KbPerSec);
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        vec!["64", "16", "123456789", "1234567890"]
    );
    assert!(line.contains(" 123456789 1234567890"));
}

#[test]
fn excel_block_has_iozone_layout_with_zeros_for_skipped_records() {
    let cfg = config(&[
        "-R", "-a", "-n", "16m", "-g", "32m", "-y", "4k", "-q", "128k", "-i", "0",
    ]);
    // -y/-q turn the crossover off, so build a plan by hand with holes instead:
    // cells 16 MiB × {4k, 64k} and 32 MiB × {64k}.
    let cells = vec![
        row(16384, 4, &[(Pass::Write, 100), (Pass::Rewrite, 200)]),
        row(16384, 64, &[(Pass::Write, 101), (Pass::Rewrite, 201)]),
        row(32768, 64, &[(Pass::Write, 102), (Pass::Rewrite, 202)]),
    ];
    let result = sample_result(cfg, cells);
    let text = render_excel_text(&result);
    let expected = "Excel output is below:\n\
\n\"Writer report\"\n        \"4\"  \"8\"  \"16\"  \"32\"  \"64\"  \"128\"\n\
\"16384\"   100  0  0  0  101  0 \n\
\"32768\"   0  0  0  0  102  0 \n\
\n\"Re-writer report\"\n        \"4\"  \"8\"  \"16\"  \"32\"  \"64\"  \"128\"\n\
\"16384\"   200  0  0  0  201  0 \n\
\"32768\"   0  0  0  0  202  0 \n";
    assert_eq!(text, expected);
}

#[test]
fn excel_block_matches_the_reference_record_header() {
    let reference = reference_line("auto_report.txt", "        \"4\"");
    let cfg = config(&["-R", "-a", "-n", "64k", "-g", "512k", "-i", "0"]);
    let result = sample_result(cfg, vec![row(64, 4, &[(Pass::Write, 1255511)])]);
    let text = render_excel_text(&result);
    assert!(
        text.contains(&format!("{reference}\n\"64\"   1255511  0  0  0  0 \n")),
        "{text}"
    );
}

#[test]
fn units_convert_from_bytes_and_nanoseconds() {
    let mut x = m(Pass::Read, 1024, 64, 0);
    x.bytes = 1 << 20;
    x.records = 16;
    x.elapsed_ns = 100_000_000; // 1 MiB in 0.1 s
    assert_eq!(x.value(OutputUnit::KbPerSec), 10240);
    assert_eq!(x.value(OutputUnit::OpsPerSec), 160);
    assert_eq!(x.value(OutputUnit::MicrosPerOp), 6250);
}

#[test]
fn cpu_utilisation_lists_each_region_and_nothing_for_a_run_that_did_not_count() {
    use crate::model::result::RegionUsage;
    use crate::report::text::usage::usage_table;
    let mut cells = vec![row(
        1024,
        64,
        &[
            (Pass::Write, 1000),
            (Pass::Read, 2000),
            (Pass::Reread, 3000),
        ],
    )];
    // Saved before ioz counted its regions: nothing, as nothing was printed then.
    let old = sample_result(config(&["-s", "1m", "-r", "64k", "-+u"]), cells.clone());
    assert_eq!(usage_table(&old), "");
    let counted = RegionUsage {
        minor_faults: 0,
        major_faults: 0,
        voluntary_context_switches: 2,
        involuntary_context_switches: 7,
    };
    cells[0].measurements[0].usage = Some(counted);
    cells[0].measurements[1].usage = Some(RegionUsage {
        minor_faults: 12,
        ..counted
    });
    let text = usage_table(&sample_result(
        config(&["-s", "1m", "-r", "64k", "-+u"]),
        cells.clone(),
    ));
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(3)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec!["1024", "64", "write", "0", "0", "2", "7"],
            vec!["1024", "64", "read", "12", "0", "2", "7"],
            vec!["1024", "64", "reread", "-", "-", "-", "-"],
        ],
        "{text}"
    );
    // Every row names its test: no script takes it for a row of IOzone's table.
    assert!(
        text.lines()
            .all(|l| l.chars().any(char::is_alphabetic) || l.is_empty())
    );
    // Without -+u: nothing.
    let quiet = sample_result(config(&["-s", "1m", "-r", "64k"]), cells);
    assert_eq!(usage_table(&quiet), "");
}

/// "What the page cache held": a line per pass kind naming the cells out of
/// its commonest regime, and the checks of --drop-caches and -I.
#[test]
fn residency_block_names_cells_out_of_regime_and_failed_drops() {
    use super::text::residency::residency_block;
    use crate::model::residency::{PageCounts, Residency, ResidencySource};
    let pages = |cached, dirty| PageCounts {
        pages: 256,
        cached,
        dirty: Some(dirty),
        writeback: Some(0),
        evicted: Some(0),
        recently_evicted: Some(0),
    };
    let res = |start, end| {
        Some(Residency {
            source: ResidencySource::Cachestat,
            why: None,
            start: Some(start),
            end: Some(end),
        })
    };
    let mut cells = vec![
        row(1024, 64, &[(Pass::Write, 1), (Pass::Read, 1)]),
        row(1024, 128, &[(Pass::Write, 1), (Pass::Read, 1)]),
        row(1024, 256, &[(Pass::Write, 1), (Pass::Read, 1)]),
    ];
    for c in &mut cells {
        c.measurements[0].residency = res(pages(0, 0), pages(256, 200));
        c.measurements[1].residency = res(pages(0, 0), pages(256, 0));
    }
    // One read found half its file cached.
    cells[2].measurements[1].residency = res(pages(128, 0), pages(256, 0));
    let text = residency_block(&sample_result(
        config(&["-s", "1m", "-r", "64k"]),
        cells.clone(),
    ));
    let line = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
            .to_string()
    };
    assert!(
        line("read")
            .contains("device in 2 of 3 cells; out of it: 1024 kB/256 kB mixed (50 % cached)"),
        "{text}"
    );
    assert!(
        line("write").contains("left dirty in 3 of 3 cells"),
        "{text}"
    );
    assert!(!text.contains('!'), "{text}");
    // With --drop-caches, that read did not start cold; with -I, the read
    // that grew the cache was not direct.
    let dropped = residency_block(&sample_result(
        config(&["-s", "1m", "-r", "64k", "--drop-caches"]),
        cells.clone(),
    ));
    assert!(
        dropped.contains("! read 1024 kB/256 kB: did not start cold after --drop-caches: 50 %"),
        "{dropped}"
    );
    let direct = residency_block(&sample_result(
        config(&["-s", "1m", "-r", "64k", "-I"]),
        cells,
    ));
    assert_eq!(
        direct.matches("did not honour O_DIRECT").count(),
        6,
        "every pass's cache grew: {direct}"
    );
}
