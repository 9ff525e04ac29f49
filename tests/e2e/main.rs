//! The end-to-end tests: the real `ioz` binary run in temporary directories,
//! one module per area, in one test binary with its own harness
//! (libtest-mimic; see fixtures/harness.rs). `cargo test` runs them with the
//! unit tests; `cargo test <filter>` selects by `module::test` name.
//!
//! A test that needs something of this machine (root, a tmpfs, a loop
//! device, strace, io_uring, Chromium…) declares it in its module's
//! `trials![…]` list; where it is missing the test is listed as ignored with
//! the reason, never counted as passed.
//!
//! Shared fixtures live in fixtures/ (the runner and output helpers,
//! `assert_refused`, mounts and loop devices, the fault-injection shim,
//! headless Chromium); data files in tests/fixtures/ (the shim's C source,
//! IOzone's reference outputs).

mod fixtures;

// Command lines refused before any I/O: exit 2, one `ioz:` line naming the
// culprit, nothing on stdout, nothing written.
mod cli_errors;
// -+w/-+y/-+C dedupable data: the chunk layout every engine and worker
// writes, compressibility, and the memory check.
mod dedup;
// Block devices as targets, on loop devices: blank ones used in place; file
// systems, swap, mounted devices and runs larger than the device refused.
mod devices;
// The I/O engines (sync, psync, mmap, stdio, aio, io_uring…): every column
// filled and the same bytes written as a plain run.
mod engines;
// Runs that end early: a full or read-only file system, a vanished file or
// mount point, signals, a closed or full stdout.
mod faults;
// Inputs found by fuzzing: bad command lines and saved runs refused cleanly,
// degenerate results rendered.
mod fuzz_regressions;
// --html: one self-contained page, and the same page rendered by headless
// Chromium.
mod html_report;
// The JSON output against schema/ioz.schema.json.
mod json_schema;
// --plots: PNG and SVG per pass, sizes, and degenerate runs.
mod plots;
// No progress output when stderr is not a terminal.
mod progress;
// -K disrupted reads (seen with strace), multi-buffer (-m) and the byte
// counts of the read variations.
mod read_variations;
// -U: a freshly mounted ext4 for every pass, and what -U refuses.
mod remount;
// `ioz report`: a saved run printed again byte for byte and converted to
// every format; bad saved runs refused.
mod report_roundtrip;
// Complete runs on small files: the table, -R, units, the data written,
// the files kept or removed.
mod runs;
// -b .xls/.wks (IOzone's BIFF layout) and .xlsx: the numbers of the -R report.
mod spreadsheets;
// -X/-Y telemetry replay: the bytes written, the system calls made, the
// refusals.
mod telemetry;
// Throughput mode (-t, -l/-u, -T): the IOzone blocks, JSON, refusals, a full
// disk, SIGINT.
mod throughput;
// Throughput mode with -V, -Q, mixes (-+K) and corrupted reads.
mod throughput_variations;
// --engine io_uring: every test at depths 1 and 32, files like the sync
// engine's, O_DIRECT, workers, refused io_uring and refused fixed buffers.
mod uring;
// Cache and timing controls: --drop-caches, -J, -+q, -+N, -c/-e, -+E, -Q.
mod variations;
// -V and -+d proved by fault injection (the byte-flipping shim).
mod verify;

fn main() -> std::process::ExitCode {
    fixtures::harness::main(vec![
        cli_errors::tests(),
        dedup::tests(),
        devices::tests(),
        engines::tests(),
        faults::tests(),
        fuzz_regressions::tests(),
        html_report::tests(),
        json_schema::tests(),
        plots::tests(),
        progress::tests(),
        read_variations::tests(),
        remount::tests(),
        report_roundtrip::tests(),
        runs::tests(),
        spreadsheets::tests(),
        telemetry::tests(),
        throughput::tests(),
        throughput_variations::tests(),
        uring::tests(),
        variations::tests(),
        verify::tests(),
    ])
}
