//! Bytes and offsets made before the clock starts: buffers, data patterns,
//! operation lists, verification, dedup data and telemetry replay.

pub mod buffer;
pub mod check;
pub mod dedup;
pub mod pattern;
pub mod telemetry;
pub mod verify;
