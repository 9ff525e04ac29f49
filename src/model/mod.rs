//! Plain data shared by every layer: units, the run's configuration, the
//! IOzone tests and passes, the plan, and what a run measured; and
//! [`say`](say::say), the one voice of every layer on standard error.

pub mod adjust;
pub mod ceilings;
pub mod client;
pub mod config;
pub mod const_text;
pub mod dates;
pub mod engines;
pub mod env_facts;
pub mod environment;
pub mod file_kind;
pub mod formats;
pub mod histogram;
pub mod history_layout;
pub mod host;
pub mod identity;
pub mod impossible;
pub mod intervals;
pub mod job;
pub mod latency;
pub mod metadata;
pub mod metadata_result;
pub mod network_test;
pub mod order;
pub mod peer;
pub mod plan;
pub mod rank_environments;
pub mod rank_share;
pub mod rank_view;
pub mod recorded;
pub mod regime;
pub mod residency;
pub mod result;
pub mod result_files;
pub mod rules;
pub mod say;
pub mod skew;
pub mod steady;
pub mod stonewall;
pub mod telemetry;
pub mod units;
pub mod variations;
pub mod visible;
pub mod workload;
pub mod workload_id;
