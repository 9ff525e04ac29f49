//! Cluster mode for real clusters (issue 29): each client's own target and
//! environment recorded and compared, the ranks' start skew and end
//! imbalance, "Parent sees" saying why it is missing, the stonewall's count
//! measured, a user-space network file system disclosed, IOzone's network
//! test (-+t), Slurm's srun, and 64 ranks on two cores.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use crate::fixtures::cluster::{
    assert_a_worker_per_rank, assert_no_rank_left, child_lines, expect, file_len, host_name,
    ioz_mpi, mpirun_ioz, two_hosts, xfer_kb,
};
use crate::fixtures::netfs::Sshfs;
use crate::fixtures::{IOZ, Test, Tmpfs, assert_refused, ioz, list_dir, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        plus_m_records_each_client_s_own_target_on_another_file_system => [Mpi, Root, Tmpfs],
        every_rank_s_environment_is_kept_and_what_differs_is_named => [Mpi, Root, Tmpfs],
        the_ranks_start_skew_is_saved_for_every_phase_and_every_cell => [Mpi, Root],
        parent_sees_says_why_a_clock_could_not_be_aligned => [MpiTestHooks, Root],
        a_rank_that_ran_on_after_the_first_finish_is_left_out_of_the_count => [MpiTestHooks, Root],
        a_user_space_network_file_system_is_disclosed_and_never_cpu_cached => [Sshfs],
        plus_t_measures_each_client_with_rank_0_and_every_pair => [Mpi, Root],
        plus_t_and_every_pair_are_refused_outside_a_cluster,
        a_time_server_is_accepted_with_one_line_saying_why_none_is_needed => [Mpi, Root],
        srun_starts_the_ranks_as_mpirun_does => [Mpi, Slurm],
        copies_started_by_srun_without_mpi_are_refused => [Mpi, Slurm],
        sixty_four_ranks_on_two_cores => [Mpi],
    ]
}

/// The first line of `stdout` that starts with `start`.
fn line<'a>(stdout: &'a str, start: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line {start:?} in:\n{stdout}"))
}

/// The JSON a run saved, which the schema describes.
fn json(path: &Path) -> Value {
    let saved = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    crate::json_schema::assert_valid(&saved);
    saved
}

fn plus_m_records_each_client_s_own_target_on_another_file_system() {
    let hosts = two_hosts();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Both clients' test files on a file system of their own.
    let mnt = Tmpfs::mount(&d.join("mnt"), "size=4m");
    let (a, b) = (mnt.path().join("a.dat"), mnt.path().join("b.dat"));
    let workdirs = hosts.client_file(d, &[a.to_str(), b.to_str()]);
    let history = d.join("history");
    let r = run(hosts
        .command(
            d,
            &[
                "-t", "2", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-w", "-+m", "clients",
                "--json", "run.json", "--html", "run.html",
            ],
            &[],
        )
        .env_remove("IOZ_NO_HISTORY")
        .env("IOZ_HISTORY", &history));
    expect(&r, 0);
    // The files landed there, none in the working directories.
    assert_eq!(file_len(&a), 256 << 10);
    assert_eq!(file_len(&b), 256 << 10);
    for w in &workdirs {
        assert_eq!(list_dir(w), Vec::<String>::new());
    }
    let saved = json(&d.join("run.json"));
    let target = &saved["environment"]["target"];
    assert_eq!(target["fs_type"], "tmpfs", "{target}");
    assert_eq!(target["path"], a.to_str().unwrap());
    assert_eq!(target["mount_point"], mnt.path().to_str().unwrap());
    let ranks = saved["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    for (rank, (file, host)) in ranks.iter().zip([(&a, "node-a"), (&b, "node-b")]) {
        assert_eq!(rank["client"]["host"], host);
        assert_eq!(rank["test_file"], file.to_str().unwrap());
        let env = &rank["environment"];
        assert_eq!(env["hostname"], host);
        assert_eq!(env["target"]["path"], file.to_str().unwrap());
        assert_eq!(env["target"]["fs_type"], "tmpfs");
        // A throughput run's ranks hold no table of their own.
        assert!(rank.get("cells").is_none(), "{rank}");
    }
    // The history lists the run on that file system; the page names both files.
    let listed = run(Command::new(IOZ)
        .args(["history", "list"])
        .env_remove("IOZ_NO_HISTORY")
        .env("IOZ_HISTORY", &history));
    let row = listed.stdout.lines().nth(1).unwrap_or_default();
    assert!(row.contains("node-a,node-b (2 ranks)"), "{}", listed.stdout);
    assert!(row.contains(" tmpfs "), "{}", listed.stdout);
    let html = fs::read_to_string(d.join("run.html")).unwrap();
    for file in [&a, &b] {
        assert!(
            html.contains(&format!("<code>{}</code>", file.display())),
            "no {} in the page",
            file.display()
        );
    }
}

fn every_rank_s_environment_is_kept_and_what_differs_is_named() {
    let hosts = two_hosts();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Rank 0 on a tmpfs of its own, rank 1 in its working directory.
    let mnt = Tmpfs::mount(&d.join("mnt"), "size=4m");
    let a = mnt.path().join("a.dat");
    hosts.client_file(d, &[a.to_str(), None]);
    let r = hosts.ioz(
        d,
        &[
            "-t", "2", "-s", "128k", "-r", "64k", "-i", "0", "-+m", "clients", "--json",
            "run.json", "--html", "run.html",
        ],
        &[],
    );
    expect(&r, 0);
    let saved = json(&d.join("run.json"));
    let ranks = saved["ranks"].as_array().unwrap();
    let mount_point = |rank: usize| {
        ranks[rank]["environment"]["target"]["mount_point"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(mount_point(0), mnt.path().to_str().unwrap());
    let theirs = mount_point(1);
    assert_ne!(theirs, mount_point(0));
    // Said once, after the results: rank 1's mount point is another.
    let said = format!("mount point: {} → {theirs}", mnt.path().display());
    assert!(
        r.stdout.contains(
            "\n\tThe ranks' environments differ from rank 0's (the one recorded for the run):\n"
        ),
        "{}",
        r.stdout
    );
    let line = line(&r.stdout, "\t  rank 1 on node-b: ");
    assert!(line.contains(&said), "{line}");
    assert!(
        !line.contains("host: "),
        "a host name is no setting: {line}"
    );
    // The page shows the differences; ioz env compares two ranks of the run.
    let html = fs::read_to_string(d.join("run.html")).unwrap();
    assert!(
        html.contains("<section id=\"rank-environments\">"),
        "no section"
    );
    assert!(html.contains("<td>rank 1 on node-b</td><td>mount point</td>"));
    let diff = ioz(d, &["env", "--diff", "run.json#rank=0", "run.json#rank=1"]);
    diff.expect_code(0);
    assert!(diff.stdout.contains(&said), "{}", diff.stdout);
    let refused = ioz(d, &["env", "--diff", "run.json#rank=0", "run.json#rank=7"]);
    assert_refused(&refused, "run.json#rank=7: it has ranks 0 to 1, not 7");
}

/// The phase blocks of a stdout, each with its label line first.
fn blocks(stdout: &str) -> Vec<&str> {
    stdout
        .split("\n\n")
        .filter(|b| b.trim_start().starts_with("Children see"))
        .collect()
}

fn the_ranks_start_skew_is_saved_for_every_phase_and_every_cell() {
    let hosts = two_hosts();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    hosts.client_file(d, &[None, None]);
    // Without stonewalling every rank moves all its records.
    let r = hosts.ioz(
        d,
        &[
            "-t", "2", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-x", "-+m", "clients",
            "--json", "tp.json",
        ],
        &[],
    );
    expect(&r, 0);
    let saved = json(&d.join("tp.json"));
    let phases = saved["throughput"].as_array().unwrap();
    let printed = blocks(&r.stdout);
    assert_eq!(printed.len(), phases.len(), "{}", r.stdout);
    for (phase, block) in phases.iter().zip(printed) {
        let skew = &phase["skew"];
        let ranks = skew["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 2, "{skew}");
        let offsets: Vec<u64> = ranks
            .iter()
            .map(|r| r["start_offset_ns"].as_u64().unwrap())
            .collect();
        assert_eq!(offsets.iter().min(), Some(&0), "{skew}");
        assert_eq!(
            skew["start_skew_ns"].as_u64(),
            offsets.iter().max().copied()
        );
        for (k, rank) in ranks.iter().enumerate() {
            assert_eq!(rank["client"]["rank"], k);
            assert_eq!(rank["operations"], 4, "256 KiB in 64 KiB records: {rank}");
            assert!(rank["elapsed_ns"].as_u64().unwrap() > 0);
            // Without stonewalling nobody is told to stop.
            assert!(rank.get("stop_reached_after_ns").is_none());
        }
        assert_eq!(ranks[1]["clock"]["round_trips"], 32, "{skew}");
        assert!(ranks[1]["clock"]["offset_ns"].is_i64(), "{skew}");
        // The line says so exactly when the skew is over 1 % of the phase
        // and more than half the round trip the clocks were aligned by.
        let span = phase["parent_elapsed_ns"].as_u64().unwrap();
        let skewed = skew["start_skew_ns"].as_u64().unwrap();
        let blur = ranks[1]["clock"]["shortest_round_trip_ns"]
            .as_u64()
            .unwrap()
            / 2;
        let worth = skewed as f64 > 0.01 * span as f64 && skewed > blur;
        assert_eq!(block.contains("\tStart skew: "), worth, "{skew}\n{block}");
    }
    // Single and auto mode: every cell of every run, each rank's start.
    let r = hosts.ioz(
        d,
        &[
            "-a",
            "-n",
            "64k",
            "-g",
            "128k",
            "-y",
            "16k",
            "-q",
            "32k",
            "-i",
            "0",
            "--runs",
            "2",
            "-+m",
            "clients",
            "--json",
            "auto.json",
        ],
        &[],
    );
    expect(&r, 0);
    let saved = json(&d.join("auto.json"));
    let cells = saved["cell_skews"].as_array().unwrap();
    // 64k and 128k files, 16k and 32k records: 4 cells, twice.
    assert_eq!(cells.len(), 8, "{}", saved["cell_skews"]);
    for c in cells {
        let ranks = c["skew"]["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 2);
        let records =
            c["cell"]["file_bytes"].as_u64().unwrap() / c["cell"]["record_bytes"].as_u64().unwrap();
        for rank in ranks {
            // -i 0: the write and the rewrite.
            assert_eq!(rank["operations"].as_u64(), Some(2 * records), "{c}");
            assert!(rank["start_offset_ns"].is_u64(), "{c}");
        }
    }
}

fn parent_sees_says_why_a_clock_could_not_be_aligned() {
    let hosts = two_hosts();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    hosts.client_file(d, &[None, None]);
    let args = [
        "-t", "2", "-s", "128k", "-r", "64k", "-i", "0", "-+m", "clients", "--json", "run.json",
    ];
    // Every answer of rank 1's clock 3 ms late: no round trip under 2 ms.
    let r = hosts.ioz(d, &args, &[("IOZ_TEST_SLOW_CLOCK_RANK", "1")]);
    expect(&r, 0);
    let line = line(
        &r.stdout,
        "\tParent sees throughput for  2 initial writers \t= ",
    );
    assert!(
        line.contains(
            "= not measured: the clock of rank 1 on node-b could not be aligned with rank 0's: \
             the shortest of its 128 round trips took "
        ),
        "{line}"
    );
    assert!(
        line.ends_with(
            ", and only one under 2 ms says where its clock is (both ranks bound to one core, \
             or a loaded machine)"
        ),
        "{line}"
    );
    let saved = json(&d.join("run.json"));
    let phase = &saved["throughput"][0];
    assert!(phase.get("parent_estimated").is_none(), "{phase}");
    let clock = &phase["skew"]["ranks"][1]["clock"];
    assert!(clock["offset_ns"].is_null(), "{clock}");
    assert_eq!(clock["round_trips"], 128);
    assert!(clock["shortest_round_trip_ns"].as_u64().unwrap() > 2_000_000);
    // Only its first 40 answers late: the retry's round trips align it.
    let r = hosts.ioz(
        d,
        &args,
        &[
            ("IOZ_TEST_SLOW_CLOCK_RANK", "1"),
            ("IOZ_TEST_SLOW_CLOCK_ANSWERS", "40"),
        ],
    );
    expect(&r, 0);
    assert!(
        r.stdout
            .contains(" KB/sec (estimated: the ranks' clocks aligned by round trips)"),
        "{}",
        r.stdout
    );
    let clock = &json(&d.join("run.json"))["throughput"][0]["skew"]["ranks"][1]["clock"];
    assert_eq!(clock["round_trips"], 128, "{clock}");
    assert!(clock["offset_ns"].is_i64(), "{clock}");
}

fn a_rank_that_ran_on_after_the_first_finish_is_left_out_of_the_count() {
    let hosts = two_hosts();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    hosts.client_file(d, &[None, None]);
    // Rank 1's worker starts 0.5 s after the barrier; rank 0's has long
    // finished by then, but rank 1 never hears of it (as a host cut off),
    // and writes its whole file.
    let r = hosts.ioz(
        d,
        &[
            "-t", "2", "-s", "1m", "-r", "4k", "-i", "0", "-C", "-d", "500000", "-+m", "clients",
            "--json", "run.json",
        ],
        &[("IOZ_TEST_DEAF_RANK", "1")],
    );
    expect(&r, 0);
    let children = child_lines(&r.stdout, "2 initial writers");
    assert_eq!(xfer_kb(children[0]), 1024.0, "{}", r.stdout);
    assert_eq!(xfer_kb(children[1]), 1024.0, "{}", r.stdout);
    // Not 100 %: rank 1's bytes were moved after rank 0 had stopped; of
    // rank 0's, only what it moved once rank 1 had started (a few ms
    // after it): under 50 %.
    let line = line(&r.stdout, "\tStonewalled: ");
    let skew = &json(&d.join("run.json"))["throughput"][0]["skew"];
    let finish = skew["first_finish_ns"].as_u64().unwrap() as f64;
    let start = |k: usize| skew["ranks"][k]["start_offset_ns"].as_u64().unwrap() as f64;
    // (0 % where rank 1 began only after rank 0's worker had finished, as
    // a loaded machine may have it.)
    let expected = (50.0 * (finish - start(0).max(start(1))) / (finish - start(0))).max(0.0);
    let printed: f64 = line
        .strip_prefix("\tStonewalled: ")
        .and_then(|l| l.split('%').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!((printed - expected).abs() < 0.011, "{line}\n{skew}");
    assert!(
        line.contains(
            "% of the planned 2048.00 KB counted while all threads ran; \
             rank 1 on node-b (1 thread, 1024.00 KB) learned of the first finish "
        ),
        "{line}"
    );
    assert!(
        line.ends_with(" after it: left out, its threads ran on after the others had stopped"),
        "{line}"
    );
    let ranks = &json(&d.join("run.json"))["throughput"][0]["skew"]["ranks"];
    assert_eq!(ranks[0]["stop_reached_after_ns"], 0, "{ranks}");
    let late = ranks[1]["stop_reached_after_ns"].as_u64().unwrap();
    assert!(late > 400_000_000, "{ranks}");
}

fn a_user_space_network_file_system_is_disclosed_and_never_cpu_cached() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let export = d.join("export");
    fs::create_dir(&export).unwrap();
    let mnt = Sshfs::try_mount("storage1", &export, &d.join("mnt"))
        .unwrap_or_else(|e| crate::fixtures::skip(format!("sshfs: {e}")));
    let file = mnt.path().join("f");
    // 64 KiB: inside any last-level CPU cache, yet served by the server.
    let r = run(Command::new(IOZ)
        .args([
            "-s", "64k", "-r", "4k", "-i", "0", "-i", "1", "--json", "run.json",
        ])
        .args(["--html", "run.html", "-f"])
        .arg(&file)
        .current_dir(d));
    r.expect_code(0);
    let saved = json(&d.join("run.json"));
    let target = &saved["environment"]["target"];
    assert_eq!(target["fs_type"], "fuse.sshfs");
    assert_eq!(target["source"], format!("storage1:{}", export.display()));
    assert_eq!(target["network"]["server"], "storage1", "{target}");
    assert!(target["device"].is_null());
    for m in saved["cells"][0]["measurements"].as_array().unwrap() {
        assert_ne!(m["regime"]["code"], "cpu_cache", "{m}");
    }
    // The page and ioz env say alike that there is no device.
    let html = fs::read_to_string(d.join("run.html")).unwrap();
    assert!(
        html.contains("<th scope=\"row\">Device</th><td>none</td>"),
        "no device row"
    );
    assert!(
        !html.contains("class=\"regime cpu_cache\""),
        "a CPU-cache cell"
    );
    let env = ioz(d, &["env", mnt.path().to_str().unwrap()]);
    env.expect_code(0);
    assert!(
        env.stdout.contains("  server:           storage1\n"),
        "{}",
        env.stdout
    );
    assert!(env.stdout.contains("  device: none\n"), "{}", env.stdout);
}

/// The rows of -+t's table: (ranks, hosts), each rate above nothing.
fn network_rows(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("\tRanks "))
        .skip(1)
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            // 0 -> 1  node-a -> node-b  25.3 µs  X  Y
            assert_eq!(words.len(), 10, "{l:?}");
            for rate in &words[8..] {
                assert!(rate.parse::<f64>().unwrap() > 0.0, "{l:?}");
            }
            (words[..3].join(" "), words[3..6].join(" "))
        })
        .collect()
}

fn plus_t_measures_each_client_with_rank_0_and_every_pair() {
    let hosts = two_hosts();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let workdirs = hosts.client_file(d, &[None, None, None]);
    let r = hosts.ioz(d, &["-+t", "-+m", "clients"], &[]);
    expect(&r, 0);
    assert!(
        r.stdout.starts_with(
            "\tNetwork test over MPI, 3 ranks: 16 MiB each way between each rank and rank 0, \
             in 1 MiB messages\n"
        ),
        "{}",
        r.stdout
    );
    let pair = |ranks: &str, hosts: &str| (ranks.to_string(), hosts.to_string());
    assert_eq!(
        network_rows(&r.stdout),
        [
            pair("0 -> 1", "node-a -> node-b"),
            pair("0 -> 2", "node-a -> node-a")
        ]
    );
    let r = hosts.ioz(d, &["-+t", "--every-pair", "-+m", "clients"], &[]);
    expect(&r, 0);
    assert_eq!(network_rows(&r.stdout).len(), 3, "{}", r.stdout);
    assert!(
        r.stdout.contains("\t1 -> 2  node-b -> node-a  "),
        "{}",
        r.stdout
    );
    // -t 2: the client file's first two clients; rank 0 is alone on
    // node-a, so node-a's row is rank 0 with itself. Saved with --json.
    let r = hosts.ioz(
        d,
        &["-+t", "-t", "2", "-+m", "clients", "--json", "net.json"],
        &[],
    );
    expect(&r, 0);
    assert_eq!(
        network_rows(&r.stdout),
        [
            pair("0 -> 0", "node-a -> node-a"),
            pair("0 -> 1", "node-a -> node-b")
        ]
    );
    let saved: Value =
        serde_json::from_str(&fs::read_to_string(d.join("net.json")).unwrap()).unwrap();
    assert_eq!(saved["ranks"], 2, "{saved}");
    let pairs = saved["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2, "{saved}");
    assert_eq!(pairs[1]["to"]["host"], "node-b", "{saved}");
    assert!(
        pairs[1]["times"]["there_ns"].as_u64().unwrap() > 0,
        "{saved}"
    );
    fs::remove_file(d.join("net.json")).unwrap();
    // No file made anywhere.
    for w in &workdirs {
        assert_eq!(list_dir(w), Vec::<String>::new());
    }
}

fn plus_t_and_every_pair_are_refused_outside_a_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_refused(
        &ioz(d, &["-+t"]),
        "-+t: the network test measures the network between the clients of a cluster run",
    );
    assert_refused(
        &ioz(d, &["-s", "64k", "--every-pair"]),
        "--every-pair: only with -+t",
    );
}

fn a_time_server_is_accepted_with_one_line_saying_why_none_is_needed() {
    let hosts = two_hosts();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    hosts.client_file(d, &[None, None]);
    let r = hosts.ioz(
        d,
        &[
            "-t", "2", "-s", "64k", "-r", "64k", "-i", "0", "-+H", "timehost", "-+P", "4242",
            "-+m", "clients",
        ],
        &[],
    );
    expect(&r, 0);
    assert!(
        r.stdout.contains(
            "\tNo PIT time server needed (-+H): rank 0 aligns each rank's clock with its own \
             by message round trips\n\tNo PIT time server port needed (-+P) either\n"
        ),
        "{}",
        r.stdout
    );
}

/// `srun SRUN_ARGS… PROGRAM ARGS…` in `dir`.
fn srun(dir: &Path, srun_args: &[&str], program: &str, args: &[&str]) -> crate::fixtures::Run {
    run(Command::new("timeout")
        .args(["120", "srun"])
        .args(srun_args)
        .arg(program)
        .args(args)
        .current_dir(dir))
}

fn srun_starts_the_ranks_as_mpirun_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = srun(
        d,
        &["--mpi=pmix", "-n", "2"],
        &ioz_mpi(),
        &[
            "-t", "2", "-s", "128k", "-r", "64k", "-i", "0", "-C", "-x", "--json", "run.json",
        ],
    );
    expect(&r, 0);
    assert_a_worker_per_rank(&r.stdout, "2 initial writers", 2, &host_name(), 128.0);
    assert_eq!(r.stdout.matches("ioz test complete.").count(), 1);
    let saved = json(&d.join("run.json"));
    assert_eq!(saved["ranks"].as_array().unwrap().len(), 2);
    // The job recorded: srun's, with Slurm's job, step, node and tasks.
    let job = &saved["job"];
    assert_eq!(job["launcher"], "srun", "{job}");
    assert_eq!(job["hosts"], serde_json::json!([[host_name(), 2]]), "{job}");
    let slurm = &job["slurm"];
    assert!(
        slurm["job_id"]
            .as_str()
            .is_some_and(|id| id.parse::<u64>().is_ok()),
        "{job}"
    );
    assert!(slurm["step_id"].is_string(), "{job}");
    assert_eq!(slurm["tasks_per_node"], "2", "{job}");
    assert!(slurm["node_list"].is_string(), "{job}");
    assert_eq!(list_dir(d), ["run.json"]);
}

fn copies_started_by_srun_without_mpi_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = "ioz: started as one of 2 tasks by srun (SLURM_STEP_NUM_TASKS=2) with no MPI \
                between them: each copy would run alone on the same files; give srun \
                --mpi=pmix (srun --mpi=list names those it has) to ioz built with --features mpi";
    let bin = ioz_mpi();
    for program in [IOZ, bin.as_str()] {
        let r = srun(
            d,
            &["--mpi=none", "-n", "2"],
            program,
            &["-t", "2", "-s", "64k", "-r", "64k", "-i", "0"],
        );
        assert_eq!(r.code, Some(2), "{}", r.context());
        assert!(r.stdout.is_empty(), "{}", r.context());
        // Each copy says it, and nothing else.
        let said: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.starts_with("ioz: "))
            .collect();
        assert_eq!(said, [line, line], "{}", r.stderr);
        assert_eq!(list_dir(d), Vec::<String>::new());
    }
}

fn sixty_four_ranks_on_two_cores() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let started = Instant::now();
    let r = mpirun_ioz(
        d,
        64,
        &[
            "-t", "64", "-s", "64k", "-r", "64k", "-i", "0", "-i", "1", "-C", "-x", "--json",
            "run.json",
        ],
    );
    let took = started.elapsed();
    expect(&r, 0);
    for label in ["64 initial writers", "64 readers"] {
        assert_a_worker_per_rank(&r.stdout, label, 64, &host_name(), 64.0);
    }
    let saved = json(&d.join("run.json"));
    assert_eq!(saved["ranks"].as_array().unwrap().len(), 64);
    for phase in saved["throughput"].as_array().unwrap() {
        let ranks = phase["skew"]["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 64);
        assert!(ranks.iter().all(|r| r["operations"] == 1), "{phase}");
    }
    assert_eq!(list_dir(d), ["run.json"]);
    assert_no_rank_left(d);
    eprintln!("64 ranks: the job took {took:?}");
}
