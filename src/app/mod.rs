//! The `ioz` command: parse, run, print, and map every ending to an exit status.

use std::ffi::OsString;
use std::io::{self, Write};
use std::time::Instant;

use crate::cli::{self, Command, HELP_TEXT, ReportRequest, version_text};
use crate::model::config::RunConfig;
use crate::model::config::{Sizes, ThroughputConfig};
mod progress;

use crate::data::telemetry::Replay;
use crate::error::RunError;
use crate::model::plan::expand;
use crate::model::result::{CellResult, PhaseResult, RunResult, RunStatus, SCHEMA_VERSION};
use crate::report::excel_text::render_excel_text;
use crate::report::json;
use crate::report::layout::TableLayout;
use crate::report::text::{preamble, render_output, table_header, table_row, trailer, verify_note};
use crate::report::throughput_text::{
    phase_block, run_header, throughput_preamble, throughput_report,
};
use crate::runner::{self, RunEvent, ThroughputEvent};
use crate::safety::target::TargetFile;
use crate::safety::{self, outputs, space};
use crate::system::environment as env;
use crate::system::remount::Remounter;
use crate::system::signals;
use crate::system::signals::StopFlag;

/// Exit status for a bad command line or a refused target.
pub const EXIT_USAGE: i32 = 2;
/// Exit status for an I/O failure during the run.
pub const EXIT_IO: i32 = 1;
const SIGPIPE: i32 = 13;

pub fn main_with_args(args: Vec<OsString>) -> i32 {
    match cli::parse(args, &crate::system::host::facts()) {
        Err(e) => {
            eprintln!("ioz: {e}");
            EXIT_USAGE
        }
        Ok(Command::Help) => {
            print!("{HELP_TEXT}");
            0
        }
        Ok(Command::Version) => {
            print!("{}", version_text());
            0
        }
        Ok(Command::Run(config)) => run(*config),
        Ok(Command::Report(request)) => report(request),
    }
}

/// Writes to stdout; if stdout fails (a closed pipe, a full disk) the results
/// can no longer reach the user, so the run is asked to stop.
struct Output<'a> {
    out: io::StdoutLock<'static>,
    stop: &'a StopFlag,
    error: Option<io::Error>,
}

impl Output<'_> {
    fn put(&mut self, text: &str) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self
            .out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.flush())
        {
            self.stop.raise(SIGPIPE);
            self.error = Some(e);
        }
    }
}

fn run(mut config: RunConfig) -> i32 {
    // The telemetry files first, before anything else is checked: the file
    // size of the run is theirs.
    let replay = match crate::data::telemetry::attach(&mut config) {
        Ok(replay) => replay.unwrap_or_default(),
        Err(e) => {
            eprintln!("ioz: {e}");
            return EXIT_USAGE;
        }
    };
    let stop = match StopFlag::install() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ioz: cannot install signal handlers: {e}");
            return EXIT_IO;
        }
    };
    if let Err(e) = outputs::check(&config.outputs, Some(&config.path)) {
        eprintln!("ioz: {e}");
        return EXIT_USAGE;
    }
    if let Err(e) = safety::target::check_targets(&config) {
        eprintln!("ioz: {e}");
        return e.exit_code();
    }
    let mut remount = match Remounter::for_run(&config) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ioz: {e}");
            return e.exit_code();
        }
    };
    // Before the space check: a dedup run too large for memory is refused
    // whatever the disk holds.
    if let Err(e) = crate::safety::memory::check_memory(&config) {
        eprintln!("ioz: {e}");
        return e.exit_code();
    }
    match space::check(&config) {
        Err(e) => {
            eprintln!("ioz: {e}");
            return e.exit_code();
        }
        Ok(Some(warning)) if !config.quiet => eprintln!("ioz: warning: {warning}"),
        Ok(_) => {}
    }
    // Never for -+E: that file is someone else's.
    if !config.keep_file && !config.variations.existing_file {
        signals::remove_on_second_interrupt(
            config
                .run_paths()
                .into_iter()
                .filter(|p| !is_device(p))
                .collect(),
        );
    }
    let started = ctime_now();
    let started_at = utc_now_rfc3339();
    // The environment of the first file the run writes (worker 0's in throughput mode).
    let first_file = match &config.throughput {
        Some(tp) => tp.worker_path(&config.path, 0),
        None => config.path.clone(),
    };
    let environment = env::capture(&first_file);
    let time_resolution_ns = clock_resolution_ns();
    let mut out = Output {
        out: io::stdout().lock(),
        stop: &stop,
        error: None,
    };
    out.put(&preamble(&config, &started, time_resolution_ns));
    let measured = match &config.throughput {
        Some(tp) => measure_throughput(&config, &replay, tp, &stop, &mut out),
        None => measure_cells(&config, &replay, &stop, remount.as_mut(), &mut out),
    };
    let result = RunResult {
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        config,
        started,
        started_at,
        finished_at: utc_now_rfc3339(),
        environment,
        time_resolution_ns,
        cells: measured.cells,
        throughput: measured.phases,
        status: measured.status,
    };
    if result.config.throughput.is_some() {
        // IOzone prints the throughput -R block before its closing line.
        if result.config.excel_report {
            out.put(&throughput_report(&result.throughput, &result.config));
        }
        out.put(&verify_note(&result));
        out.put(&trailer());
    } else {
        out.put(&verify_note(&result));
        out.put(&trailer());
        if result.config.excel_report {
            out.put(&render_excel_text(&result));
        }
    }
    let outcome = Outcome {
        error: measured.error,
    };
    let written = outputs::write_all(&result, &result.config.outputs);
    if let Some(e) = out.error {
        if let Some(run_error) = &outcome.error {
            eprintln!("ioz: {run_error}");
        }
        if e.kind() == io::ErrorKind::BrokenPipe {
            return 128 + SIGPIPE;
        }
        eprintln!("ioz: cannot write the results to standard output: {e}");
        return EXIT_IO;
    }
    match (&result.status, outcome.error) {
        (_, Some(e)) => {
            eprintln!("ioz: {e}");
            e.exit_code()
        }
        (_, None) if !written => EXIT_IO,
        (RunStatus::Interrupted(sig), None) => {
            if *sig != SIGPIPE {
                eprintln!(
                    "ioz: stopped by {}; the results above were measured before it",
                    signal_name(*sig)
                );
            }
            128 + sig
        }
        _ => 0,
    }
}

/// `ioz report RUN.json …`: renders a saved run without measuring.
fn report(request: ReportRequest) -> i32 {
    let mut result = match json::read_run(&request.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ioz: report: {e}");
            return EXIT_USAGE;
        }
    };
    if let Err(e) = outputs::check(&request.outputs, None) {
        eprintln!("ioz: report: {e}");
        return EXIT_USAGE;
    }
    result.config.excel_report |= request.excel_report;
    if request.text
        && io::stdout()
            .write_all(render_output(&result).as_bytes())
            .is_err()
    {
        return 128 + SIGPIPE;
    }
    if outputs::write_all(&result, &request.outputs) {
        0
    } else {
        EXIT_IO
    }
}

/// What the measuring part of a run produced.
struct Measured {
    cells: Vec<CellResult>,
    phases: Vec<PhaseResult>,
    status: RunStatus,
    error: Option<RunError>,
}

struct Outcome {
    error: Option<RunError>,
}

fn is_device(path: &std::path::Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path)
        .is_ok_and(|m| m.file_type().is_block_device() || m.file_type().is_char_device())
}

/// Single and auto mode: the table, row by row.
fn measure_cells(
    config: &RunConfig,
    replay: &Replay,
    stop: &StopFlag,
    remount: Option<&mut Remounter>,
    out: &mut Output<'_>,
) -> Measured {
    let plan = expand(config);
    let layout = TableLayout::for_config(config);
    out.put(&table_header(&layout));
    let target = match TargetFile::check_for_run(&config.path, config) {
        Ok(t) => t,
        Err(e) => {
            return Measured {
                cells: Vec::new(),
                phases: Vec::new(),
                status: RunStatus::Failed(e.to_string()),
                error: Some(e),
            };
        }
    };
    let bar = progress::bar_for(config, &plan);
    let outcome =
        runner::run_remounting(
            config,
            replay,
            &plan,
            target,
            stop,
            remount,
            |event| match event {
                RunEvent::PassDone(m) => progress::advance(&bar, m),
                RunEvent::RowDone(row) => {
                    bar.suspend(|| out.put(&table_row(&layout, row, config.unit)))
                }
            },
        );
    bar.finish_and_clear();
    Measured {
        cells: outcome.cells,
        phases: Vec::new(),
        status: outcome.status,
        error: outcome.error,
    }
}

/// Throughput mode: a block per phase, a run per worker count.
fn measure_throughput(
    config: &RunConfig,
    replay: &Replay,
    tp: &ThroughputConfig,
    stop: &StopFlag,
    out: &mut Output<'_>,
) -> Measured {
    out.put(&throughput_preamble(tp));
    let bar = progress::throughput_bar(config, tp);
    let outcome = runner::run_throughput(config, replay, tp, stop, |event| match event {
        ThroughputEvent::RunStart { file_bytes, .. } => {
            let record_bytes = match config.sizes {
                Sizes::Single { record_bytes, .. } => record_bytes,
                Sizes::Auto(_) => 0,
            };
            bar.suspend(|| out.put(&run_header(tp, file_bytes, record_bytes)));
        }
        ThroughputEvent::PhaseDone(phase) => {
            progress::advance_phase(&bar, phase, config);
            bar.suspend(|| out.put(&phase_block(phase, config)));
        }
        ThroughputEvent::RunEnd { .. } => bar.suspend(|| out.put("\n\n")),
    });
    bar.finish_and_clear();
    Measured {
        cells: Vec::new(),
        phases: outcome.phases,
        status: outcome.status,
        error: outcome.error,
    }
}

fn signal_name(sig: i32) -> String {
    match sig {
        2 => "SIGINT".into(),
        15 => "SIGTERM".into(),
        1 => "SIGHUP".into(),
        n => format!("signal {n}"),
    }
}

/// The current local time as ctime(3) writes it, without the newline.
fn ctime_now() -> String {
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into a buffer of 64.
    unsafe {
        let now = libc::time(std::ptr::null_mut());
        if libc::ctime_r(&now, buf.as_mut_ptr()).is_null() {
            return String::from("unknown");
        }
        std::ffi::CStr::from_ptr(buf.as_ptr())
            .to_string_lossy()
            .trim_end()
            .to_string()
    }
}

/// The current time as RFC 3339 in UTC, e.g. 2026-11-21T21:05:03Z.
pub fn utc_now_rfc3339() -> String {
    let mut buf = [0 as libc::c_char; 32];
    let format = c"%Y-%m-%dT%H:%M:%SZ";
    // SAFETY: gmtime_r fills a zeroed tm; strftime writes at most buf.len() bytes.
    unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::gmtime_r(&now, &mut tm).is_null() {
            return String::from("unknown");
        }
        let n = libc::strftime(buf.as_mut_ptr(), buf.len(), format.as_ptr(), &tm);
        std::ffi::CStr::from_bytes_until_nul(std::slice::from_raw_parts(
            buf.as_ptr().cast::<u8>(),
            n + 1,
        ))
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| String::from("unknown"))
    }
}

/// The smallest non-zero step of the monotonic clock the timings use.
fn clock_resolution_ns() -> u64 {
    let mut best = u64::MAX;
    for _ in 0..1000 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        best = best.min((b - a).as_nanos() as u64);
    }
    best
}
