//! Cluster mode that holds as the job grows (issue 36): ranks as lean as
//! one alone, stops linear in the ranks, gathers past their pieces, the job
//! recorded, a rank that starts late counted as not running, ranks on one
//! host reading one clock, and -+m passing ioz's variables, the typed
//! command line and a client file of 100,000 lines.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::fixtures::cluster::{
    assert_no_rank_left, expect, host_name, ioz_mpi, mpirun_command, mpirun_ioz,
};
use crate::fixtures::{Test, list_dir, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        sixteen_ranks_stay_as_lean_as_one_and_their_stops_linear => [Mpi],
        a_rank_that_starts_late_is_not_running_until_it_starts => [MpiTestHooks],
        a_gather_past_its_piece_size_comes_whole => [MpiTestHooks],
        ranks_on_one_host_read_one_clock => [Mpi],
        plus_m_passes_the_history_and_shows_the_command_line_typed => [Mpi],
        plus_m_checks_100_000_client_lines_at_once => [Mpi],
        plus_t_gives_every_host_a_row_and_saves_its_table => [Mpi],
    ]
}

/// The JSON a run saved, which the schema describes.
fn json(path: &Path) -> Value {
    let saved = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    crate::json_schema::assert_valid(&saved);
    saved
}

/// The first line of `stdout` that starts with `start`.
fn line<'a>(stdout: &'a str, start: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line {start:?} in:\n{stdout}"))
}

fn sixteen_ranks_stay_as_lean_as_one_and_their_stops_linear() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let job = |ranks: u32, out: &str| {
        let n = ranks.to_string();
        let r = mpirun_ioz(
            d,
            ranks,
            &[
                "-t", &n, "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "--json", out,
            ],
        );
        expect(&r, 0);
        json(&d.join(out))["job"].clone()
    };
    let one = job(1, "one.json");
    let many = job(16, "many.json");
    // Each rank once faulted in every local peer's Open MPI segment
    // (4 MB each): 16 ranks took 60 MB more a rank than one alone.
    let kib = |j: &Value, k: &str| j["memory"][k].as_u64().unwrap();
    let alone = kib(&one, "largest_kib");
    assert!(alone > 0, "{one}");
    assert!(
        kib(&many, "largest_kib") <= alone + 16 * 1024,
        "one rank {alone} KiB, the largest of 16: {many}"
    );
    assert!(kib(&many, "rank_0_kib") <= kib(&many, "largest_kib"));
    // The job as recorded: mpirun's 16 ranks, all on this host.
    assert_eq!(many["launcher"], "mpirun", "{many}");
    assert_eq!(many["ranks"], 16);
    assert_eq!(many["hosts"], serde_json::json!([[host_name(), 16]]));
    assert!(many.get("slurm").is_none(), "{many}");
    // Four phases (write, rewrite, read, reread): each rank's stop goes to
    // rank 0, which tells every other rank once, at most 2·15 a phase
    // (every rank to every other was up to 16·15 = 240).
    let stops = many["traffic"]["stop_messages"].as_u64().unwrap();
    assert!(stops > 0 && stops <= 4 * 2 * 15, "{many}");
    assert_eq!(one["traffic"]["stop_messages"], 0, "{one}");
    assert_eq!(list_dir(d), ["many.json", "one.json"]);
    assert_no_rank_left(d);
}

fn a_rank_that_starts_late_is_not_running_until_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Rank 1 releases its worker 300 ms after the barrier: rank 0's 1 MiB
    // is long written by then.
    let r = run(mpirun_command(
        d,
        2,
        &["-x", "IOZ_TEST_LATE_START_RANK=1"],
        &[
            "-t", "2", "-s", "1m", "-r", "64k", "-i", "0", "--json", "run.json",
        ],
    )
    .env("IOZ_TEST_LATE_START_RANK", "1"));
    expect(&r, 0);
    // They never ran at once: nothing was counted while all ran (main
    // said 100.00 %).
    let stonewalled = line(&r.stdout, "\tStonewalled: ");
    assert!(
        stonewalled.starts_with(
            "\tStonewalled: 0.00% of the planned 2048.00 KB counted while all threads ran"
        ),
        "{}",
        r.stdout
    );
    let skew = &json(&d.join("run.json"))["throughput"][0]["skew"];
    let finish = skew["first_finish_ns"].as_u64().unwrap();
    let late = skew["ranks"][1]["start_offset_ns"].as_u64().unwrap();
    assert!(late >= 250_000_000, "{skew}");
    assert!(finish < late, "{skew}");
    assert_no_rank_left(d);
}

fn a_gather_past_its_piece_size_comes_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "-t", "3", "-s", "128k", "-r", "64k", "-i", "0", "-x", "--json", "run.json",
    ];
    // Every gather past 64 bytes comes in pieces of 64 bytes, the way past
    // MPI's 2 GiB counts.
    let r = run(
        mpirun_command(d, 3, &["-x", "IOZ_TEST_GATHER_PIECE=64"], &args)
            .env("IOZ_TEST_GATHER_PIECE", "64"),
    );
    expect(&r, 0);
    let saved = json(&d.join("run.json"));
    let results = saved["throughput"][0]["results"].as_array().unwrap();
    let ranks: Vec<u64> = results
        .iter()
        .map(|w| w["client"]["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [0, 1, 2], "{saved}");
    assert!(
        results.iter().all(|w| w["bytes"] == 128 * 1024),
        "{results:?}"
    );
    let traffic = &saved["job"]["traffic"];
    let gathered = traffic["gathered_bytes"].as_u64().unwrap();
    // Two ranks' share of the gathers, 64 bytes a message at most.
    assert!(
        traffic["messages"].as_u64().unwrap() >= gathered / 3 / 64,
        "{traffic}"
    );
    // The same run in one piece says the same of every worker.
    let r = mpirun_ioz(d, 3, &args);
    expect(&r, 0);
    let whole = json(&d.join("run.json"));
    let bytes = |s: &Value| -> Vec<Value> {
        s["throughput"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["bytes"].clone())
            .collect()
    };
    assert_eq!(bytes(&whole), bytes(&saved));
    assert_no_rank_left(d);
}

fn ranks_on_one_host_read_one_clock() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t", "2", "-s", "1m", "-r", "64k", "-i", "0", "--json", "run.json",
        ],
    );
    expect(&r, 0);
    // Measured, as on one machine: no estimate, no "not measured".
    let parent = line(
        &r.stdout,
        "\tParent sees throughput for  2 initial writers \t= ",
    );
    assert!(parent.ends_with(" KB/sec"), "{parent}");
    let saved = json(&d.join("run.json"));
    for rank in saved["throughput"][0]["skew"]["ranks"].as_array().unwrap() {
        assert_eq!(rank["clock"]["offset_ns"], 0, "{rank}");
        assert_eq!(rank["clock"]["round_trips"], 0, "{rank}");
    }
    // Not one clock message: only the stonewall's stops.
    let traffic = &saved["job"]["traffic"];
    assert_eq!(traffic["messages"], traffic["stop_messages"], "{traffic}");
}

/// A client file of `lines` lines for this machine, its clients in `d`.
fn client_file(d: &Path, lines: usize) -> String {
    let line = format!("localhost {} {}\n", d.display(), ioz_mpi());
    line.repeat(lines)
}

/// `ioz -+m …` (the MPI build) in `d` with `env`, within `seconds`.
fn plus_m(d: &Path, args: &[&str], env: &[(&str, &str)], seconds: u32) -> crate::fixtures::Run {
    let mut command = Command::new("timeout");
    command
        .arg(seconds.to_string())
        .arg(ioz_mpi())
        .args(args)
        .env_remove("IOZ_NO_HISTORY")
        .envs(env.iter().copied())
        .current_dir(d);
    run(&mut command)
}

fn plus_m_passes_the_history_and_shows_the_command_line_typed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("clients"), client_file(d, 2)).unwrap();
    let args = [
        "-+m", "clients", "-t", "2", "-s", "128k", "-r", "64k", "-i", "0", "--json", "run.json",
    ];
    // A history named relative to where the user is: the ranks start in
    // the clients' working directory, and must record it there all the same.
    let r = plus_m(d, &args, &[("IOZ_HISTORY", "hist")], 120);
    expect(&r, 0);
    let runs: Vec<String> = list_dir(&d.join("hist/runs"));
    assert_eq!(runs.len(), 1, "{runs:?}\n{}", r.stderr);
    let typed = format!("\tCommand line used: {} {}", ioz_mpi(), args.join(" "));
    assert!(r.stdout.contains(&format!("{typed}\n")), "{}", r.stdout);
    let saved = json(&d.join("run.json"));
    assert_eq!(saved["job"]["launcher"], "-+m");
    let mut line: Vec<String> = vec![ioz_mpi()];
    line.extend(args.iter().map(|a| a.to_string()));
    assert_eq!(saved["config"]["command_line"], serde_json::json!(line));
    // IOZ_NO_HISTORY reaches rank 0 too: nothing recorded anywhere.
    let none = d.join("none");
    let r = plus_m(
        d,
        &args,
        &[
            ("IOZ_NO_HISTORY", "1"),
            ("IOZ_HISTORY", none.to_str().unwrap()),
        ],
        120,
    );
    expect(&r, 0);
    assert!(!none.exists(), "{}", r.stderr);
    assert_no_rank_left(d);
}

fn plus_m_checks_100_000_client_lines_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("clients"), client_file(d, 100_000)).unwrap();
    // Single mode: every client is a rank. Each check once compared every
    // pair of lines (40,000 took 113 s); a pass each is a blink, and 60 s
    // leave a loaded machine room.
    let r = plus_m(
        d,
        &[
            "-+m",
            "clients",
            "-s",
            "64k",
            "-r",
            "64k",
            "-i",
            "0",
            "--dry-run",
        ],
        &[],
        60,
    );
    expect(&r, 0);
    let ranks: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("-np 1 --host localhost:100000 --wdir "))
        .collect();
    assert_eq!(ranks.len(), 100_000, "{}", r.stderr);
}

fn plus_t_gives_every_host_a_row_and_saves_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // One rank: its host's row is rank 0 with itself (it once said "No
    // pair to test"), and the table is saved.
    let r = mpirun_ioz(d, 1, &["-+t", "--json", "one.json"]);
    expect(&r, 0);
    let host = host_name();
    assert!(
        r.stdout.contains(&format!("\t0 -> 0  {host} -> {host}  ")),
        "{}",
        r.stdout
    );
    let saved: Value =
        serde_json::from_str(&fs::read_to_string(d.join("one.json")).unwrap()).unwrap();
    assert_eq!(saved["ranks"], 1, "{saved}");
    assert_eq!(saved["message_bytes"], 1 << 20, "{saved}");
    let pairs = saved["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{saved}");
    assert_eq!(pairs[0]["from"]["rank"], 0);
    assert_eq!(pairs[0]["to"]["rank"], 0);
    for way in ["there_ns", "back_ns", "round_trip_ns"] {
        assert!(pairs[0]["times"][way].as_u64().unwrap() > 0, "{saved}");
    }
    // Two ranks on this host: rank 1 is the host's row, no self row.
    let r = mpirun_ioz(d, 2, &["-+t", "--json", "two.json"]);
    expect(&r, 0);
    let saved: Value =
        serde_json::from_str(&fs::read_to_string(d.join("two.json")).unwrap()).unwrap();
    let pairs = saved["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{saved}");
    assert_eq!(pairs[0]["to"]["rank"], 1);
    assert_eq!(list_dir(d), ["one.json", "two.json"]);
    assert_no_rank_left(d);
}
