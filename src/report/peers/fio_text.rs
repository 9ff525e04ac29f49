//! fio's normal (human) output, read as a run: each job's header line
//! (`name: (g=0): rw=read, bs=(R) 4096B-4096B, …, ioengine=psync,
//! iodepth=1`), its result block (`name: (groupid=0, jobs=1): err= 0: …`),
//! each direction's line (`read: IOPS=33.7k, BW=132MiB/s (…)(32.0MiB/243msec)`),
//! its clat percentiles, the CPU line and `issued rwts`. The rate is the
//! issued operations times the block size over the runtime (fio prints
//! its MiB rounded; a job with a range of block sizes uses them and says
//! so). The text gives no file size: the bytes the job moved stand for it.

use std::collections::BTreeMap;

use super::{PeerError, usable};
use crate::model::dates;
use crate::model::histogram::{LatencySummary, Percentile};
use crate::model::peer::{Kept, PeerResult, PeerRun, PeerSample, PeerTest, PeerTool};
use crate::model::recorded::{self as rec, Cost, Recorded, Settings};
use crate::model::workload::Pass;

const WHAT: &str = "fio's text output";

/// A job's header line: its rw, block sizes per direction, engine, depth.
#[derive(Default)]
struct Header {
    rw: String,
    /// (R), (W), (T): the smallest and largest block.
    bs: BTreeMap<char, (u64, u64)>,
    engine: Option<String>,
    depth: Option<String>,
}

#[derive(Default)]
struct Direction {
    printed: String,
    runtime_ms: u64,
    /// fio's rounded amount ("32.0MiB"), in bytes.
    rounded_bytes: Option<f64>,
    percentiles: Vec<Percentile>,
}

#[derive(Default)]
struct Block {
    name: String,
    line: usize,
    jobs: u32,
    error: u64,
    date: Option<String>,
    dirs: BTreeMap<&'static str, Direction>,
    issued: [u64; 3],
    usr: f64,
    sys: f64,
    ctx: u64,
}

pub(super) fn parse(text: &str) -> Result<PeerRun, PeerError> {
    let mut headers: BTreeMap<String, Header> = BTreeMap::new();
    let mut version = None;
    let mut blocks: Vec<Block> = Vec::new();
    let mut percentiles_unit: Option<(u64, &'static str)> = None;
    let mut current_dir: Option<&'static str> = None;
    for (n, line) in text.lines().enumerate() {
        let number = n + 1;
        let bad = |why: String| PeerError::Line {
            what: WHAT,
            line: number,
            why,
        };
        let t = line.trim();
        if let Some(v) = t.strip_prefix("fio-")
            && v.starts_with(|c: char| c.is_ascii_digit())
        {
            version = Some(v.to_string());
            continue;
        }
        if let Some((name, rest)) = line.split_once(": (g=") {
            if !name.contains(' ') {
                let rest = rest.split_once("): ").map_or(rest, |(_, r)| r);
                headers.insert(name.to_string(), header(rest));
            }
            continue;
        }
        if let Some((name, rest)) = line.split_once(": (groupid=") {
            let jobs = field_after(rest, "jobs=").unwrap_or(1);
            let error = field_after(rest, "err=").unwrap_or(0);
            let date = rest
                .rsplit_once(": ")
                .and_then(|(_, d)| dates::from_ctime(d));
            blocks.push(Block {
                name: name.trim().to_string(),
                line: number,
                jobs: jobs as u32,
                error,
                date,
                ..Block::default()
            });
            current_dir = None;
            percentiles_unit = None;
            continue;
        }
        if t.starts_with("Run status group") {
            current_dir = None;
            percentiles_unit = None;
            continue;
        }
        let Some(block) = blocks.last_mut() else {
            continue;
        };
        if let Some((dir, rest)) = t.split_once(": IOPS=") {
            let dir = match dir.trim() {
                "read" => "read",
                "write" => "write",
                "trim" => "trim",
                other => return Err(bad(format!("\"{other}\" is not a direction of fio's"))),
            };
            let printed = rest
                .split_once("BW=")
                .map(|(_, b)| b.split(' ').next().unwrap_or("").to_string())
                .unwrap_or_default();
            let runtime_ms = rest
                .rsplit_once('/')
                .and_then(|(_, r)| r.strip_suffix("msec)"))
                .and_then(|r| r.parse::<u64>().ok())
                .ok_or_else(|| bad("no runtime (\"…/243msec)\") on a direction's line".into()))?;
            let rounded_bytes = rest
                .rsplit_once(")(")
                .and_then(|(_, r)| r.split('/').next())
                .and_then(rounded);
            block.dirs.insert(
                dir,
                Direction {
                    printed,
                    runtime_ms,
                    rounded_bytes,
                    percentiles: Vec::new(),
                },
            );
            current_dir = Some(dir);
            percentiles_unit = None;
            continue;
        }
        if let Some(unit) = t
            .strip_prefix("clat percentiles (")
            .and_then(|r| r.strip_suffix("):"))
        {
            let scale = match unit {
                "nsec" => 1,
                "usec" => 1_000,
                "msec" => 1_000_000,
                other => {
                    return Err(bad(format!(
                        "\"{other}\" is not a unit of fio's percentiles"
                    )));
                }
            };
            percentiles_unit = current_dir.map(|d| (scale, d));
            continue;
        }
        if let Some(rest) = t.strip_prefix('|') {
            if let Some((scale, dir)) = percentiles_unit
                && let Some(d) = block.dirs.get_mut(dir)
            {
                for item in rest.split("],") {
                    let Some((p, v)) = item.split_once("th=[") else {
                        continue;
                    };
                    let percent: f64 = p
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("\"{}\" is not a percentile", p.trim())))?;
                    let value: u64 = v
                        .trim()
                        .trim_end_matches(']')
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("\"{}\" is not a latency", v.trim())))?;
                    d.percentiles.push(Percentile {
                        percent,
                        ns: value.saturating_mul(scale),
                    });
                }
            }
            continue;
        }
        percentiles_unit = None;
        if let Some(rest) = t.strip_prefix("cpu") {
            let rest = rest.trim_start().trim_start_matches(':');
            for part in rest.split(',') {
                let Some((k, v)) = part.trim().split_once('=') else {
                    continue;
                };
                let v = v.trim().trim_end_matches('%');
                match k {
                    "usr" => block.usr = v.parse().unwrap_or(0.0),
                    "sys" => block.sys = v.parse().unwrap_or(0.0),
                    "ctx" => block.ctx = v.parse().unwrap_or(0),
                    _ => {}
                }
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix("issued rwts: total=") {
            let totals = rest.split_whitespace().next().unwrap_or("");
            for (i, v) in totals.split(',').take(3).enumerate() {
                block.issued[i] = v
                    .parse()
                    .map_err(|_| bad(format!("\"{v}\" is not a count of issued operations")))?;
            }
        }
    }
    let mut run = PeerRun {
        tool: PeerTool::Fio,
        version,
        command: None,
        date: blocks.iter().find_map(|b| b.date.clone()),
        host: None,
        results: Vec::new(),
        kept: vec![Kept {
            of: "the run".into(),
            name: "file size".into(),
            value: "not in fio's text output: the bytes each job moved stand for it".into(),
        }],
        defects: Vec::new(),
    };
    for block in &blocks {
        measure(&mut run, block, headers.get(&block.name))?;
    }
    if blocks.is_empty() {
        return Err(PeerError::NoResults {
            what: WHAT,
            why: "no job's result block (\"name: (groupid=0, jobs=1): …\")".into(),
        });
    }
    Ok(run)
}

/// The header line after "name: (g=N): ".
fn header(rest: &str) -> Header {
    let mut h = Header::default();
    let mut last_dir = 'R';
    for part in rest.split(", ") {
        let part = part.trim();
        if let Some(rw) = part.strip_prefix("rw=") {
            h.rw = rw.to_string();
        } else if let Some(e) = part.strip_prefix("ioengine=") {
            h.engine = Some(e.to_string());
        } else if let Some(d) = part.strip_prefix("iodepth=") {
            h.depth = Some(d.to_string());
        } else {
            let part = part.strip_prefix("bs=").unwrap_or(part);
            if let Some(r) = part.strip_prefix('(') {
                let (dir, range) = r.split_once(") ").unwrap_or(("", ""));
                last_dir = dir.chars().next().unwrap_or(last_dir);
                let mut ends = range
                    .split('-')
                    .map(|b| b.trim_end_matches('B').parse::<u64>());
                if let (Some(Ok(lo)), Some(Ok(hi))) = (ends.next(), ends.next()) {
                    h.bs.insert(last_dir, (lo, hi));
                }
            }
        }
    }
    h
}

/// The number after `key` in "groupid=0, jobs=1): err= 0: pid=…".
fn field_after(text: &str, key: &str) -> Option<u64> {
    let rest = text.split_once(key)?.1.trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// fio's rounded amount ("32.0MiB", "96.2MiB", "1024KiB") in bytes.
fn rounded(text: &str) -> Option<f64> {
    let unit_at = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (n, unit) = text.split_at(unit_at);
    let n: f64 = n.parse().ok()?;
    let scale = match unit {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0f64.powi(3),
        "TiB" => 1024.0f64.powi(4),
        _ => return None,
    };
    Some(n * scale)
}

fn measure(run: &mut PeerRun, block: &Block, header: Option<&Header>) -> Result<(), PeerError> {
    let of = format!("job {}", block.name);
    if block.error != 0 {
        run.kept.push(Kept {
            of,
            name: "error".into(),
            value: format!("{}: the job did not finish; not compared", block.error),
        });
        return Ok(());
    }
    let rw = header.map_or("read", |h| h.rw.as_str());
    let (pass, dir) = match rw.split(':').next().unwrap_or("") {
        "read" => (Pass::Read, "read"),
        "randread" => (Pass::RandomRead, "read"),
        "write" => (Pass::Write, "write"),
        "randwrite" => (Pass::RandomWrite, "write"),
        other => {
            run.kept.push(Kept {
                of,
                name: "rw".into(),
                value: format!("{other}: not read from fio's text output (its JSON has what a mix needs): not compared"),
            });
            return Ok(());
        }
    };
    let Some(d) = block.dirs.get(dir) else {
        return Err(PeerError::Line {
            what: WHAT,
            line: block.line,
            why: format!("job {} (rw={rw}) has no {dir} line", block.name),
        });
    };
    let index = ["read", "write", "trim"]
        .iter()
        .position(|x| *x == dir)
        .unwrap_or(0);
    let ops = block.issued[index];
    let key = ['R', 'W', 'T'][index];
    let bytes = match header.and_then(|h| h.bs.get(&key)) {
        Some(&(lo, hi)) if lo == hi => (ops * lo) as f64,
        _ => {
            run.defects.push(format!(
                "fio's text gives job {}'s bytes rounded ({}): its rate is as exact as that",
                block.name, d.printed
            ));
            d.rounded_bytes.unwrap_or(0.0)
        }
    };
    let secs = d.runtime_ms.max(1) as f64 / 1000.0;
    let kb = usable(bytes / 1024.0 / secs).map_err(|why| PeerError::Line {
        what: WHAT,
        line: block.line,
        why,
    })?;
    let mut settings = Settings::new();
    if let Some(h) = header {
        if let Some(e) = &h.engine {
            settings.insert(rec::ENGINE.into(), e.clone());
        }
        if let Some(depth) = &h.depth {
            settings.insert(rec::DEPTH.into(), depth.clone());
        }
    }
    let record = header
        .and_then(|h| h.bs.get(&key))
        .map_or(bytes as u64 / ops.max(1), |b| b.0);
    let latency = (!d.percentiles.is_empty()).then(|| LatencySummary {
        count: ops,
        percentiles: d.percentiles.clone(),
        ..LatencySummary::default()
    });
    let workers = (block.jobs > 1).then_some(block.jobs);
    run.results.push(PeerResult {
        name: format!("{of}, {dir}"),
        test: PeerTest::Pass(pass),
        workers,
        file_bytes: bytes as u64 / block.jobs.max(1) as u64,
        record_bytes: record,
        samples: vec![PeerSample {
            kb_per_sec: Some(kb),
            ops_per_sec: Some(ops as f64 / secs),
        }],
        printed: d.printed.clone(),
        latency,
        recorded: Recorded {
            settings,
            cost: (ops > 0).then(|| Cost {
                cpu_ns_per_op: Some(
                    (block.usr + block.sys) / 100.0 * d.runtime_ms as f64 * 1e6 / ops as f64,
                ),
                switches_per_op: Some(block.ctx as f64 / ops as f64),
                own_faults: None,
            }),
            ..Recorded::default()
        },
        series: Vec::new(),
    });
    Ok(())
}
