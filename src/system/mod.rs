//! What reads or changes the machine: the environment of a run, mounts,
//! block devices, remounting, signals, host facts and wall-clock times.

pub mod device;
pub mod environment;
pub mod host;
pub mod locks;
pub mod mountinfo;
pub mod remount;
pub mod signals;
pub mod sysfs;
pub mod time;

#[cfg(test)]
mod tests;
