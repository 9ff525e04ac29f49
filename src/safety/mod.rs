//! What ioz may do, decided before any I/O.

pub mod memory;
pub mod outputs;
pub mod preflight;
pub mod result_place;
pub mod space;
pub mod target;
pub mod writable_dir;
