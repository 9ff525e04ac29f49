//! What reads or changes the machine: the environment of a run, mounts,
//! block devices, remounting, and signals.

pub mod device;
pub mod environment;
pub mod host;
pub mod mountinfo;
pub mod remount;
pub mod signals;
pub mod sysfs;

#[cfg(test)]
mod tests;
