//! A history whose index holds any bytes, through ioz's own entry point
//! (the check: checks/history_index.rs).
//!
//! Every command prints: run with libFuzzer's `-close_fd_mask=3`.

#![no_main]

#[path = "../checks/history_index.rs"]
mod check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("ioz-fuzz-history-{}", std::process::id()));
    check::check(data, &dir, &mut ioz::app::main_with_args);
});
