use super::*;

fn close(got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol * want.abs().max(1e-300),
        "{got} vs {want}"
    );
}

/// Expected values from SciPy 1.17.1:
/// `r = scipy.stats.ttest_ind(np.log(other), np.log(base), equal_var=False)`,
/// `ci = r.confidence_interval(0.95)`, ratio = exp(mean ln other − mean ln base),
/// interval = exp(ci.low), exp(ci.high).
fn check(base: &[f64], other: &[f64], want: [f64; 6]) {
    let [t, p, df, ratio, lo, hi] = want;
    let w = log_welch(base, other).unwrap();
    close(w.t, t, 1e-9);
    close(w.p, p, 1e-6);
    close(w.df.unwrap(), df, 1e-9);
    close(w.ratio, ratio, 1e-12);
    close(w.ci_low, lo, 1e-9);
    close(w.ci_high, hi, 1e-9);
}

#[test]
fn a_clear_slowdown_matches_scipy() {
    check(
        &[100.0, 102.0, 98.0, 101.0, 99.0],
        &[80.0, 82.0, 79.0, 81.0, 78.0],
        [
            -19.71517258985327,
            8.012566137870666e-08,
            7.632012043787099,
            0.7999549816538166,
            0.7791689729824325,
            0.8212955018258744,
        ],
    );
}

#[test]
fn unequal_sizes_and_spreads_match_scipy() {
    check(
        &[1000.0, 1100.0, 950.0, 1200.0],
        &[900.0, 1300.0, 1000.0, 1250.0, 1150.0, 980.0],
        [
            0.3368989306128049,
            0.7449571605969282,
            7.910317948116237,
            1.0270594455393582,
            0.855203172564657,
            1.2334508787055072,
        ],
    );
    check(
        &[10.0, 12.0, 11.0, 13.0],
        &[11.0, 12.0, 10.0, 14.0],
        [
            0.20344281674672288,
            0.845861064085692,
            5.695860943036515,
            1.018699682598135,
            0.8128383744547146,
            1.2766978970717342,
        ],
    );
}

#[test]
fn one_sample_on_a_side_has_no_test() {
    assert_eq!(log_welch(&[5.0], &[4.0, 6.0]), None);
    assert_eq!(log_welch(&[5.0, 6.0], &[4.0]), None);
    assert_eq!(log_welch(&[], &[]), None);
}

#[test]
fn a_rate_that_is_not_positive_has_no_logarithm() {
    assert_eq!(log_welch(&[0.0, 1.0], &[1.0, 2.0]), None);
    assert_eq!(log_welch(&[f64::NAN, 1.0], &[1.0, 2.0]), None);
}

#[test]
fn identical_inputs_are_the_same_with_p_one() {
    // SciPy gives t = 0, p = 1 for identical samples with spread.
    let v = [10.0, 12.0, 11.0];
    let w = log_welch(&v, &v).unwrap();
    assert_eq!(w.ratio, 1.0);
    assert_eq!(w.t, 0.0);
    close(w.p, 1.0, 1e-12);
    assert!(w.ci_low < 1.0 && w.ci_high > 1.0);
}

#[test]
fn zero_variance_is_decided_without_t() {
    // SciPy returns NaN here; ioz decides: same values p = 1, different p = 0.
    let same = log_welch(&[7.0, 7.0], &[7.0, 7.0, 7.0]).unwrap();
    assert_eq!((same.ratio, same.p, same.df), (1.0, 1.0, None));
    let apart = log_welch(&[8.0, 8.0], &[4.0, 4.0]).unwrap();
    close(apart.ratio, 0.5, 1e-12);
    assert_eq!(apart.p, 0.0);
    assert_eq!((apart.ci_low, apart.ci_high), (apart.ratio, apart.ratio));
}

#[test]
fn huge_degrees_of_freedom_use_the_normal_quantile() {
    // 20 000 samples a side, alternating two values: df ≈ 40 000, where the
    // interval's half-width is 1.959964 standard errors (the normal quantile).
    let base: Vec<f64> = (0..20_000)
        .map(|i| if i % 2 == 0 { 100.0 } else { 110.0 })
        .collect();
    let w = log_welch(&base, &base).unwrap();
    assert!(w.df.unwrap() > 1e4);
    let logs: Vec<f64> = base.iter().map(|v| v.ln()).collect();
    let sd = crate::analysis::summary::summarize(&logs)
        .unwrap()
        .sd
        .unwrap();
    let se = (2.0 * sd * sd / 20_000.0).sqrt();
    close(w.ci_high.ln() / se, 1.959963984540054, 1e-9);
}
