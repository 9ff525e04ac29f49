//! -V and -+d end to end, proved by fault injection: an LD_PRELOAD shim
//! (tests/fixtures/flip_byte.c, compiled here with `cc`) corrupts one read's
//! bytes, and the real binary must name the byte, the values and the pass,
//! exit with status 1 and leave no file behind. Clean runs must report nothing.

use crate::fixtures::flip::{assert_contains, errors, ioz_flipped, mismatch_line, shim};
use crate::fixtures::{Test, ioz, list_dir, trials};
use ioz::data::pattern::random_permutation;
use ioz::data::verify::diag_byte;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        pattern_mode_names_the_flipped_byte => [FlipShim],
        pattern_mode_through_pread_in_the_reread_pass => [FlipShim],
        diagnostic_mode_names_the_byte_and_counts_the_record => [FlipShim],
        diagnostic_mode_gives_the_absolute_offset_of_a_random_read => [FlipShim],
        the_shim_alone_changes_nothing => [FlipShim],
        read_test_alone_finds_a_file_without_the_pattern,
        auto_runs_report_no_false_mismatches,
        note_gives_the_bytes_verified,
        written_files_hold_the_pattern,
        light_modes_write_iozone_buffers_with_their_lines,
        light_mode_checks_the_first_bytes_of_each_page => [FlipShim],
    ]
}

/// 256 KiB in 64 KiB records: 4 reads per read pass.
const SIZES: [&str; 4] = ["-s", "256k", "-r", "64k"];
const REC: u64 = 64 << 10;

fn pattern_mode_names_the_flipped_byte() {
    let shim = shim();
    let dir = tempfile::tempdir().unwrap();
    let mut args = SIZES.to_vec();
    args.extend(["-i", "0", "-i", "1", "-V", "165", "-f", "t.tmp"]);
    // The 2nd read of the file: record 1 of the read pass.
    let run = ioz_flipped(
        shim,
        dir.path(),
        &args,
        &[("FLIP_CALL", "2"), ("FLIP_BYTE", "100")],
    );
    let line = mismatch_line(&run);
    assert_contains(
        line,
        &[
            "ioz: verify the data read from ",
            "t.tmp at offset 65536 during the read pass: ",
            "data mismatch (-V 165): first bad byte at file offset 65636 (record 1, byte 100)",
            "expected 0xa5, found 0x5a",
            "1 of the 65536 bytes of that record differs",
            "1 bad byte in 1 record in this pass",
        ],
    );
    assert!(
        list_dir(dir.path()).is_empty(),
        "{:?}",
        list_dir(dir.path())
    );
}

fn pattern_mode_through_pread_in_the_reread_pass() {
    let shim = shim();
    let dir = tempfile::tempdir().unwrap();
    let mut args = SIZES.to_vec();
    args.extend(["-i", "0", "-i", "1", "-V", "165", "--engine", "psync"]);
    args.extend(["-f", "t.tmp"]);
    // Reads 1-4 are the read pass, 5-8 the reread: the 6th is record 1 again.
    let flip = [("FLIP_CALL", "6"), ("FLIP_BYTE", "0"), ("FLIP_XOR", "1")];
    let run = ioz_flipped(shim, dir.path(), &args, &flip);
    let line = mismatch_line(&run);
    assert_contains(
        line,
        &[
            "at offset 65536 during the reread pass",
            "first bad byte at file offset 65536 (record 1, byte 0)",
            "expected 0xa5, found 0xa4",
        ],
    );
    assert!(list_dir(dir.path()).is_empty());
}

fn diagnostic_mode_names_the_byte_and_counts_the_record() {
    let shim = shim();
    let dir = tempfile::tempdir().unwrap();
    let mut args = SIZES.to_vec();
    args.extend(["-i", "0", "-i", "1", "-+d", "-f", "t.tmp"]);
    // Three bytes from the last of the first 4 KiB of record 2.
    let flip = [
        ("FLIP_CALL", "3"),
        ("FLIP_BYTE", "4095"),
        ("FLIP_COUNT", "3"),
    ];
    let run = ioz_flipped(shim, dir.path(), &args, &flip);
    let line = mismatch_line(&run);
    let offset = 2 * REC + 4095;
    let expected = diag_byte(offset);
    assert_contains(
        line,
        &[
            "t.tmp at offset 131072 during the read pass",
            &format!(
                "data mismatch (-+d): first bad byte at file offset {offset} (record 2, byte 4095)"
            ),
            &format!("expected {expected:#04x}, found {:#04x}", expected ^ 0xff),
            "3 of the 65536 bytes of that record differ",
            "3 bad bytes in 1 record in this pass",
        ],
    );
    assert!(list_dir(dir.path()).is_empty());
}

fn diagnostic_mode_gives_the_absolute_offset_of_a_random_read() {
    let shim = shim();
    let dir = tempfile::tempdir().unwrap();
    let mut args = SIZES.to_vec();
    args.extend(["-i", "0", "-i", "2", "-+d", "-f", "t.tmp"]);
    // The random read pass is the first to read; its 3rd read is this record.
    let record = random_permutation(4)[2];
    let flip = [("FLIP_CALL", "3"), ("FLIP_BYTE", "777")];
    let run = ioz_flipped(shim, dir.path(), &args, &flip);
    let line = mismatch_line(&run);
    let offset = record * REC + 777;
    assert_contains(
        line,
        &[
            &format!("at offset {} during the random read pass", record * REC),
            &format!("first bad byte at file offset {offset} (record {record}, byte 777)"),
            &format!(
                "expected {:#04x}, found {:#04x}",
                diag_byte(offset),
                diag_byte(offset) ^ 0xff
            ),
        ],
    );
    assert!(list_dir(dir.path()).is_empty());
}

fn the_shim_alone_changes_nothing() {
    let shim = shim();
    let dir = tempfile::tempdir().unwrap();
    for mode in [&["-V", "165"][..], &["-+d"][..]] {
        let mut args = SIZES.to_vec();
        args.extend(["-i", "0", "-i", "1", "-i", "2", "-f", "t.tmp"]);
        args.extend(mode);
        let run = ioz_flipped(shim, dir.path(), &args, &[]);
        run.expect_code(0);
        assert!(errors(&run).is_empty(), "{}", run.stderr);
    }
}

fn read_test_alone_finds_a_file_without_the_pattern() {
    // Without the write test, ioz prepares the file with its ordinary data,
    // not the pattern: the check says so instead of passing.
    let dir = tempfile::tempdir().unwrap();
    let mut args = SIZES.to_vec();
    args.extend(["-i", "1", "-V", "165", "-f", "t.tmp"]);
    let run = ioz(dir.path(), &args);
    let line = mismatch_line(&run);
    assert_contains(
        line,
        &[
            "during the read pass",
            "first bad byte at file offset 0 (record 0, byte 0): expected 0xa5, found 0x",
        ],
    );
    assert!(list_dir(dir.path()).is_empty());
}

fn auto_runs_report_no_false_mismatches() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [&["-V", "165"][..], &["-+d"][..]] {
        let mut args = vec!["-a", "-n", "64k", "-g", "256k", "-q", "64k", "-f", "t.tmp"];
        args.extend(mode);
        args.extend(["--json", "run.json"]);
        let run = ioz(dir.path(), &args);
        run.expect_code(0);
        assert!(errors(&run).is_empty(), "{}", run.stderr);
        assert!(
            run.stdout
                .contains("Performance measurements are invalid in this mode."),
            "{}",
            run.stdout
        );
        assert_eq!(list_dir(dir.path()), ["run.json"]);
        // The saved run's report says what was checked.
        let report = ioz(dir.path(), &["report", "run.json"]);
        report.expect_code(0);
        let note = report
            .stdout
            .lines()
            .find(|l| l.starts_with("\tVerified "))
            .unwrap_or_else(|| panic!("no note in:\n{}", report.stdout));
        assert!(note.ends_with(" read passes; no mismatches."), "{note}");
    }
}

fn note_gives_the_bytes_verified() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = SIZES.to_vec();
    args.extend([
        "-i", "0", "-i", "1", "-+d", "-f", "t.tmp", "--json", "run.json",
    ]);
    ioz(dir.path(), &args).expect_code(0);
    let report = ioz(dir.path(), &["report", "run.json"]);
    assert!(
        report.stdout.contains(
            "\n\n\tVerified 524288 bytes in 2 read passes; no mismatches.\n\nioz test complete.\n"
        ),
        "{}",
        report.stdout
    );
}

fn written_files_hold_the_pattern() {
    let dir = tempfile::tempdir().unwrap();
    for (mode, flag) in [(&["-V", "165"][..], "v"), (&["-+d"][..], "d")] {
        let name = format!("{flag}t.tmp");
        let mut args = SIZES.to_vec();
        // Write, rewrite, random write and record rewrite, kept with -w.
        args.extend(["-i", "0", "-i", "2", "-i", "4", "-w", "-f", &name]);
        args.extend(mode);
        ioz(dir.path(), &args).expect_code(0);
        let data = std::fs::read(dir.path().join(&name)).unwrap();
        assert_eq!(data.len() as u64, 4 * REC);
        let want: Vec<u8> = match flag {
            "v" => vec![0xa5; data.len()],
            _ => (0..data.len() as u64).map(diag_byte).collect(),
        };
        assert!(data == want, "{name} does not hold the pattern");
        // A later run reads the kept file back (another record size too).
        let read_back = ["-s", "256k", "-r", "16k", "-i", "1", "-w", "-f", &name];
        let mut args = read_back.to_vec();
        args.extend(mode);
        let run = ioz(dir.path(), &args);
        run.expect_code(0);
        assert!(errors(&run).is_empty(), "{}", run.stderr);
    }
}

/// IOzone's buffer with `byte`, record by record: the first 8 bytes of
/// each 4 KiB page of a record are `byte`, the rest zero.
fn iozone_records(len: usize, record: usize, byte: u8) -> Vec<u8> {
    (0..len)
        .map(|i| if (i % record) % 4096 < 8 { byte } else { 0 })
        .collect()
}

fn light_modes_write_iozone_buffers_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let modes = [
        (
            "-+X",
            0xbb,
            "\tShort circuit mode. For\n\t filesystem development testing ONLY !\n",
        ),
        ("-+Z", 0xa5, "\tUsing old data sets.\n"),
    ];
    for (flag, byte, lines) in modes {
        // 6 KiB records: the pages start again at every record.
        for record in ["64k", "6k"] {
            let name = format!("{}{record}t.tmp", &flag[2..]);
            let args = [
                "-s", "192k", "-r", record, "-i", "0", "-i", "2", "-i", "4", "-w", "-f", &name,
                flag,
            ];
            let run = ioz(dir.path(), &args);
            run.expect_code(0);
            assert!(run.stdout.contains(lines), "{flag}: {}", run.stdout);
            assert!(
                !run.stdout.contains("Performance measurements are invalid"),
                "{flag}"
            );
            let note = run
                .stdout
                .lines()
                .find(|l| l.starts_with("\tVerified "))
                .unwrap_or_else(|| panic!("no note in:\n{}", run.stdout));
            assert!(
                note.ends_with(" read pass (the first 8 bytes of each 4 KiB page); no mismatches."),
                "{note}"
            );
            let data = std::fs::read(dir.path().join(&name)).unwrap();
            let rec = if record == "6k" { 6 << 10 } else { 64 << 10 };
            assert_eq!(data.len(), 192 << 10);
            assert!(
                data == iozone_records(data.len(), rec, byte),
                "{name} is not IOzone's buffer with {byte:#x}"
            );
            // Read back by a later run of the same record size.
            let read_back = [
                "-s", "192k", "-r", record, "-i", "1", "-w", "-f", &name, flag,
            ];
            let run = ioz(dir.path(), &read_back);
            run.expect_code(0);
            assert!(errors(&run).is_empty(), "{}", run.stderr);
        }
    }
}

fn light_mode_checks_the_first_bytes_of_each_page() {
    let shim = shim();
    let dir = tempfile::tempdir().unwrap();
    let mut args = SIZES.to_vec();
    args.extend(["-i", "0", "-i", "1", "-+X", "-f", "t.tmp"]);
    // The 2nd read: byte 4096 of record 1, the stamp of its second page.
    let run = ioz_flipped(
        shim,
        dir.path(),
        &args,
        &[("FLIP_CALL", "2"), ("FLIP_BYTE", "4096")],
    );
    let line = mismatch_line(&run);
    assert_contains(
        line,
        &[
            "t.tmp at offset 65536 during the read pass: ",
            "data mismatch (-+X): first bad byte at file offset 69632 (record 1, byte 4096)",
            "expected 0xbb, found 0x44",
            "1 of the 65536 bytes of that record differs",
        ],
    );
    // A byte the light check does not look at passes, as in IOzone.
    let run = ioz_flipped(
        shim,
        dir.path(),
        &args,
        &[("FLIP_CALL", "2"), ("FLIP_BYTE", "100")],
    );
    run.expect_code(0);
    assert!(errors(&run).is_empty(), "{}", run.stderr);
}
