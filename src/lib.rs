//! ioz: a file-system benchmark, command-line compatible with IOzone.

pub mod app;
pub mod buffer;
pub mod cli;
pub mod clock;
pub mod config;
pub mod dedup;
pub mod device;
pub mod engine;
pub mod env;
pub mod error;
pub mod mountinfo;
pub mod outputs;
pub mod pattern;
pub mod plan;
pub mod progress;
pub mod remount;
pub mod report;
pub mod result;
pub mod runner;
pub mod safety;
pub mod signals;
pub mod space;
pub mod telemetry;
pub mod variations;
pub mod verify;
pub mod workload;
