//! The IOzone-grammar parser: any argv, however odd, is a command or a
//! usage error, never a panic.
//!
//! The input is split on NUL and newline bytes into words (non-UTF-8 words
//! included); "ioz" is argv[0].

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

/// One input of the fuzz target (fuzz_targets/cli_parse.rs), and of the
/// test over its corpus (tests/e2e/fuzz_corpora.rs).
pub fn check(data: &[u8]) {
    let argv: Vec<OsString> = std::iter::once(OsString::from("ioz"))
        .chain(
            data.split(|b| *b == 0 || *b == b'\n')
                .map(|w| OsString::from_vec(w.to_vec())),
        )
        .collect();
    if let Err(e) = ioz::cli::parse(argv, &ioz::model::host::Host::example()) {
        // The message is one line, as `ioz: {e}` prints it.
        assert!(!e.to_string().contains('\n'), "multi-line usage error: {e}");
    }
}
