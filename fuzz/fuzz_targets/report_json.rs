//! The JSON reader behind `ioz report` and every renderer (the check:
//! checks/report_json.rs).

#![no_main]

#[path = "../checks/report_json.rs"]
mod check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check::check(data));
