//! How sizes read on the plots: log2 sizes, tick labels.

use crate::model::units::Size;

pub(super) fn lg(bytes: u64) -> f64 {
    (bytes.max(1) as f64).log2()
}

fn unlg(x: f64) -> u64 {
    x.exp2().round() as u64
}

/// The label of a tick at log2 size `x`: "512B", "64K", "1M", "2G".
pub(super) fn size_tick(x: f64) -> String {
    format!("{:#}", Size(unlg(x)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plots::axis::{nice_top, time_ticks};

    #[test]
    fn sizes_and_values_read_well() {
        assert_eq!(size_tick(lg(64 << 10)), "64K");
        assert_eq!(size_tick(lg(512 << 20)), "512M");
        assert_eq!(size_tick(lg(100 << 10)), "100K");
        assert_eq!(size_tick(lg(512)), "512B");
        assert_eq!(nice_top(0.0), 1.0);
        assert_eq!(nice_top(960.0), 1000.0);
        assert!(nice_top(1001.0) >= 1001.0);
    }

    #[test]
    fn a_time_axis_ends_at_the_run_s_end_or_one_round_step_past_it() {
        assert_eq!(time_ticks(3.0), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
        assert_eq!(time_ticks(3.2).last(), Some(&3.5));
        assert_eq!(time_ticks(100.0), [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(time_ticks(1040.0).last(), Some(&1200.0));
        assert_eq!(time_ticks(0.0).last(), Some(&1.0));
        // Every end from 1 ms to 1000 s: past it by less than one step, the
        // steps even and round, 4 to 10 of them.
        let mut end = 1e-3;
        while end < 1e3 {
            let t = time_ticks(end);
            let step = t[1] - t[0];
            let last = *t.last().unwrap();
            assert!((4..=10).contains(&(t.len() - 1)), "{end}: {t:?}");
            assert!(
                last >= end * (1.0 - 1e-9) && last - end < step,
                "{end}: {t:?}"
            );
            let mantissa = step / 10f64.powf(step.log10().floor());
            assert!(
                [1.0, 2.0, 2.5, 5.0]
                    .iter()
                    .any(|m| (m - mantissa).abs() < 1e-9),
                "{end}: step {step}"
            );
            end *= 1.037;
        }
    }
}
