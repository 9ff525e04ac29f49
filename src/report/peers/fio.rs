//! fio's `--output-format=json` and `json+`, read as a run.
//!
//! Each job's directions (`read`, `write`, `trim`) are measurements: `rw`
//! says which ioz test each is (read → read, randread → random read,
//! write → write, randwrite → random write; randrw → the random mix, its
//! reads and writes together as ioz's mix counts them, each direction's
//! own rate kept). The rate is fio's own: `io_bytes` over `runtime` (ms),
//! in kB/s of 1,024 bytes (fio's `bw` is that number truncated). Jobs of
//! one name (numjobs without group_reporting) ran together: their rates
//! are summed, as ioz sums its workers'; with group_reporting fio has
//! summed them already (its bytes over the longest runtime), and the
//! settings say which. `clat_ns` gives the latency: fio's percentiles and,
//! in json+, its bins, which land in ioz's histogram bucket for bucket
//! (both cut each power of two into 64). A client/server run's jobs are
//! under `client_stats`; fio's "All clients" sum is the measurement, each
//! client's own figures kept. A file of several reports
//! (`--status-interval`) is read to its last one, the run's end, and the
//! ones before give the rate over time.

use std::collections::BTreeMap;

use serde_json::Value;

use super::json::{Field, Stray, documents};
use super::sizes::option_bytes;
use super::{PeerError, usable};
use crate::model::dates;
use crate::model::histogram::{
    Bucket, LatencyHistogram, LatencySummary, Percentile, bucket_bounds, bucket_of,
};
use crate::model::intervals::Interval;
use crate::model::peer::{Kept, PeerResult, PeerRun, PeerSample, PeerTest, PeerTool};
use crate::model::recorded::{self as rec, Cost, Recorded, Settings, Spread, yes};
use crate::model::workload::Pass;

const WHAT: &str = "fio's JSON output";

/// fio's "All clients" job: the sum of a client/server run's clients.
const ALL_CLIENTS: &str = "All clients";

/// Options that become settings or the cell; the others are kept as they are.
const USED_OPTIONS: [&str; 16] = [
    "name",
    "rw",
    "readwrite",
    "bs",
    "blocksize",
    "size",
    "filesize",
    "numjobs",
    "ioengine",
    "iodepth",
    "direct",
    "buffered",
    "invalidate",
    "rwmixread",
    "runtime",
    "group_reporting",
];

/// One direction of one job, as fio counted it.
#[derive(Clone)]
struct Dir {
    io_bytes: u64,
    total_ios: u64,
    runtime_ms: u64,
    /// fio's `bw`, KiB/s.
    bw: u64,
    latency: Option<LatencySummary>,
    spread: Option<Spread>,
    /// Total latency's mean (lat_ns), submission's (slat_ns) when counted.
    lat_mean_ns: Option<f64>,
    slat_mean_ns: Option<f64>,
}

impl Dir {
    fn kb_per_sec(&self) -> f64 {
        self.io_bytes as f64 / 1024.0 / (self.runtime_ms.max(1) as f64 / 1000.0)
    }

    fn ops_per_sec(&self) -> f64 {
        self.total_ios as f64 / (self.runtime_ms.max(1) as f64 / 1000.0)
    }
}

/// One job object of the report.
struct Job {
    name: String,
    group: i64,
    error: i64,
    host: Option<String>,
    options: BTreeMap<String, String>,
    dirs: BTreeMap<&'static str, Dir>,
    usr_cpu: f64,
    sys_cpu: f64,
    ctx: u64,
    majf: u64,
    minf: u64,
    job_runtime_ms: u64,
    depths: String,
}

impl Job {
    fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    fn ios(&self) -> u64 {
        self.dirs.values().map(|d| d.total_ios).sum()
    }

    fn cost(&self) -> Option<Cost> {
        let ios = self.ios();
        (ios > 0).then(|| Cost {
            cpu_ns_per_op: Some(
                (self.usr_cpu + self.sys_cpu) / 100.0 * self.job_runtime_ms as f64 * 1e6
                    / ios as f64,
            ),
            switches_per_op: Some(self.ctx as f64 / ios as f64),
            own_faults: None,
        })
    }
}

/// How a job's `rw` maps onto ioz's tests.
enum Mapping {
    One(Pass, &'static str),
    Mix,
    None(&'static str),
}

fn mapping(rw: &str) -> Mapping {
    // "randread:8" (a sequence of 8 before each new offset) is randread.
    match rw.split(':').next().unwrap_or("").trim() {
        "read" => Mapping::One(Pass::Read, "read"),
        "write" => Mapping::One(Pass::Write, "write"),
        "randread" => Mapping::One(Pass::RandomRead, "read"),
        "randwrite" => Mapping::One(Pass::RandomWrite, "write"),
        "randrw" => Mapping::Mix,
        "rw" | "readwrite" => Mapping::None("a sequential mix of reads and writes"),
        "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => Mapping::None("trims"),
        _ => Mapping::None("a workload ioz has no test for"),
    }
}

/// fio's JSON (or json+) in `text`, with anything fio wrote around it.
pub(super) fn parse_json(text: &str) -> Result<PeerRun, PeerError> {
    let (docs, stray) = documents(text, WHAT)?;
    let Some((last, interim)) = docs.split_last() else {
        return Err(PeerError::NoResults {
            what: WHAT,
            why: "no JSON document in it".into(),
        });
    };
    let mut defects = Vec::new();
    if !stray.is_empty() {
        defects.push(stray_words(&stray));
    }
    if !interim.is_empty() {
        defects.push(format!(
            "fio collated {} reports in one file (--status-interval): the last one, the run's end, is read; the {} before it give the rate over time",
            docs.len(),
            interim.len()
        ));
    }
    let root = Field::root(last, WHAT);
    // "fio-3.33": the tool's name is said apart.
    let version = root.req("fio version")?.str()?;
    let version = version.strip_prefix("fio-").unwrap_or(version).to_string();
    let date = match root.get("timestamp") {
        Some(t) => Some(dates::from_epoch(t.u64()? as i64)),
        None => None,
    };
    let global: BTreeMap<String, String> = match root.get("global options") {
        Some(g) => g.strings()?.into_iter().collect(),
        None => BTreeMap::new(),
    };
    let (list, client) = match (root.get("jobs"), root.get("client_stats")) {
        (Some(j), _) => (j, false),
        (None, Some(c)) => (c, true),
        (None, None) => {
            return Err(PeerError::Field {
                what: WHAT,
                field: "the document".into(),
                why: "no \"jobs\" (nor a client/server run's \"client_stats\")".into(),
            });
        }
    };
    let mut jobs = Vec::new();
    for item in list.items()? {
        jobs.push(job(&item, &global)?);
    }
    let mut run = PeerRun {
        tool: PeerTool::Fio,
        version: Some(version),
        command: None,
        date,
        host: None,
        results: Vec::new(),
        kept: Vec::new(),
        defects,
    };
    let measured = if client {
        clients(&mut run, jobs)
    } else {
        jobs
    };
    run.command = Some(command(&global, &measured));
    run.kept.push(Kept::new(
        "the run",
        "command",
        "not in fio's JSON: put together from its global and job options",
    ));
    // Jobs of one name and group ran together (numjobs without
    // group_reporting): one measurement of all of them.
    let mut groups: Vec<Vec<Job>> = Vec::new();
    for j in measured {
        match groups
            .iter_mut()
            .find(|g| g[0].name == j.name && g[0].group == j.group)
        {
            Some(g) => g.push(j),
            None => groups.push(vec![j]),
        }
    }
    let interim_jobs = interim_reports(interim, &global)?;
    for group in &groups {
        measure(&mut run, group, &interim_jobs)?;
    }
    if let Some(disks) = root.get("disk_util") {
        for d in disks.items()? {
            let name = d.get("name").and_then(|n| n.str().ok()).unwrap_or("?");
            let mut parts = Vec::new();
            for key in ["util", "read_ios", "write_ios", "in_queue"] {
                if let Some(v) = d.get(key) {
                    parts.push(format!("{key} {}", number_text(v.value)));
                }
            }
            run.kept.push(Kept::new(
                &format!("disk {name}"),
                "disk_util",
                &parts.join(", "),
            ));
        }
    }
    Ok(run)
}

/// What fio printed outside its JSON, named.
fn stray_words(stray: &[Stray]) -> String {
    let first: Vec<String> = stray
        .iter()
        .take(2)
        .map(|(n, t)| format!("line {n} \"{t}\""))
        .collect();
    let more = match stray.len().saturating_sub(2) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "fio wrote {} line(s) of text outside its JSON (its messages on standard output): {}{more}; left out",
        stray.len(),
        first.join(", ")
    )
}

/// A client/server run: fio's "All clients" sum is what was measured (a
/// single client's own job when there is no sum); each client's figures
/// are kept.
fn clients(run: &mut PeerRun, jobs: Vec<Job>) -> Vec<Job> {
    let hosts: Vec<String> = {
        let mut h: Vec<String> = Vec::new();
        for j in jobs.iter().filter(|j| j.name != ALL_CLIENTS) {
            if let Some(name) = &j.host
                && !h.contains(name)
            {
                h.push(name.clone());
            }
        }
        h
    };
    run.host = (!hosts.is_empty()).then(|| hosts.join(", "));
    let (sums, each): (Vec<Job>, Vec<Job>) = jobs.into_iter().partition(|j| j.name == ALL_CLIENTS);
    if sums.is_empty() {
        return each;
    }
    for j in &each {
        for (name, d) in &j.dirs {
            run.kept.push(Kept::new(
                &format!(
                    "client {} (job {})",
                    j.host.as_deref().unwrap_or("?"),
                    j.name
                ),
                &format!("{name} bw"),
                &format!("{} KiB/s", d.bw),
            ));
        }
    }
    // The sum holds no options of its own: the clients ran one job file.
    let workers: u32 = each.iter().map(|j| numjobs(j).max(1)).sum();
    sums.into_iter()
        .map(|mut s| {
            if let Some(first) = each.first() {
                for (k, v) in &first.options {
                    s.options.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            s.options.insert("numjobs".into(), workers.to_string());
            s.options.insert("group_reporting".into(), "1".into());
            s.host = None;
            s
        })
        .collect()
}

/// The interim reports' jobs (a `--status-interval` file), report by report.
fn interim_reports(
    docs: &[Value],
    global: &BTreeMap<String, String>,
) -> Result<Vec<Vec<Job>>, PeerError> {
    let mut out = Vec::new();
    for doc in docs {
        let root = Field::root(doc, WHAT);
        let list = match (root.get("jobs"), root.get("client_stats")) {
            (Some(j), _) | (None, Some(j)) => j,
            (None, None) => continue,
        };
        let mut jobs = Vec::new();
        for item in list.items()? {
            jobs.push(job(&item, global)?);
        }
        out.push(jobs);
    }
    Ok(out)
}

/// One job object.
fn job(f: &Field, global: &BTreeMap<String, String>) -> Result<Job, PeerError> {
    let mut options = global.clone();
    if let Some(o) = f.get("job options") {
        options.extend(o.strings()?);
    }
    let mut dirs = BTreeMap::new();
    for name in ["read", "write", "trim"] {
        if let Some(d) = f.get(name)
            && let Some(dir) = direction(&d)?
        {
            dirs.insert(name, dir);
        }
    }
    let num = |key: &str| -> Result<f64, PeerError> {
        match f.get(key) {
            Some(v) => v.f64(),
            None => Ok(0.0),
        }
    };
    let whole = |key: &str| -> Result<u64, PeerError> {
        match f.get(key) {
            Some(v) => v.u64(),
            None => Ok(0),
        }
    };
    let depths = match f.get("iodepth_level").map(|d| d.strings()) {
        Some(Ok(levels)) => levels
            .iter()
            .filter(|(_, v)| v.parse::<f64>().is_ok_and(|p| p > 0.0))
            .map(|(k, v)| format!("{k}={v} %"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    Ok(Job {
        name: f.req("jobname")?.str()?.to_string(),
        group: f.get("groupid").map_or(Ok(0), |g| g.i64())?,
        error: f.get("error").map_or(Ok(0), |e| e.i64())?,
        host: f
            .get("hostname")
            .and_then(|h| h.str().ok())
            .map(String::from),
        options,
        dirs,
        usr_cpu: num("usr_cpu")?,
        sys_cpu: num("sys_cpu")?,
        ctx: whole("ctx")?,
        majf: whole("majf")?,
        minf: whole("minf")?,
        job_runtime_ms: whole("job_runtime")?,
        depths,
    })
}

/// A direction that moved something (`None`: it did nothing).
fn direction(f: &Field) -> Result<Option<Dir>, PeerError> {
    let io_bytes = f.req("io_bytes")?.u64()?;
    let total_ios = f.req("total_ios")?.u64()?;
    if io_bytes == 0 && total_ios == 0 {
        return Ok(None);
    }
    let runtime_ms = f.req("runtime")?.u64()?;
    let bw = f.get("bw").map_or(Ok(0), |b| b.u64())?;
    let clat = match f.get("clat_ns") {
        Some(c) => latency(&c)?,
        None => None,
    };
    let lat = match f.get("lat_ns") {
        Some(l) => latency(&l)?,
        None => None,
    };
    let mean = |key: &str| -> Result<Option<f64>, PeerError> {
        let Some(s) = f.get(key) else { return Ok(None) };
        let n = s.get("N").map_or(Ok(0), |n| n.u64())?;
        Ok(if n > 0 {
            Some(s.req("mean")?.f64()?)
        } else {
            None
        })
    };
    let spread = match (f.get("bw_samples"), f.get("bw_mean"), f.get("bw_dev")) {
        (Some(n), Some(mean), Some(dev)) if n.u64()? >= 2 => Some(Spread {
            samples: n.u64()?,
            mean: mean.f64()?,
            sd: dev.f64()?,
            min: f.req("bw_min")?.f64()?,
            max: f.req("bw_max")?.f64()?,
        }),
        _ => None,
    };
    Ok(Some(Dir {
        io_bytes,
        total_ios,
        runtime_ms,
        bw,
        // The completion latency carries fio's percentiles and bins; the
        // total latency only when asked (lat_percentiles).
        latency: clat
            .filter(|c| !c.percentiles.is_empty() || !c.buckets.is_empty())
            .or(lat),
        spread,
        lat_mean_ns: mean("lat_ns")?,
        slat_mean_ns: mean("slat_ns")?,
    }))
}

/// A latency object (`clat_ns`, `lat_ns`): count, extremes, fio's
/// percentiles, and json+'s bins in ioz's buckets.
fn latency(f: &Field) -> Result<Option<LatencySummary>, PeerError> {
    let count = f.req("N")?.u64()?;
    if count == 0 {
        return Ok(None);
    }
    let mean = f.req("mean")?.f64()?;
    let mut percentiles = Vec::new();
    if let Some(p) = f.get("percentile") {
        for (key, _) in p.strings()? {
            let percent: f64 = key.parse().map_err(|_| PeerError::Field {
                what: WHAT,
                field: format!("{}.{key}", p.path),
                why: "a percentile's key is a percent (\"99.000000\")".into(),
            })?;
            let ns = p.req(&key)?.u64()?;
            percentiles.push(Percentile { percent, ns });
        }
    }
    let mut counts: BTreeMap<usize, u64> = BTreeMap::new();
    if let Some(bins) = f.get("bins") {
        for (key, _) in bins.strings()? {
            let value: u64 = key.parse().map_err(|_| PeerError::Field {
                what: WHAT,
                field: format!("{}.{key}", bins.path),
                why: "a bin's key is its value in ns".into(),
            })?;
            *counts.entry(bucket_of(value)).or_default() += bins.req(&key)?.u64()?;
        }
    }
    let buckets = counts
        .into_iter()
        .map(|(index, count)| {
            let (low_ns, high_ns) = bucket_bounds(index);
            Bucket {
                low_ns,
                high_ns,
                count,
            }
        })
        .collect();
    Ok(Some(LatencySummary {
        count,
        min_ns: f.req("min")?.u64()?,
        max_ns: f.req("max")?.u64()?,
        sum_ns: (mean * count as f64).round() as u64,
        percentiles,
        buckets,
    }))
}

/// The `numjobs` a job ran with (1 when not given).
fn numjobs(j: &Job) -> u32 {
    j.option("numjobs")
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(1)
}

/// The results of one job group (jobs of one name that ran together).
fn measure(run: &mut PeerRun, group: &[Job], interim: &[Vec<Job>]) -> Result<(), PeerError> {
    let first = &group[0];
    let of = format!("job {}", first.name);
    if let Some(bad) = group.iter().find(|j| j.error != 0) {
        run.kept.push(Kept::new(
            &of,
            "error",
            &format!(
                "{}: the job did not finish; not compared (fio's messages say why)",
                bad.error
            ),
        ));
        return Ok(());
    }
    let rw = first
        .option("rw")
        .or(first.option("readwrite"))
        .unwrap_or("read")
        .to_string();
    let summed = group.len() > 1;
    let workers = if summed {
        group.len() as u32
    } else {
        numjobs(first)
    };
    let workers = (workers > 1).then_some(workers);
    for (k, v) in &first.options {
        if !USED_OPTIONS.contains(&k.as_str()) {
            run.kept.push(Kept::new(&of, &format!("option {k}"), v));
        }
    }
    keep_job_figures(run, &of, group);
    let moved: u64 = group
        .iter()
        .flat_map(|j| j.dirs.values())
        .map(|d| d.io_bytes)
        .sum();
    let ios: u64 = group.iter().map(Job::ios).sum();
    let file_bytes = first
        .option("size")
        .or(first.option("filesize"))
        .and_then(option_bytes)
        .unwrap_or(moved / group.len() as u64);
    let record_bytes = first
        .option("bs")
        .or(first.option("blocksize"))
        .and_then(option_bytes)
        .unwrap_or_else(|| moved.checked_div(ios).unwrap_or(0));
    let cost = sum_costs(group);
    let base = Cell {
        workers,
        file_bytes,
        record_bytes,
        settings: settings(first, workers, summed, moved, file_bytes),
        cost,
    };
    match mapping(&rw) {
        Mapping::None(what) => {
            run.kept.push(Kept::new(
                &of,
                "rw",
                &format!("{rw}: {what}, which ioz has no test for: not compared"),
            ));
            for (name, d) in &first.dirs {
                run.kept.push(Kept::new(
                    &of,
                    &format!("{name} bw"),
                    &format!("{} KiB/s", d.bw),
                ));
            }
        }
        Mapping::One(pass, dir) => {
            let parts: Vec<&Dir> = group.iter().filter_map(|j| j.dirs.get(dir)).collect();
            if parts.is_empty() {
                run.kept
                    .push(Kept::new(&of, dir, "moved nothing: not compared"));
                return Ok(());
            }
            let kb: f64 = parts.iter().map(|d| d.kb_per_sec()).sum();
            let ops: f64 = parts.iter().map(|d| d.ops_per_sec()).sum();
            let bw: u64 = parts.iter().map(|d| d.bw).sum();
            let printed = if summed {
                format!("{bw} KiB/s (the sum of {} jobs' bw)", parts.len())
            } else {
                format!("{bw} KiB/s")
            };
            let latency = merged(&parts.iter().map(|d| d.latency.clone()).collect::<Vec<_>>());
            let spread = if summed { None } else { parts[0].spread };
            let series = if summed {
                Vec::new()
            } else {
                series(first, dir, parts[0], interim)
            };
            for other in first.dirs.keys().filter(|k| **k != dir) {
                run.kept.push(Kept::new(
                    &of,
                    other,
                    "moved data beside the job's own direction",
                ));
            }
            run.results.push(base.result(
                format!("{of}, {dir}"),
                pass,
                PeerSample {
                    kb_per_sec: Some(usable(kb).map_err(|why| field_error(&of, dir, why))?),
                    ops_per_sec: Some(ops),
                },
                printed,
                latency,
                spread,
                series,
            ));
        }
        Mapping::Mix => {
            let mut kb = 0.0;
            let mut ops = 0.0;
            let mut lat = Vec::new();
            for j in group {
                let (r, w) = (j.dirs.get("read"), j.dirs.get("write"));
                let runtime = r
                    .iter()
                    .chain(w.iter())
                    .map(|d| d.runtime_ms)
                    .max()
                    .unwrap_or(0);
                let bytes: u64 = r.iter().chain(w.iter()).map(|d| d.io_bytes).sum();
                let count: u64 = r.iter().chain(w.iter()).map(|d| d.total_ios).sum();
                let secs = runtime.max(1) as f64 / 1000.0;
                kb += bytes as f64 / 1024.0 / secs;
                ops += count as f64 / secs;
                lat.extend(r.iter().chain(w.iter()).map(|d| d.latency.clone()));
            }
            for (name, d) in &first.dirs {
                run.kept.push(Kept::new(
                    &of,
                    &format!("{name} share of the mix"),
                    &format!("{} KiB/s ({:.0} IOPS)", d.bw, d.ops_per_sec()),
                ));
            }
            let printed = first
                .dirs
                .iter()
                .map(|(n, d)| format!("{n} {} KiB/s", d.bw))
                .collect::<Vec<_>>()
                .join(" + ");
            run.results.push(base.result(
                format!("{of}, reads and writes (randrw)"),
                Pass::RandomMix,
                PeerSample {
                    kb_per_sec: Some(usable(kb).map_err(|why| field_error(&of, "read", why))?),
                    ops_per_sec: Some(ops),
                },
                printed,
                merged(&lat),
                None,
                Vec::new(),
            ));
        }
    }
    Ok(())
}

fn field_error(of: &str, dir: &str, why: String) -> PeerError {
    PeerError::Field {
        what: WHAT,
        field: format!("{of}: {dir}"),
        why,
    }
}

/// A job's cell and what it recorded, shared by its results.
struct Cell {
    workers: Option<u32>,
    file_bytes: u64,
    record_bytes: u64,
    settings: Settings,
    cost: Option<Cost>,
}

impl Cell {
    #[expect(
        clippy::too_many_arguments,
        reason = "one result's parts, each named at the call"
    )]
    fn result(
        &self,
        name: String,
        pass: Pass,
        sample: PeerSample,
        printed: String,
        latency: Option<LatencySummary>,
        spread: Option<Spread>,
        series: Vec<Interval>,
    ) -> PeerResult {
        let mut settings = self.settings.clone();
        if pass == Pass::Write || pass == Pass::RandomWrite {
            settings.remove(rec::CACHE_DROPPED);
        }
        if pass == Pass::Read || pass == Pass::RandomRead {
            settings.remove(rec::FSYNC);
            settings.remove(rec::SYNC_WRITES);
        }
        PeerResult {
            name,
            test: PeerTest::Pass(pass),
            workers: self.workers,
            file_bytes: self.file_bytes,
            record_bytes: self.record_bytes,
            samples: vec![sample],
            printed,
            latency,
            recorded: Recorded {
                settings,
                cost: self.cost,
                spread,
                start_skew_ns: None,
                elapsed_ns: None,
            },
            series,
        }
    }
}

/// The CPU and context switches of a group's jobs together, per operation.
fn sum_costs(group: &[Job]) -> Option<Cost> {
    if group.len() == 1 {
        return group[0].cost();
    }
    let ios: u64 = group.iter().map(Job::ios).sum();
    let cpu: f64 = group
        .iter()
        .map(|j| (j.usr_cpu + j.sys_cpu) / 100.0 * j.job_runtime_ms as f64 * 1e6)
        .sum();
    let ctx: u64 = group.iter().map(|j| j.ctx).sum();
    (ios > 0).then(|| Cost {
        cpu_ns_per_op: Some(cpu / ios as f64),
        switches_per_op: Some(ctx as f64 / ios as f64),
        own_faults: None,
    })
}

/// Several directions' latencies as one: their bins merged (percentiles
/// from the merged histogram); one alone as fio gave it; none when any
/// lacks bins (fio's percentiles do not add up).
fn merged(parts: &[Option<LatencySummary>]) -> Option<LatencySummary> {
    let present: Vec<&LatencySummary> = parts.iter().flatten().collect();
    match present.as_slice() {
        [] => None,
        [one] if parts.len() == 1 => Some((*one).clone()),
        all if all.iter().all(|s| !s.buckets.is_empty()) => {
            let mut h = LatencyHistogram::from_summary(all[0]);
            for s in &all[1..] {
                h.merge(&LatencyHistogram::from_summary(s));
            }
            Some(h.summary(&crate::model::histogram::DEFAULT_PERCENTILES))
        }
        _ => None,
    }
}

/// The settings of a job, in the shared words (model/recorded.rs).
fn settings(j: &Job, workers: Option<u32>, summed: bool, moved: u64, file_bytes: u64) -> Settings {
    let on = |key: &str, default: bool| {
        j.option(key)
            .map_or(default, |v| !matches!(v.trim(), "0" | "false" | ""))
    };
    let mut s = Settings::new();
    let direct = on("direct", false) || !on("buffered", true);
    // O_DIRECT bypasses the page cache: what it held does not matter.
    if !direct {
        let invalidate = on("invalidate", true);
        s.insert(
            rec::CACHE_DROPPED.into(),
            if invalidate {
                "yes (fio's invalidate=1, its default)".into()
            } else {
                "no (invalidate=0)".into()
            },
        );
    }
    s.insert(rec::DIRECT.into(), yes(direct));
    let sync = j
        .option("sync")
        .is_some_and(|v| !matches!(v.trim(), "0" | "none" | "false"));
    s.insert(rec::SYNC_WRITES.into(), yes(sync));
    let fsync = on("end_fsync", false) || on("fsync_on_close", false) || on("fsync", false);
    s.insert(rec::FSYNC.into(), yes(fsync));
    let engine = j.option("ioengine").unwrap_or("psync");
    s.insert(rec::ENGINE.into(), engine_words(engine));
    let depth = j.option("iodepth").unwrap_or("1").trim().to_string();
    let queued = matches!(
        engine,
        "io_uring" | "libaio" | "posixaio" | "windowsaio" | "solarisaio"
    );
    s.insert(rec::DEPTH.into(), if queued { depth } else { "1".into() });
    if let Some(mix) = j.option("rwmixread") {
        s.insert(rec::READ_SHARE.into(), format!("{} %", mix.trim()));
    } else if matches!(mapping(j.option("rw").unwrap_or("read")), Mapping::Mix) {
        s.insert(rec::READ_SHARE.into(), "50 %".into());
    }
    let ends = match j.option("runtime") {
        Some(t) if moved > file_bytes.saturating_mul(workers.unwrap_or(1) as u64) => {
            format!(
                "after {} s (time-based: it went over the file more than once)",
                t.trim()
            )
        }
        Some(t) => format!("every record once, or after {} s", t.trim()),
        None => "every record once".into(),
    };
    s.insert(rec::ENDS.into(), ends);
    if workers.is_some() {
        s.insert(rec::SHARED_FILE.into(), yes(j.option("filename").is_some()));
        let rate = if summed {
            "sum of each worker's rate"
        } else {
            "all workers' bytes over the longest one's time (group_reporting)"
        };
        s.insert(rec::RATE_OF_WORKERS.into(), rate.into());
    }
    s.insert(
        rec::LATENCY_OF.into(),
        "fio's clat: from submission to completion".into(),
    );
    s
}

/// fio's engine in ioz's words where ioz has the same calls.
fn engine_words(engine: &str) -> String {
    match engine.trim() {
        "psync" => "psync".into(),
        "sync" => "sync".into(),
        "pvsync" | "pvsync2" => "vec".into(),
        "io_uring" => "io_uring".into(),
        "posixaio" => "aio".into(),
        "mmap" => "mmap".into(),
        other => format!("{other} (fio's)"),
    }
}

/// The figures of a job group that have no counterpart in ioz.
fn keep_job_figures(run: &mut PeerRun, of: &str, group: &[Job]) {
    let j = &group[0];
    run.kept.push(Kept::new(
        of,
        "cpu",
        &format!(
            "usr {:.2} %, sys {:.2} %, ctx {}, majf {}, minf {}",
            j.usr_cpu, j.sys_cpu, j.ctx, j.majf, j.minf
        ),
    ));
    if !j.depths.is_empty() {
        run.kept.push(Kept::new(of, "IO depths", &j.depths));
    }
    for (name, d) in &j.dirs {
        if let Some(lat) = d.lat_mean_ns {
            run.kept.push(Kept::new(
                of,
                &format!("{name} lat mean"),
                &format!("{lat:.0} ns"),
            ));
        }
        if let Some(slat) = d.slat_mean_ns {
            run.kept.push(Kept::new(
                of,
                &format!("{name} slat mean"),
                &format!("{slat:.0} ns"),
            ));
        }
    }
    if group.len() > 1 {
        run.kept.push(Kept::new(
            of,
            "jobs",
            &format!(
                "{} jobs of this name reported apart (no group_reporting): summed",
                group.len()
            ),
        ));
    }
}

/// The rate over time from the interim reports of a `--status-interval`
/// file: each report is cumulative, so an interval is what one added.
fn series(job: &Job, dir: &str, last: &Dir, interim: &[Vec<Job>]) -> Vec<Interval> {
    let mut points: Vec<(u64, u64, u64)> = interim
        .iter()
        .filter_map(|jobs| {
            let j = jobs
                .iter()
                .find(|j| j.name == job.name && j.group == job.group)?;
            let d = j.dirs.get(dir)?;
            Some((d.runtime_ms, d.io_bytes, d.total_ios))
        })
        .collect();
    if points.is_empty() {
        return Vec::new();
    }
    points.push((last.runtime_ms, last.io_bytes, last.total_ios));
    let mut out = Vec::new();
    let mut before = (0u64, 0u64, 0u64);
    for (i, p) in points.into_iter().enumerate() {
        if p.0 <= before.0 || p.1 < before.1 || p.2 < before.2 {
            continue;
        }
        out.push(Interval {
            index: i as u32,
            start_ns: before.0 * 1_000_000,
            length_ns: (p.0 - before.0) * 1_000_000,
            bytes: p.1 - before.1,
            ops: p.2 - before.2,
            partial: false,
            latency: None,
            cache: None,
            oldest_in_flight_ns: None,
        });
        before = p;
    }
    out
}

/// The command the job options say, as fio's command line would be.
fn command(global: &BTreeMap<String, String>, jobs: &[Job]) -> String {
    let arg = |k: &str, v: &str| {
        if v.contains(' ') {
            format!("--{k}='{v}'")
        } else {
            format!("--{k}={v}")
        }
    };
    let mut words = vec!["fio".to_string()];
    words.extend(global.iter().map(|(k, v)| arg(k, v)));
    let mut seen: Vec<&str> = Vec::new();
    for j in jobs {
        if seen.contains(&j.name.as_str()) {
            continue;
        }
        seen.push(&j.name);
        words.push(arg("name", &j.name));
        for (k, v) in &j.options {
            if k != "name" && global.get(k) != Some(v) {
                words.push(arg(k, v));
            }
        }
    }
    words.join(" ")
}

/// A JSON number as fio printed it.
fn number_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
