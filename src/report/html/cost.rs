//! What each timed region cost ioz, in the HTML report: its CPU time, page
//! faults and context switches, a row per pass (a phase's workers summed in
//! throughput mode), with the faults the engine takes by its nature marked.

use std::fmt::Write as _;

use crate::model::result::{RegionUsage, RunResult, faults_are_inherent};
use crate::model::units::kb_number;
use crate::report::text::usage::INHERENT_NOTE;
use crate::report::web::esc;

/// One row: its leading cells (HTML), CPU ns, the counts, whether its
/// faults are inherent.
struct Row {
    head: String,
    cpu_ns: (u64, u64),
    usage: Option<RegionUsage>,
    inherent: bool,
}

/// The section, when the run counted its regions (runs saved before ioz
/// counted them have none).
pub(super) fn cost_section(h: &mut String, result: &RunResult) {
    let config = &result.config;
    let repeated = config.runs > 1;
    let run_cell = |run: u32| {
        if repeated {
            format!("<td>{}</td>", run + 1)
        } else {
            String::new()
        }
    };
    let (lead, rows): (&str, Vec<Row>) = if config.throughput.is_some() {
        let rows = result
            .throughput
            .iter()
            .map(|p| Row {
                head: format!(
                    "<th scope=\"row\">{}</th>{}<td>{}</td>",
                    esc(p.pass.name()),
                    run_cell(p.run),
                    p.workers
                ),
                cpu_ns: p
                    .results
                    .iter()
                    .fold((0, 0), |(u, s), w| (u + w.cpu_user_ns, s + w.cpu_system_ns)),
                usage: p.usage(),
                inherent: faults_are_inherent(config, p.pass),
            })
            .collect();
        (
            "<th scope=\"col\">test</th>RUN<th scope=\"col\">workers</th>",
            rows,
        )
    } else {
        let rows = result
            .cells
            .iter()
            .flat_map(|c| &c.measurements)
            .map(|m| Row {
                head: format!(
                    "<th scope=\"row\">{}</th><th scope=\"row\">{}</th><td>{}</td>{}",
                    kb_number(m.file_bytes),
                    kb_number(m.record_bytes),
                    esc(m.pass.name()),
                    run_cell(m.run)
                ),
                cpu_ns: (m.cpu_user_ns, m.cpu_system_ns),
                usage: m.usage,
                inherent: faults_are_inherent(config, m.pass),
            })
            .collect();
        (
            "<th scope=\"col\">file kB</th><th scope=\"col\">record kB</th><th scope=\"col\">test</th>RUN",
            rows,
        )
    };
    if rows.iter().all(|r| r.usage.is_none()) {
        return;
    }
    let total = |inherent: bool| -> u64 {
        rows.iter()
            .filter(|r| r.inherent == inherent)
            .filter_map(|r| r.usage)
            .map(|u| u.minor_faults + u.major_faults)
            .sum()
    };
    let (own, inherent) = (total(false), total(true));
    h.push_str("<section id=\"cost\">\n<h2>What the timed regions cost ioz</h2>\n");
    let _ = writeln!(
        h,
        "<p>Page faults and context switches inside each timed region (getrusage just \
         before and just after it{}). Every buffer a pass uses is mapped and touched \
         before its clock starts, so that a pass takes no page fault of its own; in this \
         run: <strong>{own}</strong>{}.</p>",
        if config.throughput.is_some() {
            ", in each worker"
        } else {
            ""
        },
        if inherent > 0 {
            format!(
                "; {inherent} more in passes marked *, where {}",
                esc(INHERENT_NOTE)
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        h,
        "<details class=\"all-cells\">\n<summary>Every timed region ({} rows)</summary>\n<div class=\"scroll\"><table class=\"numbers cost\">",
        rows.len()
    );
    let _ = writeln!(
        h,
        "<thead><tr>{}<th scope=\"col\">CPU user ms</th><th scope=\"col\">CPU system ms</th><th scope=\"col\">minor faults</th><th scope=\"col\">major faults</th><th scope=\"col\">voluntary switches</th><th scope=\"col\">involuntary switches</th></tr></thead>\n<tbody>",
        lead.replace(
            "RUN",
            if repeated {
                "<th scope=\"col\">run</th>"
            } else {
                ""
            }
        )
    );
    for r in &rows {
        let ms = |ns: u64| format!("{:.3}", ns as f64 / 1e6);
        let _ = write!(
            h,
            "<tr>{}<td>{}</td><td>{}</td>",
            r.head,
            ms(r.cpu_ns.0),
            ms(r.cpu_ns.1)
        );
        match r.usage {
            Some(u) => {
                let _ = write!(
                    h,
                    "<td>{}{}</td><td>{}</td><td>{}</td><td>{}</td>",
                    u.minor_faults,
                    if r.inherent { " *" } else { "" },
                    u.major_faults,
                    u.voluntary_context_switches,
                    u.involuntary_context_switches
                );
            }
            None => h.push_str("<td class=\"none\" colspan=\"4\">not counted</td>"),
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n</details>\n</section>\n");
}
