//! Page-aligned I/O buffers (safe for O_DIRECT) and the data written from them.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use rand_mt::Mt64;

use crate::data::pattern::{PROBE_PAGE, largest_op};
use crate::model::config::DataPattern;
use crate::model::plan::Cell;
use crate::model::units::MIB;

/// Alignment of every buffer: a page, which O_DIRECT accepts on Linux file systems.
pub const BUFFER_ALIGN: usize = 4096;
/// IOzone's pattern byte (version 3.414) and where it sits in each page.
pub const IOZONE_PATTERN_BYTE: u8 = 0x10;
const IOZONE_PAGE: usize = 4096;
const IOZONE_STAMP_LEN: usize = 8;
/// The window the default (random) data's writes cycle through: 1 MiB,
/// IOzone's assumed CPU cache. Large enough that no compressor's block
/// (at most 1 MiB in ZFS and btrfs) sees a repeat, small enough that the
/// source of every write stays in a CPU's L2 cache, as IOzone's single
/// buffer does. Blocks stay unique in files larger than the window through
/// their stamps (data::stamp).
pub const WRITE_WINDOW_BYTES: u64 = MIB;
/// `-m`: the work area the buffer slides through (IOzone's 16 MiB).
pub const MULTI_BUFFER_BYTES: u64 = 16 * MIB;

/// The stride of [`touch`]: a cache line on every CPU ioz runs on.
const CACHE_LINE: usize = 64;

/// A zeroed, page-aligned heap buffer, every page of it resident from the
/// start: its first touch (a page fault, which on a VM whose balloon
/// reports free pages also costs the host a mapping) is never the timed
/// loop's.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the buffer owns its memory exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared references only read it, like a &Vec<u8>.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    pub fn zeroed(len: usize) -> AlignedBuf {
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size (at least one page).
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        // A zeroed allocation may be a fresh mapping nobody has touched
        // (calloc skips clearing those): one store per page maps them all
        // now. Volatile, so that it is not folded into the allocation.
        for page in (0..layout.size()).step_by(BUFFER_ALIGN) {
            // SAFETY: page < layout.size(): inside the allocation.
            unsafe { ptr.as_ptr().add(page).write_volatile(0) };
        }
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

/// A buffer kept from cell to cell of a run, so that its pages are mapped
/// and touched once, not once per cell: made as large as the largest cell
/// needs, it holds no more than that cell would; a cell that needs more
/// than it holds replaces it (the old one freed first).
#[derive(Default)]
pub struct KeptBuf {
    buf: Option<AlignedBuf>,
}

impl KeptBuf {
    /// A buffer of `len` bytes to keep.
    pub fn new(len: usize) -> KeptBuf {
        KeptBuf {
            buf: Some(AlignedBuf::zeroed(len)),
        }
    }

    /// The first `len` bytes of the kept buffer (their content is what the
    /// last user left), made larger when it is too small.
    pub fn take(&mut self, len: usize) -> &mut [u8] {
        if self.buf.as_ref().is_none_or(|b| b.len() < len) {
            self.buf = None;
            self.buf = Some(AlignedBuf::zeroed(len));
        }
        let buf = self.buf.as_mut().expect("made above");
        &mut buf[..len]
    }
}

/// Brings `buf` into the CPU's caches and TLB before the clock, as IOzone
/// touches its buffer before each pass: one read and write back of a byte
/// per cache line (the content stays as it is). Without it, a buffer last
/// used cells ago costs the first pass that uses it a cache miss per line
/// inside the timed region: a read pass of 4 MiB records ran at two thirds
/// of its reread (reference loop in benches/parity.rs).
pub fn touch(buf: &mut [u8]) {
    let base = buf.as_mut_ptr();
    for at in (0..buf.len()).step_by(CACHE_LINE) {
        // SAFETY: at < buf.len(); volatile, so that the compiler keeps
        // accesses whose only purpose is their effect on the caches.
        unsafe {
            let byte = base.add(at);
            byte.write_volatile(byte.read_volatile());
        }
    }
}

/// `-m`: the work area for a cell: [`MULTI_BUFFER_BYTES`] rounded down to a
/// whole number of records, or one largest operation when that is bigger.
pub fn multi_buffer_bytes(cell: &Cell) -> usize {
    let records = MULTI_BUFFER_BYTES / cell.record_bytes.max(1);
    ((records * cell.record_bytes) as usize).max(largest_op(cell))
}

/// Bytes the writes' sources cycle through (the pool slots operations take,
/// pattern::build_ops), for a pass keeping `in_flight` writes in flight:
/// - with `-m` (`multi_buffer`), the work area writes slide through;
/// - IOzone's data: one record, IOzone's single buffer, every write from it;
/// - random data: [`WRITE_WINDOW_BYTES`] in whole records (the file's bytes
///   when it is smaller, one record when a record is larger), and at least
///   one slot more than the writes in flight, so that a write's stamps never
///   land in one that has not completed.
pub fn write_window_bytes(
    cell: &Cell,
    data: DataPattern,
    multi_buffer: bool,
    in_flight: usize,
) -> usize {
    if multi_buffer {
        return multi_buffer_bytes(cell);
    }
    let rec = cell.record_bytes.max(1);
    let slots = match data {
        DataPattern::Iozone => 1,
        DataPattern::Random => {
            let window = (cell.pass_bytes().min(WRITE_WINDOW_BYTES) / rec).max(1);
            if in_flight > 1 {
                window.max(in_flight as u64 + 1)
            } else {
                window
            }
        }
    };
    (slots * rec) as usize
}

/// Size of the write pool for a cell: its write window
/// ([`write_window_bytes`]), and room for the largest operation (a vectored
/// call takes up to 16 records from one slot).
pub fn pool_bytes(cell: &Cell, data: DataPattern, multi_buffer: bool, in_flight: usize) -> usize {
    write_window_bytes(cell, data, multi_buffer, in_flight).max(largest_op(cell))
}

/// Size of the read buffer for a cell: `slots` slots (one per operation an
/// engine keeps in flight), each room for the largest operation and for a
/// page-long `-K` probe; with `-m` the work area reads slide through (the
/// queued engines, which need slots, are refused with -m).
pub fn read_buf_bytes(cell: &Cell, slots: usize, multi_buffer: bool) -> usize {
    if multi_buffer {
        return multi_buffer_bytes(cell);
    }
    largest_op(cell).max(PROBE_PAGE as usize) * slots.max(1)
}

/// Fills a buffer with the data pattern (before any clock starts).
pub fn fill(buf: &mut [u8], data: DataPattern, seed: u64) {
    match data {
        DataPattern::Random => Mt64::new(seed).fill_bytes(buf),
        DataPattern::Iozone => fill_iozone(buf, IOZONE_PATTERN_BYTE),
    }
}

/// IOzone's buffer with the pattern byte `byte`: the first 8 bytes of each
/// 4 KiB page of `buf` are `byte`, the rest zero.
pub fn fill_iozone(buf: &mut [u8], byte: u8) {
    buf.fill(0);
    for page in buf.chunks_mut(IOZONE_PAGE) {
        let n = page.len().min(IOZONE_STAMP_LEN);
        page[..n].fill(byte);
    }
}

/// Whether `buf` starts each 4 KiB page with 8 bytes of `byte` (the bytes
/// of IOzone's light check; the others are not looked at).
pub fn iozone_stamps_match(buf: &[u8], byte: u8) -> bool {
    buf.chunks(IOZONE_PAGE).all(|page| {
        let n = page.len().min(IOZONE_STAMP_LEN);
        page[..n].iter().all(|&b| b == byte)
    })
}

/// Whether the byte at `at` of a record is one IOzone's light check looks at.
pub fn is_iozone_stamp(at: usize) -> bool {
    at % IOZONE_PAGE < IOZONE_STAMP_LEN
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
    fn a_kept_buffer_is_replaced_only_by_a_larger_need() {
        let mut kept = KeptBuf::new(64 << 10);
        let first = kept.take(16 << 10).as_ptr();
        kept.take(16 << 10)[5] = 9;
        let again = kept.take(64 << 10);
        assert_eq!(
            (again.as_ptr(), again.len(), again[5]),
            (first, 64 << 10, 9)
        );
        let larger = kept.take(128 << 10);
        assert_eq!(larger.len(), 128 << 10);
        assert_eq!(larger.as_ptr() as usize % BUFFER_ALIGN, 0);
        assert!(larger.iter().all(|&b| b == 0), "a new buffer is zeroed");
    }

    #[test]
    fn touching_keeps_the_content() {
        let mut b = vec![0u8; 10_000];
        fill(&mut b, DataPattern::Random, 3);
        let before = b.clone();
        touch(&mut b);
        assert_eq!(b, before);
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
        assert_eq!(pool_bytes(&small, DataPattern::Random, false, 1), 64 << 10);
        assert_eq!(pool_bytes(&small, DataPattern::Iozone, false, 1), 64 << 10); // one preadv call
        assert_eq!(
            write_window_bytes(&small, DataPattern::Iozone, false, 1),
            4 << 10
        );
        let big = Cell {
            file_bytes: 256 << 20,
            record_bytes: 4 << 10,
        };
        assert_eq!(pool_bytes(&big, DataPattern::Random, false, 1), 1 << 20);
        assert_eq!(pool_bytes(&big, DataPattern::Iozone, false, 1), 64 << 10);
        let mib_records = Cell {
            file_bytes: 64 << 20,
            record_bytes: 1 << 20,
        };
        // Every write from one record-sized slot; the pool holds a vectored call.
        assert_eq!(
            write_window_bytes(&mib_records, DataPattern::Random, false, 1),
            1 << 20
        );
        assert_eq!(
            pool_bytes(&mib_records, DataPattern::Random, false, 1),
            16 << 20
        );
        // Writes in flight: one slot each, and one more.
        assert_eq!(
            write_window_bytes(&mib_records, DataPattern::Random, false, 4),
            5 << 20
        );
        assert_eq!(
            write_window_bytes(&big, DataPattern::Random, false, 32),
            1 << 20
        );
        assert_eq!(
            write_window_bytes(&mib_records, DataPattern::Iozone, false, 4),
            1 << 20
        );
        let huge_records = Cell {
            file_bytes: 64 << 20,
            record_bytes: 16 << 20,
        };
        assert_eq!(
            pool_bytes(&huge_records, DataPattern::Random, false, 1),
            16 << 20
        );
    }

    #[test]
    fn multi_buffer_area_is_whole_records_or_one_operation() {
        let cell = |record_bytes| Cell {
            file_bytes: 64 << 20,
            record_bytes,
        };
        for data in [DataPattern::Iozone, DataPattern::Random] {
            assert_eq!(pool_bytes(&cell(4 << 10), data, true, 1), 16 << 20);
        }
        // 16 MiB is not a multiple of 3 KiB: rounded down to 5461 records.
        assert_eq!(multi_buffer_bytes(&cell(3 << 10)), 5461 * (3 << 10));
        // Records larger than the area: one buffer.
        assert_eq!(multi_buffer_bytes(&cell(32 << 20)), 32 << 20);
        assert_eq!(read_buf_bytes(&cell(4 << 10), 1, true), 16 << 20);
        // Without -m: one slot per operation in flight, each room for a page probe.
        assert_eq!(read_buf_bytes(&cell(4 << 10), 4, false), 4 * (64 << 10));
        let one_small_record = Cell {
            file_bytes: 1 << 10,
            record_bytes: 1 << 10,
        };
        assert_eq!(read_buf_bytes(&one_small_record, 2, false), 2 * 4096);
    }
}
