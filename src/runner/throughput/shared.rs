//! State the workers of a throughput phase share: stonewall and abort flags,
//! and the barrier's release time. It lives in an anonymous shared mapping so
//! that forked worker processes see the same memory as threads would.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::runner::shared_words::SharedMapping;

#[repr(C)]
pub struct SharedFlags {
    /// Raised by the first worker to finish (stonewalling).
    pub stonewall: AtomicBool,
    /// Raised when the phase must end without results (a worker failed).
    pub abort: AtomicBool,
    /// CLOCK_MONOTONIC when the barrier opened.
    pub release_ns: AtomicU64,
}

/// One [`SharedFlags`] in a shared mapping (runner/shared_words.rs: the
/// workers read the stonewall flag at every operation).
pub struct SharedState {
    mapping: SharedMapping,
}

impl SharedState {
    pub fn new() -> std::io::Result<SharedState> {
        Ok(SharedState {
            mapping: SharedMapping::new(std::mem::size_of::<SharedFlags>())?,
        })
    }

    pub fn flags(&self) -> &SharedFlags {
        // SAFETY: the mapping's memory is zeroed (a valid SharedFlags: false,
        // false, 0), 64-byte aligned, large enough and lives as long as self.
        unsafe { self.mapping.start().cast::<SharedFlags>().as_ref() }
    }

    /// Stops every worker's loop and tells them not to finish their files.
    pub fn abort(&self) {
        self.flags().abort.store(true, Ordering::SeqCst);
        self.flags().stonewall.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_the_workers_read_at_every_operation_are_off_their_page_s_first_line() {
        let state = SharedState::new().unwrap();
        let flags = state.flags();
        assert_eq!(std::ptr::from_ref(flags) as usize % 4096, 64);
        assert!(!flags.stonewall.load(Ordering::Relaxed) && !flags.abort.load(Ordering::Relaxed));
        state.abort();
        assert!(flags.stonewall.load(Ordering::Relaxed) && flags.abort.load(Ordering::Relaxed));
    }
}
