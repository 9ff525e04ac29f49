//! Bytes and offsets made before the clock starts: buffers, data patterns,
//! operation lists, the default data's stamps, verification, dedup data,
//! telemetry replay, and the names a metadata benchmark works on.

pub mod buffer;
pub mod check;
pub mod dedup;
pub mod names;
pub mod pattern;
pub mod stamp;
pub mod telemetry;
pub mod verify;
