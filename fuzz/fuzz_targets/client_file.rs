//! The `-+m` client file's reader (the check: checks/client_file.rs).

#![no_main]

#[path = "../checks/client_file.rs"]
mod check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check::check(data));
