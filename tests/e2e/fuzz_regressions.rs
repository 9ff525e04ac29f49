//! Inputs found or made while fuzzing (see fuzz/README.md), fed to the real
//! binary: however bad the command line or the saved run, ioz ends cleanly
//! with exit status 2 and one `ioz:` line on stderr, never with a panic, an
//! abort or a hang.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::fixtures::{Test, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        non_utf8_size_value_is_refused,
        non_utf8_option_letters_are_refused,
        non_utf8_report_arguments_are_refused,
        huge_numbers_are_refused,
        odd_option_shapes_are_refused,
        size_range_that_never_ends_is_refused,
        nan_and_infinity_tokens_are_refused,
        deeply_nested_json_is_refused,
        wrong_types_are_refused,
        broken_files_are_refused,
        zero_and_maximal_measurements_render,
        degenerate_sizes_and_cells_render,
        degenerate_throughput_runs_render,
        every_fuzz_target_holds_over_its_corpus,
    ]
}

// Each fuzz target's check (fuzz/checks/), the body of its target, run
// here over its seed corpus with the ordinary `cargo test`.
#[path = "../../fuzz/checks/cli_parse.rs"]
mod cli_parse_check;
#[path = "../../fuzz/checks/client_file.rs"]
mod client_file_check;
#[path = "../../fuzz/checks/history_index.rs"]
mod history_index_check;
#[path = "../../fuzz/checks/iozone_log.rs"]
mod iozone_log_check;
#[path = "../../fuzz/checks/report_json.rs"]
mod report_json_check;

/// Longest any of these inputs may take to be refused.
const LIMIT: Duration = Duration::from_secs(30);
/// Address space the child may use: a runaway allocation fails fast here
/// instead of eating the machine.
const MEMORY_LIMIT: u64 = 4 << 30;

struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `ioz ARGS…` in `dir`, killing it after [`LIMIT`].
fn run_ioz(dir: &Path, args: &[OsString]) -> Ended {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ioz"));
    command
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let mut child = command.spawn().expect("cannot start ioz");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        stdout.read_to_end(&mut s).map(|_| s)
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        stderr.read_to_end(&mut s).map(|_| s)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("ioz {args:?} still running after {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    Ended {
        code: status.code(),
        stdout: text(out.join().unwrap().unwrap()),
        stderr: text(err.join().unwrap().unwrap()),
    }
}

/// Status 2, one `ioz:` line on stderr, nothing of a panic, nothing left in
/// the directory but what the test put there.
fn assert_clean_refusal(dir: &Path, args: &[OsString], what: &str) {
    let before = names_in(dir);
    let run = run_ioz(dir, args);
    let context = format!(
        "{what}: ioz {args:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        run.stdout, run.stderr
    );
    for sign in [
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        "memory allocation",
    ] {
        assert!(!run.stderr.contains(sign), "{sign:?} on stderr: {context}");
    }
    assert_eq!(run.code, Some(2), "exit status of {context}");
    assert!(run.stdout.is_empty(), "stdout not empty: {context}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr is not one line: {context}");
    assert!(
        lines[0].starts_with("ioz: "),
        "no 'ioz: ' prefix: {context}"
    );
    assert_eq!(names_in(dir), before, "the directory changed: {context}");
}

fn names_in(dir: &Path) -> Vec<OsString> {
    let mut names: Vec<OsString> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    names
}

/// An argv (argv[0] left out) given as raw bytes per word.
fn refuse_argv(words: &[&[u8]]) {
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<OsString> = words
        .iter()
        .map(|w| OsString::from_vec(w.to_vec()))
        .collect();
    assert_clean_refusal(dir.path(), &args, "command line");
}

/// A saved run's bytes, given to `ioz report FILE`.
fn refuse_report(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.json"), bytes).unwrap();
    let args = [OsString::from("report"), OsString::from("run.json")];
    assert_clean_refusal(dir.path(), &args, "saved run");
}

/// A real saved run (fuzz/corpus/report_json/run_auto_R_min.json: `ioz -a -n
/// 64k -g 128k -q 64k -R --json …`), compact, for the JSON cases to alter.
fn saved_auto_run() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/report_json/run_auto_R_min.json"
    );
    std::fs::read_to_string(path).unwrap()
}

fn saved_single_run() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/report_json/run_single_min.json"
    );
    std::fs::read_to_string(path).unwrap()
}

/// `text` with its one `from` replaced (the test's premise is checked).
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the saved run has no {from:?}");
    text.replacen(from, to, 1)
}

// ---- the command line ----

fn non_utf8_size_value_is_refused() {
    refuse_argv(&[b"-s", b"64\xffk"]);
}

fn non_utf8_option_letters_are_refused() {
    refuse_argv(&[b"-\xff"]);
    refuse_argv(&[b"-a\xc3"]);
    refuse_argv(&[b"-+\xff"]);
    refuse_argv(&[b"--\xff\xfe"]);
    refuse_argv(&[b"--json=\xff"]);
    refuse_argv(&[b"\x80"]);
}

fn non_utf8_report_arguments_are_refused() {
    // The saved run does not exist: refused as unreadable, by name.
    refuse_argv(&[b"report", b"\xff.json", b"--csv", b"\xfe"]);
}

fn huge_numbers_are_refused() {
    let digits = "9".repeat(200);
    for words in [
        &[&b"-s"[..], b"18446744073709551615g"][..],
        &[b"-s", digits.as_bytes()],
        &[b"-r", b"99999999999999999999b"],
        &[b"-t", b"4294967297"],
        &[b"-P", b"18446744073709551615", b"-t", b"1"],
        &[b"-+x", b"18446744073709551616", b"-a"],
        &[b"-+p", b"4294967396"],
        &[b"-j", b"18446744073709551616"],
    ] {
        refuse_argv(words);
    }
}

fn odd_option_shapes_are_refused() {
    for words in [
        &[&b"-+"[..]][..],
        &[b"-+xy", b"2"],
        &[b"-+x", b"1", b"-a"],
        &[b"-"],
        &[b"--", b"-a"],
        &[b"-\xc3\xa9"],
        &[b"-s", "６４ｋ".as_bytes()],
        &[b"-t", b"2", b"-F", b"", b"b"],
        &[b"report"],
        &[b"report", b"a", b"b"],
        &[b""],
    ] {
        refuse_argv(words);
    }
}

// ---- the saved run (`ioz report`) ----

fn size_range_that_never_ends_is_refused() {
    // Found by the seeds of report_json: a saved auto run whose range steps
    // by 0 (or 1, or starts at 0) made `ioz report` step through it until
    // memory ran out ("memory allocation of 4294967296 bytes failed", abort).
    let run = saved_auto_run();
    let range = r#""range":{"min":65536,"max":131072,"multiplier":2}"#;
    for bad in [
        r#""range":{"min":1,"max":18446744073709551615,"multiplier":0}"#,
        r#""range":{"min":65536,"max":131072,"multiplier":1}"#,
        r#""range":{"min":0,"max":131072,"multiplier":2}"#,
    ] {
        refuse_report(replace_once(&run, range, bad).as_bytes());
    }
}

fn nan_and_infinity_tokens_are_refused() {
    let run = saved_single_run();
    for token in ["NaN", "Infinity", "-Infinity", "1e400", &"9".repeat(400)] {
        let to = format!(r#""elapsed_ns":{token},"x":"#);
        refuse_report(replace_once(&run, r#""elapsed_ns":"#, &to).as_bytes());
    }
}

fn deeply_nested_json_is_refused() {
    let depth = 100_000;
    refuse_report(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).as_bytes());
    refuse_report(format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth)).as_bytes());
    let run = saved_single_run();
    let nested = format!(
        r#""extra":{}{},"started":"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    refuse_report(replace_once(&run, r#""started":"#, &nested).as_bytes());
}

fn wrong_types_are_refused() {
    let run = saved_single_run();
    for (from, to) in [
        (r#""schema_version":1"#, r#""schema_version":"1""#),
        (r#""schema_version":1"#, r#""schema_version":1.0"#),
        (r#""schema_version":1"#, r#""schema_version":-1"#),
        (
            r#""schema_version":1"#,
            r#""schema_version":18446744073709551617"#,
        ),
        (r#""throughput":[]"#, r#""throughput":{}"#),
        (r#""started":"#, r#""started":null,"x":"#),
        (r#""pass":"write""#, r#""pass":7"#),
        (r#""elapsed_ns":"#, r#""elapsed_ns":-1,"x":"#),
        (r#""elapsed_ns":"#, r#""elapsed_ns":1.5,"x":"#),
        (r#""elapsed_ns":"#, r#""elapsed_ns":"1","x":"#),
        (r#""status":"complete""#, r#""status":"exploded""#),
    ] {
        refuse_report(replace_once(&run, from, to).as_bytes());
    }
}

fn broken_files_are_refused() {
    let run = saved_single_run();
    let half = &run.as_bytes()[..run.len() / 2];
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(run.as_bytes());
    let bad_utf8 = replace_once(&run, r#""hostname":""#, "\"hostname\":\"\u{1}")
        .into_bytes()
        .into_iter()
        .map(|b| if b == 1 { 0xff } else { b })
        .collect::<Vec<u8>>();
    for bytes in [
        &b""[..],
        b"null",
        b"[]",
        b"{}",
        b"\"schema_version\"",
        half,
        &bom,
        &bad_utf8,
        format!("{run}{run}").as_bytes(),
    ] {
        refuse_report(bytes);
    }
}

// ---- well-formed runs with odd values: rendered, not refused ----

/// `ioz report` renders `run` in every format into a fresh directory: exit
/// status 0 and no panic, whatever the numbers say.
fn renders_cleanly(run: &serde_json::Value, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.json"), run.to_string()).unwrap();
    let args: Vec<OsString> = [
        "report", "run.json", "--text", "-R", "--json", "o.json", "--csv", "o.csv", "--html",
        "o.html", "--plots", "plots", "-b", "o.xlsx",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    let ended = run_ioz(dir.path(), &args);
    let context = format!("{what}\n--- stderr ---\n{}", ended.stderr);
    for sign in [
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        "memory allocation",
    ] {
        assert!(
            !ended.stderr.contains(sign),
            "{sign:?} on stderr: {context}"
        );
    }
    assert_eq!(ended.code, Some(0), "exit status: {context}");
}

fn saved(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus/report_json")
        .join(name);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn zero_and_maximal_measurements_render() {
    let max = serde_json::json!(u64::MAX);
    for (field, value) in [
        ("elapsed_ns", serde_json::json!(0)),
        ("elapsed_ns", max.clone()),
        ("records", serde_json::json!(0)),
        ("bytes", max.clone()),
        ("record_bytes", serde_json::json!(0)),
        ("file_bytes", serde_json::json!(0)),
        ("workers", serde_json::json!(0)),
    ] {
        let mut run = saved("run_single_min.json");
        for m in run["cells"][0]["measurements"].as_array_mut().unwrap() {
            m[field] = value.clone();
        }
        renders_cleanly(&run, &format!("every measurement's {field} = {value}"));
    }
}

fn degenerate_sizes_and_cells_render() {
    let mut run = saved("run_single_min.json");
    run["config"]["sizes"]["single"] =
        serde_json::json!({"file_bytes": u64::MAX, "record_bytes": 0});
    run["cells"][0]["cell"] = serde_json::json!({"file_bytes": 0, "record_bytes": 0});
    renders_cleanly(&run, "zero and maximal sizes");

    let mut run = saved("run_auto_R_min.json");
    run["cells"] = serde_json::json!([]);
    run["config"]["tests"] = serde_json::json!([]);
    renders_cleanly(&run, "an auto run with no cells and no tests");
}

fn degenerate_throughput_runs_render() {
    let mut run = saved("run_throughput_threads_min.json");
    for phase in run["throughput"].as_array_mut().unwrap() {
        phase["workers"] = serde_json::json!(0);
        phase["parent_elapsed_ns"] = serde_json::json!(0);
        for r in phase["results"].as_array_mut().unwrap() {
            r["elapsed_ns"] = serde_json::json!(0);
        }
    }
    run["config"]["throughput"]["worker_counts"] = serde_json::json!([u32::MAX]);
    renders_cleanly(&run, "zero times, u32::MAX workers");

    let mut run = saved("run_throughput_threads_min.json");
    run["throughput"][0]["results"] = serde_json::json!([]);
    run["config"]["throughput"]["worker_counts"] = serde_json::json!([]);
    renders_cleanly(&run, "a phase without results, no worker counts");
}

/// The inputs of fuzz/corpus/`target`, each with its name, at least `least`.
fn corpus(target: &str, least: usize) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= least,
        "{}: {} inputs, expected {least} or more",
        dir.display(),
        inputs.len()
    );
    inputs
}

/// Each fuzz target's check over its seed corpus: what `cargo fuzz run
/// TARGET -runs=0` replays, with the ordinary `cargo test` (cargo-fuzz
/// needs a nightly compiler). The history's commands run the real binary,
/// each in its own temporary history, with no sign of a panic on stderr.
fn every_fuzz_target_holds_over_its_corpus() {
    // Each target, the inputs its corpus holds at least, its check.
    type Target = (&'static str, usize, fn(&[u8]));
    let checks: [Target; 4] = [
        ("cli_parse", 50, cli_parse_check::check),
        ("report_json", 60, report_json_check::check),
        ("iozone_log", 15, iozone_log_check::check),
        ("client_file", 6, client_file_check::check),
    ];
    for (target, least, check) in checks {
        for (name, data) in corpus(target, least) {
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                panic!("fuzz target {target} fails on corpus/{target}/{name}");
            }
        }
    }
    for (name, data) in corpus("history_index", 9) {
        let dir = tempfile::tempdir().unwrap();
        let mut ioz = |argv: Vec<OsString>| {
            let ended = run_ioz(dir.path(), &argv[1..]);
            assert!(
                !ended.stderr.contains("panicked"),
                "history_index/{name}: ioz {argv:?}: {}",
                ended.stderr
            );
            ended.code.unwrap_or(-1)
        };
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            history_index_check::check(&data, &dir.path().join("h"), &mut ioz)
        }));
        if checked.is_err() {
            panic!("fuzz target history_index fails on corpus/history_index/{name}");
        }
    }
}
