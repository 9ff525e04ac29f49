//! IOzone's text output read back (`ioz compare LOG`, `ioz history
//! import LOG`): any bytes are samples or a one-line refusal, never a
//! panic; and every sample kept is a usable rate (finite, 0 or more: a NaN
//! or a negative one once compared as "shares no cell").

use ioz::report::iozone_log::{looks_like_iozone, parse};

/// One input of the fuzz target (fuzz_targets/iozone_log.rs), and of the
/// test over its corpus (tests/e2e/fuzz_corpora.rs).
pub fn check(data: &[u8]) {
    // ioz reads a log as UTF-8 text; the reader itself takes any text.
    let text = String::from_utf8_lossy(data);
    let _ = looks_like_iozone(&text);
    match parse(&text) {
        Ok(log) => {
            for values in log.samples.cells.values() {
                for v in values {
                    assert!(v.is_finite() && *v >= 0.0, "an unusable rate kept: {v}");
                }
            }
        }
        Err(e) => assert!(!e.to_string().contains('\n'), "multi-line error: {e}"),
    }
}
