//! Runaway sizes and absurd numbers (issue 11, items 5 and 6, and `-+k`'s
//! records from item 10): whatever would make ioz allocate without bound,
//! read without end or sleep forever is refused before anything runs, with
//! one `ioz:` line and exit status 2, and nothing left behind.
//!
//! ioz runs here under an address-space limit, so a regression fails fast
//! (an abort, status 134) instead of taking the machine's memory, and
//! under a time limit, so one that sleeps or reads forever fails too.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::fixtures::{Test, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        byte_records_on_a_large_file_are_refused_for_memory,
        a_purge_buffer_past_memory_is_refused,
        a_trace_far_into_the_file_is_refused_before_any_file_exists,
        devices_and_fifos_are_not_read_as_traces_or_saved_runs,
        files_past_the_read_limits_are_refused_unread,
        a_saved_grid_no_run_has_is_refused,
        delays_and_pauses_past_an_hour_are_refused,
        sizes_and_counts_past_their_bounds_are_refused,
        constant_total_smaller_than_a_record_is_refused_before_the_header,
    ]
}

/// Address space ioz may use: half of it is the memory budget it judges
/// runs by, whatever this machine holds.
const MEMORY_LIMIT: u64 = 4 << 30;
/// Longest a refusal may take.
const TIME_LIMIT: Duration = Duration::from_secs(60);

struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `ioz ARGS…` in `dir` under [`MEMORY_LIMIT`], killing it after
/// [`TIME_LIMIT`].
fn limited_ioz<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Ended {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ioz"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let mut child = command.spawn().expect("cannot start ioz");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        stdout.read_to_end(&mut s).map(|_| s)
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        stderr.read_to_end(&mut s).map(|_| s)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_owned()).collect();
            panic!("ioz {shown:?} still running after {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    Ended {
        code: status.code(),
        stdout: text(out.join().unwrap().unwrap()),
        stderr: text(err.join().unwrap().unwrap()),
    }
}

/// Runs `ioz ARGS…` in `dir` and checks the refusal: status 2, nothing on
/// stdout, one `ioz:` line containing every one of `parts`, the directory
/// as it was. Returns the line.
fn refused<S: AsRef<OsStr>>(dir: &Path, args: &[S], parts: &[&str]) -> String {
    let before = list_dir(dir);
    let run = limited_ioz(dir, args);
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_owned()).collect();
    let context = format!(
        "ioz {shown:?}: exit status {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        run.code, run.stdout, run.stderr
    );
    assert_eq!(run.code, Some(2), "not refused: {context}");
    assert!(run.stdout.is_empty(), "stdout not empty: {context}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr is not one line: {context}");
    assert!(
        lines[0].starts_with("ioz: "),
        "no 'ioz: ' prefix: {context}"
    );
    for part in parts {
        assert!(lines[0].contains(part), "no {part:?}: {context}");
    }
    assert_eq!(list_dir(dir), before, "the directory changed: {context}");
    lines[0].to_string()
}

// ---- item 5: memory ----

fn byte_records_on_a_large_file_are_refused_for_memory() {
    // It aborted (status 134) allocating 34 GB for the operation list.
    let dir = tempfile::tempdir().unwrap();
    let line = refused(
        dir.path(),
        &["-r", "1b", "-s", "4g", "-i", "0"],
        &[
            "the run would hold 128.0 GiB in memory at once",
            "operation list of the write pass: 4294967296 operations of 32 bytes",
            "address-space limit (ulimit -v)",
            "use larger records (-r) or a smaller file (-s)",
        ],
    );
    assert!(line.contains("may be used (half of the"), "{line}");
    // Byte records on a small file fit: 2 MiB of list.
    let ok = limited_ioz(dir.path(), &["-s", "64k", "-r", "1b", "-i", "0", "--quiet"]);
    assert_eq!(ok.code, Some(0), "{}", ok.stderr);
    assert!(list_dir(dir.path()).is_empty());
    // -Q, workers and queue depth are counted too.
    refused(
        dir.path(),
        &["-t", "64", "-s", "1g", "-r", "1k", "-i", "0", "-Q"],
        &[
            "for -Q's latencies of the write pass",
            "for each of 64 workers",
        ],
    );
    refused(
        dir.path(),
        &[
            "-s",
            "1g",
            "-r",
            "16m",
            "-i",
            "1",
            "--engine",
            "io_uring",
            "--iodepth",
            "4096",
        ],
        &["for the write pools and read buffers", "--iodepth"],
    );
}

fn a_purge_buffer_past_memory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // It aborted trying 2 TiB.
    refused(
        dir.path(),
        &["-p", "-S", "1073741824", "-s", "64k", "-i", "0"],
        &["-S 1073741824: out of range; give 1 to 4194304 (kB of CPU cache)"],
    );
    // Within the bound, still more than this run may hold: 8 GiB.
    refused(
        dir.path(),
        &["-p", "-S", "4194304", "-s", "64k", "-i", "0"],
        &[
            "8.0 GiB of it for -p's buffers, twice the CPU cache",
            "give a smaller cache size (-S)",
        ],
    );
}

/// Free bytes where `dir` is.
fn free_bytes(dir: &Path) -> u64 {
    let stat = nix::sys::statvfs::statvfs(dir).unwrap();
    stat.blocks_available() * stat.fragment_size()
}

fn a_trace_far_into_the_file_is_refused_before_any_file_exists() {
    // One line at 15 TiB: it aborted allocating 128 GB for the read pass no
    // trace drives, and left a 15 TiB sparse file.
    let dir = tempfile::tempdir().unwrap();
    let far = (15u64 << 40).max(free_bytes(dir.path()) * 2) / 4096 * 4096;
    std::fs::write(dir.path().join("t"), format!("{far} 4096\n")).unwrap();
    refused(
        dir.path(),
        &["-X", "t", "-f", "test.tmp"],
        &[
            "operation list of the read pass",
            "use larger records (-r) for the pass no telemetry file drives",
        ],
    );
    // Larger records make a short list; the file would still reach past the
    // free space, sparse or not.
    refused(
        dir.path(),
        &["-X", "t", "-r", "16m", "-f", "test.tmp"],
        &[
            "-X t: the telemetry file reaches",
            "into test.tmp",
            "is free in",
        ],
    );
}

fn devices_and_fifos_are_not_read_as_traces_or_saved_runs() {
    // /dev/zero was read until memory ran out.
    let dir = tempfile::tempdir().unwrap();
    refused(
        dir.path(),
        &["-X", "/dev/zero"],
        &["-X /dev/zero: a character device, not a regular file"],
    );
    refused(
        dir.path(),
        &["report", "/dev/zero"],
        &["cannot read /dev/zero: it is a character device; a saved run is a regular file"],
    );
    // A FIFO nobody writes: refused at once, not waited on.
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    refused(
        dir.path(),
        &["-Y", "fifo"],
        &["-Y fifo: a FIFO, not a regular file"],
    );
    refused(dir.path(), &["report", "fifo"], &["it is a FIFO"]);
}

fn files_past_the_read_limits_are_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse files: their length says it all, nothing is written.
    for name in ["t", "run.json"] {
        std::fs::File::create(dir.path().join(name))
            .unwrap()
            .set_len((1 << 30) + 1)
            .unwrap();
    }
    refused(
        dir.path(),
        &["-X", "t"],
        &[
            "-X t: it holds 1073741825 bytes, more than the 1073741824 (1.0 GiB) a telemetry file may hold",
        ],
    );
    refused(
        dir.path(),
        &["report", "run.json"],
        &["it holds 1073741825 bytes, more than the 1073741824 (1 GiB) a saved run may hold"],
    );
    // A line longer than any trace line.
    std::fs::write(
        dir.path().join("long"),
        format!("0 1\n1 {}\n", "2".repeat(5000)),
    )
    .unwrap();
    refused(
        dir.path(),
        &["-X", "long"],
        &["-X long:2: the line is longer than 4096 bytes"],
    );
    // A delay past the hour.
    std::fs::write(dir.path().join("slow"), "0 4096 3600001\n").unwrap();
    refused(
        dir.path(),
        &["-X", "slow"],
        &["-X slow:1: delay 3600001 ms is more than an hour"],
    );
}

fn a_saved_grid_no_run_has_is_refused() {
    // 300 KB of JSON naming 20,000 file sizes and 20,000 record sizes took
    // `ioz report` down (400 million cells).
    let dir = tempfile::tempdir().unwrap();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/report_json/run_auto_R_min.json"
    );
    let run = std::fs::read_to_string(path).unwrap();
    let mut grid = run;
    for (axis, from, first) in [
        (
            "file_sizes",
            r#"{"range":{"min":65536,"max":131072,"multiplier":2}}"#,
            65536,
        ),
        (
            "record_sizes",
            r#"{"range":{"min":4096,"max":65536,"multiplier":2}}"#,
            1,
        ),
    ] {
        let from = format!(r#""{axis}":{from}"#);
        assert!(grid.contains(&from), "the saved run has no {from}");
        let sizes: Vec<String> = (0..20_000).map(|i| (first + i).to_string()).collect();
        let list = format!(r#""{axis}":{{"list":[{}]}}"#, sizes.join(","));
        grid = grid.replacen(&from, &list, 1);
    }
    std::fs::write(dir.path().join("run.json"), grid).unwrap();
    refused(
        dir.path(),
        &["report", "run.json", "-R"],
        &["run.json is not a saved ioz run: its file_sizes list has 20000 sizes (at most 256)"],
    );
}

// ---- item 6: numbers ----

fn delays_and_pauses_past_an_hour_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // -J wrapped to 0 (ms × 10^6), -+q slept forever, -d wrapped for one
    // worker and slept forever for another.
    refused(
        dir.path(),
        &["-s", "64k", "-i", "0", "-J", "18446744073709551615"],
        &["-J 18446744073709551615: out of range; give 0 to 3600000 (ms of computation)"],
    );
    refused(
        dir.path(),
        &["-s", "64k", "-i", "0", "-+q", "18446744073709551615"],
        &["-+q 18446744073709551615: out of range; give 0 to 3600 (seconds of delay)"],
    );
    refused(
        dir.path(),
        &[
            "-t",
            "3",
            "-s",
            "64k",
            "-i",
            "0",
            "-d",
            "9223372036854775808",
        ],
        &["-d 9223372036854775808: out of range; give 0 to 3600000000 (µs of delay)"],
    );
    // Within the bound, but the last of three workers would start two
    // hours late.
    refused(
        dir.path(),
        &["-t", "3", "-s", "64k", "-i", "0", "-d", "3600000000"],
        &[
            "worker 2 would start 7200 s late",
            "give at most 1800000000 µs",
        ],
    );
}

fn sizes_and_counts_past_their_bounds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (args, part) in [
        (
            &["-s", "2000000g", "-i", "0"][..],
            "-s 2000000g: out of range; give 1k to 1048576g (file size)",
        ),
        (&["-a", "-g", "2000000g"], "-g 2000000g: out of range"),
        (
            &["-s", "64k", "-j", "18446744073709551615"],
            "-j 18446744073709551615: out of range; give 1 to",
        ),
        (
            &["-a", "-+x", "4096"],
            "-+x 4096: out of range; give 2 to 1024",
        ),
        (
            &["-t", "2", "-i", "8", "-+K", "4294967295"],
            "-+K 4294967295: out of range; give 0 to 1024",
        ),
    ] {
        refused(dir.path(), args, &[part]);
    }
    // A list of sizes is bounded too: each file size runs with each record.
    let mut args: Vec<String> = Vec::new();
    for i in 0..257 {
        args.extend(["-s".into(), format!("{}k", 64 + i)]);
    }
    args.extend(["-i".into(), "0".into()]);
    refused(
        dir.path(),
        &args,
        &["-s given 257 times; give at most 256 file sizes"],
    );
}

// ---- item 10: -+k ----

fn constant_total_smaller_than_a_record_is_refused_before_the_header() {
    // The header was printed, then the run failed with status 1.
    let dir = tempfile::tempdir().unwrap();
    refused(
        dir.path(),
        &["-t", "2", "-+k", "-s", "4k", "-r", "4k"],
        &["-+k: 4 kB shared by 2 workers leaves less than one 4 kB record each"],
    );
    refused(
        dir.path(),
        &[
            "-l", "1", "-u", "4", "-+k", "-s", "12k", "-r", "4k", "-i", "0",
        ],
        &["-+k: 12 kB shared by 4 workers"],
    );
}
