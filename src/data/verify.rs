//! Data verification, `-V N`, `-+d`, `-+X` and `-+Z`: what writes send and
//! how the bytes a read returns are checked, as a [`DataCheck`] the timed
//! loop runs.
//!
//! * `-V N`: every byte written is N, and every byte read must be N. The write
//!   buffer is filled once, before the clock starts, so a write costs what it
//!   costs without `-V`.
//! * `-+d`: every byte written is [`diag_byte`] of its file offset, and every
//!   byte read must be too. The pattern is a function of the absolute offset:
//!   byte `j` of record `r` (record size `R`) is `diag_byte(r·R + j)`, which
//!   differs from record to record and from position to position within a
//!   record, so a record that lands in the wrong place, or a stale or zeroed
//!   one, is caught. Keying it on the offset rather than on `offset / R` keeps
//!   it the same whichever way the bytes are grouped: the vectored tests move
//!   up to 16 records per call, and a file kept with `-w` can be read back by
//!   a run with another record size. It is deterministic (no time seed, unlike
//!   IOzone's), so a kept file can be checked later.
//! * `-+X` (short-circuit mode) and `-+Z` (old data sets): IOzone's buffer
//!   with the pattern byte 0xbb or 0xa5, every record written from it (the
//!   first 8 bytes of each 4 KiB page of the record the byte, the rest
//!   zero), and IOzone's light check of reads: those 8 bytes of each page of
//!   each record, and no others. Their header lines do not warn that the
//!   measurements are invalid: the check costs a load per page.
//!
//! Where the work sits: inside the timed loop, as in IOzone. A read's bytes
//! are compared right after the read, and under `-+d` each write's buffer is
//! generated right before the write. That is why both modes print
//! "Performance measurements are invalid in this mode.": the rates include
//! the comparing (and, for `-+d` writes, the generating).
//!
//! Mismatches are counted across the whole pass: the loop goes on to the end
//! of the pass, then the pass fails with one line giving the absolute offset
//! of the first bad byte, the expected and found values, how many bytes of
//! that record differ, and the totals for the pass. The run then stops with
//! exit status 1 and removes its file (unless `-w`).
//!
//! Throughput mode: every worker checks every byte it reads (stonewalled
//! workers what they read before stopping), with its check made before the
//! barrier. Workers sharing a file (`-+V`, `-+L`) agree on the data, since
//! the pattern depends only on the offset. A worker that found a mismatch
//! fails at the end of its pass, which aborts the others (with or without
//! stonewalling); the run stops with that worker's line, exit status 1.
//!
//! Read tests read what the write test of the same run wrote. When a run
//! selects read tests without the write test (`-i 1` alone), ioz prepares the
//! file with its ordinary data, which is not the pattern, and the check
//! reports a mismatch at the first byte: select the write test too
//! (`-i 0 -i 1`), or read a file that an earlier run wrote under the same
//! `-V N` / `-+d` and kept with `-w`.

use std::fmt;
use std::io;

use crate::data::buffer::{AlignedBuf, fill_iozone, iozone_stamps_match, is_iozone_stamp};
use crate::data::check::DataCheck;
use crate::data::pattern::{IoOp, OpKind};
use crate::model::config::Sizes;
use crate::model::variations::Verify;
use crate::model::workload::{Pass, PatternKind};

/// Mixed into every `-+d` word, so that the pattern is not a simple counter.
const DIAG_SEED: u64 = 0x696f_7a2d_2b64_5f76;

/// SplitMix64's finaliser: a cheap, well-mixed bijection on u64.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The `-+d` word for the 8 bytes at file offset `8 × index`, stored little-endian.
#[inline]
pub fn diag_word(index: u64) -> u64 {
    mix(index ^ DIAG_SEED)
}

/// The `-+d` byte at file offset `offset`.
#[inline]
pub fn diag_byte(offset: u64) -> u8 {
    diag_word(offset / 8).to_le_bytes()[(offset % 8) as usize]
}

/// Bytes before the first 8-byte boundary of the file at or after `offset`.
fn head_len(offset: u64, len: usize) -> usize {
    (offset.wrapping_neg() % 8).min(len as u64) as usize
}

/// Fills `buf` with the `-+d` pattern of the file bytes it will be written to,
/// starting at `offset`.
pub fn fill_diagnostic(buf: &mut [u8], offset: u64) {
    let head = head_len(offset, buf.len());
    let (head_bytes, body) = buf.split_at_mut(head);
    for (i, b) in head_bytes.iter_mut().enumerate() {
        *b = diag_byte(offset + i as u64);
    }
    let first_word = (offset + head as u64) / 8;
    let mut words = body.chunks_exact_mut(8);
    let mut index = first_word;
    for word in &mut words {
        word.copy_from_slice(&diag_word(index).to_le_bytes());
        index += 1;
    }
    let tail = words.into_remainder();
    for (i, b) in tail.iter_mut().enumerate() {
        *b = diag_byte(index * 8 + i as u64);
    }
}

/// Whether every byte of `data` is `byte`.
fn all_equal(data: &[u8], byte: u8) -> bool {
    let splat = u64::from_ne_bytes([byte; 8]);
    let words = data.chunks_exact(8);
    let tail = words.remainder();
    let mut diff = 0;
    for word in words {
        diff |= u64::from_ne_bytes(word.try_into().expect("8-byte chunk")) ^ splat;
    }
    diff == 0 && tail.iter().all(|&b| b == byte)
}

/// Whether `data`, read from file offset `offset`, holds the `-+d` pattern.
fn diagnostic_matches(data: &[u8], offset: u64) -> bool {
    let head = head_len(offset, data.len());
    let (head_bytes, body) = data.split_at(head);
    if !head_bytes
        .iter()
        .enumerate()
        .all(|(i, &b)| b == diag_byte(offset + i as u64))
    {
        return false;
    }
    let mut index = (offset + head as u64) / 8;
    let words = body.chunks_exact(8);
    let tail = words.remainder();
    let mut diff = 0;
    for word in words {
        diff |= u64::from_le_bytes(word.try_into().expect("8-byte chunk")) ^ diag_word(index);
        index += 1;
    }
    diff == 0
        && tail
            .iter()
            .enumerate()
            .all(|(i, &b)| b == diag_byte(index * 8 + i as u64))
}

/// What the data must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `-V N`.
    Pattern(u8),
    /// `-+d`.
    Diagnostic,
    /// `-+X`, `-+Z`: IOzone's buffer with `byte`, written record by record;
    /// only the first 8 bytes of each 4 KiB page of a record are checked.
    Light { byte: u8, flag: &'static str },
}

impl Mode {
    /// The byte expected at file offset `offset`, `at` bytes into its
    /// record; None where the mode does not look.
    #[inline]
    fn expected(self, offset: u64, at: usize) -> Option<u8> {
        match self {
            Mode::Pattern(b) => Some(b),
            Mode::Diagnostic => Some(diag_byte(offset)),
            Mode::Light { byte, .. } => is_iozone_stamp(at).then_some(byte),
        }
    }

    /// Whether `data`, read from file offset `offset` in records of
    /// `unit` bytes, is what was written.
    fn matches(self, data: &[u8], offset: u64, unit: usize) -> bool {
        match self {
            Mode::Pattern(b) => all_equal(data, b),
            Mode::Diagnostic => diagnostic_matches(data, offset),
            Mode::Light { byte, .. } => data
                .chunks(unit)
                .all(|record| iozone_stamps_match(record, byte)),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mode::Pattern(b) => write!(f, "-V {b}"),
            Mode::Diagnostic => f.write_str("-+d"),
            Mode::Light { flag, .. } => f.write_str(flag),
        }
    }
}

/// The first bad byte of a pass, and the record (or, when the record size is
/// not known, the read) it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstBad {
    /// Absolute file offset of the byte.
    pub offset: u64,
    pub expected: u8,
    pub found: u8,
    /// Where the record (or read) holding it starts, and its length.
    pub unit_offset: u64,
    pub unit_len: u64,
    /// The record number, when the record size is known.
    pub record: Option<u64>,
    /// Bad bytes in that record (or read).
    pub bad_in_unit: u64,
}

/// Everything a pass's checks found wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatches {
    mode: Mode,
    pub first: FirstBad,
    /// Bad bytes in the whole pass.
    pub bad_bytes: u64,
    /// Records (or reads) with at least one bad byte.
    pub bad_units: u64,
}

impl Mismatches {
    /// As an I/O error whose message is the one-line report.
    pub fn to_io_error(&self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self.to_string())
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

impl fmt::Display for Mismatches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.first;
        let unit = if b.record.is_some() { "record" } else { "read" };
        write!(
            f,
            "data mismatch ({}): first bad byte at file offset {} ",
            self.mode, b.offset
        )?;
        match b.record {
            Some(r) => write!(f, "(record {r}, byte {})", b.offset - b.unit_offset)?,
            None => write!(
                f,
                "(byte {} of the {}-byte read at offset {})",
                b.offset - b.unit_offset,
                b.unit_len,
                b.unit_offset
            )?,
        }
        write!(
            f,
            ": expected {:#04x}, found {:#04x}; {} of the {} bytes of that {unit} {}; {} in {} in this pass",
            b.expected,
            b.found,
            b.bad_in_unit,
            b.unit_len,
            if b.bad_in_unit == 1 {
                "differs"
            } else {
                "differ"
            },
            plural(self.bad_bytes, "bad byte"),
            plural(self.bad_units, unit),
        )
    }
}

/// The [`DataCheck`] of `-V N` and `-+d`.
pub struct Verifier {
    mode: Mode,
    /// What writes send: the pattern byte throughout (`-V`), or a scratch
    /// buffer regenerated for each write (`-+d`).
    buf: AlignedBuf,
    /// Record size, to split multi-record reads and name records in reports.
    record_bytes: Option<usize>,
    /// `-m`: each write takes its data from where its operation's `source`
    /// says in `buf`, so the written-from memory slides through the work
    /// area as it does without verification.
    slide: bool,
    first: Option<FirstBad>,
    bad_bytes: u64,
    bad_units: u64,
}

impl Verifier {
    /// The check for `verify` (None for [`Verify::None`]), with room for
    /// writes of up to `write_bytes`; `record_bytes` as [`record_bytes_for`].
    pub fn new(verify: Verify, write_bytes: usize, record_bytes: Option<usize>) -> Option<Self> {
        let mode = match verify {
            Verify::None => return None,
            Verify::Pattern(b) => Mode::Pattern(b),
            Verify::Diagnostic => Mode::Diagnostic,
            Verify::ShortCircuit | Verify::OldDataSets => Mode::Light {
                byte: verify.light_pattern()?,
                flag: verify.flags(),
            },
        };
        let mut v = Verifier {
            mode,
            buf: AlignedBuf::zeroed(0),
            record_bytes: record_bytes.filter(|&r| r > 0),
            slide: false,
            first: None,
            bad_bytes: 0,
            bad_units: 0,
        };
        v.make_room(write_bytes);
        Some(v)
    }

    /// The check for a pass's operations (None for [`Verify::None`]), with
    /// its write buffer ready; `slide` is `-m` (writes take their data where
    /// their operation's `source` says), `record_bytes` as [`record_bytes_for`].
    pub fn for_ops(
        verify: Verify,
        slide: bool,
        record_bytes: Option<usize>,
        ops: &[IoOp],
    ) -> Option<Self> {
        if verify == Verify::None {
            return None;
        }
        let largest = ops
            .iter()
            .filter(|op| op.kind == OpKind::Write)
            .map(|op| if slide { op.source + op.len } else { op.len })
            .max()
            .unwrap_or(0);
        let mut v = Verifier::new(verify, largest, record_bytes)?;
        v.slide = slide;
        Some(v)
    }

    fn make_room(&mut self, len: usize) {
        if self.buf.len() >= len {
            return;
        }
        self.buf = AlignedBuf::zeroed(len);
        match self.mode {
            Mode::Pattern(b) => self.buf.fill(b),
            // Record by record, as IOzone writes every record from its buffer.
            Mode::Light { byte, .. } => {
                let unit = self.record_bytes.unwrap_or(len).max(1);
                for record in self.buf.chunks_mut(unit) {
                    fill_iozone(record, byte);
                }
            }
            Mode::Diagnostic => {}
        }
    }

    /// What the checks found so far; None when every byte matched.
    pub fn mismatches(&self) -> Option<Mismatches> {
        self.first.map(|first| Mismatches {
            mode: self.mode,
            first,
            bad_bytes: self.bad_bytes,
            bad_units: self.bad_units,
        })
    }

    /// Counts the bad bytes of a read that did not match, record by record.
    #[cold]
    #[inline(never)]
    fn tally(&mut self, op_offset: u64, data: &[u8]) {
        let unit = self.record_bytes.unwrap_or(data.len()).max(1);
        for (i, chunk) in data.chunks(unit).enumerate() {
            let unit_offset = op_offset + (i * unit) as u64;
            let mut bad = 0;
            let mut first = None;
            for (j, &found) in chunk.iter().enumerate() {
                let offset = unit_offset + j as u64;
                let Some(expected) = self.mode.expected(offset, j) else {
                    continue;
                };
                if found != expected {
                    bad += 1;
                    first.get_or_insert((offset, expected, found));
                }
            }
            let Some((offset, expected, found)) = first else {
                continue;
            };
            self.bad_bytes += bad;
            self.bad_units += 1;
            self.first.get_or_insert(FirstBad {
                offset,
                expected,
                found,
                unit_offset,
                unit_len: chunk.len() as u64,
                record: self.record_bytes.map(|r| unit_offset / r as u64),
                bad_in_unit: bad,
            });
        }
    }
}

impl DataCheck for Verifier {
    #[inline]
    fn write_data<'a>(&'a mut self, op: &IoOp, _pool: &'a mut [u8]) -> &'a [u8] {
        let start = if self.slide { op.source } else { 0 };
        self.make_room(start + op.len);
        let data = &mut self.buf[start..start + op.len];
        if self.mode == Mode::Diagnostic {
            fill_diagnostic(data, op.offset);
        }
        data
    }

    /// Never fails: mismatches are counted to the end of the pass and
    /// reported by [`Verifier::mismatches`].
    #[inline]
    fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()> {
        let unit = self.record_bytes.unwrap_or(data.len()).max(1);
        if !self.mode.matches(data, op.offset, unit) {
            self.tally(op.offset, data);
        }
        Ok(())
    }
}

/// The record size of a pass, if it can be known: every operation of most
/// passes is one record; the vectored passes move several per call, and then
/// the record size is the run's when it has only one.
pub fn record_bytes_for(pass: Pass, sizes: &Sizes, ops: &[IoOp]) -> Option<usize> {
    if pass.pattern() != PatternKind::RandomRuns {
        return ops.first().map(|op| op.len);
    }
    match sizes {
        Sizes::Single { record_bytes, .. } => Some(*record_bytes as usize),
        Sizes::Auto(auto) => match auto.record_sizes.values()[..] {
            [only] => Some(only as usize),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_op(offset: u64, len: usize) -> IoOp {
        IoOp::at(offset, len, OpKind::Read)
    }

    fn write_op(offset: u64, len: usize) -> IoOp {
        IoOp::at(offset, len, OpKind::Write)
    }

    /// What a -+d write at `offset` sends.
    fn diag(offset: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        fill_diagnostic(&mut v, offset);
        v
    }

    #[test]
    fn diagnostic_pattern_is_fixed() {
        // Files kept with -w are checked by later runs: the pattern must not change.
        assert_eq!(diag_word(0), mix(DIAG_SEED));
        assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
        assert_eq!(diag_byte(0), diag_word(0).to_le_bytes()[0]);
        assert_eq!(diag_byte(13), diag_word(1).to_le_bytes()[5]);
        assert_eq!(diag(0, 4096), diag(0, 4096));
    }

    #[test]
    fn diagnostic_fill_matches_bytes_at_any_alignment() {
        for offset in [0u64, 1, 7, 8, 9, 4093, 1 << 20] {
            for len in [0usize, 1, 3, 8, 15, 64, 1000] {
                let buf = diag(offset, len);
                let want: Vec<u8> = (0..len as u64).map(|i| diag_byte(offset + i)).collect();
                assert_eq!(buf, want, "offset {offset} len {len}");
                assert!(Mode::Diagnostic.matches(&buf, offset, buf.len()));
            }
        }
        // A vectored write of four records holds what four record writes hold.
        let whole = diag(8192, 4 * 4096);
        for r in 0..4 {
            assert_eq!(
                &whole[r * 4096..(r + 1) * 4096],
                &diag(8192 + r as u64 * 4096, 4096)[..]
            );
        }
    }

    #[test]
    fn diagnostic_records_and_positions_differ() {
        let a = diag(3 * 4096, 4096);
        let b = diag(5 * 4096, 4096);
        assert_ne!(a, b);
        // Not periodic within a record, and not constant.
        assert_ne!(&a[..2048], &a[2048..]);
        assert!(a.iter().any(|&x| x != a[0]));
        // Record 3's data where record 5 belongs is caught.
        let mut v = Verifier::new(Verify::Diagnostic, 0, Some(4096)).unwrap();
        v.check_read(&read_op(5 * 4096, 4096), &a).unwrap();
        let m = v.mismatches().expect("a misplaced record is a mismatch");
        assert_eq!(m.first.record, Some(5));
        assert!(m.first.bad_in_unit > 4000, "{m}");
        // Zeros (a hole, a lost write) are caught too.
        let mut v = Verifier::new(Verify::Diagnostic, 0, Some(4096)).unwrap();
        v.check_read(&read_op(0, 4096), &[0; 4096]).unwrap();
        assert!(v.mismatches().is_some());
    }

    #[test]
    fn pattern_writes_and_reads() {
        let mut v = Verifier::new(Verify::Pattern(165), 8192, Some(4096)).unwrap();
        let data = v.write_data(&write_op(4096, 4096), &mut []).to_vec();
        assert_eq!(data, vec![0xa5; 4096]);
        // A larger write than announced still gets the pattern.
        assert_eq!(
            v.write_data(&write_op(0, 16384), &mut []),
            &[0xa5; 16384][..]
        );
        v.check_read(&read_op(4096, 4096), &data).unwrap();
        v.check_read(&read_op(0, 13), &[0xa5; 13]).unwrap();
        assert_eq!(v.mismatches(), None);
        assert!(Verifier::new(Verify::None, 4096, None).is_none());
    }

    #[test]
    fn light_modes_write_iozone_records_and_check_their_stamps() {
        // 6 KiB records: every record starts its own pages.
        let rec = 6 << 10;
        let mut v = Verifier::new(Verify::OldDataSets, 2 * rec, Some(rec)).unwrap();
        let data = v.write_data(&write_op(0, 2 * rec), &mut []).to_vec();
        for (i, &b) in data.iter().enumerate() {
            let stamp = (i % rec) % 4096 < 8;
            assert_eq!(b, if stamp { 0xa5 } else { 0 }, "byte {i}");
        }
        v.check_read(&read_op(0, 2 * rec), &data).unwrap();
        // IOzone's light check looks at the stamps only.
        let mut unchecked = data.clone();
        unchecked[100] ^= 0xff;
        v.check_read(&read_op(0, 2 * rec), &unchecked).unwrap();
        assert_eq!(v.mismatches(), None);
        let mut stamp = data;
        stamp[rec + 4096 + 3] ^= 0xff;
        stamp[rec + 4096 + 9] ^= 0xff;
        v.check_read(&read_op(0, 2 * rec), &stamp).unwrap();
        let m = v.mismatches().expect("a stamp changed");
        assert_eq!(
            (m.first.offset, m.first.expected, m.first.found),
            (rec as u64 + 4099, 0xa5, 0x5a)
        );
        assert_eq!((m.first.record, m.first.bad_in_unit), (Some(1), 1));
        assert!(m.to_string().starts_with("data mismatch (-+Z): "), "{m}");
        let mut x = Verifier::new(Verify::ShortCircuit, 4096, Some(4096)).unwrap();
        assert_eq!(
            &x.write_data(&write_op(0, 4096), &mut [])[..9],
            &[0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0]
        );
    }

    #[test]
    fn diagnostic_writes_fill_per_operation() {
        let mut v = Verifier::new(Verify::Diagnostic, 4096, Some(4096)).unwrap();
        let w = v.write_data(&write_op(12288, 4096), &mut []).to_vec();
        assert_eq!(w, diag(12288, 4096));
        let w2 = v.write_data(&write_op(0, 4096), &mut []).to_vec();
        assert_eq!(w2, diag(0, 4096));
        v.check_read(&read_op(12288, 4096), &w).unwrap();
        v.check_read(&read_op(0, 4096), &w2).unwrap();
        assert_eq!(v.mismatches(), None);
    }

    #[test]
    fn pattern_mismatch_report() {
        let mut v = Verifier::new(Verify::Pattern(165), 0, Some(65536)).unwrap();
        let mut data = vec![0xa5; 65536];
        data[100] ^= 0xff;
        v.check_read(&read_op(65536, 65536), &data).unwrap();
        let m = v.mismatches().unwrap();
        assert_eq!(
            m.first,
            FirstBad {
                offset: 65636,
                expected: 0xa5,
                found: 0x5a,
                unit_offset: 65536,
                unit_len: 65536,
                record: Some(1),
                bad_in_unit: 1,
            }
        );
        assert_eq!(
            m.to_string(),
            "data mismatch (-V 165): first bad byte at file offset 65636 (record 1, byte 100): \
             expected 0xa5, found 0x5a; 1 of the 65536 bytes of that record differs; \
             1 bad byte in 1 record in this pass"
        );
        assert_eq!(m.to_io_error().kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn diagnostic_mismatches_are_counted_across_the_pass() {
        let mut v = Verifier::new(Verify::Diagnostic, 0, Some(4096)).unwrap();
        let good = diag(0, 4096);
        v.check_read(&read_op(0, 4096), &good).unwrap();
        let mut bad = diag(8192, 4096);
        for i in [10, 11, 4095] {
            bad[i] ^= 0x01;
        }
        v.check_read(&read_op(8192, 4096), &bad).unwrap();
        let mut bad2 = diag(4096, 4096);
        bad2[0] ^= 0x80;
        v.check_read(&read_op(4096, 4096), &bad2).unwrap();
        let m = v.mismatches().unwrap();
        // The first found (in read order), with its own record's count.
        assert_eq!(m.first.offset, 8192 + 10);
        assert_eq!(m.first.expected, diag_byte(8202));
        assert_eq!(m.first.found, diag_byte(8202) ^ 1);
        assert_eq!(m.first.record, Some(2));
        assert_eq!(m.first.bad_in_unit, 3);
        assert_eq!((m.bad_bytes, m.bad_units), (4, 2));
        let text = m.to_string();
        assert!(
            text.starts_with(
                "data mismatch (-+d): first bad byte at file offset 8202 (record 2, byte 10)"
            ),
            "{text}"
        );
        assert!(
            text.contains("3 of the 4096 bytes of that record differ;"),
            "{text}"
        );
        assert!(
            text.ends_with("4 bad bytes in 2 records in this pass"),
            "{text}"
        );
    }

    #[test]
    fn multi_record_reads_split_into_records() {
        // A vectored read of 4 records with two bad bytes in the third.
        let mut v = Verifier::new(Verify::Diagnostic, 0, Some(4096)).unwrap();
        let mut data = diag(16384, 4 * 4096);
        data[2 * 4096 + 7] ^= 0xff;
        data[2 * 4096 + 9] ^= 0xff;
        v.check_read(&read_op(16384, 4 * 4096), &data).unwrap();
        let m = v.mismatches().unwrap();
        assert_eq!(m.first.offset, 16384 + 2 * 4096 + 7);
        assert_eq!(m.first.record, Some(6));
        assert_eq!(m.first.unit_offset, 16384 + 2 * 4096);
        assert_eq!(m.first.bad_in_unit, 2);
        // Without a known record size, the read is the unit.
        let mut v = Verifier::new(Verify::Pattern(7), 0, None).unwrap();
        let mut data = vec![7; 3 * 4096];
        data[5000] = 9;
        v.check_read(&read_op(0, 3 * 4096), &data).unwrap();
        let m = v.mismatches().unwrap();
        assert_eq!(m.first.record, None);
        assert_eq!(
            m.to_string(),
            "data mismatch (-V 7): first bad byte at file offset 5000 (byte 5000 of the \
             12288-byte read at offset 0): expected 0x07, found 0x09; 1 of the 12288 bytes \
             of that read differs; 1 bad byte in 1 read in this pass"
        );
    }

    fn measured(pass: Pass, file: u64, rec: u64) -> crate::model::result::Measurement {
        crate::model::result::Measurement {
            pass,
            file_bytes: file,
            record_bytes: rec,
            workers: 1,
            bytes: file,
            records: file / rec,
            latency: None,
            elapsed_ns: 1_000_000,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
            usage: None,
            residency: None,
            run: 0,
            intervals: Vec::new(),
        }
    }

    #[test]
    fn note_counts_the_bytes_the_read_checks_saw() {
        use crate::cli::test_config;
        use crate::model::plan::Cell;
        use crate::model::result::{CellResult, RunStatus, sample_result};
        use crate::report::text::render_output as render_text;
        use crate::report::text::table::verify_note;
        let (file, rec) = (256 << 10, 64 << 10);
        let row = |passes: &[Pass]| CellResult {
            cell: Cell {
                file_bytes: file,
                record_bytes: rec,
            },
            measurements: passes.iter().map(|&p| measured(p, file, rec)).collect(),
        };
        let args = ["-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-i", "8"];
        let verified = |extra: &str| {
            let mut a = args.to_vec();
            a.extend(extra.split_whitespace());
            test_config(&a)
        };
        use Pass::*;
        let all = row(&[Write, Rewrite, Read, Reread, RandomMix]);
        // Two full read passes, and half of the mix's four records (-+p 50).
        let mut r = sample_result(verified("-V 165"), vec![all.clone()]);
        let note = "\n\tVerified 655360 bytes in 3 read passes; no mismatches.\n";
        assert_eq!(verify_note(&r), note);
        let text = render_text(&r);
        assert!(
            text.contains(&format!("{note}\nioz test complete.\n")),
            "{text}"
        );
        r.status = RunStatus::Failed("data mismatch".into());
        assert_eq!(
            verify_note(&r),
            "\n\tVerified 655360 bytes in 3 read passes before the run stopped.\n"
        );
        let r = sample_result(verified("-+d"), vec![row(&[Write, Read])]);
        assert_eq!(
            verify_note(&r),
            "\n\tVerified 262144 bytes in 1 read pass; no mismatches.\n"
        );
        let r = sample_result(verified("-+d"), vec![row(&[Write, Rewrite])]);
        assert!(verify_note(&r).contains("no read test ran"));
        // Without -V/-+d, nothing is added.
        let r = sample_result(verified(""), vec![all]);
        assert_eq!(verify_note(&r), "");
        assert!(!render_text(&r).contains("Verif"));
    }

    #[test]
    fn record_size_of_a_pass() {
        use crate::cli::test_config;
        let ops = [read_op(0, 8192), read_op(8192, 8192)];
        let single = test_config(&["-s", "64k", "-r", "8k"]);
        let auto = test_config(&["-a", "-n", "64k", "-g", "64k"]);
        assert_eq!(record_bytes_for(Pass::Read, &auto.sizes, &ops), Some(8192));
        // Vectored passes move several records per call.
        let whole = [read_op(0, 65536)];
        assert_eq!(
            record_bytes_for(Pass::Preadv, &single.sizes, &whole),
            Some(8192)
        );
        assert_eq!(record_bytes_for(Pass::Preadv, &auto.sizes, &whole), None);
        let one = test_config(&["-a", "-n", "64k", "-g", "256k", "-y", "16k", "-q", "16k"]);
        assert_eq!(
            record_bytes_for(Pass::Preadv, &one.sizes, &whole),
            Some(16384)
        );
    }
}
