//! Welch's t-test on the logarithms of two samples of rates: the ratio of
//! their geometric means, its 95 % confidence interval and a two-sided
//! p-value come out directly, and a ratio is what a reader of a benchmark
//! asks for ("12 % slower"), whatever the scale of the cell.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use super::summary::summarize;

/// What Welch's test says of OTHER against BASE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogWelch {
    /// exp(mean ln OTHER − mean ln BASE): the ratio of geometric means.
    pub ratio: f64,
    /// The ratio's 95 % confidence interval.
    pub ci_low: f64,
    pub ci_high: f64,
    /// Two-sided p-value of "the log means are equal".
    pub p: f64,
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom; `None` when both samples
    /// have no spread at all (then the test degenerates, see [`log_welch`]).
    pub df: Option<f64>,
}

/// Above this many degrees of freedom the t quantile is the normal one:
/// statrs' inverse t is wrong at huge df, and the two agree to 1e-4 here.
const NORMAL_ABOVE_DF: f64 = 1e4;

/// Welch's t-test on ln(`other`) against ln(`base`). `None` when a side
/// has fewer than two samples or a sample is not a positive number (no
/// logarithm). When neither side varies (zero variance: a cell read twice
/// from the same run, say) the test is decided without t: equal means give
/// p = 1, different ones p = 0, and the interval is the ratio itself.
pub fn log_welch(base: &[f64], other: &[f64]) -> Option<LogWelch> {
    if base.len() < 2 || other.len() < 2 {
        return None;
    }
    if base
        .iter()
        .chain(other)
        .any(|v| !(v.is_finite() && *v > 0.0))
    {
        return None;
    }
    let lb: Vec<f64> = base.iter().map(|v| v.ln()).collect();
    let lo: Vec<f64> = other.iter().map(|v| v.ln()).collect();
    let (sb, so) = (summarize(&lb)?, summarize(&lo)?);
    let diff = so.mean - sb.mean;
    let ratio = diff.exp();
    let vb = sb.sd?.powi(2) / lb.len() as f64;
    let vo = so.sd?.powi(2) / lo.len() as f64;
    let se2 = vb + vo;
    if se2 == 0.0 {
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        let t = if diff == 0.0 {
            0.0
        } else {
            diff.signum() * f64::INFINITY
        };
        return Some(LogWelch {
            ratio,
            ci_low: ratio,
            ci_high: ratio,
            p,
            t,
            df: None,
        });
    }
    let se = se2.sqrt();
    let df = se2 * se2 / (vb * vb / (lb.len() - 1) as f64 + vo * vo / (lo.len() - 1) as f64);
    let t = diff / se;
    let (p, q) = if df > NORMAL_ABOVE_DF {
        let n = Normal::new(0.0, 1.0).ok()?;
        (2.0 * n.sf(t.abs()), n.inverse_cdf(0.975))
    } else {
        let st = StudentsT::new(0.0, 1.0, df).ok()?;
        (2.0 * st.sf(t.abs()), st.inverse_cdf(0.975))
    };
    Some(LogWelch {
        ratio,
        ci_low: (diff - q * se).exp(),
        ci_high: (diff + q * se).exp(),
        p: p.min(1.0),
        t,
        df: Some(df),
    })
}

#[cfg(test)]
mod tests;
