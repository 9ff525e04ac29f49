//! p-values adjusted for the many cells one comparison tests at once, so
//! that an auto run's hundreds of cells do not turn noise into verdicts:
//! Benjamini–Hochberg (the false discovery rate, the default) or Holm (the
//! family-wise error, stricter).

pub use crate::model::adjust::Adjust;

/// The adjusted p-values, in the order given; `None` stays `None` and does
/// not count among the tests.
pub fn adjust(method: Adjust, p: &[Option<f64>]) -> Vec<Option<f64>> {
    let mut order: Vec<(usize, f64)> = p
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let m = order.len() as f64;
    let mut out = vec![None; p.len()];
    match method {
        Adjust::BenjaminiHochberg => {
            // From the largest p down: min over j ≥ i of m/j · p(j).
            let mut running = 1.0_f64;
            for (rank, &(i, v)) in order.iter().enumerate().rev() {
                running = running.min(v * m / (rank + 1) as f64);
                out[i] = Some(running.min(1.0));
            }
        }
        Adjust::Holm => {
            // From the smallest p up: max over j ≤ i of (m − j + 1) · p(j).
            let mut running = 0.0_f64;
            for (rank, &(i, v)) in order.iter().enumerate() {
                running = running.max(v * (m - rank as f64));
                out[i] = Some(running.min(1.0));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: &[Option<f64>], want: &[Option<f64>]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            match (g, w) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}"),
                _ => assert_eq!(g, w, "{got:?} vs {want:?}"),
            }
        }
    }

    // Expected values: statsmodels' multipletests(p, method='fdr_bh' / 'holm')
    // give the same; computed here by hand from the definitions:
    // p sorted = .01 .02 .03 .04 .05 (m = 5).
    // BH: m/j·p = .05 .05 .05 .05 .05, then running minimum from the top.
    // Holm: (m−j+1)·p = .05 .08 .09 .08 .05, then running maximum: .05 .08 .09 .09 .09.
    const P: [Option<f64>; 6] = [
        Some(0.04),
        None,
        Some(0.01),
        Some(0.05),
        Some(0.03),
        Some(0.02),
    ];

    #[test]
    fn benjamini_hochberg_by_hand() {
        close(
            &adjust(Adjust::BenjaminiHochberg, &P),
            &[
                Some(0.05),
                None,
                Some(0.05),
                Some(0.05),
                Some(0.05),
                Some(0.05),
            ],
        );
        // p = .001 .02 .5 (m = 3): 3·.001 = .003, 3/2·.02 = .03, .5.
        close(
            &adjust(
                Adjust::BenjaminiHochberg,
                &[Some(0.5), Some(0.001), Some(0.02)],
            ),
            &[Some(0.5), Some(0.003), Some(0.03)],
        );
    }

    #[test]
    fn holm_by_hand() {
        close(
            &adjust(Adjust::Holm, &P),
            &[
                Some(0.09),
                None,
                Some(0.05),
                Some(0.09),
                Some(0.09),
                Some(0.08),
            ],
        );
    }

    #[test]
    fn adjusted_values_stay_at_most_one_and_one_test_is_itself() {
        close(
            &adjust(Adjust::Holm, &[Some(0.6), Some(0.7)]),
            &[Some(1.0), Some(1.0)],
        );
        close(
            &adjust(Adjust::BenjaminiHochberg, &[Some(0.3)]),
            &[Some(0.3)],
        );
        assert!(
            adjust(Adjust::Holm, &[None, None])
                .iter()
                .all(Option::is_none)
        );
    }
}
