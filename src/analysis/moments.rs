//! Mean and sample standard deviation, the two moments the tests need.
// TODO(merge): use analysis::summary (the per-cell summaries of the runs
// branch) once it lands, and drop this file.

/// The arithmetic mean; NaN for no values.
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The sample variance (n − 1 in the denominator); `None` below two values.
pub fn variance(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let m = mean(values);
    let squares: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    Some(squares / (values.len() - 1) as f64)
}

/// The sample standard deviation; `None` below two values.
pub fn sd(values: &[f64]) -> Option<f64> {
    variance(values).map(f64::sqrt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_of_a_small_sample() {
        // By hand: mean 5, squares 9+1+1+9 = 20, variance 20/3.
        let v = [2.0, 4.0, 6.0, 8.0];
        assert_eq!(mean(&v), 5.0);
        assert!((variance(&v).unwrap() - 20.0 / 3.0).abs() < 1e-12);
        assert_eq!(sd(&[3.0]), None);
        assert_eq!(sd(&[3.0, 3.0]), Some(0.0));
    }
}
