//! Bytes and offsets made before the clock starts: buffers, data patterns,
//! operation lists, the default data's stamps, verification, dedup data and
//! telemetry replay.

pub mod buffer;
pub mod check;
pub mod dedup;
pub mod pattern;
pub mod stamp;
pub mod telemetry;
pub mod verify;
