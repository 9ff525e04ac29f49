//! Command lines ioz must refuse: exit status 2, one `ioz: ` line on stderr
//! naming the culprit, nothing on stdout, and nothing written to the disk.

use crate::fixtures::{self, Test, ioz, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        zero_file_size_is_refused,
        bad_size_suffix_is_refused,
        unknown_test_number_is_refused,
        record_larger_than_file_is_refused,
        missing_value_is_refused,
        negative_size_is_refused,
        overflowing_size_is_refused,
        inverted_auto_range_is_refused,
        telemetry_with_a_file_size_is_refused,
        dedup_with_diagnostic_verification_is_refused,
        unsupported_plus_option_is_refused,
        unknown_long_option_is_refused,
        unknown_short_option_is_refused,
        stray_word_is_refused,
        empty_command_line_is_refused,
        refusal_happens_before_any_file_is_touched,
    ]
}

/// Runs a refused command line in a fresh directory and checks every promise
/// (see [`fixtures::assert_refused`]).
fn assert_refused(args: &[&str], names: &str) {
    let dir = tempfile::tempdir().unwrap();
    fixtures::assert_refused(&ioz(dir.path(), args), names);
}

fn zero_file_size_is_refused() {
    assert_refused(&["-s", "0"], "-s");
}

fn bad_size_suffix_is_refused() {
    assert_refused(&["-s", "12q"], "-s");
}

fn unknown_test_number_is_refused() {
    assert_refused(&["-i", "13"], "-i 13");
}

fn record_larger_than_file_is_refused() {
    assert_refused(&["-r", "8m", "-s", "4m"], "-r");
}

fn missing_value_is_refused() {
    assert_refused(&["-s"], "-s");
}

fn negative_size_is_refused() {
    assert_refused(&["-s", "-5"], "-s");
}

fn overflowing_size_is_refused() {
    assert_refused(&["-s", "99999999999999999999"], "-s");
}

fn inverted_auto_range_is_refused() {
    assert_refused(&["-a", "-n", "2m", "-g", "1m"], "-n");
}

fn telemetry_with_a_file_size_is_refused() {
    assert_refused(&["-X", "t.txt", "-s", "64k"], "-s");
}

fn dedup_with_diagnostic_verification_is_refused() {
    assert_refused(&["-+w", "50", "-+d"], "-+w");
}

fn unsupported_plus_option_is_refused() {
    assert_refused(&["-+U"], "-+U");
}

fn unknown_long_option_is_refused() {
    assert_refused(&["--no-such-option"], "--no-such-option");
}

fn unknown_short_option_is_refused() {
    assert_refused(&["-s", "64k", "-0"], "-0");
}

fn stray_word_is_refused() {
    assert_refused(&["-s", "64k", "stray"], "stray");
}

fn empty_command_line_is_refused() {
    assert_refused(&[], "ioz -a");
}

fn refusal_happens_before_any_file_is_touched() {
    // A valid option followed by a bad one: nothing may be created for the first.
    assert_refused(
        &["-s", "64k", "-i", "0", "-f", "t.tmp", "-i", "99"],
        "-i 99",
    );
}
