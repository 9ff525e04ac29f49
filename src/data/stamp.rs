//! The default data's stamps: every 4 KiB block of the file carries its own
//! number in its first 8 bytes, written into the pool just before the write
//! that sends it.
//!
//! Why: the default data must not let a compressing or deduplicating file
//! system inflate the result, and the source of every write must stay in
//! the CPU cache as IOzone's single buffer does. The write pool is a small
//! window of random bytes (buffer::WRITE_WINDOW_BYTES, cycled by the
//! operations' pool slots), so a file larger than the window would repeat
//! it; the stamp makes every 4 KiB block of the file differ from every other
//! block of it (a bijection of the block number), and the random bytes
//! around it keep the data incompressible as before.
//!
//! Where: inside the timed loop (the [`DataCheck`] of a writing pass), which
//! is where IOzone's `-+d` builds its records too. It costs one multiply and
//! one 8-byte store per 4 KiB of data, into a cache line the write is about
//! to read anyway: under 1 % of a cached 4 KiB write (see the note in
//! benches/overhead.rs for the measurement).
//!
//! Blocks are the file's (offsets multiple of 4096), whatever the record
//! size: a record smaller than a block stamps the block only if it holds
//! the block's first bytes, which one record of every pass over the file
//! does. Operations in flight (io_uring, AIO) never share pool slots
//! (buffer::write_window_bytes gives each its own), so a stamp never lands
//! in a write that has not completed.

use std::io;

use crate::data::check::DataCheck;
use crate::data::pattern::IoOp;

/// The file's unit for compressors and dedup engines, as dedup.rs's chunk.
pub const BLOCK_BYTES: u64 = 4096;
/// Bytes of the stamp at the start of each block.
pub const STAMP_BYTES: u64 = 8;
/// Odd, so multiplying by it is a bijection of u64 (the golden ratio's
/// 64-bit constant, which spreads the block numbers' bits).
const SPREAD: u64 = 0x9e37_79b9_7f4a_7c15;

/// The stamp of file block `block` in a pass tagged `tag`: distinct blocks
/// get distinct stamps for any tag.
#[inline(always)]
pub fn stamp_word(block: u64, tag: u64) -> u64 {
    block.wrapping_mul(SPREAD) ^ tag
}

/// The tag of the stamps of pass number `pass` (any number naming the pass).
pub fn pass_tag(pass: u64) -> u64 {
    (pass + 1).wrapping_mul(0xd1b5_4a32_d192_ed03)
}

/// Stamps `data`, which will be written at file offset `offset`: the bytes
/// of each block's first [`STAMP_BYTES`] that fall inside it.
#[inline(never)]
pub fn stamp_blocks(data: &mut [u8], offset: u64, tag: u64) {
    if (offset | data.len() as u64).is_multiple_of(BLOCK_BYTES) {
        // Whole blocks (records of 4 KiB multiples): one store per block.
        let blocks = offset / BLOCK_BYTES..;
        for (block, chunk) in blocks.zip(data.chunks_exact_mut(BLOCK_BYTES as usize)) {
            chunk[..STAMP_BYTES as usize].copy_from_slice(&stamp_word(block, tag).to_le_bytes());
        }
    } else {
        stamp_unaligned(data, offset, tag);
    }
}

/// [`stamp_blocks`] for data that does not start or end on a block boundary.
#[cold]
#[inline(never)]
fn stamp_unaligned(data: &mut [u8], offset: u64, tag: u64) {
    let end = offset + data.len() as u64;
    let mut block = offset / BLOCK_BYTES;
    let mut start = block * BLOCK_BYTES;
    if start < offset {
        // The operation starts inside a block: only the rest of its stamp,
        // if any, is ours.
        if offset - start < STAMP_BYTES {
            stamp_part(data, offset, end, start, block, tag);
        }
        block += 1;
        start += BLOCK_BYTES;
    }
    while start + STAMP_BYTES <= end {
        let at = (start - offset) as usize;
        data[at..at + STAMP_BYTES as usize].copy_from_slice(&stamp_word(block, tag).to_le_bytes());
        block += 1;
        start += BLOCK_BYTES;
    }
    if start < end {
        stamp_part(data, offset, end, start, block, tag);
    }
}

/// The part of block `block`'s stamp (at file offset `start`) that lies in
/// `offset..end`, the bytes `data` holds.
fn stamp_part(data: &mut [u8], offset: u64, end: u64, start: u64, block: u64, tag: u64) {
    let word = stamp_word(block, tag).to_le_bytes();
    let from = start.max(offset);
    let to = (start + STAMP_BYTES).min(end);
    for at in from..to {
        data[(at - offset) as usize] = word[(at - start) as usize];
    }
}

/// The [`DataCheck`] of the default data's writing passes: each write sends
/// its pool slot, stamped (see the module). Reads are not checked.
pub struct Stamped {
    tag: u64,
    /// The slot, file offset and length the last write stamped: the same
    /// write again (record rewrite sends one record from one slot over and
    /// over) finds its stamps already in place and touches nothing. At
    /// 1 MiB records that saved the ~6 % the 256 stamps cost each rewrite,
    /// into a slot the kernel's copy had just pushed out of the L2.
    last: Option<(usize, u64, usize)>,
}

impl Stamped {
    /// `tag` sets the stamps apart from another pass's (a rewrite then
    /// differs from the write it overwrites).
    pub fn new(tag: u64) -> Stamped {
        Stamped { tag, last: None }
    }
}

impl DataCheck for Stamped {
    #[inline(always)]
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8] {
        let data = &mut pool[op.source..op.source + op.len];
        // Only writes change the pool, and only here: a slot stamped for
        // this very write is still stamped for it.
        let this = Some((op.source, op.offset, op.len));
        if self.last != this {
            stamp_blocks(data, op.offset, self.tag);
            self.last = this;
        }
        data
    }

    #[inline(always)]
    fn check_read(&mut self, _op: &IoOp, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::pattern::OpKind;

    /// The file a list of writes leaves, written from `Stamped` over a
    /// pool of `pool` bytes of one repeated byte (so only stamps differ).
    fn written(ops: &[IoOp], pool: usize, file: usize) -> Vec<u8> {
        let mut pool = vec![0xa5u8; pool];
        let mut check = Stamped::new(7);
        let mut out = vec![0u8; file];
        for op in ops {
            let data = check.write_data(op, &mut pool);
            out[op.offset as usize..op.offset as usize + op.len].copy_from_slice(data);
        }
        out
    }

    fn distinct_blocks(file: &[u8]) -> bool {
        let mut seen = std::collections::HashSet::new();
        file.chunks(BLOCK_BYTES as usize).all(|b| seen.insert(b))
    }

    fn sequential(rec: usize, records: usize, slots: usize) -> Vec<IoOp> {
        (0..records)
            .map(|i| IoOp {
                source: (i % slots) * rec,
                ..IoOp::at((i * rec) as u64, rec, OpKind::Write)
            })
            .collect()
    }

    #[test]
    fn every_block_of_the_file_differs_whatever_the_record_size() {
        // One slot reused for every record, the worst case for repeats.
        for rec in [4096, 65536, 1 << 20, 1024, 3000, 7, 8192 + 5] {
            let file = 4 << 20;
            let ops = sequential(rec, file / rec, 1);
            let out = written(&ops, rec, ops.len() * rec);
            assert!(distinct_blocks(&out), "record {rec}");
        }
    }

    #[test]
    fn the_stamp_sits_at_each_block_start() {
        let ops = sequential(8192, 2, 1);
        let out = written(&ops, 8192, 16384);
        for block in 0..4u64 {
            let at = (block * BLOCK_BYTES) as usize;
            assert_eq!(out[at..at + 8], stamp_word(block, 7).to_le_bytes());
            assert!(out[at + 8..at + 4096].iter().all(|&b| b == 0xa5));
        }
    }

    #[test]
    fn a_stamp_split_between_two_records_is_whole_in_the_file() {
        // 3-byte records: each block's 8-byte stamp spans three writes.
        let ops = sequential(3, 3 * 4096, 5);
        let out = written(&ops, 15, 3 * 4096 * 3);
        for block in 0..8u64 {
            let at = (block * BLOCK_BYTES) as usize;
            assert_eq!(out[at..at + 8], stamp_word(block, 7).to_le_bytes());
        }
    }

    #[test]
    fn stamps_differ_between_blocks_and_between_tags() {
        let words: std::collections::HashSet<u64> =
            (0..100_000).map(|b| stamp_word(b, 3)).collect();
        assert_eq!(words.len(), 100_000);
        assert_ne!(stamp_word(5, 1), stamp_word(5, 2));
    }

    #[test]
    fn the_same_write_again_finds_its_stamps_in_place_and_another_restamps() {
        let rec = 2 * BLOCK_BYTES as usize;
        let at = |offset: u64| IoOp {
            source: 0,
            ..IoOp::at(offset, rec, OpKind::Write)
        };
        let (a, b) = (at(0), at(rec as u64));
        let stamp = |data: &[u8], block: u64| {
            let at = ((block % 2) * BLOCK_BYTES) as usize;
            data[at..at + STAMP_BYTES as usize] == stamp_word(block, 7).to_le_bytes()
        };
        let mut pool = vec![0xa5u8; rec];
        let mut check = Stamped::new(7);
        let data = check.write_data(&a, &mut pool);
        assert!(stamp(data, 0) && stamp(data, 1));
        // Record rewrite: the same slot, offset and length touch nothing
        // (a scribble in the slot would go out as it is).
        pool[BLOCK_BYTES as usize] = 0;
        let data = check.write_data(&a, &mut pool);
        assert_eq!(data[BLOCK_BYTES as usize], 0);
        // Another record from the slot is stamped for its own blocks, and
        // the first one again for its blocks once more.
        let data = check.write_data(&b, &mut pool);
        assert!(stamp(data, 2) && stamp(data, 3));
        let data = check.write_data(&a, &mut pool);
        assert!(stamp(data, 0) && stamp(data, 1));
    }
}
