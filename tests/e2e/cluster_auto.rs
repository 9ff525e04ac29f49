//! Single and auto mode across MPI ranks (issue 17, item 3): `mpirun -np N
//! ioz -a …` runs the whole plan on every rank at once, each on its own
//! file, every cell begun after a barrier; rank 0 prints each rank's table
//! and their sum, and saves the sum as the run's cells with each rank's.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fixtures::cluster::{
    assert_no_rank_left, expect, host_name, ioz_mpi, mpirun_command, mpirun_ioz, mpirun_options,
    within,
};
use crate::fixtures::flip::shim;
use crate::fixtures::{IOZ, Test, list_dir, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        two_ranks_print_their_tables_and_the_sum_and_save_both => [Mpi],
        every_cell_begins_on_all_ranks_together => [MpiTestHooks],
        an_io_error_on_one_rank_ends_the_job_at_the_next_cell => [Mpi, FlipShim],
        a_rank_that_cannot_make_its_file_refuses_the_job => [Mpi],
        sigint_to_mpirun_removes_every_rank_s_file => [Mpi],
        single_mode_over_two_runs_repeats_the_plan_cell_by_cell => [Mpi],
        a_two_rank_run_compares_with_a_one_host_run => [Mpi],
        what_is_not_done_across_ranks_is_refused_with_one_line => [Mpi],
    ]
}

/// The plan of the tests: 15 small cells, writes and reads.
const AUTO: &[&str] = &[
    "-a", "-n", "64k", "-g", "256k", "-y", "4k", "-q", "64k", "-i", "0", "-i", "1",
];

/// The rows of the table under the first line that starts with `title`
/// (after a tab): each row's numbers (file kB, record kB, then the passes).
fn table(stdout: &str, title: &str) -> Vec<Vec<u64>> {
    let mut lines = stdout.lines();
    lines
        .find(|l| l.starts_with(&format!("\t{title}")))
        .unwrap_or_else(|| panic!("no table {title:?} in:\n{stdout}"));
    let header: Vec<&str> = lines.by_ref().take(2).collect();
    assert!(header[1].contains("reclen"), "{header:?}");
    lines
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('\t'))
        .map(|l| {
            l.split_whitespace()
                .map(|v| v.parse().unwrap_or_else(|_| panic!("{l:?}")))
                .collect()
        })
        .collect()
}

/// The JSON the run saved.
fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Each (file kB, record kB, pass, kib_per_sec) of a list of JSON cells.
fn rates(cells: &Value) -> Vec<(u64, u64, String, u64)> {
    cells
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["measurements"].as_array().unwrap().iter())
        .map(|m| {
            (
                m["file_bytes"].as_u64().unwrap() >> 10,
                m["record_bytes"].as_u64().unwrap() >> 10,
                m["pass"].as_str().unwrap().to_string(),
                m["kib_per_sec"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The sum's rate is the ranks' rates added, each table's number truncated
/// on its own and the sum's time kept to the nanosecond: equal within a
/// few kB/s.
fn assert_sum(sum: u64, parts: &[u64], what: &str) {
    let added: u64 = parts.iter().sum();
    let slack = parts.len() as u64 + added / 1000;
    assert!(
        sum.abs_diff(added) <= slack,
        "{what}: the sum {sum} is not {parts:?} added ({added})"
    );
}

fn two_ranks_print_their_tables_and_the_sum_and_save_both() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let host = host_name();
    let mut args = AUTO.to_vec();
    args.extend(["-f", "t", "-w", "--json", "r.json"]);
    let r = mpirun_ioz(d, 2, &args);
    expect(&r, 0);
    // Each rank's table, named by rank, host and file, then the sum.
    let ranks = [
        table(&r.stdout, &format!("Rank 0 on {host}, test file t.0:")),
        table(&r.stdout, &format!("Rank 1 on {host}, test file t.1:")),
    ];
    let sum = table(
        &r.stdout,
        "Sum of the 2 ranks: the aggregate of 2 simultaneous clients",
    );
    for t in ranks.iter().chain([&sum]) {
        assert_eq!(t.len(), 15, "{}", r.stdout);
    }
    for (row, s) in sum.iter().enumerate() {
        assert_eq!(s.len(), 6, "write rewrite read reread: {s:?}");
        assert_eq!(s[..2], ranks[0][row][..2]);
        assert_eq!(s[..2], ranks[1][row][..2]);
        for col in 2..6 {
            assert_sum(
                s[col],
                &[ranks[0][row][col], ranks[1][row][col]],
                &format!("row {row}, column {col}"),
            );
        }
    }
    assert!(r.stdout.ends_with("ioz test complete.\n"), "{}", r.stdout);
    // -w: each rank's file is there, as large as the last cell's.
    for f in ["t.0", "t.1"] {
        assert_eq!(fs::metadata(d.join(f)).unwrap().len(), 256 << 10, "{f}");
    }
    // The JSON: the sum as the run's cells, each rank's own with its host.
    let j = json(&d.join("r.json"));
    assert_eq!(j["status"], "complete");
    crate::json_schema::assert_valid(&j);
    let ranks = j["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    let per_rank: Vec<_> = ranks.iter().map(|r| rates(&r["cells"])).collect();
    for (k, rank) in ranks.iter().enumerate() {
        assert_eq!(rank["client"]["rank"], k as u64);
        assert_eq!(rank["client"]["host"], host.as_str());
        assert_eq!(rank["test_file"], format!("t.{k}"));
        assert_eq!(per_rank[k].len(), 60);
        assert_eq!(rank["cell_starts"].as_array().unwrap().len(), 15);
    }
    let sums = rates(&j["cells"]);
    assert_eq!(sums.len(), 60);
    for (i, s) in sums.iter().enumerate() {
        for rank in &per_rank {
            assert_eq!((s.0, s.1, &s.2), (rank[i].0, rank[i].1, &rank[i].2));
        }
        assert_sum(s.3, &[per_rank[0][i].3, per_rank[1][i].3], &s.2);
    }
    // ioz report prints the run again, byte for byte.
    let again = run(Command::new(IOZ)
        .args(["report", "r.json"])
        .env("IOZ_HISTORY", d.join("history"))
        .current_dir(d));
    again.expect_code(0);
    assert_eq!(again.stdout, r.stdout);
    // The HTML report says whose sum its tables and figures are.
    let page = run(Command::new(IOZ)
        .args(["report", "r.json", "--html", "r.html"])
        .env("IOZ_HISTORY", d.join("history"))
        .current_dir(d));
    page.expect_code(0);
    let html = fs::read_to_string(d.join("r.html")).unwrap();
    assert!(
        html.contains(&format!(
            "<th scope=\"row\">Cluster</th><td>2 ranks at once, each on its own test file \
             (rank 0 on {host}, rank 1 on {host}); every table and figure below is their sum"
        )),
        "no cluster line in the page"
    );
    assert!(
        html.contains("<th scope=\"row\">Test file</th><td><code>t.0</code>, <code>t.1</code>"),
        "the ranks' test files"
    );
    // Without -w every rank's file goes.
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(dir.path(), 2, AUTO);
    expect(&r, 0);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
    assert_no_rank_left(dir.path());
}

fn every_cell_begins_on_all_ranks_together() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Rank 1 arrives 200 ms late at every cell (6 cells): with a barrier per
    // cell rank 0 waits for it each time, so their starts stay together
    // while rank 0's own are 200 ms apart at least; without one rank 0 would
    // begin every cell 200 ms before rank 1.
    let r = run(&mut mpirun_command(
        d,
        2,
        &["-x", "IOZ_TEST_LATE_RANK=1"],
        &[
            "-a", "-n", "64k", "-g", "256k", "-y", "32k", "-q", "64k", "-i", "0", "--json",
            "r.json",
        ],
    ));
    expect(&r, 0);
    let j = json(&d.join("r.json"));
    let starts: Vec<Vec<u64>> = j["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["cell_starts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["unix_ns"].as_u64().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(starts[0].len(), 6, "{j}");
    assert_eq!(starts[1].len(), 6, "{j}");
    // A rank released by the barrier may still wait for a core (the suite
    // keeps 2 cores busy; 0.7 s has been seen): most cells, not all.
    let together = (0..6)
        .filter(|&cell| starts[0][cell].abs_diff(starts[1][cell]) < 100_000_000)
        .count();
    assert!(
        together >= 4,
        "the ranks began only {together} of 6 cells within 100 ms of each other: {starts:?}"
    );
    for cell in 1..6 {
        let gap = starts[0][cell] - starts[0][cell - 1];
        assert!(gap >= 200_000_000, "rank 0 did not wait: {starts:?}");
    }
}

fn an_io_error_on_one_rank_ends_the_job_at_the_next_cell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (w0, w1) = (d.join("w0"), d.join("w1"));
    fs::create_dir(&w0).unwrap();
    fs::create_dir(&w1).unwrap();
    // -+m: rank 1's file (the client file's fourth column) is the only one
    // whose name ends in "t.tmp". The shim corrupts its 40th read: cell 0
    // (64 kB in 4 kB records) reads 32 records over its read and reread
    // passes, so it is the 8th read of cell 1's read pass (offset 56 kB).
    let clients = d.join("clients");
    fs::write(
        &clients,
        format!(
            "localhost {} {bin}\nlocalhost {} {bin} c-t.tmp\n",
            w0.display(),
            w1.display(),
            bin = ioz_mpi()
        ),
    )
    .unwrap();
    let r = run(Command::new(ioz_mpi())
        .args(AUTO)
        .args(["-V", "165", "--json", "r.json", "-+m"])
        .arg(&clients)
        .env("LD_PRELOAD", shim())
        .env("FLIP_CALL", "40")
        .env("FLIP_BYTE", "100")
        .current_dir(d));
    expect(&r, 1);
    let host = host_name();
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ioz: ") && !l.starts_with("ioz: warning"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].starts_with(&format!(
            "ioz: rank 1 on {host}: verify the data read from c-t.tmp at offset 57344 during the \
             read pass: data mismatch (-V 165)"
        )),
        "{}",
        errors[0]
    );
    // Every rank stopped after cell 1: rank 0 measured it whole, rank 1 up
    // to its failed read pass, the sum where both measured.
    let host0 = format!("Rank 0 on {host}, test file ioz.tmp.0:");
    let host1 = format!("Rank 1 on {host}, test file c-t.tmp:");
    let rank0 = table(&r.stdout, &host0);
    let rank1 = table(&r.stdout, &host1);
    let sum = table(&r.stdout, "Sum of the 2 ranks");
    assert_eq!(rank0.iter().map(Vec::len).collect::<Vec<_>>(), [6, 6]);
    assert_eq!(rank1.iter().map(Vec::len).collect::<Vec<_>>(), [6, 4]);
    assert_eq!(sum.iter().map(Vec::len).collect::<Vec<_>>(), [6, 4]);
    assert!(
        r.stdout.contains("ioz test failed: rank 1 on"),
        "{}",
        r.stdout
    );
    let j = json(&d.join("r.json"));
    assert!(
        j["status"]["failed"]
            .as_str()
            .is_some_and(|m| m.starts_with("rank 1 on")),
        "{}",
        j["status"]
    );
    // Both files removed, no rank left.
    assert_eq!(list_dir(&w0), Vec::<String>::new());
    assert_eq!(list_dir(&w1), Vec::<String>::new());
    assert_no_rank_left(&w0);
    assert_no_rank_left(&w1);
}

fn a_rank_that_cannot_make_its_file_refuses_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (w0, w1) = (d.join("w0"), d.join("w1"));
    fs::create_dir(&w0).unwrap();
    fs::create_dir(&w1).unwrap();
    let clients = d.join("clients");
    fs::write(
        &clients,
        format!(
            "localhost {} {bin}\nlocalhost {} {bin} no/such/dir/f\n",
            w0.display(),
            w1.display(),
            bin = ioz_mpi()
        ),
    )
    .unwrap();
    let r = run(Command::new(ioz_mpi())
        .args(AUTO)
        .arg("-+m")
        .arg(&clients)
        .current_dir(d));
    expect(&r, 2);
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ioz: "))
        .collect();
    assert_eq!(
        said,
        [format!(
            "ioz: rank 1 on {}: cannot create the test file no/such/dir/f: the directory \
             no/such/dir does not exist",
            host_name()
        )],
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(list_dir(&w0), Vec::<String>::new());
    assert_eq!(list_dir(&w1), Vec::<String>::new());
}

fn sigint_to_mpirun_removes_every_rank_s_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // -+q 30: every rank pauses 30 s after its first pass, its file made;
    // the pause holds the ranks' stop back (as it holds one machine's), so
    // mpirun's SIGKILL ends them and their wardens remove their files.
    let child = mpirun_command(
        d,
        2,
        &[],
        &["-s", "64k", "-r", "4k", "-i", "0", "-+q", "30"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while list_dir(d) != ["ioz.tmp.0", "ioz.tmp.1"] {
        assert!(
            Instant::now() < deadline,
            "no files made: {:?}",
            list_dir(d)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: our own child, still running.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(20), "not stopped");
    // The wardens may remove them a moment after mpirun returns.
    assert!(within(5, || list_dir(d).is_empty()), "{:?}", list_dir(d));
    assert_no_rank_left(d);
}

fn single_mode_over_two_runs_repeats_the_plan_cell_by_cell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-s", "64k", "-r", "4k", "-r", "16k", "-i", "0", "--runs", "2", "--json", "r.json",
        ],
    );
    expect(&r, 0);
    // Three tables of means, each with its spread over the runs.
    assert_eq!(
        r.stdout.matches("Standard deviation over the runs").count(),
        3,
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stdout.matches("Runs per cell: 2 (every cell).").count(),
        3
    );
    let j = json(&d.join("r.json"));
    for rank in j["ranks"].as_array().unwrap() {
        // 2 cells × 2 passes × 2 runs; a barrier before each cell of each run.
        assert_eq!(rates(&rank["cells"]).len(), 8);
        let runs: Vec<u64> = rank["cell_starts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["run"].as_u64().unwrap())
            .collect();
        assert_eq!(runs, [0, 0, 1, 1]);
    }
    assert_eq!(rates(&j["cells"]).len(), 8);
    assert_eq!(list_dir(d), ["r.json"]);
}

fn a_two_rank_run_compares_with_a_one_host_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = [
        "-a", "-n", "64k", "-g", "128k", "-y", "32k", "-q", "64k", "-i", "0",
    ];
    let mut two = plan.to_vec();
    two.extend(["--json", "two.json"]);
    expect(&mpirun_ioz(d, 2, &two), 0);
    let one = run(Command::new(IOZ)
        .args(plan)
        .args(["--json", "one.json", "--no-history"])
        .current_dir(d));
    one.expect_code(0);
    let r = run(Command::new(IOZ)
        .args(["compare", "one.json", "two.json"])
        .env("IOZ_HISTORY", d.join("history"))
        .current_dir(d));
    r.expect_code(0);
    // The two-rank run is its clients' sum, and its label says so.
    assert!(
        r.stdout.contains("two (sum of 2 clients) against one"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("8 cells compared"), "{}", r.stdout);
    assert!(
        r.stdout.contains("two (sum of 2 clients) / one"),
        "{}",
        r.stdout
    );
}

fn what_is_not_done_across_ranks_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (option, says) in [
        (&["-Q"][..], "ioz: -Q is not done across ranks yet"),
        (
            &["--latency"][..],
            "ioz: --latency, -+z, -+O, -+T (per-operation latencies) are not done across ranks yet",
        ),
    ] {
        let mut args = vec!["-a", "-n", "64k", "-g", "64k", "-i", "0"];
        args.extend(option);
        let r = mpirun_ioz(dir.path(), 2, &args);
        expect(&r, 2);
        // Once, by rank 0 (mpirun's own report of the job is not ioz's).
        let said: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.starts_with("ioz: "))
            .collect();
        assert_eq!(said, [says], "{}", r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert_eq!(list_dir(dir.path()), Vec::<String>::new());
    }
    // Ranks started with other plans (an MPMD launch) would not meet at
    // the same cells.
    let r = run(Command::new("mpirun")
        .args(mpirun_options(1))
        .args([&ioz_mpi(), "-s", "64k", "-i", "0", ":", "-np", "1"])
        .args([&ioz_mpi(), "-s", "128k", "-i", "0"])
        .current_dir(dir.path()));
    expect(&r, 2);
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ioz: "))
        .collect();
    assert_eq!(
        said,
        [format!(
            "ioz: rank 1 on {}: its plan (cells or --runs) differs from rank 0's: give every \
             rank the same options",
            host_name()
        )],
        "{}",
        r.stderr
    );
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}
