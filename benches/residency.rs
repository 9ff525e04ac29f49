//! What measuring the page cache costs a run: `ioz -a -g 64m` timed whole
//! (wall time, process start to exit) with residency (one cachestat or
//! mincore before and after each pass, outside the clock) and without it
//! (`IOZ_RESIDENCY=off`), in interleaved pairs on one file.
//!
//! Target: the median of the pairs' ratios (with / without) at most 1.01;
//! the benchmark prints each pair and the median, and exits 1 when it
//! misses.
//!
//! Run with `cargo bench --bench residency` (or `benches/residency.sh`).
//! Environment (all optional):
//!   IOZ_BENCH_PAIRS  pairs of runs [5]
//!   IOZ_BENCH_ARGS   the run's options ["-a -g 64m"]
//!   IOZ_BENCH_DIR    where the file goes [a temporary directory]
//!   IOZ_BENCH_BIN    another ioz binary to measure instead of this build's

use std::path::Path;
use std::process::Command;
use std::time::Instant;

mod common;

use common::{env_num, ioz_binary, load_average, median};

/// Most the median ratio may be.
const TARGET: f64 = 1.01;

/// One run's wall time, seconds.
fn run(dir: &Path, args: &[String], off: bool) -> f64 {
    let mut cmd = Command::new(ioz_binary());
    cmd.args(args)
        .args(["-f", dir.join("res.tmp").to_str().unwrap()])
        .env("IOZ_NO_HISTORY", "1")
        .current_dir(dir);
    if off {
        cmd.env("IOZ_RESIDENCY", "off");
    } else {
        cmd.env_remove("IOZ_RESIDENCY");
    }
    let t = Instant::now();
    let out = cmd.output().expect("cannot start ioz");
    let secs = t.elapsed().as_secs_f64();
    if !out.status.success() {
        eprintln!("ioz failed: {}", String::from_utf8_lossy(&out.stderr));
        std::process::exit(2);
    }
    secs
}

fn main() {
    let pairs = env_num("IOZ_BENCH_PAIRS", 5);
    let args: Vec<String> = std::env::var("IOZ_BENCH_ARGS")
        .unwrap_or_else(|_| "-a -g 64m".into())
        .split_whitespace()
        .map(String::from)
        .collect();
    let temp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("IOZ_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| temp.path().to_path_buf());
    println!(
        "ioz {} with residency and without (IOZ_RESIDENCY=off), {pairs} pairs; load {}",
        args.join(" "),
        load_average()
    );
    let mut ratios = Vec::new();
    for i in 0..pairs {
        // Alternate which goes first, so neither always finds the other's cache.
        let (with, without) = if i % 2 == 0 {
            let w = run(&dir, &args, false);
            (w, run(&dir, &args, true))
        } else {
            let o = run(&dir, &args, true);
            (run(&dir, &args, false), o)
        };
        let ratio = with / without;
        println!(
            "  pair {}: with {with:.3} s, without {without:.3} s, ratio {ratio:.4}",
            i + 1
        );
        ratios.push(ratio);
    }
    let m = median(&ratios);
    let verdict = if m <= TARGET { "met" } else { "MISSED" };
    println!("median ratio {m:.4} (target <= {TARGET}): {verdict}");
    if m > TARGET {
        std::process::exit(1);
    }
}
