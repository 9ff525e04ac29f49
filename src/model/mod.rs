//! Plain data shared by every layer: units, the run's configuration, the
//! IOzone tests and passes, the plan, and what a run measured.

pub mod config;
pub mod plan;
pub mod result;
pub mod variations;
pub mod workload;
