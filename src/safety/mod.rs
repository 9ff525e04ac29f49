//! What ioz may do, decided before any I/O.

pub mod lock;
pub mod memory;
pub mod outputs;
pub mod ownership;
pub mod preflight;
pub mod result_place;
pub mod space;
pub mod test_file;
pub mod tree_place;
pub mod writable_dir;
