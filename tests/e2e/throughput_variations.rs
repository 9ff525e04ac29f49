//! Throughput mode with the variations that need every worker: -V/-+d
//! verification (with fault injection into one worker), -Q files per worker,
//! -Q latencies from the queued engines (io_uring, POSIX AIO) in single and
//! throughput mode, and test 8's worker roles (-+K) and truncating writers (-+F).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::fixtures::flip::{assert_contains, ioz_flipped, mismatch_line, shim};
use crate::fixtures::{IOZ, Run, Test, ioz, list_dir, trials};
use ioz::data::pattern::random_permutation;
use ioz::data::verify::diag_byte;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        every_worker_verifies_what_it_reads,
        workers_sharing_a_file_or_a_total_agree_on_the_pattern,
        a_corrupted_read_in_one_worker_stops_the_run_with_its_offset => [FlipShim],
        q_writes_one_file_per_worker_and_pass,
        q_records_every_operation_of_the_queued_engines,
        q_records_every_operation_of_io_uring => [IoUring],
        mix_readers_read_and_the_other_workers_write,
        mix_readers_only_pread_and_writers_only_pwrite_under_strace => [Strace],
        a_corrupted_mix_read_is_found_by_the_reader_and_the_writers_never_read => [FlipShim],
        truncating_mix_writers_start_from_an_empty_file,
        mix_options_are_refused_where_they_mean_nothing,
    ]
}

/// 256 KiB in 64 KiB records: 4 records per worker.
const SIZES: [&str; 4] = ["-s", "256k", "-r", "64k"];
const REC: u64 = 64 << 10;

fn args<'a>(parts: &[&[&'a str]]) -> Vec<&'a str> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

/// The "Verified N bytes in K read passes; no mismatches." note: (N, K).
fn verified(run: &Run) -> (u64, u64) {
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("\tVerified "))
        .unwrap_or_else(|| panic!("no verify note in:\n{}", run.stdout));
    assert!(line.ends_with("; no mismatches."), "{line}");
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[1].parse().unwrap(), words[4].parse().unwrap())
}

/// Sum of the bytes the workers counted in the phases that only read.
fn read_bytes_in_json(dir: &Path) -> u64 {
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    json["throughput"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            [
                "read",
                "reread",
                "random_read",
                "backward_read",
                "stride_read",
            ]
            .contains(&p["pass"].as_str().unwrap())
        })
        .flat_map(|p| p["results"].as_array().unwrap())
        .map(|r| r["bytes"].as_u64().unwrap())
        .sum()
}

fn every_worker_verifies_what_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [&["-V", "165"][..], &["-+d"][..]] {
        for kind in [&[][..], &["-T"][..]] {
            // No stonewalling: both workers read all 4 records in 3 read passes.
            let a = args(&[
                &["-t", "2", "-x", "-i", "0", "-i", "1", "-i", "2"],
                &SIZES,
                mode,
                kind,
            ]);
            let run = ioz(dir.path(), &a);
            run.expect_code(0);
            assert_eq!(verified(&run), (2 * 3 * 4 * REC, 6), "{a:?}");
            assert!(
                run.stdout
                    .contains("Performance measurements are invalid in this mode."),
                "{a:?}"
            );
            assert!(
                list_dir(dir.path()).is_empty(),
                "{:?}",
                list_dir(dir.path())
            );
            // Stonewalled readers verified what they counted, no more, no less.
            let a = args(&[
                &[
                    "-t", "3", "-i", "0", "-i", "1", "-i", "5", "--json", "r.json",
                ],
                &SIZES,
                mode,
                kind,
            ]);
            let run = ioz(dir.path(), &a);
            run.expect_code(0);
            let (bytes, _) = verified(&run);
            assert_eq!(bytes, read_bytes_in_json(dir.path()), "{a:?}");
            // The saved run's report prints the same note.
            let report = ioz(dir.path(), &["report", "r.json"]);
            assert_eq!(verified(&report), verified(&run));
            fs::remove_file(dir.path().join("r.json")).unwrap();
        }
    }
}

fn workers_sharing_a_file_or_a_total_agree_on_the_pattern() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [&["-V", "7"][..], &["-+d"][..]] {
        for extra in [&["-+V"][..], &["-+L"][..], &["-+k"][..], &["-+V", "-T"][..]] {
            // The mix too: with -+d, writes by one worker and reads by another
            // of the same offset agree, because the pattern depends on the offset.
            let a = args(&[
                &["-t", "3", "-x", "-i", "0", "-i", "1", "-i", "8"],
                &["-s", "192k", "-r", "16k"],
                mode,
                extra,
            ]);
            let run = ioz(dir.path(), &a);
            run.expect_code(0);
            let (bytes, passes) = verified(&run);
            assert!(bytes > 0 && passes >= 6, "{a:?}: {bytes} {passes}");
            assert!(list_dir(dir.path()).is_empty());
        }
    }
}

fn a_corrupted_read_in_one_worker_stops_the_run_with_its_offset() {
    let shim = shim();
    let dir = tempfile::tempdir().unwrap();
    for kind in [&[][..], &["-T"][..]] {
        // Only worker 1's file ends in "t.tmp": the shim corrupts its 2nd
        // read, record 1 of the read pass.
        let a = args(&[
            &["-t", "2", "-x", "-i", "0", "-i", "1", "-V", "165"],
            &SIZES,
            kind,
            &["-F", "a.dat", "b-t.tmp"],
        ]);
        let flip = [("FLIP_CALL", "2"), ("FLIP_BYTE", "100")];
        let run = ioz_flipped(shim, dir.path(), &a, &flip);
        let line = mismatch_line(&run);
        assert_contains(
            line,
            &[
                "ioz: worker 1: verify the data read from b-t.tmp at offset 65536 during the read pass: ",
                "data mismatch (-V 165): first bad byte at file offset 65636 (record 1, byte 100)",
                "expected 0xa5, found 0x5a",
                "1 of the 65536 bytes of that record differs",
                "1 bad byte in 1 record in this pass",
            ],
        );
        assert!(!run.stdout.contains("re-readers"), "the run went on");
        assert!(
            list_dir(dir.path()).is_empty(),
            "{:?}",
            list_dir(dir.path())
        );

        // -+d in the random read pass: the 3rd read is this record.
        let record = random_permutation(4)[2];
        let a = args(&[
            &["-t", "2", "-x", "-i", "0", "-i", "2", "-+d"],
            &SIZES,
            kind,
            &["-F", "a.dat", "b-t.tmp"],
        ]);
        let flip = [
            ("FLIP_CALL", "3"),
            ("FLIP_BYTE", "777"),
            ("FLIP_COUNT", "2"),
        ];
        let run = ioz_flipped(shim, dir.path(), &a, &flip);
        let line = mismatch_line(&run);
        let offset = record * REC + 777;
        assert_contains(
            line,
            &[
                "ioz: worker 1: ",
                &format!(
                    "b-t.tmp at offset {} during the random read pass",
                    record * REC
                ),
                &format!("first bad byte at file offset {offset} (record {record}, byte 777)"),
                &format!(
                    "expected {:#04x}, found {:#04x}",
                    diag_byte(offset),
                    diag_byte(offset) ^ 0xff
                ),
                "2 of the 65536 bytes of that record differ",
            ],
        );
        assert!(list_dir(dir.path()).is_empty());
    }
}

/// A -Q file: its (offset kB, latency µs, bytes) lines, checked for the
/// header and the closing times line.
fn latency_lines(path: &Path) -> Vec<(u64, f64, u64)> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("Offset in Kbytes   Latency in microseconds  Transfer size in bytes")
    );
    let mut out = Vec::new();
    for line in lines.by_ref() {
        if line.is_empty() {
            break;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 3, "{line:?}");
        out.push((
            f[0].parse().unwrap(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
        ));
    }
    let last = lines.next().unwrap_or_default();
    assert!(
        last.starts_with("System time ") && last.ends_with("  (seconds)"),
        "{last:?}"
    );
    assert_eq!(lines.next(), None, "one pass per file");
    out
}

/// Checks that a -Q file has one line per record of a `records`-record file,
/// in the given order of records (None: any order covering each once).
fn check_latency_file(path: &Path, records: u64, rec_bytes: u64, order: Option<&[u64]>) {
    let lines = latency_lines(path);
    assert_eq!(lines.len() as u64, records, "{}", path.display());
    assert!(
        lines
            .iter()
            .all(|&(_, lat, len)| lat >= 0.0 && len == rec_bytes)
    );
    let offsets: Vec<u64> = lines.iter().map(|&(kb, _, _)| kb * 1024).collect();
    match order {
        Some(order) => {
            let want: Vec<u64> = order.iter().map(|r| r * rec_bytes).collect();
            assert_eq!(offsets, want, "{}", path.display());
        }
        None => {
            let mut sorted = offsets.clone();
            sorted.sort_unstable();
            let want: Vec<u64> = (0..records).map(|r| r * rec_bytes).collect();
            assert_eq!(sorted, want, "{}", path.display());
        }
    }
}

const Q_TESTS: [&str; 6] = ["-i", "0", "-i", "1", "-i", "2"];
/// The files -i 0 -i 1 -i 2 write per pass, and whether the pass is random.
const Q_FILES: [(&str, bool); 6] = [
    ("wol.dat", false),
    ("rwol.dat", false),
    ("rol.dat", false),
    ("rrol.dat", false),
    ("randrol.dat", true),
    ("randwol.dat", true),
];

fn check_worker_files(dir: &Path, workers: u32, records: u64) {
    let mut want: Vec<String> = (0..workers)
        .flat_map(|w| Q_FILES.iter().map(move |(f, _)| format!("Child_{w}_{f}")))
        .collect();
    want.sort();
    assert_eq!(list_dir(dir), want);
    let random = random_permutation(records);
    for w in 0..workers {
        for (f, is_random) in Q_FILES {
            let sequential: Vec<u64> = (0..records).collect();
            let order = if is_random { &random } else { &sequential };
            let path = dir.join(format!("Child_{w}_{f}"));
            check_latency_file(&path, records, 4096, Some(order));
        }
    }
}

fn q_writes_one_file_per_worker_and_pass() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [&[][..], &["-T"][..]] {
        let a = args(&[
            &["-t", "2", "-x", "-Q", "-s", "64k", "-r", "4k"],
            &Q_TESTS,
            kind,
        ]);
        let run = ioz(dir.path(), &a);
        run.expect_code(0);
        check_worker_files(dir.path(), 2, 16);
        for f in list_dir(dir.path()) {
            fs::remove_file(dir.path().join(f)).unwrap();
        }
    }
    // Stonewalled workers list the operations they counted.
    let a = args(&[
        &[
            "-t", "3", "-Q", "-s", "64k", "-r", "4k", "-i", "0", "-i", "1",
        ],
        &["--json", "r.json"],
    ]);
    ioz(dir.path(), &a).expect_code(0);
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    for phase in json["throughput"].as_array().unwrap() {
        let file = match phase["pass"].as_str().unwrap() {
            "write" => "wol.dat",
            "rewrite" => "rwol.dat",
            "read" => "rol.dat",
            "reread" => "rrol.dat",
            other => panic!("unexpected pass {other}"),
        };
        for r in phase["results"].as_array().unwrap() {
            let w = r["worker"].as_u64().unwrap();
            let lines = latency_lines(&dir.path().join(format!("Child_{w}_{file}")));
            assert_eq!(lines.len() as u64, r["records"].as_u64().unwrap());
            for (i, (kb, _, _)) in lines.iter().enumerate() {
                assert_eq!(*kb, 4 * i as u64, "sequential offsets from 0");
            }
        }
    }
}

/// Runs ioz with a queued engine; it must succeed.
fn queued_run(dir: &Path, a: &[&str]) -> Run {
    let run = ioz(dir, a);
    run.expect_code(0);
    run
}

fn q_records_every_operation_of_the_queued_engines() {
    q_records_every_operation_of(&[&["-H", "4"][..], &["-k", "3"][..]]);
}

fn q_records_every_operation_of_io_uring() {
    q_records_every_operation_of(&[&["--engine", "io_uring", "--iodepth", "4"][..]]);
}

fn q_records_every_operation_of(engines: &[&[&str]]) {
    let dir = tempfile::tempdir().unwrap();
    for &engine in engines {
        // Single mode: wol.dat, rol.dat, … with every record, in the order issued.
        let a = args(&[&["-Q", "-s", "64k", "-r", "4k"], &Q_TESTS, engine]);
        queued_run(dir.path(), &a);
        let mut want: Vec<&str> = Q_FILES.iter().map(|(f, _)| *f).collect();
        want.sort();
        assert_eq!(list_dir(dir.path()), want, "{engine:?}");
        let random = random_permutation(16);
        let sequential: Vec<u64> = (0..16).collect();
        for (f, is_random) in Q_FILES {
            let order = if is_random { &random } else { &sequential };
            check_latency_file(&dir.path().join(f), 16, 4096, Some(order));
        }
        for f in list_dir(dir.path()) {
            fs::remove_file(dir.path().join(f)).unwrap();
        }
        // Throughput mode, processes and threads.
        for kind in [&[][..], &["-T"][..]] {
            let a = args(&[
                &["-t", "2", "-x", "-Q", "-s", "64k", "-r", "4k"],
                &Q_TESTS,
                engine,
                kind,
            ]);
            queued_run(dir.path(), &a);
            check_worker_files(dir.path(), 2, 16);
            for f in list_dir(dir.path()) {
                fs::remove_file(dir.path().join(f)).unwrap();
            }
        }
    }
}

/// The pread64/pwrite64 calls per file name of a run under strace.
fn traced(dir: &Path, a: &[&str]) -> BTreeMap<String, (u32, u32)> {
    let trace = dir.join("trace.txt");
    let out = Command::new("strace")
        .args(["-f", "-y", "-qq", "-e", "trace=pread64,pwrite64", "-o"])
        .arg(&trace)
        .arg(IOZ)
        .args(a)
        .current_dir(dir)
        .output()
        .expect("cannot run strace");
    let text = fs::read_to_string(&trace).unwrap_or_default();
    let _ = fs::remove_file(&trace);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        panic!("traced run failed:\n{err}");
    }
    let mut calls: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for line in text.lines() {
        let Some(call) = ["pread64(", "pwrite64("]
            .into_iter()
            .find(|c| line.contains(c))
        else {
            continue;
        };
        // pread64(5</tmp/…/r.dat>, …
        let after = &line[line.find(call).unwrap() + call.len()..];
        let Some(path) = after.split_once('<').and_then(|(_, p)| p.split_once('>')) else {
            continue;
        };
        let name = Path::new(path.0)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let entry = calls.entry(name).or_default();
        if call == "pread64(" {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
    calls
}

const MIX_FILES: [&str; 4] = ["-F", "r.dat", "w1.dat", "w2.dat"];

/// Lays the mix's files down (kept), for runs of the mix alone on them.
fn lay_mix_files(dir: &Path) {
    let a = args(&[
        &["-t", "3", "-s", "64k", "-r", "16k", "-i", "0", "-w"],
        &MIX_FILES,
    ]);
    ioz(dir, &a).expect_code(0);
}

/// Runs only the mix on the laid files, in processes and in threads (under
/// strace with `strace`: the reader makes 4 preads, each writer 4 pwrites),
/// and checks each worker's -Q file.
fn mix_roles(strace: bool) {
    let dir = tempfile::tempdir().unwrap();
    let files = MIX_FILES;
    lay_mix_files(dir.path());
    for kind in [&[][..], &["-T"][..]] {
        let a = args(&[
            &[
                "-t", "3", "-x", "-s", "64k", "-r", "16k", "-i", "8", "-+K", "1", "-w", "-Q",
            ],
            kind,
            &files,
        ]);
        if strace {
            let calls = traced(dir.path(), &a);
            // The mix moves records with pread/pwrite: 4 records per worker.
            assert_eq!(calls.get("r.dat"), Some(&(4, 0)), "{calls:?}");
            assert_eq!(calls.get("w1.dat"), Some(&(0, 4)), "{calls:?}");
            assert_eq!(calls.get("w2.dat"), Some(&(0, 4)), "{calls:?}");
        } else {
            ioz(dir.path(), &a).expect_code(0);
        }
        for w in 0..3 {
            let path = dir.path().join(format!("Child_{w}_mixol.dat"));
            check_latency_file(&path, 4, 16384, Some(&random_permutation(4)));
            fs::remove_file(path).unwrap();
        }
    }
}

fn mix_readers_read_and_the_other_workers_write() {
    mix_roles(false);
}

fn mix_readers_only_pread_and_writers_only_pwrite_under_strace() {
    mix_roles(true);
}

fn a_corrupted_mix_read_is_found_by_the_reader_and_the_writers_never_read() {
    let dir = tempfile::tempdir().unwrap();
    lay_mix_files(dir.path());
    // Without strace: the reader sees a corrupted read, the writers never read.
    let shim = shim();
    let a = args(&[
        &[
            "-t", "3", "-x", "-s", "64k", "-r", "16k", "-i", "0", "-i", "8", "-+K", "1",
        ],
        &["-V", "165", "-F", "r-t.tmp", "w1.dat", "w2.dat"],
    ]);
    let run = ioz_flipped(shim, dir.path(), &a, &[("FLIP_CALL", "4")]);
    let line = mismatch_line(&run);
    assert!(
        line.contains("worker 0: ") && line.contains("during the random mix pass"),
        "{line}"
    );
    let a = args(&[
        &[
            "-t", "3", "-x", "-s", "64k", "-r", "16k", "-i", "0", "-i", "8", "-+K", "1",
        ],
        &["-V", "165", "-F", "r.dat", "w1-t.tmp", "w2-t.tmp"],
    ]);
    let run = ioz_flipped(shim, dir.path(), &a, &[("FLIP_CALL", "1")]);
    run.expect_code(0);
    // Only worker 0 read in the mix: 4 records of 16 KiB.
    assert_eq!(verified(&run), (4 * 16384, 1));
}

fn truncating_mix_writers_start_from_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let files = ["-F", "r.dat", "w1.dat", "w2.dat"];
    let size = |name: &str| fs::metadata(dir.path().join(name)).unwrap().len();
    for (truncate, writer_size) in [(false, 128 << 10), (true, 64 << 10)] {
        // 128 KiB files, then a mix over their first 64 KiB.
        let a = args(&[
            &["-t", "3", "-s", "128k", "-r", "16k", "-i", "0", "-w"],
            &files,
        ]);
        ioz(dir.path(), &a).expect_code(0);
        let mut a = args(&[
            &[
                "-t", "3", "-s", "64k", "-r", "16k", "-i", "8", "-+K", "1", "-w",
            ],
            &files,
            &["--json", "r.json"],
        ]);
        if truncate {
            a.push("-+F");
        }
        let run = ioz(dir.path(), &a);
        run.expect_code(0);
        assert_eq!(size("r.dat"), 128 << 10, "the reader's file is untouched");
        for w in ["w1.dat", "w2.dat"] {
            // Truncated, then every record written again: the run's size.
            assert_eq!(size(w), writer_size, "{w}, -+F {truncate}");
        }
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
        let mix = &json["throughput"][0];
        assert_eq!(mix["pass"], "random_mix");
        for r in mix["results"].as_array().unwrap() {
            if r["stonewalled"] == false {
                assert_eq!(r["bytes"], 64 << 10, "{r}");
            }
        }
    }
    // With -V the truncated writers' files hold the pattern, all of it.
    let a = args(&[
        &[
            "-t", "3", "-x", "-s", "64k", "-r", "16k", "-i", "0", "-i", "8", "-+K", "1",
        ],
        &["-+F", "-V", "90", "-w"],
        &files,
    ]);
    ioz(dir.path(), &a).expect_code(0);
    for w in ["w1.dat", "w2.dat"] {
        assert_eq!(fs::read(dir.path().join(w)).unwrap(), vec![90u8; 64 << 10]);
    }
}

fn mix_options_are_refused_where_they_mean_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["-s", "64k", "-i", "0", "-i", "8", "-+K", "1"],
            "-+K only applies to test 8 in throughput mode",
        ),
        (
            &["-s", "64k", "-i", "0", "-i", "8", "-+F"],
            "-+F only applies to test 8 in throughput mode",
        ),
        (
            &["-t", "2", "-s", "64k", "-i", "0", "-+K", "1"],
            "-+K shapes test 8 (the random mix): add -i 8",
        ),
        (
            &["-t", "2", "-s", "64k", "-i", "8", "-+F"],
            "-+F truncates the mix's writer workers, which only -+K n makes",
        ),
        (
            &["-t", "2", "-s", "64k", "-i", "8", "-+K", "1", "-+F", "-+V"],
            "-+F cannot be combined with a shared file",
        ),
    ];
    for (a, message) in cases {
        let run = ioz(dir.path(), a);
        run.expect_code(2);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr.starts_with("ioz: ") && run.stderr.contains(message),
            "{a:?}: {}",
            run.stderr
        );
        assert!(list_dir(dir.path()).is_empty());
    }
    // -+p wins over -+K, and the header says so.
    let run = ioz(
        dir.path(),
        &[
            "-t", "2", "-s", "64k", "-r", "16k", "-i", "0", "-i", "8", "-+K", "1", "-+p", "30",
            "-V", "3", "-x",
        ],
    );
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("\t-+p sets the mix, so -+K 1 is not used"),
        "{}",
        run.stdout
    );
    // Every worker mixed: 30% of 4 records read, in each of the 2 workers.
    assert_eq!(verified(&run), (2 * 16384, 2));
}
