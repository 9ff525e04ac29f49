//! Files the run writes, and ioz's own options.

use super::Spelling::Long;
use super::{Choice, Flag, Number, Section};
use crate::cli::seen::Seen;
use crate::cli::shared;
use crate::model::config::DataPattern;
use crate::model::rules::Rules;

pub(super) const SECTION: Section = Section {
    title: "Results (written at the end of the run, also when it stops early)",
    note: "",
    flags: &shared::every_format(|s: &mut Seen| &mut s.outputs),
};

/// Under the result files: what the run keeps besides them, and how they
/// look.
pub(super) const KEPT_SECTION: Section = Section {
    title: "",
    note: "",
    flags: &[
        shared::runs(
            "measure the whole plan N times, one repetition after the other; every \
             sample is kept, the table shows each cell's mean, then its standard \
             deviation",
            |s: &mut Seen, n| s.runs = Some(n as u32),
        )
        .header_number(|n| {
            vec![format!(
                "Runs: {n} (the whole plan, measured again each run; the table shows the mean)"
            )]
        }),
        shared::label(|s, name| s.label = Some(name.to_string())),
        Flag::choice(
            Long("rules"),
            "RULES",
            Choice {
                names: &Rules::NAMES,
                expected: "a rule set (iozone, io500, pts or none)",
                default: None,
            },
            "stamp the run valid, invalid (with each reason) or not checkable under \
             iozone's advice (files of 3 x RAM or -I; -e or -c), io500's (300 s write \
             phases, incompressible data, results off the target) or pts (SNIA's \
             steady state over 5 rounds); ioz check recomputes it",
            |s, name| s.rules = Rules::named(name).unwrap_or_default(),
        ),
        Flag::number(
            Long("until-steady"),
            "MAX",
            Number::count(5, 25, "rounds"),
            "measure the whole plan again, up to MAX times (5 to 25, SNIA's limit), until \
             every cell is steady (--rules pts: over 5 runs, range within 20 % and the \
             least-squares excursion within 10 % of the mean); in place of --runs",
            |s, n| s.until_steady = Some(n as u32),
        ),
        shared::plot_scale(|s, scale| s.plot_style.shared_scale = scale == "shared"),
        shared::plot_log(|s| s.plot_style.log_values = true),
        shared::history_dir(
            "record the run in the history in DIR (default: $IOZ_HISTORY, else \
             $XDG_DATA_HOME/ioz or ~/.local/share/ioz; see ioz history -h)",
            |s, dir| s.history.dir = Some(dir),
        ),
        shared::no_history(|s| s.history.off = true),
        shared::quiet(|s| s.quiet = true),
    ],
};

pub(super) const OWN_SECTION: Section = Section {
    title: "ioz's own options",
    note: "",
    flags: &[
        shared::force(
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
