//! Throughput mode end to end: worker processes and threads, the IOzone
//! blocks, -l/-u sweeps, -R, refusals, a full disk and Ctrl-C.

use std::process::Command;

use crate::fixtures::{IOZ, Test, Tmpfs, assert_refused, ioz, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        two_processes_fill_their_named_files_and_print_iozone_blocks,
        printed_blocks_match_the_json_results,
        a_worker_sweep_prints_one_run_per_count_and_the_r_report,
        every_test_runs_in_throughput_mode,
        bad_throughput_options_are_refused_without_touching_files,
        a_foreign_worker_file_is_refused_before_anything_runs,
        a_full_disk_stops_the_workers_with_the_failing_worker_named => [Tmpfs],
        sigint_to_the_parent_stops_every_worker_process,
        a_saved_throughput_run_prints_again_byte_for_byte,
        the_output_file_may_not_be_the_test_file_however_it_is_spelled,
        four_stonewalled_worker_processes_still_leave_full_files,
    ]
}

/// The number after "= " on the first line containing `label`.
fn value_after(stdout: &str, label: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.contains(label))
        .unwrap_or_else(|| panic!("no line with {label:?} in:\n{stdout}"));
    line.rsplit("= ")
        .next()
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number in {line:?}"))
}

fn two_processes_fill_their_named_files_and_print_iozone_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-t", "2", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-x", "-w", "-C", "-F",
            "a.tmp", "b.tmp",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    assert!(out.contains("\tThroughput test with 2 processes\n"));
    assert!(out.contains("\tEach process writes a 256 Kbyte file in 64 Kbyte records\n"));
    for label in [
        "\tChildren see throughput for  2 initial writers \t= ",
        "\tParent sees throughput for  2 initial writers \t= ",
        "\tChildren see throughput for  2 rewriters \t= ",
        "\tChildren see throughput for  2 readers \t\t= ",
        "\tChildren see throughput for 2 re-readers \t= ",
        "\tMin throughput per process \t\t\t= ",
        "\tMin xfer \t\t\t\t\t=     256.00 KB\n",
    ] {
        assert!(out.contains(label), "{label:?} missing from:\n{out}");
    }
    assert_eq!(
        out.matches("\tChild[").count(),
        8,
        "-C: one line per worker per phase"
    );
    for f in ["a.tmp", "b.tmp"] {
        assert_eq!(
            std::fs::metadata(dir.path().join(f)).unwrap().len(),
            256 << 10
        );
    }
    // Children see = the sum of the two per-worker lines.
    let min = value_after(out, "Min throughput per process");
    let max = value_after(out, "Max throughput per process");
    let children = value_after(out, "Children see throughput for  2 initial writers");
    assert!(
        (children - (min + max)).abs() < 0.02 * children,
        "{children} vs {min}+{max}"
    );
}

fn printed_blocks_match_the_json_results() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-t", "3", "-T", "-s", "512k", "-r", "16k", "-i", "0", "--json", "r.json", "-f", "w",
        ],
    );
    run.expect_code(0);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let phases = json["throughput"]
        .as_array()
        .expect("throughput phases in the JSON");
    assert_eq!(phases.len(), 2);
    let write = &phases[0];
    assert_eq!(write["pass"], "write");
    assert_eq!(write["workers"], 3);
    let workers = write["results"].as_array().unwrap();
    assert_eq!(workers.len(), 3);
    let mut children = 0.0;
    let mut min_xfer = f64::MAX;
    for w in workers {
        let kb = w["bytes"].as_f64().unwrap() / 1024.0;
        let secs = w["elapsed_ns"].as_f64().unwrap() / 1e9;
        children += kb / secs;
        min_xfer = min_xfer.min(kb);
        assert!(
            w["start_after_release_ns"].as_i64().unwrap() >= 0,
            "a worker started before the barrier opened"
        );
    }
    let printed = value_after(
        &run.stdout,
        "Children see throughput for  3 initial writers",
    );
    assert!(
        (printed - children).abs() <= 0.01 + children * 1e-9,
        "{printed} vs {children}"
    );
    let printed_min_xfer = value_after(&run.stdout, "Min xfer");
    assert!((printed_min_xfer - min_xfer).abs() < 0.01);
    let parent = value_after(&run.stdout, "Parent sees throughput for  3 initial writers");
    let moved: f64 = workers
        .iter()
        .map(|w| w["bytes"].as_f64().unwrap())
        .sum::<f64>()
        / 1024.0;
    let parent_secs = write["parent_elapsed_ns"].as_f64().unwrap() / 1e9;
    assert!((parent - moved / parent_secs).abs() <= 0.01 + parent * 1e-9);
    assert_eq!(list_dir(dir.path()), vec!["r.json"]);
}

fn a_worker_sweep_prints_one_run_per_count_and_the_r_report() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-l", "1", "-u", "3", "-s", "128k", "-r", "16k", "-i", "0", "-R", "-x",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    assert!(
        out.contains("\tMin process = 1 \n\tMax process = 3 \n\tThroughput test with 1 process\n")
    );
    assert_eq!(
        out.matches("\tEach process writes a 128 Kbyte file in 16 Kbyte records\n")
            .count(),
        3
    );
    for n in 1..=3 {
        assert!(out.contains(&format!(
            "Children see throughput for {n:2} initial writers"
        )));
    }
    assert!(out.contains(
        "\n\"Throughput report Y-axis is type of test X-axis is number of processes\"\n\"Record size = 16 Kbytes \"\n\"Output is in Kbytes/sec\"\n\n"
    ));
    let row = out
        .lines()
        .find(|l| l.starts_with("\"  Initial write \""))
        .expect("an Initial write row");
    // One value per worker count after the quoted label.
    let values = |row: &str| row.rsplit('"').next().unwrap().split_whitespace().count();
    assert_eq!(values(row), 3, "{row:?}");
    let rewrite = out
        .lines()
        .find(|l| l.starts_with("\"        Rewrite \""))
        .expect("a Rewrite row");
    assert_eq!(values(rewrite), 3);
    assert!(out.ends_with("\n\nioz test complete.\n"));
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn every_test_runs_in_throughput_mode() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-t", "2", "-s", "128k", "-r", "16k", "-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i",
            "5", "-i", "6", "-i", "7", "-i", "8", "-i", "9", "-i", "10", "-i", "11", "-i", "12",
            "-x",
        ],
    );
    run.expect_code(0);
    for label in [
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
    ] {
        let line = "Children see throughput for ";
        assert!(
            run.stdout
                .lines()
                .any(|l| l.contains(line) && l.contains(label)),
            "no {label} block"
        );
    }
    assert_eq!(
        run.stdout
            .matches("Min xfer \t\t\t\t\t=     128.00 KB")
            .count(),
        15
    );
}

fn bad_throughput_options_are_refused_without_touching_files() {
    let cases: &[(&[&str], &str)] = &[
        (&["-t", "2", "-a"], "cannot be combined with auto mode"),
        (
            &["-t", "2", "-F", "a"],
            "-F names 1 file(s) but the run needs 2",
        ),
        (&["-t", "1", "-P", "9999"], "-P 9999: out of range"),
        (
            &["-t", "2", "-i", "4"],
            "-i 4 (record rewrite) has no throughput form",
        ),
        (&["-F", "a", "b"], "-F only applies to throughput mode"),
        (&["-T"], "-T only applies to throughput mode"),
        (&["-t", "0"], "-t 0: out of range"),
        (
            &["-l", "3", "-u", "2"],
            "-l: 3 workers is more than the maximum 2",
        ),
        (
            &["-t", "2", "-f", "x", "-F", "a", "b"],
            "-f and -F cannot be combined",
        ),
    ];
    for (args, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let run = ioz(dir.path(), args);
        assert_refused(&run, want);
        assert_eq!(
            list_dir(dir.path()),
            Vec::<String>::new(),
            "{args:?} created files"
        );
    }
}

fn a_foreign_worker_file_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.tmp"), b"precious").unwrap();
    let run = ioz(
        dir.path(),
        &["-t", "2", "-s", "64k", "-i", "0", "-F", "a.tmp", "b.tmp"],
    );
    run.expect_code(2);
    assert!(run.stderr.contains("was not created by ioz"));
    assert_eq!(list_dir(dir.path()), vec!["b.tmp"]);
    assert_eq!(
        std::fs::read(dir.path().join("b.tmp")).unwrap(),
        b"precious"
    );
}

fn a_full_disk_stops_the_workers_with_the_failing_worker_named() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    let _guard = Tmpfs::mount(&mnt, "size=12m");
    for mode in [&[][..], &["-T"][..]] {
        let base = mnt.join("t");
        // Two workers of 4 MiB in 8-byte records: long enough to fill the disk
        // under them once they have started.
        let mut args = vec![
            "-t",
            "2",
            "-s",
            "4m",
            "-r",
            "8b",
            "-i",
            "0",
            "-f",
            base.to_str().unwrap(),
        ];
        args.extend(mode);
        let mut child = Command::new(IOZ)
            .args(&args)
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines =
            std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
        assert!(
            lines.any(|l| l.unwrap_or_default().contains(" writes a ")),
            "no run header"
        );
        let filler = mnt.join("filler");
        {
            let mut f = std::fs::File::create(&filler).unwrap();
            let chunk = vec![0x5au8; 64 << 10];
            while let Ok(n) = std::io::Write::write(&mut f, &chunk) {
                if n == 0 {
                    break;
                }
            }
        }
        let _rest: Vec<_> = lines.collect();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {stderr}");
        let line = stderr
            .lines()
            .find(|l| l.contains("No space left"))
            .unwrap_or_else(|| panic!("no ENOSPC line: {stderr}"));
        assert!(
            line.starts_with("ioz: worker ") && line.contains("offset"),
            "{line}"
        );
        assert_eq!(
            list_dir(&mnt),
            vec!["filler"],
            "{mode:?}: ioz's files were left"
        );
        std::fs::remove_file(&filler).unwrap();
    }
}

fn sigint_to_the_parent_stops_every_worker_process() {
    let dir = tempfile::tempdir().unwrap();
    let child = Command::new(IOZ)
        .args([
            "-t", "2", "-s", "64m", "-r", "4k", "-i", "0", "-o", "-f", "w",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("SIGINT"));
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn a_saved_throughput_run_prints_again_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-l", "1", "-u", "2", "-T", "-s", "128k", "-r", "16k", "-i", "0", "-i", "1", "-R",
            "-C", "--json", "r.json",
        ],
    );
    run.expect_code(0);
    let again = ioz(dir.path(), &["report", "r.json"]);
    again.expect_code(0);
    assert_eq!(again.stdout, run.stdout);
}

fn the_output_file_may_not_be_the_test_file_however_it_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-f", "t.tmp", "--json", "./t.tmp"],
    );
    run.expect_code(2);
    assert!(run.stderr.contains("is the test file"), "{}", run.stderr);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn four_stonewalled_worker_processes_still_leave_full_files() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-t", "4", "-s", "1m", "-r", "16k", "-i", "0", "-w", "--json", "r.json", "-f", "w",
        ],
    );
    run.expect_code(0);
    for i in 0..4 {
        let len = std::fs::metadata(dir.path().join(format!("w.{i}")))
            .unwrap()
            .len();
        assert_eq!(len, 1 << 20, "worker {i}'s file");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    for phase in json["throughput"].as_array().unwrap() {
        for w in phase["results"].as_array().unwrap() {
            assert!(
                w["start_after_release_ns"].as_i64().unwrap() >= 0,
                "a worker started before the barrier opened"
            );
            assert!(w["bytes"].as_u64().unwrap() <= 1 << 20);
        }
    }
    assert!(run.stdout.contains("\tStonewalled: "));
}
