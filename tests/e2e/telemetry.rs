//! Telemetry replay (-X/-Y), end to end: the file ioz leaves is exactly the
//! replayed writes, the system calls are the replayed operations in order, the
//! row shows reclen 0 and the delays are left out of the time; bad telemetry
//! files are refused before any I/O.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::fixtures::{self, IOZ, Test, data_rows, ioz, list_dir, trials};
use serde_json::Value;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        replay_leaves_exactly_the_written_ranges_and_reports_reclen_0,
        random_data_fills_the_written_ranges_and_leaves_the_holes,
        only_read_telemetry_writes_the_file_sequentially_first,
        reads_past_the_written_end_find_the_file_extended_untimed,
        only_write_telemetry_reads_the_whole_file_sequentially,
        the_system_calls_are_the_replayed_operations_in_order => [Strace],
        bad_telemetry_is_refused_before_any_io,
        aligned_telemetry_runs_with_o_direct => [ODirect],
        every_throughput_worker_replays_the_telemetry_on_its_own_file,
    ]
}

/// Seven writes at scattered, overlapping and unaligned offsets with odd
/// sizes; three carry a 40 ms delay. (offset, size, delay ms)
const WRITES: [(u64, u64, u64); 7] = [
    (100, 5000, 0),
    (0, 777, 40),
    (20000, 4096, 0),
    (3000, 1, 0),
    (65536, 12345, 40),
    (9000, 8192, 0),
    (4500, 3, 40),
];
/// Reads inside what the writes reach, one of them over a hole.
const READS: [(u64, u64, u64); 3] = [(0, 4096, 0), (70000, 7000, 0), (1000, 30000, 0)];

fn end(ops: &[(u64, u64, u64)]) -> u64 {
    ops.iter().map(|&(o, s, _)| o + s).max().unwrap()
}

fn sum(ops: &[(u64, u64, u64)]) -> u64 {
    ops.iter().map(|&(_, s, _)| s).sum()
}

/// Writes a telemetry file: a comment, a blank line, then the operations
/// (the delay only where it is not 0).
fn write_trace(path: &Path, ops: &[(u64, u64, u64)]) {
    let mut text = String::from("# offset size [delay_ms]\n\n");
    for &(o, s, d) in ops {
        text.push_str(&match d {
            0 => format!("{o} {s}\n"),
            d => format!("{o}\t{s}  {d}\n"),
        });
    }
    fs::write(path, text).unwrap();
}

/// What `--data iozone` writes at byte `k` of an operation: IOzone's buffer,
/// the pattern byte in the first 8 bytes of each 4 KiB page (each write
/// starts on a page of the buffer).
fn iozone_byte(k: u64) -> u8 {
    if k % 4096 < 8 { 0x10 } else { 0 }
}

/// The file the writes leave, applied in order over a file of zeros (holes).
fn expected_file(len: u64, writes: &[(u64, u64, u64)]) -> Vec<u8> {
    let mut file = vec![0u8; len as usize];
    for &(o, s, _) in writes {
        for k in 0..s {
            file[(o + k) as usize] = iozone_byte(k);
        }
    }
    file
}

fn json(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("r.json")).unwrap()).unwrap()
}

fn measurement<'a>(json: &'a Value, pass: &str) -> &'a Value {
    json["cells"][0]["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["pass"] == pass)
        .unwrap_or_else(|| panic!("no {pass} measurement in {json}"))
}

fn replay_leaves_exactly_the_written_ranges_and_reports_reclen_0() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_trace(&d.join("w.txt"), &WRITES);
    write_trace(&d.join("r.txt"), &READS);
    let started = Instant::now();
    let run = ioz(
        d,
        &[
            "-X", "w.txt", "-Y", "r.txt", "-i", "0", "-i", "1", "-w", "-f", "t.tmp", "--data",
            "iozone", "--json", "r.json",
        ],
    );
    let wall = started.elapsed();
    run.expect_code(0);
    // Both write passes busy-waited their 120 ms (a lower bound, not a timing).
    assert!(
        wall >= Duration::from_millis(240),
        "{wall:?}: the delays were skipped"
    );
    assert!(
        run.stdout
            .contains("\tUsing write telemetry file \"w.txt\"\n")
    );
    assert!(
        run.stdout
            .contains("\tUsing read telemetry file \"r.txt\"\n")
    );

    let file_bytes = end(&WRITES).max(end(&READS));
    let file = fs::read(d.join("t.tmp")).unwrap();
    assert_eq!(file.len() as u64, file_bytes);
    assert_eq!(file, expected_file(file_bytes, &WRITES));

    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    let row = &rows[0];
    assert_eq!(
        row.len(),
        6,
        "KB, reclen, write, rewrite, read, reread: {row:?}"
    );
    assert_eq!(row[0], file_bytes / 1024);
    assert_eq!(row[1], 0, "reclen of a telemetry run");
    assert!(row[2..].iter().all(|&v| v > 0), "{row:?}");

    let json = json(d);
    for (pass, ops) in [
        ("write", &WRITES[..]),
        ("rewrite", &WRITES),
        ("read", &READS),
        ("reread", &READS),
    ] {
        let m = measurement(&json, pass);
        assert_eq!(m["bytes"], sum(ops), "{pass}: {m}");
        assert_eq!(m["records"], ops.len() as u64, "{pass}: {m}");
        assert_eq!(m["record_bytes"], 0, "{pass}: {m}");
        assert_eq!(m["file_bytes"], file_bytes, "{pass}: {m}");
    }
    let t = &json["config"]["telemetry"];
    assert_eq!(t["write"]["path"], "w.txt");
    assert_eq!(t["write"]["ops"], 7);
    assert_eq!(t["write"]["bytes"], sum(&WRITES));
    assert_eq!(t["write"]["end"], end(&WRITES));
    assert_eq!(t["write"]["delay_ms"], 120);
    assert_eq!(t["read"]["ops"], 3);
    assert_eq!(t["read"]["delay_ms"], 0);
    assert_eq!(json["config"]["sizes"]["single"]["file_bytes"], file_bytes);

    // The 120 ms of busy-waiting before the writes is not in their time (as
    // with -J): seven small writes to the page cache take far less.
    for pass in ["write", "rewrite"] {
        let elapsed = measurement(&json, pass)["elapsed_ns"].as_u64().unwrap();
        assert!(
            elapsed < 120_000_000,
            "{pass}: {elapsed} ns includes the delays"
        );
    }
}

fn random_data_fills_the_written_ranges_and_leaves_the_holes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_trace(&d.join("w.txt"), &WRITES);
    ioz(d, &["-X", "w.txt", "-i", "0", "-w", "-f", "t.tmp"]).expect_code(0);
    let file = fs::read(d.join("t.tmp")).unwrap();
    assert_eq!(file.len() as u64, end(&WRITES));
    let written = |i: u64| WRITES.iter().any(|&(o, s, _)| o <= i && i < o + s);
    let mut zeros_written = 0;
    for (i, &b) in file.iter().enumerate() {
        if !written(i as u64) {
            assert_eq!(b, 0, "byte {i} lies in a hole");
        } else if b == 0 {
            zeros_written += 1;
        }
    }
    // Random bytes are 0 one time in 256.
    let total: u64 = (0..end(&WRITES)).filter(|&i| written(i)).count() as u64;
    assert!(zeros_written < total / 64, "{zeros_written} of {total}");
}

fn only_read_telemetry_writes_the_file_sequentially_first() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_trace(&d.join("r.txt"), &READS);
    for (record, args) in [(4096, vec![]), (16384, vec!["-r", "16k"])] {
        let mut all = vec![
            "-Y", "r.txt", "-i", "0", "-i", "1", "-f", "t.tmp", "--json", "r.json",
        ];
        all.extend(args);
        ioz(d, &all).expect_code(0);
        let json = json(d);
        let file_bytes = end(&READS);
        let write = measurement(&json, "write");
        assert_eq!(write["bytes"], file_bytes);
        assert_eq!(write["records"], file_bytes.div_ceil(record));
        assert_eq!(measurement(&json, "read")["bytes"], sum(&READS));
        assert_eq!(json["config"]["telemetry"]["write"], Value::Null);
        assert_eq!(list_dir(d), ["r.json", "r.txt"], "the test file is removed");
    }
}

fn reads_past_the_written_end_find_the_file_extended_untimed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let writes = [(100, 5000, 0), (9000, 3, 0)];
    let reads = [(20000, 5000, 0), (0, 10, 0)];
    write_trace(&d.join("w.txt"), &writes);
    write_trace(&d.join("r.txt"), &reads);
    ioz(
        d,
        &[
            "-X", "w.txt", "-Y", "r.txt", "-w", "-f", "t.tmp", "--data", "iozone", "--json",
            "r.json",
        ],
    )
    .expect_code(0);
    let file = fs::read(d.join("t.tmp")).unwrap();
    assert_eq!(file.len() as u64, end(&reads));
    let written_end = end(&writes);
    // What the writes left is untouched; only the missing tail was added,
    // in 4 KiB records from where the file ended.
    assert_eq!(
        file[..written_end as usize],
        expected_file(written_end, &writes)[..]
    );
    for (k, &b) in file[written_end as usize..].iter().enumerate() {
        assert_eq!(b, iozone_byte(k as u64), "tail byte {k}");
    }
    let json = json(d);
    assert_eq!(measurement(&json, "reread")["bytes"], sum(&reads));
}

fn only_write_telemetry_reads_the_whole_file_sequentially() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_trace(&d.join("w.txt"), &WRITES);
    ioz(
        d,
        &["-X", "w.txt", "-f", "t.tmp", "--json", "r.json", "-+n"],
    )
    .expect_code(0);
    let json = json(d);
    let passes: Vec<&str> = json["cells"][0]["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["pass"].as_str().unwrap())
        .collect();
    assert_eq!(passes, ["write", "read"], "tests 0 and 1 by default, -+n");
    let read = measurement(&json, "read");
    assert_eq!(read["bytes"], end(&WRITES));
    assert_eq!(read["records"], end(&WRITES).div_ceil(4096));
}

/// (offset, length) of every read/write the traced process made on the
/// test file, one list per open of it (from strace -s 0 output).
fn file_ops_per_open(trace: &str, name: &str) -> Vec<Vec<(&'static str, u64, u64)>> {
    let mut sessions: Vec<Vec<(&'static str, u64, u64)>> = Vec::new();
    // fd -> (session index, position)
    let mut open: std::collections::HashMap<i64, (usize, u64)> = Default::default();
    for line in trace.lines() {
        // Drop a leading pid (strace -f).
        let line = line
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        let Some((call, rest)) = line.split_once('(') else {
            continue;
        };
        // strace pads the result column: `close(3)      = 0`.
        let Some((args, ret)) = rest.rsplit_once(" = ") else {
            continue;
        };
        let Some(args) = args.trim_end().strip_suffix(')') else {
            continue;
        };
        let Ok(ret) = ret.split_whitespace().next().unwrap_or("").parse::<i64>() else {
            continue;
        };
        let args: Vec<&str> = args.split(", ").collect();
        match call {
            "openat" if args.get(1) == Some(&format!("\"{name}\"").as_str()) && ret >= 0 => {
                sessions.push(Vec::new());
                open.insert(ret, (sessions.len() - 1, 0));
            }
            "close" => {
                open.remove(&args[0].parse::<i64>().unwrap_or(-1));
            }
            _ => {
                let Ok(fd) = args[0].parse::<i64>() else {
                    continue;
                };
                let Some((session, pos)) = open.get_mut(&fd) else {
                    continue;
                };
                let num = |i: usize| args[i].parse::<u64>().unwrap();
                match call {
                    "lseek" => *pos = ret as u64,
                    "read" | "write" => {
                        let kind = if call == "read" { "read" } else { "write" };
                        sessions[*session].push((kind, *pos, num(2)));
                        *pos += ret.max(0) as u64;
                    }
                    "pread64" => sessions[*session].push(("read", num(3), num(2))),
                    "pwrite64" => sessions[*session].push(("write", num(3), num(2))),
                    _ => {}
                }
            }
        }
    }
    sessions.retain(|s| !s.is_empty());
    sessions
}

fn the_system_calls_are_the_replayed_operations_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_trace(&d.join("w.txt"), &WRITES);
    write_trace(&d.join("r.txt"), &READS);
    let out = Command::new("strace")
        .args([
            "-f",
            "-s",
            "0",
            "-o",
            "trace.txt",
            "-e",
            "trace=openat,close,read,write,pread64,pwrite64,lseek",
            IOZ,
            "-X",
            "w.txt",
            "-Y",
            "r.txt",
            "-i",
            "0",
            "-i",
            "1",
            "-f",
            "t.tmp",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    let trace = fs::read_to_string(d.join("trace.txt")).unwrap_or_default();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sessions = file_ops_per_open(&trace, "t.tmp");
    let as_ops = |kind, ops: &[(u64, u64, u64)]| -> Vec<(&'static str, u64, u64)> {
        ops.iter().map(|&(o, s, _)| (kind, o, s)).collect()
    };
    assert_eq!(
        sessions,
        vec![
            as_ops("write", &WRITES),
            as_ops("write", &WRITES),
            as_ops("read", &READS),
            as_ops("read", &READS),
        ],
        "\n{trace}"
    );
}

/// A refused command: status 2, nothing on stdout, one stderr line that
/// starts with `want`, and no file left besides the ones the test made.
fn assert_refused(dir: &Path, args: &[&str], want: &str) {
    let mut all = args.to_vec();
    all.extend(["-f", "t.tmp", "--json", "r.json"]);
    let run = ioz(dir, &all);
    let line = fixtures::refused(&run);
    assert!(
        line.starts_with(&format!("ioz: {want}")),
        "{args:?}: {line:?} does not start with {want:?}"
    );
}

fn bad_telemetry_is_refused_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_trace(&d.join("w.txt"), &WRITES);
    let bad = [
        (
            "zero.txt",
            "# c\n0 4096\n\n8192 0\n",
            "-X zero.txt:4: size 0",
        ),
        (
            "word.txt",
            "0 4096\nten 20\n",
            "-X word.txt:2: offset `ten`",
        ),
        (
            "huge.txt",
            "0 16777217\n",
            "-X huge.txt:1: size 16777217 bytes is larger than the 16 MiB limit",
        ),
        (
            "far.txt",
            "9223372036854775807 1\n",
            "-X far.txt:1: offset 9223372036854775807 + size 1 is past",
        ),
        (
            "fields.txt",
            "0 1 2 3\n",
            "-X fields.txt:1: expected `offset size [delay_ms]`",
        ),
        ("empty.txt", "# nothing\n\n", "-X empty.txt: no operations"),
    ];
    for (name, text, _) in &bad {
        fs::write(d.join(name), text).unwrap();
    }
    for (name, _, want) in &bad {
        assert_refused(d, &["-X", name], want);
    }
    assert_refused(
        d,
        &["-X", "w.txt", "-Y", "absent.txt"],
        "-Y absent.txt: cannot read it:",
    );
    assert_refused(
        d,
        &["-X", "w.txt", "-i", "0", "-i", "2"],
        "-i 2: a telemetry file (-X/-Y) drives only tests 0 (write) and 1 (read)",
    );
    assert_refused(
        d,
        &["-X", "w.txt", "-I"],
        "-X w.txt: operation 1 (offset 100, size 5000) is not aligned to 4096 bytes",
    );
    assert_refused(
        d,
        &["-X", "w.txt", "-t", "2", "-+k"],
        "-+k cannot be combined with a telemetry file",
    );
    assert_refused(
        d,
        &["-X", "w.txt", "-t", "2", "-i", "8"],
        "-i 8: a telemetry file (-X/-Y) drives only tests 0 (write) and 1 (read)",
    );
    assert_refused(
        d,
        &["-X", "w.txt", "-Y", "w.txt", "-r", "8k"],
        "-r cannot be combined with both -X and -Y",
    );
    assert_refused(
        d,
        &["-X", "w.txt", "-r", "8k", "-r", "16k"],
        "-r can be given once",
    );
    for opt in [
        &["-s", "64k"][..],
        &["-j", "3"],
        &["-V", "165"],
        &["-+d"],
        &["-E"],
    ] {
        let mut args = vec!["-Y", "w.txt"];
        args.extend(opt);
        assert_refused(
            d,
            &args,
            &format!("{} cannot be combined with a telemetry file", opt[0]),
        );
    }
}

fn aligned_telemetry_runs_with_o_direct() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ops = [(8192, 4096, 0), (0, 8192, 0), (4096, 65536, 0)];
    write_trace(&d.join("w.txt"), &ops);
    write_trace(&d.join("r.txt"), &ops);
    let run = ioz(
        d,
        &[
            "-X", "w.txt", "-Y", "r.txt", "-I", "-f", "t.tmp", "--json", "r.json",
        ],
    );
    // Where the file system refuses O_DIRECT (tmpfs before Linux 6.6), the
    // test is not run (it needs ODirect).
    run.expect_code(0);
    let json = json(d);
    assert_eq!(measurement(&json, "rewrite")["bytes"], sum(&ops));
    assert_eq!(measurement(&json, "reread")["bytes"], sum(&ops));
}

fn every_throughput_worker_replays_the_telemetry_on_its_own_file() {
    for threads in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write_trace(&d.join("w.txt"), &WRITES);
        write_trace(&d.join("r.txt"), &READS);
        let mut args = vec![
            "-X", "w.txt", "-Y", "r.txt", "-t", "2", "-F", "a", "b", "-x", "-w", "--data",
            "iozone", "--json", "r.json",
        ];
        if threads {
            args.push("-T");
        }
        let run = ioz(d, &args);
        run.expect_code(0);
        let file_bytes = end(&WRITES).max(end(&READS));
        for name in ["a", "b"] {
            let file = fs::read(d.join(name)).unwrap();
            assert_eq!(file.len() as u64, file_bytes, "{name} (threads: {threads})");
            assert_eq!(file, expected_file(file_bytes, &WRITES), "{name}");
        }
        // Each worker moved exactly the replayed bytes, one record per operation.
        let json = json(d);
        let phases = json["throughput"].as_array().unwrap();
        let passes: Vec<&str> = phases.iter().map(|p| p["pass"].as_str().unwrap()).collect();
        assert_eq!(passes, ["write", "rewrite", "read", "reread"]);
        for phase in phases {
            let (bytes, ops) = if phase["pass"].as_str().unwrap().contains("write") {
                (sum(&WRITES), WRITES.len())
            } else {
                (sum(&READS), READS.len())
            };
            let results = phase["results"].as_array().unwrap();
            assert_eq!(results.len(), 2);
            for w in results {
                assert_eq!(w["bytes"], bytes, "{phase}");
                assert_eq!(w["records"], ops as u64, "{phase}");
            }
        }
        // "Children see" blocks for the four phases, and the report reprints them.
        assert_eq!(run.stdout.matches("Children see throughput").count(), 4);
        let again = ioz(d, &["report", "r.json"]);
        again.expect_code(0);
        assert_eq!(again.stdout, run.stdout);
    }
}
