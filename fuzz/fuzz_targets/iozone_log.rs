//! IOzone's text output read back (the check: checks/iozone_log.rs).

#![no_main]

#[path = "../checks/iozone_log.rs"]
mod check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check::check(data));
