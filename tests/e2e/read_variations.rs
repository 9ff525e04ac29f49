//! -K (disrupted read patterns) and -m (multiple buffers) end to end: the
//! bytes counted, the system calls made (under strace, where it can trace),
//! and verification with a sliding buffer.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::fixtures::{IOZ, Test, ioz, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        byte_counts_are_the_plain_runs,
        throughput_byte_counts_are_the_plain_runs,
        multi_buffer_still_verifies_every_byte,
        multi_buffer_is_refused_with_engines_that_keep_requests_in_flight,
        strace_shows_the_probes_every_hundred_records_of_the_read_passes_only => [Strace],
        disrupted_reads_with_o_direct_read_whole_pages => [Strace, ODirect],
        queued_engines_probe_with_pread_between_their_requests => [Strace],
        throughput_readers_are_disrupted_in_their_own_order => [Strace],
        multi_buffer_moves_the_buffer_a_record_per_operation_and_wraps => [Strace],
        iozone_data_reads_land_in_the_one_buffer_its_writes_send => [Strace],
    ]
}

const REC: u64 = 4096;
/// 250 records: probes before records 0, 100 and 200.
const RECORDS: u64 = 250;

/// (pass, bytes) of every single-mode measurement of `ioz args… --json r.json`.
fn measured_bytes(args: &[&str]) -> Vec<(String, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.extend(["--json", "r.json"]);
    ioz(dir.path(), &all).expect_code(0);
    let json = read_json(&dir.path().join("r.json"));
    json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["measurements"].as_array().unwrap().iter())
        .map(|m| {
            (
                m["pass"].as_str().unwrap().to_string(),
                m["bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// (pass, each worker's bytes) of every throughput phase.
fn phase_bytes(args: &[&str]) -> Vec<(String, Vec<u64>)> {
    let dir = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.extend(["--json", "r.json"]);
    ioz(dir.path(), &all).expect_code(0);
    let json = read_json(&dir.path().join("r.json"));
    json["throughput"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let bytes = p["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["bytes"].as_u64().unwrap())
                .collect();
            (p["pass"].as_str().unwrap().to_string(), bytes)
        })
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).expect("valid JSON")
}

fn byte_counts_are_the_plain_runs() {
    let base = ["-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-i", "3"];
    let plain = measured_bytes(&base);
    assert_eq!(plain.len(), 5, "{plain:?}");
    assert!(plain.iter().all(|(_, b)| *b == RECORDS * REC), "{plain:?}");
    for extra in [
        &["-K"][..],
        &["-m"],
        &["-K", "-m"],
        &["-K", "-m", "-V", "7"],
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        assert_eq!(measured_bytes(&args), plain, "{extra:?}");
    }
}

fn throughput_byte_counts_are_the_plain_runs() {
    let base = [
        "-t", "2", "-x", "-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-i", "3", "-i", "5",
    ];
    let plain = phase_bytes(&base);
    assert_eq!(plain.len(), 6, "{plain:?}");
    assert!(
        plain.iter().all(|(_, w)| w == &[RECORDS * REC; 2]),
        "{plain:?}"
    );
    for extra in [&["-K"][..], &["-m"], &["-K", "-m", "-T"]] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        assert_eq!(phase_bytes(&args), plain, "{extra:?}");
    }
}

fn multi_buffer_still_verifies_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-m", "-V", "165", "-w", "-f", "t.tmp",
    ];
    ioz(dir.path(), &args).expect_code(0);
    let data = fs::read(dir.path().join("t.tmp")).unwrap();
    assert_eq!(data.len() as u64, RECORDS * REC);
    assert!(
        data.iter().all(|&b| b == 165),
        "every written byte is the -V byte"
    );
    // The kept file is right for -V 165 and wrong for -V 7: the reads, which
    // land all over the work area, are still checked.
    let wrong = ioz(
        dir.path(),
        &[
            "-s", "1000k", "-r", "4k", "-i", "1", "-m", "-V", "7", "-f", "t.tmp",
        ],
    );
    wrong.expect_code(1);
    assert!(
        wrong.stderr.contains("data mismatch (-V 7)"),
        "{}",
        wrong.stderr
    );
    assert!(wrong.stderr.contains("file offset 0 "), "{}", wrong.stderr);
    // -+d: each write's bytes are made where it sits in the area.
    ioz(
        dir.path(),
        &[
            "-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-i", "2", "-m", "-+d", "-f", "t.tmp",
        ],
    )
    .expect_code(0);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn multi_buffer_is_refused_with_engines_that_keep_requests_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["-s", "64k", "-m", "-H", "4"][..],
        &["-s", "64k", "-m", "--engine", "io_uring"],
    ] {
        let run = ioz(dir.path(), args);
        run.expect_code(2);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .starts_with("ioz: -m (multiple buffers) cannot be combined"),
            "{}",
            run.stderr
        );
    }
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// strace: the reads themselves.

/// One open of a test file and the reads made through it, in order.
#[derive(Debug)]
struct TracedPass {
    path: String,
    read_only: bool,
    /// (file offset, bytes returned).
    reads: Vec<(u64, u64)>,
}

/// Runs `ioz args…` in `dir` under `strace -ff` and returns the opens of
/// files whose name contains `file` (one per pass), with their reads. The
/// file position is followed through `lseek` and `read`; `pread64` carries
/// its own offset. None when the run failed (printed).
fn traced(dir: &Path, file: &str, args: &[&str]) -> Option<Vec<TracedPass>> {
    let traces = tempfile::tempdir().unwrap();
    let prefix = traces.path().join("tr");
    let out = Command::new("strace")
        .args([
            "-ff",
            "-y",
            "-s",
            "0",
            "-e",
            "trace=openat,read,lseek,pread64",
            "-o",
        ])
        .arg(&prefix)
        .arg(IOZ)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    if !out.status.success() {
        eprintln!(
            "ioz {} under strace failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let mut passes = Vec::new();
    for entry in fs::read_dir(traces.path()).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        parse_trace(&text, file, &mut passes);
    }
    Some(passes)
}

/// The path strace -y prints in `...<PATH>...` after `from`.
fn fd_path(s: &str) -> Option<&str> {
    let start = s.find('<')? + 1;
    let end = start + s[start..].find('>')?;
    Some(&s[start..end])
}

fn parse_trace(text: &str, file: &str, passes: &mut Vec<TracedPass>) {
    // Per path: the pass being traced in this process and the file position.
    let mut current: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for line in text.lines() {
        let Some((call, ret)) = line.rsplit_once(" = ") else {
            continue;
        };
        let ret = ret.trim();
        if call.starts_with("openat(") {
            let Some(path) = fd_path(ret) else { continue };
            // The run's lock descriptor, made with the file (O_CREAT|O_EXCL),
            // is no pass.
            if !path.contains(file) || call.contains("O_CREAT") {
                continue;
            }
            passes.push(TracedPass {
                path: path.to_string(),
                read_only: call.contains("O_RDONLY"),
                reads: Vec::new(),
            });
            current.insert(path.to_string(), (passes.len() - 1, 0));
            continue;
        }
        let Some(path) = call.find('(').and_then(|i| fd_path(&call[i..])) else {
            continue;
        };
        let Some((pass, pos)) = current.get_mut(path) else {
            continue;
        };
        let Ok(value) = ret.split_whitespace().next().unwrap_or("").parse::<u64>() else {
            continue; // a failed call
        };
        let args: Vec<&str> = call.trim_end_matches(')').rsplit(", ").collect();
        if call.starts_with("lseek(") {
            *pos = value;
        } else if call.starts_with("read(") {
            passes[*pass].reads.push((*pos, value));
            *pos += value;
        } else if call.starts_with("pread64(") {
            let offset = args[0].parse().unwrap();
            passes[*pass].reads.push((offset, value));
        }
    }
}

/// A sequential read pass of RECORDS records with probes of `probe` bytes
/// before every hundredth record (none for `probe` 0).
fn expected_reads(probe: u64) -> Vec<(u64, u64)> {
    let mut v = Vec::new();
    for i in 0..RECORDS {
        if probe > 0 && i % 100 == 0 {
            v.extend([(0, probe), (4096, probe)]);
        }
        v.push((i * REC, REC));
    }
    v
}

/// Checks a single-mode trace of `-i 0 -i 1`: the write passes read nothing,
/// the two read passes read exactly `expected_reads(probe)`.
fn check_single(passes: &[TracedPass], probe: u64, what: &str) {
    let (reads, writes): (Vec<&TracedPass>, Vec<&TracedPass>) =
        passes.iter().partition(|p| p.read_only);
    assert!(!writes.is_empty(), "{what}: the write passes were traced");
    for w in &writes {
        assert!(
            w.reads.is_empty(),
            "{what}: a write pass read {:?}",
            w.reads
        );
    }
    assert_eq!(reads.len(), 2, "{what}: read and reread");
    for r in reads {
        assert_eq!(r.reads, expected_reads(probe), "{what}");
    }
}

fn strace_shows_the_probes_every_hundred_records_of_the_read_passes_only() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-f", "t.tmp",
    ];
    let plain = traced(dir.path(), "t.tmp", &base).expect("plain run");
    check_single(&plain, 0, "plain");
    for engine in [&[][..], &["--engine", "psync"]] {
        let args: Vec<&str> = base
            .iter()
            .chain(["-K"].iter())
            .chain(engine)
            .copied()
            .collect();
        let passes = traced(dir.path(), "t.tmp", &args).expect("-K run");
        check_single(&passes, 1, &args.join(" "));
    }
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn disrupted_reads_with_o_direct_read_whole_pages() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-K", "-I", "-f", "t.tmp",
    ];
    ioz(dir.path(), &args).expect_code(0);
    let passes = traced(dir.path(), "t.tmp", &args).expect("-K -I run");
    check_single(&passes, 4096, "-K -I");
}

fn queued_engines_probe_with_pread_between_their_requests() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-K", "-H", "4", "-f", "t.tmp",
    ];
    let passes = traced(dir.path(), "t.tmp", &args).expect("-K -H run");
    // The records go through POSIX AIO's helper threads; the probes are the
    // loop's own 1-byte preads: two before each of records 0, 100, 200 of
    // both read passes.
    let probes: Vec<(u64, u64)> = passes
        .iter()
        .flat_map(|p| p.reads.iter().copied())
        .filter(|&(_, len)| len == 1)
        .collect();
    assert_eq!(probes, [(0, 1), (4096, 1)].repeat(6));
}

fn throughput_readers_are_disrupted_in_their_own_order() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-t", "2", "-x", "-s", "1000k", "-r", "4k", "-i", "0", "-i", "1", "-i", "3", "-i", "5",
        "-K",
    ];
    let passes = traced(dir.path(), "ioz.tmp.", &args).expect("throughput -K run");
    let readers: Vec<&TracedPass> = passes.iter().filter(|p| p.read_only).collect();
    // read, reread, backward and stride readers, two workers each.
    assert_eq!(readers.len(), 8, "{passes:#?}");
    for p in passes.iter().filter(|p| !p.read_only) {
        assert!(p.reads.is_empty(), "{}: a writer read", p.path);
    }
    let mut orders = BTreeMap::new();
    for p in readers {
        let mut records = Vec::new();
        let mut reads = p.reads.iter();
        while let Some(&(offset, len)) = reads.next() {
            if len == 1 {
                // A probe pair, then the record it goes before, which must be
                // the 0th, 100th or 200th of this pass.
                assert_eq!(offset, 0, "{}", p.path);
                assert_eq!(reads.next(), Some(&(4096, 1)), "{}", p.path);
                assert_eq!(
                    records.len() % 100,
                    0,
                    "{}: probe before record {}",
                    p.path,
                    records.len()
                );
                let &(record, len) = reads.next().expect("a record after the probes");
                assert_eq!(len, REC);
                records.push(record / REC);
                continue;
            }
            assert_eq!(len, REC);
            assert_ne!(
                records.len() % 100,
                0,
                "{}: no probe before record {}",
                p.path,
                records.len()
            );
            records.push(offset / REC);
        }
        assert_eq!(records.len() as u64, RECORDS, "{}", p.path);
        let mut sorted = records.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..RECORDS).collect::<Vec<_>>(), "{}", p.path);
        *orders.entry(records).or_insert(0) += 1;
    }
    // Sequential (read, reread: 4 passes), backward (2) and strided (2).
    let sequential: Vec<u64> = (0..RECORDS).collect();
    let backward: Vec<u64> = (0..RECORDS).rev().collect();
    assert_eq!(orders.get(&sequential), Some(&4));
    assert_eq!(orders.get(&backward), Some(&2));
    assert_eq!(orders.len(), 3, "and one strided order");
}

/// Buffer addresses of the reads and writes of each pass over `t.tmp`
/// (strace's raw arguments), with whether the pass read.
fn buffer_addresses(dir: &Path, args: &[&str]) -> Vec<(bool, Vec<u64>)> {
    let trace = dir.join("trace.txt");
    let ok = Command::new("strace")
        .args([
            "-y",
            "-e",
            "trace=openat,read,write",
            "-e",
            "raw=read,write",
            "-o",
        ])
        .arg(&trace)
        .arg(IOZ)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "ioz {} under strace failed", args.join(" "));
    let text = fs::read_to_string(&trace).unwrap();
    fs::remove_file(&trace).unwrap();
    let mut passes: Vec<(bool, Vec<u64>)> = Vec::new();
    let mut fd = String::new();
    for line in text.lines() {
        if line.starts_with("openat(") && line.contains("\"t.tmp\"") {
            let ret = line.rsplit_once(" = ").unwrap().1;
            fd = format!(
                "{:#x}",
                ret.split('<').next().unwrap().parse::<u32>().unwrap()
            );
            passes.push((line.contains("O_RDONLY"), Vec::new()));
            continue;
        }
        let raw = line
            .strip_prefix("read(")
            .or_else(|| line.strip_prefix("write("));
        if let (Some(raw), Some(pass)) = (raw, passes.last_mut()) {
            let args: Vec<&str> = raw.split(", ").collect();
            if args[0] == fd {
                let hex = args[1].trim_start_matches("0x");
                pass.1.push(u64::from_str_radix(hex, 16).unwrap());
            }
        }
    }
    passes
}

fn multi_buffer_moves_the_buffer_a_record_per_operation_and_wraps() {
    let dir = tempfile::tempdir().unwrap();
    // 320 records of 64 KiB; the 16 MiB area holds 256 of them.
    let base = [
        "-s", "20m", "-r", "64k", "-i", "0", "-i", "1", "-+n", "--data", "iozone", "-f", "t.tmp",
    ];
    let with_m: Vec<&str> = base.iter().chain(["-m"].iter()).copied().collect();
    let passes = buffer_addresses(dir.path(), &with_m);
    let moving: Vec<&(bool, Vec<u64>)> = passes.iter().filter(|p| !p.1.is_empty()).collect();
    assert_eq!(moving.len(), 2, "a write pass and a read pass");
    for (reads, addresses) in moving {
        assert_eq!(addresses.len(), 320);
        let start = addresses[0];
        for (i, &a) in addresses.iter().enumerate() {
            assert_eq!(
                a,
                start + (i as u64 % 256) * 65536,
                "op {i} of the {} pass",
                if *reads { "read" } else { "write" }
            );
        }
    }
    // Without -m every read lands in one buffer, and IOzone's data is
    // written from one buffer too, as IOzone's is.
    let passes = buffer_addresses(dir.path(), &base);
    let distinct = |v: &Vec<u64>| {
        let mut v = v.clone();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let counts: Vec<(bool, usize)> = passes
        .iter()
        .filter(|p| !p.1.is_empty())
        .map(|(r, v)| (*r, distinct(v)))
        .collect();
    assert_eq!(counts, vec![(false, 1), (true, 1)]);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

/// `--data iozone` is IOzone's one buffer: every read of every pass lands
/// where every write comes from (with two buffers, records of 4 MiB and
/// more ran at half IOzone's rate: benches/parity.rs). The default data
/// keeps its reads apart from the window its writes walk through.
fn iozone_data_reads_land_in_the_one_buffer_its_writes_send() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "-s", "1m", "-r", "256k", "-i", "0", "-i", "1", "-i", "2", "-f", "t.tmp",
    ];
    let addresses = |data: &str| -> (Vec<u64>, Vec<u64>) {
        let args: Vec<&str> = base.iter().copied().chain(["--data", data]).collect();
        let passes: Vec<Vec<u64>> = buffer_addresses(dir.path(), &args)
            .into_iter()
            .map(|(_, ops)| ops)
            .filter(|ops| !ops.is_empty())
            .collect();
        // write, rewrite, read, reread, random read, random write.
        assert_eq!(passes.len(), 6, "{passes:x?}");
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        for (i, ops) in passes.into_iter().enumerate() {
            assert_eq!(ops.len(), 4, "four records of 256 KiB a pass");
            if (2..5).contains(&i) {
                &mut reads
            } else {
                &mut writes
            }
            .extend(ops);
        }
        reads.sort_unstable();
        reads.dedup();
        writes.sort_unstable();
        writes.dedup();
        (reads, writes)
    };
    let (reads, writes) = addresses("iozone");
    assert_eq!(reads.len(), 1, "{reads:x?}");
    assert_eq!(reads, writes, "reads and writes in one buffer");
    let (reads, writes) = addresses("random");
    assert!(
        reads.iter().all(|r| !writes.contains(r)),
        "reads {reads:x?} apart from writes {writes:x?}"
    );
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}
