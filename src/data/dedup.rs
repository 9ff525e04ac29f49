//! Dedup data (`-+w`, `-+y`, `-+C`, `-+S`, `-+W`): what writes send when a
//! run measures storage that deduplicates.
//!
//! IOzone's options say how much of the data should deduplicate, not how the
//! data is made; this is ioz's own model.
//!
//! * Dedup engines work on blocks, so the unit is a 4 KiB chunk of the file:
//!   chunk `g` is the file's bytes `4096·g … 4096·g + 4095` (the last chunk of
//!   a file may be shorter). Every chunk belongs to one of four classes:
//!   - **unique** (100 − W %): unlike every other chunk anywhere; its content
//!     depends on the seed, the worker (plus `-+W` skew) and the chunk;
//!   - **everywhere** (`-+y` Y %): the same in every record of every file; its
//!     content depends only on the seed and the chunk's slot in its record
//!     (so the Y chunks of one record differ from each other);
//!   - **across files** (`-+C` C %): the same at the same position in every
//!     worker's file, unique within a file (seed and chunk, not worker);
//!   - **within a file** (the rest of `-+w` W %, W − Y − C): the same in every
//!     record of one worker's file (seed, worker, slot), different between
//!     workers.
//!
//!   W defaults to Y + C; the CLI refuses Y + C > W.
//! * Where the classes sit: chunk `g` is dedupable when it is one of W in
//!   every 100 chunks, spread evenly (Bresenham: `⌊(g+1)·W/100⌋ > ⌊g·W/100⌋`);
//!   the dedupable chunks are split the same way into Y, then C, then the
//!   rest. Every stretch of chunks, so every record, gets its share rounded
//!   down or up, and when a record's shares are whole numbers of chunks
//!   (64 KiB records and multiples of 6.25 %) the classes sit at the same
//!   positions in every record. Spreading over the file rather than
//!   rounding per record keeps the shares right for 4 KiB records, where a
//!   record is one chunk and per-record rounding would make `-+w 30` mean 0 %.
//!   A record smaller than 4 KiB is part of a chunk: the dedup engine sees
//!   the chunk, whatever the record size.
//! * Content is random bytes from SplitMix64 keyed by the chunk's class and
//!   the fields above, so it does not compress, and `-+S` (the seed) changes
//!   all of it. `-+W` adds to the worker number, so runs with different skews
//!   do not share unique or within-file chunks (they do share the Y and C
//!   chunks, which are shared between files by definition).
//! * The whole file's content for a worker is built before any clock starts
//!   (an image as large as the file, in memory), and each write sends the
//!   image's bytes at its file offset, so rewrites, random writes and the mix
//!   write the same content at the same place. Reads are not checked.

use std::io;

use crate::data::check::DataCheck;
use crate::data::pattern::IoOp;
use crate::model::variations::DedupOptions;

/// The unit dedup engines compare (VDO, ZFS with 4K records, most arrays).
pub const CHUNK_BYTES: usize = 4096;

/// Mixed into each class's keys so that no two classes share content.
const TAG_UNIQUE: u64 = 0x756e_6971_7565_0001;
const TAG_EVERYWHERE: u64 = 0x6576_6572_7977_0002;
const TAG_ACROSS: u64 = 0x6163_726f_7373_0003;
const TAG_WITHIN: u64 = 0x7769_7468_696e_0004;
/// SplitMix64's increment.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The class of a chunk (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkClass {
    Unique,
    /// `-+y`: the same in every record of every file.
    Everywhere,
    /// `-+C`: the same at the same place in every worker's file.
    AcrossFiles,
    /// The rest of `-+w`: the same in every record of one worker's file.
    WithinFile,
}

/// The shares and keys of a run's dedup data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DedupModel {
    /// W: percent of chunks that are dedupable.
    dedupable: u64,
    /// Y: percent the same everywhere.
    everywhere: u64,
    /// C: percent the same across files.
    across: u64,
    seed: u64,
    skew: u64,
}

/// Whether item `i` is one of `k` picked in every `n`, spread evenly: exactly
/// ⌊i·k/n⌋ of the items before `i` are picked.
#[inline]
fn picked(i: u64, k: u64, n: u64) -> bool {
    n > 0 && (i + 1) * k / n > i * k / n
}

/// SplitMix64's finaliser: a cheap, well-mixed bijection on u64.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A key from a class tag and the fields its content depends on.
fn key(tag: u64, fields: &[u64]) -> u64 {
    fields.iter().fold(mix(tag.wrapping_add(GAMMA)), |k, &f| {
        mix(k ^ f.wrapping_add(GAMMA))
    })
}

/// Fills `chunk` with the SplitMix64 stream of `key` (a shorter chunk gets a
/// prefix of the same bytes).
fn fill_chunk(chunk: &mut [u8], key: u64) {
    let mut state = key;
    let mut words = chunk.chunks_exact_mut(8);
    for word in &mut words {
        state = state.wrapping_add(GAMMA);
        word.copy_from_slice(&mix(state).to_le_bytes());
    }
    let tail = words.into_remainder();
    if !tail.is_empty() {
        state = state.wrapping_add(GAMMA);
        let n = tail.len();
        tail.copy_from_slice(&mix(state).to_le_bytes()[..n]);
    }
}

impl DedupModel {
    /// The model of `options`; None when no dedup option is given.
    pub fn new(options: &DedupOptions) -> Option<DedupModel> {
        if !options.any() {
            return None;
        }
        Some(DedupModel {
            dedupable: options.dedupable_percent() as u64,
            everywhere: options.interior_percent.unwrap_or(0) as u64,
            across: options.within_percent.unwrap_or(0) as u64,
            seed: options.effective_seed() as u64,
            skew: options.worker_skew.unwrap_or(0) as u64,
        })
    }

    /// The class of file chunk `g`.
    pub fn class(&self, g: u64) -> ChunkClass {
        let (w, y) = (self.dedupable, self.everywhere);
        if !picked(g, w, 100) {
            return ChunkClass::Unique;
        }
        // Index of this chunk among the dedupable ones.
        let d = g * w / 100;
        if picked(d, y, w) {
            return ChunkClass::Everywhere;
        }
        // Index among the dedupable chunks that are not Y.
        let e = d - d * y / w;
        if picked(e, self.across, w - y) {
            ChunkClass::AcrossFiles
        } else {
            ChunkClass::WithinFile
        }
    }

    /// The key of chunk `g` of `worker`'s file, whose records hold
    /// `per_record` chunks.
    fn chunk_key(&self, g: u64, per_record: u64, worker: u32) -> u64 {
        let worker = worker as u64 + self.skew;
        let slot = g % per_record;
        match self.class(g) {
            ChunkClass::Unique => key(TAG_UNIQUE, &[self.seed, worker, g]),
            ChunkClass::Everywhere => key(TAG_EVERYWHERE, &[self.seed, slot]),
            ChunkClass::AcrossFiles => key(TAG_ACROSS, &[self.seed, g]),
            ChunkClass::WithinFile => key(TAG_WITHIN, &[self.seed, worker, slot]),
        }
    }

    /// Fills `image` with the first `image.len()` bytes of `worker`'s file
    /// written in records of `record_bytes`.
    pub fn fill_file(&self, image: &mut [u8], record_bytes: u64, worker: u32) {
        let per_record = (record_bytes / CHUNK_BYTES as u64).max(1);
        for (g, chunk) in image.chunks_mut(CHUNK_BYTES).enumerate() {
            fill_chunk(chunk, self.chunk_key(g as u64, per_record, worker));
        }
    }
}

/// The [`DataCheck`] of dedup runs: the write pool is the file's image, and
/// each write sends the image's bytes at its own offset. Reads are not checked.
pub struct ImageWrites;

impl DataCheck for ImageWrites {
    #[inline(always)]
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8] {
        let start = op.offset as usize;
        &pool[start..start + op.len]
    }

    #[inline(always)]
    fn check_read(&mut self, _op: &IoOp, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn model(w: Option<u32>, y: Option<u32>, c: Option<u32>) -> DedupModel {
        DedupModel::new(&DedupOptions {
            percent: w,
            interior_percent: y,
            within_percent: c,
            seed: None,
            worker_skew: None,
        })
        .unwrap()
    }

    fn count(m: &DedupModel, chunks: std::ops::Range<u64>) -> HashMap<ChunkClass, u64> {
        let mut n = HashMap::new();
        for g in chunks {
            *n.entry(m.class(g)).or_default() += 1;
        }
        n
    }

    fn image(m: &DedupModel, bytes: usize, record: u64, worker: u32) -> Vec<u8> {
        let mut v = vec![0; bytes];
        m.fill_file(&mut v, record, worker);
        v
    }

    #[test]
    fn every_record_gets_its_share_of_each_class() {
        let m = model(Some(50), Some(25), Some(12));
        // 64 KiB records: 16 chunks each; W 8, Y 4, C 2 (12 % of 16 = 1.92), rest 2.
        for r in 0..64 {
            let n = count(&m, r * 16..r * 16 + 16);
            assert_eq!(n[&ChunkClass::Unique], 8, "record {r}");
            assert_eq!(n[&ChunkClass::Everywhere], 4, "record {r}");
            let c = n[&ChunkClass::AcrossFiles];
            assert!((1..=3).contains(&c), "record {r}: {c} C chunks");
            assert_eq!(n[&ChunkClass::WithinFile], 4 - c, "record {r}");
        }
        // Over the file the shares are exact to a chunk.
        let n = count(&m, 0..10_000);
        assert_eq!(n[&ChunkClass::Unique], 5000);
        assert_eq!(n[&ChunkClass::Everywhere], 2500);
        assert_eq!(n[&ChunkClass::AcrossFiles], 1200);
        assert_eq!(n[&ChunkClass::WithinFile], 1300);
    }

    #[test]
    fn one_chunk_records_keep_the_shares_over_the_file() {
        // 4 KiB records: -+w 30 must not round to 0 % per record.
        let m = model(Some(30), None, None);
        let n = count(&m, 0..1000);
        assert_eq!(n[&ChunkClass::WithinFile], 300);
        assert_eq!(n[&ChunkClass::Unique], 700);
        // Spread: never more than one dedupable chunk in a row at 30 %.
        let classes: Vec<_> = (0..1000).map(|g| m.class(g)).collect();
        assert!(
            classes
                .windows(2)
                .all(|p| p[0] == ChunkClass::Unique || p[1] == ChunkClass::Unique)
        );
    }

    #[test]
    fn the_extremes_are_all_or_nothing() {
        let none = model(Some(0), None, None);
        assert!((0..500).all(|g| none.class(g) == ChunkClass::Unique));
        let all = model(Some(100), Some(100), None);
        assert!((0..500).all(|g| all.class(g) == ChunkClass::Everywhere));
        // W defaults to Y + C.
        let yc = model(None, Some(20), Some(30));
        let n = count(&yc, 0..100);
        assert_eq!(n[&ChunkClass::Unique], 50);
        assert_eq!(n.get(&ChunkClass::WithinFile), None);
    }

    #[test]
    fn content_follows_the_classes() {
        let m = model(Some(75), Some(25), Some(25));
        let rec = 16 * CHUNK_BYTES;
        let a = image(&m, 8 * rec, rec as u64, 0);
        let b = image(&m, 8 * rec, rec as u64, 1);
        let chunk = |img: &[u8], g: usize| img[g * CHUNK_BYTES..(g + 1) * CHUNK_BYTES].to_vec();
        // Deterministic.
        assert_eq!(a, image(&m, 8 * rec, rec as u64, 0));
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        for g in 0..8 * 16 {
            let (ca, cb) = (chunk(&a, g), chunk(&b, g));
            match m.class(g as u64) {
                ChunkClass::Unique => {
                    assert_ne!(ca, cb);
                    assert!(seen.insert(ca.clone()), "unique chunk {g} repeats");
                }
                ChunkClass::Everywhere => {
                    assert_eq!(ca, cb);
                    assert_eq!(ca, chunk(&a, g % 16), "chunk {g} = slot {}", g % 16);
                }
                ChunkClass::AcrossFiles => {
                    assert_eq!(ca, cb);
                    assert!(seen.insert(ca.clone()), "C chunk {g} repeats in the file");
                }
                ChunkClass::WithinFile => {
                    assert_ne!(ca, cb);
                    assert_eq!(ca, chunk(&a, g % 16));
                    assert_eq!(cb, chunk(&b, g % 16));
                }
            }
        }
        // 8 records × (4 unique + 4 C) + 4 Y + 4 within-file distinct chunks.
        let distinct: HashSet<_> = a.chunks(CHUNK_BYTES).collect();
        assert_eq!(distinct.len(), 8 * 8 + 4 + 4);
    }

    #[test]
    fn seed_and_skew_change_the_content() {
        let opts = DedupOptions {
            percent: Some(60),
            interior_percent: Some(20),
            within_percent: Some(20),
            seed: None,
            worker_skew: None,
        };
        let rec = 4 * CHUNK_BYTES as u64;
        let base = image(&DedupModel::new(&opts).unwrap(), 64 * 4096, rec, 0);
        let seeded = DedupModel::new(&DedupOptions {
            seed: Some(7),
            ..opts
        })
        .unwrap();
        let other = image(&seeded, 64 * 4096, rec, 0);
        let shared = base
            .chunks(CHUNK_BYTES)
            .filter(|c| other.chunks(CHUNK_BYTES).any(|o| o == *c))
            .count();
        assert_eq!(shared, 0, "another seed shares no chunk");
        // Seed 1 is the default (-+S 0 is parsed as 1).
        let one = DedupModel::new(&DedupOptions {
            seed: Some(1),
            ..opts
        })
        .unwrap();
        assert_eq!(image(&one, 64 * 4096, rec, 0), base);
        // Skew 3: worker 0 writes what worker 3 writes without skew.
        let skewed = DedupModel::new(&DedupOptions {
            worker_skew: Some(3),
            ..opts
        })
        .unwrap();
        let base3 = image(&DedupModel::new(&opts).unwrap(), 64 * 4096, rec, 3);
        assert_eq!(image(&skewed, 64 * 4096, rec, 0), base3);
        let skewed0 = image(&skewed, 64 * 4096, rec, 0);
        for (g, (x, y)) in base
            .chunks(CHUNK_BYTES)
            .zip(skewed0.chunks(CHUNK_BYTES))
            .enumerate()
        {
            let shared_class = matches!(
                DedupModel::new(&opts).unwrap().class(g as u64),
                ChunkClass::Everywhere | ChunkClass::AcrossFiles
            );
            assert_eq!(x == y, shared_class, "chunk {g}");
        }
    }

    #[test]
    fn partial_chunks_are_prefixes_and_data_is_not_constant() {
        let m = model(Some(0), None, None);
        let full = image(&m, 2 * CHUNK_BYTES, 1024, 0);
        let short = image(&m, CHUNK_BYTES + 1000, 1024, 0);
        assert_eq!(&full[..short.len()], &short[..]);
        let zeros = full.iter().filter(|&&b| b == 0).count();
        assert!(zeros < 100, "{zeros} zero bytes in 8 KiB");
    }

    #[test]
    fn writes_take_the_image_at_their_offset() {
        let mut pool: Vec<u8> = (0..=255).cycle().take(8192).collect();
        let want = pool[4106..4126].to_vec();
        let op = IoOp::at(4096 + 10, 20, crate::data::pattern::OpKind::Write);
        assert_eq!(ImageWrites.write_data(&op, &mut pool), &want[..]);
    }
}
