//! ioz: a file-system benchmark, command-line compatible with IOzone.

pub mod app;
pub mod cli;
pub mod data;
pub mod engine;
pub mod error;
pub mod model;
pub mod report;
pub mod runner;
pub mod safety;
pub mod system;
