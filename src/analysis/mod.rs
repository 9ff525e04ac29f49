//! Statistics over measured rates: per-cell summaries of repeated runs,
//! and the comparison of runs against a baseline (`ioz compare`). Plain
//! numbers in, plain data out; it imports only `model`, and `report` and
//! `app` use it.

pub mod adjust;
pub mod compare;
pub mod mann_whitney;
mod moments;
pub mod samples;
pub mod welch;
