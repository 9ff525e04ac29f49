//! The facts about this machine that the command line needs ([`Host`]),
//! and where a host name leads ([`place_of`]).

use std::io;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

use crate::model::host::Host;

/// Where a host name (of a `-+m` client file) leads.
#[derive(Debug)]
pub enum HostPlace {
    /// One of this machine's own addresses.
    ThisMachine,
    Elsewhere,
    /// The resolver knows no address for it.
    Unresolved(io::Error),
}

/// Resolves `host` as the launcher will, and tells whether it is this
/// machine: a loopback address, or one a socket can be bound to here.
pub fn place_of(host: &str) -> HostPlace {
    let addresses: Vec<SocketAddr> = match (host, 0).to_socket_addrs() {
        Ok(a) => a.collect(),
        Err(e) => return HostPlace::Unresolved(e),
    };
    if addresses.is_empty() {
        return HostPlace::Unresolved(io::Error::other("no address"));
    }
    let here = |a: &SocketAddr| a.ip().is_loopback() || UdpSocket::bind((a.ip(), 0)).is_ok();
    if addresses.iter().any(here) {
        HostPlace::ThisMachine
    } else {
        HostPlace::Elsewhere
    }
}

/// This process's peak resident memory (VmHWM), in KiB; 0 if unknown.
#[cfg_attr(
    not(feature = "mpi"),
    expect(
        dead_code,
        reason = "a cluster job's record (app/cluster/job_record.rs)"
    )
)]
pub fn peak_resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

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
