//! The IOzone-grammar parser (the check: checks/cli_parse.rs).

#![no_main]

#[path = "../checks/cli_parse.rs"]
mod check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check::check(data));
