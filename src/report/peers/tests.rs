//! Every reader on its fixtures (tests/fixtures/peers: real files of fio
//! 3.33, IOR and mdtest 4.1; handmade/: elbencho's and IO500's, made from
//! their documentation), each figure checked against one computed here
//! from the file's own text. fio's JSON has its own tests (fio/tests.rs).

use super::*;
use crate::model::metadata::MetaOp;
use crate::model::peer::PeerTest;
use crate::model::recorded as rec;
use crate::model::workload::Pass;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/peers/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(name: &str) -> PeerRun {
    let text = fixture(name);
    let format = detect(&text).unwrap_or_else(|| panic!("{name}: not detected"));
    parse(format, &text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn kb(run: &PeerRun, test: PeerTest) -> Vec<f64> {
    let r = run
        .results
        .iter()
        .find(|r| r.test == test)
        .unwrap_or_else(|| panic!("no {test:?}"));
    r.samples.iter().map(|s| s.kb_per_sec.unwrap()).collect()
}

fn ops(run: &PeerRun, test: PeerTest) -> Vec<f64> {
    let r = run
        .results
        .iter()
        .find(|r| r.test == test)
        .unwrap_or_else(|| panic!("no {test:?}"));
    r.samples.iter().map(|s| s.ops_per_sec.unwrap()).collect()
}

/// The numbers after `"key":` in `text`, in order (the file's own figures,
/// found without the reader).
fn numbers_after(text: &str, key: &str) -> Vec<f64> {
    text.split(&format!("\"{key}\": "))
        .skip(1)
        .map(|rest| rest.split(',').next().unwrap().trim().parse().unwrap())
        .collect()
}

#[test]
fn every_fixture_is_detected_as_what_it_is() {
    use PeerFormat::*;
    for (name, format) in [
        ("fio-randread.json", FioJson),
        ("fio-write.jsonplus", FioJson),
        ("fio-two-jobs.jsonplus", FioJson),
        ("fio-numjobs2-group.jsonplus", FioJson),
        ("fio-uring-qd16.json", FioJson),
        ("fio-read.txt", FioText),
        ("ior-summary.json", IorJson),
        ("ior-random-json-stdout.json", IorJson),
        ("ior-text.txt", IorText),
        ("mdtest-2ranks.txt", MdtestText),
        ("mdtest-files.txt", MdtestText),
        ("mdtest-ranks.csv", MdtestCsv),
        ("handmade/elbencho-results.csv", ElbenchoCsv),
        ("handmade/io500-result.txt", Io500Result),
        ("handmade/fio-client-server.json", FioJson),
        ("handmade/fio-status-interval.json", FioJson),
        ("handmade/ior-stray-text.json", IorJson),
    ] {
        assert_eq!(detect(&fixture(name)), Some(format), "{name}");
    }
    let iozone = std::fs::read_to_string(format!(
        "{}/tests/fixtures/iozone-reference/auto.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(detect(&iozone), None);
    assert_eq!(
        detect("{\"schema_version\": 2, \"tool_version\": \"0.1\"}"),
        None
    );
    assert_eq!(detect("hello\n"), None);
}

#[test]
fn fio_s_text_output_is_its_issued_operations_over_its_runtime() {
    let run = read("fio-read.txt");
    assert_eq!(run.version.as_deref(), Some("3.33"));
    assert_eq!(run.date.as_deref(), Some("2026-12-01T21:15:46Z"));
    let r = &run.results[0];
    assert_eq!((r.test, r.record_bytes), (PeerTest::Pass(Pass::Read), 4096));
    // total=8192 reads of 4096 B in 243 ms.
    let want = 8192.0 * 4096.0 / 1024.0 / 0.243;
    assert!((r.samples[0].kb_per_sec.unwrap() - want).abs() < 1e-6);
    assert_eq!(r.printed, "132MiB/s");
    let lat = r.latency.as_ref().unwrap();
    assert_eq!(
        (lat.at(50.0), lat.at(99.0), lat.at(99.99)),
        (Some(7328), Some(35584), Some(44826624))
    );
    assert_eq!(r.recorded.settings[rec::ENGINE], "psync");
}

#[test]
fn ior_s_json_summary_keeps_each_repetition_as_a_sample() {
    let text = fixture("ior-summary.json");
    let run = read("ior-summary.json");
    assert_eq!(run.version.as_deref(), Some("4.1.0+dev"));
    assert_eq!(run.date.as_deref(), Some("2026-12-01T21:15:46Z"));
    assert_eq!(run.host.as_deref(), Some("vm"));
    assert!(
        run.command
            .as_deref()
            .unwrap()
            .starts_with("/usr/local/bin/ior -w -r -b 4m")
    );
    // The Results in file order: write, read, write, read, write, read.
    let all = numbers_after(&text, "bwMiB");
    let writes: Vec<f64> = all.iter().step_by(2).map(|m| m * 1024.0).collect();
    let reads: Vec<f64> = all.iter().skip(1).step_by(2).map(|m| m * 1024.0).collect();
    assert_eq!(writes.len(), 3);
    assert_eq!(kb(&run, PeerTest::Pass(Pass::Write)), writes);
    assert_eq!(kb(&run, PeerTest::Pass(Pass::Read)), reads);
    let w = &run.results[0];
    // -b 4m -s 4: each task's 16 MiB, in 64 KiB transfers, 2 tasks on one file.
    assert_eq!(
        (w.workers, w.file_bytes, w.record_bytes),
        (Some(2), 16 << 20, 64 << 10)
    );
    assert_eq!(w.recorded.settings[rec::SHARED_FILE], "yes");
    assert!(
        run.kept
            .iter()
            .any(|k| k.of == "summary, write" && k.value.contains("bwMeanMIB 2087.4726"))
    );
    assert!(
        run.kept
            .iter()
            .any(|k| k.name == "latency" && k.value.contains("not a percentile"))
    );
}

#[test]
fn ior_s_random_offsets_are_random_tests() {
    let run = read("ior-random-json-stdout.json");
    assert_eq!(
        kb(&run, PeerTest::Pass(Pass::RandomWrite)),
        [178.1418 * 1024.0, 2300.4547 * 1024.0]
    );
    assert_eq!(
        ops(&run, PeerTest::Pass(Pass::RandomRead)),
        [709208.6024, 928039.6059]
    );
    assert_eq!(
        (run.results[0].file_bytes, run.results[0].record_bytes),
        (2 << 20, 16 << 10)
    );
}

#[test]
fn ior_s_stray_lines_among_its_json_are_read_past_and_named() {
    let clean = read("ior-random-json-stdout.json");
    let stray = read("handmade/ior-stray-text.json");
    assert_eq!(stray.results, clean.results);
    assert_eq!(stray.defects.len(), 1);
    let d = &stray.defects[0];
    assert!(
        d.starts_with("IOR wrote 3 line(s) of text among its JSON (hpc/ior#503"),
        "{d}"
    );
    assert!(
        d.contains("line 1 \"IOR-4.1.0+dev: MPI Coordinated Test of Parallel I/O\""),
        "{d}"
    );
    // Anything else broken is named by its line in the file.
    let text = fixture("handmade/ior-stray-text.json").replacen(
        "\"bwMiB\": 178.1418",
        "\"bwMiB\" 178.1418",
        1,
    );
    let e = parse(PeerFormat::IorJson, &text).unwrap_err();
    let line = text
        .lines()
        .position(|l| l.contains("\"bwMiB\" 178.1418"))
        .unwrap()
        + 1;
    assert!(
        matches!(&e, PeerError::Json { line: l, .. } if *l == line),
        "{e} (line {line})"
    );
}

#[test]
fn ior_s_text_output_gives_the_same_cells() {
    let run = read("ior-text.txt");
    assert_eq!(run.version.as_deref(), Some("4.1.0+dev"));
    assert_eq!(
        kb(&run, PeerTest::Pass(Pass::Write)),
        [1127.88 * 1024.0, 771.10 * 1024.0]
    );
    assert_eq!(
        kb(&run, PeerTest::Pass(Pass::Read)),
        [1887.57 * 1024.0, 12035.0 * 1024.0]
    );
    let w = &run.results[0];
    assert_eq!(
        (w.workers, w.file_bytes, w.record_bytes),
        (Some(2), 16 << 20, 65536)
    );
    assert_eq!(
        w.recorded.settings[rec::SHARED_FILE],
        "no",
        "file-per-process"
    );
    assert!(
        run.kept
            .iter()
            .any(|k| k.of == "summary, read" && k.value.starts_with("Max 12035.31"))
    );
}

#[test]
fn mdtest_s_summary_of_two_iterations_is_its_max_and_min() {
    let run = read("mdtest-2ranks.txt");
    assert_eq!(run.version.as_deref(), Some("4.1.0+dev"));
    assert_eq!(run.date.as_deref(), Some("2026-12-01T21:15:52Z"));
    assert_eq!(run.results.len(), 10);
    let create = PeerTest::Metadata(MetaOp::DirectoryCreation);
    assert_eq!(ops(&run, create), [2231.629, 1849.933]);
    assert_eq!(run.results[0].workers, Some(2));
    assert!(
        run.kept
            .iter()
            .any(|k| k.name == "WARNING" && k.value.starts_with("Read bytes is 0"))
    );
}

#[test]
fn mdtest_s_three_iterations_are_recovered_and_agree_with_its_csv() {
    let text = read("mdtest-files.txt");
    let csv = read("mdtest-ranks.csv");
    assert_eq!(csv.results[0].workers, None, "one rank");
    for op in [
        MetaOp::FileCreation,
        MetaOp::FileStat,
        MetaOp::FileRead,
        MetaOp::FileRemoval,
    ] {
        let mut from_text = ops(&text, PeerTest::Metadata(op));
        let mut from_csv = ops(&csv, PeerTest::Metadata(op));
        assert_eq!((from_text.len(), from_csv.len()), (3, 3), "{op:?}");
        from_text.sort_by(f64::total_cmp);
        from_csv.sort_by(f64::total_cmp);
        for (t, c) in from_text.iter().zip(&from_csv) {
            // The SUMMARY's rate is the job's (its items over the slowest
            // rank's time, timed around the ranks' barrier), the CSV's each
            // rank's own: with one rank they differ by the barrier's
            // moment, under 0.1 % here.
            assert!(
                (t - c).abs() < 1e-3 * c,
                "{op:?}: {t} against the CSV's {c}"
            );
        }
    }
    // The CSV's own rows, in order, for File creation.
    assert_eq!(
        ops(&csv, PeerTest::Metadata(MetaOp::FileCreation)),
        [1.1945377639e+03, 1.4907748553e+03, 1.1120699095e+03]
    );
    assert!(
        csv.kept
            .iter()
            .any(|k| k.of.starts_with("the \"all\" row (1000 items)"))
    );
}

#[test]
fn mdtest_with_more_iterations_than_can_be_recovered_is_one_sample() {
    let text = fixture("mdtest-files.txt").replace("(of 3 iterations)", "(of 5 iterations)");
    let run = parse(PeerFormat::MdtestText, &text).unwrap();
    assert_eq!(
        ops(&run, PeerTest::Metadata(MetaOp::FileCreation)),
        [1265.791]
    );
    assert!(
        run.kept
            .iter()
            .any(|k| k.name == "iterations" && k.value.starts_with("5: "))
    );
}

#[test]
fn elbencho_s_rows_of_one_command_are_repetitions() {
    let run = read("handmade/elbencho-results.csv");
    assert_eq!(run.version.as_deref(), Some("3.0.19"));
    assert_eq!(run.date.as_deref(), Some("2026-12-01T21:20:01Z"));
    assert_eq!(
        kb(&run, PeerTest::Pass(Pass::Write)),
        [112.0 * 1024.0, 106.0 * 1024.0]
    );
    assert_eq!(
        kb(&run, PeerTest::Pass(Pass::Read)),
        [1560.0 * 1024.0, 1600.0 * 1024.0]
    );
    let w = &run.results[0];
    assert_eq!(
        (w.workers, w.file_bytes, w.record_bytes),
        (Some(2), 64 << 20, 1 << 20)
    );
    let random = run
        .results
        .iter()
        .find(|r| r.test == PeerTest::Pass(Pass::RandomRead))
        .unwrap();
    let s = &random.recorded.settings;
    assert_eq!(
        (s[rec::DIRECT].as_str(), s[rec::DEPTH].as_str()),
        ("yes", "16")
    );
    // The directory run's phases are mdtest's operations, in entries/s:
    // outside a comparison in kB/s.
    assert_eq!(
        ops(&run, PeerTest::Metadata(MetaOp::DirectoryCreation)),
        [666.0]
    );
    assert_eq!(
        ops(&run, PeerTest::Metadata(MetaOp::FileCreation)),
        [3125.0]
    );
    assert_eq!(run.outside(run.unit()).count(), 2);
    assert!(
        run.command
            .as_deref()
            .unwrap()
            .starts_with("3 commands: elbencho -w -r -t 2")
    );
    assert!(
        run.kept
            .iter()
            .any(|k| k.name == "MiB/s [first]" && k.value == "114")
    );
}

#[test]
fn io500_s_phases_are_ior_and_mdtest_cells() {
    let run = read("handmade/io500-result.txt");
    assert_eq!(run.version.as_deref(), Some("io500-sc23_v1"));
    assert_eq!(run.date.as_deref(), Some("2026-12-01T21:30:00Z"));
    let easy = run
        .results
        .iter()
        .find(|r| r.name == "ior-easy-write")
        .unwrap();
    assert_eq!(easy.samples[0].kb_per_sec, Some(1.194211 * 1024.0 * 1024.0));
    assert_eq!((easy.workers, easy.record_bytes), (Some(2), 2 << 20));
    assert_eq!(easy.recorded.settings[rec::SHARED_FILE], "no", "-F");
    let hard = run
        .results
        .iter()
        .find(|r| r.name == "ior-hard-write")
        .unwrap();
    assert_eq!(
        (hard.file_bytes, hard.record_bytes),
        (47008 * 10_000_000, 47008)
    );
    assert_eq!(hard.recorded.settings[rec::SHARED_FILE], "yes");
    let md = run
        .results
        .iter()
        .find(|r| r.name == "mdtest-hard-write")
        .unwrap();
    assert_eq!(
        (md.test, md.file_bytes),
        (PeerTest::Metadata(MetaOp::FileCreation), 3901)
    );
    assert_eq!(md.samples[0].ops_per_sec, Some(9402.117));
    assert_eq!(run.results.len(), 4 + 7);
    assert!(
        run.kept
            .iter()
            .any(|k| k.of == "SCORE" && k.name == "SCORE" && k.value == "6.514008 [INVALID]")
    );
    assert!(run.kept.iter().any(|k| k.of == "ior-easy-write"
        && k.name == "validity"
        && k.value.starts_with("ERROR INVALID")));
    assert!(run.kept.iter().any(|k| k.of == "find" && k.name == "score"));
}

#[test]
fn broken_text_files_are_named_by_line() {
    let e = parse(PeerFormat::MdtestCsv, "rank,items,rate-File stat\n0,,abc\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "mdtest's --saveRankPerformanceDetails CSV, line 2: rate-File stat: \"abc\" is not a rate"
    );
    let csv = fixture("handmade/elbencho-results.csv");
    let short: String = csv
        .lines()
        .take(2)
        .map(|l| format!("{}\n", &l[..40.min(l.len())]))
        .collect();
    let e = parse(PeerFormat::ElbenchoCsv, &short).unwrap_err();
    assert!(matches!(e, PeerError::Line { line: 1, .. }), "{e}");
    let io500 = fixture("handmade/io500-result.txt").replacen(
        "score           = 1.194211",
        "score = fast",
        1,
    );
    let e = parse(PeerFormat::Io500Result, &io500).unwrap_err();
    assert_eq!(
        e.to_string(),
        "IO500's result.txt, line 15: score: \"fast\" is not a number"
    );
    let e = parse(
        PeerFormat::MdtestText,
        "mdtest-4.1: x\nSUMMARY rate: (of 2 iterations)\n",
    )
    .unwrap_err();
    assert!(matches!(e, PeerError::NoResults { .. }), "{e}");
}
