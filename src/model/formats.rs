//! Every result format ioz writes, as one list (hyperfine's `ExportType` is
//! the model): each format's flag, what the flag takes, the key a saved run
//! keeps its path under, the extensions its path may end in, and how the
//! result guard judges that path. The output flags of the command line
//! (cli), [`OutputFiles`] and its saved form, `ResultPlaces`
//! (model::result_files), the guard (safety::outputs) and the writer
//! (report::files) all walk this list. The one fact of a format that is not
//! here is its exporter: report's, beside the exporters (report/files.rs).
//!
//! None of ioz's formats has a default file name: each is written only
//! where its flag names a path. Every flag may be given more than once, and
//! every path given is written (`--json a.json --json b.json` writes both,
//! as `-b r.xls -b r.xlsx` writes a spreadsheet of each kind): a second
//! path is never dropped unsaid. The same file twice is refused by the
//! guard, as any two outputs on one file are.

use std::fmt;
use std::path::PathBuf;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One result format (see the module), in the list's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Json,
    Csv,
    Html,
    Plots,
    Spreadsheet,
    IntervalCsv,
    Live,
}

/// How the result guard (safety::outputs) judges a format's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardRule {
    /// One regular file, new or ioz's own (another only with `--force`),
    /// and neither an input of the command nor another of its outputs.
    File,
    /// A directory, made when missing (its parent exists), whose every file
    /// is judged as a result file (model::result_files::files_in_directory
    /// names them).
    Directory,
}

/// A format's row of the list.
#[derive(Debug)]
pub struct FormatRow {
    pub format: Format,
    /// The flag that asks for it: `--json`.
    pub flag: &'static str,
    /// What the flag takes, as the help names it.
    pub value_name: &'static str,
    /// The flag's line in `ioz -h` and `ioz report -h`.
    pub help: &'static str,
    /// The key of a saved run's `config.outputs` that keeps the path.
    pub saved_as: &'static str,
    /// The extensions the path must end in (any case); empty: any path.
    pub extensions: &'static [&'static str],
    pub guard: GuardRule,
    /// A saved run holds its key even when it was not asked for (null),
    /// as runs always held the first formats'; a later format's key is
    /// saved only with a path, so that runs without it are saved as before.
    pub saved_when_absent: bool,
}

/// Every format, in the order a saved run keeps them, the guard checks
/// them and the writer writes them.
pub const FORMATS: [FormatRow; 7] = [
    FormatRow {
        format: Format::Json,
        flag: "--json",
        value_name: "FILE",
        help: "the whole run as JSON (schema in schema/run.schema.json)",
        saved_as: "json",
        extensions: &[],
        guard: GuardRule::File,
        saved_when_absent: true,
    },
    FormatRow {
        format: Format::Csv,
        flag: "--csv",
        value_name: "FILE",
        help: "one row per measurement (throughput mode: per phase, and per worker with -C)",
        saved_as: "csv",
        extensions: &[],
        guard: GuardRule::File,
        saved_when_absent: true,
    },
    FormatRow {
        format: Format::Html,
        flag: "--html",
        value_name: "FILE",
        help: "a self-contained HTML report with tables and plots",
        saved_as: "html",
        extensions: &[],
        guard: GuardRule::File,
        saved_when_absent: true,
    },
    FormatRow {
        format: Format::Plots,
        flag: "--plots",
        value_name: "DIR",
        help: "PNG and SVG plots of each test pass: a 3-D surface and 2-D views by file \
               size and by record size (DIR is made if missing)",
        saved_as: "plots",
        extensions: &[],
        guard: GuardRule::Directory,
        saved_when_absent: true,
    },
    FormatRow {
        format: Format::Spreadsheet,
        flag: "-b",
        value_name: "FILE",
        help: "spreadsheet: .xls/.wks in IOzone's layout, or .xlsx (implies -R); \
               repeat to write several (an .xls and an .xlsx)",
        saved_as: "spreadsheet",
        extensions: &["xls", "wks", "xlsx"],
        guard: GuardRule::File,
        saved_when_absent: true,
    },
    FormatRow {
        format: Format::IntervalCsv,
        flag: "--interval-csv",
        value_name: "FILE",
        help: "with --interval: one row per interval of every pass (throughput mode: \
               of each phase's sum and of each worker)",
        saved_as: "interval_csv",
        extensions: &[],
        guard: GuardRule::File,
        saved_when_absent: false,
    },
    FormatRow {
        format: Format::Live,
        flag: "--live",
        value_name: "FILE",
        help: "with --interval: one JSON object per line for each interval, written \
               as it ends, so that tail -f can follow the run (throughput mode: the \
               phase's sum, each worker's beside it)",
        saved_as: "live",
        extensions: &[],
        guard: GuardRule::File,
        saved_when_absent: false,
    },
];

// Each row sits at its format's place, so that a format finds its row at
// once (and in const code: the command line's tables are built from it).
const _: () = {
    let mut i = 0;
    while i < FORMATS.len() {
        assert!(FORMATS[i].format as usize == i, "a row out of place");
        i += 1;
    }
};

impl Format {
    /// Its row of the list.
    pub const fn row(self) -> &'static FormatRow {
        &FORMATS[self as usize]
    }

    /// The flag that asks for it (for messages): `--json`.
    pub fn flag(self) -> &'static str {
        self.row().flag
    }
}

/// The result files a command asks for: each with its format, format by
/// format in the list's order, a format's paths in command-line order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutputFiles {
    asked: Vec<(Format, PathBuf)>,
}

impl OutputFiles {
    /// Asks for `path` in `format`, after the paths it already has.
    pub fn add(&mut self, format: Format, path: PathBuf) {
        let at = self
            .asked
            .iter()
            .position(|(f, _)| *f > format)
            .unwrap_or(self.asked.len());
        self.asked.insert(at, (format, path));
    }

    /// The paths asked for in `format`, in command-line order.
    pub fn of(&self, format: Format) -> impl Iterator<Item = &PathBuf> {
        self.asked
            .iter()
            .filter(move |(f, _)| *f == format)
            .map(|(_, p)| p)
    }

    /// Every path asked for with its format, in the list's order.
    pub fn requested(&self) -> impl Iterator<Item = (Format, &PathBuf)> {
        self.asked.iter().map(|(f, p)| (*f, p))
    }

    pub fn is_empty(&self) -> bool {
        self.asked.is_empty()
    }
}

/// Saved as an object with one key per format of the list: null when not
/// asked (a format added since, nothing); one path alone, or a list of two
/// or more (so a run with one path saves what it always did). Keys a
/// run saved by another version holds and this one does not know are
/// skipped, and a missing key is a format not asked for.
impl Serialize for OutputFiles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for row in &FORMATS {
            let paths: Vec<&PathBuf> = self.of(row.format).collect();
            match paths.as_slice() {
                [] if !row.saved_when_absent => {}
                [] => map.serialize_entry(row.saved_as, &None::<PathBuf>)?,
                [one] => map.serialize_entry(row.saved_as, one)?,
                more => map.serialize_entry(row.saved_as, more)?,
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for OutputFiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(SavedOutputs)
    }
}

/// A saved path: one, or a list.
#[derive(Deserialize)]
#[serde(untagged)]
enum Saved {
    One(PathBuf),
    More(Vec<PathBuf>),
}

struct SavedOutputs;

impl<'de> Visitor<'de> for SavedOutputs {
    type Value = OutputFiles;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the result files of a run")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OutputFiles, A::Error> {
        let mut outputs = OutputFiles::default();
        while let Some(key) = map.next_key::<String>()? {
            let Some(row) = FORMATS.iter().find(|r| r.saved_as == key) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let paths = match map.next_value::<Option<Saved>>()? {
                None => Vec::new(),
                Some(Saved::One(path)) => vec![path],
                Some(Saved::More(paths)) => paths,
            };
            for path in paths {
                outputs.add(row.format, path);
            }
        }
        Ok(outputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_row_and_one_flag() {
        for (i, row) in FORMATS.iter().enumerate() {
            assert_eq!(row.format.row().format, row.format);
            for other in &FORMATS[..i] {
                assert_ne!(other.format, row.format);
                assert_ne!(other.flag, row.flag);
                assert_ne!(other.saved_as, row.saved_as);
            }
        }
    }

    #[test]
    fn saved_as_before_one_key_per_format_in_the_list_s_order() {
        let mut o = OutputFiles::default();
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"json":null,"csv":null,"html":null,"plots":null,"spreadsheet":null}"#
        );
        o.add(Format::Spreadsheet, "a.xls".into());
        o.add(Format::Json, "r.json".into());
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"json":"r.json","csv":null,"html":null,"plots":null,"spreadsheet":"a.xls"}"#
        );
        // Every format keeps every path given, in order.
        let mut twice = o.clone();
        twice.add(Format::Json, "s.json".into());
        let saved = serde_json::to_string(&twice).unwrap();
        assert!(
            saved.starts_with(r#"{"json":["r.json","s.json"],"#),
            "{saved}"
        );
        assert_eq!(serde_json::from_str::<OutputFiles>(&saved).unwrap(), twice);
        let mut live = o.clone();
        live.add(Format::Live, "live.jsonl".into());
        assert!(
            serde_json::to_string(&live)
                .unwrap()
                .ends_with(r#""spreadsheet":"a.xls","live":"live.jsonl"}"#)
        );
        o.add(Format::Spreadsheet, "b.xlsx".into());
        let saved = serde_json::to_string(&o).unwrap();
        assert!(
            saved.ends_with(r#""spreadsheet":["a.xls","b.xlsx"]}"#),
            "{saved}"
        );
        assert_eq!(serde_json::from_str::<OutputFiles>(&saved).unwrap(), o);
    }

    #[test]
    fn unknown_and_missing_keys_read() {
        let o: OutputFiles = serde_json::from_str(r#"{"csv":"c.csv","svg":"x"}"#).unwrap();
        let asked: Vec<_> = o.requested().collect();
        assert_eq!(asked, [(Format::Csv, &PathBuf::from("c.csv"))]);
    }

    #[test]
    fn requested_in_the_list_s_order() {
        let mut o = OutputFiles::default();
        o.add(Format::Spreadsheet, "a.xls".into());
        o.add(Format::Plots, "p".into());
        o.add(Format::Json, "r.json".into());
        let formats: Vec<Format> = o.requested().map(|(f, _)| f).collect();
        assert_eq!(formats, [Format::Json, Format::Plots, Format::Spreadsheet]);
    }
}
