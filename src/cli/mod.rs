//! IOzone's command-line grammar: single-dash letters that cluster (`-Raz`),
//! values attached or separate (`-s64m`, `-s 64m`), `-+x` options whose value is
//! always the next word, repeated `-s`/`-r`/`-i`, plus ioz's own `--long` options.
//!
//! The result is a validated [`RunConfig`]; nothing after this module sees flags.

mod help;
mod number;
mod report_cmd;
mod unsupported;
mod validate;

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::{Arg, Parser, ValueExt};

use crate::model::config::*;
use crate::model::host::Host;
use crate::model::units::KIB;
use crate::model::variations::{DropCaches, EngineChoice, IoVariations, MsyncMode, Verify};
use crate::model::workload::TestId;

pub use help::{HELP_TEXT, version_text};
pub use number::{parse_count, parse_record_size, parse_size};
pub use report_cmd::ReportRequest;

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    Run(Box<RunConfig>),
    /// `ioz report RUN.json …`: render a saved run again.
    Report(ReportRequest),
    Help,
    Version,
}

/// A command-line problem: one line naming the option and what is wrong.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn usage(msg: impl Into<String>) -> UsageError {
    UsageError(msg.into())
}

/// Options as seen, before validation.
#[derive(Default)]
struct Seen {
    option_lines: Vec<String>,
    auto: bool,
    obsolete_auto: bool,
    no_crossover: bool,
    file_sizes: Vec<u64>,
    record_sizes: Vec<u64>,
    min_file: Option<u64>,
    max_file: Option<u64>,
    min_record: Option<u64>,
    max_record: Option<u64>,
    multiplier: Option<u64>,
    tests: Vec<TestId>,
    extended: bool,
    path: Option<PathBuf>,
    keep_file: bool,
    open: OpenOptions,
    fsync_in_timing: bool,
    close_in_timing: bool,
    lock_file: bool,
    micros_per_op: bool,
    ops_per_sec: bool,
    excel_report: bool,
    stride: Option<u64>,
    mix_read_percent: Option<u32>,
    no_retest: bool,
    force: bool,
    data: Option<DataPattern>,
    outputs: OutputFiles,
    quiet: bool,
    worker_counts: Vec<u32>,
    min_workers: Option<u32>,
    max_workers: Option<u32>,
    threads: bool,
    files: Vec<PathBuf>,
    per_worker_lines: bool,
    first_cpu: Option<usize>,
    constant_total: bool,
    shared_file: bool,
    no_stonewall: bool,
    start_delay_us: Option<u64>,
    record_locking: bool,
    destroy_data: Vec<String>,
    variations: IoVariations,
    mmap_flag: bool,
    aio_depth: Option<(char, u32)>,
}

/// Parses argv (argv[0] included) into a command.
pub fn parse(args: Vec<OsString>, host: &Host) -> Result<Command, UsageError> {
    let command_line: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.len() <= 1 {
        return Err(usage(
            "no options given; try 'ioz -a' for auto mode or 'ioz -h' for help",
        ));
    }
    if args.get(1).is_some_and(|a| a == "report") {
        return report_cmd::parse(args.into_iter().skip(2)).map(Command::Report);
    }
    let mut parser = Parser::from_iter(args);
    let mut seen = Seen::default();
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        match arg {
            Arg::Short('h') | Arg::Long("help") => return Ok(Command::Help),
            Arg::Short('v') | Arg::Long("version") => return Ok(Command::Version),
            Arg::Short('+') => parse_plus(&mut parser, &mut seen, host)?,
            Arg::Short(c) => parse_short(c, &mut parser, &mut seen, host)?,
            Arg::Long("force") => seen.force = true,
            Arg::Long("quiet") => seen.quiet = true,
            Arg::Long("engine") => {
                let name = string_value(&mut parser, "--engine")?;
                seen.variations.engine = Some(EngineChoice::from_name(&name).ok_or_else(|| {
                    usage(format!(
                        "--engine: '{name}' is not an engine ({})",
                        EngineChoice::NAMES
                    ))
                })?);
            }
            Arg::Long("iodepth") => {
                let n = count_value(&mut parser, "--iodepth")?;
                if n == 0 || n > 4096 {
                    return Err(usage(format!("--iodepth: {n}; give 1 to 4096")));
                }
                seen.variations.iodepth = n as u32;
            }
            Arg::Long("drop-caches") => {
                seen.variations.drop_caches = match parser.optional_value() {
                    None => DropCaches::File,
                    Some(v) => match v.to_str() {
                        Some("file") => DropCaches::File,
                        Some("all") => DropCaches::All,
                        _ => {
                            return Err(usage(format!(
                                "--drop-caches: '{}' is not file or all",
                                v.to_string_lossy()
                            )));
                        }
                    },
                };
            }
            Arg::Long("destroy-data") => {
                let v = string_value(&mut parser, "--destroy-data")?;
                if v.trim().is_empty() {
                    return Err(usage(
                        "--destroy-data: give the device's WWN, serial or (lacking those) path",
                    ));
                }
                seen.destroy_data.push(v.trim().to_string());
            }
            Arg::Long(name @ ("json" | "csv" | "html" | "plots")) => {
                let name = name.to_owned();
                let path = path_value(&mut parser, &format!("--{name}"))?;
                let slot = match name.as_str() {
                    "json" => &mut seen.outputs.json,
                    "csv" => &mut seen.outputs.csv,
                    "html" => &mut seen.outputs.html,
                    _ => &mut seen.outputs.plots,
                };
                *slot = Some(path);
            }
            Arg::Long("data") => {
                let v = string_value(&mut parser, "--data")?;
                seen.data = Some(match v.as_str() {
                    "random" => DataPattern::Random,
                    "iozone" => DataPattern::Iozone,
                    other => {
                        return Err(usage(format!(
                            "--data: '{other}' is not a data pattern (random or iozone)"
                        )));
                    }
                });
            }
            Arg::Long(name) => {
                return Err(usage(format!(
                    "unknown option --{name} (ioz -h lists the options)"
                )));
            }
            Arg::Value(v) => {
                return Err(usage(format!(
                    "unexpected argument '{}' (options start with -; ioz -h lists them)",
                    v.to_string_lossy()
                )));
            }
        }
    }
    validate::finish(seen, command_line, host).map(|c| Command::Run(Box::new(c)))
}

fn lexopt_error(e: lexopt::Error) -> UsageError {
    match e {
        lexopt::Error::MissingValue { option: Some(o) } => usage(format!("{o} needs a value")),
        lexopt::Error::UnexpectedValue { option, .. } => {
            usage(format!("{option} does not take a value"))
        }
        other => usage(other.to_string()),
    }
}

fn string_value(parser: &mut Parser, opt: &str) -> Result<String, UsageError> {
    let v = parser
        .value()
        .map_err(|_| usage(format!("{opt} needs a value")))?;
    v.string()
        .map_err(|_| usage(format!("{opt}: the value is not valid UTF-8")))
}

/// A path argument: any non-empty word.
fn path_value(parser: &mut Parser, opt: &str) -> Result<PathBuf, UsageError> {
    let v = parser
        .value()
        .map_err(|_| usage(format!("{opt} needs a value (a path)")))?;
    if v.is_empty() {
        return Err(usage(format!("{opt}: the path is empty")));
    }
    utf8_path(opt, v)
}

/// Paths end up in the saved results (JSON), so they must be text.
fn utf8_path(opt: &str, v: OsString) -> Result<PathBuf, UsageError> {
    match v.into_string() {
        Ok(s) => Ok(PathBuf::from(s)),
        Err(raw) => Err(usage(format!(
            "{opt}: the path {} is not valid UTF-8 (ioz records paths in its results)",
            raw.to_string_lossy()
        ))),
    }
}

fn size_value(parser: &mut Parser, opt: &str) -> Result<u64, UsageError> {
    let v = string_value(parser, opt)?;
    parse_size(&v).map_err(|e| usage(format!("{opt}: {e}")))
}

fn record_value(parser: &mut Parser, opt: &str) -> Result<u64, UsageError> {
    let v = string_value(parser, opt)?;
    let bytes = parse_record_size(&v).map_err(|e| usage(format!("{opt}: {e}")))?;
    if bytes > MAX_RECORD_BYTES {
        return Err(usage(format!(
            "{opt}: record size {} kB is larger than the maximum, {} kB",
            bytes / KIB,
            MAX_RECORD_BYTES / KIB
        )));
    }
    Ok(bytes)
}

/// A worker count: 1 to MAX_WORKERS.
fn workers_value(parser: &mut Parser, opt: &str) -> Result<u32, UsageError> {
    let n = count_value(parser, opt)?;
    if n == 0 || n > MAX_WORKERS {
        return Err(usage(format!(
            "{opt}: {n} workers; give 1 to {MAX_WORKERS}"
        )));
    }
    Ok(n as u32)
}

fn count_value(parser: &mut Parser, opt: &str) -> Result<u64, UsageError> {
    let v = string_value(parser, opt)?;
    parse_count(&v).map_err(|e| usage(format!("{opt}: {e}")))
}

fn percent_value(parser: &mut Parser, opt: &str) -> Result<u32, UsageError> {
    let n = count_value(parser, opt)?;
    if n > 100 {
        return Err(usage(format!("{opt}: {n} is not a percentage (0 to 100)")));
    }
    Ok(n as u32)
}

fn u32_value(parser: &mut Parser, opt: &str) -> Result<u32, UsageError> {
    let n = count_value(parser, opt)?;
    u32::try_from(n).map_err(|_| usage(format!("{opt}: {n} is too large")))
}

impl Seen {
    fn throughput_requested(&self) -> bool {
        !self.worker_counts.is_empty() || self.min_workers.is_some() || self.max_workers.is_some()
    }
}

fn parse_short(
    c: char,
    parser: &mut Parser,
    seen: &mut Seen,
    host: &Host,
) -> Result<(), UsageError> {
    match c {
        'a' => {
            seen.auto = true;
            seen.option_lines.push("Auto Mode".into());
        }
        'A' => {
            seen.obsolete_auto = true;
            seen.option_lines
                .push("Auto Mode 2: tests 0 and 1 only, no crossover.".into());
        }
        'z' => {
            seen.no_crossover = true;
            seen.option_lines
                .push("Cross over of record size disabled.".into());
        }
        's' => {
            let v = size_value(parser, "-s")?;
            seen.file_sizes.push(v);
            seen.option_lines
                .push(format!("File size set to {} KB", v / KIB));
        }
        'r' => {
            let v = record_value(parser, "-r")?;
            seen.record_sizes.push(v);
            seen.option_lines
                .push(format!("Record Size {} KB", v / KIB));
        }
        'n' => {
            let v = size_value(parser, "-n")?;
            seen.min_file = Some(v);
            seen.option_lines
                .push(format!("Using minimum file size of {} kilobytes.", v / KIB));
        }
        'g' => {
            let v = size_value(parser, "-g")?;
            seen.max_file = Some(v);
            seen.option_lines
                .push(format!("Using maximum file size of {} kilobytes.", v / KIB));
        }
        'y' => {
            let v = record_value(parser, "-y")?;
            seen.min_record = Some(v);
            seen.option_lines
                .push(format!("Using Minimum Record Size {} KB", v / KIB));
        }
        'q' => {
            let v = record_value(parser, "-q")?;
            seen.max_record = Some(v);
            seen.option_lines
                .push(format!("Using Maximum Record Size {} KB", v / KIB));
        }
        'i' => {
            let n = count_value(parser, "-i")?;
            let test = TestId::from_number(n)
                .ok_or_else(|| usage(format!("-i {n}: no such test (tests are 0 to 12)")))?;
            if !seen.tests.contains(&test) {
                seen.tests.push(test);
            }
        }
        'E' => seen.extended = true,
        'f' => seen.path = Some(path_value(parser, "-f")?),
        'b' => {
            // As in IOzone, a spreadsheet implies the -R report.
            seen.outputs.spreadsheet = Some(spreadsheet_value(parser, "-b")?);
            seen.excel_report = true;
        }
        'w' => {
            seen.keep_file = true;
            seen.option_lines.push("Setting no_unlink".into());
        }
        'R' => {
            seen.excel_report = true;
            seen.option_lines
                .push("Excel chart generation enabled".into());
        }
        'c' => {
            seen.close_in_timing = true;
            seen.option_lines
                .push("Include close in write timing".into());
        }
        'e' => {
            seen.fsync_in_timing = true;
            seen.option_lines
                .push("Include fsync in write timing".into());
        }
        'o' => {
            seen.open.sync_writes = true;
            seen.option_lines.push("SYNC Mode. ".into());
        }
        'I' => {
            seen.open.direct = true;
            seen.option_lines.push("O_DIRECT feature enabled".into());
        }
        'W' => {
            seen.lock_file = true;
            seen.option_lines
                .push("Lock file when reading/writing.".into());
        }
        'N' => {
            seen.micros_per_op = true;
            seen.option_lines
                .push("Microseconds/op Mode. Output is in microseconds per operation.".into());
        }
        'O' => {
            seen.ops_per_sec = true;
            seen.option_lines
                .push("OPS Mode. Output is in operations per second.".into());
        }
        'M' => {
            seen.option_lines.push(String::new());
            seen.option_lines
                .push(format!("Machine = {}", host.machine));
        }
        't' => {
            let n = workers_value(parser, "-t")?;
            seen.worker_counts.push(n);
        }
        'l' => seen.min_workers = Some(workers_value(parser, "-l")?),
        'u' => seen.max_workers = Some(workers_value(parser, "-u")?),
        'T' => seen.threads = true,
        'F' => {
            let files: Vec<PathBuf> = parser
                .values()
                .map_err(|_| usage("-F needs the workers' file names"))?
                .map(|v| utf8_path("-F", v))
                .collect::<Result<_, _>>()?;
            if files.iter().any(|f| f.as_os_str().is_empty()) {
                return Err(usage("-F: a file name is empty"));
            }
            seen.files.extend(files);
        }
        'C' => seen.per_worker_lines = true,
        'x' => {
            seen.no_stonewall = true;
            seen.option_lines.push("Stonewall disabled".into());
        }
        'd' => seen.start_delay_us = Some(count_value(parser, "-d")?),
        'P' => {
            let cpu = count_value(parser, "-P")? as usize;
            seen.first_cpu = Some(cpu);
            seen.option_lines
                .push(format!("Binding of processors beginning with {cpu} "));
        }
        'B' => {
            seen.mmap_flag = true;
            seen.option_lines.push("Using mmap files".into());
        }
        'D' => {
            seen.mmap_flag = true;
            seen.variations.msync = MsyncMode::Async;
            seen.option_lines
                .push("Using msync(MS_ASYNC) on mmap files".into());
        }
        'G' => {
            seen.mmap_flag = true;
            seen.variations.msync = MsyncMode::Sync;
            seen.option_lines
                .push("Using msync(MS_SYNC) on mmap files".into());
        }
        'H' | 'k' => {
            let n = count_value(parser, &format!("-{c}"))?;
            if n == 0 || n > 4096 {
                return Err(usage(format!("-{c}: depth {n}; give 1 to 4096")));
            }
            if let Some((other, _)) = seen.aio_depth
                && other != c
            {
                return Err(usage("-H and -k cannot be combined: choose one"));
            }
            seen.aio_depth = Some((c, n as u32));
            seen.option_lines.push(if c == 'H' {
                format!("POSIX async I/O (with bcopy). Depth {n}")
            } else {
                format!("POSIX Async I/O (no bcopy). Depth {n} ")
            });
        }
        'Q' => {
            seen.variations.offset_latency_files = true;
            seen.option_lines
                .push("Offset/latency files enabled.".into());
        }
        'Z' => {
            seen.variations.mix_mmap_file_io = true;
            seen.option_lines
                .push("Enable mmap & file I/O mixing.".into());
        }
        'p' => {
            seen.variations.purge_cpu_cache = true;
            seen.option_lines.push("Purge Mode On".into());
        }
        'S' => {
            let kb = count_value(parser, "-S")?;
            if kb == 0 || kb > 1 << 30 {
                return Err(usage(format!("-S: {kb} kB is not a cache size")));
            }
            seen.variations.cpu_cache_bytes = Some(kb * KIB);
        }
        'L' => {
            let bytes = count_value(parser, "-L")?;
            if bytes == 0 || bytes > 1 << 20 {
                return Err(usage(format!("-L: {bytes} bytes is not a cache line size")));
            }
            seen.variations.cache_line_bytes = Some(bytes);
        }
        'J' => {
            let ms = count_value(parser, "-J")?;
            seen.variations.compute_delay_ms = Some(ms);
        }
        'V' => {
            let n = count_value(parser, "-V")?;
            if n > 255 {
                return Err(usage(format!("-V: {n} is not a byte (0 to 255)")));
            }
            seen.variations.verify = Verify::Pattern(n as u8);
            seen.option_lines.push(format!(
                "Verify Mode. Pattern {:x}",
                u32::from_ne_bytes([n as u8; 4])
            ));
            seen.option_lines
                .push("Performance measurements are invalid in this mode.".into());
        }
        'j' => {
            let n = count_value(parser, "-j")?;
            if n == 0 {
                return Err(usage("-j: the stride must be at least 1 record"));
            }
            seen.stride = Some(n);
        }
        'K' => {
            seen.variations.disrupt_reads = true;
            seen.option_lines
                .push("Disrupted read patterns selected.".into());
        }
        'm' => {
            seen.variations.multi_buffer = true;
            seen.option_lines
                .push("Multi_buffer. Work area 16777216 bytes".into());
        }
        'U' => seen.variations.remount = Some(path_value(parser, "-U")?),
        'X' => {
            let file = path_value(parser, "-X")?;
            seen.option_lines
                .push(format!("Using write telemetry file \"{}\"", file.display()));
            seen.variations.write_telemetry = Some(file);
        }
        'Y' => {
            let file = path_value(parser, "-Y")?;
            seen.option_lines
                .push(format!("Using read telemetry file \"{}\"", file.display()));
            seen.variations.read_telemetry = Some(file);
        }
        other => {
            return Err(usage(format!(
                "unknown option -{other} (ioz -h lists the options)"
            )));
        }
    }
    Ok(())
}

/// `-+X`: the letter is the rest of the word (only its first character counts
/// in IOzone; ioz refuses extra characters), and any value is the next word.
fn parse_plus(parser: &mut Parser, seen: &mut Seen, host: &Host) -> Result<(), UsageError> {
    let rest = parser
        .optional_value()
        .ok_or_else(|| usage("-+ must be followed by a letter, as in -+n"))?;
    let rest = rest.string().map_err(|_| usage("-+: not valid UTF-8"))?;
    let mut chars = rest.chars();
    let letter = chars
        .next()
        .ok_or_else(|| usage("-+ must be followed by a letter"))?;
    if chars.next().is_some() {
        return Err(usage(format!(
            "-+{rest}: one letter expected after -+ (its value, if any, is the next word)"
        )));
    }
    let opt = format!("-+{letter}");
    match letter {
        'x' => {
            let n = count_value(parser, &opt)?;
            if n < 2 {
                return Err(usage(format!("{opt}: the multiplier must be at least 2")));
            }
            seen.multiplier = Some(n);
        }
        'n' => {
            seen.no_retest = true;
            seen.option_lines.push("No retest option selected".into());
        }
        'D' => {
            seen.open.dsync_writes = true;
            seen.option_lines
                .push(">>> O_DSYNC mode enabled. <<<".into());
        }
        'r' => {
            seen.open.sync_all = true;
            seen.option_lines
                .push("Read & Write sync mode active.".into());
        }
        'k' => seen.constant_total = true,
        'A' => {
            let n = count_value(parser, &opt)?;
            if n > 4 {
                return Err(usage(format!(
                    "{opt}: {n} is not a madvise mode (0 normal, 1 random, 2 sequential, 3 dontneed, 4 willneed)"
                )));
            }
            seen.variations.madvise = Some(n as u32);
            seen.option_lines.push(format!("Madvise enabled: {n}"));
        }
        'q' => {
            seen.variations.delay_between_tests_s = count_value(parser, &opt)?;
            seen.option_lines.push(format!(
                "Delay {} seconds between tests enabled.",
                seen.variations.delay_between_tests_s
            ));
        }
        'N' => seen.variations.no_truncate = true,
        'B' => {
            seen.variations.sequential_mix = true;
            seen.option_lines
                .push(">>> Sequential Mixed workload. <<<".into());
        }
        'E' => {
            seen.variations.existing_file = true;
            seen.option_lines
                .push(">>> Read-only tests on an existing file: nothing is written. <<<".into());
        }
        'u' => {
            seen.variations.cpu_utilisation = true;
            seen.option_lines.push(format!(
                "CPU utilization Resolution = {:5.3} seconds.",
                host.cpu_clock_resolution_s
            ));
            seen.option_lines
                .push("CPU utilization Excel chart enabled".into());
        }
        'd' => {
            seen.variations.verify = Verify::Diagnostic;
            seen.option_lines
                .push(">>> I/O Diagnostic mode enabled. <<<".into());
            seen.option_lines
                .push("Performance measurements are invalid in this mode.".into());
        }
        'V' => {
            seen.shared_file = true;
            seen.option_lines
                .push(">>> Shared file mode enabled. <<<".into());
        }
        'l' => {
            seen.record_locking = true;
            seen.option_lines
                .push(">>> Record locking mode enabled. <<<".into());
        }
        'L' => {
            seen.record_locking = true;
            seen.shared_file = true;
            seen.option_lines
                .push(">>> Record locking, shared file mode enabled. <<<".into());
        }
        'p' => {
            let n = percent_value(parser, &opt)?;
            seen.mix_read_percent = Some(n);
            seen.option_lines
                .push(format!("Percent read in mix test is {n}"));
        }
        'w' | 'y' | 'C' => {
            let n = percent_value(parser, &opt)?;
            let (field, line) = match letter {
                'w' => (&mut seen.variations.dedup.percent, "Dedup activated"),
                'y' => (
                    &mut seen.variations.dedup.interior_percent,
                    "Dedupe within & across",
                ),
                _ => (&mut seen.variations.dedup.within_percent, "Dedupe within"),
            };
            *field = Some(n);
            seen.option_lines.push(format!("{line} {n} percent."));
        }
        'S' => {
            // IOzone: seed 0 means 1.
            let n = u32_value(parser, &opt)?.max(1);
            seen.variations.dedup.seed = Some(n);
            seen.option_lines.push(format!("Dedup manual seed {n} ."));
        }
        'W' => {
            let n = u32_value(parser, &opt)?;
            seen.variations.dedup.worker_skew = Some(n);
            seen.option_lines.push(format!("Dedup chid_skew {n} ."));
        }
        'K' => {
            let n = u32_value(parser, &opt)?;
            seen.variations.mix_readers = Some(n);
            seen.option_lines
                .push(format!("Manual control of test 8: workers below {n} read."));
        }
        'F' => seen.variations.mix_truncate_writers = true,
        other => {
            return match unsupported::describe_plus(other) {
                Some(what) => Err(usage(format!("{opt} ({what}) is not supported yet"))),
                None => Err(usage(format!(
                    "unknown option {opt} (ioz -h lists the options)"
                ))),
            };
        }
    }
    Ok(())
}

/// `-b FILE`: .xls or .wks (IOzone's BIFF layout) or .xlsx.
fn spreadsheet_value(parser: &mut Parser, opt: &str) -> Result<PathBuf, UsageError> {
    let path = path_value(parser, opt)?;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("xls" | "wks" | "xlsx") => Ok(path),
        _ => Err(usage(format!(
            "{opt}: '{}' needs a .xls, .wks or .xlsx extension",
            path.display()
        ))),
    }
}

/// Parses `ioz ARGS…` into a run config, for tests elsewhere in the crate.
#[cfg(test)]
pub(crate) fn test_config(args: &[&str]) -> RunConfig {
    let argv = std::iter::once("ioz").chain(args.iter().copied());
    match parse(argv.map(OsString::from).collect(), &Host::example()) {
        Ok(Command::Run(c)) => *c,
        other => panic!("{args:?} is not a run: {other:?}"),
    }
}

#[cfg(test)]
mod tests;
