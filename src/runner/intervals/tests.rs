//! The keeper, and the property the intervals exist for: over random plans
//! (sizes, records, engines, modes, interval lengths, with and without
//! `--latency`), the intervals of every loop add up exactly to its totals —
//! bytes, operations, time, histograms bucket for bucket — and a phase's
//! sum to the phase's; the live lines are the saved run's.

use std::sync::Mutex;

use rand_mt::Mt64;

use super::LiveSink;
use crate::cli::test_config;
use crate::model::histogram::{LatencyHistogram, LatencySummary};
use crate::model::intervals::{Interval, LiveLine, merged_latency, totals};
use crate::model::result::{Measurement, PhaseResult, WorkerResult, sample_result};
use crate::runner::measure;
use crate::system::signals::StopFlag;

/// The lines a run wrote to its live file.
#[derive(Default)]
struct Collected(Mutex<Vec<LiveLine>>);

impl LiveSink for Collected {
    fn line(&self, line: &LiveLine) {
        self.0.lock().unwrap().push(line.clone());
    }
}

/// The intervals of one loop follow each other from `start` to `end`
/// without a gap, the last one alone partial, their indexes rising.
fn assert_contiguous(what: &str, intervals: &[Interval], start: u64, end: u64) {
    assert!(!intervals.is_empty(), "{what}: no intervals");
    let mut at = start;
    for (k, i) in intervals.iter().enumerate() {
        assert_eq!(
            i.start_ns,
            at,
            "{what}: interval {k} does not start where {} ended",
            k.max(1) - 1
        );
        at = i.end_ns();
        assert_eq!(
            i.partial,
            k + 1 == intervals.len(),
            "{what}: interval {k}'s partial mark"
        );
        if k > 0 {
            assert!(
                i.index > intervals[k - 1].index,
                "{what}: indexes must rise"
            );
        }
    }
    assert_eq!(at, end, "{what}: the last interval ends where the loop did");
}

/// The intervals' histograms merged are `whole` bucket for bucket, with
/// its count, sum, least and greatest latency.
fn assert_merge_to(
    what: &str,
    intervals: &[Interval],
    whole: Option<&LatencySummary>,
    percentiles: &[f64],
) {
    let refs: Vec<&Interval> = intervals.iter().collect();
    let merged = merged_latency(&refs).map(|h| h.summary(percentiles));
    assert_eq!(merged.as_ref(), whole, "{what}: histograms");
}

fn check_measurement(m: &Measurement, percentiles: &[f64], case: &str) {
    let what = format!(
        "{case}: {} {}k/{}k run {}",
        m.pass.name(),
        m.file_bytes >> 10,
        m.record_bytes >> 10,
        m.run
    );
    assert_eq!(
        totals(&m.intervals),
        (m.bytes, m.records),
        "{what}: bytes and operations"
    );
    assert_contiguous(&what, &m.intervals, 0, m.elapsed_ns);
    assert_merge_to(&what, &m.intervals, m.latency.as_ref(), percentiles);
    assert!(
        m.intervals.iter().all(|i| i.cache.is_some()),
        "{what}: the page cache at every interval's end"
    );
}

fn check_worker(w: &WorkerResult, percentiles: &[f64], what: &str) {
    let what = format!("{what}, worker {}", w.worker);
    assert_eq!(
        totals(&w.intervals),
        (w.bytes, w.records),
        "{what}: bytes and operations"
    );
    assert_contiguous(
        &what,
        &w.intervals,
        w.start_after_release_ns as u64,
        w.end_after_release_ns as u64,
    );
    assert_merge_to(&what, &w.intervals, w.latency.as_ref(), percentiles);
}

fn check_phase(p: &PhaseResult, percentiles: &[f64], case: &str) {
    let what = format!(
        "{case}: {} with {} workers run {}",
        p.pass.name(),
        p.workers,
        p.run
    );
    for w in &p.results {
        check_worker(w, percentiles, &what);
    }
    let records: u64 = p.results.iter().map(|w| w.records).sum();
    assert_eq!(
        totals(&p.intervals),
        (p.moved_bytes(), records),
        "{what}: the sum"
    );
    assert_contiguous(&what, &p.intervals, 0, p.parent_elapsed_ns);
    for (k, i) in p.intervals.iter().enumerate() {
        assert_eq!(i.index as usize, k, "{what}: the sum has every index");
    }
    assert_merge_to(&what, &p.intervals, p.latency.as_ref(), percentiles);
    assert!(
        p.intervals.iter().all(|i| i.cache.is_some()),
        "{what}: the page cache"
    );
}

/// One random plan's command line, and the interval in ns (below what the
/// command line allows, so that small passes still have many intervals).
fn random_plan(rng: &mut Mt64, path: &str) -> (Vec<String>, u64) {
    let mut pick = |n: u64| rng.next_u64() % n;
    let record_kb = [4, 8, 16, 64][pick(4) as usize];
    let file_kb = record_kb * (16 + pick(1024));
    let mut args: Vec<String> = vec![
        "-r".into(),
        format!("{record_kb}k"),
        "-s".into(),
        format!("{file_kb}k"),
    ];
    let throughput = pick(3) == 0;
    if !throughput && pick(3) == 0 {
        // Auto mode's grid: a second file size.
        args.extend(["-s".into(), format!("{}k", record_kb * 8)]);
    }
    if throughput {
        args.extend(["-t".into(), (1 + pick(3)).to_string(), "-T".into()]);
    }
    args.push("-i".into());
    args.push("0".into());
    for test in ["1", "2"] {
        if pick(2) == 0 {
            args.extend(["-i".into(), test.into()]);
        }
    }
    let engine: &[&str] = [
        &[][..],
        &["--engine", "psync"],
        &["--engine", "stdio"],
        &["-B"],
        &["-H", "4"],
        &["--engine", "io_uring", "--iodepth", "4"],
    ][pick(6) as usize];
    args.extend(engine.iter().map(|s| s.to_string()));
    if pick(2) == 0 {
        args.push("--latency".into());
    }
    if pick(4) == 0 {
        args.extend(["--runs".into(), "2".into()]);
    }
    args.extend(["-f".into(), path.into()]);
    let interval_ns = 100_000 + pick(1_900_000);
    (args, interval_ns)
}

#[test]
fn over_random_plans_the_intervals_add_up_exactly_to_every_pass_phase_and_worker() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let mut rng = Mt64::new(27);
    let mut checked = 0;
    for case in 0..24 {
        let (args, interval_ns) = random_plan(&mut rng, path.to_str().unwrap());
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut config = test_config(&words);
        config.interval_ns = Some(interval_ns);
        let live = Collected::default();
        let out = measure(
            &config,
            (None, None, Some(&live)),
            &StopFlag::default(),
            |_| Ok(()),
        );
        let case = format!("case {case} ({} every {interval_ns} ns)", args.join(" "));
        if let Some(e) = &out.error {
            // io_uring where the kernel or a sandbox refuses it.
            assert!(e.to_string().contains("io_uring"), "{case}: {e}");
            continue;
        }
        let percentiles = config.latency.percentiles().to_vec();
        for m in out.cells.iter().flat_map(|c| &c.measurements) {
            check_measurement(m, &percentiles, &case);
        }
        for p in &out.phases {
            check_phase(p, &percentiles, &case);
        }
        // The live file holds what `ioz report --live` writes again.
        let mut result = sample_result(config, out.cells);
        result.throughput = out.phases;
        let written = live.0.into_inner().unwrap();
        assert_eq!(
            written,
            crate::report::live::lines(&result),
            "{case}: the live lines"
        );
        checked += 1;
    }
    assert!(checked >= 18, "only {checked} plans ran");
}

#[test]
fn a_pass_without_interval_has_none_and_a_long_pass_has_many() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let p = path.to_str().unwrap();
    let mut config = test_config(&["-s", "4m", "-r", "4k", "-i", "0", "-f", p]);
    let out = measure(
        &config,
        (None, None, None),
        &StopFlag::default(),
        |_| Ok(()),
    );
    assert!(out.cells[0].measurements[0].intervals.is_empty());
    // -J: a millisecond per operation, 40 of them, in 5 ms intervals.
    config = test_config(&["-s", "160k", "-r", "4k", "-i", "0", "-J", "1", "-f", p]);
    config.interval_ns = Some(5_000_000);
    let out = measure(
        &config,
        (None, None, None),
        &StopFlag::default(),
        |_| Ok(()),
    );
    let m = &out.cells[0].measurements[0];
    assert!(m.intervals.len() >= 3, "{} intervals", m.intervals.len());
    assert_eq!(totals(&m.intervals), (160 << 10, 40));
    let (first, last) = (&m.intervals[0], m.intervals.last().unwrap());
    // An interval ends at the first operation boundary after its tick (on
    // a busy machine the keeper may wake late: no upper bound).
    assert!(first.length_ns >= 5_000_000, "{first:?}");
    assert!(first.ops >= 1, "{first:?}");
    assert!(last.partial && !first.partial);
}

#[test]
fn an_interval_s_histogram_is_its_own_operations() {
    // Two intervals' worth of histograms differenced back: the keeper's
    // arithmetic on the loop's cumulative counts.
    let mut h = LatencyHistogram::new();
    for ns in [1000, 2000, 3000] {
        h.record(ns);
    }
    let earlier = h.clone();
    h.take_extremes();
    for ns in [50_000, 60_000] {
        h.record(ns);
    }
    let own = h.since(&earlier);
    assert_eq!(own.count(), 2);
    assert_eq!(
        (own.percentile(0.1), own.percentile(100.0)),
        (Some(50_000), Some(60_000))
    );
}

#[test]
fn a_pass_far_shorter_than_its_interval_ends_when_its_loop_does() {
    // Without a live file the keeper sleeps until its next tick, five
    // minutes away here: the loops' end must wake it, in single and
    // throughput mode.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let p = path.to_str().unwrap();
    let second = format!("{p}.1");
    for args in [
        vec!["-s", "64k", "-r", "4k", "-i", "0", "-i", "1", "-f", p],
        vec![
            "-s", "64k", "-r", "4k", "-i", "0", "-t", "2", "-F", p, &second,
        ],
    ] {
        let mut config = test_config(&args);
        config.interval_ns = Some(300 * 1_000_000_000);
        let started = std::time::Instant::now();
        let out = measure(
            &config,
            (None, None, None),
            &StopFlag::default(),
            |_| Ok(()),
        );
        // Not a speed target: asleep, the keeper would hold each pass for
        // the five minutes.
        assert!(started.elapsed().as_secs() < 150, "{args:?}");
        let intervals: Vec<&Interval> = out
            .cells
            .iter()
            .flat_map(|c| &c.measurements)
            .flat_map(|m| &m.intervals)
            .chain(out.phases.iter().flat_map(|t| &t.intervals))
            .collect();
        assert!(!intervals.is_empty(), "{args:?}");
        assert!(
            intervals.iter().all(|i| i.partial && i.index == 0),
            "{args:?}"
        );
    }
}
