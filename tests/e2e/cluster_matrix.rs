//! Cluster mode's matrix (issue 17): every test of throughput mode, every
//! engine, -e -c -o -I, --runs and the verification options across two
//! ranks, each asserting the exit status, every phase's blocks in order,
//! each rank's byte counts (the `-C` lines and the JSON) and no file left;
//! the workers' name (threads) in the text and the JSON.
//!
//! Small files (256 KiB–1 MiB, 4–64 KiB records) and several tests or
//! options per mpirun keep the module within seconds on 2 cores.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::fixtures::cluster::{
    assert_no_rank_left, block_child_lines, host_name, ioz_mpi, mpirun_command, mpirun_ioz,
    rank_pids, within, xfer_kb,
};
use crate::fixtures::{IOZ, Run, Test, list_dir, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        dash_p_gives_the_ranks_on_one_host_their_own_cpus => [Mpi],
        workers_of_a_rank_bound_to_one_core_are_warned_of => [Mpi],
        every_throughput_test_runs_across_two_ranks => [Mpi],
        record_rewrite_is_refused_across_ranks_as_on_one_host => [Mpi],
        every_engine_runs_across_two_ranks => [Mpi],
        io_uring_runs_across_two_ranks => [Mpi, IoUring],
        iozone_s_engine_flags_run_across_two_ranks => [Mpi],
        fsync_close_and_o_sync_over_two_runs_across_two_ranks => [Mpi],
        o_direct_runs_across_two_ranks => [Mpi, ODirect],
        the_verification_options_run_across_two_ranks => [Mpi],
        a_cluster_run_names_its_workers_threads_in_text_and_json => [Mpi],
        plus_k_gives_the_job_s_workers_their_roles_across_ranks => [Mpi],
        dedup_files_across_ranks_are_those_of_one_host => [Mpi],
        plus_m_dry_run_under_mpich_prints_mpiexec_s_config_file => [Mpi],
        plus_m_under_mpich_launches_through_its_config_file => [Mpi],
        a_cluster_run_is_recorded_once_with_its_ranks_and_hosts => [Mpi],
        a_named_history_that_cannot_take_the_run_refuses_the_job => [Mpi],
        a_cluster_run_in_single_mode_is_recorded_too => [Mpi],
    ]
}

/// The phases every throughput test runs, in IOzone's order, as the
/// blocks name them after the worker count.
const EVERY_PHASE: [&str; 15] = [
    "initial writers",
    "rewriters",
    "readers",
    "re-readers",
    "reverse readers",
    "stride readers",
    "random readers",
    "mixed workload",
    "random writers",
    "pwrite writers",
    "pread readers",
    "fwriters",
    "freaders",
    "pwritev writers",
    "preadv readers",
];

/// The passes of those phases, as the JSON names them.
const EVERY_PASS: [&str; 15] = [
    "write",
    "rewrite",
    "read",
    "reread",
    "backward_read",
    "stride_read",
    "random_read",
    "random_mix",
    "random_write",
    "pwrite",
    "pread",
    "fwrite",
    "fread",
    "pwritev",
    "preadv",
];

/// `mpirun -np 2 ioz -t 2 -s SIZE -r RECORD -C -x ARGS… --json run.json`
/// in a fresh directory, checked: exit 0, the phases `phases` (block
/// labels) in order with each rank's `-C` line moving its whole file, the
/// JSON's passes `passes` with each rank's bytes, and nothing left behind
/// but the JSON. Without stonewalling (-x) every rank moves every byte.
/// Returns what the job printed and the saved run.
fn two_ranks(size_kb: u64, record_kb: u64, args: &[&str], phases: &[&str]) -> (Run, Value) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let size = format!("{size_kb}k");
    let record = format!("{record_kb}k");
    let mut all = vec!["-t", "2", "-s", &size, "-r", &record, "-C", "-x"];
    all.extend(args);
    all.extend(["--json", "run.json"]);
    let r = mpirun_ioz(d, 2, &all);
    assert_eq!(
        r.code,
        Some(0),
        "{args:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        r.stdout,
        r.stderr
    );
    let out = &r.stdout;
    assert_eq!(out.matches("ioz test complete.").count(), 1, "{out}");
    // Every phase's block, in order, each rank's whole file.
    let host = host_name();
    let mut from = 0;
    for phase in phases {
        from += block_start(&out[from..], phase)
            .unwrap_or_else(|| panic!("{args:?}: no block for {phase} after byte {from}:\n{out}"));
        let lines = block_child_lines(&out[from..]);
        assert_eq!(lines.len(), 2, "{args:?} {phase}: {lines:?}");
        for (rank, line) in lines.iter().enumerate() {
            assert!(line.contains(&format!("Child[{rank}]")), "{line}");
            assert!(
                line.ends_with(&format!(", rank {rank} on {host}")),
                "{args:?} {phase}: {line}"
            );
            assert_eq!(xfer_kb(line), size_kb as f64, "{args:?} {phase}: {line}");
        }
        from += 1;
    }
    let saved: Value = serde_json::from_slice(&fs::read(d.join("run.json")).unwrap()).unwrap();
    // No rank left a file or a process; the JSON alone is there.
    assert_eq!(list_dir(d), ["run.json"], "{args:?}: {out}");
    assert_no_rank_left(d);
    (r, saved)
}

/// The JSON's phases of run `run` (--runs), checked: their passes are
/// `passes`, in order, each with both ranks' workers moving `bytes`.
fn check_saved_phases(saved: &Value, run: u64, passes: &[&str], bytes: u64) {
    let phases: Vec<&Value> = saved["throughput"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["run"] == run)
        .collect();
    let names: Vec<&str> = phases.iter().map(|p| p["pass"].as_str().unwrap()).collect();
    assert_eq!(names, passes);
    let host = host_name();
    for phase in phases {
        let results = phase["results"].as_array().unwrap();
        assert_eq!(results.len(), 2, "{phase}");
        for (rank, w) in results.iter().enumerate() {
            assert_eq!(w["bytes"], bytes, "{}: {w}", phase["pass"]);
            assert_eq!(w["client"]["rank"], rank, "{w}");
            assert_eq!(w["client"]["host"], host.as_str(), "{w}");
        }
    }
}

/// Where the first block of `phase` (2 workers) starts in `out`.
fn block_start(out: &str, phase: &str) -> Option<usize> {
    let mut at = 0;
    for line in out.split_inclusive('\n') {
        if line
            .strip_prefix("\tChildren see throughput for ")
            .is_some_and(|rest| rest.trim_start().starts_with(&format!("2 {phase} ")))
        {
            return Some(at);
        }
        at += line.len();
    }
    None
}

fn every_throughput_test_runs_across_two_ranks() {
    let tests = [
        "-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i", "5", "-i", "6", "-i", "7", "-i", "8",
        "-i", "9", "-i", "10", "-i", "11", "-i", "12",
    ];
    let (_, saved) = two_ranks(256, 16, &tests, &EVERY_PHASE);
    check_saved_phases(&saved, 0, &EVERY_PASS, 256 << 10);
}

fn record_rewrite_is_refused_across_ranks_as_on_one_host() {
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(
        dir.path(),
        2,
        &["-t", "2", "-s", "256k", "-r", "16k", "-i", "0", "-i", "4"],
    );
    // Said once (by rank 0), before anything is made; mpirun adds its own
    // report of the job's non-zero exit.
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ioz: "))
        .collect();
    assert_eq!(
        said,
        ["ioz: -i 4 (record rewrite) has no throughput form"],
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

/// The tests an engine carries out (0-5, 8-10): write, read, random,
/// backward, stride.
const ENGINE_TESTS: [&str; 10] = ["-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i", "5"];
const ENGINE_PHASES: [&str; 8] = [
    "initial writers",
    "rewriters",
    "readers",
    "re-readers",
    "reverse readers",
    "stride readers",
    "random readers",
    "random writers",
];
const ENGINE_PASSES: [&str; 8] = [
    "write",
    "rewrite",
    "read",
    "reread",
    "backward_read",
    "stride_read",
    "random_read",
    "random_write",
];

fn engine_across_two_ranks(extra: &[&str], size_kb: u64, record_kb: u64) {
    let mut args = ENGINE_TESTS.to_vec();
    args.extend(extra);
    let (_, saved) = two_ranks(size_kb, record_kb, &args, &ENGINE_PHASES);
    check_saved_phases(&saved, 0, &ENGINE_PASSES, size_kb << 10);
}

fn every_engine_runs_across_two_ranks() {
    // io_uring has its own test (it needs io_uring allowed here).
    for (engine, size_kb, record_kb) in [
        ("sync", 256, 4),
        ("psync", 512, 16),
        ("vec", 256, 64),
        ("stdio", 1024, 64),
        ("mmap", 256, 16),
        ("aio", 512, 4),
    ] {
        engine_across_two_ranks(&["--engine", engine], size_kb, record_kb);
    }
    // aio with several operations in flight.
    engine_across_two_ranks(&["--engine", "aio", "--iodepth", "8"], 256, 16);
}

fn io_uring_runs_across_two_ranks() {
    engine_across_two_ranks(&["--engine", "io_uring", "--iodepth", "4"], 256, 16);
}

fn iozone_s_engine_flags_run_across_two_ranks() {
    // -B mmap, -D/-G mmap with msync, -H/-k POSIX async I/O.
    for (flags, header) in [
        (&["-B"][..], "Using mmap files"),
        (&["-D"], "Using msync(MS_ASYNC) on mmap files"),
        (&["-G"], "Using msync(MS_SYNC) on mmap files"),
        (&["-H", "4"], "POSIX async I/O (with bcopy). Depth 4"),
        (&["-k", "4"], "POSIX Async I/O (no bcopy). Depth 4"),
    ] {
        let mut args = ENGINE_TESTS[..4].to_vec();
        args.extend(flags);
        let (r, saved) = two_ranks(256, 32, &args, &ENGINE_PHASES[..4]);
        assert_eq!(r.stdout.matches(header).count(), 1, "{}", r.stdout);
        check_saved_phases(&saved, 0, &ENGINE_PASSES[..4], 256 << 10);
    }
}

fn fsync_close_and_o_sync_over_two_runs_across_two_ranks() {
    let args = [
        "-i", "0", "-i", "1", "-i", "9", "-i", "10", "-e", "-c", "-o", "--runs", "2",
    ];
    let phases = [
        "initial writers",
        "rewriters",
        "readers",
        "re-readers",
        "pwrite writers",
        "pread readers",
    ];
    let (r, saved) = two_ranks(256, 8, &args, &phases);
    let out = &r.stdout;
    for header in [
        "Include fsync in write timing",
        "Include close in write timing",
        "SYNC Mode. ",
    ] {
        assert_eq!(out.matches(header).count(), 1, "{header}: {out}");
    }
    // Each phase's figures over the two runs, and both runs saved.
    assert_eq!(
        out.matches("Mean ± sd over 2 runs").count(),
        phases.len(),
        "{out}"
    );
    let passes = ["write", "rewrite", "read", "reread", "pwrite", "pread"];
    for run in 0..2 {
        check_saved_phases(&saved, run, &passes, 256 << 10);
    }
}

fn o_direct_runs_across_two_ranks() {
    // The temporary directory (where every test's files go) takes O_DIRECT
    // here (the need says so): tmpfs before Linux 6.6 does not.
    let (r, saved) = two_ranks(
        512,
        64,
        &["-i", "0", "-i", "1", "-i", "2", "-I"],
        &ENGINE_PHASES[..4]
            .iter()
            .chain(&ENGINE_PHASES[6..])
            .copied()
            .collect::<Vec<_>>(),
    );
    assert_eq!(
        r.stdout.matches("O_DIRECT feature enabled").count(),
        1,
        "{}",
        r.stdout
    );
    check_saved_phases(
        &saved,
        0,
        &[
            "write",
            "rewrite",
            "read",
            "reread",
            "random_read",
            "random_write",
        ],
        512 << 10,
    );
}

fn the_verification_options_run_across_two_ranks() {
    for (flags, header) in [
        (&["-V", "165"][..], "Verify Mode. Pattern a5a5a5a5"),
        (&["-+d"], ">>> I/O Diagnostic mode enabled. <<<"),
        (
            &["--data", "iozone", "-V", "90"],
            "Verify Mode. Pattern 5a5a5a5a",
        ),
    ] {
        let mut args = vec!["-i", "0", "-i", "1", "-i", "2", "-i", "3"];
        args.extend(flags);
        let phases = [
            "initial writers",
            "rewriters",
            "readers",
            "re-readers",
            "reverse readers",
            "random readers",
            "random writers",
        ];
        let (r, saved) = two_ranks(256, 16, &args, &phases);
        assert_eq!(r.stdout.matches(header).count(), 1, "{}", r.stdout);
        check_saved_phases(
            &saved,
            0,
            &[
                "write",
                "rewrite",
                "read",
                "reread",
                "backward_read",
                "random_read",
                "random_write",
            ],
            256 << 10,
        );
    }
}

fn a_cluster_run_names_its_workers_threads_in_text_and_json() {
    // Within a rank the workers are threads, whether -T is given or not.
    for t in [None, Some("-T")] {
        let mut args = vec!["-i", "0", "-R"];
        args.extend(t);
        let (r, saved) = two_ranks(256, 64, &args, &["initial writers", "rewriters"]);
        let out = &r.stdout;
        for line in [
            "\tThroughput test with 2 threads\n",
            "\tEach thread writes a 256 Kbyte file in 64 Kbyte records\n",
        ] {
            assert_eq!(out.matches(line).count(), 1, "{line:?}: {out}");
        }
        assert_eq!(
            out.matches("\tMin throughput per thread").count(),
            2,
            "{out}"
        );
        assert_eq!(
            out.matches("\tAvg throughput per thread").count(),
            2,
            "{out}"
        );
        // IOzone's -R header is a fixed string (the same with -T on one host).
        assert!(
            out.contains(
                "\"Throughput report Y-axis is type of test X-axis is number of processes\""
            ),
            "{out}"
        );
        let without_r_header = out.replace("X-axis is number of processes", "");
        assert!(!without_r_header.contains("process"), "{out}");
        assert_eq!(saved["config"]["throughput"]["threads"], true);
        for phase in saved["throughput"].as_array().unwrap() {
            assert_eq!(phase["threads"], true, "{phase}");
        }
    }
}

/// `mpirun -np 2 ioz ARGS…` in `dir`, which must end well.
fn job_in(dir: &Path, args: &[&str]) {
    let r = mpirun_ioz(dir, 2, args);
    assert_eq!(r.code, Some(0), "{args:?}: {}\n{}", r.stdout, r.stderr);
}

fn plus_k_gives_the_job_s_workers_their_roles_across_ranks() {
    // -+K 1: in test 8 the job's worker 0 only reads, worker 1 (rank 1's
    // first) only writes, as on one host. Seen by the files' times: the
    // reader leaves its file's as they were.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = ["-t", "2", "-s", "256k", "-r", "16k", "-w", "-x", "-f", "f"];
    job_in(d, &[&base[..], &["-i", "0"]].concat());
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(946_684_800);
    for f in ["f.0", "f.1"] {
        fs::File::options()
            .write(true)
            .open(d.join(f))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    job_in(d, &[&base[..], &["-i", "8", "-+K", "1"]].concat());
    let modified = |f: &str| fs::metadata(d.join(f)).unwrap().modified().unwrap();
    assert_eq!(modified("f.0"), old, "worker 0 (rank 0) reads only");
    assert!(modified("f.1") > old, "worker 1 (rank 1) writes only");
}

fn dedup_files_across_ranks_are_those_of_one_host() {
    // -+w: each worker's file image comes from its number in the job, so
    // two ranks write what two workers on one host write: file for file
    // the same bytes, and not the same file twice.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "-t", "2", "-s", "256k", "-r", "16k", "-i", "0", "-w", "-+w", "50",
    ];
    job_in(d, &[&args[..], &["-f", "ranks"]].concat());
    let r = run(std::process::Command::new(IOZ)
        .args(args)
        .args(["-f", "host"])
        .current_dir(d));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let read = |f: &str| fs::read(d.join(f)).unwrap();
    assert_ne!(read("host.0"), read("host.1"));
    assert!(read("ranks.0") == read("host.0"), "rank 0's file");
    assert!(read("ranks.1") == read("host.1"), "rank 1's file");
}

/// A stand-in for MPICH's launcher, as `mpirun` in a directory of its own
/// (MPICH is not installed here, and must not be: CI installs Open MPI):
/// `--version` says HYDRA; otherwise it records its arguments, its time
/// limit and its -configfile in `record`, and starts each rank of the file
/// as Hydra does (in its working directory, with its variables, PMI_RANK
/// and PMI_SIZE), exiting with the highest status.
struct Hydra {
    dir: tempfile::TempDir,
}

impl Hydra {
    fn new() -> Hydra {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("record");
        fs::create_dir(&record).unwrap();
        let bin = dir.path().join("bin");
        fs::create_dir(&bin).unwrap();
        let script = format!(
            r#"#!/bin/sh
rec={rec}
if [ "$1" = "--version" ]; then
  echo "HYDRA build details:"
  echo "    Version:                                 4.0.2"
  exit 0
fi
echo "$@" > $rec/args
echo "${{MPIEXEC_TIMEOUT:-unset}}" > $rec/timeout
[ "$1" = "-configfile" ] || exit 99
cp "$2" $rec/configfile
n=$(grep -c . "$2")
i=0
pids=""
while read -r line; do
  set -- ${{line% :}}
  host=$4; wdir=$6; shift 6
  vars=""
  while [ "$1" = "-env" ]; do vars="$vars $2=$3"; shift 3; done
  (cd "$wdir" && exec env $vars PMI_RANK=$i PMI_SIZE=$n "$@") &
  pids="$pids $!"
  i=$((i + 1))
done < "$2"
worst=0
for p in $pids; do
  wait $p; s=$?
  [ $s -gt $worst ] && worst=$s
done
exit $worst
"#,
            rec = record.display()
        );
        let path = bin.join("mpirun");
        fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        Hydra { dir }
    }

    /// PATH with the stand-in first.
    fn path(&self) -> std::ffi::OsString {
        let mut path = self.dir.path().join("bin").into_os_string();
        path.push(":");
        path.push(std::env::var_os("PATH").unwrap_or_default());
        path
    }

    /// What the stand-in recorded under `name`, if it was called.
    fn recorded(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.dir.path().join("record").join(name)).ok()
    }

    /// The MPI build of ioz with `args`, in `dir`, the stand-in on PATH.
    fn ioz(&self, dir: &Path, args: &[&str]) -> Run {
        run(std::process::Command::new(ioz_mpi())
            .args(args)
            .env("PATH", self.path())
            .env_remove("MPIEXEC_TIMEOUT")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .current_dir(dir))
    }
}

/// Two client lines on this host, in `w1` and `w2` (the second with its
/// own test file), in `dir/clients`.
fn two_clients(dir: &Path, w1: &Path, w2: &Path) {
    let text = format!(
        "# host  workdir  ioz  [test file]\nlocalhost {} {}\nlocalhost {} {} f2\n",
        w1.display(),
        ioz_mpi(),
        w2.display(),
        ioz_mpi()
    );
    fs::write(dir.join("clients"), text).unwrap();
}

/// MPICH's config file for [`two_clients`], `args` and the time limit
/// `limit` (seconds) every rank is given, with ioz's own variables (the
/// harness sets IOZ_NO_HISTORY) and the command line typed for rank 0.
fn expected_configfile(w1: &Path, w2: &Path, args: &str, limit: u32) -> String {
    let bin = ioz_mpi();
    let typed = format!("{bin},{},-+m,clients", args.replace(' ', ","));
    let vars = format!(
        "-env MPIEXEC_TIMEOUT {limit} -env IOZ_NO_HISTORY 1 -env IOZ_TYPED_COMMAND {typed}"
    );
    format!(
        "-n 1 -host localhost -wdir {} {vars} {bin} {args} :\n\
         -n 1 -host localhost -wdir {} {vars} -env IOZ_CLIENT_TEST_FILE f2 \
         {bin} {args}\n",
        w1.display(),
        w2.display()
    )
}

fn plus_m_dry_run_under_mpich_prints_mpiexec_s_config_file() {
    let hydra = Hydra::new();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    two_clients(d, Path::new("/w1"), Path::new("/w2"));
    let r = hydra.ioz(
        d,
        &[
            "-t",
            "2",
            "-s",
            "1m",
            "-i",
            "0",
            "-+m",
            "clients",
            "--dry-run",
        ],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!(
            "MPIEXEC_TIMEOUT=86400 mpirun -configfile CONFIGFILE\n# CONFIGFILE\n{}",
            expected_configfile(Path::new("/w1"), Path::new("/w2"), "-t 2 -s 1m -i 0", 86400)
        )
    );
    // The user's time limit: the launcher reads it, every rank is given it.
    let r = run(std::process::Command::new(ioz_mpi())
        .args([
            "-t",
            "2",
            "-s",
            "1m",
            "-i",
            "0",
            "-+m",
            "clients",
            "--dry-run",
        ])
        .env("PATH", hydra.path())
        .env("MPIEXEC_TIMEOUT", "90")
        .current_dir(d));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!(
            "mpirun -configfile CONFIGFILE\n# CONFIGFILE\n{}",
            expected_configfile(Path::new("/w1"), Path::new("/w2"), "-t 2 -s 1m -i 0", 90)
        )
    );
    // Asked its version, never started; nothing written.
    assert_eq!(hydra.recorded("args"), None);
    assert_eq!(list_dir(d), ["clients"]);
}

fn plus_m_under_mpich_launches_through_its_config_file() {
    let hydra = Hydra::new();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (w1, w2) = (d.join("w1"), d.join("w2"));
    fs::create_dir(&w1).unwrap();
    fs::create_dir(&w2).unwrap();
    two_clients(d, &w1, &w2);
    let r = hydra.ioz(
        d,
        &[
            "-t", "2", "-s", "64k", "-r", "16k", "-i", "0", "-+m", "clients",
        ],
    );
    // The launcher got the config file and the time limit...
    let args = hydra
        .recorded("args")
        .expect("the stand-in was not started");
    let file = args
        .trim()
        .strip_prefix("-configfile ")
        .unwrap_or_else(|| panic!("{args}"));
    assert_eq!(
        hydra.recorded("configfile").unwrap(),
        expected_configfile(&w1, &w2, "-t 2 -s 64k -r 16k -i 0", 86400)
    );
    assert_eq!(hydra.recorded("timeout").unwrap().trim(), "86400");
    // ...removed once the job ended.
    assert!(!Path::new(file).exists(), "{file} left behind");
    // The ranks, built with Open MPI and started by MPICH's launcher, each
    // refuse to run (exit 2) rather than measure as single-rank jobs.
    assert_eq!(r.code, Some(2), "{}\n{}", r.stdout, r.stderr);
    let refusals = r
        .stderr
        .lines()
        .filter(|l| {
            l.starts_with("ioz: started by a launcher of 2 ranks (PMI_SIZE is set) but MPI sees 1")
                && l.contains("built with another MPI than the launcher's")
        })
        .count();
    assert_eq!(refusals, 2, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(list_dir(&w1), Vec::<String>::new());
    assert_eq!(list_dir(&w2), Vec::<String>::new());
}

/// `mpirun -np 2 ioz ARGS…` in `dir`, recording in the history `history`
/// (the harness turns recording off for every other test).
fn job_with_history(dir: &Path, history: &Path, args: &[&str]) -> Run {
    run(mpirun_command(dir, 2, &[], args)
        .env("IOZ_HISTORY", history)
        .env_remove("IOZ_NO_HISTORY"))
}

/// `ioz history ARGS…` (the default build) on `history`.
fn history_says(history: &Path, args: &[&str]) -> Run {
    let r = run(std::process::Command::new(IOZ)
        .arg("history")
        .args(args)
        .env("IOZ_HISTORY", history)
        .env_remove("IOZ_NO_HISTORY"));
    assert_eq!(r.code, Some(0), "history {args:?}: {}", r.stderr);
    r
}

fn a_cluster_run_is_recorded_once_with_its_ranks_and_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let work = d.join("work");
    fs::create_dir(&work).unwrap();
    let history = d.join("history");
    let args = ["-t", "2", "-s", "256k", "-r", "64k", "-i", "0", "-x"];
    for id in 1..=2 {
        let r = job_with_history(&work, &history, &args);
        assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
        // Said once, by rank 0, last.
        let saved: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.contains("saved as run"))
            .collect();
        assert_eq!(
            saved,
            [format!("ioz: saved as run {id} — ioz history show {id}")],
            "{}",
            r.stderr
        );
    }
    assert_eq!(list_dir(&work), Vec::<String>::new());
    // Listed as a run of two ranks on this host, once per job.
    let host = host_name();
    let list = history_says(&history, &["list"]).stdout;
    let rows: Vec<&str> = list.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{list}");
    for row in &rows {
        assert!(row.contains(&format!("{host} (2 ranks)")), "{row}");
        assert!(row.contains("complete"), "{row}");
    }
    // The saved run holds each rank's workers; the trend follows the runs.
    let saved: Value =
        serde_json::from_slice(&fs::read(history.join("runs/1.json")).unwrap()).unwrap();
    for phase in saved["throughput"].as_array().unwrap() {
        let ranks: Vec<&Value> = phase["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| &w["client"]["rank"])
            .collect();
        assert_eq!(ranks, [0, 1], "{phase}");
    }
    let trend = history_says(&history, &["trend"]).stdout;
    let runs: Vec<&str> = trend
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(runs.len(), 2, "{trend}");
    assert!(
        trend.contains("write") && trend.contains("rewrite"),
        "{trend}"
    );
}

fn a_named_history_that_cannot_take_the_run_refuses_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let work = d.join("work");
    fs::create_dir(&work).unwrap();
    // A directory of someone else's files: never ioz's history.
    let theirs = d.join("theirs");
    fs::create_dir(&theirs).unwrap();
    fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let r = job_with_history(
        &work,
        &theirs,
        &["-t", "2", "-s", "256k", "-r", "64k", "-i", "0"],
    );
    assert_eq!(r.code, Some(2), "{}\n{}", r.stdout, r.stderr);
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ioz: "))
        .collect();
    assert_eq!(said.len(), 1, "{}", r.stderr);
    assert!(
        said[0].starts_with(&format!("ioz: rank 0 on {}: history: ", host_name())),
        "{}",
        said[0]
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(list_dir(&work), Vec::<String>::new());
    assert_eq!(list_dir(&theirs), ["notes.txt"]);
}

fn a_cluster_run_in_single_mode_is_recorded_too() {
    // Without -t every rank runs the whole plan (app/cluster/auto.rs):
    // recorded once, with the ranks' sum as its cells.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let work = d.join("work");
    fs::create_dir(&work).unwrap();
    let history = d.join("history");
    let r = job_with_history(&work, &history, &["-s", "64k", "-r", "16k", "-i", "0"]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let saved: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("saved as run"))
        .collect();
    assert_eq!(
        saved,
        ["ioz: saved as run 1 — ioz history show 1"],
        "{}",
        r.stderr
    );
    let list = history_says(&history, &["list"]).stdout;
    let rows: Vec<&str> = list.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{list}");
    assert!(
        rows[0].contains(&format!("{} (2 ranks)", host_name())),
        "{list}"
    );
    let trend = history_says(&history, &["trend"]).stdout;
    assert!(trend.contains("write"), "{trend}");
    assert_eq!(list_dir(&work), Vec::<String>::new());
}

/// The CPUs that threads of process `pid` are bound to alone (a thread
/// allowed every CPU is not bound).
fn bound_cpus(pid: u32) -> Vec<String> {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| {
            let status = fs::read_to_string(t.ok()?.path().join("status")).ok()?;
            let list = status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?
                .trim()
                .to_string();
            (!list.contains(['-', ','])).then_some(list)
        })
        .collect()
}

fn dash_p_gives_the_ranks_on_one_host_their_own_cpus() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        crate::fixtures::skip(format!("-P across two ranks needs two CPUs; {cpus} here"));
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // -d: worker 1 (rank 1's only one) waits 3 s, bound, before it starts.
    // --bind-to none: Open MPI binds each of two ranks to a core of its own
    // by default, which would hide whom -P binds.
    let child = mpirun_command(
        d,
        2,
        &["--bind-to", "none"],
        &[
            "-t", "2", "-P", "0", "-s", "256k", "-r", "4k", "-i", "0", "-d", "3000000",
        ],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // Once the files are made, MPI has started (its topology discovery binds
    // a thread to each CPU in turn for a moment): only -P binds from here.
    assert!(within(60, || list_dir(d).len() == 2), "no files made");
    // Both ranks on this host: rank 1's worker takes the host's second CPU
    // (rank 0's the first), not the first again.
    let mut seen = Vec::new();
    let bound = within(30, || {
        seen = rank_pids(d)
            .iter()
            .find(|(rank, _)| *rank == 1)
            .map(|&(_, pid)| bound_cpus(pid))
            .unwrap_or_default();
        !seen.is_empty()
    });
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(bound, "rank 1's worker never bound");
    assert_eq!(seen, ["1"], "rank 1's bound threads");
    assert_eq!(list_dir(d), Vec::<String>::new());
}

fn workers_of_a_rank_bound_to_one_core_are_warned_of() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        crate::fixtures::skip(format!(
            "binding a rank to one core needs two CPUs; {cpus} here"
        ));
    }
    let warned = |binding: &str| {
        let dir = tempfile::tempdir().unwrap();
        let r = run(&mut mpirun_command(
            dir.path(),
            2,
            &["--bind-to", binding],
            &["-t", "4", "-s", "64k", "-r", "16k", "-i", "0"],
        ));
        assert_eq!(r.code, Some(0), "{}", r.context());
        r.stderr.contains(
            "ioz: warning: rank 0's 2 workers may run on 1 CPU(s) only: its launcher bound it; \
             give mpirun --bind-to none (and -P to place them)",
        )
    };
    assert!(warned("core"), "bound to a core, no warning");
    assert!(!warned("none"), "a warning without a binding");
}
