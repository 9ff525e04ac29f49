//! IOzone's telemetry replay (`-X` for writes, `-Y` for reads): a text file
//! of recorded operations, `offset size [delay_ms]` per line, replayed in file
//! order by the write passes (test 0) and the read passes (test 1).
//!
//! The files are read and checked once, before any I/O ([`read_files`]);
//! their operations travel in a [`Replay`] beside the configuration, which
//! (like the JSON) keeps only a summary of each file
//! ([`crate::model::telemetry`]): that is all the reports need. The table
//! shows reclen 0, as IOzone's does. The passes' operations are made from
//! the replay and a few numbers of the run ([`ReplayOptions`]).
//!
//! A pass no telemetry file drives (test 0 with only `-Y`, test 1 with only
//! `-X`) moves the whole file sequentially in records of the run's record size
//! (`-r`, default 4 KiB), the last one short when the file is not a whole
//! number of records.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::data::buffer::{BUFFER_ALIGN, WRITE_WINDOW_BYTES};
use crate::data::pattern::{IoOp, OpKind, Probes};
use crate::model::config::{DataPattern, MAX_DELAY_SECONDS, MAX_FILE_BYTES, MAX_RECORD_BYTES};
use crate::model::telemetry::{Telemetry, Trace};
use crate::model::units::{MIB, Size};
use crate::model::workload::{Direction, Pass};

/// Largest file offset an operation may reach: the largest file `-s` takes.
const MAX_FILE_END: u64 = MAX_FILE_BYTES;
/// Longest delay a line may ask for, ms (as `-J`).
const MAX_DELAY_MS: u64 = MAX_DELAY_SECONDS * 1000;
/// Most bytes a telemetry file may hold: room for the most operations
/// below at over 60 bytes a line, comments included.
pub const MAX_TRACE_BYTES: u64 = 1 << 30;
/// Most operations a telemetry file may hold: 16 Mi, kept as 16 bytes each
/// for the run and as a 32-byte operation in the list of each pass that
/// replays them (768 MiB in all at the limit, which the memory check weighs).
pub const MAX_TRACE_OPS: usize = 1 << 24;
/// Longest line, comment included.
const MAX_LINE_BYTES: usize = 4096;

/// One line of a telemetry file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceOp {
    pub offset: u64,
    /// At most [`MAX_RECORD_BYTES`], never 0.
    pub len: u32,
    /// Busy-wait before the operation, subtracted from the time like `-J`.
    pub delay_ms: u32,
}

/// The operations of a run's telemetry files, in file order: what travels
/// beside the configuration (which keeps only their summary).
#[derive(Clone, Debug, Default)]
pub struct Replay {
    /// `-X`: replayed by the write and rewrite passes.
    pub write: Option<Arc<[TraceOp]>>,
    /// `-Y`: replayed by the read and reread passes.
    pub read: Option<Arc<[TraceOp]>>,
}

impl Replay {
    /// The operations a pass replays: -X's for writes, -Y's for reads.
    pub fn ops_for(&self, pass: Pass) -> Option<&[TraceOp]> {
        match pass.direction() {
            Direction::Write => self.write.as_deref(),
            Direction::Read => self.read.as_deref(),
            Direction::Mixed => None,
        }
    }
}

/// A telemetry file that cannot be replayed: one line naming the option
/// (`-X`, `-Y`), the file and, for a bad line, its number.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("{option} {}: cannot read it: {source}", path.display())]
    Unreadable {
        option: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "{option} {}: {kind}, not a regular file; ioz reads telemetry from regular files",
        path.display()
    )]
    NotRegular {
        option: &'static str,
        path: PathBuf,
        kind: &'static str,
    },
    #[error(
        "{option} {}: it holds {bytes} bytes, more than the {MAX_TRACE_BYTES} ({:.1}) a \
         telemetry file may hold",
        path.display(),
        Size(MAX_TRACE_BYTES)
    )]
    TooLarge {
        option: &'static str,
        path: PathBuf,
        bytes: u64,
    },
    #[error("{option} {}:{line}: {why}", path.display())]
    BadLine {
        option: &'static str,
        path: PathBuf,
        line: usize,
        why: LineError,
    },
    #[error(
        "{option} {}: no operations (every line is empty or a # comment)",
        path.display()
    )]
    Empty { option: &'static str, path: PathBuf },
    #[error(
        "{option} {}: operation {number} (offset {offset}, size {len}) is not aligned to \
         {BUFFER_ALIGN} bytes, which O_DIRECT (-I) needs",
        path.display()
    )]
    Misaligned {
        option: &'static str,
        path: PathBuf,
        /// The operation's number, from 1.
        number: usize,
        offset: u64,
        len: u32,
    },
}

/// What is wrong with a line of a telemetry file (or with the file, at that line).
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("cannot read it: {0}")]
    Unreadable(io::Error),
    #[error("the file goes on past {limit} bytes, the most a telemetry file may hold")]
    PastLimit { limit: u64 },
    #[error("the line is longer than {limit} bytes")]
    TooLong { limit: usize },
    #[error("not text")]
    NotText,
    #[error("more than {limit} operations, the most a telemetry file may hold")]
    TooManyOperations { limit: usize },
    #[error("expected `offset size [delay_ms]`, found {found} field(s) in `{line}`")]
    Fields { found: usize, line: String },
    #[error("{what} `{field}` is not a whole number of {unit}")]
    NotANumber {
        what: &'static str,
        field: String,
        unit: &'static str,
    },
    #[error("{what} `{field}` is too large")]
    NumberTooLarge { what: &'static str, field: String },
    #[error("size 0: an operation moves at least 1 byte")]
    ZeroSize,
    #[error(
        "size {size} bytes is larger than the {} MiB limit of one operation",
        MAX_RECORD_BYTES / MIB
    )]
    OperationTooLarge { size: u64 },
    #[error(
        "offset {offset} + size {size} is past {MAX_FILE_END} bytes (1 PiB), the largest file \
         ioz uses"
    )]
    PastFileEnd { offset: u64, size: u64 },
    #[error("delay {ms} ms is more than an hour ({MAX_DELAY_MS} ms), the longest delay")]
    DelayTooLong { ms: u64 },
}

/// Reads the telemetry files a run replays (`write` for `-X`, `read` for
/// `-Y`), before any I/O: their summary, which the configuration keeps
/// (the run's file size is the one it reaches), and their operations;
/// `None` when the run replays none. With `direct` (-I) every operation must
/// be aligned as O_DIRECT needs.
pub fn read_files(
    write: Option<&Path>,
    read: Option<&Path>,
    direct: bool,
) -> Result<Option<(Telemetry, Replay)>, TelemetryError> {
    if write.is_none() && read.is_none() {
        return Ok(None);
    }
    let write = write.map(|p| load("-X", p)).transpose()?;
    let read = read.map(|p| load("-Y", p)).transpose()?;
    let telemetry = Telemetry {
        write: write.as_ref().map(|(t, _)| t.clone()),
        read: read.as_ref().map(|(t, _)| t.clone()),
    };
    let replay = Replay {
        write: write.map(|(_, ops)| ops),
        read: read.map(|(_, ops)| ops),
    };
    if direct {
        check_direct_alignment(&telemetry, &replay)?;
    }
    Ok(Some((telemetry, replay)))
}

/// Reads and parses one file; `option` is `-X` or `-Y` for messages. Only
/// a regular file of at most [`MAX_TRACE_BYTES`] is read: a device or a
/// pipe (`/dev/zero`) would be read until memory ran out.
fn load(option: &'static str, path: &Path) -> Result<(Trace, Arc<[TraceOp]>), TelemetryError> {
    let cannot = |source| TelemetryError::Unreadable {
        option,
        path: path.to_path_buf(),
        source,
    };
    // O_NONBLOCK: opening a FIFO must not wait for a writer before it is
    // refused (the flag does nothing to a regular file's reads).
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if let Some(kind) = not_a_regular_file(&meta.file_type()) {
        return Err(TelemetryError::NotRegular {
            option,
            path: path.to_path_buf(),
            kind,
        });
    }
    if meta.len() > MAX_TRACE_BYTES {
        return Err(TelemetryError::TooLarge {
            option,
            path: path.to_path_buf(),
            bytes: meta.len(),
        });
    }
    // The limit again while reading: the file may grow meanwhile.
    let mut reader = BufReader::new(file.take(MAX_TRACE_BYTES + 1));
    let ops = parse_lines(&mut reader, &LIMITS).map_err(|(line, why)| TelemetryError::BadLine {
        option,
        path: path.to_path_buf(),
        line,
        why,
    })?;
    if ops.is_empty() {
        return Err(TelemetryError::Empty {
            option,
            path: path.to_path_buf(),
        });
    }
    Ok((summarize(path, &ops), ops.into()))
}

/// The summary of a file's operations.
fn summarize(path: &Path, ops: &[TraceOp]) -> Trace {
    let sum = |f: fn(&TraceOp) -> u64| ops.iter().map(f).sum::<u64>();
    let max = |f: fn(&TraceOp) -> u64| ops.iter().map(f).max().unwrap_or(0);
    Trace {
        path: path.to_path_buf(),
        ops: ops.len() as u64,
        // Each size is at most 16 MiB, so 2^40 operations could not overflow.
        bytes: sum(|o| o.len as u64),
        end: max(|o| o.offset + o.len as u64),
        largest_op: max(|o| o.len as u64),
        delay_ms: sum(|o| o.delay_ms as u64),
    }
}

/// `-I`: O_DIRECT needs every offset and size on a [`BUFFER_ALIGN`]
/// boundary; refuses the first operation that is not (before any I/O).
fn check_direct_alignment(telemetry: &Telemetry, replay: &Replay) -> Result<(), TelemetryError> {
    let align = BUFFER_ALIGN as u64;
    let files = [
        ("-X", telemetry.write.as_ref(), replay.write.as_deref()),
        ("-Y", telemetry.read.as_ref(), replay.read.as_deref()),
    ];
    for (opt, trace, ops) in files {
        let (Some(trace), Some(ops)) = (trace, ops) else {
            continue;
        };
        let bad = ops.iter().position(|op| {
            !op.offset.is_multiple_of(align) || !(op.len as u64).is_multiple_of(align)
        });
        if let Some(i) = bad {
            return Err(TelemetryError::Misaligned {
                option: opt,
                path: trace.path.clone(),
                number: i + 1,
                offset: ops[i].offset,
                len: ops[i].len,
            });
        }
    }
    Ok(())
}

/// What a file that is not a regular one is, for the refusal.
fn not_a_regular_file(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("a special file")
    }
}

/// Parses a telemetry file: one `offset size [delay_ms]` per line (decimal,
/// whitespace-separated); empty lines and `#` comments (whole lines, or after
/// the fields) are skipped. The error is (line number, what is wrong).
pub fn parse(text: &[u8]) -> Result<Vec<TraceOp>, (usize, LineError)> {
    parse_lines(&mut &text[..], &LIMITS)
}

/// How much of a telemetry file is read.
struct Limits {
    bytes: u64,
    ops: usize,
    line: usize,
}

const LIMITS: Limits = Limits {
    bytes: MAX_TRACE_BYTES,
    ops: MAX_TRACE_OPS,
    line: MAX_LINE_BYTES,
};

/// [`parse`], reading line by line within `limits`: no line longer, no more
/// operations, no more bytes in all.
fn parse_lines(
    reader: &mut impl BufRead,
    limits: &Limits,
) -> Result<Vec<TraceOp>, (usize, LineError)> {
    let mut ops = Vec::new();
    let mut raw = Vec::new();
    let mut total = 0u64;
    for number in 1.. {
        raw.clear();
        let read = reader
            .by_ref()
            .take(limits.line as u64 + 1)
            .read_until(b'\n', &mut raw)
            .map_err(|e| (number, LineError::Unreadable(e)))?;
        if read == 0 {
            break;
        }
        total += read as u64;
        if total > limits.bytes {
            return Err((
                number,
                LineError::PastLimit {
                    limit: limits.bytes,
                },
            ));
        }
        let text = raw.strip_suffix(b"\n").unwrap_or(&raw);
        if text.len() > limits.line {
            return Err((number, LineError::TooLong { limit: limits.line }));
        }
        let line = std::str::from_utf8(text).map_err(|_| (number, LineError::NotText))?;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if ops.len() == limits.ops {
            return Err((number, LineError::TooManyOperations { limit: limits.ops }));
        }
        ops.push(parse_line(line).map_err(|why| (number, why))?);
    }
    Ok(ops)
}

fn parse_line(line: &str) -> Result<TraceOp, LineError> {
    let fields: Vec<&str> = line.split_ascii_whitespace().collect();
    let (offset, size, delay) = match fields[..] {
        [offset, size] => (offset, size, None),
        [offset, size, delay] => (offset, size, Some(delay)),
        _ => {
            return Err(LineError::Fields {
                found: fields.len(),
                line: line.to_string(),
            });
        }
    };
    let offset = number(offset, "offset", "bytes")?;
    let size = number(size, "size", "bytes")?;
    if size == 0 {
        return Err(LineError::ZeroSize);
    }
    if size > MAX_RECORD_BYTES {
        return Err(LineError::OperationTooLarge { size });
    }
    match offset.checked_add(size) {
        Some(end) if end <= MAX_FILE_END => {}
        _ => return Err(LineError::PastFileEnd { offset, size }),
    }
    let delay_ms = match delay {
        Some(d) => {
            let ms = number(d, "delay", "milliseconds")?;
            if ms > MAX_DELAY_MS {
                return Err(LineError::DelayTooLong { ms });
            }
            ms as u32
        }
        None => 0,
    };
    Ok(TraceOp {
        offset,
        len: size as u32,
        delay_ms,
    })
}

fn number(field: &str, what: &'static str, unit: &'static str) -> Result<u64, LineError> {
    if !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LineError::NotANumber {
            what,
            field: field.to_string(),
            unit,
        });
    }
    field.parse().map_err(|_| LineError::NumberTooLarge {
        what,
        field: field.to_string(),
    })
}

/// What the passes of a telemetry run take from the run's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayOptions {
    /// The run's data: random data walks the write pool; IOzone's starts
    /// every write at the start of it (IOzone's one buffer).
    pub data: DataPattern,
    /// The record size of the passes no telemetry file drives, and of the fill.
    pub record_bytes: u64,
    /// `-I`: the fill before a read test starts on a page boundary.
    pub direct: bool,
}

impl ReplayOptions {
    /// The part of the pool writes walk: all of it, or none with IOzone's
    /// data (every write from the start of the pool).
    fn write_window(&self, pool_bytes: usize) -> usize {
        match self.data {
            DataPattern::Random => pool_bytes,
            DataPattern::Iozone => 0,
        }
    }
}

/// Bytes of the write pool of a telemetry run whose largest operation is
/// `largest_op` bytes on a file of `file_bytes`: that operation rounded up
/// to a page; with random data at least the window normal runs cycle
/// through, and with `in_flight` writes in flight (io_uring, AIO) room for
/// one more than them, so that a write's stamps (data::stamp) never land in
/// one that has not completed.
pub fn pool_bytes(
    largest_op: usize,
    data: DataPattern,
    file_bytes: u64,
    in_flight: usize,
) -> usize {
    let largest = (largest_op as u64).next_multiple_of(BUFFER_ALIGN as u64);
    let wanted = match data {
        DataPattern::Iozone => largest,
        DataPattern::Random => {
            let window = file_bytes
                .min(WRITE_WINDOW_BYTES)
                .next_multiple_of(BUFFER_ALIGN as u64);
            let in_flight = if in_flight > 1 {
                largest.saturating_mul(in_flight as u64 + 1)
            } else {
                0
            };
            window.max(in_flight)
        }
    };
    largest.max(wanted) as usize
}

/// Hands out write-pool slices: each write starts on the page after the
/// previous one's data (so neighbouring writes carry different data), back at
/// the pool's start when the next would not fit in the window (with a window
/// of 0 bytes, every write starts there). Page-aligned for O_DIRECT.
struct PoolCursor {
    pool_bytes: usize,
    next: usize,
}

impl PoolCursor {
    /// Where the operation's bytes sit: writes walk the pool; reads land at
    /// the start of the read buffer (`IoOp::source` is a read-buffer offset).
    fn source(&mut self, kind: OpKind, len: usize) -> usize {
        if kind == OpKind::Read {
            return 0;
        }
        if self.next + len > self.pool_bytes {
            self.next = 0;
        }
        let source = self.next;
        self.next += len.next_multiple_of(BUFFER_ALIGN);
        source
    }
}

/// The operations of `pass` in a telemetry run on a file of `file_bytes`,
/// in order: the replayed file's, or sequential records over the whole file.
pub fn build_ops(
    options: &ReplayOptions,
    replay: &Replay,
    file_bytes: u64,
    pass: Pass,
    pool_bytes: usize,
) -> Vec<IoOp> {
    let kind = match pass.direction() {
        Direction::Read => OpKind::Read,
        _ => OpKind::Write,
    };
    let window = options.write_window(pool_bytes);
    match replay.ops_for(pass) {
        Some(ops) => replay_ops(ops, kind, window),
        None => sequential_ops(0, file_bytes, options.record_bytes, kind, window),
    }
}

fn replay_ops(ops: &[TraceOp], kind: OpKind, pool_bytes: usize) -> Vec<IoOp> {
    let mut cursor = PoolCursor {
        pool_bytes,
        next: 0,
    };
    ops.iter()
        .map(|op| IoOp {
            offset: op.offset,
            len: op.len as usize,
            kind,
            source: cursor.source(kind, op.len as usize),
            probes: Probes::NONE,
            delay_ms: op.delay_ms,
        })
        .collect()
}

/// Records of `record` bytes from `from` to `end`, the last one short if need be.
pub fn sequential_ops(
    from: u64,
    end: u64,
    record: u64,
    kind: OpKind,
    pool_bytes: usize,
) -> Vec<IoOp> {
    let mut cursor = PoolCursor {
        pool_bytes,
        next: 0,
    };
    let record = record.max(1);
    (from..end)
        .step_by(record as usize)
        .map(|offset| {
            let len = record.min(end - offset) as usize;
            IoOp {
                offset,
                len,
                kind,
                source: cursor.source(kind, len),
                probes: Probes::NONE,
                delay_ms: 0,
            }
        })
        .collect()
}

/// Before a read test of a telemetry run, untimed: the operations that extend
/// a file of `len` bytes to `file_bytes` (none when it is long enough).
/// Only the missing tail is written, so what the write telemetry left in the
/// file stays as it was; with O_DIRECT the tail starts on a page boundary.
pub fn fill_ops(
    options: &ReplayOptions,
    file_bytes: u64,
    len: u64,
    pool_bytes: usize,
) -> Vec<IoOp> {
    let from = if options.direct {
        len - len % BUFFER_ALIGN as u64
    } else {
        len
    };
    sequential_ops(
        from,
        file_bytes,
        options.record_bytes,
        OpKind::Write,
        options.write_window(pool_bytes),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<(u64, u32, u32)> {
        parse(text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|o| (o.offset, o.len, o.delay_ms))
            .collect()
    }

    fn bad(text: &str) -> (usize, String) {
        let (line, why) = parse(text.as_bytes()).unwrap_err();
        (line, why.to_string())
    }

    #[test]
    fn comments_blank_lines_and_optional_delays() {
        let text = "# recorded on host a\n\n0 4096\n  8192\t512 30  \n\r\n# done\n100 1 # trailing note\r\n";
        assert_eq!(ok(text), vec![(0, 4096, 0), (8192, 512, 30), (100, 1, 0)]);
        assert!(ok("").is_empty());
        assert!(ok("#only\n\n   \n").is_empty());
        assert_eq!(ok("7 9"), vec![(7, 9, 0)], "no final newline");
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        assert_eq!(bad("0 4096\n\n12\n").0, 3);
        assert!(bad("12\n").1.contains("expected `offset size [delay_ms]`"));
        let (line, why) = bad("# c\n0 1 2 3\n");
        assert_eq!(line, 2);
        assert!(why.contains("4 field(s)"), "{why}");
        let (line, why) = bad("0 4096\n1 0\n");
        assert_eq!(line, 2);
        assert!(why.starts_with("size 0"), "{why}");
        assert!(bad("x 4096").1.contains("offset `x` is not a whole number"));
        assert!(bad("-5 4096").1.contains("offset `-5`"));
        assert!(bad("0 4k").1.contains("size `4k`"));
        assert!(bad("0 1 1.5").1.contains("delay `1.5`"));
        assert!(bad("0 1 4294967296").1.contains("more than an hour"));
        assert!(
            bad("0 1 3600001")
                .1
                .contains("more than an hour (3600000 ms)")
        );
        assert_eq!(ok("0 1 3600000")[0].2, 3_600_000);
        assert!(bad("99999999999999999999 1").1.contains("too large"));
        assert!(bad("0 16777217").1.contains("16 MiB limit"));
        assert_eq!(ok("0 16777216")[0].1, 16 << 20);
        let end = format!("{} 2", i64::MAX - 1);
        assert!(bad(&end).1.contains("the largest file ioz uses"));
        assert!(
            bad(&format!("{} 1", u64::MAX))
                .1
                .contains("the largest file ioz uses")
        );
        // 1 PiB: the largest -s.
        assert_eq!(ok(&format!("{} 1", (1u64 << 50) - 1))[0].0, (1 << 50) - 1);
        assert!(
            bad(&format!("{} 1", 1u64 << 50))
                .1
                .contains("past 1125899906842624 bytes (1 PiB)")
        );
        assert_eq!(bad("0 1\n\u{ff}\n").0, 2);
        let (line, why) = parse(b"0 1\n\xff\xfe 1\n").unwrap_err();
        assert_eq!((line, why.to_string().as_str()), (2, "not text"));
    }

    #[test]
    fn a_trace_sums_its_operations() {
        let t = summarize(
            Path::new("w"),
            &parse(b"100 50 2\n0 10\n4096 5000 3\n").unwrap(),
        );
        assert_eq!((t.ops, t.bytes, t.end), (3, 5060, 9096));
        assert_eq!((t.largest_op, t.delay_ms), (5000, 5));
        let both = Telemetry {
            write: Some(t.clone()),
            read: Some(summarize(Path::new("r"), &parse(b"20000 1\n").unwrap())),
        };
        assert_eq!(both.file_bytes(), 20001);
        assert_eq!(both.trace_for(Pass::Rewrite).unwrap().path, Path::new("w"));
        assert_eq!(both.trace_for(Pass::Reread).unwrap().path, Path::new("r"));
        assert!(both.trace_for(Pass::RandomMix).is_none());
    }

    #[test]
    fn o_direct_needs_page_aligned_operations() {
        let check = |text: &[u8]| {
            let ops = parse(text).unwrap();
            let telemetry = Telemetry {
                write: Some(summarize(Path::new("w"), &ops)),
                read: None,
            };
            let replay = Replay {
                write: Some(ops.into()),
                read: None,
            };
            check_direct_alignment(&telemetry, &replay)
        };
        assert!(check(b"0 4096\n8192 65536\n").is_ok());
        let e = check(b"0 4096\n8192 100\n").unwrap_err().to_string();
        assert!(
            e.starts_with("-X w: operation 2 (offset 8192, size 100)"),
            "{e}"
        );
        assert!(check(b"512 4096\n").is_err());
    }

    #[test]
    fn replayed_writes_take_distinct_page_aligned_pool_slices() {
        let trace = parse(b"0 5000 1\n9 4096\n100 12288\n").unwrap();
        let ops = replay_ops(&trace, OpKind::Write, 16384);
        let got: Vec<_> = ops
            .iter()
            .map(|o| (o.offset, o.len, o.source, o.delay_ms))
            .collect();
        // 5000 bytes take two pages; 4096 the next page; 12288 would pass the end: back to 0.
        assert_eq!(
            got,
            vec![(0, 5000, 0, 1), (9, 4096, 8192, 0), (100, 12288, 0, 0)]
        );
        assert!(ops.iter().all(|o| o.source + o.len <= 16384));
    }

    #[test]
    fn sequential_passes_cover_the_file_with_a_short_last_record() {
        let ops = sequential_ops(0, 10_000, 4096, OpKind::Read, 8192);
        let got: Vec<_> = ops.iter().map(|o| (o.offset, o.len)).collect();
        assert_eq!(got, vec![(0, 4096), (4096, 4096), (8192, 1808)]);
        assert!(sequential_ops(5, 5, 4096, OpKind::Write, 4096).is_empty());
        let tail = sequential_ops(6000, 10_000, 4096, OpKind::Write, 8192);
        assert_eq!(tail.iter().map(|o| o.len).sum::<usize>(), 4000);
    }

    #[test]
    fn long_lines_and_too_many_operations_are_refused_by_line() {
        let long = format!("0 1 # {}\n", "x".repeat(MAX_LINE_BYTES));
        let (line, why) = bad(&format!("0 1\n{long}"));
        assert_eq!(line, 2);
        assert_eq!(why, "the line is longer than 4096 bytes");
        // A line just at the limit is read.
        let at = format!("0 1 #{}\n", "x".repeat(MAX_LINE_BYTES - 5));
        assert_eq!(ok(&at).len(), 1);
        // One operation past the most: named by its line (small limits,
        // the same code).
        let small = Limits {
            bytes: 64,
            ops: 3,
            line: 16,
        };
        let parse = |text: &str| {
            parse_lines(&mut text.as_bytes(), &small).map_err(|(line, why)| (line, why.to_string()))
        };
        let mut text = "0 1\n".repeat(3);
        text.push_str("# not an op\n");
        assert_eq!(parse(&text).unwrap().len(), 3);
        text.push_str("0 1\n");
        assert_eq!(
            parse(&text).unwrap_err(),
            (
                5,
                "more than 3 operations, the most a telemetry file may hold".into()
            )
        );
        // More bytes than the most, though every line is a comment.
        let text = "# 3456789012345\n".repeat(5);
        assert_eq!(
            parse(&text).unwrap_err(),
            (
                5,
                "the file goes on past 64 bytes, the most a telemetry file may hold".into()
            )
        );
        assert_eq!((MAX_TRACE_OPS, MAX_TRACE_BYTES), (1 << 24, 1 << 30));
    }

    #[test]
    fn devices_fifos_and_directories_are_not_read() {
        let e = load("-X", Path::new("/dev/zero")).unwrap_err().to_string();
        assert_eq!(
            e,
            "-X /dev/zero: a character device, not a regular file; ioz reads telemetry from \
             regular files"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = load("-Y", dir.path()).unwrap_err().to_string();
        assert!(
            e.ends_with("a directory, not a regular file; ioz reads telemetry from regular files"),
            "{e}"
        );
        // No writer: refused at once, not waited for.
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = load("-X", &fifo).unwrap_err().to_string();
        assert!(e.contains("a FIFO, not a regular file"), "{e}");
    }

    #[test]
    fn a_file_larger_than_the_limit_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.txt");
        let f = std::fs::File::create(&big).unwrap();
        // Sparse: nothing is written, the length says it all.
        f.set_len(MAX_TRACE_BYTES + 1).unwrap();
        let e = load("-X", &big).unwrap_err().to_string();
        assert!(
            e.ends_with(
                ": it holds 1073741825 bytes, more than the 1073741824 (1.0 GiB) a telemetry \
                 file may hold"
            ),
            "{e}"
        );
    }
}
