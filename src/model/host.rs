//! What the command line needs to know about the machine it runs on. The
//! system layer reads it (`system::host`) before the arguments are parsed, so
//! that the parser reads nothing itself and can be tested with any machine.

/// Facts about this machine that options depend on.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    /// `uname -snrvm`, for `-M`'s header line.
    pub machine: String,
    /// The granularity of the CPU times `-+u` reports, in seconds.
    pub cpu_clock_resolution_s: f64,
    /// Whether ioz runs as root (`--drop-caches=all` writes a root-only file).
    pub root: bool,
    /// CPUs ioz may run on (`-P` names one of them).
    pub cpus: usize,
}

impl Host {
    /// A machine for tests: 4 CPUs, not root.
    pub fn example() -> Host {
        Host {
            machine: "Linux example 6.1.0 #1 SMP x86_64".into(),
            cpu_clock_resolution_s: 0.000_001,
            root: false,
            cpus: 4,
        }
    }
}
