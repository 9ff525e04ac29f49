//! Cluster jobs that once hung until mpirun's time limit, because one rank
//! left the sequence of collective calls the others made: rank 0 whose
//! standard output fails (it alone raises its stop), and ranks started with
//! different options (Open MPI's MPMD syntax, `mpirun -np 1 ioz … : -np 1
//! ioz …`). Each job here has a short --timeout, so that a regression fails
//! rather than hangs.

use std::path::Path;
use std::process::Command;

use crate::fixtures::cluster::{expect, host_name, ioz_mpi, mpirun_options, ranks_left, within};
use crate::fixtures::{Run, Test, list_dir, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        rank_0_s_full_stdout_ends_an_auto_job_on_every_rank => [Mpi],
        rank_0_s_full_stdout_ends_a_throughput_job_on_every_rank => [Mpi],
        throughput_ranks_with_different_plans_are_refused => [Mpi],
        a_rank_that_cannot_run_its_command_line_is_named => [Mpi],
    ]
}

/// The job's time limit: well past what any job here takes when it works.
const TIMEOUT_S: &str = "60";

/// mpirun's options for `ranks` ranks, with the short time limit.
fn options(ranks: u32) -> Vec<String> {
    let mut options = mpirun_options(ranks);
    let at = options.iter().position(|o| o == "--timeout").unwrap() + 1;
    options[at] = TIMEOUT_S.to_string();
    options
}

/// `mpirun -np 2 ioz ARGS…` in `dir`, every rank's stdout /dev/full (a
/// shell that opens it, then becomes the rank: mpirun gives each rank a
/// pipe of its own). Only rank 0 writes to it.
fn with_full_stdout(dir: &Path, args: &[&str]) -> Run {
    run(Command::new("mpirun")
        .args(options(2))
        .args(["sh", "-c", "exec \"$0\" \"$@\" >/dev/full"])
        .arg(ioz_mpi())
        .args(args)
        .current_dir(dir))
}

/// What ioz said, but its warnings (the working set fits in RAM).
fn said(r: &Run) -> Vec<&str> {
    r.stderr
        .lines()
        .filter(|l| l.starts_with("ioz: ") && !l.starts_with("ioz: warning: "))
        .collect()
}

/// The job ended well before its time limit, as rank 0 with a full stdout
/// ends on one host (status 1, one line), every file removed, no rank left.
fn ended_as_a_full_stdout_does(dir: &Path, r: &Run) {
    expect(r, 1);
    assert_eq!(
        said(r),
        ["ioz: cannot write the results to standard output: No space left on device (os error 28)"],
        "{}",
        r.stderr
    );
    assert_eq!(list_dir(dir), Vec::<String>::new());
    assert!(within(10, || ranks_left(dir).is_empty()), "ranks left");
}

/// Auto mode: rank 0's opening lines fail to print, before the first
/// cell's barrier (rank 0 alone stops: it used to wait at the end while
/// the others waited for it at the first cell).
fn rank_0_s_full_stdout_ends_an_auto_job_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let r = with_full_stdout(
        dir.path(),
        &[
            "--no-history",
            "-a",
            "-n",
            "64k",
            "-g",
            "256k",
            "-i",
            "0",
            "-f",
            "F",
        ],
    );
    ended_as_a_full_stdout_does(dir.path(), &r);
}

/// Throughput mode: the same before the first phase's barrier.
fn rank_0_s_full_stdout_ends_a_throughput_job_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let r = with_full_stdout(
        dir.path(),
        &[
            "--no-history",
            "-t",
            "2",
            "-s",
            "256k",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "-f",
            "F",
        ],
    );
    ended_as_a_full_stdout_does(dir.path(), &r);
}

/// `mpirun -np 1 ioz FIRST… : -np 1 ioz SECOND…` in `dir` (an MPMD launch).
fn mpmd(dir: &Path, first: &[&str], second: &[&str]) -> Run {
    run(Command::new("mpirun")
        .args(options(1))
        .arg(ioz_mpi())
        .args(first)
        .args([":", "-np", "1"])
        .arg(ioz_mpi())
        .args(second)
        .current_dir(dir))
}

/// Refused before anything is made (status 2): the one line, no file, no
/// rank left.
fn refused_with(dir: &Path, r: &Run, line: &str) {
    expect(r, 2);
    assert_eq!(said(r), [line], "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(list_dir(dir), Vec::<String>::new());
    assert!(within(10, || ranks_left(dir).is_empty()), "ranks left");
}

/// Rank 1 runs one phase more than rank 0: it used to wait for rank 0 at
/// that phase's barrier until the time limit.
fn throughput_ranks_with_different_plans_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let job = [
        "--no-history",
        "-t",
        "2",
        "-s",
        "64k",
        "-r",
        "64k",
        "-f",
        "F",
    ];
    let r = mpmd(
        dir.path(),
        &[&job[..], &["-i", "0"]].concat(),
        &[&job[..], &["-i", "0", "-i", "1"]].concat(),
    );
    refused_with(
        dir.path(),
        &r,
        &format!(
            "ioz: rank 1 on {}: its plan (worker counts, tests, sizes, -+V/-+L, -+k or --runs) \
             differs from rank 0's: give every rank the same options",
            host_name()
        ),
    );
    // The worker counts of the job too.
    let r = mpmd(
        dir.path(),
        &["--no-history", "-t", "2", "-s", "64k", "-i", "0", "-f", "F"],
        &["--no-history", "-t", "4", "-s", "64k", "-i", "0", "-f", "F"],
    );
    expect(&r, 2);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

/// A rank whose command line does not parse, or is refused across ranks,
/// while rank 0's runs: its reason, named by rank and host, not mpirun's
/// abort alone.
fn a_rank_that_cannot_run_its_command_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let job = ["--no-history", "-t", "2", "-s", "64k", "-i", "0", "-f", "F"];
    let r = mpmd(dir.path(), &job, &[&job[..], &["--bogus"]].concat());
    refused_with(
        dir.path(),
        &r,
        &format!(
            "ioz: rank 1 on {}: unknown option --bogus (ioz -h lists the options)",
            host_name()
        ),
    );
    let job = ["--no-history", "-s", "64k", "-i", "0", "-f", "F"];
    let r = mpmd(dir.path(), &job, &[&job[..], &["-U", "/mnt"]].concat());
    refused_with(
        dir.path(),
        &r,
        &format!(
            "ioz: rank 1 on {}: -U (a remount before every test) is not done across ranks: \
             each rank would unmount a file system the others may be using",
            host_name()
        ),
    );
    // Every rank with the same bad option: rank 0's line alone, as before.
    let r = run(Command::new("mpirun")
        .args(options(2))
        .arg(ioz_mpi())
        .args(["-t", "2", "--bogus"])
        .current_dir(dir.path()));
    refused_with(
        dir.path(),
        &r,
        "ioz: unknown option --bogus (ioz -h lists the options)",
    );
}
