//! The summary of one cell's samples (`--runs N` gives N of each pass): n,
//! mean, standard deviation, coefficient of variation, the 95 % confidence
//! interval of the mean (Student's t, on the logarithms of the samples:
//! see [`Summary::ci95`]), median, MAD, min, max, and the samples flagged
//! as outliers — flagged only, never dropped: every figure here is
//! computed over all samples.
//!
//! Outliers: Iglewicz and Hoaglin's modified z-score,
//! `M = 0.6745 (x − median) / MAD`, flags a sample when `|M| > 3.5`. When
//! more than half the samples are equal the MAD is 0; the score then uses
//! the mean absolute deviation from the median instead,
//! `M = (x − median) / (1.253314 × MeanAD)` (the usual fallback; 1.253314 =
//! √(π/2) makes it estimate the same spread). When that is 0 too, every
//! sample is the same and none is an outlier. Fewer than 5 samples are
//! never judged: the MAD of 3 or 4 numbers is too unstable (in 1.0, 1.9,
//! 2.0 the score of 1.0 is 6.1, an "outlier" in a sample of three).
//!
//! With one sample there is no spread: `sd`, `cv_percent` and `ci95` are
//! `None` (printed as "-" or "n/a", saved as JSON null), never NaN.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The modified z-score above which a sample is flagged (Iglewicz & Hoaglin).
pub const OUTLIER_SCORE: f64 = 3.5;

/// The fewest samples among which outliers are looked for.
pub const OUTLIER_MIN_SAMPLES: usize = 5;

/// The rule, in words, for the outputs that name it.
pub const OUTLIER_RULE: &str =
    "modified z-score on the MAD above 3.5 (Iglewicz-Hoaglin), among 5 runs or more";

/// A closed interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// What a list of samples says.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator); none for n = 1.
    pub sd: Option<f64>,
    /// sd as a percentage of the mean; none for n = 1 or a mean of 0.
    pub cv_percent: Option<f64>,
    /// The 95 % confidence interval of the mean, computed on the samples'
    /// logarithms and taken back, exp(m ± t(0.975, n − 1) × s / √n) with m
    /// and s the mean and sd of ln x: the interval of the geometric mean,
    /// which stays positive as a rate does (on the values themselves, two
    /// runs of 1 and 2 ops/s gave −4.9 to 7.9) and is the one ioz compare's
    /// log-rate test uses. Samples not all above 0 (no rate is) take the
    /// values' own, mean ± t × sd / √n. None for n = 1.
    pub ci95: Option<Interval>,
    pub median: f64,
    /// Median absolute deviation from the median, unscaled.
    pub mad: f64,
    pub min: f64,
    pub max: f64,
    /// Positions (in the order given) of the samples flagged as outliers.
    pub outliers: Vec<usize>,
}

/// The summary of `samples`, none for an empty list. Samples are expected
/// finite (rates a run measured).
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    let n = samples.len();
    if n == 0 {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let sd = (n > 1).then(|| {
        let squares: f64 = samples.iter().map(|x| (x - mean).powi(2)).sum();
        (squares / (n - 1) as f64).sqrt()
    });
    let cv_percent = sd.filter(|_| mean != 0.0).map(|sd| 100.0 * sd / mean.abs());
    let ci95 = sd.map(|sd| {
        let t = t_975(n - 1);
        if samples.iter().all(|&x| x > 0.0) {
            let logs: Vec<f64> = samples.iter().map(|x| x.ln()).collect();
            let m = logs.iter().sum::<f64>() / n as f64;
            let s = (logs.iter().map(|l| (l - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
            if s == 0.0 {
                // Every sample the same: exactly it (exp(ln x) may not be x).
                return Interval {
                    low: samples[0],
                    high: samples[0],
                };
            }
            let half = t * s / (n as f64).sqrt();
            return Interval {
                low: (m - half).exp(),
                high: (m + half).exp(),
            };
        }
        let half = t * sd / (n as f64).sqrt();
        Interval {
            low: mean - half,
            high: mean + half,
        }
    });
    let median = median(samples);
    let deviations: Vec<f64> = samples.iter().map(|x| (x - median).abs()).collect();
    let mad = self::median(&deviations);
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Summary {
        n,
        mean,
        sd,
        cv_percent,
        ci95,
        median,
        mad,
        min,
        max,
        outliers: outliers(samples, median, mad, &deviations),
    })
}

/// The 97.5 % quantile of Student's t with `df` degrees of freedom (the
/// half-width factor of a 95 % two-sided interval).
pub fn t_975(df: usize) -> f64 {
    // statrs' inverse CDF loses accuracy at huge df (DEPENDENCIES.md); the
    // normal quantile is exact there to far more digits than any use here.
    const NORMAL_975: f64 = 1.959_963_984_540_054;
    if df == 0 {
        return f64::INFINITY;
    }
    if df > 10_000 {
        return NORMAL_975;
    }
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(0.975),
        Err(_) => NORMAL_975,
    }
}

/// The middle value (the mean of the middle two for an even count).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The samples whose modified z-score is above [`OUTLIER_SCORE`] (see the
/// module's note for the rule and its fallback).
fn outliers(samples: &[f64], median: f64, mad: f64, deviations: &[f64]) -> Vec<usize> {
    if samples.len() < OUTLIER_MIN_SAMPLES {
        return Vec::new();
    }
    let scale = if mad > 0.0 {
        mad / 0.6745
    } else {
        let mean_ad = deviations.iter().sum::<f64>() / deviations.len() as f64;
        1.253_314 * mean_ad
    };
    if scale <= 0.0 {
        return Vec::new();
    }
    samples
        .iter()
        .enumerate()
        .filter(|(_, x)| ((*x - median) / scale).abs() > OUTLIER_SCORE)
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected number below was computed with SciPy 1.17.1 and NumPy
    // (np.mean, np.std(ddof=1), scipy.stats.t.ppf(0.975, n-1), np.median,
    // scipy.stats.median_abs_deviation with scale=1), independently of this
    // code; the t quantiles agree with published t tables (NIST/SEMATECH
    // e-Handbook of Statistical Methods, table 1.4.2.7: 12.706, 4.303,
    // 2.776, 2.262, 2.045, 1.984).

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[track_caller]
    fn assert_close(got: f64, want: f64) {
        assert!(close(got, want), "got {got}, want {want}");
    }

    #[test]
    fn t_quantiles_match_scipy_and_the_published_table() {
        for (df, want) in [
            (1, 12.706204736174694),
            (2, 4.302652729749462),
            (4, 2.7764451051977934),
            (9, 2.262157162798205),
            (29, 2.045229642132703),
            (100, 1.9839715185235518),
        ] {
            let got = t_975(df);
            assert!((got - want).abs() < 1e-6, "df {df}: {got} vs {want}");
        }
        // Past statrs' accurate range: the normal quantile.
        assert!((t_975(1_000_000) - 1.959963984540054).abs() < 1e-12);
    }

    #[test]
    fn eight_samples() {
        let s = summarize(&[10.0, 12.0, 23.0, 23.0, 16.0, 23.0, 21.0, 16.0]).unwrap();
        assert_eq!(s.n, 8);
        assert_close(s.mean, 18.0);
        assert_close(s.sd.unwrap(), 5.237229365663817);
        assert_close(s.cv_percent.unwrap(), 29.095718698132316);
        let ci = s.ci95.unwrap();
        // On the logs (SciPy's t on ln x, taken back).
        assert!((ci.low - 13.177176278589618).abs() < 1e-6, "{ci:?}");
        assert!((ci.high - 22.588305237333433).abs() < 1e-6, "{ci:?}");
        assert_close(s.median, 18.5);
        assert_close(s.mad, 4.5);
        assert_close(s.min, 10.0);
        assert_close(s.max, 23.0);
        // Largest |modified z| is 1.274: nothing flagged.
        assert!(s.outliers.is_empty());
    }

    #[test]
    fn two_samples() {
        let s = summarize(&[1.0, 2.0]).unwrap();
        assert_close(s.mean, 1.5);
        assert_close(s.sd.unwrap(), std::f64::consts::FRAC_1_SQRT_2); // SciPy: 0.7071067811865476
        assert_close(s.cv_percent.unwrap(), 47.14045207910317);
        // On the values the interval would reach -4.85: a rate cannot.
        let ci = s.ci95.unwrap();
        assert!((ci.low - 0.017299781563100608).abs() < 1e-9, "{ci:?}");
        assert!((ci.high - 115.60839613523675).abs() < 1e-6, "{ci:?}");
        assert!(ci.low > 0.0);
        assert_close(s.median, 1.5);
        assert_close(s.mad, 0.5);
        assert!(s.outliers.is_empty());
    }

    #[test]
    fn an_outlier_is_flagged_and_kept() {
        let samples = [100.0, 102.0, 98.0, 101.0, 99.0, 250.0];
        let s = summarize(&samples).unwrap();
        // Kept: the mean and sd include it.
        assert_close(s.mean, 125.0);
        assert_close(s.sd.unwrap(), 61.25357132445422);
        let ci = s.ci95.unwrap();
        assert!((ci.low - 78.64247175669001).abs() < 1e-6, "{ci:?}");
        assert!((ci.high - 172.55085666930353).abs() < 1e-6, "{ci:?}");
        assert_close(s.median, 100.5);
        assert_close(s.mad, 1.5);
        // Modified z of 250 is 67.2; the next largest 1.12.
        assert_eq!(s.outliers, [5]);
    }

    #[test]
    fn fewer_than_five_samples_are_never_judged() {
        // Modified z of 1.0 would be 0.6745 × 0.9 / 0.1 = 6.07.
        let s = summarize(&[1.0, 1.9, 2.0]).unwrap();
        assert_close(s.median, 1.9);
        assert_close(s.mad, 0.1);
        assert!(s.outliers.is_empty());
        let s = summarize(&[100.0, 101.0, 99.0, 500.0]).unwrap();
        assert!(s.outliers.is_empty());
    }

    #[test]
    fn a_zero_mad_falls_back_on_the_mean_absolute_deviation() {
        let s = summarize(&[100.0, 100.0, 100.0, 100.0, 200.0]).unwrap();
        assert_close(s.mean, 120.0);
        assert_close(s.sd.unwrap(), 44.721359549995796);
        assert_close(s.cv_percent.unwrap(), 37.26779962499649);
        let ci = s.ci95.unwrap();
        assert!((ci.low - 78.1713023651341).abs() < 1e-6, "{ci:?}");
        assert!((ci.high - 168.79697163155123).abs() < 1e-6, "{ci:?}");
        assert_close(s.mad, 0.0);
        // MeanAD 20: (200 − 100) / (1.253314 × 20) = 3.989 > 3.5.
        assert_eq!(s.outliers, [4]);
    }

    #[test]
    fn samples_not_all_above_zero_take_the_values_own_interval() {
        let s = summarize(&[0.0, 2.0]).unwrap();
        let ci = s.ci95.unwrap();
        // 1 ± 12.7062 × 1.41421 / 1.41421.
        assert!((ci.low - (1.0 - 12.706204736174707)).abs() < 1e-6, "{ci:?}");
        assert!(
            (ci.high - (1.0 + 12.706204736174707)).abs() < 1e-6,
            "{ci:?}"
        );
    }

    #[test]
    fn identical_samples_have_zero_spread_and_no_outlier() {
        let s = summarize(&[5.0; 4]).unwrap();
        assert_close(s.mean, 5.0);
        assert_eq!(s.sd, Some(0.0));
        assert_eq!(s.cv_percent, Some(0.0));
        assert_eq!(
            s.ci95,
            Some(Interval {
                low: 5.0,
                high: 5.0
            })
        );
        assert_close(s.median, 5.0);
        assert_eq!(s.mad, 0.0);
        assert!(s.outliers.is_empty());
    }

    #[test]
    fn one_sample_has_no_spread_and_no_interval() {
        let s = summarize(&[42.0]).unwrap();
        assert_eq!(s.n, 1);
        assert_eq!(s.mean, 42.0);
        assert_eq!((s.sd, s.cv_percent, s.ci95), (None, None, None));
        assert_eq!((s.median, s.mad, s.min, s.max), (42.0, 0.0, 42.0, 42.0));
        assert!(s.outliers.is_empty());
        // Saved as null, never NaN.
        let json = serde_json::to_string(&s).unwrap();
        assert!(
            json.contains("\"sd\":null") && !json.contains("NaN"),
            "{json}"
        );
    }

    #[test]
    fn a_zero_mean_has_no_cv() {
        let s = summarize(&[0.0, 0.0, 0.0]).unwrap();
        assert_eq!(s.cv_percent, None);
        assert_eq!(s.sd, Some(0.0));
    }

    #[test]
    fn nothing_has_no_summary() {
        assert_eq!(summarize(&[]), None);
    }
}
