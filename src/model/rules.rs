//! Run rules (`--rules`): the rule set a run claims, and the stamp it
//! earned under it — valid, invalid with each reason, or not checkable
//! with why — for the run and for each cell. Plain data; the rules
//! themselves are `analysis::rules`, one implementation for the writer and
//! for `ioz check`.

use serde::{Deserialize, Serialize};

use crate::model::workload::Pass;

/// The rule set a run is judged by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// No rules: no stamp.
    #[default]
    None,
    /// IOzone's advice: a device claim needs files of at least 3 × RAM, or
    /// -I, or a measured start residency under 5 %; a durability claim
    /// needs the write's data taken to the device in its time.
    Iozone,
    /// IO500's: write phases of at least 300 s whose every worker finished
    /// its share, incompressible data, result and history files off the
    /// file system under test.
    Io500,
    /// SNIA's Solid State Storage PTS: steady state over a window of 5
    /// rounds, within 25 rounds.
    Pts,
}

impl Rules {
    /// The words `--rules` takes, the default last.
    pub const NAMES: [&'static str; 4] = ["iozone", "io500", "pts", "none"];

    pub fn named(name: &str) -> Option<Rules> {
        match name {
            "iozone" => Some(Rules::Iozone),
            "io500" => Some(Rules::Io500),
            "pts" => Some(Rules::Pts),
            "none" => Some(Rules::None),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rules::Iozone => "iozone",
            Rules::Io500 => "io500",
            Rules::Pts => "pts",
            Rules::None => "none",
        }
    }
}

/// A judgement under a rule set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Stamp {
    Valid,
    /// Each reason in one line, naming the threshold it missed.
    Invalid {
        reasons: Vec<String>,
    },
    /// Why the rules could not be checked (evidence the run lacks).
    NotCheckable {
        why: Vec<String>,
    },
}

impl Stamp {
    /// "valid", "invalid", "not checkable".
    pub fn word(&self) -> &'static str {
        match self {
            Stamp::Valid => "valid",
            Stamp::Invalid { .. } => "invalid",
            Stamp::NotCheckable { .. } => "not checkable",
        }
    }

    pub fn is_invalid(&self) -> bool {
        matches!(self, Stamp::Invalid { .. })
    }

    /// The reasons (invalid) or the why (not checkable); none when valid.
    pub fn lines(&self) -> &[String] {
        match self {
            Stamp::Valid => &[],
            Stamp::Invalid { reasons } => reasons,
            Stamp::NotCheckable { why } => why,
        }
    }

    /// Several judgements as one: invalid when any is (every reason once,
    /// in order), else not checkable when any is, else valid.
    pub fn all<'a>(stamps: impl IntoIterator<Item = &'a Stamp>) -> Stamp {
        let (mut reasons, mut why) = (Vec::<String>::new(), Vec::<String>::new());
        let mut any = false;
        for stamp in stamps {
            any = true;
            let into = match stamp {
                Stamp::Valid => continue,
                Stamp::Invalid { reasons: r } => (&mut reasons, r),
                Stamp::NotCheckable { why: w } => (&mut why, w),
            };
            for line in into.1 {
                if !into.0.contains(line) {
                    into.0.push(line.clone());
                }
            }
        }
        if !reasons.is_empty() {
            Stamp::Invalid { reasons }
        } else if !why.is_empty() {
            Stamp::NotCheckable { why }
        } else if any {
            Stamp::Valid
        } else {
            Stamp::NotCheckable {
                why: vec!["nothing was measured".into()],
            }
        }
    }
}

/// One cell's pass (or throughput phase) judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellStamp {
    pub pass: Pass,
    pub file_bytes: u64,
    pub record_bytes: u64,
    pub workers: u32,
    pub stamp: Stamp,
    /// `pts`: the window of 5 rounds found steady (rounds from 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyWindow>,
}

/// The window of rounds SNIA's steady state held over, and its figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyWindow {
    /// First and last round of the window, from 0.
    pub first: u32,
    pub last: u32,
    /// The tracking variable's mean, range (max − min) and the excursion
    /// of its least-squares line across the window, in its unit.
    pub mean: f64,
    pub range: f64,
    pub excursion: f64,
}

/// A run's stamp under the rules it claimed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunStamp {
    pub rules: Rules,
    pub run: Stamp,
    pub cells: Vec<CellStamp>,
}

impl RunStamp {
    /// The stamp of `pass` on a cell, if it was judged.
    pub fn cell(&self, pass: Pass, file_bytes: u64, record_bytes: u64) -> Option<&CellStamp> {
        self.cells.iter().find(|c| {
            c.pass == pass && c.file_bytes == file_bytes && c.record_bytes == record_bytes
        })
    }
}
