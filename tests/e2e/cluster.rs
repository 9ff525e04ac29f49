//! Cluster mode (issue 17): ioz's ranks under Open MPI's mpirun and
//! `ioz -+m clientfile`; the default build's refusal of both.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::fixtures::cluster::{host_name, mpirun_ioz, ranks_left};
use crate::fixtures::{IOZ, Run, Test, assert_refused, list_dir, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        the_default_build_under_a_launcher_says_how_to_build_the_mpi_one,
        the_default_build_asked_for_plus_m_says_how_to_build_the_mpi_one,
        four_ranks_write_and_read_their_own_files_phase_by_phase => [Mpi],
        four_ranks_remove_their_files_and_leave_no_process => [Mpi],
        the_first_rank_to_finish_stonewalls_a_slowed_one => [Mpi],
        workers_that_ranks_cannot_share_evenly_are_refused_once => [Mpi],
    ]
}

fn the_default_build_under_a_launcher_says_how_to_build_the_mpi_one() {
    let dir = tempfile::tempdir().unwrap();
    for (variable, value) in [
        ("OMPI_COMM_WORLD_SIZE", "4"),
        ("PMI_SIZE", "2"),
        ("PMIX_RANK", "0"),
    ] {
        let r = run(Command::new(IOZ)
            .args(["-t", "1", "-s", "64k", "-r", "4k", "-i", "0"])
            .env(variable, value)
            .current_dir(dir.path()));
        let line = assert_refused(&r, "cargo build --release --features mpi");
        assert!(line.contains(variable), "{line}");
        assert!(line.contains("libopenmpi-dev openmpi-bin"), "{line}");
    }
}

fn the_default_build_asked_for_plus_m_says_how_to_build_the_mpi_one() {
    let dir = tempfile::tempdir().unwrap();
    let clients = dir.path().join("clients");
    fs::write(&clients, "localhost /tmp /usr/bin/ioz\n").unwrap();
    let r = run(Command::new(IOZ)
        .args(["-t", "1", "-s", "64k", "-r", "4k", "-i", "0", "-+m"])
        .arg(&clients)
        .current_dir(dir.path()));
    let line = assert_refused(&r, "cargo build --release --features mpi");
    assert!(line.starts_with("ioz: -+m: "), "{line}");
}

/// Panics with everything the job printed unless it ended with `code`.
fn expect(r: &Run, code: i32) {
    assert_eq!(
        r.code,
        Some(code),
        "mpirun's exit status\n--- stdout ---\n{}\n--- stderr ---\n{}",
        r.stdout,
        r.stderr
    );
}

/// The `-C` lines of the block that starts with `label`.
fn child_lines<'a>(stdout: &'a str, label: &str) -> Vec<&'a str> {
    let start = stdout
        .find(label)
        .unwrap_or_else(|| panic!("no {label:?} in:\n{stdout}"));
    stdout[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.trim_start().starts_with("Child["))
        .collect()
}

/// The xfer count (KB) of a `-C` line.
fn xfer_kb(line: &str) -> f64 {
    line.split("xfer count =")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no xfer count in {line:?}"))
}

fn file_len(path: &Path) -> u64 {
    fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}

fn four_ranks_write_and_read_their_own_files_phase_by_phase() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = d.join("f");
    let json = d.join("run.json");
    let xls = d.join("run.xls");
    let r = mpirun_ioz(
        d,
        4,
        &[
            "-t",
            "4",
            "-s",
            "256k",
            "-r",
            "16k",
            "-i",
            "0",
            "-i",
            "1",
            "-C",
            "-w",
            "-R",
            "-f",
            base.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "-b",
            xls.to_str().unwrap(),
        ],
    );
    expect(&r, 0);
    let out = &r.stdout;
    // Rank 0 alone prints: one header, one closing line.
    assert_eq!(
        out.matches("Throughput test with 4 processes").count(),
        1,
        "{out}"
    );
    assert_eq!(out.matches("ioz test complete.").count(), 1, "{out}");
    // Every phase, in IOzone's order, a block each.
    let labels = ["initial writers", "rewriters", "readers", "re-readers"];
    let at: Vec<usize> = labels
        .iter()
        .map(|l| {
            out.find(&format!("4 {l}"))
                .unwrap_or_else(|| panic!("no {l}: {out}"))
        })
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "phases out of order: {out}"
    );
    // No parent's view across ranks' clocks.
    assert!(!out.contains("Parent sees"), "{out}");
    let host = host_name();
    for label in labels {
        let lines = child_lines(out, &format!("4 {label}"));
        assert_eq!(lines.len(), 4, "{label}: {lines:?}");
        for (rank, line) in lines.iter().enumerate() {
            assert!(line.contains(&format!("Child[{rank}]")), "{line}");
            assert!(
                line.ends_with(&format!(", rank {rank} on {host}")),
                "{line}"
            );
            assert_eq!(xfer_kb(line), 256.0, "{line}");
        }
    }
    // Each rank wrote its own file, whole (-w keeps them).
    for rank in 0..4 {
        assert_eq!(file_len(&d.join(format!("f.{rank}"))), 256 << 10);
    }
    // -R once; -b and the JSON written by rank 0 alone.
    assert_eq!(out.matches("Throughput report").count(), 1, "{out}");
    assert!(file_len(&xls) > 0);
    let saved: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let phases = saved["throughput"].as_array().unwrap();
    assert_eq!(phases.len(), 4);
    for phase in phases {
        assert_eq!(phase["workers"], 4);
        let results = phase["results"].as_array().unwrap();
        assert_eq!(results.len(), 4);
        for (rank, w) in results.iter().enumerate() {
            assert_eq!(w["worker"], rank);
            assert_eq!(w["client"]["rank"], rank);
            assert_eq!(w["client"]["host"], host.as_str());
            assert_eq!(w["bytes"], 256 << 10);
        }
    }
}

fn four_ranks_remove_their_files_and_leave_no_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        4,
        &[
            "-t", "4", "-s", "128k", "-r", "16k", "-i", "0", "-i", "1", "-F", "a", "b", "c", "e",
        ],
    );
    expect(&r, 0);
    assert_eq!(list_dir(d), Vec::<String>::new(), "{}", r.stdout);
    assert_eq!(ranks_left(), Vec::<u32>::new());
}

fn the_first_rank_to_finish_stonewalls_a_slowed_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // -d: worker i (rank i) starts i × 0.2 s after the barrier; rank 0 is
    // done with its 2 MiB long before rank 3 starts.
    let r = mpirun_ioz(
        d,
        4,
        &[
            "-t", "4", "-s", "2m", "-r", "4k", "-i", "0", "-C", "-w", "-d", "200000", "-f", "f",
        ],
    );
    expect(&r, 0);
    let lines = child_lines(&r.stdout, "4 initial writers");
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    assert_eq!(xfer_kb(lines[0]), 2048.0, "{}", r.stdout);
    assert!(
        xfer_kb(lines[3]) < 2048.0,
        "rank 3 not stonewalled: {}",
        r.stdout
    );
    let counted = r
        .stdout
        .lines()
        .find(|l| l.contains("Stonewalled:"))
        .unwrap_or_else(|| panic!("no Stonewalled line: {}", r.stdout));
    assert!(!counted.contains("100.00%"), "{counted}");
    // Stopped writers finish their files, untimed.
    for rank in 0..4 {
        assert_eq!(file_len(&d.join(format!("f.{rank}"))), 2 << 20);
    }
}

fn workers_that_ranks_cannot_share_evenly_are_refused_once() {
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(
        dir.path(),
        2,
        &["-t", "3", "-s", "64k", "-r", "4k", "-i", "0"],
    );
    expect(&r, 2);
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ioz: "))
        .collect();
    assert_eq!(
        said,
        ["ioz: -t 3: 3 workers cannot be shared evenly by 2 ranks; give a multiple of 2"],
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}
