//! fio beside ioz on the same cells, in interleaved pairs; fio's JSON read
//! through ioz's own importer (report::peers) and set against ioz's runs
//! by ioz's own compare.
//!
//! The cells, each on a file of its tool's own (sizes below):
//! - cached, psync, at 4 KiB, 64 KiB and 1 MiB records: write, read,
//!   random read, random write. ioz `-i 0 -i 1 -i 2 --engine psync`; fio
//!   one job per test with `--ioengine=psync --invalidate=0` (fio drops
//!   the file's cache before a job by default; ioz does not) and, for the
//!   write, `--fallocate=none` on a new file (IOzone's write grows a file
//!   truncated to nothing; fio would allocate it first);
//! - O_DIRECT io_uring random read and write at 4 KiB, depth 1 and 32:
//!   ioz `-I --engine io_uring --iodepth D -i 0 -i 2`; fio `--direct=1
//!   --ioengine=io_uring --iodepth=D`;
//! - four workers against `numjobs=4` (each on its own file), 64 KiB
//!   records, write and read: ioz `-t 4 -x --engine psync -i 0 -i 1`
//!   ("Children see": the sum of each worker's rate, every worker moving
//!   its whole file); fio without group_reporting, whose jobs' rates
//!   ioz's importer sums the same way.
//!
//! Each pair runs both tools on every cell, the order swapped each pair.
//! Per cell it prints the median rate of each (kB/s) and the median of the
//! pairs' ratios ioz/fio, then `ioz compare fio/ ioz/`'s text (the pairs
//! pooled as samples: a real test, and why the numbers differ). It exits 1
//! when a cell's median ratio is below 0.97: ioz slower than fio on the
//! same cell. ioz faster is not a failure here, and the compare's causes
//! say why it is (the cache fio drops, its own cost per operation).
//!
//! Run with `benches/peers.sh` (or `cargo bench --bench peers`); needs
//! fio on PATH and a file system that takes O_DIRECT. Environment:
//!   IOZ_BENCH_PAIRS     interleaved pairs [5]
//!   IOZ_BENCH_SIZE_MB   each cached cell's file, MiB [512]: fio counts a
//!                       job's runtime in whole milliseconds, so a cached
//!                       pass must last some hundreds of them
//!   IOZ_BENCH_DIRECT_MB each O_DIRECT cell's file, MiB [16]
//!   IOZ_BENCH_WORKER_MB each of the four workers' files, MiB [256]: long
//!                       enough that the workers' starts (fio's forks, ioz's
//!                       barrier) are a small part of a pass
//!   IOZ_BENCH_DIR       where the files go [target/peers-bench]
//!   IOZ_BENCH_BIN       another ioz binary to measure [this build's]

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::{env_num, ioz_binary, load_average, median};
use ioz::analysis::samples::{CellKey, SampleSet, Test, of_peer, of_run};
use ioz::model::config::OutputUnit;
use ioz::model::workload::Pass;

/// A cell's median ratio ioz/fio below this fails the benchmark.
const TARGET: f64 = 0.97;

/// One measurement setup of each tool, covering some cells.
struct Setup {
    name: String,
    /// ioz's arguments (its file and JSON added).
    ioz: Vec<String>,
    /// fio's jobs: (name, rw, extra options).
    fio: Vec<(&'static str, &'static str, Vec<String>)>,
    /// fio's options shared by its jobs.
    fio_common: Vec<String>,
    /// The cells it measures, with their names.
    cells: Vec<(String, CellKey)>,
    workers: u32,
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn key(pass: Pass, workers: Option<u32>, file: u64, record: u64) -> CellKey {
    CellKey {
        pass: Test::Pass(pass),
        workers,
        file_bytes: file,
        record_bytes: record,
    }
}

fn setups(size_mb: u64, direct_mb: u64, worker_mb: u64) -> Vec<Setup> {
    let file = size_mb << 20;
    let size = format!("{size_mb}m");
    let (direct_file, direct_size) = (direct_mb << 20, format!("{direct_mb}m"));
    let (worker_file, worker_size) = (worker_mb << 20, format!("{worker_mb}m"));
    let mut out = Vec::new();
    for (record, bytes) in [("4k", 4u64 << 10), ("64k", 64 << 10), ("1m", 1 << 20)] {
        let psync = s(&["--ioengine=psync", "--invalidate=0"]);
        out.push(Setup {
            name: format!("cached psync {record}"),
            ioz: s(&[
                "-s", &size, "-r", record, "-i", "0", "-i", "1", "-i", "2", "--engine", "psync",
            ]),
            fio: vec![
                ("write", "write", s(&["--fallocate=none"])),
                ("read", "read", Vec::new()),
                ("randread", "randread", Vec::new()),
                ("randwrite", "randwrite", Vec::new()),
            ],
            fio_common: [
                psync,
                s(&[&format!("--bs={record}"), &format!("--size={size}")]),
            ]
            .concat(),
            cells: [
                (Pass::Write, "write"),
                (Pass::Read, "read"),
                (Pass::RandomRead, "random read"),
                (Pass::RandomWrite, "random write"),
            ]
            .iter()
            .map(|(p, n)| {
                (
                    format!("cached psync {n} {record}"),
                    key(*p, None, file, bytes),
                )
            })
            .collect(),
            workers: 1,
        });
    }
    for depth in ["1", "32"] {
        out.push(Setup {
            name: format!("direct io_uring depth {depth}"),
            ioz: s(&[
                "-s",
                &direct_size,
                "-r",
                "4k",
                "-i",
                "0",
                "-i",
                "2",
                "-I",
                "--engine",
                "io_uring",
                "--iodepth",
                depth,
            ]),
            fio: vec![
                ("randread", "randread", Vec::new()),
                ("randwrite", "randwrite", Vec::new()),
            ],
            fio_common: s(&[
                "--direct=1",
                "--ioengine=io_uring",
                &format!("--iodepth={depth}"),
                "--bs=4k",
                &format!("--size={direct_size}"),
            ]),
            cells: [
                (Pass::RandomRead, "random read"),
                (Pass::RandomWrite, "random write"),
            ]
            .iter()
            .map(|(p, n)| {
                (
                    format!("O_DIRECT io_uring {n} 4k depth {depth}"),
                    key(*p, None, direct_file, 4096),
                )
            })
            .collect(),
            workers: 1,
        });
    }
    out.push(Setup {
        name: "4 workers".into(),
        ioz: s(&[
            "-t",
            "4",
            "-x",
            "-s",
            &worker_size,
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "--engine",
            "psync",
        ]),
        fio: vec![
            ("write", "write", s(&["--fallocate=none"])),
            ("read", "read", Vec::new()),
        ],
        fio_common: s(&[
            "--ioengine=psync",
            "--invalidate=0",
            "--bs=64k",
            &format!("--size={worker_size}"),
            "--numjobs=4",
        ]),
        cells: [(Pass::Write, "write"), (Pass::Read, "read")]
            .iter()
            .map(|(p, n)| {
                (
                    format!("4 workers {n} 64k"),
                    key(*p, Some(4), worker_file, 64 << 10),
                )
            })
            .collect(),
        workers: 4,
    });
    out
}

fn run(command: &mut Command, what: &str) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// One ioz run of `setup`, its JSON saved as `json`.
fn run_ioz(setup: &Setup, dir: &Path, json: &Path) {
    let base = dir.join("ioz.dat");
    run(
        Command::new(ioz_binary())
            .env("IOZ_NO_HISTORY", "1")
            .args(&setup.ioz)
            .arg("-w")
            .arg("-f")
            .arg(&base)
            .arg("--json")
            .arg(json)
            .arg("--quiet"),
        &format!("ioz {}", setup.ioz.join(" ")),
    );
}

/// fio's jobs of `setup`, one after another, each report saved apart.
fn run_fio(setup: &Setup, dir: &Path, out: &Path, pair: u64) {
    let file = dir.join("fio.dat");
    for (name, rw, extra) in &setup.fio {
        let mut c = Command::new("fio");
        c.arg(format!("--name={name}"))
            .arg(format!("--rw={rw}"))
            .args(&setup.fio_common)
            .args(extra)
            .arg("--output-format=json")
            .arg(format!(
                "--output={}",
                out.join(format!("{name}-{pair:03}.json")).display()
            ));
        if setup.workers > 1 {
            // Each job on a file of its own, as ioz's workers.
            c.arg(format!("--directory={}", dir.display()))
                .arg("--filename_format=fio4.$jobnum");
            if *rw == "write" {
                for j in 0..setup.workers {
                    let _ = std::fs::remove_file(dir.join(format!("fio4.{j}")));
                }
            }
        } else {
            c.arg(format!("--filename={}", file.display()));
            if *rw == "write" {
                // A new file, as IOzone's write truncates its own.
                let _ = std::fs::remove_file(&file);
            }
        }
        run(&mut c, &format!("fio --name={name} --rw={rw}"));
    }
}

fn slug(name: &str) -> String {
    name.replace(' ', "-")
}

/// The samples of every file of `dir`, read by ioz's own readers.
fn samples_of(dir: &Path) -> SampleSet {
    let mut set = SampleSet::new(OutputUnit::KbPerSec);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        match ioz::report::peers::detect(&text) {
            Some(format) => {
                let run = ioz::report::peers::parse(format, &text)
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                set.pool(of_peer(&run, OutputUnit::KbPerSec));
            }
            None => {
                let run = ioz::report::json::parse_run(text.as_bytes(), &f.display().to_string())
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                set.pool(of_run(&run));
            }
        }
    }
    set
}

fn main() {
    if Command::new("fio").arg("--version").output().is_err() {
        eprintln!("fio is not on PATH (Debian: apt-get install -y fio)");
        std::process::exit(2);
    }
    let pairs = env_num("IOZ_BENCH_PAIRS", 5);
    let size_mb = env_num("IOZ_BENCH_SIZE_MB", 512);
    let direct_mb = env_num("IOZ_BENCH_DIRECT_MB", 16);
    let worker_mb = env_num("IOZ_BENCH_WORKER_MB", 256);
    let dir = PathBuf::from(
        std::env::var("IOZ_BENCH_DIR").unwrap_or_else(|_| "target/peers-bench".into()),
    );
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let setups = setups(size_mb, direct_mb, worker_mb);
    let fio_version = Command::new("fio").arg("--version").output().unwrap();
    println!(
        "peers: {} beside {} ({} pairs, {size_mb} MiB files cached, {direct_mb} MiB direct, 4 × {worker_mb} MiB, in {}); load at the start {}",
        String::from_utf8_lossy(&fio_version.stdout).trim(),
        ioz_binary(),
        pairs,
        dir.display(),
        load_average()
    );
    // Each setup's files in directories of its own: a queue depth is a
    // setting, not a cell, so depth 1's and depth 32's must not pool.
    let dirs = |setup: &Setup| {
        let at = dir.join(slug(&setup.name));
        (at.join("fio"), at.join("ioz"))
    };
    for setup in &setups {
        let (f, i) = dirs(setup);
        std::fs::create_dir_all(f).unwrap();
        std::fs::create_dir_all(i).unwrap();
    }
    for pair in 0..pairs {
        for setup in &setups {
            let (f, i) = dirs(setup);
            let json = i.join(format!("{pair:03}.json"));
            if pair % 2 == 0 {
                run_fio(setup, &data, &f, pair);
                run_ioz(setup, &data, &json);
            } else {
                run_ioz(setup, &data, &json);
                run_fio(setup, &data, &f, pair);
            }
        }
        eprintln!("pair {}/{pairs} done (load {})", pair + 1, load_average());
    }
    println!(
        "\n{:<42} {:>13} {:>13} {:>8}  (kB/s medians; ratio: median of the pairs' ioz/fio)",
        "cell", "fio", "ioz", "ratio"
    );
    let mut failed = Vec::new();
    for setup in &setups {
        let (fd, id) = dirs(setup);
        let (fio, ours) = (samples_of(&fd), samples_of(&id));
        for (name, key) in &setup.cells {
            let (Some(f), Some(i)) = (fio.cells.get(key), ours.cells.get(key)) else {
                panic!(
                    "{name}: no samples (fio {:?}, ioz {:?})",
                    fio.cells.get(key),
                    ours.cells.get(key)
                );
            };
            // Pair by pair, in run order: both lists have one sample a pair.
            let ratios: Vec<f64> = i.iter().zip(f).map(|(a, b)| a / b).collect();
            let ratio = median(&ratios);
            let verdict = if ratio < TARGET { "FAIL" } else { "PASS" };
            if ratio < TARGET {
                failed.push(name.clone());
            }
            println!(
                "{name:<42} {:>13.0} {:>13.0} {ratio:>8.3}  {verdict}",
                median(f),
                median(i)
            );
        }
    }
    println!("load at the end {}", load_average());
    // ioz's own compare of each setup's pooled pairs: a real test per
    // cell, and why the numbers differ.
    for setup in &setups {
        let (fd, id) = dirs(setup);
        let out = Command::new(ioz_binary())
            .env("IOZ_NO_HISTORY", "1")
            .arg("compare")
            .arg(&fd)
            .arg(&id)
            .arg("--text")
            .output()
            .expect("ioz compare");
        println!(
            "\n== {}\n{}",
            setup.name,
            String::from_utf8_lossy(&out.stdout)
        );
        if !out.status.success() {
            eprintln!(
                "ioz compare failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::process::exit(2);
        }
    }
    let _ = std::fs::remove_dir_all(&data);
    if !failed.is_empty() {
        eprintln!(
            "peers: {} cell(s) with ioz below {TARGET} of fio: {}",
            failed.len(),
            failed.join(", ")
        );
        std::process::exit(1);
    }
}
