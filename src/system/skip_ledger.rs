//! Test code only: a unit test that cannot run (all or part of it) on this
//! machine says so, so that it is counted as skipped, never as passed.

/// Records that the running test could not run (all or part of it) here:
/// "test: reason" on a line of the file IOZ_SKIP_LEDGER names, which
/// .ci/run counts as skipped rather than passed, and the same on stderr.
pub(crate) fn skipped(reason: &str) {
    let test = std::thread::current().name().unwrap_or("?").to_string();
    eprintln!("skipped {test}: {reason}");
    if let Some(ledger) = std::env::var_os("IOZ_SKIP_LEDGER") {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(ledger)
            .expect("cannot open the skip ledger");
        writeln!(f, "{test}: {reason}").expect("cannot write the skip ledger");
    }
}
