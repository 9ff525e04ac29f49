//! The Mann–Whitney U test, asymptotic (normal approximation with the tie
//! and continuity corrections), as SciPy's
//! `mannwhitneyu(other, base, method='asymptotic')` computes it. Used only
//! from [`MIN_SAMPLES`] samples per side, where the approximation holds; it
//! is written here because statrs' exact path has its tail inverted.

use statrs::distribution::{ContinuousCDF, Normal};

/// The fewest samples per side the test is run with.
pub const MIN_SAMPLES: usize = 9;

/// Two-sided p-value of "OTHER and BASE come from one distribution";
/// `None` below [`MIN_SAMPLES`] per side. All values tied gives p = 1.
pub fn mann_whitney_p(base: &[f64], other: &[f64]) -> Option<f64> {
    if base.len() < MIN_SAMPLES || other.len() < MIN_SAMPLES {
        return None;
    }
    let (n1, n2) = (other.len() as f64, base.len() as f64);
    let mut all: Vec<(f64, bool)> = other
        .iter()
        .map(|&v| (v, true))
        .chain(base.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Mid-ranks of tied runs, and Σ(t³ − t) over them for the variance.
    let mut rank_sum_other = 0.0;
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let mid_rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        rank_sum_other += mid_rank * all[i..=j].iter().filter(|(_, o)| *o).count() as f64;
        i = j + 1;
    }
    let u1 = rank_sum_other - n1 * (n1 + 1.0) / 2.0;
    let u = u1.max(n1 * n2 - u1);
    let n = n1 + n2;
    let mu = n1 * n2 / 2.0;
    let sigma = (n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)))).sqrt();
    if sigma == 0.0 {
        return Some(1.0);
    }
    let z = (u - mu - 0.5) / sigma;
    let normal = Normal::new(0.0, 1.0).ok()?;
    Some((2.0 * normal.sf(z)).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64) {
        // statrs' and SciPy's normal tails agree to about 1e-10 relative.
        assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
    }

    fn f(v: &[i32]) -> Vec<f64> {
        v.iter().map(|&x| x as f64).collect()
    }

    // Expected values from SciPy 1.17.1:
    // scipy.stats.mannwhitneyu(other, base, method='asymptotic').pvalue
    #[test]
    fn separated_samples_match_scipy() {
        let base = f(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let other = f(&[11, 12, 13, 14, 15, 16, 17, 18, 19]);
        close(
            mann_whitney_p(&base, &other).unwrap(),
            0.00041229480206169127,
        );
        // Two-sided: the order of the sides does not matter.
        close(
            mann_whitney_p(&other, &base).unwrap(),
            0.00041229480206169127,
        );
    }

    #[test]
    fn ties_match_scipy() {
        let base = f(&[1, 2, 2, 3, 3, 3, 4, 5, 6, 7]);
        let other = f(&[2, 3, 4, 4, 5, 6, 6, 7, 8, 9]);
        close(mann_whitney_p(&base, &other).unwrap(), 0.07933818125207155);
        let base = [5.1, 4.9, 5.3, 5.0, 5.2, 4.8, 5.1, 5.4, 4.7];
        let other = [5.0, 5.5, 5.6, 5.2, 5.8, 5.3, 5.9, 5.7, 5.4];
        close(mann_whitney_p(&base, &other).unwrap(), 0.007909101233594038);
    }

    #[test]
    fn below_nine_samples_a_side_there_is_no_test() {
        let eight = f(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let nine = f(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(mann_whitney_p(&eight, &nine), None);
        assert_eq!(mann_whitney_p(&nine, &eight), None);
    }

    #[test]
    fn identical_and_all_tied_inputs_give_p_one() {
        let nine = f(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(mann_whitney_p(&nine, &nine), Some(1.0));
        let flat = [3.0; 9];
        assert_eq!(mann_whitney_p(&flat, &flat), Some(1.0));
    }
}
