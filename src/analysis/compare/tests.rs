use super::*;
use crate::model::workload::Pass;

fn key(pass: Pass, record_kb: u64) -> CellKey {
    CellKey {
        pass: Test::Pass(pass),
        workers: None,
        file_bytes: 1 << 20,
        record_bytes: record_kb << 10,
    }
}

fn side(label: &str, unit: OutputUnit, cells: &[(CellKey, &[f64])]) -> Side {
    let mut samples = SampleSet::new(unit);
    for (k, values) in cells {
        for v in *values {
            samples.add(*k, *v);
        }
    }
    Side {
        input: Input {
            label: label.into(),
            date: None,
            source: format!("{label}.json"),
            runs: 1,
            tool: None,
        },
        samples,
        environment: None,
    }
}

const OPTIONS: Options = Options {
    band_percent: 5.0,
    adjust: Adjust::BenjaminiHochberg,
};

#[test]
fn an_input_compared_with_itself_is_the_same_everywhere() {
    let kb = OutputUnit::KbPerSec;
    let a = side(
        "a",
        kb,
        &[
            (key(Pass::Write, 4), &[100.0, 120.0, 90.0]),
            (key(Pass::Read, 4), &[500.0]),
            (key(Pass::Read, 8), &[7.0, 7.0]),
        ],
    );
    let c = compare(&a, std::slice::from_ref(&a), OPTIONS).unwrap();
    let cells = &c.pairs[0].cells;
    assert_eq!(cells.len(), 3);
    for cell in cells {
        assert_eq!(cell.verdict, Verdict::Same, "{cell:?}");
        assert_eq!(cell.ratio, 1.0);
    }
    assert!(c.slower_than(0.0).is_empty());
}

#[test]
fn a_clear_slowdown_is_slower_with_a_small_adjusted_p() {
    let kb = OutputUnit::KbPerSec;
    let base = side(
        "base",
        kb,
        &[
            (key(Pass::Write, 4), &[100.0, 102.0, 98.0, 101.0, 99.0]),
            (key(Pass::Read, 4), &[100.0, 102.0, 98.0, 101.0, 99.0]),
        ],
    );
    let other = side(
        "other",
        kb,
        &[
            (key(Pass::Write, 4), &[80.0, 82.0, 79.0, 81.0, 78.0]),
            (key(Pass::Read, 4), &[100.0, 101.0, 99.0, 102.0, 98.0]),
        ],
    );
    let c = compare(&base, &[other], OPTIONS).unwrap();
    let pair = &c.pairs[0];
    // Sorted by pass: write before read.
    let write = &pair.cells[0];
    assert_eq!(write.cell.pass, Test::Pass(Pass::Write));
    assert_eq!(write.verdict, Verdict::Slower);
    assert_eq!(write.basis, Basis::Significance);
    // Welch's p from SciPy (see welch/tests.rs) is 8.0126e-08; BH over two
    // tests multiplies the smaller by 2/1.
    assert!((write.p_adjusted.unwrap() - 2.0 * 8.012566137870666e-08).abs() < 1e-12);
    assert!((write.percent - (0.7999549816538166 - 1.0) * 100.0).abs() < 1e-9);
    assert_eq!(pair.cells[1].verdict, Verdict::Same);
    let slow = c.slower_than(5.0);
    assert_eq!(slow.len(), 1);
    assert_eq!(slow[0].1.cell.pass, Test::Pass(Pass::Write));
    assert!(c.slower_than(25.0).is_empty());
    let summary = pair.by_pass();
    assert_eq!(summary[0].verdict, Verdict::Slower);
    assert_eq!(summary[0].cells_slower, 1);
    assert_eq!(summary[1].verdict, Verdict::Same);
}

#[test]
fn a_test_says_what_its_cells_verdicts_say() {
    assert_eq!(Verdict::of_cells(0, 0), Verdict::Same);
    assert_eq!(Verdict::of_cells(2, 0), Verdict::Faster);
    assert_eq!(Verdict::of_cells(0, 1), Verdict::Slower);
    assert_eq!(Verdict::of_cells(1, 3), Verdict::Mixed);
    // Every cell 12 % faster but none significantly (wide spread): the
    // test's mean is beyond the band of 5 %, and the test is the same.
    let kb = OutputUnit::KbPerSec;
    let base = side(
        "base",
        kb,
        &[(key(Pass::Read, 4), &[100.0, 102.0, 98.0, 101.0, 99.0])],
    );
    let other = side(
        "other",
        kb,
        &[(key(Pass::Read, 4), &[78.0, 151.0, 101.0, 140.0, 90.0])],
    );
    let c = compare(&base, &[other], OPTIONS).unwrap();
    let cell = &c.pairs[0].cells[0];
    assert!(
        cell.percent > 5.0 && cell.verdict == Verdict::Same,
        "{cell:?}"
    );
    let test = c.pairs[0].by_pass()[0];
    assert!(test.ratio > 1.05);
    assert_eq!(test.verdict, Verdict::Same);
}

#[test]
fn one_sample_a_side_uses_the_band_alone() {
    let kb = OutputUnit::KbPerSec;
    let base = side(
        "base",
        kb,
        &[
            (key(Pass::Write, 4), &[100.0]),
            (key(Pass::Read, 4), &[100.0]),
            (key(Pass::Reread, 4), &[100.0]),
        ],
    );
    let other = side(
        "other",
        kb,
        &[
            (key(Pass::Write, 4), &[94.0]),
            (key(Pass::Read, 4), &[104.0]),
            (key(Pass::Reread, 4), &[110.0]),
        ],
    );
    let c = compare(&base, &[other], OPTIONS).unwrap();
    let verdicts: Vec<_> = c.pairs[0].cells.iter().map(|c| c.verdict).collect();
    assert_eq!(verdicts, [Verdict::Slower, Verdict::Same, Verdict::Faster]);
    for cell in &c.pairs[0].cells {
        assert_eq!(cell.basis, Basis::BandOnly);
        assert_eq!((cell.p, cell.p_adjusted, cell.ci_low), (None, None, None));
        assert_eq!(cell.base.sd, None);
    }
}

#[test]
fn fewer_microseconds_per_operation_is_faster() {
    let us = OutputUnit::MicrosPerOp;
    let base = side("base", us, &[(key(Pass::Write, 4), &[20.0])]);
    let other = side("other", us, &[(key(Pass::Write, 4), &[10.0])]);
    let c = compare(&base, &[other], OPTIONS).unwrap();
    assert!(!c.higher_is_better);
    assert_eq!(c.pairs[0].cells[0].verdict, Verdict::Faster);
    assert!(c.slower_than(5.0).is_empty());
}

#[test]
fn cells_in_one_side_only_are_counted_not_compared() {
    let kb = OutputUnit::KbPerSec;
    let base = side(
        "base",
        kb,
        &[(key(Pass::Write, 4), &[1.0]), (key(Pass::Write, 8), &[1.0])],
    );
    let other = side(
        "other",
        kb,
        &[(key(Pass::Write, 4), &[1.0]), (key(Pass::Read, 4), &[1.0])],
    );
    let c = compare(&base, &[other], OPTIONS).unwrap();
    let pair = &c.pairs[0];
    assert_eq!(
        (pair.cells.len(), pair.only_in_base, pair.only_in_other),
        (1, 1, 1)
    );
}

#[test]
fn zero_rates_are_left_out() {
    let kb = OutputUnit::KbPerSec;
    let base = side("base", kb, &[(key(Pass::Read, 4), &[0.0])]);
    let c = compare(&base, std::slice::from_ref(&base), OPTIONS).unwrap();
    assert!(c.pairs[0].cells.is_empty());
}

#[test]
fn inputs_in_different_units_are_refused() {
    let base = side("base", OutputUnit::KbPerSec, &[]);
    let other = side("other", OutputUnit::OpsPerSec, &[]);
    let e = compare(&base, &[other], OPTIONS).unwrap_err();
    assert_eq!(
        e,
        "base.json is in kB/s and other.json in ops/s; ioz compares inputs in one unit"
    );
}

#[test]
fn latency_percentiles_are_compared_lower_being_faster() {
    use crate::analysis::samples::Tail;
    let kb = OutputUnit::KbPerSec;
    let rates: &[f64] = &[100.0, 101.0, 99.0];
    let mut base = side("base", kb, &[(key(Pass::Write, 4), rates)]);
    let mut other = side("other", kb, &[(key(Pass::Write, 4), rates)]);
    let k = key(Pass::Write, 4);
    // p50 the same; p99 twice as long on the other side.
    base.samples
        .latency
        .insert((k, Tail::P50), vec![3.0, 3.1, 2.9]);
    other
        .samples
        .latency
        .insert((k, Tail::P50), vec![3.0, 2.9, 3.1]);
    base.samples
        .latency
        .insert((k, Tail::P99), vec![10.0, 10.5, 9.5]);
    other
        .samples
        .latency
        .insert((k, Tail::P99), vec![20.0, 21.0, 19.0]);
    let c = compare(&base, &[other], OPTIONS).unwrap();
    let tails = &c.pairs[0].latency;
    assert_eq!(tails.len(), 2);
    let p50 = tails.iter().find(|t| t.tail == Tail::P50).unwrap();
    let p99 = tails.iter().find(|t| t.tail == Tail::P99).unwrap();
    assert_eq!(p50.comparison.verdict, Verdict::Same);
    assert!((p99.comparison.ratio - 2.0).abs() < 0.01, "{p99:?}");
    // A longer latency is slower, whatever the rates' direction.
    assert_eq!(p99.comparison.verdict, Verdict::Slower);
    // Adjusted among the two percentiles (Benjamini-Hochberg): the smaller
    // raw p doubles, unless the larger one is smaller still.
    let raw = p99.comparison.p.unwrap();
    assert!(
        (p99.comparison.p_adjusted.unwrap() - (2.0 * raw).min(p50.comparison.p.unwrap())).abs()
            < 1e-12
    );
    // The rates' verdicts ignore the latency.
    assert_eq!(c.pairs[0].cells[0].verdict, Verdict::Same);
}

#[test]
fn cells_whose_measured_regimes_differ_are_marked_before_the_guess() {
    use crate::model::regime::{Fit, Regime};
    let kb = OutputUnit::KbPerSec;
    let (cold, warm, other) = (key(Pass::Read, 4), key(Pass::Read, 8), key(Pass::Write, 4));
    let cells: &[(CellKey, &[f64])] = &[(cold, &[100.0]), (warm, &[100.0]), (other, &[100.0])];
    let mut a = side("a", kb, cells);
    let mut b = side("b", kb, cells);
    let guess = Regime {
        fit: Some(Fit::PageCache),
        uncached: None,
    };
    for s in [&mut a, &mut b] {
        for k in [cold, warm, other] {
            s.samples.regimes.insert(k, guess);
        }
        s.samples
            .measured
            .insert(warm, ("page_cache", "page cache (100 % cached)".into()));
    }
    a.samples
        .measured
        .insert(cold, ("page_cache", "page cache (99 % cached)".into()));
    b.samples
        .measured
        .insert(cold, ("device", "device (1 % cached)".into()));
    // Measured on one side only: the guesses, which agree.
    b.samples
        .measured
        .insert(other, ("left_dirty", "100 % left dirty".into()));
    let c = compare(&a, std::slice::from_ref(&b), OPTIONS).unwrap();
    let differ = |k: CellKey| {
        c.pairs[0]
            .cells
            .iter()
            .find(|x| x.cell == k)
            .unwrap()
            .regimes_differ
            .clone()
    };
    assert_eq!(
        differ(cold),
        Some((
            "page cache (99 % cached)".to_string(),
            "device (1 % cached)".to_string()
        ))
    );
    assert_eq!(differ(warm), None);
    assert_eq!(differ(other), None);
}
