//! Cluster mode's options across ranks (issue 17): per-operation latencies
//! (--latency, -+z, -+O, -+T) gathered to rank 0, -Q's files written by
//! each rank for its workers, -l/-u sweeps and worker counts the ranks
//! cannot share evenly, -+k, and one file shared by every rank (-+V/-+L).
//! Small files, two or three ranks: each test takes seconds.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::fixtures::cluster::{
    assert_no_rank_left, child_lines, expect, file_len, host_name, ioz_mpi, mpirun_ioz, xfer_kb,
};
use crate::fixtures::{Test, Tmpfs, list_dir, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        latencies_of_every_rank_s_workers_reach_rank_0 => [Mpi],
        each_rank_writes_the_q_files_of_its_workers => [Mpi],
        a_rank_that_cannot_write_its_q_file_ends_the_job => [Mpi, Root],
        a_sweep_deals_each_count_to_the_ranks_round_robin => [Mpi],
        three_workers_on_two_ranks_give_rank_0_two => [Mpi],
        plus_k_divides_the_file_by_the_job_s_workers => [Mpi],
        plus_v_puts_every_rank_s_workers_on_one_file => [Mpi],
        plus_l_with_client_lines_naming_one_file_shares_it => [Mpi],
        client_lines_naming_different_files_cannot_share_one => [Mpi],
    ]
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The ops column of the latency table's row that starts with `name`.
fn latency_ops(stdout: &str, name: &str) -> u64 {
    let row = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no latency row {name:?} in:\n{stdout}"));
    row.split_whitespace().nth(3).unwrap().parse().unwrap()
}

/// The counts of a `-+z` file's block for `op`, summed.
fn band_total(text: &str, child: u32, op: &str) -> u64 {
    let head = format!("Child: {child} Op: {op}");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("no {head:?} in:\n{text}"));
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("Band"))
        .flat_map(|l| l.split_whitespace().filter_map(|w| w.split(':').nth(1)))
        .filter(|n| !n.is_empty())
        .map(|n| n.parse::<u64>().unwrap())
        .sum()
}

/// `--latency -+z -+T -+O` across 2 ranks, 4 workers of 4 records each:
/// rank 0 prints the job's latency table (each phase's percentiles over
/// all 16 operations, a row per worker with -C), saves the histograms in
/// the JSON, writes every worker's IOzone histogram and log file, and says
/// the rate each phase achieved.
fn latencies_of_every_rank_s_workers_reach_rank_0() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let json = d.join("run.json");
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t",
            "4",
            "-s",
            "256k",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "-C",
            "-x",
            "-f",
            "f",
            "--latency",
            "--percentiles",
            "50,99",
            "-+z",
            "-+T",
            "-+O",
            "100000",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    expect(&r, 0);
    let out = &r.stdout;
    for phase in ["write(4)", "rewrite(4)", "read(4)", "reread(4)"] {
        assert_eq!(latency_ops(out, phase), 16, "{phase}: {out}");
    }
    for worker in 0..4 {
        let row = format!("worker_{worker}");
        assert_eq!(
            out.lines()
                .filter(|l| l.split_whitespace().next() == Some(row.as_str()))
                .map(|l| l.split_whitespace().nth(3).unwrap())
                .collect::<Vec<_>>(),
            ["4"; 4],
            "{out}"
        );
    }
    assert!(
        out.contains("Operation rate achieved (-+O 100000: at most 100000 per second per worker)"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("write(4)") && l.ends_with("ops/sec per worker")),
        "{out}"
    );
    let saved: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let phases = saved["throughput"].as_array().unwrap();
    assert_eq!(phases.len(), 4);
    for phase in phases {
        assert_eq!(phase["latency"]["count"], 16, "{phase}");
        let percents: Vec<f64> = phase["latency"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["percent"].as_f64().unwrap())
            .collect();
        assert_eq!(percents, [50.0, 99.0]);
        let buckets: u64 = phase["latency"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(buckets, 16);
        for w in phase["results"].as_array().unwrap() {
            assert_eq!(w["latency"]["count"], 4, "{w}");
        }
    }
    // -+z and -+T: every worker of the job, by rank 0.
    for worker in 0..4 {
        let histogram = read(&d.join(format!("Iozone_histogram_child_{worker}.txt")));
        for op in ["write", "Rewrite", "Read", "Reread"] {
            assert_eq!(band_total(&histogram, worker, op), 4, "{op}: {histogram}");
        }
        let log = read(&d.join(format!("Child_{worker}.log")));
        for line in [
            "Write test start:",
            "Rewrite test finished:",
            "Reread test start:",
        ] {
            assert_eq!(log.matches(line).count(), 1, "{line}: {log}");
        }
    }
    // The test files went; the latency files and the JSON stay.
    let mut left = list_dir(d);
    left.retain(|n| n.starts_with("f."));
    assert_eq!(left, Vec::<String>::new());
}

/// `-Q` across 2 ranks: IOzone's `Child_<n>_<test>.dat` for each of the
/// job's 4 workers (n its number in the job), each with a line per record
/// of every phase.
fn each_rank_writes_the_q_files_of_its_workers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t", "4", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-C", "-x", "-f", "f", "-Q",
        ],
    );
    expect(&r, 0);
    let host = host_name();
    let lines = child_lines(&r.stdout, "4 initial writers");
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    for (worker, line) in lines.iter().enumerate() {
        assert!(
            line.ends_with(&format!(", rank {} on {host}", worker % 2)),
            "{line}"
        );
        assert_eq!(xfer_kb(line), 256.0, "{line}");
    }
    for worker in 0..4 {
        for test in ["wol", "rwol", "rol", "rrol"] {
            let path = d.join(format!("Child_{worker}_{test}.dat"));
            let text = read(&path);
            // A header, a line per 64 kB record, an empty line, the times.
            let ops: Vec<&str> = text.lines().skip(1).take_while(|l| !l.is_empty()).collect();
            assert_eq!(ops.len(), 4, "{}: {text}", path.display());
            let offsets: Vec<u64> = ops
                .iter()
                .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
                .collect();
            assert_eq!(offsets, [0, 64, 128, 192], "{text}");
            assert!(text.contains("System time"), "{text}");
            assert!(file_len(&path) > 0);
        }
    }
    let mut names = list_dir(d);
    names.retain(|n| !n.starts_with("Child_"));
    assert_eq!(names, Vec::<String>::new(), "test files left");
}

/// The `-C` lines of every block of `label` (one per worker count).
fn a_rank_that_cannot_write_its_q_file_ends_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Rank 1 works in a tmpfs with room for its 1 MiB test file and 16 kB
    // more: its -Q file of the second phase (rewrite) finds no space. -x:
    // were rank 1 stonewalled by a rank 0 done first, its files would be
    // shorter and the rewrite's -Q file could fit.
    let w1 = d.join("w1");
    fs::create_dir(&w1).unwrap();
    let small = Tmpfs::mount(&d.join("w2"), "size=1040k");
    let text = format!(
        "localhost {} {bin}\nlocalhost {} {bin}\n",
        w1.display(),
        small.path().display(),
        bin = ioz_mpi()
    );
    fs::write(d.join("clients"), text).unwrap();
    let r = run(Command::new(ioz_mpi())
        .args([
            "-t", "2", "-s", "1m", "-r", "4k", "-i", "0", "-i", "1", "-Q", "-x", "-+m", "clients",
        ])
        // Were the others left waiting for rank 1 at the next barrier, the
        // job would end only here.
        .env("MPIEXEC_TIMEOUT", "60")
        .current_dir(d));
    expect(&r, 1);
    let named = format!(
        "ioz: rank 1 on {}: write the -Q latency file for ioz.tmp.1 during the rewrite pass: \
         Child_1_rwol.dat: No space left on device",
        host_name()
    );
    assert!(r.stderr.contains(&named), "{}", r.context());
    assert!(!r.stderr.contains("time limit"), "{}", r.context());
    // The test files removed on both ranks; the -Q files written are left.
    assert_eq!(list_dir(&w1), ["Child_0_rwol.dat", "Child_0_wol.dat"]);
    assert_eq!(
        list_dir(small.path()),
        ["Child_1_rwol.dat", "Child_1_wol.dat"]
    );
    assert_no_rank_left(&w1);
}

fn workers_of(stdout: &str, label: &str) -> Vec<Vec<String>> {
    stdout
        .match_indices(label)
        .map(|(at, _)| {
            child_lines(&stdout[at..], label)
                .into_iter()
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// Checks that the `-C` lines name workers 0…n−1 in order, worker j on
/// rank j mod `ranks`, each having moved `kb`.
fn dealt_round_robin(lines: &[String], ranks: usize, kb: f64) {
    let host = host_name();
    for (worker, line) in lines.iter().enumerate() {
        assert!(line.contains(&format!("Child[{worker}]")), "{line}");
        assert!(
            line.ends_with(&format!(", rank {} on {host}", worker % ranks)),
            "{line}"
        );
        assert_eq!(xfer_kb(line), kb, "{line}");
    }
}

/// `-l 1 -u 4` on 3 ranks: every count runs, worker j on rank j mod 3
/// (counts 1 and 2 leave ranks idle; they still meet the others at every
/// barrier), each worker writes its whole file, and every file goes.
fn a_sweep_deals_each_count_to_the_ranks_round_robin() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let json = d.join("run.json");
    let r = mpirun_ioz(
        d,
        3,
        &[
            "-l",
            "1",
            "-u",
            "4",
            "-s",
            "128k",
            "-r",
            "32k",
            "-i",
            "0",
            "-C",
            "-x",
            "-f",
            "f",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    expect(&r, 0);
    let out = &r.stdout;
    // Within a rank the workers are threads (app/cluster/workers.rs).
    assert!(out.contains("\tMin thread = 1 \n"), "{out}");
    assert!(out.contains("\tMax thread = 4 \n"), "{out}");
    for label in ["initial writers", "rewriters"] {
        let blocks: Vec<Vec<String>> = (1..=4)
            .flat_map(|n| workers_of(out, &format!("Children see throughput for  {n} {label}")))
            .collect();
        assert_eq!(blocks.len(), 4, "{label}: {out}");
        for (n, lines) in blocks.iter().enumerate() {
            assert_eq!(lines.len(), n + 1, "{label}: {lines:?}");
            dealt_round_robin(lines, 3, 128.0);
        }
    }
    let saved: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let counts: Vec<u64> = saved["throughput"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["workers"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [1, 1, 2, 2, 3, 3, 4, 4]);
    assert_eq!(list_dir(d), ["run.json"]);
}

/// `-t 3` on 2 ranks: rank 0 runs workers 0 and 2, rank 1 worker 1; each
/// file whole (-w keeps them).
fn three_workers_on_two_ranks_give_rank_0_two() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t", "3", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-C", "-x", "-w", "-f", "f",
        ],
    );
    expect(&r, 0);
    for label in ["initial writers", "rewriters", "readers", "re-readers"] {
        let lines: Vec<String> = child_lines(&r.stdout, &format!("3 {label}"))
            .into_iter()
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), 3, "{label}: {}", r.stdout);
        dealt_round_robin(&lines, 2, 256.0);
    }
    assert_eq!(list_dir(d), ["f.0", "f.1", "f.2"]);
    for worker in 0..3 {
        assert_eq!(file_len(&d.join(format!("f.{worker}"))), 256 << 10);
    }
}

/// `-+k` across 2 ranks: the file size is divided by the job's worker
/// count, not by a rank's share of it: a sweep of 1 to 3 workers moves 384,
/// 192 and 128 kB each, and -t 4 leaves four files of 64 kB.
fn plus_k_divides_the_file_by_the_job_s_workers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-l", "1", "-u", "3", "-+k", "-s", "384k", "-r", "32k", "-i", "0", "-C", "-x", "-f",
            "f",
        ],
    );
    expect(&r, 0);
    for (n, kb) in [(1, 384.0), (2, 192.0), (3, 128.0)] {
        let each = format!("Each thread writes a {} Kbyte file", kb as u64);
        assert!(r.stdout.contains(&each), "{each}: {}", r.stdout);
        for label in ["initial writers", "rewriters"] {
            let lines: Vec<String> = child_lines(
                &r.stdout,
                &format!("Children see throughput for  {n} {label}"),
            )
            .into_iter()
            .map(str::to_string)
            .collect();
            assert_eq!(lines.len(), n, "{}", r.stdout);
            dealt_round_robin(&lines, 2, kb);
        }
    }
    assert_eq!(list_dir(d), Vec::<String>::new());

    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t", "4", "-+k", "-s", "256k", "-r", "16k", "-i", "0", "-i", "1", "-x", "-w", "-f",
            "f",
        ],
    );
    expect(&r, 0);
    assert_eq!(list_dir(d), ["f.0", "f.1", "f.2", "f.3"]);
    for worker in 0..4 {
        assert_eq!(file_len(&d.join(format!("f.{worker}"))), 64 << 10);
    }
}

/// `-+V` across 2 ranks: the 3 workers of the job on one file, `<-f>.0`,
/// made by rank 0 and reached by rank 1; each worker moves the whole file.
fn plus_v_puts_every_rank_s_workers_on_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t", "3", "-+V", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-C", "-x", "-w",
            "-f", "f",
        ],
    );
    expect(&r, 0);
    assert!(
        r.stdout.contains(">>> Shared file mode enabled. <<<"),
        "{}",
        r.stdout
    );
    for label in ["initial writers", "rewriters", "readers", "re-readers"] {
        let lines: Vec<String> = child_lines(&r.stdout, &format!("3 {label}"))
            .into_iter()
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), 3, "{label}: {}", r.stdout);
        dealt_round_robin(&lines, 2, 256.0);
    }
    assert_eq!(list_dir(d), ["f.0"]);
    assert_eq!(file_len(&d.join("f.0")), 256 << 10);
}

/// A client file of `(working directory, test file)` lines on this host.
fn client_file(dir: &Path, lines: &[(&Path, &str)]) -> PathBuf {
    let mut text = String::new();
    for (workdir, file) in lines {
        text.push_str(&format!(
            "localhost {} {} {file}\n",
            workdir.display(),
            ioz_mpi()
        ));
    }
    let path = dir.join("clients");
    fs::write(&path, text).unwrap();
    path
}

/// `-+L -+m` with both client lines naming `a.dat`: the two ranks share
/// it, lock their records, and rank 0 removes it at the end.
fn plus_l_with_client_lines_naming_one_file_shares_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let w = d.join("w");
    fs::create_dir(&w).unwrap();
    let clients = client_file(d, &[(&w, "a.dat"), (&w, "a.dat")]);
    let r = run(Command::new(ioz_mpi())
        .args([
            "-t", "2", "-+L", "-s", "128k", "-r", "16k", "-i", "0", "-C", "-x", "-+m",
        ])
        .arg(&clients)
        .current_dir(d));
    expect(&r, 0);
    assert!(
        r.stdout
            .contains(">>> Record locking, shared file mode enabled. <<<"),
        "{}",
        r.stdout
    );
    let lines: Vec<String> = child_lines(&r.stdout, "2 initial writers")
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    dealt_round_robin(&lines, 2, 128.0);
    assert_eq!(list_dir(&w), Vec::<String>::new());
    assert_no_rank_left(&w);
}

/// `-+V -+m` whose client lines name two files: rank 1 cannot reach the
/// file rank 0 made, the job ends before any phase, naming rank 1 and its
/// file, and rank 0 removes its own.
fn client_lines_naming_different_files_cannot_share_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let w = d.join("w");
    fs::create_dir(&w).unwrap();
    let clients = client_file(d, &[(&w, "a.dat"), (&w, "b.dat")]);
    let r = run(Command::new(ioz_mpi())
        .args([
            "-t", "2", "-+V", "-s", "128k", "-r", "16k", "-i", "0", "-x", "-+m",
        ])
        .arg(&clients)
        .current_dir(d));
    expect(&r, 1);
    let host = host_name();
    let said = format!(
        "ioz: rank 1 on {host}: share b.dat: it is not there: rank 0's file is elsewhere \
         (-+V/-+L: every rank must reach the same file)"
    );
    assert!(r.stderr.lines().any(|l| l == said), "{}", r.context());
    assert!(!r.stdout.contains("initial writers"), "{}", r.stdout);
    assert_eq!(list_dir(&w), Vec::<String>::new());
    assert_no_rank_left(&w);
}
