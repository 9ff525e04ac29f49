//! What a result says of the system it measured (issue 18): `ioz env` on a
//! loop device's file system (its backing file underneath) and on a tmpfs
//! (no device); the cache regime of every cell checked against the sizes
//! the run recorded, and none cached with -I; -M's header lines and the
//! HTML's regime markers; two runs whose loop device had its scheduler
//! switched differ by exactly the scheduler.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde_json::Value;

use crate::fixtures::{Ext4, Test, Tmpfs, assert_refused, ioz, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        env_on_a_loop_device_file_system_shows_the_backing_file_underneath => [Root, LoopDevice, Ext4],
        env_on_a_tmpfs_shows_no_device => [Tmpfs],
        env_json_is_the_environment_a_run_saves,
        env_of_a_path_in_a_missing_directory_is_refused,
        every_cell_of_a_small_auto_run_is_in_the_regime_of_its_size,
        a_direct_io_run_has_no_cached_cell => [ODirect],
        a_throughput_phase_is_judged_by_all_its_workers_files,
        dash_m_prints_the_settings_after_uname_and_the_html_marks_each_cell,
        two_runs_with_the_scheduler_switched_differ_by_exactly_the_scheduler => [Root, LoopDevice, Ext4],
    ]
}

/// The value of `name: value` in `ioz env`'s text.
fn fact<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let prefix = format!("{name}:");
    text.lines()
        .map(str::trim_start)
        .find_map(|l| l.strip_prefix(&prefix))
        .map(str::trim)
}

fn env_text(dir: &Path, target: &str) -> String {
    let run = ioz(dir, &["env", target]);
    run.expect_code(0);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    run.stdout.clone()
}

fn env_on_a_loop_device_file_system_shows_the_backing_file_underneath() {
    let fs = Ext4::new("noatime");
    let text = env_text(&fs.mnt(), ".");
    let loop_name = fs.device.trim_start_matches("/dev/");
    assert_eq!(fact(&text, "device"), Some(loop_name), "{text}");
    assert_eq!(fact(&text, "file system"), Some("ext4"), "{text}");
    assert_eq!(
        fact(&text, "backing file"),
        Some(fs.image().as_str()),
        "{text}"
    );
    assert!(fact(&text, "scheduler").is_some(), "{text}");
    // The image lives on a block device here: it is named underneath, with
    // its own scheduler and rotational flag.
    let dev = fs::metadata(fs.image()).unwrap().dev();
    if libc::major(dev) != 0 {
        let under = fact(&text, "underneath").unwrap_or_else(|| panic!("{text}"));
        let sched = format!("{under} (under {loop_name}) scheduler");
        let rot = format!("{under} (under {loop_name}) rotational");
        assert!(fact(&text, &sched).is_some(), "{text}");
        assert!(fact(&text, &rot).is_some(), "{text}");
    }
    for name in [
        "read-ahead",
        "nr_requests",
        "logical block size",
        "physical block size",
        "write cache",
        "discard",
    ] {
        let v = fact(&text, name).unwrap_or_else(|| panic!("{name}: {text}"));
        assert_ne!(v, "unknown", "{name}: {text}");
    }
}

fn env_on_a_tmpfs_shows_no_device() {
    let dir = tempfile::tempdir().unwrap();
    let tmpfs = Tmpfs::mount(&dir.path().join("t"), "size=1m");
    let text = env_text(tmpfs.path(), "ioz.tmp");
    assert_eq!(fact(&text, "file system"), Some("tmpfs"), "{text}");
    assert_eq!(fact(&text, "device"), Some("none"), "{text}");
    assert_eq!(fact(&text, "scheduler"), None, "{text}");
    assert_eq!(fact(&text, "backing file"), None, "{text}");
    // Nothing was written there.
    assert_eq!(fs::read_dir(tmpfs.path()).unwrap().count(), 0);
}

fn env_json_is_the_environment_a_run_saves() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(dir.path(), &["env", "--json"]);
    run.expect_code(0);
    let env: Value = serde_json::from_str(&run.stdout).unwrap();
    for key in ["kernel", "page_cache", "platform", "sockets", "target"] {
        assert!(env.get(key).is_some(), "{key}: {env}");
    }
    assert!(env["page_cache"]["dirty_ratio"].is_u64(), "{env}");
    // Every fact is shown in the text as the JSON holds it, unknown as unknown.
    let text = env_text(dir.path(), ".");
    let ratio = env["page_cache"]["dirty_ratio"].to_string();
    assert_eq!(fact(&text, "vm.dirty_ratio"), Some(ratio.as_str()));
    // -h lists the subcommand's options.
    let help = ioz(dir.path(), &["env", "-h"]);
    help.expect_code(0);
    assert!(help.stdout.starts_with("Usage: ioz env"), "{}", help.stdout);
    assert!(help.stdout.contains("--diff"));
}

fn env_of_a_path_in_a_missing_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(dir.path(), &["env", "missing/dir/ioz.tmp"]);
    assert_refused(&run, "env: missing/dir/ioz.tmp: no such file or directory");
    let run = ioz(dir.path(), &["env", ""]);
    assert_refused(&run, "env: the path is empty");
    let run = ioz(dir.path(), &["env", "--bogus"]);
    assert_refused(&run, "env: unknown option --bogus");
    let run = ioz(dir.path(), &["env", "--diff", "a.json"]);
    assert_refused(&run, "env: --diff takes two saved environments");
    let run = ioz(dir.path(), &["env", "--diff", "a.json", "b.json"]);
    assert_refused(&run, "a.json");
}

/// The regime code the sizes of the environment give a file of `bytes`:
/// the largest last-level data or unified cache, then the free memory at
/// the start of the run.
fn expected_regime(env: &Value, bytes: u64) -> &'static str {
    let llc = env["cpu_caches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] != "Instruction")
        .map(|c| {
            (
                c["level"].as_u64().unwrap(),
                c["size_bytes"].as_u64().unwrap(),
            )
        })
        .max()
        .map(|(_, size)| size);
    let free = env["memory_available_bytes"].as_u64();
    match (llc, free) {
        (Some(c), _) if bytes <= c => "cpu_cache",
        (Some(_), Some(f)) if bytes <= f => "page_cache",
        (_, Some(f)) if bytes > f => "device",
        _ => "unknown",
    }
}

fn measurements(run: &Value) -> Vec<&Value> {
    run["cells"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["measurements"].as_array().unwrap())
        .collect()
}

fn every_cell_of_a_small_auto_run_is_in_the_regime_of_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-a", "-n", "64k", "-g", "4m", "-f", "ioz.tmp", "--json", "r.json", "--csv", "r.csv",
    ];
    let printed = ioz(dir.path(), &args);
    printed.expect_code(0);
    let run: Value = serde_json::from_slice(&fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    let env = &run["environment"];
    assert!(env["memory_available_bytes"].as_u64().unwrap() > 0, "{env}");
    let all = measurements(&run);
    assert!(all.len() > 50, "{}", all.len());
    for m in &all {
        let bytes = m["file_bytes"].as_u64().unwrap();
        let code = m["regime"]["code"].as_str().unwrap();
        assert_eq!(code, expected_regime(env, bytes), "{m}");
        assert_eq!(m["regime"]["uncached"], Value::Null, "{m}");
        assert_eq!(
            m["regime"]["cached"].as_bool(),
            Some(matches!(code, "cpu_cache" | "page_cache")),
            "{m}"
        );
    }
    // The CSV's column says the same, row for row.
    let mut csv = csv::Reader::from_path(dir.path().join("r.csv")).unwrap();
    let column = csv
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "regime")
        .unwrap();
    let codes: Vec<String> = csv
        .records()
        .map(|r| r.unwrap()[column].to_string())
        .collect();
    let json_codes: Vec<&str> = all
        .iter()
        .map(|m| m["regime"]["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, json_codes);
    // The text table keeps IOzone's layout: no regime in it.
    assert!(!printed.stdout.contains("regime"), "{}", printed.stdout);
    assert!(!printed.stdout.contains("cpu_cache"), "{}", printed.stdout);
}

fn a_throughput_phase_is_judged_by_all_its_workers_files() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-t", "2", "-s", "64k", "-r", "4k", "-i", "0", "-F", "a.tmp", "b.tmp", "--json", "r.json",
        "--csv", "r.csv",
    ];
    ioz(dir.path(), &args).expect_code(0);
    let run: Value = serde_json::from_slice(&fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    let phases = run["throughput"].as_array().unwrap();
    assert!(!phases.is_empty());
    for p in phases {
        let total = p["file_bytes"].as_u64().unwrap() * p["workers"].as_u64().unwrap();
        let code = p["regime"]["code"].as_str().unwrap();
        assert_eq!(code, expected_regime(&run["environment"], total), "{p}");
    }
    let mut csv = csv::Reader::from_path(dir.path().join("r.csv")).unwrap();
    let column = csv
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "regime")
        .unwrap();
    for (row, p) in csv.records().zip(phases) {
        assert_eq!(Some(&row.unwrap()[column]), p["regime"]["code"].as_str());
    }
}

fn a_direct_io_run_has_no_cached_cell() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-a", "-n", "64k", "-g", "256k", "-i", "0", "-i", "1", "-I", "-f", "ioz.tmp", "--json",
        "r.json",
    ];
    ioz(dir.path(), &args).expect_code(0);
    let run: Value = serde_json::from_slice(&fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    let all = measurements(&run);
    assert!(!all.is_empty());
    for m in all {
        assert_eq!(m["regime"]["cached"], Value::Bool(false), "{m}");
        assert_eq!(m["regime"]["code"], "uncached", "{m}");
        assert_eq!(m["regime"]["uncached"], "direct_io", "{m}");
    }
}

fn dash_m_prints_the_settings_after_uname_and_the_html_marks_each_cell() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-M", "-i", "0", "-s", "64k", "-r", "4k", "-f", "ioz.tmp", "--html", "r.html",
    ];
    let run = ioz(dir.path(), &args);
    run.expect_code(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let machine = lines
        .iter()
        .position(|l| l.starts_with("\tMachine = "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        lines[machine + 1].starts_with("\tVirtualisation: hypervisor "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\tPage cache: dirty_ratio "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\tDevice: "), "{}", run.stdout);
    // Without -M the header is as before.
    let plain = ioz(
        dir.path(),
        &["-i", "0", "-s", "64k", "-r", "4k", "-f", "ioz.tmp"],
    );
    plain.expect_code(0);
    assert!(!plain.stdout.contains("Page cache:"), "{}", plain.stdout);
    let html = fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(
        html.contains("<th scope=\"row\">vm.dirty_ratio</th>"),
        "dirty_ratio row"
    );
    assert!(html.contains("class=\"regime-legend\""), "regime legend");
    assert!(
        ["cpu_cache", "page_cache", "device", "unknown"]
            .iter()
            .any(|c| html.contains(&format!("class=\"regime {c}\" title="))),
        "a marked cell"
    );
}

/// Sets the loop device's scheduler, and puts the old one back on drop.
struct Scheduler {
    file: String,
    old: String,
}

impl Scheduler {
    fn set(device: &str, name: &str) -> Scheduler {
        let file = format!(
            "/sys/block/{}/queue/scheduler",
            device.trim_start_matches("/dev/")
        );
        let text = fs::read_to_string(&file).unwrap();
        let old = text
            .split_whitespace()
            .find_map(|w| w.strip_prefix('[')?.strip_suffix(']'))
            .unwrap()
            .to_string();
        if !text
            .split_whitespace()
            .any(|w| w.trim_matches(['[', ']']) == name)
        {
            crate::fixtures::skip(format!("{file} offers no {name}: {text}"));
        }
        fs::write(&file, name).unwrap();
        Scheduler { file, old }
    }

    fn to(&self, name: &str) {
        fs::write(&self.file, name).unwrap();
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        let _ = fs::write(&self.file, &self.old);
    }
}

fn two_runs_with_the_scheduler_switched_differ_by_exactly_the_scheduler() {
    let fs = Ext4::new("noatime");
    let results = tempfile::tempdir().unwrap();
    let file = fs.mnt().join("ioz.tmp");
    let run_to = |json: &str| {
        let out = results.path().join(json);
        let args = [
            "-i",
            "0",
            "-s",
            "64k",
            "-r",
            "4k",
            "-f",
            file.to_str().unwrap(),
            "--json",
            out.to_str().unwrap(),
        ];
        ioz(results.path(), &args).expect_code(0);
    };
    let scheduler = Scheduler::set(&fs.device, "none");
    run_to("a.json");
    scheduler.to("mq-deadline");
    run_to("b.json");
    drop(scheduler);
    let diff = ioz(results.path(), &["env", "--diff", "a.json", "b.json"]);
    diff.expect_code(0);
    // One setting: the scheduler (with the nr_requests the kernel resets
    // with it, when it did), under its group, and no warning.
    let lines: Vec<&str> = diff.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", diff.stdout);
    assert_eq!(lines[0], "Environment differences, a.json → b.json:");
    assert_eq!(lines[1], "environments: 1 setting differs (device)");
    assert_eq!(lines[2], "device:");
    assert!(
        lines[3] == "  scheduler: none → mq-deadline"
            || lines[3].starts_with(
                "  scheduler: none → mq-deadline (and with it, as the kernel sets it: nr_requests "
            ),
        "{}",
        diff.stdout
    );
    // The same run against itself: nothing differs.
    let same = ioz(results.path(), &["env", "--diff", "a.json", "a.json"]);
    assert!(
        same.stdout.ends_with("environments: no setting differs\n"),
        "{}",
        same.stdout
    );
    // ioz compare says it before the numbers, in its text and its JSON.
    let compared = ioz(
        results.path(),
        &["compare", "a.json", "b.json", "--text", "--json", "c.json"],
    );
    compared.expect_code(0);
    let text = &compared.stdout;
    let at = text
        .find("    device: scheduler none → mq-deadline")
        .unwrap_or_else(|| panic!("no scheduler line: {text}"));
    assert!(at < text.find("cells compared").unwrap(), "{text}");
    assert!(!text.contains("warning: "), "{text}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.path().join("c.json")).unwrap())
            .unwrap();
    let diffs = doc["pairs"][0]["environment_differences"]
        .as_array()
        .expect("environment_differences");
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert_eq!(diffs[0]["name"], "scheduler");
    assert_eq!(diffs[0]["topic"], "device");
    assert_eq!(diffs[0]["old"], "none");
    assert_eq!(diffs[0]["new"], "mq-deadline");
}
