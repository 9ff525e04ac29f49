//! What ioz may do, decided before any I/O.

pub mod memory;
pub mod outputs;
pub mod preflight;
pub mod space;
pub mod target;
