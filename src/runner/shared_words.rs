//! Words of memory shared by a pass's loops and the threads or forked
//! processes around them: an anonymous shared mapping, zeroed, seen alike
//! by a worker thread and a forked worker (which inherits it), every word
//! an atomic.

use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use nix::sys::mman::{MapFlags, ProtFlags, mmap_anonymous, munmap};

/// `len` shared words, all 0 at first.
pub struct SharedWords {
    ptr: NonNull<AtomicU64>,
    len: usize,
}

impl SharedWords {
    pub fn new(len: usize) -> std::io::Result<SharedWords> {
        let bytes = len
            .max(1)
            .checked_mul(8)
            .and_then(NonZeroUsize::new)
            .ok_or_else(|| std::io::Error::other("too many words to share"))?;
        // SAFETY: a fresh anonymous mapping; zeroed memory is a valid array
        // of AtomicU64, and the mapping is page-aligned.
        let ptr = unsafe {
            mmap_anonymous(
                None,
                bytes,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
            )
        }?;
        Ok(SharedWords {
            ptr: ptr.cast(),
            len,
        })
    }

    pub fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping holds `len` initialised AtomicU64 for as long
        // as self lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for SharedWords {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping created in `new`, never used after this.
        let _ = unsafe { munmap(self.ptr.cast(), self.len.max(1) * 8) };
    }
}

// SAFETY: the mapping is the value's own and every access to it goes
// through atomics, so it may move and be shared across threads.
unsafe impl Send for SharedWords {}
// SAFETY: as above.
unsafe impl Sync for SharedWords {}
