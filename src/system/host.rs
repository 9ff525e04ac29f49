//! The facts about this machine that the command line needs ([`Host`]).

use crate::model::host::Host;

/// Reads them (never fails: what cannot be read gets a stated fallback).
pub fn facts() -> Host {
    Host {
        machine: machine_description(),
        cpu_clock_resolution_s: cpu_clock_resolution(),
        root: nix::unistd::geteuid().is_root(),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// The granularity of getrusage's CPU times, in seconds (1 ms if unknown).
fn cpu_clock_resolution() -> f64 {
    match nix::time::clock_getres(nix::time::ClockId::CLOCK_PROCESS_CPUTIME_ID) {
        Ok(ts) => ts.tv_sec() as f64 + ts.tv_nsec() as f64 / 1e9,
        Err(_) => 0.001,
    }
}

fn machine_description() -> String {
    match nix::sys::utsname::uname() {
        Ok(u) => format!(
            "{} {} {} {} {}",
            u.sysname().to_string_lossy(),
            u.nodename().to_string_lossy(),
            u.release().to_string_lossy(),
            u.version().to_string_lossy(),
            u.machine().to_string_lossy()
        ),
        Err(e) => format!("unknown ({e})"),
    }
}
