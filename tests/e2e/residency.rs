//! What the page cache held of each pass's file (issue 37): read cold after
//! --drop-caches and warm without it, writes left dirty without -e and not
//! with it, -I on ext4 leaving the cache as it was, the mincore fallback
//! counting what cachestat counts, and no probe inside a timed region.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::fixtures::{Ext4, IOZ, Test, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_read_after_drop_caches_starts_cold_and_one_without_warm => [Ext4],
        a_write_without_e_ends_dirty_and_with_e_clean => [Ext4],
        direct_io_on_ext4_leaves_the_cache_as_it_was => [Ext4],
        the_mincore_fallback_counts_what_cachestat_counts,
        no_probe_falls_inside_a_timed_region => [Strace],
        a_rate_forged_above_memcpy_is_flagged_by_ioz_report,
    ]
}

/// Runs ioz on `file` with `args`, `--json`, and `env`; the saved run and stdout.
fn run_json(file: &Path, args: &[&str], env: &[(&str, &str)]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let mut cmd = Command::new(IOZ);
    cmd.args(args)
        .args([
            "-f",
            file.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ])
        .current_dir(dir.path())
        .env("IOZ_NO_HISTORY", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run(&mut cmd);
    out.expect_code(0);
    let doc = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    (doc, out.stdout.clone())
}

/// Each measurement's pass and residency, in order.
fn residencies(doc: &Value) -> Vec<(String, Value)> {
    doc["cells"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["measurements"].as_array().unwrap())
        .map(|m| (m["pass"].as_str().unwrap().to_string(), m.clone()))
        .collect()
}

/// The residency of `pass` (the first such measurement).
fn of<'a>(all: &'a [(String, Value)], pass: &str) -> &'a Value {
    &all.iter()
        .find(|(p, _)| p == pass)
        .unwrap_or_else(|| panic!("no {pass} in {all:?}"))
        .1["residency"]
}

fn count(r: &Value, at: &str, what: &str) -> u64 {
    r[at][what]
        .as_u64()
        .unwrap_or_else(|| panic!("no {at}.{what} in {r}"))
}

/// Share of the file's pages cached at `at`.
fn cached(r: &Value, at: &str) -> f64 {
    count(r, at, "cached") as f64 / count(r, at, "pages").max(1) as f64
}

const FOUR_MIB_PAGES: u64 = (4 << 20) / 4096;

fn a_read_after_drop_caches_starts_cold_and_one_without_warm() {
    let fs = Ext4::new("noatime");
    let file = fs.mnt().join("t.tmp");
    let args = ["-s", "4m", "-r", "64k", "-i", "0", "-i", "1"];
    let mut cold = args.to_vec();
    cold.push("--drop-caches");
    let (doc, stdout) = run_json(&file, &cold, &[]);
    let all = residencies(&doc);
    for pass in ["read", "reread"] {
        let r = of(&all, pass);
        assert_eq!(count(r, "start", "pages"), FOUR_MIB_PAGES, "{r}");
        // --drop-caches drops before every pass that reads.
        assert!(cached(r, "start") < 0.05, "{pass} not cold: {r}");
        // It read the whole file.
        assert!(cached(r, "end") > 0.95, "{pass}: {r}");
    }
    let read = all.iter().find(|(p, _)| p == "read").unwrap();
    assert_eq!(read.1["regime"]["measured"]["code"], "device");
    assert_eq!(read.1["regime"]["guess"], false);
    assert!(stdout.contains("What the page cache held"), "{stdout}");
    assert!(!stdout.contains("did not start cold"), "{stdout}");

    let (doc, _) = run_json(&file, &args, &[]);
    let all = residencies(&doc);
    for pass in ["read", "reread"] {
        let r = of(&all, pass);
        assert!(cached(r, "start") > 0.95, "{pass} not warm: {r}");
    }
    let reread = all.iter().find(|(p, _)| p == "reread").unwrap();
    assert_eq!(reread.1["regime"]["measured"]["code"], "page_cache");
}

fn a_write_without_e_ends_dirty_and_with_e_clean() {
    let fs = Ext4::new("noatime");
    let file = fs.mnt().join("t.tmp");
    let args = ["-s", "4m", "-r", "64k", "-i", "0"];
    let (doc, stdout) = run_json(&file, &args, &[]);
    let all = residencies(&doc);
    let w = of(&all, "write");
    if w["source"] != "cachestat" {
        crate::fixtures::skip("cachestat is not in this kernel: no dirty counts");
    }
    let unwritten = count(w, "end", "dirty") + count(w, "end", "writeback");
    // ext4's writeback may start on its own, but not within the write of
    // 4 MiB: most of the file is still dirty as the clock stops.
    assert!(unwritten > FOUR_MIB_PAGES / 2, "{w}");
    assert!(stdout.contains("left dirty"), "{stdout}");

    let mut with_e = args.to_vec();
    with_e.push("-e");
    let (doc, stdout) = run_json(&file, &with_e, &[]);
    let all = residencies(&doc);
    let w = of(&all, "write");
    assert_eq!(
        count(w, "end", "dirty") + count(w, "end", "writeback"),
        0,
        "{w}"
    );
    assert!(
        stdout.contains("the clock covered the flush: -e"),
        "{stdout}"
    );
    let m = &all.iter().find(|(p, _)| p == "write").unwrap().1;
    assert_eq!(m["regime"]["measured"]["code"], "written_through", "{m}");
}

fn direct_io_on_ext4_leaves_the_cache_as_it_was() {
    let fs = Ext4::new("noatime");
    let file = fs.mnt().join("t.tmp");
    let (doc, stdout) = run_json(
        &file,
        &[
            "-I", "-s", "4m", "-r", "64k", "-i", "0", "-i", "1", "-i", "2",
        ],
        &[],
    );
    let all = residencies(&doc);
    assert_eq!(all.len(), 6, "{all:?}");
    for (pass, m) in &all {
        let r = &m["residency"];
        assert!(
            count(r, "end", "cached") <= count(r, "start", "cached"),
            "{pass} grew the cache under -I: {r}"
        );
        assert_eq!(count(r, "end", "cached"), 0, "{pass}: {r}");
    }
    assert!(!stdout.contains("did not honour O_DIRECT"), "{stdout}");
}

fn the_mincore_fallback_counts_what_cachestat_counts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.tmp");
    let args = ["-s", "2m", "-r", "64k", "-i", "0", "-i", "1", "-i", "2"];
    let (best, _) = run_json(&file, &args, &[]);
    let (mincore, stdout) = run_json(&file, &args, &[("IOZ_RESIDENCY", "mincore")]);
    let (best, mincore) = (residencies(&best), residencies(&mincore));
    assert_eq!(best.len(), mincore.len());
    for ((pass, a), (_, b)) in best.iter().zip(&mincore) {
        let (a, b) = (&a["residency"], &b["residency"]);
        assert_eq!(b["source"], "mincore", "{b}");
        assert!(
            b["end"].get("dirty").is_none(),
            "mincore counts no dirty pages: {b}"
        );
        for at in ["start", "end"] {
            assert_eq!(a[at]["pages"], b[at]["pages"], "{pass} {at}");
            assert_eq!(a[at]["cached"], b[at]["cached"], "{pass} {at}: {a} {b}");
        }
    }
    assert!(stdout.contains("(mincore;"), "{stdout}");
    // Off: nothing measured, and the JSON's regime says it is a guess.
    let (off, stdout) = run_json(&file, &args, &[("IOZ_RESIDENCY", "off")]);
    for (_, m) in residencies(&off) {
        assert_eq!(m["residency"]["source"], "unknown", "{m}");
        assert_eq!(m["regime"]["guess"], true, "{m}");
    }
    assert!(!stdout.contains("What the page cache held"), "{stdout}");
}

/// Under `strace -f`, the measuring thread's getrusage calls come in pairs
/// around each timed region (runner/single.rs): no cachestat (syscall 451),
/// mincore or mmap between them, and two cachestat or mincore calls per
/// pass outside.
fn no_probe_falls_inside_a_timed_region() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for forced in ["best", "mincore"] {
        let trace = d.join(format!("trace-{forced}.txt"));
        let out = Command::new("strace")
            .args(["-f", "-o", trace.to_str().unwrap(), IOZ])
            .args(["-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-i", "2"])
            .args(["-f", d.join("t.tmp").to_str().unwrap()])
            .env("IOZ_NO_HISTORY", "1")
            .env("IOZ_RESIDENCY", forced)
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = fs::read_to_string(&trace).unwrap();
        let probe = |call: &str| {
            call.starts_with("syscall_0x1c3(")
                || call.starts_with("cachestat(")
                || call.starts_with("mincore(")
        };
        let mut inside = false;
        let (mut regions, mut probes, mut measuring) = (0, 0, None);
        for line in text.lines() {
            let (pid, call) = line.split_once(char::is_whitespace).unwrap_or(("", line));
            let call = call.trim_start();
            if call.starts_with("getrusage(RUSAGE_SELF") {
                assert!(
                    measuring.is_none_or(|m| m == pid),
                    "getrusage from two threads"
                );
                measuring = Some(pid);
                inside = !inside;
                regions += usize::from(inside);
                continue;
            }
            if inside && Some(pid) == measuring {
                assert!(
                    !probe(call) && !call.starts_with("mmap("),
                    "{forced}: {call} inside a timed region"
                );
            }
            if probe(call) {
                probes += 1;
            }
        }
        // Six passes: write, rewrite, read, reread, random read, random write.
        assert_eq!(regions, 6, "{forced}");
        assert!(!inside);
        // mincore maps nothing of an empty file: the first write starts on one.
        let expected = if forced == "mincore" {
            2 * regions - 1
        } else {
            2 * regions
        };
        assert_eq!(probes, expected, "{forced}: a probe before and after each");
    }
}

/// The ceilings are saved with the run (and nothing of the ceiling's cached
/// read is left beside the test file); a saved read's rate edited above
/// memcpy's is flagged impossible, with both numbers, by `ioz report`, in
/// its text and in the JSON it writes again.
fn a_rate_forged_above_memcpy_is_flagged_by_ioz_report() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.tmp");
    let args = ["-s", "1m", "-r", "64k", "-i", "0", "-i", "1"];
    let (mut doc, stdout) = run_json(&file, &args, &[]);
    assert!(!stdout.contains("impossible"), "{stdout}");
    let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left beside the test file: {left:?}");
    let ceilings = &doc["ceilings"];
    let memcpy = ceilings["memcpy_bytes_per_sec"].as_f64().expect("memcpy");
    assert!(memcpy > 0.0, "{ceilings}");
    assert!(ceilings["cached_read_bytes_per_sec"].as_f64().unwrap() > 0.0);
    assert_eq!(ceilings["impossible"], serde_json::json!([]));
    // The read: four times memcpy's rate, its derived fields to match.
    let m = doc["cells"][0]["measurements"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["pass"] == "read")
        .unwrap();
    let bytes = m["bytes"].as_u64().unwrap();
    let records = m["records"].as_u64().unwrap();
    let elapsed = ((bytes as f64 / (4.0 * memcpy)) * 1e9).floor().max(1.0);
    let rate = bytes as f64 / (elapsed / 1e9);
    assert!(rate > memcpy);
    m["elapsed_ns"] = serde_json::json!(elapsed as u64);
    m["kib_per_sec"] = serde_json::json!((rate as u64) >> 10);
    m["ops_per_sec"] = serde_json::json!((records as f64 / (elapsed / 1e9)) as u64);
    m["micros_per_op"] = serde_json::json!(0);
    let saved = dir.path().join("forged.json");
    fs::write(&saved, serde_json::to_string(&doc).unwrap()).unwrap();
    let again = dir.path().join("again.json");
    let out = run(Command::new(IOZ)
        .args(["report", saved.to_str().unwrap(), "--text"])
        .args(["--json", again.to_str().unwrap()])
        .env("IOZ_NO_HISTORY", "1"));
    out.expect_code(0);
    let line = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("! read at 1024 kB/64 kB:"))
        .unwrap_or_else(|| panic!("no flag: {}", out.stdout));
    assert!(line.contains("above the memcpy ceiling of"), "{line}");
    assert!(line.ends_with("impossible"), "{line}");
    // Only the forged cell.
    assert_eq!(
        out.stdout.matches("impossible").count(),
        1,
        "{}",
        out.stdout
    );
    let doc: Value = serde_json::from_str(&fs::read_to_string(&again).unwrap()).unwrap();
    let found = doc["ceilings"]["impossible"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["pass"], "read");
    assert_eq!(found[0]["ceiling"], "memcpy");
    assert_eq!(found[0]["ceiling_bytes_per_sec"].as_f64(), Some(memcpy));
    let flagged = found[0]["bytes_per_sec"].as_f64().unwrap();
    assert!((flagged - rate).abs() / rate < 1e-9, "{flagged} {rate}");
}
