//! A stop ends every mode the same way (issue 23): a Ctrl-C mid-run on one
//! machine, to mpirun (a throughput job, an auto job) and to `ioz -+m`
//! stops the run at the next record; its results so far are printed and
//! saved as interrupted, the run is recorded in the history, ioz says
//! "stopped by SIG…", and no test file and no process is left.
//!
//! Open MPI 4.1's mpirun passes a Ctrl-C (or a SIGTERM) on to its ranks as
//! SIGCONT, then SIGTERM `odls_base_sigkill_timeout` seconds later (3 with
//! the fixture's options), then SIGKILL; it ends with status 1 whatever
//! its ranks did. So the ranks report SIGTERM, and a job run under `ioz
//! -+m` ends with ioz's own status for the user's Ctrl-C: 130.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::fixtures::captured::Captured;
use crate::fixtures::cluster::{
    assert_no_rank_left, binary_holds, ioz_mpi, mpirun_command, rank_pids, wardens_of, within,
};
use crate::fixtures::{IOZ, Test, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        ctrl_c_on_one_machine_saves_and_records_the_phases_so_far,
        ctrl_c_to_mpirun_saves_and_records_a_throughput_job_s_phases_so_far => [Mpi],
        ctrl_c_to_mpirun_saves_and_records_an_auto_job_s_cells_so_far => [Mpi],
        ctrl_c_to_ioz_plus_m_ends_it_with_130_the_job_saved_and_recorded => [Mpi],
        the_default_binary_never_reads_the_test_hooks,
    ]
}

/// Throughput mode: 2 workers, 2048 records each a phase, a millisecond's
/// busy wait before each (-J 1): two seconds a phase, six phases.
const PHASES: &[&str] = &[
    "-t", "2", "-s", "8m", "-r", "4k", "-J", "1", "-i", "0", "-i", "1", "-i", "2", "--json",
    "run.json", "-f", "F",
];

/// Auto mode: 4 kB records in files of 1 to 8 MB (-J 1: a millisecond
/// before each), writes and reads: 1, 2, 4 then 8 seconds a cell.
const CELLS: &[&str] = &[
    "-a", "-n", "1m", "-g", "8m", "-y", "4k", "-q", "4k", "-J", "1", "-i", "0", "-i", "1",
    "--json", "run.json", "-f", "F",
];

/// How long a stopped run may take to end: mpirun's three seconds before
/// it passes the stop on, three more before its SIGKILL, and a loaded
/// machine.
const ENDS_WITHIN: Duration = Duration::from_secs(60);

/// A run stopped mid-way, as it ended.
struct Stopped {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// The MPI ranks running when the signal was sent (by rank), if any.
    ranks: Vec<u32>,
}

impl Stopped {
    fn context(&self) -> String {
        format!(
            "exit status {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Starts `command` in `dir` in a process group of its own (as a shell
/// starts a job), recording runs in the history `history`; once a line
/// of its stdout holds `marker`, sends SIGINT to the group (a terminal's
/// Ctrl-C), and waits for the end.
fn stop_after(command: &mut Command, dir: &Path, history: &Path, marker: &'static str) -> Stopped {
    let mut child = command
        .current_dir(dir)
        // The harness records no run (IOZ_NO_HISTORY): these must be.
        .env_remove("IOZ_NO_HISTORY")
        .env("IOZ_HISTORY", history)
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the run");
    let output = Captured::of(&mut child, marker);
    let marked = output.marker_within(ENDS_WITHIN);
    let ranks: Vec<u32> = rank_pids(dir).into_iter().map(|(_, pid)| pid).collect();
    // SAFETY: kill(2) takes plain integers; the group is our child's.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let code = wait_for(&mut child, ENDS_WITHIN);
    let (stdout, stderr) = output.finish();
    let stopped = Stopped {
        code,
        stdout,
        stderr,
        ranks,
    };
    assert!(marked, "no {marker:?} line: {}", stopped.context());
    stopped
}

/// The exit code of `child`, killed (and the test failed) if it runs
/// longer than `limit`.
fn wait_for(child: &mut Child, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running {limit:?} after its Ctrl-C");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// What every stopped run shows: `code`, the one line saying it stopped
/// by `signal` and where the history recorded it, the closing line, the
/// JSON saved as interrupted by `signal` with at least one `measured`
/// item ("throughput" phases or "cells") and the same run in the history;
/// in `dir` the JSON alone, and no process of `binary` (nor of the ranks'
/// wardens) left.
fn assert_stopped(
    r: &Stopped,
    (code, signal, number): (i32, &str, u64),
    dir: &Path,
    history: &Path,
    (measured, binary): (&str, &str),
) {
    let context = r.context();
    assert_eq!(r.code, Some(code), "{context}");
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ioz: ") && !l.starts_with("ioz: warning: "))
        .collect();
    assert_eq!(
        said,
        [
            format!("ioz: stopped by {signal}; the results above were measured before it"),
            "ioz: saved as run 1 — ioz history show 1".to_string(),
        ],
        "{context}"
    );
    assert!(
        r.stdout
            .ends_with(&format!("\nioz test interrupted by {signal}.\n")),
        "{context}"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(saved["status"]["interrupted"], number, "{context}");
    let items = saved[measured].as_array().map_or(0, Vec::len);
    assert!(items >= 1, "no {measured} saved: {context}");
    // The history holds the same run, listed as interrupted.
    let recorded: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(history.join("runs/1.json")).unwrap()).unwrap();
    assert_eq!(recorded[measured], saved[measured], "{context}");
    let list = Command::new(IOZ)
        .args(["history", "list"])
        .env("IOZ_HISTORY", history)
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    let runs: Vec<&str> = list.lines().skip(1).collect();
    assert_eq!(runs.len(), 1, "{list}");
    assert!(
        runs[0].contains(&format!("interrupted by {signal}")),
        "{list}"
    );
    // Every test file removed, and nothing of the run left running.
    assert_eq!(list_dir(dir), ["run.json"], "{context}");
    assert!(
        within(10, || processes_of(binary, dir).is_empty()),
        "left running: {:?}",
        processes_of(binary, dir)
    );
    assert!(
        within(10, || wardens_of(&r.ranks).is_empty()),
        "wardens left: {:?}",
        wardens_of(&r.ranks)
    );
}

/// The processes running `binary` in `dir`.
fn processes_of(binary: &str, dir: &Path) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let exe = fs::read_link(format!("/proc/{pid}/exe")).ok()?;
            let cwd = fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
            (exe == Path::new(binary) && cwd == dir).then_some(pid)
        })
        .collect()
}

fn ctrl_c_on_one_machine_saves_and_records_the_phases_so_far() {
    let (dir, history) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (d, h) = (dir.path(), history.path());
    // Worker processes, each stopped by the group's SIGINT and by ioz's.
    let r = stop_after(Command::new(IOZ).args(PHASES), d, h, "initial writers");
    assert_stopped(&r, (130, "SIGINT", 2), d, h, ("throughput", IOZ));
}

fn ctrl_c_to_mpirun_saves_and_records_a_throughput_job_s_phases_so_far() {
    let (dir, history) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (d, h) = (dir.path(), history.path());
    let r = stop_after(
        &mut mpirun_command(d, 2, &[], PHASES),
        d,
        h,
        "initial writers",
    );
    assert_eq!(r.ranks.len(), 2, "{}", r.context());
    assert_stopped(&r, (1, "SIGTERM", 15), d, h, ("throughput", &ioz_mpi()));
    assert_no_rank_left(d);
}

fn ctrl_c_to_mpirun_saves_and_records_an_auto_job_s_cells_so_far() {
    let (dir, history) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (d, h) = (dir.path(), history.path());
    // Rank 0's first row: the 1 MB file's.
    let r = stop_after(
        &mut mpirun_command(d, 2, &[], CELLS),
        d,
        h,
        "    1024       4",
    );
    assert_eq!(r.ranks.len(), 2, "{}", r.context());
    assert_stopped(&r, (1, "SIGTERM", 15), d, h, ("cells", &ioz_mpi()));
    // Each rank's cells so far, their sum the run's.
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.join("run.json")).unwrap()).unwrap();
    let ranks = saved["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2, "{}", saved["ranks"]);
    for rank in ranks {
        assert!(!rank["cells"].as_array().unwrap().is_empty(), "{rank}");
    }
}

fn ctrl_c_to_ioz_plus_m_ends_it_with_130_the_job_saved_and_recorded() {
    let (dir, history) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (d, h) = (dir.path(), history.path());
    // Both clients on this host, in the run's directory.
    let elsewhere = tempfile::tempdir().unwrap();
    let clients = elsewhere.path().join("clients");
    let line = format!("localhost {} {}\n", d.display(), ioz_mpi());
    fs::write(&clients, line.repeat(2)).unwrap();
    let mut command = Command::new(ioz_mpi());
    command.args(PHASES).arg("-+m").arg(&clients);
    // mpirun in a group of its own: the Ctrl-C reaches it from ioz alone.
    let r = stop_after(&mut command, d, h, "initial writers");
    assert_eq!(r.ranks.len(), 2, "{}", r.context());
    assert_stopped(&r, (130, "SIGTERM", 15), d, h, ("throughput", &ioz_mpi()));
}

/// Released binaries have no fault injection: the default build does not
/// even hold the names of the variables the test hooks read.
fn the_default_binary_never_reads_the_test_hooks() {
    let hooks_built_in = cfg!(feature = "test-hooks");
    for variable in ["IOZ_TEST_PANIC_RANK", "IOZ_TEST_LATE_RANK"] {
        assert_eq!(
            binary_holds(IOZ, variable),
            hooks_built_in,
            "{variable} in {IOZ}"
        );
    }
}
