//! IO500's `result.txt`, read as a run: an INI-like file, `[run]` (the
//! processes, the version, the configuration's hash) then a section per
//! phase with its `score`, `exe` (the ior or mdtest command it ran),
//! `t_delta` and `; ERROR INVALID …` lines, then `[SCORE]`.
//!
//! Each ior phase is one sample of a write or read cell (ior-rnd* a random
//! one) from its command's transfer size (-t), block (-b) and segments
//! (-s); its score is in GiB/s (2^30 bytes: ×2^20 is kB/s). Each mdtest
//! phase is one sample of mdtest's operation (easy and hard apart by the
//! bytes -w writes to each file), its score in kIOPS (×1000). find, the
//! timestamps and the scores have no counterpart: kept, with every
//! INVALID line.

use super::sizes::option_bytes;
use super::{PeerError, figure};
use crate::model::dates;
use crate::model::metadata::MetaOp;
use crate::model::peer::{Kept, PeerResult, PeerRun, PeerSample, PeerTest, PeerTool};
use crate::model::recorded::{self as rec, Recorded, Settings, yes};
use crate::model::workload::Pass;

const WHAT: &str = "IO500's result.txt";

/// One section: its name, the line it starts on, its keys and comments.
struct Section {
    name: String,
    line: usize,
    keys: Vec<(String, String, usize)>,
    comments: Vec<String>,
}

impl Section {
    fn get(&self, key: &str) -> Option<(&str, usize)> {
        self.keys
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, n)| (v.as_str(), *n))
    }
}

/// What a phase is.
enum Phase {
    Ior(Pass),
    Mdtest(MetaOp),
    Other,
}

fn phase(name: &str) -> Phase {
    match name {
        "ior-easy-write" | "ior-hard-write" => Phase::Ior(Pass::Write),
        "ior-easy-read" | "ior-hard-read" => Phase::Ior(Pass::Read),
        n if n.starts_with("ior-rnd") && n.ends_with("read") => Phase::Ior(Pass::RandomRead),
        n if n.starts_with("ior-rnd") && n.ends_with("write") => Phase::Ior(Pass::RandomWrite),
        "mdtest-easy-write" | "mdtest-hard-write" => Phase::Mdtest(MetaOp::FileCreation),
        "mdtest-easy-stat" | "mdtest-hard-stat" => Phase::Mdtest(MetaOp::FileStat),
        "mdtest-hard-read" | "mdtest-easy-read" => Phase::Mdtest(MetaOp::FileRead),
        "mdtest-easy-delete" | "mdtest-hard-delete" => Phase::Mdtest(MetaOp::FileRemoval),
        _ => Phase::Other,
    }
}

/// The value after flag `flag` in a command (`-t 2m`, `-t=2m`).
fn flag_value<'a>(words: &[&'a str], flag: &str) -> Option<&'a str> {
    for (i, w) in words.iter().enumerate() {
        if *w == flag {
            return words.get(i + 1).copied();
        }
        if let Some(v) = w.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            return Some(v);
        }
    }
    None
}

pub(super) fn parse(text: &str) -> Result<PeerRun, PeerError> {
    let mut sections: Vec<Section> = vec![Section {
        name: "run".into(),
        line: 1,
        keys: Vec::new(),
        comments: Vec::new(),
    }];
    let mut start = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(c) = t.strip_prefix(';') {
            let c = c.trim();
            if let Some(d) = c.strip_prefix("START ") {
                start = dates::from_user(d.trim()).ok();
            }
            sections
                .last_mut()
                .expect("one")
                .comments
                .push(c.to_string());
            continue;
        }
        if let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            if name == "run" && sections.len() == 1 && sections[0].keys.is_empty() {
                continue;
            }
            sections.push(Section {
                name: name.to_string(),
                line: n + 1,
                keys: Vec::new(),
                comments: Vec::new(),
            });
            continue;
        }
        let Some((k, v)) = t.split_once('=') else {
            return Err(PeerError::Line {
                what: WHAT,
                line: n + 1,
                why: format!("\"{t}\" is neither a [section], a key = value nor a ; comment"),
            });
        };
        sections.last_mut().expect("one").keys.push((
            k.trim().to_string(),
            v.trim().to_string(),
            n + 1,
        ));
    }
    let head = &sections[0];
    let procs: u64 = head
        .get("procs")
        .and_then(|(v, _)| v.parse().ok())
        .unwrap_or(1);
    let mut run = PeerRun {
        tool: PeerTool::Io500,
        version: head.get("version").map(|(v, _)| v.to_string()),
        command: None,
        date: start,
        host: None,
        results: Vec::new(),
        kept: Vec::new(),
        defects: Vec::new(),
    };
    for key in ["config-hash", "result-dir", "mode"] {
        if let Some((v, _)) = head.get(key) {
            run.kept.push(Kept::new("the run", key, v));
        }
    }
    for c in &head.comments {
        if c.starts_with("ERROR") || c.starts_with("WARNING") {
            run.kept.push(Kept::new("the run", "validity", c));
        }
    }
    let workers = (procs > 1).then_some(procs as u32);
    for s in &sections[1..] {
        for c in &s.comments {
            if c.starts_with("ERROR") || c.starts_with("WARNING") {
                run.kept.push(Kept::new(&s.name, "validity", c));
            }
        }
        if s.name == "SCORE" || s.name == "SCOREX" {
            for (k, v, _) in &s.keys {
                run.kept.push(Kept::new(&s.name, k, v));
            }
            continue;
        }
        let score = s
            .get("score")
            .map(|(v, n)| figure(v, WHAT, n, "score", "number"))
            .transpose()?;
        let exe = s.get("exe").map(|(v, _)| v).unwrap_or("");
        let words: Vec<&str> = exe.split_whitespace().collect();
        for key in [
            "rate-stonewall",
            "throughput-stonewall",
            "t_delta",
            "found",
            "total-files",
        ] {
            if let Some((v, _)) = s.get(key) {
                run.kept.push(Kept::new(&s.name, key, v));
            }
        }
        let Some(score) = score else { continue };
        let mut settings = Settings::new();
        let stonewall = flag_value(&words, "-D").or(flag_value(&words, "-W"));
        let (test, file_bytes, record_bytes, sample, printed) = match phase(&s.name) {
            Phase::Ior(pass) => {
                let size = |flag: &str, default: u64| -> Result<u64, PeerError> {
                    match flag_value(&words, flag) {
                        None => Ok(default),
                        Some(v) => option_bytes(v).ok_or_else(|| PeerError::Line {
                            what: WHAT,
                            line: s.get("exe").map_or(s.line, |(_, n)| n),
                            why: format!("{flag} {v}: not a size"),
                        }),
                    }
                };
                let transfer = size("-t", 256 * 1024)?;
                let block = size("-b", 1024 * 1024)?;
                let segments = size("-s", 1)?;
                let kb = score * 1024.0 * 1024.0;
                settings.insert(rec::DIRECT.into(), yes(exe.contains("odirect")));
                settings.insert(rec::ENGINE.into(), "IOR's POSIX API".into());
                settings.insert(rec::DEPTH.into(), "1".into());
                settings.insert(
                    rec::ENDS.into(),
                    match stonewall {
                        Some(t) if pass == Pass::Write || pass == Pass::RandomWrite => {
                            format!("after {t} s (IOR's stonewall, -D), then every task to the most any wrote")
                        }
                        _ => "every record once".into(),
                    },
                );
                if pass == Pass::Read || pass == Pass::RandomRead {
                    settings.insert(rec::CACHE_DROPPED.into(), "no".into());
                }
                if procs > 1 {
                    settings.insert(rec::SHARED_FILE.into(), yes(!words.contains(&"-F")));
                    settings.insert(
                        rec::RATE_OF_WORKERS.into(),
                        "all tasks' bytes over the span from the first one's start to the last one's end"
                            .into(),
                    );
                }
                (
                    PeerTest::Pass(pass),
                    block.saturating_mul(segments),
                    transfer,
                    PeerSample {
                        kb_per_sec: Some(kb),
                        ops_per_sec: Some(kb * 1024.0 / transfer.max(1) as f64),
                    },
                    format!("{score} GiB/s"),
                )
            }
            Phase::Mdtest(op) => {
                let bytes = flag_value(&words, "-w")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                (
                    PeerTest::Metadata(op),
                    bytes,
                    0,
                    PeerSample {
                        kb_per_sec: None,
                        ops_per_sec: Some(score * 1000.0),
                    },
                    format!("{score} kIOPS"),
                )
            }
            Phase::Other => {
                run.kept.push(Kept::new(
                    &s.name,
                    "score",
                    &format!("{score} (no counterpart in ioz)"),
                ));
                continue;
            }
        };
        if !exe.is_empty() {
            run.kept.push(Kept::new(&s.name, "exe", exe));
        }
        run.results.push(PeerResult {
            name: s.name.clone(),
            test,
            workers,
            file_bytes,
            record_bytes,
            samples: vec![sample],
            printed,
            latency: None,
            recorded: Recorded {
                settings,
                ..Recorded::default()
            },
            series: Vec::new(),
        });
    }
    Ok(run)
}
