//! What reads or changes the machine: the environment of a run, mounts,
//! block devices, remounting, signals, host facts, wall-clock times and how
//! freed memory goes back to the system; whether an MPI launcher started
//! ioz, and (with the `mpi` feature) the ranks of its job. And the system
//! calls the layers above share: the one opener of a user's input file,
//! descriptors for safety's checks, and ioz's extended-attribute marks.

pub mod allocator;
pub mod ceilings;
pub mod cluster;
pub mod descriptor;
pub mod device;
pub mod dirty;
pub mod environment;
pub mod fd_table;
pub mod file_warden;
pub mod host;
pub mod input_file;
pub mod locks;
pub mod mountinfo;
pub mod netfs;
pub mod private_view;
pub mod program_pages;
pub mod queue;
pub mod remount;
pub mod reserve;
pub mod residency;
pub mod signals;
#[cfg(test)]
pub(crate) mod skip_ledger;
pub mod sysfs;
pub mod time;
pub mod tree;
pub mod tunables;
pub mod unlink;
pub mod virt;
pub mod xattr;

#[cfg(test)]
mod tests;
