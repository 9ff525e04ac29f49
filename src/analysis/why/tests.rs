//! The causes on pairs of inputs that differ in one known thing.

use super::*;
use crate::analysis::adjust::Adjust;
use crate::analysis::compare::{Input, Options, Side, Verdict, compare};
use crate::analysis::samples::{CellKey, Test, of_peer, of_run};
use crate::model::config::OutputUnit;
use crate::model::environment::Environment;
use crate::model::intervals::Interval;
use crate::model::peer::PeerRun;
use crate::model::plan::Cell;
use crate::model::result::{CellResult, Measurement, RegionUsage, RunResult, sample_result};
use crate::model::workload::Pass;

const OPTIONS: Options = Options {
    band_percent: 5.0,
    adjust: Adjust::BenjaminiHochberg,
};

/// A run of `args` whose write cell of 1 MiB in 64 KiB records was measured
/// five times at `kb_per_sec` (± 1 %), on a target mounted with `mount`.
fn run(args: &[&str], kb_per_sec: f64, mount: &str) -> RunResult {
    let measurements = [1.0, 1.01, 0.99, 1.005, 0.995]
        .iter()
        .enumerate()
        .map(|(i, f)| Measurement {
            pass: Pass::Write,
            file_bytes: 1 << 20,
            record_bytes: 64 << 10,
            workers: 1,
            bytes: 1 << 20,
            records: 16,
            latency: None,
            elapsed_ns: (1024.0 / (kb_per_sec * f) * 1e9) as u64,
            cpu_user_ns: 1_000,
            cpu_system_ns: 15_000,
            usage: Some(RegionUsage::default()),
            residency: None,
            run: i as u32,
            intervals: Vec::new(),
        })
        .collect();
    let mut r = sample_result(
        crate::cli::test_config(args),
        vec![CellResult {
            cell: Cell {
                file_bytes: 1 << 20,
                record_bytes: 64 << 10,
            },
            measurements,
        }],
    );
    r.environment = Environment::default();
    r.environment.target.mount_options = mount.into();
    r.environment.target.fs_type = "ext4".into();
    r
}

fn side(label: &str, run: &RunResult) -> Side {
    Side {
        input: Input {
            label: label.into(),
            date: None,
            source: format!("{label}.json"),
            runs: 1,
            tool: Some(Tool {
                name: "ioz".into(),
                version: Some(run.tool_version.clone()),
                command: None,
            }),
        },
        samples: of_run(run),
        environment: Some(run.environment.clone()),
    }
}

const ARGS: &[&str] = &["-s", "1m", "-r", "64k", "-i", "0"];

/// The causes of the write cell's difference, A against B.
fn why_of(a: &Side, b: &Side) -> Vec<Cause> {
    let c = compare(a, std::slice::from_ref(b), OPTIONS).unwrap();
    let cell = c.pairs[0]
        .cells
        .iter()
        .find(|x| x.cell.pass == Test::Pass(Pass::Write))
        .unwrap();
    assert_eq!(cell.verdict, Verdict::Slower, "{cell:?}");
    cell.why.clone()
}

#[test]
fn a_pair_that_differs_in_one_mount_option_names_it_first() {
    let a = side("relatime", &run(ARGS, 400_000.0, "rw,relatime"));
    let b = side("sync", &run(ARGS, 250_000.0, "rw,sync,relatime"));
    let why = why_of(&a, &b);
    assert!(!why.is_empty());
    assert_eq!(why[0].kind, CauseKind::Environment, "{why:?}");
    assert_eq!(
        why[0].text,
        "mount options (mount): relatime rw,relatime, sync rw,sync,relatime"
    );
    // Nothing else the two recorded differs.
    assert!(
        why.iter().all(|c| c.kind == CauseKind::Environment),
        "{why:?}"
    );
    // Two runs alike in all that: no cause at all.
    let same = side("same", &run(ARGS, 250_000.0, "rw,relatime"));
    assert!(why_of(&a, &same).is_empty());
}

#[test]
fn a_setting_that_differs_comes_before_the_environment() {
    let a = side("cached", &run(ARGS, 400_000.0, "rw,relatime"));
    let direct: Vec<&str> = ARGS.iter().copied().chain(["-I"]).collect();
    let b = side("direct", &run(&direct, 150_000.0, "rw,noatime"));
    let why = why_of(&a, &b);
    // -I moves the cell out of any cache: its regime says so first.
    assert_eq!(why[0].kind, CauseKind::Regime, "{why:?}");
    assert!(
        why[0].text.contains("direct uncached (-I)"),
        "{}",
        why[0].text
    );
    assert_eq!(why[1].kind, CauseKind::Setting, "{why:?}");
    assert_eq!(why[1].text, "direct I/O: cached no, direct yes");
    assert!(why.iter().any(|c| c.kind == CauseKind::Environment));
    let weights: Vec<u8> = why.iter().map(|c| c.weight).collect();
    assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{weights:?}");
}

#[test]
fn page_faults_of_ioz_s_own_and_a_stall_are_named() {
    let a = side("clean", &run(ARGS, 400_000.0, "rw"));
    let mut slow = run(ARGS, 200_000.0, "rw");
    let m = &mut slow.cells[0].measurements[0];
    m.usage = Some(RegionUsage {
        minor_faults: 312,
        ..RegionUsage::default()
    });
    // Ten 100 ms intervals, one of them almost empty.
    m.intervals = (0..10u64)
        .map(|i| Interval {
            index: i as u32,
            start_ns: i * 100_000_000,
            length_ns: 100_000_000,
            bytes: if i == 6 { 1 << 10 } else { 100 << 10 },
            ops: 1,
            partial: false,
            latency: None,
            cache: None,
            oldest_in_flight_ns: None,
        })
        .collect();
    let b = side("faulty", &slow);
    let why = why_of(&a, &b);
    let texts: Vec<&str> = why.iter().map(|c| c.text.as_str()).collect();
    assert!(
        texts.contains(&"faulty's timed regions took 312 page faults of the tool's own (ioz's loop should take none)"),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"faulty's stalled at 600.0 ms: an interval at 1 % of its median rate"),
        "{texts:?}"
    );
    // A stall the keeper saw (an operation in flight all through) is said so.
    let mut held = slow.clone();
    let m = &mut held.cells[0].measurements[0];
    m.intervals[6].bytes = 0;
    m.intervals[6].oldest_in_flight_ns = Some(180_000_000);
    let why = why_of(&a, &side("held", &held));
    assert!(
        why.iter().any(|c| c.text == "held's stalled at 600.0 ms: one operation in flight for 180.0 ms with none completing"),
        "{why:?}"
    );
}

fn fio_randread() -> PeerRun {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/peers/fio-randread.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let format = crate::report::peers::detect(&text).unwrap();
    crate::report::peers::parse(format, &text).unwrap()
}

#[test]
fn a_fio_file_against_an_ioz_run_names_fio_s_cache_drop_then_the_tools() {
    let fio = fio_randread();
    let peer = Side {
        input: Input {
            label: "fio".into(),
            date: None,
            source: "fio-randread.json".into(),
            runs: 1,
            tool: Some(Tool {
                name: "fio".into(),
                version: fio.version.clone(),
                command: fio.command.clone(),
            }),
        },
        samples: of_peer(&fio, OutputUnit::KbPerSec),
        environment: None,
    };
    // ioz's random read of the same cell, from the page cache, 3 times fio's.
    let key = CellKey {
        pass: Test::Pass(Pass::RandomRead),
        workers: None,
        file_bytes: 64 << 20,
        record_bytes: 4096,
    };
    let config = crate::cli::test_config(&["-s", "64m", "-r", "4k", "-i", "0", "-i", "2"]);
    let mut samples = crate::analysis::samples::SampleSet::new(OutputUnit::KbPerSec);
    samples.add(key, 3.0 * 47589.0);
    samples.recorded.insert(
        key,
        crate::model::recorded::Recorded {
            settings: crate::model::recorded::settings_of_run(&config, Pass::RandomRead, None),
            ..Default::default()
        },
    );
    let ioz = Side {
        input: Input {
            label: "ioz".into(),
            date: None,
            source: "ioz.json".into(),
            runs: 1,
            tool: Some(Tool {
                name: "ioz".into(),
                version: Some("0.1.0".into()),
                command: None,
            }),
        },
        samples,
        environment: None,
    };
    let c = compare(&ioz, std::slice::from_ref(&peer), OPTIONS).unwrap();
    let cell = &c.pairs[0].cells[0];
    assert_eq!(cell.verdict, Verdict::Slower);
    let kinds: Vec<CauseKind> = cell.why.iter().map(|w| w.kind).collect();
    assert_eq!(kinds[0], CauseKind::Setting, "{:?}", cell.why);
    assert_eq!(
        cell.why[0].text,
        "file's page cache dropped before the pass: ioz no, fio yes (fio's invalidate=1, its default)"
    );
    let tools = cell
        .why
        .iter()
        .position(|w| w.kind == CauseKind::Tool)
        .unwrap();
    let samples = cell
        .why
        .iter()
        .position(|w| w.kind == CauseKind::Samples)
        .unwrap();
    assert!(tools < samples);
    assert!(
        cell.why[samples]
            .text
            .starts_with("one sample on ioz and fio's side: no test"),
        "{}",
        cell.why[samples].text
    );
    // fio's own bw samples swung widely within its run (cv 133 %).
    assert!(
        cell.why.iter().any(|w| w.kind == CauseKind::Series
            && w.text
                .starts_with("fio's rate swung within its run: cv 133 % over 4 samples")),
        "{:?}",
        cell.why
    );
}

#[test]
fn workers_that_started_far_apart_are_named() {
    let a = side("together", &run(ARGS, 400_000.0, "rw"));
    let mut b = side("apart", &run(ARGS, 200_000.0, "rw"));
    for r in b.samples.recorded.values_mut() {
        // The last worker 120 ms after the first, in a 1 s pass: 12 %.
        r.start_skew_ns = Some(120_000_000);
        r.elapsed_ns = Some(1_000_000_000);
    }
    let why = why_of(&a, &b);
    assert!(
        why.iter().any(|c| c.kind == CauseKind::StartSkew
            && c.text == "apart's workers started up to 120.0 ms apart (12.0 % of its 1.00 s)"),
        "{why:?}"
    );
}
