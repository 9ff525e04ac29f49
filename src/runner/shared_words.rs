//! Memory shared by a pass's loops and the threads or forked processes
//! around them: an anonymous shared mapping, zeroed, seen alike by a worker
//! thread and a forked worker (which inherits it). [`SharedMapping`] is the
//! mapping; [`SharedWords`] is one as atomic words.
//!
//! A mapping's usable memory starts one cache line into its first page.
//! Timed loops read words of it at every operation (throughput mode's
//! stonewall flag, `--interval`'s tick), and a word in the first cache line
//! of a page is a dear one to read there. With the tick at byte 0 of its
//! page, each cached 4 KiB read took 2 to 3 % longer than without
//! `--interval`; at byte 0x40, 0x140 or 0x640, no longer (16 interleaved
//! runs of each, 1 GiB file, this 2-core AMD VM); a private mapping's
//! byte 0 cost the same, a heap word nothing. Most likely the line's cache
//! set is the one every page-aligned buffer of the kernel's read starts in
//! (the read buffer, the page cache's pages), so the word is evicted at
//! each read.

use std::ffi::c_void;
use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use nix::sys::mman::{MapFlags, ProtFlags, mmap_anonymous, munmap};

/// The bytes a mapping leaves unused before its memory: its page's first
/// cache line (see the module).
const FIRST_LINE: usize = 64;

/// A zeroed anonymous shared mapping, unmapped when dropped.
pub struct SharedMapping {
    base: NonNull<c_void>,
    mapped: NonZeroUsize,
}

impl SharedMapping {
    /// A mapping of `bytes` usable bytes (at least one).
    pub fn new(bytes: usize) -> std::io::Result<SharedMapping> {
        let mapped = bytes
            .max(1)
            .checked_add(FIRST_LINE)
            .and_then(NonZeroUsize::new)
            .ok_or_else(|| std::io::Error::other("too much memory to share"))?;
        // SAFETY: a fresh anonymous mapping, which nothing else refers to.
        let base = unsafe {
            mmap_anonymous(
                None,
                mapped,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
            )
        }?;
        Ok(SharedMapping { base, mapped })
    }

    /// Where the usable memory starts: zeroed, 64-byte aligned (the mapping
    /// is page-aligned), as long as asked for and the mapping's own.
    pub fn start(&self) -> NonNull<u8> {
        // SAFETY: FIRST_LINE < mapped: inside the mapping.
        unsafe { self.base.cast::<u8>().add(FIRST_LINE) }
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping created in `new`, never used after this.
        let _ = unsafe { munmap(self.base, self.mapped.get()) };
    }
}

// SAFETY: the mapping is the value's own; its users reach it only through
// atomics, so it may move and be shared across threads.
unsafe impl Send for SharedMapping {}
// SAFETY: as above.
unsafe impl Sync for SharedMapping {}

/// `len` shared words, all 0 at first.
pub struct SharedWords {
    mapping: SharedMapping,
    len: usize,
}

impl SharedWords {
    pub fn new(len: usize) -> std::io::Result<SharedWords> {
        let bytes = len
            .checked_mul(std::mem::size_of::<AtomicU64>())
            .ok_or_else(|| std::io::Error::other("too many words to share"))?;
        Ok(SharedWords {
            mapping: SharedMapping::new(bytes)?,
            len,
        })
    }

    pub fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping holds `len` zero-initialised AtomicU64 (zero
        // is a valid one), aligned, for as long as self lives.
        unsafe { std::slice::from_raw_parts(self.mapping.start().cast().as_ptr(), self.len) }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;

    #[test]
    fn the_words_start_one_cache_line_into_a_page_and_are_zero() {
        for len in [1, 8, 600] {
            let shared = SharedWords::new(len).unwrap();
            let words = shared.words();
            assert_eq!(words.len(), len);
            assert_eq!(std::ptr::from_ref(&words[0]) as usize % 4096, 64);
            assert!(words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
            // The last word is inside the mapping: writable.
            words[len - 1].store(7, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_forked_child_s_stores_are_seen_by_its_parent() {
        let shared = SharedWords::new(2).unwrap();
        // SAFETY: the child only stores to the mapping and exits at once.
        match unsafe { libc::fork() } {
            0 => {
                shared.words()[1].store(42, Ordering::Release);
                // SAFETY: ends the child without running the parent's destructors.
                unsafe { libc::_exit(0) }
            }
            child => {
                assert!(child > 0, "fork failed");
                let mut status = 0;
                // SAFETY: waits for the child just forked.
                unsafe { libc::waitpid(child, &mut status, 0) };
                assert_eq!(shared.words()[1].load(Ordering::Acquire), 42);
            }
        }
    }
}
