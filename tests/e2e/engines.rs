//! The mmap (-B, -D, -G, -+A) and POSIX AIO (-H, -k) engines, end to end: every
//! test that runs on them fills its column, and the file they leave is byte
//! for byte the file a plain run leaves.

use std::fs;
use std::path::Path;

use crate::fixtures::{Run, Test, data_rows, ioz, trials};
use serde_json::Value;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        engines_fill_every_column_and_write_what_a_plain_run_writes,
        engines_write_the_same_random_data_as_a_plain_run,
        mmap_with_o_direct_works_or_fails_with_one_line,
        reading_a_file_shorter_than_the_pass_does_not_crash,
    ]
}

/// The engine flags under test.
const ENGINES: [&[&str]; 6] = [
    &["-B"],
    &["-B", "-D"],
    &["-B", "-G"],
    &["-B", "-+A", "1"],
    &["-H", "4"],
    &["-k", "8"],
];

/// Tests 0, 1, 2, 3, 5, 9 and 10, in the order the JSON lists their passes.
const PASSES: [&str; 12] = [
    "write",
    "rewrite",
    "read",
    "reread",
    "random_read",
    "random_write",
    "backward_read",
    "stride_read",
    "pwrite",
    "repwrite",
    "pread",
    "repread",
];

const FILE_BYTES: u64 = 256 * 1024;

/// Runs the seven tests with `engine` in a fresh directory, keeping the file
/// (-w); checks the table and the JSON, and returns the file's bytes.
fn kept_file(engine: &[&str], iozone_data: bool) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "-s", "256k", "-r", "16k", "-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i", "5", "-i",
        "9", "-i", "10", "-w",
    ];
    if iozone_data {
        args.extend(["--data", "iozone"]);
    }
    args.extend(["-f", "t.tmp", "--json", "r.json"]);
    args.extend(engine);
    let run = ioz(dir.path(), &args);
    run.expect_code(0);
    let what = format!("ioz {}", args.join(" "));
    check_row(&run, &what);

    let json: Value = serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap())
        .expect("r.json is JSON");
    let measurements = json["cells"][0]["measurements"].as_array().unwrap();
    let passes: Vec<&str> = measurements
        .iter()
        .map(|m| m["pass"].as_str().unwrap())
        .collect();
    assert_eq!(passes, PASSES, "{what}");
    for m in measurements {
        assert_eq!(m["bytes"].as_u64(), Some(FILE_BYTES), "{what}: {m}");
        assert!(m["kib_per_sec"].as_u64().unwrap() > 0, "{what}: {m}");
    }
    fs::read(dir.path().join("t.tmp")).unwrap()
}

/// One table row: size, record and the twelve columns of the selected tests,
/// all filled (the unselected ones are blank and absent from the fields).
fn check_row(run: &Run, what: &str) {
    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{what}\n{}", run.stdout);
    let row = &rows[0];
    assert_eq!(row.len(), 2 + PASSES.len(), "{what}: row {row:?}");
    assert_eq!(&row[..2], &[256, 16], "{what}");
    assert!(row[2..].iter().all(|&v| v > 0), "{what}: row {row:?}");
}

fn engines_write_what_a_plain_run_writes(iozone_data: bool) {
    let plain = kept_file(&[], iozone_data);
    assert_eq!(plain.len() as u64, FILE_BYTES);
    for engine in ENGINES {
        let file = kept_file(engine, iozone_data);
        assert_eq!(file.len(), plain.len(), "{engine:?}: file size");
        if let Some(at) = file.iter().zip(&plain).position(|(a, b)| a != b) {
            panic!(
                "{engine:?}: byte {at} is {:#04x}, a plain run writes {:#04x}",
                file[at], plain[at]
            );
        }
    }
}

fn engines_fill_every_column_and_write_what_a_plain_run_writes() {
    engines_write_what_a_plain_run_writes(true);
}

fn engines_write_the_same_random_data_as_a_plain_run() {
    // The default data is random but seeded the same way in every run (by the
    // cell), so two plain runs already write identical files: the comparison
    // with the engines below rests on that.
    let first = kept_file(&[], false);
    let second = kept_file(&[], false);
    assert!(
        first == second,
        "two plain runs wrote different random data"
    );
    let zeros = first.iter().filter(|&&b| b == 0).count();
    assert!(zeros * 20 < first.len(), "the data is not random");
    engines_write_what_a_plain_run_writes(false);
}

/// Either a full row, or exit non-zero with one line of error and no panic.
fn works_or_fails_in_one_line(dir: &Path, args: &[&str]) {
    let run = ioz(dir, args);
    assert!(
        !run.stderr.contains("panicked"),
        "ioz {args:?} panicked:\n{}",
        run.stderr
    );
    if run.code == Some(0) {
        let rows = data_rows(&run.stdout);
        assert_eq!(rows.len(), 1, "{}", run.stdout);
        assert!(rows[0][2..].iter().all(|&v| v > 0), "row {:?}", rows[0]);
    } else {
        let errors: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("ioz: warning"))
            .collect();
        assert_eq!(errors.len(), 1, "ioz {args:?}:\n{}", run.stderr);
    }
}

fn mmap_with_o_direct_works_or_fails_with_one_line() {
    let args = [
        "-s", "256k", "-r", "16k", "-i", "0", "-i", "1", "-i", "2", "-I", "-B", "-f", "t.tmp",
    ];
    let dir = tempfile::tempdir().unwrap();
    works_or_fails_in_one_line(dir.path(), &args);
    // tmpfs takes O_DIRECT only on recent kernels: one of the two paths.
    if Path::new("/dev/shm").is_dir()
        && let Ok(shm) = tempfile::tempdir_in("/dev/shm")
    {
        works_or_fails_in_one_line(shm.path(), &args);
    }
}

fn reading_a_file_shorter_than_the_pass_does_not_crash() {
    for engine in [&["-B"][..], &["-H", "4"], &["-k", "2"]] {
        let dir = tempfile::tempdir().unwrap();
        let keep = dir.path().join("k.tmp");
        ioz(dir.path(), &["-s", "64k", "-i", "0", "-w", "-f", "k.tmp"]).expect_code(0);
        // A partial record at the end, too.
        let mut data = fs::read(&keep).unwrap();
        data.extend([1u8; 100]);
        fs::write(&keep, &data).unwrap();
        let mut args = vec!["-s", "256k", "-r", "16k", "-i", "1", "-w", "-f", "k.tmp"];
        args.extend(engine);
        let run = ioz(dir.path(), &args);
        assert!(
            !run.stderr.contains("panicked"),
            "{engine:?} panicked:\n{}",
            run.stderr
        );
        run.expect_code(0);
        let rows = data_rows(&run.stdout);
        assert_eq!(rows.len(), 1, "{engine:?}\n{}", run.stdout);
        assert_eq!(rows[0].len(), 4, "{engine:?}: row {:?}", rows[0]);
        assert!(
            rows[0][2] > 0 && rows[0][3] > 0,
            "{engine:?}: {:?}",
            rows[0]
        );
        // ioz writes a short file out to the pass's size before reading it.
        assert_eq!(fs::metadata(&keep).unwrap().len(), 256 * 1024);
    }
}
