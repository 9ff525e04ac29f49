//! Complete runs of the real binary on small files: the table, the `-R`
//! report, the output units, the data written, and which files are left;
//! and repeated runs (`--runs N`, `--label`): every sample kept, the means
//! in IOzone's layout, their spread after it, the JSON summaries.

use std::fs;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::fixtures::{
    Ext4, IOZ, Test, assert_refused, data_file, data_lines, data_rows, header_lines, ioz, list_dir,
    skip, trials,
};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        header_constants_match_the_iozone_reference,
        auto_mode_runs_every_cell_and_removes_the_file,
        every_test_in_one_run_fills_every_column,
        excel_report_repeats_the_table_values,
        micros_per_op_mode_changes_the_unit_line,
        ops_per_sec_mode_changes_the_unit_line,
        combining_micros_and_ops_is_refused,
        a_foreign_file_is_refused_unless_forced,
        a_kept_file_is_recognised_and_read_by_a_later_run,
        default_data_is_not_mostly_zeros,
        iozone_data_pattern_marks_each_page,
        read_tests_without_a_write_test_prepare_the_file,
        three_runs_of_a_single_cell_keep_every_sample_and_print_their_mean,
        three_runs_of_auto_mode_repeat_the_whole_plan,
        three_runs_of_throughput_mode_report_mean_and_sd_of_each_figure,
        bad_runs_and_labels_are_refused_before_anything_runs,
        one_run_prints_and_saves_what_it_did_before_repetitions,
        each_run_remounts_before_every_pass => [Ext4],
        the_progress_bar_counts_every_run,
    ]
}

/// IOzone's two header lines (tests/fixtures/iozone-reference/auto.txt),
/// trailing spaces included.
const UPPER_HEADER: &str = "                                                            random  random    bkwd   record   stride                                   ";
const LOWER_HEADER: &str = "              KB  reclen   write rewrite    read    reread    read   write    read  rewrite     read   fwrite frewrite   fread  freread";

fn header_constants_match_the_iozone_reference() {
    let text = fs::read_to_string(data_file("iozone-reference/auto.txt")).unwrap();
    let (upper, lower) = header_lines(&text);
    assert_eq!(upper, UPPER_HEADER);
    assert_eq!(lower, LOWER_HEADER);
}

fn auto_mode_runs_every_cell_and_removes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-a", "-n", "64k", "-g", "256k", "-q", "64k", "-f", "t.tmp"],
    );
    run.expect_code(0);
    assert!(
        run.stderr.lines().all(|l| l.starts_with("ioz: warning:")),
        "stderr: {}",
        run.stderr
    );

    for needle in [
        "\tAuto Mode\n",
        "\tCommand line used: ",
        "\tOutput is in Kbytes/sec\n",
    ] {
        assert!(run.stdout.contains(needle), "missing {needle:?}");
    }
    let (upper, lower) = header_lines(&run.stdout);
    assert_eq!(upper, UPPER_HEADER);
    assert_eq!(lower, LOWER_HEADER);

    let rows = data_rows(&run.stdout);
    let pairs: Vec<(u64, u64)> = rows.iter().map(|r| (r[0], r[1])).collect();
    let expected: Vec<(u64, u64)> = [64, 128, 256]
        .into_iter()
        .flat_map(|kb| [4, 8, 16, 32, 64].map(|rec| (kb, rec)))
        .collect();
    assert_eq!(pairs, expected);
    for row in &rows {
        assert_eq!(row.len(), 15, "row {row:?}");
        assert!(row[2..].iter().all(|&v| v > 0), "row {row:?}");
    }
    assert!(run.stdout.ends_with("\nioz test complete.\n"));
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn every_test_in_one_run_fills_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["-s", "256k", "-r", "16k"];
    let numbers: Vec<String> = (0..=12).map(|n| n.to_string()).collect();
    for n in &numbers {
        args.extend(["-i", n.as_str()]);
    }
    args.extend(["-f", "t.tmp"]);
    let run = ioz(dir.path(), &args);
    run.expect_code(0);

    let (upper, lower) = header_lines(&run.stdout);
    assert!(upper.starts_with(UPPER_HEADER.trim_end()), "{upper:?}");
    assert!(upper.trim_end().ends_with("random"), "{upper:?}");
    assert!(lower.starts_with(LOWER_HEADER), "{lower:?}");
    let extra: Vec<&str> = lower[LOWER_HEADER.len()..].split_whitespace().collect();
    assert_eq!(
        extra,
        [
            "pwrite",
            "repwrite",
            "pread",
            "repread",
            "pwritev",
            "repwritev",
            "preadv",
            "repreadv",
            "mix"
        ]
    );

    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    let row = &rows[0];
    assert_eq!(row.len(), 2 + 13 + 4 + 4 + 1, "row {row:?}");
    assert_eq!(&row[..2], &[256, 16]);
    assert!(row[2..].iter().all(|&v| v > 0), "row {row:?}");
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn excel_report_repeats_the_table_values() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-R", "-s", "128k", "-r", "32k", "-i", "0", "-i", "1", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    assert!(run.stdout.contains("\tExcel chart generation enabled\n"));

    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    let row = &rows[0];
    assert_eq!(row.len(), 6, "row {row:?}");
    assert_eq!(&row[..2], &[128, 32]);

    let (_, report) = run
        .stdout
        .split_once("\nExcel output is below:\n")
        .unwrap_or_else(|| panic!("no -R report in:\n{}", run.stdout));
    let mut expected = String::new();
    let titles = [
        "Writer report",
        "Re-writer report",
        "Reader report",
        "Re-Reader report",
    ];
    for (title, value) in titles.iter().zip(&row[2..]) {
        expected.push_str(&format!(
            "\n\"{title}\"\n      {}\n\"128\"   {value} \n",
            "  \"32\""
        ));
    }
    assert_eq!(report, expected);
}

fn micros_per_op_mode_changes_the_unit_line() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-N", "-s", "4m", "-r", "1m", "-i", "0", "-f", "t.tmp"],
    );
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("\tMicroseconds/op Mode. Output is in microseconds per operation.\n")
    );
    assert!(!run.stdout.contains("Output is in Kbytes/sec"));
    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    let row = &rows[0];
    assert_eq!(row.len(), 4, "row {row:?}");
    assert_eq!(&row[..2], &[4096, 1024]);
    // Writing a 1 MiB record takes well over a microsecond and under ten seconds.
    assert!(row[2] > 0 && row[2] < 10_000_000, "row {row:?}");
    assert!(row[3] < 10_000_000, "row {row:?}");
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn ops_per_sec_mode_changes_the_unit_line() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-O", "-s", "1m", "-r", "64k", "-i", "0", "-f", "t.tmp"],
    );
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("\tOPS Mode. Output is in operations per second.\n")
    );
    assert!(!run.stdout.contains("Output is in Kbytes/sec"));
    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    let row = &rows[0];
    assert_eq!(row.len(), 4, "row {row:?}");
    assert_eq!(&row[..2], &[1024, 64]);
    // 16 records of 64 KiB: a positive rate, and below 10 M records/s
    // (which would be 640 GB/s).
    for &ops in &row[2..] {
        assert!(ops > 0 && ops < 10_000_000, "row {row:?}");
    }
}

fn combining_micros_and_ops_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(dir.path(), &["-N", "-O", "-s", "64k", "-f", "t.tmp"]);
    run.expect_code(2);
    assert!(run.stdout.is_empty());
    assert!(run.stderr.starts_with("ioz: -N and -O"), "{}", run.stderr);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn a_foreign_file_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine.txt");
    fs::write(&mine, "precious").unwrap();

    let run = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", "mine.txt"]);
    run.expect_code(2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("ioz: "), "{}", run.stderr);
    assert!(run.stderr.contains("not created by ioz"), "{}", run.stderr);
    assert!(run.stderr.contains("mine.txt"), "{}", run.stderr);
    assert_eq!(fs::read_to_string(&mine).unwrap(), "precious");
    assert_eq!(list_dir(dir.path()), ["mine.txt"]);

    // --force lets ioz treat it as its own: overwrite it and, without -w, delete it.
    let run = ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-f", "mine.txt", "--force"],
    );
    run.expect_code(0);
    assert_eq!(data_rows(&run.stdout).len(), 1, "{}", run.stdout);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn a_kept_file_is_recognised_and_read_by_a_later_run() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep.tmp");
    let run = ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-w", "-f", "keep.tmp"],
    );
    run.expect_code(0);
    assert!(run.stdout.contains("\tSetting no_unlink\n"));
    assert_eq!(fs::metadata(&keep).unwrap().len(), 65536);

    // Date the file back: a read-only run that keeps it must not rewrite it.
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(946_684_800);
    fs::File::options()
        .write(true)
        .open(&keep)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let content = fs::read(&keep).unwrap();

    let run = ioz(
        dir.path(),
        &["-s", "64k", "-i", "1", "-w", "-f", "keep.tmp"],
    );
    run.expect_code(0);
    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    assert_eq!(rows[0].len(), 4, "row {:?}", rows[0]);
    assert!(rows[0][2] > 0 && rows[0][3] > 0, "row {:?}", rows[0]);
    let meta = fs::metadata(&keep).unwrap();
    assert_eq!(meta.len(), 65536);
    assert_eq!(
        meta.modified().unwrap(),
        old,
        "the read run rewrote the file"
    );
    assert_eq!(fs::read(&keep).unwrap(), content);

    // Without -w, a later run accepts it as ioz's own and deletes it at the end.
    let run = ioz(dir.path(), &["-s", "64k", "-i", "1", "-f", "keep.tmp"]);
    run.expect_code(0);
    assert_eq!(data_rows(&run.stdout).len(), 1, "{}", run.stdout);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn default_data_is_not_mostly_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-s", "256k", "-r", "4k", "-i", "0", "-w", "-f", "d.tmp"],
    );
    run.expect_code(0);
    let data = fs::read(dir.path().join("d.tmp")).unwrap();
    assert_eq!(data.len(), 262_144);
    let zeros = data.iter().filter(|&&b| b == 0).count();
    assert!(
        zeros * 20 < data.len(),
        "{zeros} of {} bytes are zero",
        data.len()
    );
}

fn iozone_data_pattern_marks_each_page() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "256k", "-r", "4k", "-i", "0", "-w", "--data", "iozone", "-f", "d.tmp",
        ],
    );
    run.expect_code(0);
    let data = fs::read(dir.path().join("d.tmp")).unwrap();
    assert_eq!(data.len(), 262_144);
    for (page_no, page) in data.chunks(4096).enumerate() {
        assert_eq!(&page[..8], &[0x10; 8], "page {page_no} start");
        if let Some(i) = page[8..].iter().position(|&b| b != 0) {
            panic!(
                "page {page_no}: byte {} is {:#04x}, expected 0",
                i + 8,
                page[i + 8]
            );
        }
    }
}

fn read_tests_without_a_write_test_prepare_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "128k", "-r", "4k", "-i", "1", "-i", "2", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let lines = data_lines(&run.stdout);
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let line = lines[0];
    // Column right edges: KB 16, reclen 24, write 32, rewrite 40, read 49,
    // reread 58, random read 66, random write 74.
    assert_eq!(line[..16].trim(), "128", "{line:?}");
    assert_eq!(line[16..24].trim(), "4", "{line:?}");
    assert!(
        line[24..40].trim().is_empty(),
        "write columns not blank: {line:?}"
    );
    for (name, range) in [
        ("read", 40..49),
        ("reread", 49..58),
        ("random read", 58..66),
        ("random write", 66..74),
    ] {
        let v: u64 = line[range.clone()]
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} column {range:?} of {line:?}"));
        assert!(v > 0, "{name} is 0 in {line:?}");
    }
    assert!(line[74..].trim().is_empty(), "{line:?}");
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

// ---- --runs ------------------------------------------------------------

/// schema/run.schema.json, compiled.
fn validator() -> jsonschema::Validator {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/run.schema.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

#[track_caller]
fn assert_valid(doc: &Value) {
    let v = validator();
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation (n − 1), as a textbook writes it.
fn sd(xs: &[f64]) -> f64 {
    let m = mean(xs);
    (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
}

/// The table's column of each pass, in IOzone's order.
const COLUMNS: [&str; 4] = ["write", "rewrite", "read", "reread"];

/// A cell's samples of `pass` in the JSON run: (run, kB/s).
fn samples(cell: &Value, pass: &str) -> Vec<(u64, f64)> {
    cell["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["pass"] == pass)
        .map(|m| {
            (
                m["run"].as_u64().unwrap(),
                m["kib_per_sec"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Total bytes the run's measurements moved.
fn moved(doc: &Value) -> u64 {
    doc["cells"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["measurements"].as_array().unwrap())
        .map(|m| m["bytes"].as_u64().unwrap())
        .sum()
}

/// The rows of the standard-deviation grid after the table of means.
fn sd_rows(stdout: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("Standard deviation over the runs"))
        .unwrap_or_else(|| panic!("no sd grid in:\n{stdout}"));
    assert!(
        lines[at + 2].trim_start().starts_with("file kB  rec kB"),
        "{stdout}"
    );
    lines[at + 3..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// The `-R` block titled `title`: its rows as (file kB, values).
fn excel_block(stdout: &str, title: &str) -> Vec<(u64, Vec<String>)> {
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == format!("\"{title}\""))
        .unwrap_or_else(|| panic!("no block {title:?} in:\n{stdout}"));
    lines[at + 2..]
        .iter()
        .take_while(|l| l.starts_with('"'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let file = words.next().unwrap().trim_matches('"').parse().unwrap();
            (file, words.map(str::to_string).collect())
        })
        .collect()
}

fn three_runs_of_a_single_cell_keep_every_sample_and_print_their_mean() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-f", "t.tmp",
    ];
    let once = ioz(dir.path(), &[&args[..], &["--json", "one.json"]].concat());
    once.expect_code(0);
    let run = ioz(
        dir.path(),
        &[
            &args[..],
            &[
                "--runs",
                "3",
                "--label",
                "bcache-cfq",
                "-R",
                "--json",
                "r.json",
            ],
        ]
        .concat(),
    );
    run.expect_code(0);
    let doc = read_json(&dir.path().join("r.json"));
    assert_valid(&doc);
    assert_eq!(doc["schema_version"], 2);
    assert_eq!(doc["config"]["runs"], 3);
    assert_eq!(doc["config"]["label"], "bcache-cfq");
    // Three times the I/O of one run.
    let one = read_json(&dir.path().join("one.json"));
    assert_eq!(moved(&one), 4 * (256 << 10));
    assert_eq!(moved(&doc), 3 * moved(&one));
    assert!(
        run.stdout.contains("\tLabel: bcache-cfq\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\tRuns: 3 "), "{}", run.stdout);

    let cell = &doc["cells"][0];
    let rows = data_rows(&run.stdout);
    // The table keeps IOzone's layout: one row, the header scripts look for.
    assert_eq!(rows[0][..2], [256, 64]);
    let (_, lower) = header_lines(&run.stdout);
    assert!(lower.trim_start().starts_with("KB  reclen"));
    let sds = sd_rows(&run.stdout);
    assert_eq!(sds.len(), 1, "{}", run.stdout);
    let summaries = cell["summaries"].as_array().unwrap();
    for (i, pass) in COLUMNS.iter().enumerate() {
        let s = samples(cell, pass);
        // Every sample, in run order.
        assert_eq!(
            s.iter().map(|x| x.0).collect::<Vec<_>>(),
            [0, 1, 2],
            "{pass}"
        );
        let values: Vec<f64> = s.iter().map(|x| x.1).collect();
        // The table shows the mean of the samples, the sd grid their sd.
        assert_eq!(
            rows[0][2 + i],
            mean(&values).round() as u64,
            "{pass}: {values:?}"
        );
        assert_eq!(
            sds[0][2 + i],
            format!("±{}", sd(&values).round()),
            "{pass}: {values:?}"
        );
        let summary = summaries.iter().find(|x| x["pass"] == *pass).unwrap();
        assert_eq!(summary["n"], 3);
        assert!((summary["mean"].as_f64().unwrap() - mean(&values)).abs() < 1e-6);
        assert!((summary["sd"].as_f64().unwrap() - sd(&values)).abs() < 1e-6);
        // The -R blocks: IOzone's (means), then the sd blocks.
        let title = [
            "Writer report",
            "Re-writer report",
            "Reader report",
            "Re-Reader report",
        ][i];
        let means = excel_block(&run.stdout, title);
        assert_eq!(means, [(256, vec![rows[0][2 + i].to_string()])]);
        let spread = excel_block(
            &run.stdout,
            &format!("Standard deviation over 3 runs: {title}"),
        );
        assert_eq!(
            spread,
            [(256, vec![sds[0][2 + i].trim_start_matches('±').to_string()])]
        );
    }
    assert!(
        run.stdout.contains("\tRuns per cell: 3 (every cell).\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\tOutliers (modified z-score"),
        "{}",
        run.stdout
    );
    // ioz report prints the same from the saved run.
    let report = ioz(dir.path(), &["report", "r.json"]);
    report.expect_code(0);
    assert_eq!(report.stdout, run.stdout);
    assert_eq!(list_dir(dir.path()), ["one.json", "r.json"]);
}

fn three_runs_of_auto_mode_repeat_the_whole_plan() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-a", "-n", "64k", "-g", "128k", "-y", "64k", "-q", "64k", "-i", "0", "-f", "t.tmp",
    ];
    let once = ioz(dir.path(), &[&args[..], &["--json", "one.json"]].concat());
    once.expect_code(0);
    let run = ioz(
        dir.path(),
        &[&args[..], &["--runs", "3", "--json", "r.json"]].concat(),
    );
    run.expect_code(0);
    let doc = read_json(&dir.path().join("r.json"));
    assert_valid(&doc);
    let one = read_json(&dir.path().join("one.json"));
    assert_eq!(moved(&doc), 3 * moved(&one));
    let cells = doc["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    for (row, cell) in rows.iter().zip(cells) {
        assert_eq!(row[0], cell["cell"]["file_bytes"].as_u64().unwrap() >> 10);
        for (i, pass) in ["write", "rewrite"].iter().enumerate() {
            let s = samples(cell, pass);
            assert_eq!(s.len(), 3, "{pass}");
            let values: Vec<f64> = s.iter().map(|x| x.1).collect();
            assert_eq!(row[2 + i], mean(&values).round() as u64);
        }
    }
    // Plan-major: run 0 of every cell before run 1 of any; the JSON keeps
    // each cell's samples in run order.
    for cell in cells {
        let runs: Vec<u64> = cell["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["run"].as_u64().unwrap())
            .collect();
        assert_eq!(runs, [0, 0, 1, 1, 2, 2]);
    }
    assert_eq!(sd_rows(&run.stdout).len(), 2);
}

fn three_runs_of_throughput_mode_report_mean_and_sd_of_each_figure() {
    let dir = tempfile::tempdir().unwrap();
    // -x: no stonewalling, so every worker moves its whole file each run
    // and the bytes add up exactly.
    let args = [
        "-t", "2", "-s", "128k", "-r", "64k", "-i", "0", "-R", "-x", "-F", "a.tmp", "b.tmp",
    ];
    let once = ioz(dir.path(), &[&args[..], &["--json", "one.json"]].concat());
    once.expect_code(0);
    let run = ioz(
        dir.path(),
        &[&args[..], &["--runs", "3", "--json", "r.json"]].concat(),
    );
    run.expect_code(0);
    let doc = read_json(&dir.path().join("r.json"));
    assert_valid(&doc);
    let phase_bytes = |d: &Value| -> u64 {
        d["throughput"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| p["results"].as_array().unwrap())
            .map(|w| w["bytes"].as_u64().unwrap())
            .sum()
    };
    let one = read_json(&dir.path().join("one.json"));
    assert_eq!(phase_bytes(&doc), 3 * phase_bytes(&one));
    let phases = doc["throughput"].as_array().unwrap();
    let runs: Vec<u64> = phases.iter().map(|p| p["run"].as_u64().unwrap()).collect();
    assert_eq!(runs, [0, 0, 1, 1, 2, 2]);
    // Children see, per run: the sum of the workers' kB/s.
    let children = |pass: &str| -> Vec<f64> {
        phases
            .iter()
            .filter(|p| p["pass"] == pass)
            .map(|p| {
                p["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| {
                        let secs = w["elapsed_ns"].as_u64().unwrap().max(1) as f64 / 1e9;
                        w["bytes"].as_u64().unwrap() as f64 / 1024.0 / secs
                    })
                    .sum()
            })
            .collect()
    };
    for (pass, label) in [("write", " 2 initial writers"), ("rewrite", " 2 rewriters")] {
        let values = children(pass);
        assert_eq!(values.len(), 3);
        let line = run
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("\tChildren see throughput for {label}")))
            .unwrap_or_else(|| panic!("no {label} block in:\n{}", run.stdout));
        let shown: f64 = line
            .split('=')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((shown - mean(&values)).abs() < 0.01, "{line} vs {values:?}");
        // The spread line follows the block: mean ± sd of each figure.
        let spread = format!(
            "children see {:.2} ± {:.2} KB/sec",
            mean(&values),
            sd(&values)
        );
        assert!(run.stdout.contains(&spread), "{spread} in:\n{}", run.stdout);
    }
    assert_eq!(run.stdout.matches("\tMean ± sd over 3 runs: ").count(), 2);
    // One block per phase, not one per run.
    assert_eq!(run.stdout.matches("Children see throughput").count(), 2);
    // -R: IOzone's report of means, then the sd rows.
    assert!(
        run.stdout
            .contains("\"Standard deviation over 3 runs: Throughput report"),
        "{}",
        run.stdout
    );
    let summaries = doc["throughput_summaries"].as_array().unwrap();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0]["children_see"]["n"], 3);
    let m = summaries[0]["children_see"]["mean"].as_f64().unwrap();
    assert!((m - mean(&children("write"))).abs() < 1e-6);
}

fn bad_runs_and_labels_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let base = ["-s", "64k", "-i", "0", "-f", "t.tmp"];
    for (extra, part) in [
        (&["--runs", "0"][..], "--runs"),
        (&["--runs", "three"], "--runs"),
        (&["--runs", "-1"], "--runs"),
        (&["--runs", "10001"], "--runs"),
        (&["--runs"], "--runs"),
        (&["--label", "a\nb"], "--label"),
        (&["--label", "  "], "--label"),
    ] {
        let run = ioz(dir.path(), &[&base[..], extra].concat());
        assert_refused(&run, part);
    }
}

/// A CSV without its last column when that is the cache regime's.
fn without_regime_column(csv: &str) -> String {
    // Since issue 37 the residency columns follow the regime: all go.
    let Some(at) = csv
        .lines()
        .next()
        .and_then(|h| h.split(',').position(|c| c == "regime"))
    else {
        return csv.to_string();
    };
    csv.lines()
        .map(|l| format!("{}\n", l.split(',').take(at).collect::<Vec<_>>().join(",")))
        .collect()
}

/// Every sheet of the .xlsx at `new` holds the cells of the one at `old`;
/// the Environment sheet may have rows after the old ones (a blank row,
/// then the facts issue 18 added).
fn assert_same_cells_but_further_environment(old: &std::path::Path, new: &std::path::Path) {
    use calamine::{Reader, Xlsx, open_workbook};
    let mut a: Xlsx<_> = open_workbook(old).unwrap();
    let mut b: Xlsx<_> = open_workbook(new).unwrap();
    assert_eq!(a.sheet_names(), b.sheet_names());
    for sheet in a.sheet_names() {
        let (ra, rb) = (
            a.worksheet_range(&sheet).unwrap(),
            b.worksheet_range(&sheet).unwrap(),
        );
        let rows_a: Vec<_> = ra.rows().collect();
        let rows_b: Vec<_> = rb.rows().collect();
        if sheet == "Environment" {
            assert_eq!(rows_a[..], rows_b[..rows_a.len()], "{sheet}");
            assert!(
                rows_b[rows_a.len()]
                    .iter()
                    .all(|c| *c == calamine::Data::Empty),
                "{sheet}"
            );
        } else {
            assert_eq!(rows_a, rows_b, "{sheet}");
        }
    }
}

/// A run of one repetition prints and saves what ioz printed and saved
/// before repetitions existed: tests/fixtures/one-run/ holds a run saved
/// by that ioz (schema version 1) with the stdout, CSV, .xls and .xlsx it
/// wrote; `ioz report` of the old file writes them again byte for byte.
fn one_run_prints_and_saves_what_it_did_before_repetitions() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["single", "tp"] {
        let json = data_file(&format!("one-run/{name}.json"));
        assert_eq!(read_json(&json)["schema_version"], 1);
        let run = ioz(
            dir.path(),
            &[
                "report",
                json.to_str().unwrap(),
                "-R",
                "--csv",
                "out.csv",
                "-b",
                "out.xls",
                "-b",
                "out.xlsx",
            ],
        );
        run.expect_code(0);
        let expected = fs::read_to_string(data_file(&format!("one-run/{name}.txt"))).unwrap();
        assert_eq!(run.stdout, expected, "{name}: the text differs");
        for ext in ["csv", "xls", "xlsx"] {
            let old_path = data_file(&format!("one-run/{name}.{ext}"));
            let new_path = dir.path().join(format!("out.{ext}"));
            let (old, new) = (fs::read(&old_path).unwrap(), fs::read(&new_path).unwrap());
            match ext {
                // Since issue 18 a single run's CSV ends each row with the
                // cell's cache regime: the columns before it are the old file.
                "csv" => assert_eq!(
                    String::from_utf8(old).unwrap(),
                    without_regime_column(&String::from_utf8(new).unwrap()),
                    "{name}.csv differs"
                ),
                // And the Environment sheet lists every further fact after
                // the old rows: every sheet's cells are the old ones.
                "xlsx" => assert_same_cells_but_further_environment(&old_path, &new_path),
                _ => assert!(old == new, "{name}.{ext} differs"),
            }
        }
        // Saved again, the old run is a valid version 2 file.
        let again = ioz(
            dir.path(),
            &["report", json.to_str().unwrap(), "--json", "v2.json"],
        );
        again.expect_code(0);
        let v2 = read_json(&dir.path().join("v2.json"));
        assert_eq!(v2["schema_version"], 2);
        assert_valid(&v2);
        for f in ["out.csv", "out.xls", "out.xlsx", "v2.json"] {
            fs::remove_file(dir.path().join(f)).unwrap();
        }
    }
}

/// --runs with -U: every pass of every run starts on a freshly mounted
/// file system, so each repetition starts cold.
fn each_run_remounts_before_every_pass() {
    let ext4 = Ext4::new("noatime");
    let before = ext4.mount_count();
    let test_file = ext4.mnt().join("t.tmp");
    let run = ioz(
        std::path::Path::new("/"),
        &[
            "-U",
            &ext4.mnt_str(),
            "-f",
            test_file.to_str().unwrap(),
            "-s",
            "256k",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "--runs",
            "2",
            "--drop-caches",
        ],
    );
    run.expect_code(0);
    // Four passes (write, rewrite, read, reread), two runs.
    assert_eq!(ext4.mount_count(), before + 8);
    assert!(
        run.stdout.contains("\tRuns per cell: 2 (every cell).\n"),
        "{}",
        run.stdout
    );
    assert_eq!(list_dir(&ext4.mnt()), ["lost+found"]);
}

/// The bar on a terminal (script(1) gives the run one): its total is the
/// plan's bytes times the runs, so the ETA covers every repetition.
fn the_progress_bar_counts_every_run() {
    if !std::path::Path::new("/usr/bin/script").exists() {
        skip("script(1) (util-linux) is not installed: no terminal for the bar");
    }
    let dir = tempfile::tempdir().unwrap();
    let command = format!("{IOZ} -s 256k -r 64k -i 0 -i 1 -f t.tmp --runs 3");
    let out = std::process::Command::new("/usr/bin/script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let screen = String::from_utf8_lossy(&out.stdout);
    // 256 kB × 4 passes × 3 runs.
    assert!(screen.contains("/3.00 MiB"), "{screen}");
    assert!(
        screen.contains("run 3/3: 256 kB file, 64 kB records: reread"),
        "{screen}"
    );
}
