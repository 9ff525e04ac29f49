//! State the workers of a throughput phase share: stonewall and abort flags,
//! and the barrier's release time. It lives in an anonymous shared mapping so
//! that forked worker processes see the same memory as threads would.

use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use nix::sys::mman::{MapFlags, ProtFlags, mmap_anonymous, munmap};

#[repr(C)]
pub struct SharedFlags {
    /// Raised by the first worker to finish (stonewalling).
    pub stonewall: AtomicBool,
    /// Raised when the phase must end without results (a worker failed).
    pub abort: AtomicBool,
    /// CLOCK_MONOTONIC when the barrier opened.
    pub release_ns: AtomicU64,
}

/// An owned shared mapping holding one [`SharedFlags`].
pub struct SharedState {
    ptr: NonNull<SharedFlags>,
}

impl SharedState {
    pub fn new() -> std::io::Result<SharedState> {
        let len = NonZeroUsize::new(std::mem::size_of::<SharedFlags>()).expect("non-zero size");
        // SAFETY: a fresh anonymous mapping; zeroed memory is a valid SharedFlags
        // (false, false, 0), and the mapping is page-aligned.
        let ptr = unsafe {
            mmap_anonymous(
                None,
                len,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
            )
        }?;
        Ok(SharedState { ptr: ptr.cast() })
    }

    pub fn flags(&self) -> &SharedFlags {
        // SAFETY: the mapping is valid and initialised for as long as self lives.
        unsafe { self.ptr.as_ref() }
    }

    /// Stops every worker's loop and tells them not to finish their files.
    pub fn abort(&self) {
        self.flags().abort.store(true, Ordering::SeqCst);
        self.flags().stonewall.store(true, Ordering::SeqCst);
    }
}

impl Drop for SharedState {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping created in `new`, never used after this.
        let _ = unsafe { munmap(self.ptr.cast(), std::mem::size_of::<SharedFlags>()) };
    }
}

// SAFETY: the mapping is the state's own and every access to it goes
// through atomics, so it may move and be shared across threads.
unsafe impl Send for SharedState {}
// SAFETY: as above.
unsafe impl Sync for SharedState {}
