//! Files the run writes, and ioz's own options.

use super::Spelling::{Long, Short};
use super::{Choice, Flag, Number, Section};
use crate::model::config::{DataPattern, MAX_RUNS, PlotStyle};
use crate::model::formats::Format;

/// The words of `--plot-scale` (also taken by `ioz report`).
pub(in crate::cli) const PLOT_SCALE: Choice = Choice {
    names: &PlotStyle::SCALE_NAMES,
    expected: "a plot scale (own or shared)",
    default: None,
};

pub(super) const SECTION: Section = Section {
    title: "Results (written at the end of the run, also when it stops early)",
    note: "",
    flags: &[
        Flag::spreadsheet(
            Short('b'),
            "FILE",
            "spreadsheet: .xls/.wks in IOzone's layout, or .xlsx (implies -R); \
             repeat to write several (an .xls and an .xlsx)",
            |s, file| {
                // As in IOzone, a spreadsheet implies the -R report.
                s.outputs.add(Format::Spreadsheet, file);
                s.excel_report = true;
            },
        ),
        Flag::path(
            Long("json"),
            "FILE",
            "the whole run as JSON (schema in schema/run.schema.json)",
            |s, file| s.outputs.add(Format::Json, file),
        ),
        Flag::path(
            Long("csv"),
            "FILE",
            "one row per measurement (throughput mode: per phase, and per worker with -C)",
            |s, file| s.outputs.add(Format::Csv, file),
        ),
        Flag::path(
            Long("html"),
            "FILE",
            "a self-contained HTML report with tables and plots",
            |s, file| s.outputs.add(Format::Html, file),
        ),
        Flag::path(
            Long("plots"),
            "DIR",
            "PNG and SVG plots of each test pass: a 3-D surface and 2-D views by file \
             size and by record size (DIR is made if missing)",
            |s, dir| s.outputs.add(Format::Plots, dir),
        ),
        Flag::number(
            Long("runs"),
            "N",
            Number::count(1, MAX_RUNS as u64, "runs"),
            "measure the whole plan N times, one repetition after the other; every \
             sample is kept, the table shows each cell's mean, then its standard \
             deviation",
            |s, n| s.runs = Some(n as u32),
        )
        .header_number(|n| {
            vec![format!(
                "Runs: {n} (the whole plan, measured again each run; the table shows the mean)"
            )]
        }),
        Flag::word(
            Long("label"),
            "NAME",
            "a name for the configuration measured",
            "name the configuration being measured (e.g. bcache-cfq): shown in the \
             header, saved in the results",
            |s, name| s.label = Some(name.to_string()),
        ),
        Flag::choice(
            Long("plot-scale"),
            "SCALE",
            PLOT_SCALE,
            "value axes of the plots and HTML: own (each test fills its plot, \
             default) or shared (one scale for every test, to compare them)",
            |s, scale| s.plot_style.shared_scale = scale == "shared",
        ),
        Flag::switch(
            Long("plot-log"),
            "a logarithmic value axis on the plots and the HTML report",
            |s| s.plot_style.log_values = true,
        ),
        Flag::path(
            Long("history"),
            "DIR",
            "record the run in the history in DIR (default: $IOZ_HISTORY, else \
             $XDG_DATA_HOME/ioz or ~/.local/share/ioz; see ioz history -h)",
            |s, dir| s.history.dir = Some(dir),
        ),
        Flag::switch(
            Long("no-history"),
            "record nothing in the history (also IOZ_NO_HISTORY=1)",
            |s| s.history.off = true,
        ),
        Flag::switch(
            Long("quiet"),
            "no progress bar (it only shows on a terminal) and no warnings",
            |s| s.quiet = true,
        ),
    ],
};

pub(super) const OWN_SECTION: Section = Section {
    title: "ioz's own options",
    note: "",
    flags: &[
        Flag::switch(
            Long("force"),
            "use an existing file that ioz did not create: a test file (overwritten \
             and, without -w, deleted) or a result file (replaced)",
            |s| s.force = true,
        ),
        Flag::word(
            Long("destroy-data"),
            "ID",
            "the device's WWN, serial or (lacking those) path",
            "allow writing to a block device that holds data (a file system, \
             partition table, LVM, RAID, LUKS or swap): ID is its WWN or serial, or \
             its path when it has none; repeat for several",
            |s, id| s.destroy_data.push(id.to_string()),
        ),
        Flag::choice(
            Long("data"),
            "KIND",
            Choice {
                names: &["random", "iozone"],
                expected: "a data pattern (random or iozone)",
                default: None,
            },
            "written data: random (incompressible, default) or iozone (IOzone's \
             mostly-zero buffer, for like-for-like comparisons)",
            |s, kind| {
                s.data = Some(if kind == "iozone" {
                    DataPattern::Iozone
                } else {
                    DataPattern::Random
                })
            },
        ),
    ],
};
