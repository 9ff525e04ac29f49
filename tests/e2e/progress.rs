//! The progress bar shows only on a terminal: with stderr redirected, a run
//! writes nothing there.

use crate::fixtures::ioz;

use crate::fixtures::{Test, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![no_progress_output_when_stderr_is_not_a_terminal,]
}

fn no_progress_output_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-f", "t.tmp"],
    );
    run.expect_code(0);
    // Only the one-line page-cache warning; no bar, no carriage returns.
    assert!(
        run.stderr.lines().all(|l| l.starts_with("ioz: warning:")),
        "{:?}",
        run.stderr
    );
    assert!(!run.stderr.contains('\r') && !run.stderr.contains("ETA"));
    let quiet = ioz(
        dir.path(),
        &["-s", "1m", "-r", "64k", "-i", "0", "--quiet", "-f", "t.tmp"],
    );
    quiet.expect_code(0);
    assert_eq!(quiet.stderr, "", "--quiet hides the warning too");
    assert!(run.stdout.contains("ioz test complete."));
}
