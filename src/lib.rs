//! ioz: a file-system benchmark, command-line compatible with IOzone.
//!
//! The crate is built in layers, each a folder, and a layer imports only the
//! layers named beside it (ARCHITECTURE.md has the map; tests/architecture.rs
//! enforces it). A run goes argv → `cli` → `RunConfig` → `safety` (preflight)
//! → `runner` (with `data` made before the clock and an `engine` moving the
//! records) → `RunResult` → `report`, all driven by `app`.
//!
//! - `model`: plain data every layer shares: config, plan, results (imports nothing of ours)
//! - `analysis`: statistics over measured rates: summaries of repeated runs, comparisons (model)
//! - `data`: bytes and offsets made before the clock (model)
//! - `engine`: how one record moves, one trait for all (model, data)
//! - `error`: the errors that end a run and the exit statuses (model)
//! - `system`: what reads or changes the machine (model, error)
//! - `safety`: what ioz may do, decided before any I/O (model, data, system, error)
//! - `runner`: cells and passes → measurements, handed out as events (all of the above)
//! - `report`: a `RunResult` (or a comparison) → bytes, one exporter per format (model, analysis)
//! - `history`: every run kept in the user's data directory and indexed in SQLite (model, analysis, report)
//! - `cli`: argv → a typed request (model)
//! - `app`: one command end to end (everything; nothing imports it)

pub mod analysis;
pub mod app;
pub mod cli;
pub mod data;
pub(crate) mod engine;
pub mod error;
pub(crate) mod history;
pub mod model;
pub mod report;
pub(crate) mod runner;
pub(crate) mod safety;
pub(crate) mod system;
