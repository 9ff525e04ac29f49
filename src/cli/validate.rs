//! Checks the options seen on the command line against each other and builds
//! the typed [`RunConfig`]: sizes and auto mode, throughput mode, I/O variations.

use std::path::PathBuf;

use super::flags::{self, Scope};
use super::grammar::Target;
use super::seen::Seen;
use super::value::out_of_range;
use super::{UsageError, usage};
use crate::model::config::*;
use crate::model::const_text::Text;
use crate::model::engines::{self, EngineChoice, QUEUED_IOZONE_FLAGS, QUEUED_NAMES};
use crate::model::formats::Format;
use crate::model::host::Host;
use crate::model::latency::LatencyOptions;
use crate::model::rules::Rules;
use crate::model::units::{KIB, kb_number};
use crate::model::variations::{DropCaches, IoVariations, Verify};
use crate::model::workload::TestId;

/// A size in kB as messages print it: exact, with the fraction of a kB a
/// size in bytes may leave (`-r 8b` is 0.0078125 kB).
fn kb(bytes: u64) -> String {
    kb_number(bytes)
}

/// Checks the options against each other and builds the config.
pub(super) fn finish(
    seen: Seen,
    command_line: Vec<String>,
    host: &Host,
) -> Result<RunConfig, UsageError> {
    if seen.every_pair {
        return Err(usage(
            "--every-pair: only with -+t (the network test between every pair of ranks)",
        ));
    }
    if seen.micros_per_op && seen.ops_per_sec {
        return Err(usage("-N and -O cannot be combined: choose µs/op or ops/s"));
    }
    let throughput = throughput_config(&seen, host)?;
    let mut variations = variations(&seen, host)?;
    let auto =
        seen.auto || seen.obsolete_auto || seen.file_sizes.len() > 1 || seen.record_sizes.len() > 1;
    if !auto && let Some(flag) = first_given(&seen, Scope::AutoMode) {
        return Err(usage(format!(
            "{} only applies to auto mode (add -a)",
            flag.spelling
        )));
    }

    if throughput.is_some() && auto {
        return Err(usage(
            "throughput mode (-t, -l, -u) cannot be combined with auto mode (-a, -A, or several -s/-r)",
        ));
    }
    if throughput.is_some() && seen.path.is_some() && !seen.files.is_empty() {
        return Err(usage(
            "-f and -F cannot be combined: -F names every worker's file",
        ));
    }
    let telemetry = variations.write_telemetry.is_some() || variations.read_telemetry.is_some();
    for (opt, what, given) in [
        ("-s", "file sizes", seen.file_sizes.len()),
        ("-r", "record sizes", seen.record_sizes.len()),
    ] {
        if given > MAX_LISTED_SIZES {
            return Err(usage(format!(
                "{opt} given {given} times; give at most {MAX_LISTED_SIZES} {what} (auto mode \
                 runs each file size with each record size)"
            )));
        }
    }
    direct_io_alignment(&seen)?;
    let sizes = if auto {
        auto_sizes(&seen)?
    } else if telemetry {
        // The file is what the telemetry reaches: its size is filled in when
        // the files are read, before the run (safety::preflight). -r only
        // shapes the passes no telemetry file drives, so it may exceed it.
        Sizes::Single {
            file_bytes: 0,
            record_bytes: seen
                .record_sizes
                .first()
                .copied()
                .unwrap_or(DEFAULT_RECORD_BYTES),
        }
    } else {
        let file_bytes = seen
            .file_sizes
            .first()
            .copied()
            .unwrap_or(DEFAULT_FILE_BYTES);
        let record_bytes = seen
            .record_sizes
            .first()
            .copied()
            .unwrap_or(DEFAULT_RECORD_BYTES);
        if record_bytes > file_bytes {
            return Err(usage(format!(
                "-r: record size {} kB is larger than the file size {} kB (-s)",
                kb(record_bytes),
                kb(file_bytes)
            )));
        }
        Sizes::Single {
            file_bytes,
            record_bytes,
        }
    };
    if let Some(tp) = &throughput {
        records_for_every_worker(tp, &sizes)?;
    }

    let mut tests = if seen.obsolete_auto {
        if let Some(t) = seen
            .tests
            .iter()
            .find(|t| !matches!(t, TestId::Write | TestId::Read))
        {
            return Err(usage(format!(
                "-A runs only tests 0 and 1; -i {} needs -a instead",
                t.number()
            )));
        }
        vec![TestId::Write, TestId::Read]
    } else if telemetry {
        if let Some(t) = seen
            .tests
            .iter()
            .find(|t| !matches!(t, TestId::Write | TestId::Read))
        {
            return Err(usage(format!(
                "-i {}: a telemetry file (-X/-Y) drives only tests 0 (write) and 1 (read)",
                t.number()
            )));
        }
        if seen.tests.is_empty() {
            vec![TestId::Write, TestId::Read]
        } else {
            seen.tests.clone()
        }
    } else if throughput.is_some() {
        if seen.tests.contains(&TestId::RecordRewrite) {
            return Err(usage("-i 4 (record rewrite) has no throughput form"));
        }
        if seen.tests.is_empty() {
            // IOzone runs every throughput phase when no -i is given.
            TestId::ALL[..11]
                .iter()
                .copied()
                .filter(|t| *t != TestId::RecordRewrite)
                .collect()
        } else {
            seen.tests.clone()
        }
    } else if seen.tests.is_empty() {
        let mut t: Vec<TestId> = TestId::ALL[..8].to_vec();
        if seen.extended {
            t.extend([TestId::Pwrite, TestId::Pread]);
        }
        t
    } else {
        seen.tests.clone()
    };
    tests.sort();
    let mix_note = mix_roles(&seen, &tests, &mut variations)?;
    let latency = latency_options(&seen, &variations)?;
    intervals_asked(&seen)?;

    let unit = if seen.micros_per_op {
        OutputUnit::MicrosPerOp
    } else if seen.ops_per_sec {
        OutputUnit::OpsPerSec
    } else {
        OutputUnit::KbPerSec
    };

    let label = label(&seen)?;
    let (rules, runs) = steady_rounds(&seen, throughput.is_some())?;
    let mut option_lines = seen.option_lines;
    option_lines.extend(mix_note);
    if let Some(name) = &label {
        option_lines.push(format!("Label: {name}"));
    }
    Ok(RunConfig {
        command_line,
        option_lines,
        sizes,
        obsolete_auto: seen.obsolete_auto,
        tests,
        extended: seen.extended,
        path: seen
            .path
            .unwrap_or_else(|| PathBuf::from(DEFAULT_FILE_NAME)),
        keep_file: seen.keep_file,
        open: seen.open,
        fsync_in_timing: seen.fsync_in_timing,
        close_in_timing: seen.close_in_timing,
        lock_file: seen.lock_file,
        unit,
        // As in IOzone, a spreadsheet implies the -R report.
        excel_report: seen.excel_report || seen.outputs.of(Format::Spreadsheet).next().is_some(),
        stride: seen.stride.unwrap_or(DEFAULT_STRIDE),
        mix_read_percent: seen.mix_read_percent.unwrap_or(DEFAULT_MIX_READ_PERCENT),
        no_retest: seen.no_retest,
        force: seen.force,
        data: seen.data.unwrap_or(DataPattern::Random),
        outputs: seen.outputs,
        plot_style: seen.plot_style,
        quiet: seen.quiet,
        environment_header: seen.machine,
        throughput,
        record_locking: seen.record_locking,
        destroy_data: seen.destroy_data,
        variations,
        latency,
        telemetry: None,
        interval_ns: seen.interval_ns,
        runs,
        label,
        rules,
        until_steady: seen.until_steady,
        metadata: None,
        history: seen.history,
    })
}

/// `--latency`'s percentiles and `-+O`'s engines: checked here, since
/// `--percentiles` is a list and `-+O` paces one operation at a time.
fn latency_options(seen: &Seen, v: &IoVariations) -> Result<LatencyOptions, UsageError> {
    let mut latency = seen.latency.clone();
    if let Some(list) = &seen.percentiles {
        latency.percentiles = percentiles(list)?;
    }
    if latency.rate_limit.is_some()
        && let Some(engine) = v.engine.filter(|e| e.is_queued())
    {
        return Err(usage(format!(
            "-+O: the rate limit paces one operation at a time; the {} engine keeps \
             several in flight: leave out -+O or use another engine",
            engine.name()
        )));
    }
    Ok(latency)
}

/// `--live` and `--interval-csv` hold intervals: without `--interval` a
/// run would have none to write.
fn intervals_asked(seen: &Seen) -> Result<(), UsageError> {
    if seen.interval_ns.is_some() {
        return Ok(());
    }
    match [Format::Live, Format::IntervalCsv]
        .into_iter()
        .find(|&f| seen.outputs.of(f).next().is_some())
    {
        Some(format) => Err(usage(format!(
            "{}: the file holds the run's intervals: give --interval too (e.g. --interval 1s)",
            format.flag()
        ))),
        None => Ok(()),
    }
}

/// `--percentiles 50,99,99.9`: each above 0 and at most 100, in any order
/// (shown ascending, each once).
fn percentiles(list: &str) -> Result<Vec<f64>, UsageError> {
    let mut out: Vec<f64> = Vec::new();
    for word in list.split(',').map(str::trim) {
        match word.parse::<f64>() {
            Ok(p) if p > 0.0 && p <= 100.0 => out.push(p),
            _ => {
                return Err(usage(format!(
                    "--percentiles: '{word}' is not a percentile: give numbers above 0 \
                     and at most 100, separated by commas (e.g. 50,99,99.9)"
                )));
            }
        }
    }
    out.sort_by(f64::total_cmp);
    out.dedup();
    Ok(out)
}

/// `--rules` and `--until-steady MAX`: MAX rounds at most (in place of
/// `--runs`), judged by SNIA's steady state (pts, the rules it implies).
fn steady_rounds(seen: &Seen, throughput: bool) -> Result<(Rules, u32), UsageError> {
    let Some(max) = seen.until_steady else {
        return Ok((seen.rules, seen.runs.unwrap_or(1)));
    };
    if seen.runs.is_some() {
        return Err(usage(
            "--until-steady MAX sets the rounds (at most MAX runs); leave out --runs",
        ));
    }
    if throughput {
        return Err(usage(
            "--until-steady repeats single and auto mode's runs; throughput mode (-t, -l, -u) takes --runs",
        ));
    }
    match seen.rules {
        Rules::None | Rules::Pts => Ok((Rules::Pts, max)),
        other => Err(usage(format!(
            "--until-steady stops at SNIA's steady state (--rules pts), not under --rules {}",
            other.name()
        ))),
    }
}

/// `--label`: one line of printable text, since it is printed in the header
/// and stored in the results, where a line break would split a line scripts read.
fn label(seen: &Seen) -> Result<Option<String>, UsageError> {
    let Some(name) = &seen.label else {
        return Ok(None);
    };
    if name.chars().any(char::is_control) {
        return Err(usage(format!(
            "--label: {:?} is not one line of text: give a name without line breaks or control characters",
            name
        )));
    }
    Ok(Some(name.clone()))
}

/// `-+K n` and `-+F` shape test 8 of throughput mode: workers below n read,
/// the others write (and with `-+F` open their files with O_TRUNC). `-+p`
/// wins over `-+K`, as in IOzone: with it every worker mixes reads and writes
/// (ioz's mix), `-+K` is dropped and a line in the header says so.
fn mix_roles(
    seen: &Seen,
    tests: &[TestId],
    v: &mut IoVariations,
) -> Result<Option<String>, UsageError> {
    let given = [
        ("-+K", v.mix_readers.is_some()),
        ("-+F", v.mix_truncate_writers),
    ];
    let Some((first, _)) = given.iter().find(|(_, g)| *g) else {
        return Ok(None);
    };
    if !seen.throughput_requested() {
        return Err(usage(format!(
            "{first} only applies to test 8 in throughput mode (add -t N)"
        )));
    }
    if !tests.contains(&TestId::RandomMix) {
        return Err(usage(format!(
            "{first} shapes test 8 (the random mix): add -i 8"
        )));
    }
    let percent_given = seen.mix_read_percent.is_some();
    if v.mix_truncate_writers {
        if v.mix_readers.is_none() || percent_given {
            return Err(usage(
                "-+F truncates the mix's writer workers, which only -+K n makes (without -+p, every worker mixes reads and writes)",
            ));
        }
        if seen.shared_file {
            return Err(usage(
                "-+F cannot be combined with a shared file (-+V/-+L): the writers would truncate the file the readers read",
            ));
        }
    }
    if percent_given && let Some(n) = v.mix_readers.take() {
        return Ok(Some(format!(
            "-+p sets the mix, so -+K {n} is not used: every worker mixes reads and writes."
        )));
    }
    Ok(None)
}

/// The engines that keep operations in flight, and IOzone's flags for them:
/// "aio or io_uring (-H/-k)".
const QUEUED_ENGINES: Text<128> = Text::new()
    .list(&QUEUED_NAMES, ", ", " or ")
    .push(" (")
    .list(QUEUED_IOZONE_FLAGS, "/", "/")
    .push(")");

/// The I/O variations, with the engine the IOzone flags (-B, -H, -k) or
/// --engine chose, checked against each other.
fn variations(seen: &Seen, host: &Host) -> Result<IoVariations, UsageError> {
    let mut v = seen.variations.clone();
    let from_flags = match (seen.mmap_flag, seen.aio_depth) {
        (true, Some(_)) => {
            return Err(usage(
                "mmap (-B/-D/-G) and async I/O (-H/-k) cannot be combined",
            ));
        }
        (true, None) => Some(EngineChoice::Mmap),
        (false, Some((c, depth))) => {
            v.aio_no_copy = c == 'k';
            v.iodepth = depth;
            Some(EngineChoice::Aio)
        }
        (false, None) => None,
    };
    match (v.engine, from_flags) {
        (Some(a), Some(b)) if a != b => {
            return Err(usage(format!(
                "--engine {} contradicts -B/-D/-G/-H/-k",
                a.name()
            )));
        }
        (None, Some(b)) => v.engine = Some(b),
        _ => {}
    }
    let queued = engines::queued(v.engine);
    if v.iodepth > 1 && !queued {
        return Err(usage(format!(
            "--iodepth only applies to --engine {}",
            QUEUED_ENGINES.as_str()
        )));
    }
    v.iodepth = v.iodepth.max(1);
    if v.multi_buffer && queued {
        // Requests in flight each need a buffer no other request uses; a
        // buffer sliding through one shared area cannot promise that.
        return Err(usage(format!(
            "-m (multiple buffers) cannot be combined with --engine {}",
            QUEUED_ENGINES.as_str()
        )));
    }
    if v.drop_caches == DropCaches::All && !host.root {
        return Err(usage(
            "--drop-caches=all writes /proc/sys/vm/drop_caches and needs root; --drop-caches alone evicts only the test file",
        ));
    }
    if v.madvise.is_some() && !v.engine.is_some_and(|e| e.row().maps_file) {
        return Err(usage("-+A (madvise) needs mmap files (-B)"));
    }
    if v.mix_mmap_file_io && v.verify != Verify::None {
        return Err(usage(format!(
            "-Z cannot be combined with {}",
            v.verify.flags()
        )));
    }
    if v.existing_file {
        if seen.path.is_none() && seen.files.is_empty() {
            return Err(usage(
                "-+E needs the existing file: name it with -f (or -F)",
            ));
        }
        if seen.tests.is_empty() {
            return Err(usage("-+E needs the read tests to run, e.g. -i 1 -i 2"));
        }
        if let Some(t) = seen.tests.iter().find(|t| {
            matches!(
                t,
                TestId::Write
                    | TestId::RecordRewrite
                    | TestId::Fwrite
                    | TestId::RandomMix
                    | TestId::Pwrite
                    | TestId::Pwritev
            )
        }) {
            return Err(usage(format!(
                "-+E never writes, so -i {} (a test that writes) cannot run with it",
                t.number()
            )));
        }
        if v.verify != Verify::None {
            return Err(usage(format!(
                "-+E reads someone else's data, so {} cannot check it",
                v.verify.flags().replace(" or ", " and ")
            )));
        }
    }
    if v.dedup.any() && v.verify != Verify::None {
        return Err(usage(format!(
            "dedup data (-+w/-+y/-+C) cannot be combined with {}: they write different data",
            v.verify.flags()
        )));
    }
    if (v.dedup.seed.is_some() || v.dedup.worker_skew.is_some()) && !v.dedup.any() {
        return Err(usage("-+S and -+W shape dedup data: add -+w, -+y or -+C"));
    }
    dedup_conflicts(seen, &v)?;
    if v.remount.is_some() && seen.throughput_requested() {
        return Err(usage(
            "-U (remount between tests) cannot be combined with throughput mode (-t, -l, -u)",
        ));
    }
    telemetry_conflicts(seen, &v)?;
    Ok(v)
}

/// The dedup shares must nest (-+y and -+C are parts of -+w), and dedup data
/// is what writes send, so it excludes the options that choose other data.
fn dedup_conflicts(seen: &Seen, v: &IoVariations) -> Result<(), UsageError> {
    let d = &v.dedup;
    if !d.any() {
        return Ok(());
    }
    let (y, c) = (
        d.interior_percent.unwrap_or(0),
        d.within_percent.unwrap_or(0),
    );
    match d.percent {
        Some(w) if y + c > w => {
            return Err(usage(format!(
                "-+y {y} and -+C {c} are parts of the dedupable share, but together they \
                 exceed -+w {w}"
            )));
        }
        None if y + c > 100 => {
            return Err(usage(format!(
                "-+y {y} and -+C {c} together exceed 100 percent"
            )));
        }
        _ => {}
    }
    if seen.data.is_some() {
        return Err(usage(
            "--data and dedup data (-+w/-+y/-+C) both choose what writes send: give one",
        ));
    }
    if v.multi_buffer {
        return Err(usage(
            "-m slides writes through a 16 MiB buffer, but dedup data (-+w/-+y/-+C) is written from the file's own image: give one",
        ));
    }
    if v.existing_file {
        return Err(usage(
            "-+E never writes, so dedup data (-+w/-+y/-+C) has nothing to shape",
        ));
    }
    Ok(())
}

/// Block size O_DIRECT transfers are sure to be aligned to: the smallest
/// logical block of Linux block devices.
const DIRECT_IO_BLOCK: u64 = 512;

/// `-I`: O_DIRECT moves whole blocks, so a record that is not a whole number
/// of them fails at the first write with EINVAL; say so before any I/O.
fn direct_io_alignment(seen: &Seen) -> Result<(), UsageError> {
    if !seen.open.direct {
        return Ok(());
    }
    let records = seen
        .record_sizes
        .iter()
        .map(|&r| ("-r", r))
        .chain(seen.min_record.map(|r| ("-y", r)))
        .chain(seen.max_record.map(|r| ("-q", r)));
    for (opt, bytes) in records {
        if !bytes.is_multiple_of(DIRECT_IO_BLOCK) {
            return Err(usage(format!(
                "{opt}: a {bytes}-byte record cannot be moved with O_DIRECT (-I), which \
                 transfers whole {DIRECT_IO_BLOCK}-byte blocks"
            )));
        }
    }
    Ok(())
}

/// `-X`/`-Y` replay a recorded access pattern: its offsets and sizes replace
/// the options that would otherwise choose them (IOzone refuses these too).
fn telemetry_conflicts(seen: &Seen, v: &IoVariations) -> Result<(), UsageError> {
    if v.write_telemetry.is_none() && v.read_telemetry.is_none() {
        return Ok(());
    }
    let clashes = [
        ("-s", !seen.file_sizes.is_empty()),
        ("-a", seen.auto || seen.obsolete_auto),
        ("-E", seen.extended),
        ("-j", seen.stride.is_some()),
        ("-K", v.disrupt_reads),
        ("-V", matches!(v.verify, Verify::Pattern(_))),
        ("-+d", v.verify == Verify::Diagnostic),
        ("-+X", v.verify == Verify::ShortCircuit),
        ("-+Z", v.verify == Verify::OldDataSets),
        ("-m", v.multi_buffer),
        ("-+w/-+y/-+C", v.dedup.any()),
        // Every worker replays the whole file: there is no size to divide.
        ("-+k", seen.constant_total),
    ];
    if let Some((opt, _)) = clashes.iter().find(|(_, given)| *given) {
        return Err(usage(format!(
            "{opt} cannot be combined with a telemetry file (-X/-Y), which sets offsets and sizes"
        )));
    }
    // -r sizes the records of the pass that no telemetry file drives.
    if seen.record_sizes.len() > 1 {
        return Err(usage(
            "-r can be given once with a telemetry file (-X/-Y): it sizes the records of the test no file drives",
        ));
    }
    if !seen.record_sizes.is_empty() && v.write_telemetry.is_some() && v.read_telemetry.is_some() {
        return Err(usage(
            "-r cannot be combined with both -X and -Y: every pass replays a telemetry file",
        ));
    }
    Ok(())
}

/// The first flag in table order (the order the section files keep) that
/// only means something in `scope` and was given.
fn first_given(seen: &Seen, scope: Scope) -> Option<&'static flags::Flag> {
    flags::only_in(scope).find(|f| seen.was_given(f.spelling))
}

/// Throughput mode from -t/-l/-u and its companions; options that only mean
/// something there are refused without it.
fn throughput_config(seen: &Seen, host: &Host) -> Result<Option<ThroughputConfig>, UsageError> {
    let wanted = seen.throughput_requested();
    if !wanted {
        if let Some(flag) = first_given(seen, Scope::ThroughputMode) {
            return Err(usage(format!(
                "{} only applies to throughput mode (add -t N)",
                flag.spelling
            )));
        }
        return Ok(None);
    }
    let worker_counts: Vec<u32> = if !seen.worker_counts.is_empty() {
        seen.worker_counts.clone()
    } else {
        let min = seen.min_workers.unwrap_or(1);
        let max = seen.max_workers.unwrap_or(min);
        if min > max {
            return Err(usage(format!(
                "-l: {min} workers is more than the maximum {max} (-u)"
            )));
        }
        (min..=max).collect()
    };
    let most = worker_counts.iter().copied().max().unwrap_or(1) as usize;
    // A shared file (-+V/-+L) is worker 0's: one name, or IOzone's one per worker.
    let files_needed = if seen.shared_file && seen.files.len() == 1 {
        1
    } else {
        most
    };
    if !seen.files.is_empty() && seen.files.len() != files_needed {
        return Err(usage(format!(
            "-F names {} file(s) but the run needs {files_needed} (one per worker)",
            seen.files.len()
        )));
    }
    if let Some(us) = seen.start_delay_us {
        last_start_within_the_hour(us, most)?;
    }
    if let Some(cpu) = seen.first_cpu {
        let cpus = host.cpus;
        if cpu >= cpus {
            return Err(out_of_range(
                "-P",
                &cpu.to_string(),
                0,
                Some(cpus.saturating_sub(1)),
                "this machine's CPUs",
            ));
        }
    }
    Ok(Some(ThroughputConfig {
        worker_counts,
        min_workers: seen.min_workers,
        max_workers: seen.max_workers,
        threads: seen.threads,
        files: seen.files.clone(),
        per_worker_lines: seen.per_worker_lines,
        first_cpu: seen.first_cpu,
        constant_total: seen.constant_total,
        shared_file: seen.shared_file,
        stonewall: !seen.no_stonewall,
        start_delay_us: seen.start_delay_us.unwrap_or(0),
        ranks: None,
    }))
}

/// `-d`: worker i starts i × the delay late, so the table's bound on the
/// delay is not enough: the last worker too must start within
/// [`MAX_DELAY_SECONDS`].
fn last_start_within_the_hour(us: u64, workers: usize) -> Result<(), UsageError> {
    let limit = MAX_DELAY_SECONDS * 1_000_000;
    let last = workers.saturating_sub(1) as u64;
    if us.saturating_mul(last) <= limit {
        return Ok(());
    }
    Err(usage(format!(
        "-d {us}: worker {last} would start {} s late; with {workers} workers give at most \
         {} µs, so that the last one starts within an hour",
        us.saturating_mul(last) / 1_000_000,
        limit / last
    )))
}

/// `-+k` divides the file among the workers: with the most workers, each
/// file must still hold a record.
fn records_for_every_worker(tp: &ThroughputConfig, sizes: &Sizes) -> Result<(), UsageError> {
    let Sizes::Single {
        file_bytes,
        record_bytes,
    } = *sizes
    else {
        return Ok(());
    };
    let workers = tp.max_worker_count();
    if !tp.constant_total || record_bytes == 0 || file_bytes == 0 {
        return Ok(()); // a telemetry run sizes its file later, and refuses -+k
    }
    if tp.worker_file_bytes(file_bytes, record_bytes, workers) >= record_bytes {
        return Ok(());
    }
    Err(usage(format!(
        "-+k: {} kB shared by {workers} workers leaves less than one {} record each; \
         give a larger file (-s), smaller records (-r) or fewer workers",
        kb(file_bytes),
        record_words(record_bytes)
    )))
}

/// A record size as the command line would give it: kB, or bytes when it
/// is not a whole number of kB (`-r 600b`).
fn record_words(bytes: u64) -> String {
    if bytes.is_multiple_of(KIB) {
        format!("{} kB", kb(bytes))
    } else {
        format!("{bytes}-byte")
    }
}

/// One auto-mode axis: an explicit list (`-s`/`-r`), or a min..max range
/// (`-n`/`-g`, `-y`/`-q`) with defaults; never both.
struct AxisOptions<'a> {
    list: &'a [u64],
    min: Option<u64>,
    max: Option<u64>,
    defaults: (u64, u64),
    /// The list option, the min option, the max option, and what the sizes are.
    names: (&'a str, &'a str, &'a str, &'a str),
}

fn axis(o: AxisOptions<'_>, multiplier: u64) -> Result<SizeAxis, UsageError> {
    let (list_opt, min_opt, max_opt, what) = o.names;
    if o.list.is_empty() {
        let min = o.min.unwrap_or(o.defaults.0);
        let max = o.max.unwrap_or(o.defaults.1);
        if min > max {
            return Err(usage(format!(
                "{min_opt}: minimum {what} {} kB is larger than the maximum {} kB ({max_opt})",
                kb(min),
                kb(max)
            )));
        }
        return Ok(SizeAxis::Range {
            min,
            max,
            multiplier,
        });
    }
    if o.min.is_some() || o.max.is_some() {
        return Err(usage(format!(
            "{list_opt} cannot be combined with {min_opt} or {max_opt}: give either the sizes or the range"
        )));
    }
    Ok(SizeAxis::List(o.list.to_vec()))
}

fn auto_sizes(seen: &Seen) -> Result<Sizes, UsageError> {
    let multiplier = seen.multiplier.unwrap_or(2);
    let file_sizes = axis(
        AxisOptions {
            list: &seen.file_sizes,
            min: seen.min_file,
            max: seen.max_file,
            defaults: (DEFAULT_AUTO_MIN_FILE, DEFAULT_AUTO_MAX_FILE),
            names: ("-s", "-n", "-g", "file size"),
        },
        multiplier,
    )?;
    // Record sizes run in ascending order, each once.
    let mut records = seen.record_sizes.clone();
    records.sort_unstable();
    records.dedup();
    let record_sizes = axis(
        AxisOptions {
            list: &records,
            min: seen.min_record,
            max: seen.max_record,
            defaults: (DEFAULT_AUTO_MIN_RECORD, DEFAULT_AUTO_MAX_RECORD),
            names: ("-r", "-y", "-q", "record size"),
        },
        multiplier,
    )?;
    let smallest_file = file_sizes.values().into_iter().min().unwrap_or(0);
    let smallest_record = record_sizes.values().into_iter().min().unwrap_or(0);
    if smallest_record > smallest_file {
        return Err(usage(format!(
            "record size {} kB is larger than the smallest file size {} kB",
            kb(smallest_record),
            kb(smallest_file)
        )));
    }
    let crossover = seen.auto
        && !seen.obsolete_auto
        && !seen.no_crossover
        && seen.file_sizes.is_empty()
        && seen.record_sizes.is_empty()
        && seen.min_record.is_none()
        && seen.max_record.is_none();
    Ok(Sizes::Auto(AutoSizes {
        file_sizes,
        record_sizes,
        crossover,
    }))
}
