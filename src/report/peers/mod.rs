//! Other benchmarks' result files read back as runs (model/peer.rs), so
//! that `ioz compare`, `ioz history import`, `ioz report` and `ioz history
//! trend` take them wherever they take an ioz run or an IOzone log: one
//! reader per tool, each a pure function from the file's text to a
//! [`PeerRun`], its refusal naming where the file broke (line and column,
//! or the field). Known defects of the tools' own writers are read past
//! where they can be, and named in the run (`defects`).
//!
//! - fio.rs: `--output-format=json` and `json+` (several jobs, numjobs with
//!   and without group_reporting, client/server's `client_stats`, collated
//!   `--status-interval` reports); fio_text.rs: fio's normal text output;
//! - ior.rs: the JSON summary (`-O summaryFile`, or on standard output,
//!   with hpc/ior#503's stray lines) and the text output;
//! - mdtest.rs: the text's SUMMARY rate table, `--saveRankPerformanceDetails`'s CSV;
//! - elbencho.rs: `--csvfile`'s rows;
//! - io500.rs: `result.txt`;
//! - json.rs, sizes.rs: what the readers share (fields named by their path;
//!   the tools' sizes and JSON with text around it).

mod elbencho;
mod fio;
mod fio_text;
mod io500;
mod ior;
mod json;
mod mdtest;
mod sizes;
pub mod text;

use crate::model::peer::{PeerRun, PeerTool};

/// The forms of result file ioz reads, each by one reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerFormat {
    FioJson,
    FioText,
    IorJson,
    IorText,
    MdtestText,
    MdtestCsv,
    ElbenchoCsv,
    Io500Result,
}

impl PeerFormat {
    pub fn tool(self) -> PeerTool {
        match self {
            PeerFormat::FioJson | PeerFormat::FioText => PeerTool::Fio,
            PeerFormat::IorJson | PeerFormat::IorText => PeerTool::Ior,
            PeerFormat::MdtestText | PeerFormat::MdtestCsv => PeerTool::Mdtest,
            PeerFormat::ElbenchoCsv => PeerTool::Elbencho,
            PeerFormat::Io500Result => PeerTool::Io500,
        }
    }

    /// What the file is, in words ("fio's JSON output").
    pub fn words(self) -> &'static str {
        match self {
            PeerFormat::FioJson => "fio's JSON output",
            PeerFormat::FioText => "fio's text output",
            PeerFormat::IorJson => "IOR's JSON summary",
            PeerFormat::IorText => "IOR's text output",
            PeerFormat::MdtestText => "mdtest's output",
            PeerFormat::MdtestCsv => "mdtest's --saveRankPerformanceDetails CSV",
            PeerFormat::ElbenchoCsv => "elbencho's --csvfile CSV",
            PeerFormat::Io500Result => "IO500's result.txt",
        }
    }
}

/// Which peer's file `text` is, from what each tool always writes; `None`
/// when it is none of them (a saved ioz run, IOzone's output, anything).
pub fn detect(text: &str) -> Option<PeerFormat> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    // JSON (possibly after a tool's stray lines): by its first keys.
    if text.contains("\"fio version\"") {
        return Some(PeerFormat::FioJson);
    }
    if text.contains("\"Command line\"") && text.contains("\"tests\"") && text.contains("\"Began\"")
    {
        return Some(PeerFormat::IorJson);
    }
    if first.starts_with("ISO date,label,path type,") {
        return Some(PeerFormat::ElbenchoCsv);
    }
    if first.starts_with("rank,items,rate-") {
        return Some(PeerFormat::MdtestCsv);
    }
    if text
        .lines()
        .any(|l| l.starts_with("IOR-") && l.contains("MPI Coordinated Test"))
    {
        return Some(PeerFormat::IorText);
    }
    if text.contains("SUMMARY rate") && text.lines().any(|l| l.starts_with("mdtest-")) {
        return Some(PeerFormat::MdtestText);
    }
    if text.lines().any(|l| l.trim() == "[SCORE]")
        || (text.lines().any(|l| l.trim() == "[ior-easy-write]") && text.contains("config-hash"))
    {
        return Some(PeerFormat::Io500Result);
    }
    let fio_banner = text.lines().any(|l| {
        l.trim()
            .strip_prefix("fio-")
            .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    });
    if fio_banner && text.contains("(groupid=") {
        return Some(PeerFormat::FioText);
    }
    None
}

/// Whether the first bytes of a JSON file are a peer's (fio's first key
/// is "fio version"; IOR's summary begins with its Version, Began and
/// Command line), not a saved ioz run.
pub fn json_head(head: &str) -> bool {
    head.contains("\"fio version\"")
        || (head.contains("\"Began\"") && head.contains("\"Command line\""))
}

/// Why a peer's file gave no run: where it broke, in its own terms. The
/// caller names the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PeerError {
    /// The JSON itself breaks (serde's line and column, in the whole file).
    #[error("{what} breaks at line {line}, column {column}: {why}")]
    Json {
        what: &'static str,
        line: usize,
        column: usize,
        why: String,
    },
    /// A field is missing or holds what it cannot.
    #[error("{what}: {field}: {why}")]
    Field {
        what: &'static str,
        field: String,
        why: String,
    },
    /// A line of a text or CSV file.
    #[error("{what}, line {line}: {why}")]
    Line {
        what: &'static str,
        line: usize,
        why: String,
    },
    #[error("{what} holds no results ({why})")]
    NoResults { what: &'static str, why: String },
}

/// The run in `text`, read as `format`.
pub fn parse(format: PeerFormat, text: &str) -> Result<PeerRun, PeerError> {
    let run = match format {
        PeerFormat::FioJson => fio::parse_json(text)?,
        PeerFormat::FioText => fio_text::parse(text)?,
        PeerFormat::IorJson => ior::parse_json(text)?,
        PeerFormat::IorText => ior::parse_text(text)?,
        PeerFormat::MdtestText => mdtest::parse_text(text)?,
        PeerFormat::MdtestCsv => mdtest::parse_csv(text)?,
        PeerFormat::ElbenchoCsv => elbencho::parse(text)?,
        PeerFormat::Io500Result => io500::parse(text)?,
    };
    if run.results.is_empty() {
        return Err(PeerError::NoResults {
            what: format.words(),
            why: "no test ioz has a counterpart for".into(),
        });
    }
    Ok(run)
}

/// The figure `text` of line `line` (a rate, a size, a count), or the
/// refusal naming the line and the figure: `"{label}: \"{text}\" is not a
/// {kind}"`, or why the number is unusable.
fn figure(
    text: &str,
    what: &'static str,
    line: usize,
    label: &str,
    kind: &str,
) -> Result<f64, PeerError> {
    let named = |why: String| PeerError::Line {
        what,
        line,
        why: if label.is_empty() {
            why
        } else {
            format!("{label}: {why}")
        },
    };
    let v = text
        .trim()
        .parse::<f64>()
        .map_err(|_| named(format!("\"{}\" is not a {kind}", text.trim())))?;
    usable(v).map_err(named)
}

/// A rate, size or count a reader may take: finite, 0 or more, and at most
/// 2^53 (where an f64 stops being exact); else why not.
fn usable(v: f64) -> Result<f64, String> {
    if v.is_finite() && (0.0..=9_007_199_254_740_992.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{v} is not a usable figure (a finite number, 0 or more)"
        ))
    }
}

#[cfg(test)]
mod tests;
