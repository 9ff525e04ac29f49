//! What the benchmarks that compare ioz with bare loops share: the
//! environment's numbers, the clock of a pass, the median and the load.

#![allow(dead_code, reason = "each benchmark uses its part of this module")]

use ioz::model::workload::Pass;

/// The ioz measured: this build's, or IOZ_BENCH_BIN's (another build, to
/// hold it to the same figures on the same machine at the same hour). A
/// path that is no file is refused in one line, with exit 2, before
/// anything runs.
pub fn ioz_binary() -> &'static str {
    static BINARY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BINARY.get_or_init(|| {
        let Some(other) = std::env::var_os("IOZ_BENCH_BIN") else {
            return env!("CARGO_BIN_EXE_ioz").to_owned();
        };
        let other = other.to_string_lossy().into_owned();
        if !std::path::Path::new(&other).is_file() {
            eprintln!("IOZ_BENCH_BIN={other}: no such file");
            std::process::exit(2);
        }
        other
    })
}

/// A positive whole number from the environment variable `name`, or `default`.
pub fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => panic!("{name}={v:?}: expected a positive integer"),
        },
        Err(_) => default,
    }
}

/// User+system CPU time of this process, ns (as ioz measures a pass).
pub fn cpu_now_ns() -> u64 {
    // SAFETY: rusage is plain data, filled by the call.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the live struct.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    ns(u.ru_utime) + ns(u.ru_stime)
}

/// A bare loop's system call failed: the benchmark cannot go on.
#[cold]
#[inline(never)]
pub fn fail(what: &str, ret: isize) -> ! {
    panic!(
        "bare {what} returned {ret}: {}",
        std::io::Error::last_os_error()
    )
}

/// The median of `v` (the mean of the middle two when their count is even).
pub fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

/// The `q` quantile of `v` (0 ≤ q ≤ 1), interpolated between the two
/// nearest ranks (R's type 7, what numpy and spreadsheets give).
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let at = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (below, above) = (at.floor() as usize, at.ceil() as usize);
    s[below] + (s[above] - s[below]) * (at - below as f64)
}

/// The load averages (1, 5, 15 minutes), as the table's caption shows them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The pass's name in ioz's JSON (model::workload::Pass, as serde writes it).
pub fn json_name(pass: Pass) -> String {
    serde_json::to_value(pass)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .expect("a pass serialises as its name")
}

/// Which time a rate is measured over.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// The pass's elapsed time (what ioz reports).
    Wall,
    /// The pass's user+system CPU time (getrusage, RUSAGE_SELF).
    Cpu,
}

impl Clock {
    /// IOZ_BENCH_CLOCK: `wall` (the default) or `cpu`.
    pub fn from_env() -> Clock {
        match std::env::var("IOZ_BENCH_CLOCK").as_deref() {
            Ok("cpu") => Clock::Cpu,
            Ok("wall") | Err(_) => Clock::Wall,
            Ok(other) => panic!("IOZ_BENCH_CLOCK={other:?}: expected wall or cpu"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::Cpu => "cpu",
        }
    }
}

/// One measured pass: bytes over a time.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub bytes: u64,
    pub wall_ns: u64,
    pub cpu_ns: u64,
}

impl Timing {
    pub fn rate(&self, clock: Clock) -> f64 {
        let ns = match clock {
            Clock::Wall => self.wall_ns,
            Clock::Cpu => self.cpu_ns,
        };
        self.bytes as f64 / ns.max(1) as f64
    }
}

/// Runs `ioz` (its `--json` going to `json`) and returns the measurements
/// of its one cell; a failed run ends the benchmark with ioz's stderr.
pub fn cell_measurements(
    ioz: &mut std::process::Command,
    json: &std::path::Path,
) -> Vec<serde_json::Value> {
    let out = ioz.output().expect("cannot start ioz");
    assert!(
        out.status.success(),
        "ioz failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    saved["cells"][0]["measurements"]
        .as_array()
        .unwrap()
        .clone()
}

/// The measurement of the pass named `name` (its JSON name) among
/// `measurements`, with its time in ns (the elapsed or, with `cpu`, the CPU
/// time; at least 1) and its operations.
pub fn pass_time<'a>(
    measurements: &'a [serde_json::Value],
    name: &str,
    cpu: bool,
) -> (&'a serde_json::Value, u64, u64) {
    let m = measurements
        .iter()
        .find(|m| m["pass"] == *name)
        .unwrap_or_else(|| panic!("no {name} pass"));
    let ns = |k: &str| m[k].as_u64().unwrap();
    let time = if cpu {
        ns("cpu_user_ns") + ns("cpu_system_ns")
    } else {
        ns("elapsed_ns")
    };
    (m, time.max(1), ns("records"))
}
