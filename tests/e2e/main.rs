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
// Cluster mode on MPI: ranks under mpirun, -+m client files, the
// default build's refusals.
mod cluster;
// Single and auto mode across MPI ranks: every rank's table and their sum,
// a barrier per cell, failures, ioz compare.
mod cluster_auto;
// Cluster mode as the job grows (issue 36): lean ranks, linear stops,
// gathers in pieces, the job recorded, late starts, one clock a host, -+m's
// variables and 100,000 client lines.
mod cluster_growth;
// Cluster jobs that once hung: rank 0's stdout failing, ranks given
// different options (MPMD launches).
mod cluster_hangs;
// Cluster mode's matrix: every test, engine and option across two ranks.
mod cluster_matrix;
// Every stop of a cluster job saves: Ctrl-C to a bare mpirun in auto,
// throughput and metadata mode, a rank killed outright.
mod cluster_stops;
// Cluster mode's options across ranks: latencies, -Q, sweeps, uneven
// splits, -+k, one shared file.
mod cluster_options;
// Cluster mode at scale (issue 29): each client's target and environment,
// start skew, "Parent sees" explained, the stonewall's count measured, a
// FUSE network file system, -+t, Slurm, 64 ranks.
mod cluster_scale;
// ioz compare: runs against a baseline, IOzone logs, significance, views.
mod compare;
// Dedupable data (-+w, -+y, -+C, -+S, -+W): the 4 KiB chunks every writing
// test, engine and worker sends, compressibility, and the memory check.
mod dedup;
// Block devices as targets, on loop devices: blank ones used in place; file
// systems, swap, mounted devices and runs larger than the device refused.
mod devices;
// The mmap (-B, -D, -G, -+A) and POSIX AIO (-H, -k) engines: every column
// filled, and byte for byte the file a plain run leaves.
mod engines;
// What a new user trips on first: the CSV of a throughput run, records
// under 1 KiB, the closing line of a run that stopped, `ioz report -h`, -R
// in `ioz report`, two -b spreadsheets.
mod first_contact;
// What a result says of the system (issue 18): ioz env on a loop device and
// a tmpfs, every cell's cache regime, -M's lines, environment differences.
mod environment;
// Runs that end early: a full or read-only file system, a vanished file or
// mount point, signals, a closed or full stdout.
mod faults;
// ioz fileop: fileop's layouts, the tree's counts, the tree removed
// whatever happens; its JSON, CSV, HTML, history and comparison.
mod fileop;
// Figures a paper can use: the 2-D views, ticks and units, --plot-scale
// and --plot-log, -+k captions, a virtual disk's rotational flag, older
// saved runs rendered again.
mod figures;
// Inputs found by fuzzing: bad command lines and saved runs refused cleanly,
// degenerate results rendered.
mod fuzz_regressions;
// One grammar for every command: -h naming every command, ioz help CMD,
// did-you-mean, the man page and the completions against every help.
mod grammar;
// The history, compare and their text views against hostile input and
// faults (issue 25): a history's files never a result path, no link
// followed, reads that change nothing, the lock's bounded wait, refusals
// before the run, a full disk named, control characters shown.
mod hardening;
// The history of runs: recorded, listed, shown, imported, trends,
// regressions, `ioz compare @label:…` (always in a temporary directory).
mod history;
// --html: one self-contained page, and the same page rendered by headless
// Chromium.
mod html_report;
// --interval, --live, --interval-csv: intervals adding up to passes and
// phases, the live file as the run goes, the views, the flush cliff.
mod intervals;
// --latency, --percentiles, -+z, -+O, -+T: tables, JSON, CSV, IOzone's
// histogram and log files, the rate limit.
mod latency;
// ioz mdtest: mdtest's SUMMARY layouts, tree and item counts, phases,
// shapes, the stonewall, the tree removed; two MPI ranks.
mod mdtest;
// ioz fileop's and ioz mdtest's system calls against the peers' own
// traces (strace): the same calls, in the same order, on the same paths.
mod metadata_parity;
// ioz fileop's and ioz mdtest's trees against a hostile neighbour: a
// directory swapped for a link mid-run, a bind mount inside, control
// characters in -d.
mod tree_hostile;
// The JSON output against schema/run.schema.json, and broken documents
// that must not validate.
mod json_schema;
// Other benchmarks' result files (fio, IOR, mdtest, elbencho, IO500):
// shown, compared with ioz's runs (and why they differ), kept in the
// history, refused with the line where they broke.
mod peers;
// No page faults of ioz's own in the timed region: every pass's faults and
// context switches in the JSON, -+u and the HTML, per worker, the mmap
// engine's marked.
mod page_faults;
// What the page cache held of each pass's file (issue 37): cold after
// --drop-caches, dirty without -e, -I on ext4, mincore as cachestat, no
// probe inside a timed region.
mod residency;
// Peak memory: what the largest cell needs, not the freed buffers of the
// cells before it.
mod peak_memory;
// --plots: PNG and SVG per pass, sizes, and degenerate runs.
mod plots;
// No progress output when stderr is not a terminal.
mod progress;
// How each test opens its file (strace): IOzone's access modes, no truncate
// of a file ioz just made, and the write test's timed close on ext4.
mod open_flags;
// -K disrupted reads (the reads seen with strace) and -m multiple buffers:
// byte counts, buffer addresses, verification.
mod read_variations;
// -U: a freshly mounted ext4 for every pass, and what -U refuses.
mod remount;
// The README: its first lines, what the quick start says about building and
// installing, IOzone's usual runs as it shows them, its length and its links
// into docs/.
mod readme;
// `ioz report`: a saved run printed again byte for byte and converted to
// every format; bad saved runs refused.
mod report_roundtrip;
// --rules: the stamps in the text and the JSON, ioz check.
mod rules;
// Complete runs on small files: the table, -R, units, the data written,
// the files kept or removed.
mod runs;
// Runaway sizes and absurd numbers: memory, read limits, bounds, all
// refused before anything runs (under a memory and a time limit).
mod safety_limits;
// Result files never land on a device, an input of the command, another
// output or a user's file, nor in a place that cannot hold them; they are
// renamed into place, so a failed write keeps the old file.
mod safety_outputs;
// An unwritable stderr or stdout never panics; one Ctrl-C in throughput
// mode is one stop, however it arrives; workers die with their parent.
mod safety_signals;
// The test file is ioz's alone: replaced files and links left alone, forged
// owner marks, a second run refused, files ioz cannot create refused before
// the header, files it cannot remove named last.
mod safety_targets;
// -b .xls/.wks (IOzone's BIFF layout) and .xlsx: the numbers of the -R report.
mod spreadsheets;
mod stops;
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
// Single-run variations: --drop-caches, -J, -+q, -+N, -+u CPU blocks, cache
// sizes and -p, -+E, the sequential mix (-+B) and -Z, -Q latency files.
mod variations;
// -V and -+d proved by fault injection (the byte-flipping shim).
mod verify;
// The analysis half (issue 26): comparison and latency pages in Chromium at
// 1,400 px, environment differences, the trend's nearest run, one rank of a
// cluster run, scaling tables, blank cells, kB, marks, -M's target.
mod views;

fn main() -> std::process::ExitCode {
    fixtures::harness::main(vec![
        // The harness itself: a missing need makes a test ignored, not passed.
        fixtures::harness::tests(),
        cli_errors::tests(),
        cluster::tests(),
        cluster_auto::tests(),
        cluster_growth::tests(),
        cluster_hangs::tests(),
        cluster_matrix::tests(),
        cluster_options::tests(),
        cluster_scale::tests(),
        cluster_stops::tests(),
        compare::tests(),
        dedup::tests(),
        devices::tests(),
        engines::tests(),
        environment::tests(),
        faults::tests(),
        fileop::tests(),
        figures::tests(),
        first_contact::tests(),
        fuzz_regressions::tests(),
        grammar::tests(),
        hardening::tests(),
        history::tests(),
        html_report::tests(),
        intervals::tests(),
        json_schema::tests(),
        latency::tests(),
        mdtest::tests(),
        metadata_parity::tests(),
        tree_hostile::tests(),
        open_flags::tests(),
        page_faults::tests(),
        residency::tests(),
        peak_memory::tests(),
        peers::tests(),
        plots::tests(),
        progress::tests(),
        read_variations::tests(),
        remount::tests(),
        readme::tests(),
        report_roundtrip::tests(),
        rules::tests(),
        runs::tests(),
        safety_limits::tests(),
        safety_outputs::tests(),
        safety_signals::tests(),
        safety_targets::tests(),
        spreadsheets::tests(),
        stops::tests(),
        telemetry::tests(),
        throughput::tests(),
        throughput_variations::tests(),
        uring::tests(),
        variations::tests(),
        verify::tests(),
        views::tests(),
    ])
}
