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

    /// The stamp of a throughput phase (its worker count too: a sweep of
    /// -l..-u has a phase of each pass per count).
    pub fn phase(
        &self,
        pass: Pass,
        file_bytes: u64,
        record_bytes: u64,
        workers: u32,
    ) -> Option<&CellStamp> {
        self.cells.iter().find(|c| {
            c.pass == pass
                && c.file_bytes == file_bytes
                && c.record_bytes == record_bytes
                && c.workers == workers
        })
    }
}

/// The `digest` a stamped run's JSON file holds before its digest is known:
/// as wide as a digest, so that the text around it does not move.
pub const DIGEST_PLACEHOLDER: &str = "0000000000000000";
/// The key the digest is written under (top level of the file).
const DIGEST_KEY: &str = "\"digest\": \"";

/// FNV-1a (64 bits) of `text`, in 16 hex digits: the saved run's own
/// digest, against edits made after ioz wrote it (not against forgery: it
/// can be recomputed by anyone, as IO500's can).
pub fn digest_of(text: &[u8]) -> String {
    fnv1a(text)
}

fn fnv1a(text: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The JSON text `text` (which holds the placeholder as its digest) with
/// its digest in place; unchanged when it has no digest field.
pub fn seal(text: &str) -> String {
    let placeholder = format!("{DIGEST_KEY}{DIGEST_PLACEHOLDER}\"");
    match text.rfind(&placeholder) {
        Some(at) => {
            let digest = fnv1a(text.as_bytes());
            let start = at + DIGEST_KEY.len();
            format!(
                "{}{digest}{}",
                &text[..start],
                &text[start + DIGEST_PLACEHOLDER.len()..]
            )
        }
        None => text.to_string(),
    }
}

/// What a saved file's digest says of its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seal {
    /// The text is as ioz wrote it.
    Intact,
    /// The text changed after: the digest it holds, and its text's.
    Edited { saved: String, now: String },
    /// The file holds no digest (no stamp, or saved before ioz kept one).
    Absent,
}

/// Checks `text`'s digest: its last digest field set back to the
/// placeholder, the text's digest against the one it held.
pub fn check_seal(text: &str) -> Seal {
    let Some(at) = text.rfind(DIGEST_KEY) else {
        return Seal::Absent;
    };
    let start = at + DIGEST_KEY.len();
    let Some(len) = text[start..].find('"') else {
        return Seal::Absent;
    };
    let saved = text[start..start + len].to_string();
    let blank = format!(
        "{}{DIGEST_PLACEHOLDER}{}",
        &text[..start],
        &text[start + len..]
    );
    let now = fnv1a(blank.as_bytes());
    if now == saved {
        Seal::Intact
    } else {
        Seal::Edited { saved, now }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_text_checks_intact_and_an_edit_shows() {
        let text = "{\n  \"rate\": 100,\n  \"digest\": \"0000000000000000\"\n}\n";
        let sealed = seal(text);
        assert_ne!(sealed, text);
        assert_eq!(sealed.len(), text.len());
        assert_eq!(check_seal(&sealed), Seal::Intact);
        let edited = sealed.replace("100", "200");
        assert!(matches!(check_seal(&edited), Seal::Edited { .. }));
        assert_eq!(check_seal("{}"), Seal::Absent);
        // FNV-1a's published value for "a".
        assert_eq!(fnv1a(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn stamps_together_take_the_worst_with_each_reason_once() {
        let bad = |r: &str| Stamp::Invalid {
            reasons: vec![r.to_string()],
        };
        let unknown = Stamp::NotCheckable {
            why: vec!["no RAM".into()],
        };
        assert_eq!(Stamp::all([&Stamp::Valid, &Stamp::Valid]), Stamp::Valid);
        assert_eq!(Stamp::all([&Stamp::Valid, &unknown]), unknown);
        assert_eq!(
            Stamp::all([&bad("a"), &unknown, &bad("b"), &bad("a")]),
            Stamp::Invalid {
                reasons: vec!["a".into(), "b".into()]
            }
        );
        assert!(matches!(Stamp::all([]), Stamp::NotCheckable { .. }));
    }
}
