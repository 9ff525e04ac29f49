//! How the C allocator hands memory back to the system.
//!
//! ioz allocates a pool, a read buffer and (for the stdio tests) a stdio
//! buffer of one record for every cell, and frees them when the cell ends: up
//! to 16 MiB each in auto mode. glibc serves a block that large with its own
//! mapping, returned to the system when it is freed, but on that first free
//! it raises its mapping threshold to the block's size (and the heap's trim
//! threshold to twice that), so every later buffer comes from the heap, and
//! freed buffers stay resident there: `-a` peaked at 97 MB where its
//! largest cell holds 54 MB. A fixed threshold keeps every large buffer in a
//! mapping of its own: the peak is what the cell holds.
//!
//! The buffers are zeroed when they are made (data/buffer.rs), so their pages
//! are faulted in before any clock starts, wherever they come from.

/// glibc's default threshold: blocks from 128 KiB up get their own mapping.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_BYTES: libc::c_int = 128 * 1024;

/// Fixes glibc's mapping threshold at its default, so that large freed
/// buffers go back to the system. Called first thing, so that worker
/// processes inherit it. Other C libraries: nothing to do.
pub fn return_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only changes glibc's allocation parameters, under
        // its own lock. A refusal (0) leaves glibc's defaults, which only
        // cost memory.
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) };
    }
}
