//! Offset sequences, computed before the clock starts.
//!
//! A pass is a list of [`IoOp`]s: where each operation lands in the file, how
//! many bytes it moves, which way, which slice of the write pool it sends (or
//! where in the read buffer it lands), and any `-K` probe reads before it.

use crate::model::config::MAX_RECORD_BYTES;
// The tests and benchmarks outside the crate name it here, beside the
// other patterns.
pub use crate::model::order::random_permutation;
use crate::model::order::{Order, mix_reads, random_order};
use crate::model::plan::Cell;
use crate::model::workload::{Direction, Pass, PatternKind};

/// `-K`: probe reads go before every record whose index in the pass is a
/// multiple of this.
pub const DISRUPT_EVERY: usize = 100;
/// `-K`: the probe reads' offsets, in order: the start of the file, then one
/// page in (IOzone's page size).
pub const PROBE_OFFSETS: [u64; 2] = [0, PROBE_PAGE];
/// IOzone's page size: the second probe's offset, and the length of a probe
/// with `-I` (an O_DIRECT read must be aligned).
pub const PROBE_PAGE: u64 = 4096;

/// Records per `preadv`/`pwritev` call, as IOzone: at most 16 and at most 16 MiB.
const MAX_VECTORS: u64 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
}

/// One timed operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoOp {
    /// Byte offset in the file.
    pub offset: u64,
    /// Bytes to move (a whole number of records).
    pub len: usize,
    pub kind: OpKind,
    /// Where the bytes sit in memory: for a write, where in the write pool it
    /// takes its data; for a read, where in the read buffer it lands (0 but
    /// with `-m`). Engines with reads in flight use their own read slots.
    pub source: usize,
    /// `-K` reads to do just before this operation (usually none).
    pub probes: Probes,
    /// Telemetry (-X/-Y): busy-wait this long before the operation, on top
    /// of -J, and subtracted from the time like it. It sits in the struct's
    /// padding, so operations stay 32 bytes; 0 outside telemetry runs.
    pub delay_ms: u32,
}

impl IoOp {
    /// An operation of `len` bytes at `offset`, from the start of the buffer,
    /// with no probes and no delay: what engines and tests build by hand.
    pub const fn at(offset: u64, len: usize, kind: OpKind) -> IoOp {
        IoOp {
            offset,
            len,
            kind,
            source: 0,
            probes: Probes::NONE,
            delay_ms: 0,
        }
    }
}

/// `-K` ("disrupted read patterns"): reads done just before an operation, to
/// move the file position away and back as IOzone does: `count` reads of
/// `len` bytes, at the first `count` of [`PROBE_OFFSETS`]. They are part of
/// the timed access pattern but move no counted bytes and are not verified.
///
/// Packed in 16 bits (count in the top 2, length in the low 14) so that, with
/// the telemetry delay, an [`IoOp`] still fits in 32 bytes.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Probes(u16);

const PROBE_LEN_BITS: u32 = 14;
const PROBE_LEN_MASK: u16 = (1 << PROBE_LEN_BITS) - 1;

impl Probes {
    pub const NONE: Probes = Probes(0);

    /// `count` (0 to 2) reads of `len` (at most [`PROBE_PAGE`]) bytes.
    pub const fn new(count: u8, len: u16) -> Probes {
        assert!(count as usize <= PROBE_OFFSETS.len() && len as u64 <= PROBE_PAGE);
        Probes(((count as u16) << PROBE_LEN_BITS) | len)
    }

    #[inline(always)]
    pub fn any(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub fn count(self) -> usize {
        (self.0 >> PROBE_LEN_BITS) as usize
    }

    /// Bytes of each probe read.
    #[inline]
    pub fn bytes_each(self) -> usize {
        (self.0 & PROBE_LEN_MASK) as usize
    }

    /// (offset, length) of each probe read, in order.
    #[inline]
    pub fn reads(self) -> impl Iterator<Item = (u64, usize)> {
        let len = self.bytes_each();
        PROBE_OFFSETS[..self.count()]
            .iter()
            .map(move |&offset| (offset, len))
    }

    /// The probes before a disturbed record of a pass over `pass_bytes`:
    /// reads of `len` bytes (1, or [`PROBE_PAGE`] with -I) at offset 0, and at
    /// offset [`PROBE_PAGE`] when the file reaches that far. A file shorter
    /// than one probe is probed over its whole length at offset 0.
    pub fn for_file(len: usize, pass_bytes: u64) -> Probes {
        let len = (len as u64).min(pass_bytes).min(PROBE_PAGE);
        if len == 0 {
            return Probes::NONE;
        }
        let count = if PROBE_PAGE + len <= pass_bytes { 2 } else { 1 };
        Probes::new(count, len as u16)
    }
}

impl std::fmt::Debug for Probes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probes")
            .field("count", &self.count())
            .field("len", &self.bytes_each())
            .finish()
    }
}

/// `-K`: which passes get probe reads, and how long each probe is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisruptReads {
    /// 1 byte, or a page with -I (O_DIRECT needs aligned reads).
    pub probe_len: usize,
    /// Throughput mode disturbs more readers than single and auto mode.
    pub throughput: bool,
}

impl DisruptReads {
    /// Whether IOzone disturbs `pass`: test 1's read and reread, and in
    /// throughput mode also the backward, stride and pread readers. Random
    /// reads, the mix and the stdio and vectored readers are left alone.
    pub fn applies_to(&self, pass: Pass) -> bool {
        use Pass::*;
        match pass {
            Read | Reread => true,
            BackwardRead | StrideRead | Pread | Repread => self.throughput,
            _ => false,
        }
    }
}

/// Records 0, 1, …, n−1.
pub fn sequential(n: u64) -> Vec<u64> {
    (0..n).collect()
}

/// Records n−1, …, 0.
pub fn backward(n: u64) -> Vec<u64> {
    (0..n).rev().collect()
}

/// Every `stride`-th record, then the same again shifted by one record, and so on:
/// 0, s, 2s, …, 1, 1+s, …. Every record is read exactly once (IOzone's stride
/// pattern re-reads some records and skips others).
pub fn strided(n: u64, stride: u64) -> Vec<u64> {
    let stride = stride.max(1);
    let mut out = Vec::with_capacity(n as usize);
    for phase in 0..stride.min(n) {
        out.extend((phase..n).step_by(stride as usize));
    }
    out
}

/// Records per vectored call for this record size.
pub fn vectors_per_call(records: u64, record_bytes: u64) -> u64 {
    MAX_VECTORS
        .min(records)
        .min(MAX_RECORD_BYTES / record_bytes)
        .max(1)
}

/// Runs of `run` consecutive records covering 0..n (the last may be shorter),
/// visited in IOzone's random order: (first record, record count).
pub fn random_runs(n: u64, run: u64) -> Vec<(u64, u64)> {
    let order = random_order(n.div_ceil(run));
    runs_in(&order, n, run).collect()
}

fn runs_in(order: &Order, n: u64, run: u64) -> impl ExactSizeIterator<Item = (u64, u64)> + '_ {
    order.iter().map(move |r| {
        let first = r * run;
        (first, run.min(n - first))
    })
}

/// Bytes a pass of `n` records needs beside its operations while they are
/// built (the random order, the mix's choice of reads); none for the
/// passes that visit records in a fixed order.
/// `sequential_mix` is `-+B` (the mix visits records in order).
pub fn build_bytes_per_record(
    pattern: PatternKind,
    mixed: bool,
    sequential_mix: bool,
    n: u64,
) -> u64 {
    let order = match pattern {
        PatternKind::RandomMix if sequential_mix => 0,
        PatternKind::Random | PatternKind::RandomMix | PatternKind::RandomRuns => {
            Order::bytes_per_record(n)
        }
        _ => 0,
    };
    // The mix's choice: its own order, then a flag an operation.
    let choice = if mixed {
        Order::bytes_per_record(n) + 1
    } else {
        0
    };
    order + choice
}

/// Options that shape a pass's operations.
#[derive(Clone, Copy, Debug)]
pub struct PatternOptions {
    pub stride: u64,
    pub mix_read_percent: u32,
    /// `-+B`: the mix visits records in order instead of at random.
    pub sequential_mix: bool,
    /// Bytes the writes' sources cycle through, from the start of the write
    /// pool (buffer::write_window_bytes): a multiple of the record size;
    /// one record when every write comes from one buffer. With
    /// `multi_buffer` the work area, which reads slide through too.
    pub window_bytes: usize,
    /// `-K`: probe reads before every [`DISRUPT_EVERY`]th record of the passes it applies to.
    pub disrupt: Option<DisruptReads>,
    /// `-m`: reads, like writes, slide through the buffer by one operation
    /// each and wrap; otherwise every read lands at the start of the buffer.
    pub multi_buffer: bool,
    /// Writes stay in flight (io_uring, AIO): successive writes take
    /// successive slots, so that no two in flight share one. Otherwise a
    /// write's slot follows its record, so whichever order a pass takes
    /// records in, the same record comes from the same slot (record rewrite
    /// writes every time from one).
    pub queued_writes: bool,
}

/// Bytes of the largest single operation of any pass on this cell.
pub fn largest_op(cell: &Cell) -> usize {
    (vectors_per_call(cell.records(), cell.record_bytes) * cell.record_bytes) as usize
}

/// The operations of one pass over one cell, in order. The list is built
/// straight from the order the pass visits records in, with its exact
/// length reserved up front: the only memory besides it is the random order
/// of the passes that have one ([`build_bytes_per_record`]).
pub fn build_ops(pass: Pass, cell: &Cell, opts: &PatternOptions) -> Vec<IoOp> {
    let n = cell.records();
    let rec = cell.record_bytes;
    let layout = Layout {
        rec,
        slots: (opts.window_bytes as u64 / rec.max(1)).max(1),
        probes: match opts.disrupt {
            Some(d) if d.applies_to(pass) => Probes::for_file(d.probe_len, cell.pass_bytes()),
            _ => Probes::NONE,
        },
        multi_buffer: opts.multi_buffer,
        queued_writes: opts.queued_writes,
        direction: pass.direction(),
        mix_read_percent: opts.mix_read_percent,
    };
    let single = |r: u64| (r, 1);
    let every = n as usize;
    match pass.pattern() {
        PatternKind::Sequential => layout.ops(every, (0..n).map(single)),
        PatternKind::Backward => layout.ops(every, (0..n).rev().map(single)),
        PatternKind::Strided => {
            // strided(n, stride), without keeping the record numbers: every
            // record once.
            let stride = opts.stride.max(1);
            let phases = (0..stride.min(n)).flat_map(|phase| (phase..n).step_by(stride as usize));
            layout.ops(every, phases.map(single))
        }
        PatternKind::RandomMix if opts.sequential_mix => layout.ops(every, (0..n).map(single)),
        PatternKind::Random | PatternKind::RandomMix => {
            layout.ops(every, random_order(n).iter().map(single))
        }
        PatternKind::FirstRecord => layout.ops(every, (0..n).map(|_| (0, 1))),
        PatternKind::RandomRuns => {
            let run = vectors_per_call(n, rec);
            let order = random_order(n.div_ceil(run));
            layout.ops(order.len(), runs_in(&order, n, run))
        }
    }
}

/// What turns a pass's (first record, record count) runs into operations.
struct Layout {
    rec: u64,
    /// Slots of one record in the write window.
    slots: u64,
    probes: Probes,
    multi_buffer: bool,
    queued_writes: bool,
    direction: Direction,
    mix_read_percent: u32,
}

impl Layout {
    /// The operations of `count` runs.
    fn ops(&self, count: usize, runs: impl Iterator<Item = (u64, u64)>) -> Vec<IoOp> {
        let reads = match self.direction {
            Direction::Mixed => Some(mix_reads(count as u64, self.mix_read_percent)),
            _ => None,
        };
        let mut ops = Vec::with_capacity(count);
        for (i, (first, records)) in runs.take(count).enumerate() {
            let read = match &reads {
                Some(reads) => reads[i],
                None => self.direction == Direction::Read,
            };
            ops.push(self.op(i, first, records, read));
        }
        ops
    }

    #[inline]
    fn op(&self, i: usize, first: u64, count: u64, read: bool) -> IoOp {
        let rec = self.rec;
        // Neighbouring records take neighbouring slots of the window, so
        // they differ and the data does not compress (one slot: every write
        // from one buffer). A write's slot follows its record; with -m, and
        // for writes kept in flight, its place in the pass (-m slides the
        // buffer per operation, reads too). An operation of several records
        // (a vectored call) starts where all of them fit in the pool.
        let usable = self.slots.saturating_sub(count) + 1;
        let source = if self.multi_buffer || (!read && self.queued_writes) {
            (i as u64 % usable) * rec
        } else if !read {
            (first % usable) * rec
        } else {
            0
        };
        IoOp {
            offset: first * rec,
            len: (count * rec) as usize,
            kind: if read { OpKind::Read } else { OpKind::Write },
            source: source as usize,
            probes: if i.is_multiple_of(DISRUPT_EVERY) {
                self.probes
            } else {
                Probes::NONE
            },
            delay_ms: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_stays_32_bytes() {
        assert_eq!(std::mem::size_of::<IoOp>(), 32);
    }

    /// How operations were built before the lists were made in one go:
    /// every record number collected, then the runs, then the reads.
    fn reference_ops(pass: Pass, cell: &Cell, opts: &PatternOptions) -> Vec<IoOp> {
        let n = cell.records();
        let rec = cell.record_bytes;
        let runs: Vec<(u64, u64)> = match pass.pattern() {
            PatternKind::Sequential => sequential(n).into_iter().map(|r| (r, 1)).collect(),
            PatternKind::Backward => backward(n).into_iter().map(|r| (r, 1)).collect(),
            PatternKind::Strided => strided(n, opts.stride)
                .into_iter()
                .map(|r| (r, 1))
                .collect(),
            PatternKind::RandomMix if opts.sequential_mix => {
                sequential(n).into_iter().map(|r| (r, 1)).collect()
            }
            PatternKind::Random | PatternKind::RandomMix => {
                random_permutation(n).into_iter().map(|r| (r, 1)).collect()
            }
            PatternKind::FirstRecord => (0..n).map(|_| (0, 1)).collect(),
            PatternKind::RandomRuns => random_runs(n, vectors_per_call(n, rec)),
        };
        let reads = match pass.direction() {
            Direction::Read => vec![true; runs.len()],
            Direction::Write => vec![false; runs.len()],
            Direction::Mixed => mix_reads(runs.len() as u64, opts.mix_read_percent),
        };
        let slots = (opts.window_bytes as u64 / rec).max(1);
        let probes = match opts.disrupt {
            Some(d) if d.applies_to(pass) => Probes::for_file(d.probe_len, cell.pass_bytes()),
            _ => Probes::NONE,
        };
        runs.iter()
            .zip(reads)
            .enumerate()
            .map(|(i, (&(first, count), read))| {
                let usable = slots.saturating_sub(count) + 1;
                let by_place = opts.multi_buffer || (!read && opts.queued_writes);
                IoOp {
                    offset: first * rec,
                    len: (count * rec) as usize,
                    kind: if read { OpKind::Read } else { OpKind::Write },
                    source: if by_place {
                        ((i as u64 % usable) * rec) as usize
                    } else if !read {
                        ((first % usable) * rec) as usize
                    } else {
                        0
                    },
                    probes: if i % DISRUPT_EVERY == 0 {
                        probes
                    } else {
                        Probes::NONE
                    },
                    delay_ms: 0,
                }
            })
            .collect()
    }

    #[test]
    fn every_pass_builds_the_operations_it_always_built() {
        // The timed loop walks these lists: building them in one go must
        // not change a single operation, nor leave room unused.
        let cells = [
            (64 << 10, 4 << 10),
            (250 * 4096, 4096),
            (1000, 7),
            (16 << 20, 1 << 20),
        ];
        let mut variants = vec![options(32 << 10), options(4096), disrupting(true, 4096)];
        variants.push(PatternOptions {
            multi_buffer: true,
            stride: 3,
            mix_read_percent: 30,
            ..options(5 * 4096)
        });
        variants.push(PatternOptions {
            queued_writes: true,
            ..options(8 * 4096)
        });
        variants.push(PatternOptions {
            sequential_mix: true,
            stride: 1,
            mix_read_percent: 100,
            ..disrupting(false, 1)
        });
        for (file_bytes, record_bytes) in cells {
            let cell = Cell {
                file_bytes,
                record_bytes,
            };
            for opts in &variants {
                let passes = crate::model::workload::TestId::ALL
                    .iter()
                    .flat_map(|t| t.passes().iter().copied());
                for pass in passes {
                    let built = build_ops(pass, &cell, opts);
                    assert_eq!(built, reference_ops(pass, &cell, opts), "{pass:?} {cell:?}");
                    assert_eq!(built.capacity(), built.len(), "{pass:?} {cell:?}");
                }
            }
        }
    }

    fn sorted(mut v: Vec<u64>) -> Vec<u64> {
        v.sort_unstable();
        v
    }

    #[test]
    fn stride_visits_every_record_once() {
        assert_eq!(strided(7, 3), vec![0, 3, 6, 1, 4, 2, 5]);
        for (n, s) in [(16, 3), (18, 17), (32, 17), (5, 100), (1, 17)] {
            assert_eq!(sorted(strided(n, s)), sequential(n), "n={n} s={s}");
        }
        assert_eq!(strided(4, 1), vec![0, 1, 2, 3]);
    }

    #[test]
    fn backward_and_sequential() {
        assert_eq!(backward(4), vec![3, 2, 1, 0]);
        assert_eq!(sequential(3), vec![0, 1, 2]);
    }

    #[test]
    fn vectored_runs_cover_the_file_once() {
        assert_eq!(vectors_per_call(256, 4096), 16);
        assert_eq!(vectors_per_call(3, 4096), 3);
        assert_eq!(vectors_per_call(64, 4 << 20), 4);
        let runs = random_runs(40, 16);
        assert_eq!(runs.len(), 3);
        let mut covered: Vec<u64> = runs.iter().flat_map(|&(f, c)| f..f + c).collect();
        covered.sort_unstable();
        assert_eq!(covered, sequential(40));
    }

    #[test]
    fn ops_carry_offsets_lengths_and_pool_slots() {
        let cell = Cell {
            file_bytes: 64 << 10,
            record_bytes: 4 << 10,
        };
        let opts = PatternOptions {
            stride: 17,
            mix_read_percent: 50,
            sequential_mix: false,
            window_bytes: 32 << 10,
            disrupt: None,
            multi_buffer: false,
            queued_writes: false,
        };
        let ops = build_ops(Pass::Write, &cell, &opts);
        assert_eq!(ops.len(), 16);
        assert!(ops.iter().all(|o| o.kind == OpKind::Write && o.len == 4096));
        assert_eq!(ops[3].offset, 3 * 4096);
        // 8 pool slots: the 9th write reuses slot 0.
        assert_eq!(ops[7].source, 7 * 4096);
        assert_eq!(ops[8].source, 0);
        let ops = build_ops(Pass::RecordRewrite, &cell, &opts);
        assert!(ops.iter().all(|o| o.offset == 0));
        let ops = build_ops(Pass::BackwardRead, &cell, &opts);
        assert_eq!(ops[0].offset, 15 * 4096);
        assert!(ops.iter().all(|o| o.kind == OpKind::Read));
        let ops = build_ops(Pass::Preadv, &cell, &opts);
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].len, 64 << 10);
        let ops = build_ops(Pass::RandomMix, &cell, &opts);
        assert_eq!(ops.iter().filter(|o| o.kind == OpKind::Read).count(), 8);
        assert_ne!(ops[1].offset, 4096, "the mix is random by default");
        let sequential_mix = PatternOptions {
            sequential_mix: true,
            ..opts
        };
        let ops = build_ops(Pass::RandomMix, &cell, &sequential_mix);
        let offsets: Vec<u64> = ops.iter().map(|o| o.offset / 4096).collect();
        assert_eq!(offsets, (0..16).collect::<Vec<_>>(), "-+B: in order");
        assert_eq!(ops.iter().filter(|o| o.kind == OpKind::Read).count(), 8);
    }

    #[test]
    fn a_write_s_slot_follows_its_record_unless_writes_stay_in_flight() {
        let cell = Cell {
            file_bytes: 64 << 10,
            record_bytes: 4 << 10,
        };
        let opts = options(32 << 10);
        // Record rewrite: record 0 every time, so one slot every time.
        let ops = build_ops(Pass::RecordRewrite, &cell, &opts);
        assert!(ops.iter().all(|o| o.source == 0));
        // Random write: each record from the slot a sequential write takes.
        for pass in [Pass::RandomWrite, Pass::Write, Pass::Pwrite] {
            for op in build_ops(pass, &cell, &opts) {
                assert_eq!(op.source as u64, (op.offset / 4096 % 8) * 4096, "{pass:?}");
            }
        }
        // Writes in flight: successive ones, successive slots.
        let queued = PatternOptions {
            queued_writes: true,
            ..opts
        };
        let ops = build_ops(Pass::RecordRewrite, &cell, &queued);
        let slots: Vec<usize> = ops.iter().map(|o| o.source / 4096).collect();
        assert_eq!(&slots[..10], &[0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
        let ops = build_ops(Pass::RandomWrite, &cell, &queued);
        for (i, op) in ops.iter().enumerate() {
            assert_eq!(op.source, (i % 8) * 4096);
        }
    }

    fn options(window_bytes: usize) -> PatternOptions {
        PatternOptions {
            stride: 17,
            mix_read_percent: 50,
            sequential_mix: false,
            window_bytes,
            disrupt: None,
            multi_buffer: false,
            queued_writes: false,
        }
    }

    fn disrupting(throughput: bool, probe_len: usize) -> PatternOptions {
        PatternOptions {
            disrupt: Some(DisruptReads {
                probe_len,
                throughput,
            }),
            ..options(4096)
        }
    }

    /// Indexes of the operations that carry probes.
    fn probed(ops: &[IoOp]) -> Vec<usize> {
        (0..ops.len()).filter(|&i| ops[i].probes.any()).collect()
    }

    const CELL_250: Cell = Cell {
        file_bytes: 250 * 4096,
        record_bytes: 4096,
    };

    #[test]
    fn disrupted_reads_probe_before_every_hundredth_record_of_test_1_only() {
        let opts = disrupting(false, 1);
        for pass in [Pass::Read, Pass::Reread] {
            let ops = build_ops(pass, &CELL_250, &opts);
            assert_eq!(ops.len(), 250, "probes are not operations of their own");
            assert_eq!(probed(&ops), vec![0, 100, 200], "{pass:?}");
            assert_eq!(
                ops[100].offset,
                100 * 4096,
                "the record itself is unchanged"
            );
            let probe = ops[200].probes;
            let reads: Vec<(u64, usize)> = probe.reads().collect();
            assert_eq!(reads, vec![(0, 1), (4096, 1)]);
            // The probes move no counted bytes: the pass is its records.
            let bytes: u64 = ops.iter().map(|o| o.len as u64).sum();
            assert_eq!(bytes, CELL_250.pass_bytes());
        }
        // Single and auto mode leave every other pass alone, writes above all.
        for pass in [
            Pass::Write,
            Pass::Rewrite,
            Pass::BackwardRead,
            Pass::StrideRead,
            Pass::RandomRead,
            Pass::Pread,
            Pass::Fread,
            Pass::RandomMix,
        ] {
            let ops = build_ops(pass, &CELL_250, &opts);
            assert!(probed(&ops).is_empty(), "{pass:?}");
        }
        // Without -K, nothing anywhere.
        let ops = build_ops(Pass::Read, &CELL_250, &options(4096));
        assert!(probed(&ops).is_empty());
    }

    #[test]
    fn throughput_mode_also_disrupts_backward_stride_and_pread_readers() {
        let opts = disrupting(true, 1);
        for pass in [
            Pass::Read,
            Pass::Reread,
            Pass::BackwardRead,
            Pass::StrideRead,
            Pass::Pread,
        ] {
            let ops = build_ops(pass, &CELL_250, &opts);
            assert_eq!(probed(&ops), vec![0, 100, 200], "{pass:?}");
        }
        // In the pass's own order: backward read probes before records 249, 149, 49.
        let ops = build_ops(Pass::BackwardRead, &CELL_250, &opts);
        let records: Vec<u64> = probed(&ops).iter().map(|&i| ops[i].offset / 4096).collect();
        assert_eq!(records, vec![249, 149, 49]);
        for pass in [Pass::Write, Pass::RandomRead, Pass::RandomMix, Pass::Fread] {
            assert!(
                probed(&build_ops(pass, &CELL_250, &opts)).is_empty(),
                "{pass:?}"
            );
        }
    }

    #[test]
    fn probes_fit_the_file_and_are_pages_with_o_direct() {
        let reads = |len, file| Probes::for_file(len, file).reads().collect::<Vec<_>>();
        assert_eq!(reads(1, 1 << 20), vec![(0, 1), (4096, 1)]);
        // A file of one page has no byte at 4096: offset 0 only.
        assert_eq!(reads(1, 4096), vec![(0, 1)]);
        assert_eq!(reads(1, 4097), vec![(0, 1), (4096, 1)]);
        // -I: page-long reads, the second only where a whole page lies at 4096.
        assert_eq!(reads(4096, 1 << 20), vec![(0, 4096), (4096, 4096)]);
        assert_eq!(reads(4096, 4096), vec![(0, 4096)]);
        assert_eq!(reads(4096, 2048), vec![(0, 2048)]);
        assert_eq!(Probes::for_file(1, 0), Probes::NONE);
        let small = Cell {
            file_bytes: 4096,
            record_bytes: 1024,
        };
        let ops = build_ops(Pass::Read, &small, &disrupting(false, 1));
        assert_eq!(ops[0].probes, Probes::new(1, 1));
    }

    #[test]
    fn multi_buffer_reads_slide_through_the_area_and_wrap() {
        let cell = Cell {
            file_bytes: 64 * 4096,
            record_bytes: 4096,
        };
        let area = 5 * 4096;
        let plain = build_ops(Pass::Read, &cell, &options(area));
        assert!(
            plain.iter().all(|o| o.source == 0),
            "reads land at 0 without -m"
        );
        let multi = PatternOptions {
            multi_buffer: true,
            ..options(area)
        };
        for pass in [
            Pass::Read,
            Pass::BackwardRead,
            Pass::RandomRead,
            Pass::Write,
        ] {
            let ops = build_ops(pass, &cell, &multi);
            for (i, op) in ops.iter().enumerate() {
                assert_eq!(op.source, (i * 4096) % area, "{pass:?} op {i}");
            }
        }
        // Records larger than the area: one buffer, always at 0.
        let big = Cell {
            file_bytes: 4 * (32 << 20),
            record_bytes: 32 << 20,
        };
        let ops = build_ops(
            Pass::Read,
            &big,
            &PatternOptions {
                multi_buffer: true,
                ..options(32 << 20)
            },
        );
        assert!(ops.iter().all(|o| o.source == 0));
    }
}
