//! SNIA's Solid State Storage PTS steady state (PTS 2.0.2, §2.1 and §3.5):
//! over a window of the last 5 rounds of a tracking variable, the range
//! (max − min) is at most 20 % of the window's mean, and the excursion of
//! the window's least-squares line (its slope times the window's width,
//! from its first round to its last) at most 10 % of the mean; a test
//! that has not reached it within 25 rounds is not steady.

use crate::model::result::CellResult;

/// Rounds in a measurement window.
pub const WINDOW: usize = 5;
/// Rounds a run may take to reach steady state.
pub const MAX_ROUNDS: usize = 25;
/// The range's limit, as a fraction of the window's mean.
pub const RANGE_LIMIT: f64 = 0.20;
/// The least-squares line's excursion limit, as a fraction of the mean.
pub const EXCURSION_LIMIT: f64 = 0.10;

/// One window's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowCheck {
    pub mean: f64,
    pub range: f64,
    pub excursion: f64,
}

impl WindowCheck {
    /// The window's figures: mean, range, and the excursion of the
    /// least-squares line through (round, value).
    pub fn of(window: &[f64]) -> WindowCheck {
        let n = window.len() as f64;
        let mean = window.iter().sum::<f64>() / n;
        let max = window.iter().copied().fold(f64::MIN, f64::max);
        let min = window.iter().copied().fold(f64::MAX, f64::min);
        let x_mean = (n - 1.0) / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, y) in window.iter().enumerate() {
            let dx = i as f64 - x_mean;
            sxy += dx * (y - mean);
            sxx += dx * dx;
        }
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        WindowCheck {
            mean,
            range: max - min,
            excursion: slope.abs() * (n - 1.0),
        }
    }

    pub fn range_holds(&self) -> bool {
        self.mean > 0.0 && self.range <= RANGE_LIMIT * self.mean
    }

    pub fn excursion_holds(&self) -> bool {
        self.mean > 0.0 && self.excursion <= EXCURSION_LIMIT * self.mean
    }

    pub fn steady(&self) -> bool {
        self.range_holds() && self.excursion_holds()
    }

    /// "range 14.8 % of the mean (at most 20 %), excursion 14.8 % (at most 10 %)".
    pub fn words(&self) -> String {
        let pct = |v: f64| {
            if self.mean > 0.0 {
                100.0 * v / self.mean
            } else {
                f64::INFINITY
            }
        };
        format!(
            "range {:.1} % of the mean (at most {:.0} %), excursion of the least-squares line {:.1} % (at most {:.0} %)",
            pct(self.range),
            100.0 * RANGE_LIMIT,
            pct(self.excursion),
            100.0 * EXCURSION_LIMIT
        )
    }
}

/// The first window of [`WINDOW`] rounds within the first [`MAX_ROUNDS`]
/// of `series` that is steady: the index of its first round and its
/// figures.
pub fn first_steady(series: &[f64]) -> Option<(usize, WindowCheck)> {
    let considered = &series[..series.len().min(MAX_ROUNDS)];
    considered
        .windows(WINDOW)
        .enumerate()
        .map(|(first, w)| (first, WindowCheck::of(w)))
        .find(|(_, check)| check.steady())
}

/// The last window of the rounds considered (the one a run that never
/// reached steady state is judged by), if there are enough rounds.
pub fn last_window(series: &[f64]) -> Option<WindowCheck> {
    let considered = &series[..series.len().min(MAX_ROUNDS)];
    (considered.len() >= WINDOW).then(|| WindowCheck::of(&considered[considered.len() - WINDOW..]))
}

/// Whether every pass of every cell has reached steady state over its
/// runs (`--until-steady`: the rounds stop here), its rate each run's
/// tracking value as `--rules pts` takes it.
pub fn cells_steady(cells: &[CellResult]) -> bool {
    !cells.is_empty()
        && cells.iter().all(|cell| {
            cell.passes().into_iter().all(|pass| {
                let series: Vec<f64> = cell
                    .measurements
                    .iter()
                    .filter(|m| m.pass == pass)
                    .map(|m| m.bytes_per_sec())
                    .collect();
                first_steady(&series).is_some()
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn a_series_becomes_steady_at_round_7() {
        // Windows ending at rounds 5 and 6 (one-based) fail on the range:
        // [50,70,100,102,98] spans 52 of a mean 84; [70,100,102,98,101]
        // spans 32 of 94.2 (34 %). Rounds 3–7, [100,102,98,101,99]: mean
        // 100, range 4; slope Σ(x−2)(y−100)/Σ(x−2)² = (0−2+0+1−2)/10 =
        // −0.3, excursion 0.3 × 4 = 1.2.
        let series = [50.0, 70.0, 100.0, 102.0, 98.0, 101.0, 99.0, 100.0];
        let (first, check) = first_steady(&series).unwrap();
        assert_eq!(first, 2);
        assert_eq!(first + WINDOW, 7, "the window closes on round 7");
        assert!(close(check.mean, 100.0));
        assert!(close(check.range, 4.0));
        assert!(close(check.excursion, 1.2));
        assert!(!WindowCheck::of(&series[1..6]).range_holds());
        assert!(first_steady(&series[..6]).is_none());
    }

    #[test]
    fn a_series_that_alternates_is_never_steady() {
        // 100, 200, 100, …: every window spans 100 of a mean 140 or 160.
        let series: Vec<f64> = (0..30)
            .map(|i| if i % 2 == 0 { 100.0 } else { 200.0 })
            .collect();
        assert!(first_steady(&series).is_none());
        let last = last_window(&series).unwrap();
        // Rounds 21–25 (index 20..25): 100, 200, 100, 200, 100.
        assert!(close(last.mean, 140.0));
        assert!(close(last.range, 100.0));
        // Steady only after round 25 counts for nothing.
        let mut late = series[..25].to_vec();
        late.extend([100.0; 5]);
        assert!(first_steady(&late).is_none());
        assert!(first_steady(&late[20..]).is_some());
    }

    #[test]
    fn a_ramp_passes_the_range_and_fails_the_excursion() {
        // 100, 104, …, 116: mean 108, range 16 (14.8 % ≤ 20 %); slope 4,
        // excursion 4 × 4 = 16 (14.8 % > 10 %).
        let ramp = [100.0, 104.0, 108.0, 112.0, 116.0];
        let check = WindowCheck::of(&ramp);
        assert!(close(check.mean, 108.0));
        assert!(close(check.range, 16.0));
        assert!(close(check.excursion, 16.0));
        assert!(check.range_holds());
        assert!(!check.excursion_holds());
        assert!(first_steady(&ramp).is_none());
        assert!(
            check
                .words()
                .contains("excursion of the least-squares line 14.8 %")
        );
    }

    #[test]
    fn too_few_rounds_have_no_window() {
        assert!(first_steady(&[100.0; 4]).is_none());
        assert!(last_window(&[100.0; 4]).is_none());
        assert_eq!(first_steady(&[100.0; 5]).map(|(f, _)| f), Some(0));
    }
}
