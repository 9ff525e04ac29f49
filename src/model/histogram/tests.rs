use super::*;

/// A small deterministic generator (xorshift), so the tests need no crate.
fn values(n: usize, seed: u64, spread_bits: u32) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Log-uniform: a random exponent, then a random mantissa.
            let bits = (x % spread_bits as u64) as u32 + 1;
            (x >> 11) & ((1u64 << bits) - 1)
        })
        .collect()
}

#[test]
fn buckets_tile_the_whole_range_in_order() {
    let mut next = 0u64;
    for index in 0..BUCKETS {
        let (low, high) = bucket_bounds(index);
        assert_eq!(low, next, "bucket {index} starts where the last ended");
        assert!(high >= low);
        assert_eq!(bucket_of(low), index);
        assert_eq!(bucket_of(high), index);
        if index >= 2 * SUB as usize {
            // At most 1/64 of its lower bound wide.
            assert!(
                (high - low + 1) * 64 <= low,
                "bucket {index}: {low}..{high}"
            );
        }
        next = high.wrapping_add(1);
    }
    assert_eq!(bucket_bounds(BUCKETS - 1).1, u64::MAX, "no cap");
    assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
}

#[test]
fn small_values_are_exact() {
    for ns in 0..128 {
        assert_eq!(bucket_bounds(bucket_of(ns)), (ns, ns));
    }
}

#[test]
fn every_value_is_within_the_error_bound_of_its_bucket_middle() {
    for ns in values(100_000, 7, 50)
        .into_iter()
        .chain([1, 127, 128, 129, u64::MAX])
    {
        let (low, high) = bucket_bounds(bucket_of(ns));
        assert!(low <= ns && ns <= high);
        let middle = low + (high - low) / 2;
        let error = middle.abs_diff(ns) as f64 / ns.max(1) as f64;
        assert!(
            error < 1.0 / 128.0 + 1e-12,
            "{ns}: middle {middle}, error {error}"
        );
    }
}

/// The exact order statistic of rank ⌈p·n/100⌉ (1-based).
fn exact(sorted: &[u64], p: f64) -> u64 {
    let rank = ((p / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[test]
fn percentiles_are_within_one_percent_of_the_exact_order_statistics() {
    for (seed, n) in [(1, 1), (2, 2), (3, 10), (4, 1000), (5, 100_000)] {
        let mut list = values(n, seed, 42);
        let mut h = LatencyHistogram::new();
        for &ns in &list {
            h.record(ns);
        }
        list.sort_unstable();
        for p in [0.001, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0] {
            let want = exact(&list, p);
            let got = h.percentile(p).unwrap();
            let error = got.abs_diff(want) as f64 / want.max(1) as f64;
            assert!(error < 0.01, "n {n} p{p}: {got} vs exact {want}");
        }
        assert_eq!(h.percentile(100.0), list.last().copied(), "p100 is the max");
        assert_eq!(h.count(), n as u64);
    }
    assert_eq!(LatencyHistogram::new().percentile(50.0), None);
}

#[test]
fn one_nanosecond_and_one_hour_are_kept() {
    let hour = 3_600_000_000_000u64;
    let mut h = LatencyHistogram::new();
    h.record(1);
    h.record(hour);
    let s = h.summary(&[50.0, 100.0]);
    assert_eq!((s.count, s.min_ns, s.max_ns), (2, 1, hour));
    assert_eq!(s.sum_ns, hour + 1);
    assert_eq!(s.at(50.0), Some(1), "1 ns has a bucket of its own");
    assert_eq!(s.at(100.0), Some(hour));
    assert_eq!(s.buckets.len(), 2);
    let (low, high) = (s.buckets[1].low_ns, s.buckets[1].high_ns);
    assert!(low <= hour && hour <= high && (high - low) as f64 / hour as f64 <= 1.0 / 64.0);
}

#[test]
fn merging_is_recording_everything_in_one() {
    let a = values(5000, 11, 30);
    let b = values(7000, 12, 40);
    let (mut ha, mut hb, mut all) = (
        LatencyHistogram::new(),
        LatencyHistogram::new(),
        LatencyHistogram::new(),
    );
    a.iter().for_each(|&ns| ha.record(ns));
    b.iter().for_each(|&ns| hb.record(ns));
    a.iter().chain(&b).for_each(|&ns| all.record(ns));
    ha.merge(&hb);
    assert_eq!(ha, all);
    // Merging an empty one changes nothing (its min is u64::MAX).
    ha.merge(&LatencyHistogram::new());
    assert_eq!(ha, all);
    ha.clear();
    assert_eq!(ha, LatencyHistogram::new());
}

#[test]
fn the_saved_and_shared_forms_read_back() {
    let mut h = LatencyHistogram::new();
    values(3000, 21, 36).into_iter().for_each(|ns| h.record(ns));
    let s = h.summary(&DEFAULT_PERCENTILES);
    assert_eq!(s.buckets.iter().map(|b| b.count).sum::<u64>(), s.count);
    assert_eq!(LatencyHistogram::from_summary(&s), h);
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<LatencySummary>(&json).unwrap(), s);
    assert_eq!(LatencyHistogram::from_words(&h.to_words()), Some(h));
    assert_eq!(LatencyHistogram::from_words(&[1, 2]), None);
    assert_eq!(s.at(99.0), s.percentiles[2].ns.into());
    assert_eq!(
        s.at(42.0),
        LatencyHistogram::from_summary(&s).percentile(42.0)
    );
}
