//! What `--latency` costs: the release `ioz` binary with and without it on
//! one cached file, in interleaved pairs (the order swapped every pair, so
//! drift of the machine falls on both sides alike), for the write, read and
//! random read passes at 4 KiB records. Each pair's ratio is the rate with
//! `--latency` over the rate without (1.0 is free); the cost per operation
//! is the difference of the passes' times over their operations, in ns.
//!
//! Target: every median ratio >= 0.95; the benchmark prints a table and
//! exits 1 when one misses. Before the pairs, a small run with `--latency`
//! and `-Q` checks every percentile of the histogram against the sorted
//! `-Q` latencies of the same operations (within the histogram's 0.8 %
//! plus -Q's rounding to whole µs).
//!
//! It also prints what a clock read and a histogram record cost in this
//! process, without I/O: the floor of the cost per operation.
//!
//! Run with `cargo bench --bench latency`. Environment (all optional):
//! - IOZ_BENCH_SIZE_MB: the file, in MiB (default 256);
//! - IOZ_BENCH_PAIRS: pairs (default 8: as many of each order);
//! - IOZ_BENCH_CLOCK: `wall` (default: the pass's elapsed time, as ioz
//!   reports it) or `cpu` (the pass's user+system CPU time: steadier on a
//!   busy machine, where other processes take the CPU away mid-pass);
//! - IOZ_BENCH_DIR: where the file goes (default: the current directory);
//! - IOZ_BENCH_BIN: another ioz binary to measure instead of this build's.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;

use common::{cell_measurements, env_num, ioz_binary, median, pass_time};

const TARGET: f64 = 0.95;
/// The passes compared, by their JSON names.
const PASSES: [&str; 3] = ["write", "read", "random_read"];

/// One ioz run: each compared pass's (time in ns, operations), the time
/// being the elapsed or, with `cpu`, the CPU time of the pass.
fn run(dir: &Path, size_mb: u64, latency: bool, cpu: bool) -> Vec<(u64, u64)> {
    let json = dir.join("bench-latency.json");
    let size = format!("{size_mb}m");
    let mut cmd = Command::new(ioz_binary());
    cmd.args([
        "-s", &size, "-r", "4k", "-i", "0", "-i", "1", "-i", "2", "-+n",
    ])
    .args(["--quiet", "-w", "-f"])
    .arg(dir.join("bench-latency.tmp"))
    .arg("--json")
    .arg(&json)
    .args(["--force"]);
    if latency {
        cmd.arg("--latency");
    }
    let measurements = cell_measurements(&mut cmd, &json);
    PASSES
        .iter()
        .map(|name| {
            let (_, time, records) = pass_time(&measurements, name, cpu);
            (time, records)
        })
        .collect()
}

/// The histogram's percentiles against the sorted -Q latencies of one run.
fn check_against_raw_latencies(dir: &Path) {
    let sub = dir.join("bench-latency-check");
    let _ = std::fs::remove_dir_all(&sub);
    std::fs::create_dir_all(&sub).unwrap();
    let out = Command::new(ioz_binary())
        .args([
            "-s",
            "8m",
            "-r",
            "64k",
            "-i",
            "0",
            "-+n",
            "-Q",
            "--latency",
            "--quiet",
        ])
        .args([
            "--percentiles",
            "1,10,50,90,99,100",
            "-f",
            "t.tmp",
            "--json",
            "r.json",
        ])
        .current_dir(&sub)
        .output()
        .expect("cannot start ioz");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved: Value = serde_json::from_slice(&std::fs::read(sub.join("r.json")).unwrap()).unwrap();
    let latency = &saved["cells"][0]["measurements"][0]["latency"];
    let q = std::fs::read_to_string(sub.join("wol.dat")).unwrap();
    let mut raw_us: Vec<f64> = q
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3).then(|| f[1].parse().ok()).flatten()
        })
        .collect();
    raw_us.sort_by(f64::total_cmp);
    assert_eq!(raw_us.len() as u64, latency["count"].as_u64().unwrap());
    for p in latency["percentiles"].as_array().unwrap() {
        let percent = p["percent"].as_f64().unwrap();
        let got_us = p["ns"].as_f64().unwrap() / 1000.0;
        let rank = ((percent / 100.0 * raw_us.len() as f64).ceil() as usize).clamp(1, raw_us.len());
        let exact = raw_us[rank - 1];
        let allowed = exact * 0.008 + 0.5;
        assert!(
            (got_us - exact).abs() <= allowed,
            "p{percent}: histogram {got_us:.3} µs, -Q {exact} µs"
        );
    }
    println!(
        "histogram check: {} operations, every percentile within 0.8 % (+0.5 µs of -Q's rounding) of the sorted -Q list",
        raw_us.len()
    );
    let _ = std::fs::remove_dir_all(&sub);
}

/// What `--latency` adds to each operation, measured in this process
/// without I/O: one clock read (the TSC where the kernel's clocksource is
/// `tsc`, else clock_gettime) and one histogram record. A floor for the
/// pairs' cost per operation, steady on a busy machine.
fn per_operation_floor() {
    use ioz::model::histogram::LatencyHistogram;
    use std::hint::black_box;
    const N: u64 = 5_000_000;
    let time = |f: &mut dyn FnMut(u64)| {
        let t = std::time::Instant::now();
        for i in 0..N {
            f(i);
        }
        t.elapsed().as_nanos() as f64 / N as f64
    };
    let mut h = LatencyHistogram::new();
    let record = time(&mut |i| h.record(black_box(1000 + (i & 0xffff))));
    black_box(&h);
    let gettime = time(&mut |_| {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the timespec we own.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        black_box(ts);
    });
    #[cfg(target_arch = "x86_64")]
    let tsc = time(&mut |_| {
        // SAFETY: rdtsc only reads the time-stamp counter.
        black_box(unsafe { core::arch::x86_64::_rdtsc() });
    });
    #[cfg(not(target_arch = "x86_64"))]
    let tsc = f64::NAN;
    println!(
        "per operation, no I/O: histogram record {record:.1} ns, clock_gettime {gettime:.1} ns, rdtsc {tsc:.1} ns"
    );
}

fn main() {
    // `cargo bench` passes --bench; a filter argument other than ours skips us.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with("--") && a != "latency")
    {
        return;
    }
    // Refused before anything runs when IOZ_BENCH_BIN names no file.
    ioz_binary();
    let size_mb = env_num("IOZ_BENCH_SIZE_MB", 256);
    let pairs = env_num("IOZ_BENCH_PAIRS", 8).max(1);
    let cpu = std::env::var("IOZ_BENCH_CLOCK").is_ok_and(|c| c == "cpu");
    let dir = std::env::var_os("IOZ_BENCH_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
    check_against_raw_latencies(&dir);
    per_operation_floor();

    let mut ratios = vec![Vec::new(); PASSES.len()];
    let mut cost_ns = vec![Vec::new(); PASSES.len()];
    run(&dir, size_mb, false, cpu); // warm the page cache
    for pair in 0..pairs {
        let (without, with) = if pair % 2 == 0 {
            let a = run(&dir, size_mb, false, cpu);
            (a, run(&dir, size_mb, true, cpu))
        } else {
            let b = run(&dir, size_mb, true, cpu);
            (run(&dir, size_mb, false, cpu), b)
        };
        for k in 0..PASSES.len() {
            let ((t0, ops), (t1, _)) = (without[k], with[k]);
            ratios[k].push(t0 as f64 / t1 as f64);
            cost_ns[k].push((t1 as f64 - t0 as f64) / ops as f64);
        }
    }
    let _ = std::fs::remove_file(dir.join("bench-latency.tmp"));
    let _ = std::fs::remove_file(dir.join("bench-latency.json"));

    let clock = if cpu { "CPU time" } else { "elapsed time" };
    println!(
        "--latency against without, {size_mb} MiB cached file, 4 KiB records, {pairs} pairs, {clock}"
    );
    println!(
        "{:<12} {:>14} {:>18}",
        "pass", "median ratio", "median ns per op"
    );
    let mut missed = false;
    for (k, name) in PASSES.iter().enumerate() {
        let ratio = median(&ratios[k]);
        let cost = median(&cost_ns[k]);
        let mark = if ratio < TARGET {
            missed = true;
            "  < target"
        } else {
            ""
        };
        println!("{name:<12} {ratio:>14.3} {cost:>18.1}{mark}");
    }
    if missed {
        println!("target: every median ratio >= {TARGET}");
        std::process::exit(1);
    }
}
