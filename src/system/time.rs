//! The wall-clock times a run records (when it began, for the text header
//! and the JSON) and the resolution of the monotonic clock its timings use.

use std::time::{Instant, SystemTime};

use crate::model::dates;

/// The current local time as ctime(3) writes it, without the newline.
pub fn ctime_now() -> String {
    // SAFETY: time(NULL) only returns the time.
    ctime_at(unsafe { libc::time(std::ptr::null_mut()) })
}

/// The wall-clock time `ago_ns` before now, as ctime(3) writes it (`-+T`).
pub fn ctime_ago(ago_ns: u64) -> String {
    // SAFETY: time(NULL) only returns the time.
    let now = unsafe { libc::time(std::ptr::null_mut()) };
    ctime_at(now - (ago_ns / 1_000_000_000) as libc::time_t)
}

/// A Unix time as ctime(3) writes it, local time, without the newline.
fn ctime_at(when: libc::time_t) -> String {
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into a buffer of 64.
    unsafe {
        if libc::ctime_r(&when, buf.as_mut_ptr()).is_null() {
            return String::from("unknown");
        }
        std::ffi::CStr::from_ptr(buf.as_ptr())
            .to_string_lossy()
            .trim_end()
            .to_string()
    }
}

/// The current time as RFC 3339 in UTC, e.g. 2026-11-21T21:05:03Z.
pub fn utc_now_rfc3339() -> String {
    dates::from_system_time(SystemTime::now())
}

/// Whether the kernel keeps time with the CPU's time-stamp counter (its
/// clocksource is `tsc`, which it only keeps when the counter is invariant
/// and synchronised across CPUs): then ioz may time single operations with
/// it (engine::clock::Tsc). Any doubt (another clocksource, no sysfs) is no.
pub fn tsc_is_the_clocksource() -> bool {
    std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .is_ok_and(|s| s.trim() == "tsc")
}

/// The smallest non-zero step of the monotonic clock the timings use.
pub fn clock_resolution_ns() -> u64 {
    let mut best = u64::MAX;
    for _ in 0..1000 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        best = best.min((b - a).as_nanos() as u64);
    }
    best
}
