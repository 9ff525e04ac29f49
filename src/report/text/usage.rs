//! `-+u`: what each timed region cost ioz beside its CPU time (page faults
//! and context switches), after the table or the throughput blocks. IOzone
//! prints nothing like it: its lines are ioz's, and each row holds a test's
//! name, so that no script reading IOzone's table (rows of numbers only)
//! takes them for table rows.

use std::fmt::Write as _;

use crate::model::result::{RegionUsage, RunResult, faults_are_inherent};
use crate::model::units::kb_number;

/// Why a row marked `*` takes page faults whatever ioz does.
pub const INHERENT_NOTE: &str = "the file is mapped (mmap engine): its pages fault in as the loop \
                                 touches them, which is what the engine measures";

/// The block, with -+u and a run that counted its regions (a run saved
/// before ioz counted them prints none, as it printed none then).
pub fn usage_table(result: &RunResult) -> String {
    let config = &result.config;
    if !config.variations.cpu_utilisation {
        return String::new();
    }
    let counted = result
        .cells
        .iter()
        .flat_map(|c| &c.measurements)
        .any(|m| m.usage.is_some())
        || result.throughput.iter().any(|p| p.usage().is_some());
    if !counted {
        return String::new();
    }
    let repeated = config.runs > 1;
    let mut s = String::from(
        "\nioz's own cost of each timed region (getrusage just before and after it):\n",
    );
    let mut inherent = false;
    if config.throughput.is_some() {
        s.push_str("\tsummed over each phase's workers\n");
        let _ = write!(s, "  {:<16}{:>8}", "test", "workers");
        if repeated {
            let _ = write!(s, "{:>5}", "run");
        }
        s.push_str(&heading());
        for phase in &result.throughput {
            let _ = write!(s, "  {:<16}{:>8}", phase.pass.name(), phase.workers);
            if repeated {
                let _ = write!(s, "{:>5}", phase.run + 1);
            }
            let marked = faults_are_inherent(config, phase.pass);
            inherent |= marked;
            s.push_str(&counts(phase.usage(), marked));
        }
    } else {
        let _ = write!(s, "  {:>8}{:>8}  {:<16}", "kB", "reclen", "test");
        if repeated {
            let _ = write!(s, "{:>5}", "run");
        }
        s.push_str(&heading());
        let rows = result.ranks.first().map_or(&result.cells, |r| &r.cells);
        for row in rows {
            for m in &row.measurements {
                let _ = write!(
                    s,
                    "  {:>8}{:>8}  {:<16}",
                    kb_number(m.file_bytes),
                    kb_number(m.record_bytes),
                    m.pass.name()
                );
                if repeated {
                    let _ = write!(s, "{:>5}", m.run + 1);
                }
                let marked = faults_are_inherent(config, m.pass);
                inherent |= marked;
                s.push_str(&counts(m.usage, marked));
            }
        }
    }
    if inherent {
        let _ = writeln!(s, "  * {INHERENT_NOTE}");
    }
    s
}

/// The four counts' headings, to the end of the line.
fn heading() -> String {
    format!(
        "{:>14}{:>14}{:>20}{:>22}\n",
        "minor faults", "major faults", "voluntary switches", "involuntary switches"
    )
}

/// A row's four counts ("-" where they were not counted), `*` after a
/// count of faults that are inherent, to the end of the line.
fn counts(usage: Option<RegionUsage>, inherent: bool) -> String {
    let mark = if inherent { " *" } else { "" };
    match usage {
        Some(u) => format!(
            "{:>14}{:>14}{:>20}{:>22}{mark}\n",
            u.minor_faults,
            u.major_faults,
            u.voluntary_context_switches,
            u.involuntary_context_switches
        ),
        None => format!("{:>14}{:>14}{:>20}{:>22}\n", "-", "-", "-", "-"),
    }
}
