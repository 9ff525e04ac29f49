//! Command lines ioz must refuse: exit status 2, one `ioz: ` line on stderr
//! naming the culprit, nothing on stdout, and nothing written to the disk.

mod common;

use common::{ioz, list_dir};

/// Runs a refused command line in a fresh directory and checks every promise.
fn assert_refused(args: &[&str], names: &str) {
    let dir = tempfile::tempdir().unwrap();
    let before = list_dir(dir.path());
    let run = ioz(dir.path(), args);
    let context = format!(
        "ioz {args:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(run.code, Some(2), "exit status of {context}");
    assert!(run.stdout.is_empty(), "stdout not empty: {context}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr is not one line: {context}");
    assert!(
        run.stderr.ends_with('\n'),
        "stderr line is not terminated: {context}"
    );
    assert!(
        lines[0].starts_with("ioz: "),
        "no 'ioz: ' prefix: {context}"
    );
    assert!(
        lines[0].contains(names),
        "the message does not name {names:?}: {context}"
    );
    assert_eq!(
        list_dir(dir.path()),
        before,
        "the directory changed: {context}"
    );
}

#[test]
fn zero_file_size_is_refused() {
    assert_refused(&["-s", "0"], "-s");
}

#[test]
fn bad_size_suffix_is_refused() {
    assert_refused(&["-s", "12q"], "-s");
}

#[test]
fn unknown_test_number_is_refused() {
    assert_refused(&["-i", "13"], "-i 13");
}

#[test]
fn record_larger_than_file_is_refused() {
    assert_refused(&["-r", "8m", "-s", "4m"], "-r");
}

#[test]
fn missing_value_is_refused() {
    assert_refused(&["-s"], "-s");
}

#[test]
fn negative_size_is_refused() {
    assert_refused(&["-s", "-5"], "-s");
}

#[test]
fn overflowing_size_is_refused() {
    assert_refused(&["-s", "99999999999999999999"], "-s");
}

#[test]
fn inverted_auto_range_is_refused() {
    assert_refused(&["-a", "-n", "2m", "-g", "1m"], "-n");
}

#[test]
fn telemetry_with_a_file_size_is_refused() {
    assert_refused(&["-X", "t.txt", "-s", "64k"], "-s");
}

#[test]
fn dedup_with_diagnostic_verification_is_refused() {
    assert_refused(&["-+w", "50", "-+d"], "-+w");
}

#[test]
fn unsupported_plus_option_is_refused() {
    assert_refused(&["-+z"], "-+z");
}

#[test]
fn unknown_long_option_is_refused() {
    assert_refused(&["--no-such-option"], "--no-such-option");
}

#[test]
fn unknown_short_option_is_refused() {
    assert_refused(&["-s", "64k", "-0"], "-0");
}

#[test]
fn stray_word_is_refused() {
    assert_refused(&["-s", "64k", "stray"], "stray");
}

#[test]
fn empty_command_line_is_refused() {
    assert_refused(&[], "ioz -a");
}

#[test]
fn refusal_happens_before_any_file_is_touched() {
    // A valid option followed by a bad one: nothing may be created for the first.
    assert_refused(
        &["-s", "64k", "-i", "0", "-f", "t.tmp", "-i", "99"],
        "-i 99",
    );
}
