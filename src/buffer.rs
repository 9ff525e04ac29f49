//! Page-aligned I/O buffers (safe for O_DIRECT) and the data written from them.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use rand_mt::Mt64;

use crate::config::{DataPattern, MIB};
use crate::pattern::largest_op;
use crate::plan::Cell;

/// Alignment of every buffer: a page, which O_DIRECT accepts on Linux file systems.
pub const BUFFER_ALIGN: usize = 4096;
/// IOzone's pattern byte (version 3.414) and where it sits in each page.
pub const IOZONE_PATTERN_BYTE: u8 = 0x10;
const IOZONE_PAGE: usize = 4096;
const IOZONE_STAMP_LEN: usize = 8;
/// Distinct random data written before the pool repeats. Large enough that no
/// compressor's block (≤ 1 MiB in ZFS and btrfs) sees a repeat, small enough
/// to stay in a CPU's L2 cache like IOzone's single buffer mostly does.
const RANDOM_POOL_BYTES: u64 = MIB;

/// A zeroed, page-aligned heap buffer.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// The buffer owns its memory exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    pub fn zeroed(len: usize) -> AlignedBuf {
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size (at least one page).
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, len }
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len.max(1).next_multiple_of(BUFFER_ALIGN), BUFFER_ALIGN)
            .expect("buffer size overflows a Layout")
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised (zeroed) bytes for our lifetime.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this same layout.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.len)) }
    }
}

/// Size of the write pool for a cell: a whole number of records, at least the
/// largest operation. IOzone's data is one buffer reused for every record.
pub fn pool_bytes(cell: &Cell, data: DataPattern) -> usize {
    let largest = largest_op(cell);
    match data {
        DataPattern::Iozone => largest,
        DataPattern::Random => {
            let wanted = cell
                .pass_bytes()
                .min(RANDOM_POOL_BYTES)
                .next_multiple_of(cell.record_bytes) as usize;
            wanted.max(largest)
        }
    }
}

/// Fills a buffer with the data pattern (before any clock starts).
pub fn fill(buf: &mut [u8], data: DataPattern, seed: u64) {
    match data {
        DataPattern::Random => Mt64::new(seed).fill_bytes(buf),
        DataPattern::Iozone => {
            buf.fill(0);
            for page in buf.chunks_mut(IOZONE_PAGE) {
                let n = page.len().min(IOZONE_STAMP_LEN);
                page[..n].fill(IOZONE_PATTERN_BYTE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_page_aligned_and_zeroed() {
        for len in [1, 4096, 5000, 1 << 20] {
            let b = AlignedBuf::zeroed(len);
            assert_eq!(b.as_ptr() as usize % BUFFER_ALIGN, 0);
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn iozone_data_stamps_each_page() {
        let mut b = vec![0xffu8; 3 * 4096];
        fill(&mut b, DataPattern::Iozone, 0);
        assert_eq!(b.iter().filter(|&&x| x == 0x10).count(), 24);
        assert_eq!(&b[4096..4104], &[0x10; 8]);
        assert_eq!(b[4104], 0);
    }

    #[test]
    fn random_data_does_not_repeat_within_the_pool() {
        let mut b = vec![0u8; 64 << 10];
        fill(&mut b, DataPattern::Random, 7);
        assert_ne!(&b[..4096], &b[4096..8192]);
        let zeros = b.iter().filter(|&&x| x == 0).count();
        assert!(zeros < 1000, "{zeros} zero bytes in 64 KiB of random data");
    }

    #[test]
    fn pool_sizes() {
        let small = Cell {
            file_bytes: 64 << 10,
            record_bytes: 4 << 10,
        };
        assert_eq!(pool_bytes(&small, DataPattern::Random), 64 << 10);
        assert_eq!(pool_bytes(&small, DataPattern::Iozone), 64 << 10); // one preadv call
        let big = Cell {
            file_bytes: 256 << 20,
            record_bytes: 4 << 10,
        };
        assert_eq!(pool_bytes(&big, DataPattern::Random), 1 << 20);
        assert_eq!(pool_bytes(&big, DataPattern::Iozone), 64 << 10);
        let huge_records = Cell {
            file_bytes: 64 << 20,
            record_bytes: 16 << 20,
        };
        assert_eq!(pool_bytes(&huge_records, DataPattern::Random), 16 << 20);
    }
}
