//! ioz: a file-system benchmark, command-line compatible with IOzone.

pub mod cli;
pub mod config;
pub mod workload;
