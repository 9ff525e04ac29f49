//! Complete runs of the real binary on small files: the table, the `-R`
//! report, the output units, the data written, and which files are left.

use std::fs;
use std::time::{Duration, SystemTime};

use crate::fixtures::{
    Test, data_file, data_lines, data_rows, header_lines, ioz, list_dir, trials,
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
