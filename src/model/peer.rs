//! Another benchmark's result file as ioz reads it (fio, IOR, mdtest,
//! elbencho, IO500): a run like any other, with the tool, its version and
//! its command kept, each result mapped onto an ioz cell (test, workers,
//! file size, record size) with its rates in ioz's units, and what has no
//! counterpart in ioz kept beside, to be shown. The readers are
//! report/peers/; analysis/samples.rs turns a peer run into samples as it
//! does a saved run.

use serde::{Deserialize, Serialize};

use crate::model::config::OutputUnit;
use crate::model::histogram::LatencySummary;
use crate::model::intervals::Interval;
use crate::model::metadata::MetaOp;
use crate::model::recorded::Recorded;
use crate::model::workload::Pass;

/// The benchmarks whose results ioz reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeerTool {
    Fio,
    Ior,
    Mdtest,
    Elbencho,
    Io500,
}

impl PeerTool {
    pub const ALL: [PeerTool; 5] = [
        PeerTool::Fio,
        PeerTool::Ior,
        PeerTool::Mdtest,
        PeerTool::Elbencho,
        PeerTool::Io500,
    ];

    /// Its name as its users write it.
    pub fn name(self) -> &'static str {
        match self {
            PeerTool::Fio => "fio",
            PeerTool::Ior => "IOR",
            PeerTool::Mdtest => "mdtest",
            PeerTool::Elbencho => "elbencho",
            PeerTool::Io500 => "IO500",
        }
    }
}

/// The ioz test a peer's result measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeerTest {
    Pass(Pass),
    /// mdtest's phases (IO500's and elbencho's metadata phases among them).
    Metadata(MetaOp),
}

/// One measurement of a result (a repetition, an iteration): its rate in
/// ioz's units, where the peer gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PeerSample {
    /// kB/s (1 kB = 1024 bytes), unrounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kb_per_sec: Option<f64>,
    /// Operations (records, or metadata items) per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_per_sec: Option<f64>,
}

impl PeerSample {
    /// The rate in `unit`, where the sample has one.
    pub fn in_unit(&self, unit: OutputUnit) -> Option<f64> {
        match unit {
            OutputUnit::KbPerSec => self.kb_per_sec,
            OutputUnit::OpsPerSec => self.ops_per_sec,
            OutputUnit::MicrosPerOp => self.ops_per_sec.filter(|o| *o > 0.0).map(|o| 1e6 / o),
        }
    }
}

/// One result of a peer's file mapped onto an ioz cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerResult {
    /// What the peer calls it ("job randread, read", "write", "File creation").
    pub name: String,
    pub test: PeerTest,
    /// Workers (jobs, tasks, threads, ranks) when more than one; `None`
    /// for one, as ioz's single and auto mode.
    pub workers: Option<u32>,
    /// Bytes of each worker's file (its share), and of each record; a
    /// metadata phase's file size is what each file is written, its record 0.
    pub file_bytes: u64,
    pub record_bytes: u64,
    /// Each repetition's rate, in the order the file gives them.
    pub samples: Vec<PeerSample>,
    /// The peer's own figure, as it printed it ("47589 KiB/s", "3593.4173
    /// MiB/s"), so a reader sees what was converted from what.
    pub printed: String,
    /// The operations' latency (ns): the percentiles the peer printed and,
    /// where it wrote them (fio's json+), its histogram's bins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    /// Its settings, cost and spread (model/recorded.rs).
    pub recorded: Recorded,
    /// The rate over the run, where the file holds interim reports (fio's
    /// `--status-interval`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<Interval>,
}

/// A figure of the file with no counterpart in ioz, kept to be shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    /// What it belongs to ("job randread", "the run", "ior-easy-write").
    pub of: String,
    pub name: String,
    pub value: String,
}

impl Kept {
    pub fn new(of: &str, name: &str, value: &str) -> Kept {
        Kept {
            of: of.to_string(),
            name: name.to_string(),
            value: value.to_string(),
        }
    }
}

/// A peer's result file, read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerRun {
    pub tool: PeerTool,
    /// The tool's version as the file gives it ("3.33" of fio's "fio-3.33", "4.1.0+dev").
    pub version: Option<String>,
    /// The command that made it, as the file gives it.
    pub command: Option<String>,
    /// When it ran, RFC 3339 (UTC; a tool that prints its local time is read as UTC).
    pub date: Option<String>,
    pub host: Option<String>,
    pub results: Vec<PeerResult>,
    pub kept: Vec<Kept>,
    /// The tool's own writer's defects met and read past, each named
    /// ("IOR wrote 2 lines of text among its JSON (hpc/ior#503): left out").
    pub defects: Vec<String>,
}

impl PeerRun {
    /// A run of `tool` with nothing read yet.
    pub fn empty(tool: PeerTool) -> PeerRun {
        PeerRun {
            tool,
            version: None,
            command: None,
            date: None,
            host: None,
            results: Vec::new(),
            kept: Vec::new(),
            defects: Vec::new(),
        }
    }

    /// The unit its samples are compared in: kB/s when any result moved
    /// data, else operations per second (a metadata benchmark's).
    pub fn unit(&self) -> OutputUnit {
        let data = self
            .results
            .iter()
            .any(|r| r.samples.iter().any(|s| s.kb_per_sec.is_some()));
        if data {
            OutputUnit::KbPerSec
        } else {
            OutputUnit::OpsPerSec
        }
    }

    /// The results with no sample in `unit` (a metadata phase in a file of
    /// data phases): kept, not compared in it.
    pub fn outside(&self, unit: OutputUnit) -> impl Iterator<Item = &PeerResult> {
        self.results
            .iter()
            .filter(move |r| r.samples.iter().all(|s| s.in_unit(unit).is_none()))
    }

    /// "fio 3.33": the tool and its version.
    pub fn tool_words(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {v}", self.tool.name()),
            None => self.tool.name().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_data_phases_compares_in_kb_and_keeps_its_metadata_apart() {
        let result = |test, kb: Option<f64>| PeerResult {
            name: "x".into(),
            test,
            workers: None,
            file_bytes: 0,
            record_bytes: 0,
            samples: vec![PeerSample {
                kb_per_sec: kb,
                ops_per_sec: Some(10.0),
            }],
            printed: String::new(),
            latency: None,
            recorded: Recorded::default(),
            series: Vec::new(),
        };
        let mut run = PeerRun {
            tool: PeerTool::Elbencho,
            version: None,
            command: None,
            date: None,
            host: None,
            results: vec![result(PeerTest::Metadata(MetaOp::DirectoryCreation), None)],
            kept: Vec::new(),
            defects: Vec::new(),
        };
        assert_eq!(run.unit(), OutputUnit::OpsPerSec);
        run.results
            .push(result(PeerTest::Pass(Pass::Write), Some(1024.0)));
        assert_eq!(run.unit(), OutputUnit::KbPerSec);
        assert_eq!(run.outside(OutputUnit::KbPerSec).count(), 1);
        assert_eq!(
            run.results[0].samples[0].in_unit(OutputUnit::MicrosPerOp),
            Some(1e5)
        );
    }
}
