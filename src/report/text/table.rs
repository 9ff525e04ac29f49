//! IOzone's text output: ioz's own banner, the option lines scripts read, the
//! results table, and the closing line.
//!
//! The table keeps IOzone's column widths with one fix: a number as wide as its
//! column widens it by one space instead of fusing with its neighbour.

use std::fmt::Write as _;

use crate::analysis::summary::{OUTLIER_RULE, summarize};
use crate::model::config::{OutputUnit, RunConfig};
use crate::model::environment::Environment;
use crate::model::order::mix_reads_among_first;
use crate::model::result::{CellResult, RunResult, RunStatus, signal_name};
use crate::model::units::{KIB, kb_number};
use crate::model::variations::Verify;
use crate::model::workload::{Direction, Pass};
use crate::report::environment_text::header_lines;
use crate::report::layout::{Column, KB_WIDTH, RECLEN_WIDTH, TableLayout};

/// The line that ends the text of a complete run (IOzone's says "iozone
/// test complete."); see [`closing_line`].
pub const COMPLETE_LINE: &str = "ioz test complete.";

/// Everything before the table.
pub fn preamble(
    config: &RunConfig,
    env: &Environment,
    started: &str,
    time_resolution_ns: u64,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\tioz {}: file-system benchmark, IOzone-compatible",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(
        s,
        "\t\tBuild: {}-{}",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    s.push('\n');
    let _ = writeln!(s, "\tRun began: {started}");
    s.push('\n');
    for line in &config.option_lines {
        if line.is_empty() {
            s.push('\n');
        } else {
            let _ = writeln!(s, "\t{line}");
        }
        // -M: the machine's settings right after its uname.
        if config.environment_header && line.starts_with("Machine = ") {
            for line in header_lines(env) {
                let _ = writeln!(s, "\t{line}");
            }
        }
    }
    let _ = writeln!(s, "\tCommand line used: {}", config.command_line.join(" "));
    if config.unit == OutputUnit::KbPerSec {
        s.push_str("\tOutput is in Kbytes/sec\n");
    }
    let _ = writeln!(
        s,
        "\tTime Resolution = {:.9} seconds.",
        time_resolution_ns as f64 / 1e9
    );
    // IOzone's assumed 1 MiB / 32 B unless -S/-L say otherwise.
    let cache_kb = config.variations.cpu_cache_bytes.map_or(1024, |b| b / KIB);
    let line = config.variations.cache_line_bytes.unwrap_or(32);
    let _ = writeln!(s, "\tProcessor cache size set to {cache_kb} Kbytes.");
    let _ = writeln!(s, "\tProcessor cache line size set to {line} bytes.");
    let _ = writeln!(
        s,
        "\tFile stride size set to {} * record size.",
        config.stride
    );
    s
}

/// The two header lines of the table.
pub fn table_header(layout: &TableLayout) -> String {
    let mut upper = format!("{:>KB_WIDTH$}{:>RECLEN_WIDTH$}", "", "");
    let mut lower = format!("{:>KB_WIDTH$}{:>RECLEN_WIDTH$}", "KB", "reclen");
    for c in &layout.columns {
        let _ = write!(upper, "{:>w$}", c.upper_label, w = c.head_width);
        let _ = write!(lower, "{:>w$}", c.label, w = c.head_width);
    }
    format!("{upper}\n{lower}\n")
}

/// `value` right-aligned in `width`, always with at least one leading space.
fn field(out: &mut String, value: impl std::fmt::Display, width: usize) {
    let _ = write!(out, " {:>w$}", value, w = width.saturating_sub(1));
}

/// One table row: file kB, record kB, then each column (blank if not
/// measured). A record size that is not a whole kB is its exact fraction
/// (`0.0078125`), which overflows the reclen column like any wide number:
/// the header stays IOzone's, byte for byte, for the scripts that find the
/// table by it.
pub fn table_row(layout: &TableLayout, row: &CellResult, unit: OutputUnit) -> String {
    let mut s = String::new();
    field(&mut s, row.cell.file_bytes / KIB, KB_WIDTH);
    field(&mut s, kb_number(row.cell.record_bytes), RECLEN_WIDTH);
    for Column {
        pass, data_width, ..
    } in &layout.columns
    {
        match row.get(*pass) {
            Some(m) => field(&mut s, m.value(unit), *data_width),
            None => s.push_str(&" ".repeat(*data_width)),
        }
    }
    s.push('\n');
    s
}

/// With several runs (`--runs`), after the table of means: the same grid
/// with each cell's standard deviation, then how many runs each cell has
/// and which samples are outliers. The standard deviation rather than the
/// CV: it is in the table's own unit, so mean ± sd reads off the two grids
/// directly (the error bars of seed 004's charts), and the CV is one
/// division away (the JSON holds it). Its header says `file kB  rec kB`,
/// not IOzone's `KB  reclen`, and each deviation reads `±123`, so scripts
/// that find IOzone's table by its header, or its rows as lines of plain
/// numbers, find the table of means only.
pub fn spread_section(layout: &TableLayout, result: &RunResult) -> String {
    let unit = result.config.unit;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n\tStandard deviation over the runs ({}; - where a cell has one run):",
        unit_label(unit)
    );
    let mut upper = format!("{:>KB_WIDTH$}{:>RECLEN_WIDTH$}", "", "");
    let mut lower = format!("{:>KB_WIDTH$}{:>RECLEN_WIDTH$}", "file kB", "rec kB");
    for c in &layout.columns {
        let _ = write!(upper, "{:>w$}", c.upper_label, w = c.head_width);
        let _ = write!(lower, "{:>w$}", c.label, w = c.head_width);
    }
    let _ = writeln!(s, "{upper}\n{lower}");
    for row in &result.cells {
        field(&mut s, row.cell.file_bytes / KIB, KB_WIDTH);
        field(&mut s, kb_number(row.cell.record_bytes), RECLEN_WIDTH);
        for c in &layout.columns {
            match row.get(c.pass) {
                Some(runs) => match summarize(&runs.values(unit)).and_then(|x| x.sd) {
                    Some(sd) => field(&mut s, format!("±{}", sd.round() as u64), c.data_width),
                    None => field(&mut s, "-", c.data_width),
                },
                None => s.push_str(&" ".repeat(c.data_width)),
            }
        }
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&runs_line(layout, result));
    s.push_str(&outliers_line(layout, result));
    s
}

/// A cell as the spread lines name it: `64 kB file, 4 kB records`.
fn cell_words(cell: &CellResult) -> String {
    format!(
        "{} kB file, {} kB records",
        kb_number(cell.cell.file_bytes),
        kb_number(cell.cell.record_bytes)
    )
}

/// How many runs each cell has: one number when all agree, else the cells
/// that have fewer (a run that stopped early).
fn runs_line(layout: &TableLayout, result: &RunResult) -> String {
    let counts: Vec<(&CellResult, Pass, usize)> = result
        .cells
        .iter()
        .flat_map(|c| {
            layout
                .columns
                .iter()
                .filter_map(move |col| c.get(col.pass).map(|r| (c, col.pass, r.runs())))
        })
        .collect();
    let most = counts.iter().map(|&(_, _, n)| n).max().unwrap_or(0);
    let fewer: Vec<String> = counts
        .iter()
        .filter(|&&(_, _, n)| n < most)
        .map(|&(c, pass, n)| format!("{}, {}: {n}", cell_words(c), pass.name()))
        .collect();
    if fewer.is_empty() {
        format!("\tRuns per cell: {most} (every cell).\n")
    } else {
        format!("\tRuns per cell: {most}, except {}.\n", fewer.join("; "))
    }
}

/// The samples the outlier rule flags, each with its run (kept in the mean).
fn outliers_line(layout: &TableLayout, result: &RunResult) -> String {
    let unit = result.config.unit;
    let mut found = Vec::new();
    for c in &result.cells {
        for col in &layout.columns {
            let Some(runs) = c.get(col.pass) else {
                continue;
            };
            let samples: Vec<_> = runs.samples().collect();
            let Some(summary) = summarize(&runs.values(unit)) else {
                continue;
            };
            for i in summary.outliers {
                found.push(format!(
                    "{}, {}: {} {} in run {}/{}",
                    cell_words(c),
                    col.pass.name(),
                    samples[i].value(unit),
                    unit_label(unit),
                    samples[i].run + 1,
                    result.config.runs.max(1)
                ));
            }
        }
    }
    let list = if found.is_empty() {
        "none".to_string()
    } else {
        found.join("; ")
    };
    format!("\tOutliers ({OUTLIER_RULE}; kept in the mean): {list}.\n")
}

/// The unit the table's numbers are in, in words.
pub fn unit_label(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "operations/s",
        OutputUnit::MicrosPerOp => "µs/operation",
    }
}

/// What follows the last row: a blank line and the closing line, which
/// says how the run ended. Only a complete run gets IOzone's line (scripts
/// take it to mean the results are whole); a run that stopped early says why.
pub fn closing_line(status: &RunStatus) -> String {
    match status {
        RunStatus::Complete => format!("\n{COMPLETE_LINE}\n"),
        RunStatus::Interrupted(sig) => {
            format!("\nioz test interrupted by {}.\n", signal_name(*sig))
        }
        // The message is one line; a stray line break would split the closing.
        RunStatus::Failed(why) => format!("\nioz test failed: {}\n", why.replace('\n', " ")),
    }
}

/// After the table of a `-V`/`-+d` run, before the closing line: a blank line
/// and how many bytes the read checks compared (empty without verification).
/// Counted from the measured passes that read: all their bytes, and for the
/// random mix its reads' share.
pub fn verify_note(result: &RunResult) -> String {
    if result.config.variations.verify == Verify::None {
        return String::new();
    }
    let (mut bytes, mut passes) = (0u64, 0u64);
    // What one pass read (and so checked): `done` of its `records` records,
    // with `percent` of the mix's operations reading.
    let mut add = |pass: Pass, done: u64, records: u64, record_bytes: u64, percent: u32| {
        let read = match pass.direction() {
            Direction::Write => return,
            Direction::Read => done * record_bytes,
            Direction::Mixed => {
                let reads = mix_reads_among_first(records, percent, done);
                if reads == 0 {
                    return; // a -+K writer
                }
                reads * record_bytes
            }
        };
        bytes += read;
        passes += 1;
    };
    let config = &result.config;
    for m in result.cells.iter().flat_map(|c| &c.measurements) {
        let done = m.bytes / m.record_bytes.max(1);
        add(
            m.pass,
            done,
            m.records,
            m.record_bytes,
            config.mix_read_percent,
        );
    }
    // Throughput mode: every worker checked what it read, stonewalled or not.
    for phase in &result.throughput {
        let records = phase.file_bytes / phase.record_bytes.max(1);
        for w in &phase.results {
            let percent = config.mix_read_percent_of(w.worker);
            add(phase.pass, w.records, records, phase.record_bytes, percent);
        }
    }
    if passes == 0 {
        return "\n\tVerify: no read test ran, so no data was checked.\n".to_string();
    }
    let noun = if passes == 1 { "pass" } else { "passes" };
    let outcome = match result.status {
        RunStatus::Complete => "; no mismatches.",
        _ => " before the run stopped.",
    };
    // -+X/-+Z look at the first 8 bytes of each page only.
    let light = if result.config.variations.verify.light_pattern().is_some() {
        " (the first 8 bytes of each 4 KiB page)"
    } else {
        ""
    };
    format!("\n\tVerified {bytes} bytes in {passes} read {noun}{light}{outcome}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::result::{sample_cells, sample_result};
    use crate::model::workload::Pass;
    use crate::report::text::render_output;

    #[test]
    fn a_cell_with_one_run_has_no_sd_and_is_named_never_nan() {
        // Three runs of a plan of two cells, the last run stopped after
        // the first cell: 64 kB has three runs, 128 kB one.
        let mut config = test_config(&[
            "-a", "-n", "64k", "-g", "128k", "-y", "64k", "-q", "64k", "-i", "0",
        ]);
        config.runs = 3;
        let mut cells = sample_cells(&config, &[Pass::Write, Pass::Rewrite], |f, _| f);
        let first = cells[0].measurements.clone();
        for run in 1..3u32 {
            for m in &first {
                let mut m = m.clone();
                m.run = run;
                m.elapsed_ns *= u64::from(run) + 1;
                cells[0].measurements.push(m);
            }
        }
        let mut result = sample_result(config, cells);
        result.status = RunStatus::Interrupted(2);
        let text = render_output(&result);
        // 64 kB in 1, 2 and 3 s: 64, 32 and 21 kB/s, mean 39, sd 22.
        let has = |line: &str| text.lines().any(|l| l.trim_end() == line);
        assert!(has("              64      64      39      39"), "{text}");
        assert!(has("              64      64     ±22     ±22"), "{text}");
        assert!(has("             128      64       -       -"), "{text}");
        assert!(
            text.contains(
                "\tRuns per cell: 3, except 128 kB file, 64 kB records, write: 1; \
                 128 kB file, 64 kB records, rewrite: 1.\n"
            ),
            "{text}"
        );
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }

    #[test]
    fn only_a_complete_run_says_it_completed() {
        assert_eq!(closing_line(&RunStatus::Complete), "\nioz test complete.\n");
        assert_eq!(
            closing_line(&RunStatus::Interrupted(2)),
            "\nioz test interrupted by SIGINT.\n"
        );
        assert_eq!(
            closing_line(&RunStatus::Interrupted(15)),
            "\nioz test interrupted by SIGTERM.\n"
        );
        assert_eq!(
            closing_line(&RunStatus::Interrupted(10)),
            "\nioz test interrupted by signal 10.\n"
        );
        assert_eq!(
            closing_line(&RunStatus::Failed("write t.tmp: No space\nleft".into())),
            "\nioz test failed: write t.tmp: No space left\n"
        );
    }

    #[test]
    fn records_of_a_fraction_of_a_kb_print_exactly_under_iozones_header() {
        let config = test_config(&["-s", "64k", "-r", "8b", "-i", "0", "-R"]);
        let cells = sample_cells(&config, &[Pass::Write, Pass::Rewrite], |f, _| f);
        let text = render_output(&sample_result(config, cells));
        let lines: Vec<&str> = text.lines().collect();
        let header = lines.iter().position(|l| l.contains("reclen")).unwrap();
        let (head, row) = (lines[header], lines[header + 1]);
        // The header is IOzone's; the size widens its column by what it needs.
        assert!(
            head.starts_with("              KB  reclen   write"),
            "{head}"
        );
        assert_eq!(
            row.split_whitespace().collect::<Vec<_>>(),
            ["64", "0.0078125", "64", "64"]
        );
        assert!(
            row.starts_with("              64 0.0078125      64"),
            "{row}"
        );
        assert!(
            text.contains("\n\"Writer report\"\n        \"0.0078125\"\n\"64\"   64 \n"),
            "{text}"
        );
    }
}
