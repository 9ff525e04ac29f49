//! `ioz mdtest` (issue 28): mdtest's SUMMARY layout reproduced for every
//! reference output (tests/fixtures/metadata/mdtest/), its tree and item
//! counts for -z/-b/-I/-L, the phases -C -T -E -r and --shape select, the
//! stonewall, the tree removed on success, on a full file system and on
//! Ctrl-C; across two MPI ranks with -u and with a shared tree.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fixtures::cluster::{
    assert_no_rank_left, expect, mpirun_command, mpirun_ioz, rank_pids, within,
};
use crate::fixtures::{IOZ, Test, Tmpfs, assert_refused, data_file, ioz, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        every_reference_summary_layout_is_reproduced,
        trees_and_items_have_mdtest_s_sizes,
        the_phases_measured_are_those_asked,
        the_shapes_are_io500_s,
        a_stonewalled_creation_is_what_the_later_phases_use,
        nothing_is_left_and_nothing_else_touched,
        bad_command_lines_are_refused_with_one_line,
        a_full_file_system_fails_the_run_and_leaves_no_tree => [Tmpfs],
        ctrl_c_stops_the_run_and_removes_the_tree,
        every_interval_of_a_rate_is_positive,
        two_ranks_each_in_its_own_directory => [Mpi],
        two_ranks_in_one_shared_tree_stat_each_other_s_items => [Mpi],
        two_ranks_in_io500_s_easy_shape_over_three_iterations => [Mpi],
        two_ranks_stonewalled_make_the_same_count => [Mpi],
        rank_0_killed_outright_leaves_no_tree => [Mpi],
    ]
}

/// A reference output of mdtest.
fn reference(name: &str) -> String {
    fs::read_to_string(data_file(&format!("metadata/mdtest/{name}"))).unwrap()
}

/// What a script reads of mdtest's output: each SUMMARY table's heading
/// (its iterations), its two header lines, and its rows (the operation's
/// name, then exactly four numbers).
#[derive(Debug, PartialEq)]
struct Summary {
    heading: String,
    header: Vec<String>,
    rows: Vec<(String, usize)>,
}

fn summaries(text: &str) -> Vec<Summary> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with("SUMMARY ") {
            continue;
        }
        let header = vec![lines[i + 1].to_string(), lines[i + 2].to_string()];
        let mut rows = Vec::new();
        for row in &lines[i + 3..] {
            if !row.starts_with("   ") {
                break;
            }
            let fields: Vec<&str> = row.split_whitespace().collect();
            let numbers = fields.iter().filter(|f| f.parse::<f64>().is_ok()).count();
            let name = fields[..fields.len() - numbers].join(" ");
            // The name ends at column 25, each number is 3 decimals.
            assert!(
                fields[fields.len() - numbers..]
                    .iter()
                    .all(|f| f.split('.').nth(1).is_some_and(|d| d.len() == 3)),
                "{row}"
            );
            rows.push((name, numbers));
        }
        out.push(Summary {
            heading: l.to_string(),
            header,
            rows,
        });
    }
    out
}

/// The header lines' kinds, in order (each line's first words).
fn header_kinds(text: &str) -> Vec<String> {
    text.lines()
        .take_while(|l| !l.starts_with("SUMMARY"))
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.split(':')
                .next()
                .unwrap()
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        })
        // The program and its version: mdtest-4.1.0+dev, ioz-mdtest-0.1.0.
        .map(|k| {
            k.replace("mdtest-4.1.0+dev", "#")
                .replace("ioz-mdtest-0.1.0", "#")
        })
        .map(|k| {
            if k.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                "# tasks,".into()
            } else {
                k
            }
        })
        .collect()
}

fn ioz_mdtest(dir: &Path, args: &[&str]) -> crate::fixtures::Run {
    let mut all = vec!["mdtest"];
    all.extend_from_slice(args);
    let r = ioz(dir, &all);
    r.expect_code(0);
    r
}

fn every_reference_summary_layout_is_reproduced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    // The one-process references, and the others' layouts run on one
    // process (the task counts differ: two ranks below).
    let cases: [(&str, Vec<&str>); 5] = [
        ("np1_P.txt", vec!["-n", "50", "-d", &d, "-P"]),
        ("np2_n100.txt", vec!["-n", "100", "-d", &d]),
        (
            "np2_z2b3u.txt",
            vec!["-n", "100", "-z", "2", "-b", "3", "-u", "-d", &d],
        ),
        (
            "np2_easy_i3.txt",
            vec![
                "-n", "200", "-F", "-u", "-L", "-N", "1", "-i", "3", "-d", &d,
            ],
        ),
        (
            "np2_hard.txt",
            vec![
                "-n", "100", "-F", "-w", "3901", "-e", "3901", "-t", "-N", "1", "-d", &d,
            ],
        ),
    ];
    for (name, args) in cases {
        let want = reference(name);
        let have = ioz_mdtest(dir.path(), &args).stdout.clone();
        let (w, h) = (summaries(&want), summaries(&have));
        assert_eq!(h, w, "{name}:\n{have}");
        let mut want_kinds = header_kinds(&want);
        let mut have_kinds = header_kinds(&have);
        // mdtest's debug line names its source line; ioz's does not.
        for k in [&mut want_kinds, &mut have_kinds] {
            k.retain(|l| !l.starts_with("V-0"));
        }
        assert_eq!(have_kinds, want_kinds, "{name}:\n{have}");
        assert!(have.starts_with("-- started at "), "{have}");
        // mdtest's part ends with its finished line and a blank one (ioz's
        // own lines, with -i, come after).
        assert!(have.contains(" --\n\n"), "{have}");
        let finished = have.lines().find(|l| l.starts_with("-- finished at "));
        assert!(finished.is_some_and(|l| l.ends_with(" --")), "{have}");
        let started = have.lines().next().unwrap();
        // -- started at MM/DD/YYYY HH:MM:SS --
        assert_eq!(started.len(), "-- started at 11/26/2026 16:57:17 --".len());
        assert!(
            have.contains(&format!(
                "Command line used: ioz mdtest '{}'",
                args.join("' '")
            )),
            "{have}"
        );
    }
}

/// The saved run of `ioz mdtest args…`.
fn saved(dir: &Path, args: &[&str]) -> Value {
    let json = dir.join("run.json");
    let json_arg = json.to_str().unwrap().to_string();
    let mut all = args.to_vec();
    all.extend(["--json", &json_arg]);
    ioz_mdtest(dir, &all);
    let doc = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    // Every saved metadata run is what schema/run.schema.json describes.
    crate::json_schema::assert_valid(&doc);
    doc
}

/// Each phase's items, by name, in the order measured.
fn items(doc: &Value) -> Vec<(String, u64)> {
    doc["metadata"]["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["op"].as_str().unwrap().to_string(),
                m["items"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn count_of(doc: &Value, op: &str) -> u64 {
    items(doc)
        .into_iter()
        .find(|(o, _)| o == op)
        .map_or(0, |(_, n)| n)
}

fn trees_and_items_have_mdtest_s_sizes() {
    let dir = tempfile::tempdir().unwrap();
    // (args, tree directories, items per phase)
    let cases: [(&[&str], u64, u64); 6] = [
        (&["-n", "20"], 1, 20),
        (&["-n", "20", "-z", "3"], 4, 20),
        (&["-n", "100", "-z", "2", "-b", "3"], 13, 91),
        (&["-n", "100", "-z", "2", "-b", "3", "-L"], 13, 99),
        (&["-I", "5", "-z", "1", "-b", "3"], 4, 20),
        (&["-I", "2", "-z", "2", "-b", "2", "-L"], 7, 8),
    ];
    for (args, dirs, n) in cases {
        let doc = saved(dir.path(), args);
        assert_eq!(count_of(&doc, "tree_creation"), dirs, "{args:?}");
        assert_eq!(count_of(&doc, "tree_removal"), dirs, "{args:?}");
        for op in [
            "directory_creation",
            "directory_stat",
            "directory_rename",
            "directory_removal",
            "file_creation",
            "file_stat",
            "file_read",
            "file_removal",
        ] {
            assert_eq!(count_of(&doc, op), n, "{op} {args:?}");
        }
    }
    let text = ioz_mdtest(dir.path(), &["-n", "100", "-z", "2", "-b", "3"])
        .stdout
        .clone();
    assert!(text.contains("\n1 tasks, 91 files/directories\n"), "{text}");
}

fn the_phases_measured_are_those_asked() {
    let dir = tempfile::tempdir().unwrap();
    let names = |args: &[&str]| -> Vec<String> {
        items(&saved(dir.path(), args))
            .into_iter()
            .map(|(o, _)| o)
            .collect()
    };
    assert_eq!(
        names(&["-n", "10", "-C", "-r"]),
        [
            "tree_creation",
            "directory_creation",
            "directory_removal",
            "file_creation",
            "file_removal",
            "tree_removal"
        ]
    );
    assert_eq!(
        names(&["-n", "10", "-T", "-F"]),
        ["tree_creation", "file_stat", "tree_removal"]
    );
    assert_eq!(
        names(&["-n", "10", "-E", "-D"]),
        ["tree_creation", "tree_removal"],
        "directories have no read phase"
    );
    let rows = summaries(&ioz_mdtest(dir.path(), &["-n", "10", "-D", "-Z", "-i", "2"]).stdout);
    assert_eq!(rows.len(), 1, "-Z: the time table alone");
    assert_eq!(
        rows[0].heading,
        "SUMMARY time (in ms/op): (of 2 iterations)"
    );
    assert_eq!(rows[0].rows.len(), 6);
}

fn the_shapes_are_io500_s() {
    let dir = tempfile::tempdir().unwrap();
    let hard = saved(dir.path(), &["-n", "20", "--shape", "hard"]);
    let m = &hard["config"]["metadata"]["mdtest"];
    assert_eq!(
        (m["write_bytes"].as_u64(), m["read_bytes"].as_u64()),
        (Some(3901), Some(3901))
    );
    assert_eq!(m["shape"], "hard");
    assert_eq!(count_of(&hard, "file_read"), 20);
    assert_eq!(count_of(&hard, "directory_creation"), 0);
    let text = ioz_mdtest(dir.path(), &["-n", "20", "--shape", "easy"])
        .stdout
        .clone();
    assert!(text.contains("1 tasks, 20 files\n"), "{text}");
    assert!(text.contains("WARNING: Read bytes is 0"), "{text}");
    assert!(
        text.contains("V-0: Rank   0 Shifting ranks by 1 for each phase."),
        "{text}"
    );
}

fn a_stonewalled_creation_is_what_the_later_phases_use() {
    let dir = tempfile::tempdir().unwrap();
    let doc = saved(
        dir.path(),
        &["-n", "300000", "-F", "-W", "1", "-C", "-T", "-r"],
    );
    let made = count_of(&doc, "file_creation");
    assert!(made > 0 && made < 300_000, "{made}");
    assert_eq!(count_of(&doc, "file_stat"), made);
    assert_eq!(count_of(&doc, "file_removal"), made);
    let creation = doc["metadata"]["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["op"] == "file_creation")
        .unwrap();
    let seconds = creation["elapsed_ns"].as_f64().unwrap() / 1e9;
    assert!((1.0..3.0).contains(&seconds), "{seconds} s");
    assert_eq!(list_dir(dir.path()), ["run.json"]);
}

fn nothing_is_left_and_nothing_else_touched() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("file.mdtest.0.0"), b"keep").unwrap();
    let r = ioz_mdtest(
        dir.path(),
        &[
            "-n", "60", "-z", "1", "-b", "2", "-w", "10", "-e", "10", "-y",
        ],
    );
    let (before, after) = r.listing.clone().unwrap();
    assert_eq!(before, after);
    assert_eq!(
        fs::read(dir.path().join("file.mdtest.0.0")).unwrap(),
        b"keep"
    );
}

fn bad_command_lines_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["mdtest"], "mdtest needs the items"),
        (
            &["mdtest", "-n", "5", "-z", "2", "-b", "3"],
            "leaves none in each",
        ),
        (
            &["mdtest", "-n", "5", "-D", "-F"],
            "-D and -F cannot be combined",
        ),
        (
            &["mdtest", "-n", "5", "-S"],
            "-S (one shared file) is not supported",
        ),
        (
            &["mdtest", "-n", "5", "-d", "nowhere/deeper"],
            "-d nowhere/deeper is missing and cannot be made: nowhere: No such file",
        ),
        (
            &["mdtest", "-n", "5", "--shape", "medium"],
            "'medium' is not an IO500 shape",
        ),
    ];
    for (args, part) in cases {
        assert_refused(&ioz(dir.path(), args), part);
    }
}

fn a_full_file_system_fails_the_run_and_leaves_no_tree() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    let _tmpfs = Tmpfs::mount(&mnt, "size=1m,nr_inodes=50");
    let r = ioz(
        dir.path(),
        &["mdtest", "-n", "100", "-F", "-d", mnt.to_str().unwrap()],
    );
    assert_eq!(r.code, Some(1), "{}", r.context());
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains("No space left on device"))
        .unwrap_or_else(|| panic!("no ENOSPC line: {}", r.context()));
    assert!(line.starts_with("ioz: create "), "{line}");
    assert!(line.contains("file.mdtest.0."), "{line}");
    assert_eq!(list_dir(&mnt), Vec::<String>::new(), "the tree was left");
}

fn ctrl_c_stops_the_run_and_removes_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let child = Command::new(IOZ)
        .args(["mdtest", "-n", "200000", "-F", "-i", "50"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline
        && !list_dir(dir.path())
            .iter()
            .any(|n| n.starts_with("ioz-mdtest."))
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: kill takes a pid and a signal number.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

/// The 95 % interval of each phase's mean rate over iterations lies above
/// zero, from the log rates: on the rates themselves two iterations of a
/// phase that ran 1 and 2 ops/s would reach below zero (issue 35).
fn every_interval_of_a_rate_is_positive() {
    let dir = tempfile::tempdir().unwrap();
    let r = ioz(
        dir.path(),
        &["mdtest", "-n", "20", "-i", "2", "--json", "r.json"],
    );
    r.expect_code(0);
    let block: Vec<&str> = r
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("95 % interval of the mean rate (ops/sec, on log rates):"))
        .skip(1)
        .take_while(|l| l.starts_with("   "))
        .collect();
    assert_eq!(block.len(), 10, "a line per phase:\n{}", r.stdout);
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let rates = |op: &str| -> Vec<f64> {
        doc["metadata"]["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["op"] == op)
            .map(|m| m["ops_per_sec"].as_f64().unwrap())
            .collect()
    };
    let summaries = doc["metadata"]["summaries"].as_array().unwrap();
    for line in block {
        let numbers: Vec<f64> = line
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        let [low, high] = numbers[..] else {
            panic!("{line}");
        };
        assert!(low >= 0.0 && low <= high, "{line}");
        // Recomputed from the two iterations' rates: exp(m ± t s / √2)
        // with m, s of the log rates and t(0.975, 1) = 12.7062; the JSON
        // keeps it whole (the text rounds to 0.001), above zero.
        let name = line
            .split("  ")
            .find(|w| !w.trim().is_empty())
            .unwrap()
            .trim();
        let key = name.to_ascii_lowercase().replace(' ', "_");
        let logs: Vec<f64> = rates(&key).iter().map(|x| x.ln()).collect();
        assert_eq!(logs.len(), 2, "{key}");
        let m = (logs[0] + logs[1]) / 2.0;
        let s = (logs[0] - logs[1]).abs() / 2f64.sqrt();
        let half = 12.706_204_736 * s / 2f64.sqrt();
        let ci = &summaries.iter().find(|x| x["op"] == key.as_str()).unwrap()["ci95"];
        let (saved_low, saved_high) = (ci["low"].as_f64().unwrap(), ci["high"].as_f64().unwrap());
        assert!(saved_low > 0.0, "{key}: {ci}");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-300);
        assert!(
            close(saved_low, (m - half).exp()),
            "{key}: {ci} low {}",
            (m - half).exp()
        );
        assert!(
            close(saved_high, (m + half).exp()),
            "{key}: {ci} high {}",
            (m + half).exp()
        );
        assert!(
            (low - saved_low).abs() <= 5e-4 + 1e-9 * saved_low,
            "{line} / {ci}"
        );
    }
}

fn two_ranks_each_in_its_own_directory() {
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(
        dir.path(),
        2,
        &[
            "mdtest", "-n", "100", "-z", "2", "-b", "3", "-u", "--json", "r.json",
        ],
    );
    expect(&r, 0);
    assert!(
        r.stdout
            .contains("was launched with 2 total task(s) on 1 node(s)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("\n2 tasks, 182 files/directories\n"),
        "{}",
        r.stdout
    );
    let want = summaries(&reference("np2_z2b3u.txt"));
    assert_eq!(summaries(&r.stdout), want, "{}", r.stdout);
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    // Every rank's items, each rank's own tree.
    assert_eq!(count_of(&doc, "directory_creation"), 182);
    assert_eq!(count_of(&doc, "file_read"), 182);
    assert_eq!(count_of(&doc, "tree_creation"), 26);
    assert_eq!(doc["metadata"]["hosts"].as_array().unwrap().len(), 2);
    // Each rank's environment disclosed, as for any cluster run.
    let ranks = doc["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    for (i, rank) in ranks.iter().enumerate() {
        assert_eq!(rank["client"]["rank"], i, "{rank}");
        assert!(rank["environment"]["kernel"].is_string(), "{rank}");
    }
    // Each rank's own items over its own time, kept beside their sum, and
    // one rank's run read back as such (run.json#rank=1).
    let own = doc["metadata"]["ranks"].as_array().unwrap();
    assert_eq!(own.len(), 2);
    for rank in own {
        let created = rank
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["op"] == "directory_creation")
            .unwrap();
        assert_eq!(created["items"], 91, "{created}");
    }
    let one = ioz(dir.path(), &["report", "r.json#rank=1"]);
    expect(&one, 0);
    assert!(
        one.stdout.contains("\n1 tasks, 91 files/directories\n"),
        "{}",
        one.stdout
    );
    assert_eq!(list_dir(dir.path()), ["r.json"]);
}

fn two_ranks_in_one_shared_tree_stat_each_other_s_items() {
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(
        dir.path(),
        2,
        &[
            "mdtest", "-n", "100", "-N", "1", "-w", "8", "-e", "8", "--json", "r.json",
        ],
    );
    expect(&r, 0);
    assert_eq!(
        summaries(&r.stdout),
        summaries(&reference("np2_n100.txt")),
        "{}",
        r.stdout
    );
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(count_of(&doc, "file_stat"), 200);
    assert_eq!(count_of(&doc, "directory_stat"), 200);
    // One shared tree: made once, by rank 0.
    assert_eq!(count_of(&doc, "tree_creation"), 1);
    // A phase's rate: every rank's items over the phase's time on rank 0,
    // barrier to barrier (mdtest's), which holds every rank's own part.
    let ranks = doc["metadata"]["ranks"].as_array().unwrap();
    for (k, m) in doc["metadata"]["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let rate = m["items"].as_f64().unwrap() * 1e9 / m["elapsed_ns"].as_f64().unwrap();
        assert!(
            (m["ops_per_sec"].as_f64().unwrap() - rate).abs() < 1e-6 * rate,
            "{m}"
        );
        let rank_0 = &ranks[0][k];
        assert_eq!(rank_0["op"], m["op"]);
        assert_eq!(
            m["elapsed_ns"], rank_0["elapsed_ns"],
            "rank 0's phase time: {m}"
        );
        let items: u64 = ranks.iter().map(|r| r[k]["items"].as_u64().unwrap()).sum();
        assert_eq!(m["items"].as_u64().unwrap(), items);
        // Rank 0's own part lies inside its phase (another rank's, on its
        // own clock, may start a little before rank 0 leaves the barrier).
        assert!(
            rank_0["busy_ns"].as_u64().unwrap() <= rank_0["elapsed_ns"].as_u64().unwrap(),
            "{rank_0}"
        );
        assert_eq!(
            m["busy_ns"].as_u64().unwrap(),
            ranks
                .iter()
                .map(|r| r[k]["busy_ns"].as_u64().unwrap())
                .max()
                .unwrap()
        );
    }
    assert_eq!(list_dir(dir.path()), ["r.json"]);
}

fn two_ranks_in_io500_s_easy_shape_over_three_iterations() {
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(
        dir.path(),
        2,
        &["mdtest", "-n", "200", "--shape", "easy", "-i", "3"],
    );
    expect(&r, 0);
    assert!(r.stdout.contains("\n2 tasks, 400 files\n"), "{}", r.stdout);
    assert!(r.stdout.contains("Nodemap: 11\n"), "{}", r.stdout);
    assert_eq!(
        summaries(&r.stdout),
        summaries(&reference("np2_easy_i3.txt")),
        "{}",
        r.stdout
    );
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn two_ranks_stonewalled_make_the_same_count() {
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(
        dir.path(),
        2,
        &[
            "mdtest", "-n", "300000", "-F", "-W", "1", "-N", "1", "-C", "-T", "-r", "--json",
            "r.json",
        ],
    );
    expect(&r, 0);
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let made = count_of(&doc, "file_creation");
    assert!(made > 0 && made < 600_000, "{made}");
    // Every rank made the most any made (wear-out), and each stats its
    // neighbour's: the same count everywhere.
    assert_eq!(made % 2, 0, "{made}");
    assert_eq!(count_of(&doc, "file_stat"), made);
    assert_eq!(count_of(&doc, "file_removal"), made);
    assert_eq!(list_dir(dir.path()), ["r.json"]);
}

/// SIGKILL to rank 0, which made the tree, while both ranks work in it: no
/// handler runs, mpirun ends the job, and rank 0's file warden removes the
/// tree whole.
fn rank_0_killed_outright_leaves_no_tree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let child = mpirun_command(d, 2, &[], &["mdtest", "-n", "2000", "-F", "-i", "1000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tree_made = within(60, || {
        list_dir(d)
            .iter()
            .any(|name| name.starts_with("ioz-mdtest"))
    });
    assert!(tree_made, "no tree made: {:?}", list_dir(d));
    // Under way: files being made, statted and removed in it.
    std::thread::sleep(Duration::from_millis(1500));
    let ranks = rank_pids(d);
    assert_eq!(ranks.len(), 2, "{ranks:?}");
    // SAFETY: rank 0 of our own job, still running.
    unsafe { libc::kill(ranks[0].1 as i32, libc::SIGKILL) };
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "{out:?}");
    assert_no_rank_left(d);
    let gone = within(10, || list_dir(d).is_empty());
    assert!(
        gone,
        "left {:?}: {}",
        list_dir(d),
        String::from_utf8_lossy(&out.stderr)
    );
}
