//! IOR's results, read as a run: its JSON summary (`-O summaryFormat=JSON`,
//! in `-O summaryFile=…` or on standard output) and its text output.
//!
//! Each test's repetitions (`-i`) are samples of one cell: the access
//! (write, read) with `randomOffset` (`-z`) gives the test (write, random
//! write, read, random read); the block times the segments is each task's
//! file share, the transfer size the record, the tasks the workers. IOR's
//! bandwidth is in MiB/s (2^20 bytes): ×1024 is kB/s. Its summary (max,
//! min, mean, sd), times and "latency" (a mean time per transfer, not a
//! percentile of operations) are kept. IOR with `-v` before hpc/ior#504
//! prints progress lines among its JSON (hpc/ior#503): they are left out
//! and named.

use super::json::{Field, without_text_lines};
use super::sizes::{ior_text_bytes, option_bytes};
use super::{PeerError, figure};
use crate::model::dates;
use crate::model::peer::{Kept, PeerResult, PeerRun, PeerSample, PeerTest, PeerTool};
use crate::model::recorded::{self as rec, Recorded, Settings, yes};
use crate::model::workload::Pass;

const JSON: &str = "IOR's JSON summary";
const TEXT: &str = "IOR's text output";

/// What one IOR test ran with.
struct Shape {
    tasks: u64,
    block: u64,
    segments: u64,
    transfer: u64,
    random: bool,
    file_per_process: bool,
    fsync: bool,
    direct: bool,
    stonewall_s: u64,
}

impl Shape {
    fn pass(&self, access: &str) -> Option<Pass> {
        match (access, self.random) {
            ("write", false) => Some(Pass::Write),
            ("write", true) => Some(Pass::RandomWrite),
            ("read", false) => Some(Pass::Read),
            ("read", true) => Some(Pass::RandomRead),
            _ => None,
        }
    }

    fn settings(&self, pass: Pass, api: &str) -> Settings {
        let mut s = Settings::new();
        s.insert(rec::DIRECT.into(), yes(self.direct));
        s.insert(rec::ENGINE.into(), format!("IOR's {api} API"));
        s.insert(rec::DEPTH.into(), "1".into());
        if matches!(pass, Pass::Read | Pass::RandomRead) {
            // IOR drops no cache; -C (reorderTasks) reads another task's data.
            s.insert(rec::CACHE_DROPPED.into(), "no".into());
        } else {
            s.insert(rec::FSYNC.into(), yes(self.fsync));
        }
        s.insert(
            rec::ENDS.into(),
            if self.stonewall_s > 0 {
                format!("after {} s (IOR's stonewall, -D)", self.stonewall_s)
            } else {
                "every record once".into()
            },
        );
        if self.tasks > 1 {
            s.insert(rec::SHARED_FILE.into(), yes(!self.file_per_process));
            s.insert(
                rec::RATE_OF_WORKERS.into(),
                "all tasks' bytes over the span from the first one's start to the last one's end"
                    .into(),
            );
        }
        s
    }

    fn result(
        &self,
        name: String,
        pass: Pass,
        api: &str,
        samples: Vec<PeerSample>,
        printed: String,
    ) -> PeerResult {
        PeerResult {
            name,
            test: PeerTest::Pass(pass),
            workers: (self.tasks > 1).then_some(self.tasks as u32),
            file_bytes: self.block.saturating_mul(self.segments),
            record_bytes: self.transfer,
            samples,
            printed,
            latency: None,
            recorded: Recorded {
                settings: self.settings(pass, api),
                ..Recorded::default()
            },
            series: Vec::new(),
        }
    }
}

/// IOR's JSON in `text`, progress lines and all.
pub(super) fn parse_json(text: &str) -> Result<PeerRun, PeerError> {
    let (doc, stray) = without_text_lines(text, JSON)?;
    let root = Field::root(&doc, JSON);
    let mut run = PeerRun {
        tool: PeerTool::Ior,
        version: root
            .get("Version")
            .and_then(|v| v.str().ok())
            .map(String::from),
        command: root
            .get("Command line")
            .and_then(|v| v.str().ok())
            .map(String::from),
        date: root
            .get("Began")
            .and_then(|v| v.str().ok())
            .and_then(dates::from_ctime),
        host: root.get("Machine").and_then(|v| v.str().ok()).map(host_of),
        results: Vec::new(),
        kept: Vec::new(),
        defects: Vec::new(),
    };
    if !stray.is_empty() {
        let named: Vec<String> = stray
            .iter()
            .take(2)
            .map(|(n, t)| format!("line {n} \"{t}\""))
            .collect();
        run.defects.push(format!(
            "IOR wrote {} line(s) of text among its JSON (hpc/ior#503, its -v output before #504): {}{}; left out",
            stray.len(),
            named.join(", "),
            if stray.len() > 2 {
                format!(" and {} more", stray.len() - 2)
            } else {
                String::new()
            }
        ));
    }
    let command = run.command.clone().unwrap_or_default();
    for test in root.req("tests")?.items()? {
        let id = test.get("TestID").map_or(Ok(0), |t| t.u64())?;
        let of = format!("test {id}");
        let p = test.req("Parameters")?;
        let opts = test.get("Options");
        let tasks = match opts.as_ref().and_then(|o| o.get("tasks")) {
            Some(t) => t.u64()?,
            None => p.req("tasksPerNode")?.u64()? * p.get("nodes").map_or(Ok(1), |n| n.u64())?,
        };
        let api = p
            .get("api")
            .and_then(|a| a.str().ok())
            .unwrap_or("POSIX")
            .to_string();
        let flag = |key: &str| -> Result<bool, PeerError> {
            Ok(p.get(key).map_or(Ok(0), |v| v.u64())? != 0)
        };
        let shape = Shape {
            tasks,
            block: p.req("blockSize")?.u64()?,
            segments: p.req("segmentCount")?.u64()?,
            transfer: p.req("transferSize")?.u64()?,
            random: flag("randomOffset")?,
            file_per_process: flag("filePerProc")?,
            fsync: flag("fsync")?,
            direct: command.contains("odirect") || flag("useO_DIRECT")?,
            stonewall_s: p.get("deadlineForStonewall").map_or(Ok(0), |v| v.u64())?,
        };
        for key in ["Path", "Capacity", "Used Capacity", "StartTime"] {
            if let Some(v) = test.get(key).and_then(|v| v.str().ok()) {
                run.kept.push(Kept::new(&of, key, v));
            }
        }
        if let Some(o) = &opts {
            for key in [
                "access",
                "type",
                "ordering in a file",
                "ordering inter file",
            ] {
                if let Some(v) = o.get(key).and_then(|v| v.str().ok()) {
                    run.kept.push(Kept::new(&of, key, v));
                }
            }
        }
        // One list of every repetition's results (IOR 3.3 and later); older
        // versions nest a list per repetition.
        let mut results = Vec::new();
        for r in test.req("Results")?.items()? {
            match r.value.as_array() {
                Some(_) => results.extend(r.items()?),
                None => results.push(r),
            }
        }
        for access in ["write", "read"] {
            let Some(pass) = shape.pass(access) else {
                continue;
            };
            let mut samples = Vec::new();
            let mut printed = Vec::new();
            for r in results
                .iter()
                .filter(|r| r.get("access").and_then(|a| a.str().ok()) == Some(access))
            {
                let mib = r.req("bwMiB")?.f64()?;
                samples.push(PeerSample {
                    kb_per_sec: Some(mib * 1024.0),
                    ops_per_sec: Some(r.req("iops")?.f64()?),
                });
                printed.push(format!("{mib:.4}"));
                if let Some(lat) = r.get("latency") {
                    run.kept.push(Kept::new(
                        &format!("{of}, {access} #{}", samples.len()),
                        "latency",
                        &format!(
                            "{} s (IOR's mean time per transfer, not a percentile)",
                            lat.f64()?
                        ),
                    ));
                }
            }
            if samples.is_empty() {
                continue;
            }
            run.results.push(shape.result(
                format!("{of}, {access}"),
                pass,
                &api,
                samples,
                format!("{} MiB/s", printed.join(", ")),
            ));
        }
    }
    if let Some(summary) = root.get("summary") {
        for s in summary.items()? {
            let op = s.get("operation").and_then(|o| o.str().ok()).unwrap_or("?");
            let mut parts = Vec::new();
            for key in [
                "bwMaxMIB",
                "bwMinMIB",
                "bwMeanMIB",
                "bwStdMIB",
                "OPsMean",
                "MeanTime",
            ] {
                if let Some(v) = s.get(key) {
                    parts.push(format!("{key} {}", v.f64()?));
                }
            }
            run.kept.push(Kept::new(
                &format!("summary, {op}"),
                "IOR's summary",
                &parts.join(", "),
            ));
        }
    }
    Ok(run)
}

/// "Linux vm" (IOR's Machine: the system and the node) → "vm".
fn host_of(machine: &str) -> String {
    machine
        .split_whitespace()
        .nth(1)
        .unwrap_or(machine)
        .to_string()
}

/// IOR's text output.
pub(super) fn parse_text(text: &str) -> Result<PeerRun, PeerError> {
    let mut run = PeerRun::empty(PeerTool::Ior);
    let mut options: Vec<(String, String)> = Vec::new();
    // Each result row: its access and bandwidth (MiB/s) and IOPS.
    let mut rows: Vec<(usize, String, f64, f64)> = Vec::new();
    let mut in_results = false;
    let mut in_summary = false;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("IOR-")
            && let Some((version, _)) = v.split_once(':')
        {
            run.version = Some(version.to_string());
            continue;
        }
        if t.starts_with("Results:") {
            in_results = true;
            continue;
        }
        if t.starts_with("Summary of all tests:") {
            in_results = false;
            in_summary = true;
            continue;
        }
        if in_summary {
            let w: Vec<&str> = t.split_whitespace().collect();
            if let [op @ ("write" | "read"), max, min, mean, sd, ..] = w[..] {
                run.kept.push(Kept::new(
                    &format!("summary, {op}"),
                    "IOR's summary",
                    &format!("Max {max}, Min {min}, Mean {mean}, StdDev {sd} MiB/s"),
                ));
                continue;
            }
            if !t.starts_with("Operation") {
                in_summary = false;
            }
        }
        if in_results {
            let w: Vec<&str> = t.split_whitespace().collect();
            if let [access @ ("write" | "read"), bw, iops, ..] = w[..] {
                let number = |s: &str| figure(s, TEXT, n + 1, "", "number");
                rows.push((n + 1, access.to_string(), number(bw)?, number(iops)?));
                continue;
            }
        }
        let Some((key, value)) = line.split_once(" : ").or_else(|| line.split_once(": ")) else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "Began" => run.date = dates::from_ctime(value),
            "Command line" => run.command = Some(value.to_string()),
            "Machine" => run.host = Some(host_of(value)),
            _ => options.push((key.to_string(), value.to_string())),
        }
    }
    let get = |key: &str| {
        options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let size = |key: &str| -> Result<u64, PeerError> {
        let v = get(key).ok_or_else(|| PeerError::Field {
            what: TEXT,
            field: key.to_string(),
            why: "not in the options IOR printed".into(),
        })?;
        ior_text_bytes(v)
            .or_else(|| option_bytes(v))
            .ok_or_else(|| PeerError::Field {
                what: TEXT,
                field: key.to_string(),
                why: format!("\"{v}\" is not a size"),
            })
    };
    if rows.is_empty() {
        return Err(PeerError::NoResults {
            what: TEXT,
            why: "no row of its Results table".into(),
        });
    }
    let command = run.command.clone().unwrap_or_default();
    let shape = Shape {
        tasks: get("tasks").and_then(|t| t.parse().ok()).unwrap_or(1),
        block: size("blocksize")?,
        segments: get("segments").and_then(|s| s.parse().ok()).unwrap_or(1),
        transfer: size("xfersize")?,
        random: get("ordering in a file") == Some("random"),
        file_per_process: get("access") == Some("file-per-process"),
        fsync: command.split_whitespace().any(|w| w == "-e"),
        direct: command.contains("odirect"),
        stonewall_s: 0,
    };
    for key in [
        "access",
        "type",
        "ordering in a file",
        "ordering inter file",
        "FS",
        "Path",
    ] {
        if let Some(v) = get(key) {
            run.kept.push(Kept::new("test 0", key, v));
        }
    }
    let api = get("api").unwrap_or("POSIX").to_string();
    for access in ["write", "read"] {
        let Some(pass) = shape.pass(access) else {
            continue;
        };
        let mine: Vec<&(usize, String, f64, f64)> = rows.iter().filter(|r| r.1 == access).collect();
        if mine.is_empty() {
            continue;
        }
        run.results.push(
            shape.result(
                format!("test 0, {access}"),
                pass,
                &api,
                mine.iter()
                    .map(|r| PeerSample {
                        kb_per_sec: Some(r.2 * 1024.0),
                        ops_per_sec: Some(r.3),
                    })
                    .collect(),
                format!(
                    "{} MiB/s",
                    mine.iter()
                        .map(|r| r.2.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        );
    }
    Ok(run)
}
