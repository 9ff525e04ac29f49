//! How each test opens its file, seen with strace: the access mode IOzone
//! uses for it (../shared/IOZONE-SEMANTICS.md §2 and §4), and nothing of
//! ioz's own bookkeeping (creating, marking, checking, locking the file)
//! that changes the timed part: no truncate of the file it has just made,
//! which on ext4 made the write test's timed close (-c) start writeback.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::fixtures::{Ext4, IOZ, Test, data_file, ioz, list_dir, quiet, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        every_single_mode_test_opens_its_file_as_iozone_does => [Strace],
        every_throughput_phase_opens_its_files_as_iozone_does => [Strace],
        a_kept_file_is_cut_before_the_write_test_as_iozone_s_creat_cuts_it => [Strace],
        the_write_test_s_timed_close_on_ext4_starts_no_writeback => [Root, Ext4, Strace],
        direct_io_makes_iozone_s_calls_on_the_test_file => [Strace, ODirect],
    ]
}

/// How a pass opens its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    ReadOnly,
    ReadWrite,
}

/// IOzone's open of each pass in single and auto mode (§2). IOzone adds
/// O_CREAT to some, which ioz leaves out: its file exists by then (made
/// with O_CREAT|O_EXCL when claimed), the kernel keeps no trace of O_CREAT
/// in an open file, and a file removed mid-run must stop the run, not be
/// made again.
fn iozone_single(pass: &str) -> Access {
    use Access::*;
    match pass {
        // creat(), close, then open(O_RDWR).
        "write" => ReadWrite,
        "rewrite" => ReadWrite,
        "read" | "reread" => ReadOnly,
        // Both random passes: O_RDWR|O_CREAT, reading or writing.
        "random_read" | "random_write" => ReadWrite,
        "backward_read" | "stride_read" => ReadOnly,
        // O_RDWR|O_CREAT.
        "record_rewrite" => ReadWrite,
        // fopen "r+" (the file exists).
        "fwrite" | "frewrite" => ReadWrite,
        // fopen "r".
        "fread" | "freread" => ReadOnly,
        // O_RDWR|O_CREAT; pread O_RDONLY.
        "pwrite" | "repwrite" => ReadWrite,
        "pread" | "repread" => ReadOnly,
        // Not in IOzone 3.414's build (§2.12), nor is the mix in single
        // mode (§2.9): as the passes of the same direction.
        "pwritev" | "repwritev" | "random_mix" => ReadWrite,
        "preadv" | "repreadv" => ReadOnly,
        other => panic!("no IOzone open known for pass {other}"),
    }
}

/// IOzone's open of each throughput phase (§4.2): readers of every kind,
/// random readers too, O_RDONLY; writers O_RDWR (O_CREAT, no truncation).
fn iozone_throughput(pass: &str) -> Access {
    match pass {
        "random_read" => Access::ReadOnly,
        other => iozone_single(other),
    }
}

/// One open of the test file in a trace.
#[derive(Debug)]
struct Open {
    flags: String,
}

impl Open {
    fn access(&self) -> Access {
        if self.flags.contains("O_RDWR") {
            Access::ReadWrite
        } else {
            assert!(self.flags.contains("O_RDONLY"), "{}", self.flags);
            Access::ReadOnly
        }
    }

    fn creates(&self) -> bool {
        self.flags.contains("O_CREAT")
    }
}

/// What a trace shows of the file `path`: its opens in order, and the
/// truncations of it (ftruncate through a descriptor of it, or truncate).
struct Traced {
    opens: Vec<Open>,
    truncations: Vec<String>,
}

/// Runs `ioz args…` in `dir` under `strace -f -y` (threads and processes
/// alike) and returns the trace, with the run's JSON.
fn traced(dir: &Path, args: &[&str]) -> (String, Value) {
    let out = Command::new("strace")
        .args([
            "-f",
            "-y",
            "-s",
            "4096",
            "-e",
            "trace=openat,open,creat,ftruncate,truncate",
            "-o",
            "trace.txt",
            IOZ,
        ])
        .args(args)
        .args(["--json", "r.json"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ioz {} under strace failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let trace = fs::read_to_string(dir.join("trace.txt")).unwrap();
    let json: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    fs::remove_file(dir.join("trace.txt")).unwrap();
    fs::remove_file(dir.join("r.json")).unwrap();
    (trace, json)
}

fn parse(trace: &str, path: &str) -> Traced {
    let quoted = format!("\"{path}\"");
    let mut opens = Vec::new();
    let mut truncations = Vec::new();
    for line in trace.lines() {
        // Drop the pid strace -f puts first.
        let line = line
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        if line.starts_with("<...") {
            continue; // the end of an unfinished call, shown before
        }
        if line.starts_with("open") || line.starts_with("creat") {
            let Some(at) = line.find(&quoted) else {
                continue;
            };
            let rest = &line[at + quoted.len()..];
            let flags = rest
                .trim_start_matches(", ")
                .split([',', ')', ' '])
                .next()
                .unwrap_or("");
            // A failed open is no pass's (none is expected).
            assert!(!line.contains("= -1"), "a failed open: {line}");
            opens.push(Open {
                flags: flags.to_string(),
            });
        } else if (line.starts_with("ftruncate(") && line.contains(&format!("<{path}>")))
            || (line.starts_with("truncate(") && line.contains(&quoted))
        {
            truncations.push(line.to_string());
        }
    }
    Traced { opens, truncations }
}

/// The passes of a run's JSON, in order: single mode's measurements of the
/// one cell, or throughput mode's phases.
fn passes_of(json: &Value) -> Vec<String> {
    let list = match json["throughput"].as_array() {
        Some(phases) if !phases.is_empty() => phases.clone(),
        _ => json["cells"][0]["measurements"].as_array().unwrap().clone(),
    };
    list.iter()
        .map(|m| m["pass"].as_str().unwrap().to_string())
        .collect()
}

/// Checks the opens of one file: the claim first (the only create, with
/// O_EXCL, read-only: it holds the run's lock), then one open per pass with
/// IOzone's access mode, no O_TRUNC anywhere and no truncation at all.
fn check(traced: &Traced, passes: &[String], iozone: fn(&str) -> Access, what: &str) {
    assert!(
        traced.truncations.is_empty(),
        "{what}: ioz truncated the file it had just made: {:?}",
        traced.truncations
    );
    let (claim, rest) = traced.opens.split_first().expect("the file was opened");
    assert!(
        claim.creates() && claim.flags.contains("O_EXCL") && claim.access() == Access::ReadOnly,
        "{what}: the first open makes the file: {claim:?}"
    );
    // One open per pass; IOzone's fread passes open a second descriptor,
    // read-only, to fsync the file (IOZONE-SEMANTICS.md §2.8).
    let expected: Vec<(&String, Access)> = passes
        .iter()
        .flat_map(|pass| {
            let second = matches!(pass.as_str(), "fread" | "freread");
            std::iter::once((pass, iozone(pass))).chain(second.then_some((pass, Access::ReadOnly)))
        })
        .collect();
    assert_eq!(
        rest.len(),
        expected.len(),
        "{what}: an open per pass (two for fread): {:?} for {passes:?}",
        traced.opens
    );
    for (open, (pass, access)) in rest.iter().zip(expected) {
        assert!(!open.flags.contains("O_TRUNC"), "{what} {pass}: {open:?}");
        assert!(!open.creates(), "{what} {pass}: {open:?}");
        assert_eq!(open.access(), access, "{what} {pass}: {open:?}");
    }
}

const EVERY_TEST: [&str; 26] = [
    "-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i", "4", "-i", "5", "-i", "6", "-i", "7", "-i",
    "8", "-i", "9", "-i", "10", "-i", "11", "-i", "12",
];

fn every_single_mode_test_opens_its_file_as_iozone_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let p = path.to_str().unwrap();
    for extra in [&[][..], &["--engine", "psync"], &["-c", "-e"]] {
        let mut args = vec!["-s", "64k", "-r", "4k", "-f", p];
        args.extend(EVERY_TEST);
        args.extend(extra);
        let (trace, json) = traced(dir.path(), &args);
        let passes = passes_of(&json);
        assert_eq!(passes.len(), 22, "{passes:?}");
        check(&parse(&trace, p), &passes, iozone_single, &args.join(" "));
    }
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn every_throughput_phase_opens_its_files_as_iozone_does() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.tmp");
    let b = dir.path().join("b.tmp");
    for threads in [true, false] {
        let mut args = vec!["-t", "2", "-s", "64k", "-r", "4k", "-x"];
        if threads {
            args.push("-T");
        }
        // Every test but record rewrite, which has no throughput form.
        for t in EVERY_TEST.chunks(2).filter(|t| t[1] != "4") {
            args.extend(t);
        }
        args.extend(["-F", a.to_str().unwrap(), b.to_str().unwrap()]);
        let (trace, json) = traced(dir.path(), &args);
        let passes = passes_of(&json);
        assert!(passes.len() >= 13, "{passes:?}");
        for file in [&a, &b] {
            let what = format!("{} ({})", args.join(" "), file.display());
            let file = parse(&trace, file.to_str().unwrap());
            check(&file, &passes, iozone_throughput, &what);
        }
    }
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn a_kept_file_is_cut_before_the_write_test_as_iozone_s_creat_cuts_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.tmp");
    let p = p.to_str().unwrap();
    ioz(dir.path(), &["-s", "64k", "-i", "0", "-w", "-f", p]).expect_code(0);
    // A smaller run on ioz's kept file: the write test cuts it first (after
    // checking it is that file), as IOzone's creat of an existing file does.
    let (trace, _) = traced(dir.path(), &["-s", "32k", "-i", "0", "-w", "-f", p]);
    let traced = parse(&trace, p);
    assert_eq!(traced.truncations.len(), 1, "{:?}", traced.truncations);
    assert!(
        traced.truncations[0].contains(", 0)"),
        "{:?}",
        traced.truncations
    );
    assert!(traced.opens.iter().all(|o| !o.flags.contains("O_TRUNC")));
    assert_eq!(fs::metadata(p).unwrap().len(), 32 << 10);
}

/// The time `close` took, for each close of `path` in an `strace -T -y` trace.
fn close_times(trace: &str, path: &str) -> Vec<f64> {
    trace
        .lines()
        .filter(|l| l.starts_with("close(") && l.contains(&format!("<{path}>")))
        .map(|l| {
            let t = l.rsplit_once('<').unwrap().1.trim_end_matches('>');
            t.parse::<f64>().unwrap()
        })
        .collect()
}

fn the_write_test_s_timed_close_on_ext4_starts_no_writeback() {
    // IOzone's own figure (its test file made by creat): 0.02 ms. ioz's
    // close was 1–3 ms: it truncated the file it had just made, which on
    // ext4 arms auto_da_alloc, and the close then starts writeback.
    let fs = Ext4::new("relatime");
    let file = fs.mnt().join("w.tmp");
    let path = file.to_str().unwrap();
    let mut write_closes = Vec::new();
    let mut rewrite_closes = Vec::new();
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    // With writeback started the write's close is 10–50× the rewrite's.
    let fine = |w: &[f64], r: &[f64]| best(w) <= 4.0 * best(r) + 0.000_2;
    // Three runs, up to nine while the best write close is over: a busy
    // machine stretches a 20 µs call now and then, writeback every time.
    for run in 0..9 {
        if run >= 3 && fine(&write_closes, &rewrite_closes) {
            break;
        }
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("strace")
            .args([
                "-T",
                "-y",
                "-e",
                "trace=close,ftruncate",
                "-o",
                "trace.txt",
                IOZ,
            ])
            .args(["-s", "16m", "-r", "4k", "-i", "0", "-c", "-f", path])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let trace = fs::read_to_string(dir.path().join("trace.txt")).unwrap();
        assert!(
            !trace.lines().any(|l| l.starts_with("ftruncate(")),
            "the new file was truncated:\n{trace}"
        );
        // The write pass's close, the rewrite pass's, then the lock's.
        let closes = close_times(&trace, path);
        assert!(closes.len() >= 2, "{trace}");
        write_closes.push(closes[0]);
        rewrite_closes.push(closes[1]);
    }
    let (write, rewrite) = (best(&write_closes), best(&rewrite_closes));
    if !fine(&write_closes, &rewrite_closes) {
        quiet::skip_unless_wakes_on_time(
            std::time::Duration::from_millis(1),
            "timing a 20 µs close",
        );
    }
    assert!(
        fine(&write_closes, &rewrite_closes),
        "the write pass's timed close took {write} s (best of {}), the rewrite's {rewrite} s: {write_closes:?}",
        write_closes.len()
    );
    assert!(!file.exists());
}

/// The flags ioz adds to every open of its test file on purpose (engine/
/// open.rs: a link or a FIFO put in its place is refused, no descriptor
/// leaks into a child), and the one strace shows on some systems.
const GUARD_FLAGS: [&str; 4] = ["O_NONBLOCK", "O_NOFOLLOW", "O_CLOEXEC", "O_LARGEFILE"];

/// The opens and syncs of the file named `name` in a trace of `strace -f`
/// (with or without -y), in order, names normalised: an open as
/// `open#N FLAGS` (N counting the file's opens from 1, ioz's guard flags
/// left out), a sync as `fsync#N` of the open whose descriptor it is.
/// Calls strace split in two (`<unfinished ...>`, `<... resumed>`) are
/// joined first. With `claim`, the file's first open is ioz's claim of it
/// (O_CREAT|O_EXCL, read-only, held to the end of the run): checked, and
/// neither listed nor counted.
fn calls_on(trace: &str, name: &str, claim: bool) -> Vec<String> {
    let mut pending: std::collections::HashMap<String, String> = Default::default();
    let mut holder: std::collections::HashMap<i64, usize> = Default::default();
    let mut claimed = !claim;
    let mut opens = 0;
    let mut calls = Vec::new();
    for raw in trace.lines() {
        // strace -f puts the pid first when there are several.
        let (pid, line) = match raw.split_once(' ') {
            Some((p, rest)) if p.chars().all(|c| c.is_ascii_digit()) => (p, rest.trim_start()),
            _ => ("", raw),
        };
        let line = if let Some(head) = line.strip_suffix(" <unfinished ...>") {
            pending.insert(pid.to_string(), head.to_string());
            continue;
        } else if line.starts_with("<... ") {
            let Some(head) = pending.remove(pid) else {
                continue;
            };
            let tail = line.split_once("resumed>").map_or("", |(_, t)| t);
            format!("{head}{tail}")
        } else {
            line.to_string()
        };
        let plain = without_fd_paths(&line);
        let fd: Option<i64> = plain
            .rsplit_once("= ")
            .and_then(|(_, r)| r.split_whitespace().next()?.parse().ok());
        if let Some(args) = plain.strip_prefix("openat(") {
            let quoted: Vec<&str> = args.split('"').collect();
            let (Some(path), Some(rest), Some(fd)) =
                (quoted.get(1), quoted.get(2), fd.filter(|&fd| fd >= 0))
            else {
                continue;
            };
            if Path::new(path).file_name() != Some(std::ffi::OsStr::new(name)) {
                holder.remove(&fd);
                continue;
            }
            let flags = rest
                .trim_start_matches(", ")
                .split([',', ')'])
                .next()
                .unwrap_or("")
                .split('|')
                .filter(|f| !GUARD_FLAGS.contains(f))
                .collect::<Vec<_>>()
                .join("|");
            if !claimed {
                assert_eq!(flags, "O_RDONLY|O_CREAT|O_EXCL", "the claim first: {line}");
                claimed = true;
                holder.remove(&fd);
                continue;
            }
            opens += 1;
            holder.insert(fd, opens);
            calls.push(format!("open#{opens} {flags}"));
        } else if let Some(call) = ["fsync(", "fdatasync("]
            .into_iter()
            .find(|c| plain.starts_with(c))
        {
            let arg: Option<i64> = plain[call.len()..]
                .split(')')
                .next()
                .and_then(|a| a.trim().parse().ok());
            if let Some(n) = arg.and_then(|fd| holder.get(&fd)) {
                calls.push(format!("{}#{n}", call.trim_end_matches('(')));
            }
        }
    }
    calls
}

/// `line` without strace -y's `<path>` after each descriptor (outside the
/// quoted strings).
fn without_fd_paths(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let (mut in_path, mut in_string) = (false, false);
    for c in line.chars() {
        match c {
            '"' if !in_path => {
                in_string = !in_string;
                out.push(c);
            }
            '<' if !in_string => in_path = true,
            '>' if in_path => in_path = false,
            _ if in_path => {}
            _ => out.push(c),
        }
    }
    out
}

/// `-I` with the stdio tests, beside IOzone's trace of the same command
/// (tests/fixtures/strace/iozone_I_stdio.txt): every open and
/// sync of the test file in IOzone's order, O_DIRECT on tests 0 and 1
/// only (fopen opens tests 6 and 7 without it), an fsync before and after
/// every pass, and fread's fsync through a second descriptor. Before,
/// ioz opened tests 6 and 7 with O_DIRECT (fread at 0.30× IOzone's).
/// ioz's one call of its own is the claim of the file, where IOzone's
/// write test calls creat(), which the reference's filter leaves out.
fn direct_io_makes_iozone_s_calls_on_the_test_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("strace")
        .args([
            "-f",
            "-y",
            "-e",
            "trace=openat,fsync,fdatasync",
            "-o",
            "trace.txt",
        ])
        .arg(IOZ)
        .args([
            "-I", "-s", "4m", "-r", "64k", "-i", "0", "-i", "1", "-i", "6", "-i", "7",
        ])
        .args(["-f", "t.tmp"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trace = fs::read_to_string(dir.path().join("trace.txt")).unwrap();
    let ours = calls_on(&trace, "t.tmp", true);
    let reference = fs::read_to_string(data_file("strace/iozone_I_stdio.txt")).unwrap();
    let iozone = calls_on(&reference, "t.tmp", false);
    assert_eq!(iozone.len(), 24, "{iozone:?}");
    assert_eq!(ours, iozone, "ioz's calls (left) against IOzone's");
    // The text says what IOzone's says of -I, and nothing more.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\tO_DIRECT feature enabled\n"), "{stdout}");
    assert!(!stdout.to_lowercase().contains("fopen"), "{stdout}");
}
