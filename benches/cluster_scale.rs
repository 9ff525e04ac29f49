//! Cluster mode as the job grows: 8, 16, 32, 64 and 128 ranks on this
//! machine (oversubscribed) in every mode (throughput, single, auto, ioz
//! mdtest), each run's wall time and what its JSON's `job` says: rank 0's
//! and the largest rank's peak RSS, the bytes the ranks moved in gathers,
//! reductions and broadcasts, and the messages (the stonewall's stops per
//! phase). A straight line fitted to each figure over the rank counts is
//! extended to 1,000 and 10,000 ranks (docs/measuring-ioz.md's table).
//!
//! Targets (the benchmark exits 1 when one is missed): the largest rank's
//! peak RSS at 64 ranks at most 30 MiB (IOR's ranks stay at 14–15 MB; a
//! rank once faulted in every local peer's Open MPI segment, 336 MB at 64),
//! and at most 2(R−1) stop messages a phase (once up to R(R−1)).
//!
//! It needs Open MPI's mpirun and ioz built with MPI: `benches/cluster_scale.sh`
//! builds `--release --features mpi` and names it in IOZ_BENCH_BIN.
//! Environment (defaults in brackets):
//!   IOZ_BENCH_BIN        the MPI build of ioz [required]
//!   IOZ_BENCH_RANKS      the largest rank count [128]
//!   IOZ_BENCH_DIR        where the files go [a temporary directory]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

mod common;

use common::{env_num, ioz_binary, load_average};

/// The rank counts measured.
const RANKS: [u64; 5] = [8, 16, 32, 64, 128];
/// Where the fit is extended to.
const EXTENDED: [f64; 2] = [1_000.0, 10_000.0];
/// The largest rank's peak RSS at 64 ranks may be this much.
const RSS_TARGET_KIB: u64 = 30 * 1024;

/// A mode: its name, its phases (or cells), its command line for R ranks.
struct Mode {
    name: &'static str,
    phases: u64,
    args: fn(u64, &Path) -> Vec<String>,
}

const MODES: [Mode; 4] = [
    Mode {
        name: "throughput",
        // write, rewrite, read, reread
        phases: 4,
        args: |r, _| words(&format!("-t {r} -s 1m -r 64k -i 0 -i 1")),
    },
    Mode {
        name: "single",
        phases: 1,
        args: |_, _| words("-s 256k -r 64k -i 0 -i 1"),
    },
    Mode {
        name: "auto",
        // file sizes 64k..256k by records 64k..256k (rec <= file): 6 cells
        phases: 6,
        args: |_, _| words("-a -n 64k -g 256k -y 64k -q 256k -i 0 -i 1"),
    },
    Mode {
        name: "mdtest",
        // tree creation, file creation, stat, read, removal, tree removal
        phases: 6,
        args: |_, d| {
            let mut a = words("mdtest -n 8 -F -d");
            a.push(d.join("md").display().to_string());
            a
        },
    },
];

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// One run's figures.
#[derive(Clone, Copy, Default)]
struct Figures {
    wall_s: f64,
    rank_0_kib: f64,
    largest_kib: f64,
    gathered: f64,
    reduced: f64,
    broadcast: f64,
    messages: f64,
    stops_per_phase: f64,
}

impl Figures {
    const NAMES: [&'static str; 8] = [
        "wall s",
        "rank 0 RSS MiB",
        "largest RSS MiB",
        "gathered KB",
        "reduced KB",
        "broadcast KB",
        "messages",
        "stops/phase",
    ];

    fn values(&self) -> [f64; 8] {
        [
            self.wall_s,
            self.rank_0_kib / 1024.0,
            self.largest_kib / 1024.0,
            self.gathered / 1000.0,
            self.reduced / 1000.0,
            self.broadcast / 1000.0,
            self.messages,
            self.stops_per_phase,
        ]
    }
}

fn measure(mode: &Mode, ranks: u64, dir: &Path) -> Figures {
    let json = dir.join(format!("{}-{ranks}.json", mode.name));
    let _ = std::fs::remove_file(&json);
    // ioz mdtest's -d: its tree goes under it.
    let _ = std::fs::create_dir_all(dir.join("md"));
    let mut command = Command::new("mpirun");
    command
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "--bind-to",
            "none",
        ])
        .args(["--mca", "mpi_yield_when_idle", "1", "--timeout", "900"])
        .args(["-np", &ranks.to_string(), ioz_binary()])
        .args((mode.args)(ranks, dir))
        .arg("--json")
        .arg(&json)
        .env("IOZ_NO_HISTORY", "1")
        .current_dir(dir);
    let started = Instant::now();
    let out = command.output().expect("cannot run mpirun");
    let wall_s = started.elapsed().as_secs_f64();
    if !out.status.success() {
        eprintln!(
            "{} with {ranks} ranks failed ({}):\n{}",
            mode.name,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        std::process::exit(1);
    }
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the run's JSON"))
            .expect("JSON");
    let job = &saved["job"];
    let n = |v: &Value| v.as_u64().unwrap_or(0) as f64;
    let t = &job["traffic"];
    Figures {
        wall_s,
        rank_0_kib: n(&job["memory"]["rank_0_kib"]),
        largest_kib: n(&job["memory"]["largest_kib"]),
        gathered: n(&t["gathered_bytes"]),
        reduced: n(&t["reduced_bytes"]),
        broadcast: n(&t["broadcast_bytes"]),
        messages: n(&t["messages"]),
        stops_per_phase: n(&t["stop_messages"]) / mode.phases as f64,
    }
}

/// The least-squares line `a + b·x` through the points.
fn fit(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - b * mx, b)
}

fn main() {
    if std::env::var_os("IOZ_BENCH_BIN").is_none() {
        eprintln!("IOZ_BENCH_BIN: name ioz built with --features mpi (benches/cluster_scale.sh)");
        std::process::exit(2);
    }
    let largest = env_num("IOZ_BENCH_RANKS", 128);
    let ranks: Vec<u64> = RANKS.iter().copied().filter(|&r| r <= largest).collect();
    let temp = tempfile::tempdir().expect("a temporary directory");
    let dir: PathBuf =
        std::env::var_os("IOZ_BENCH_DIR").map_or_else(|| temp.path().into(), PathBuf::from);
    println!(
        "cluster_scale: {} on this machine ({} CPUs), load {}",
        ioz_binary(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_average()
    );
    let mut missed = Vec::new();
    for mode in &MODES {
        println!("\n{}: {} phase(s) or cell(s)", mode.name, mode.phases);
        print!("{:>6}", "ranks");
        for name in Figures::NAMES {
            print!(" {name:>16}");
        }
        println!();
        let mut rows = Vec::new();
        for &r in &ranks {
            let f = measure(mode, r, &dir);
            print!("{r:>6}");
            for v in f.values() {
                print!(" {v:>16.2}");
            }
            println!();
            if r == 64 && f.largest_kib as u64 > RSS_TARGET_KIB {
                missed.push(format!(
                    "{}: the largest rank's peak RSS at 64 ranks {:.1} MiB > 30 MiB",
                    mode.name,
                    f.largest_kib / 1024.0
                ));
            }
            if f.stops_per_phase > 2.0 * (r - 1) as f64 {
                missed.push(format!(
                    "{}: {:.1} stop messages a phase at {r} ranks > 2(R-1)",
                    mode.name, f.stops_per_phase
                ));
            }
            rows.push(f);
        }
        let xs: Vec<f64> = ranks.iter().map(|&r| r as f64).collect();
        for (i, name) in Figures::NAMES.iter().enumerate() {
            let ys: Vec<f64> = rows.iter().map(|f| f.values()[i]).collect();
            let (a, b) = fit(&xs, &ys);
            let at: Vec<String> = EXTENDED
                .iter()
                .map(|&x| format!("{:.1} at {x}", a + b * x))
                .collect();
            println!(
                "  fit {name:>16}: {a:.3} + {b:.5} per rank -> {}",
                at.join(", ")
            );
        }
    }
    println!("\nload {} at the end", load_average());
    if !missed.is_empty() {
        for m in &missed {
            println!("MISSED: {m}");
        }
        std::process::exit(1);
    }
}
