//! Statistics over measured rates: per-cell summaries of repeated runs
//! (`summary`), and the comparison of runs against a baseline (`ioz
//! compare`). Plain functions of numbers, plain data out; it imports only
//! `model`, and `report` and `app` use it.

pub mod adjust;
pub mod compare;
pub mod mann_whitney;
pub mod rules;
pub mod samples;
pub mod summary;
pub mod trend;
pub mod welch;
pub mod why;
