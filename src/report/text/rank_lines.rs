//! Cluster mode's own lines in IOzone's text: what the ranks' timings say
//! of a phase (a "Parent sees" that could not be estimated, and why; a
//! start skew above 1 % of the phase; ranks that ran on after the first
//! finish, left out of the stonewall's count), of the cells of single and
//! auto mode (their start skews), and the settings in which the ranks'
//! environments differ. A run on one machine has none of them, so its
//! text is IOzone's exactly.

use std::fmt::Write as _;

use crate::model::rank_environments::rank_differences;
use crate::model::result::{PhaseResult, RunResult};
use crate::model::skew::{LONGEST_TRUSTED_ROUND_TRIP_NS, RankSkew};
use crate::model::stonewall::RanOn;
use crate::report::environment_text::difference_line;
use crate::report::web::micros;

/// A duration in ns as people read it: "2.5 ms", "77 s".
fn duration(ns: u64) -> String {
    micros(ns as f64 / 1e3)
}

/// What stands after "Parent sees throughput for … = " when the ranks'
/// clocks could not be aligned: why it is not measured. `None` for a
/// phase without the ranks' timings (a run saved before them), which
/// leaves the line out as before.
pub fn parent_not_measured(phase: &PhaseResult) -> Option<String> {
    let skew = phase.skew.as_ref()?;
    let unaligned: Vec<_> = skew.unaligned().collect();
    let first = unaligned.first()?;
    let more = match unaligned.len() {
        1 => String::new(),
        n => format!(" (and {} other ranks' clocks)", n - 1),
    };
    Some(format!(
        "not measured: the clock of rank {} on {} could not be aligned with rank 0's{more}: \
         the shortest of its {} round trips took {}, and only one under {} says where its \
         clock is (both ranks bound to one core, or a loaded machine)",
        first.client.rank,
        first.client.host,
        first.clock.round_trips,
        duration(first.clock.shortest_round_trip_ns),
        duration(LONGEST_TRUSTED_ROUND_TRIP_NS),
    ))
}

/// Whether every rank of `phase` read rank 0's own clock (ranks on one host
/// and boot): its "Parent sees" is measured, not estimated.
pub fn one_clock(phase: &PhaseResult) -> bool {
    phase
        .skew
        .as_ref()
        .is_some_and(|s| s.ranks.iter().all(|r| r.clock.is_rank_0_s()))
}

/// The skew line of a phase, or of the largest skew among its runs, when
/// it exceeds 1 % of its phase.
pub fn phase_skew_line(runs: &[&PhaseResult]) -> String {
    let worst = runs
        .iter()
        .filter_map(|p| {
            let skew = p.skew.as_ref()?;
            Some((skew.worth_a_line(p.parent_elapsed_ns)?, skew))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match worst {
        Some((share, skew)) => format!("\t{}\n", skew_words(skew, share, "the phase")),
        None => String::new(),
    }
}

/// "Start skew: … of the phase; ends: …".
fn skew_words(skew: &RankSkew, share: f64, of: &str) -> String {
    let mut s = format!(
        "Start skew: {} between the first and the last rank's start",
        duration(skew.start_skew_ns)
    );
    if let Some(last) = skew.last_to_start() {
        let _ = write!(
            s,
            " (rank {} on {} last)",
            last.client.rank, last.client.host
        );
    }
    let _ = write!(s, ", {:.2} % of {of}", 100.0 * share);
    let imbalances = [
        ("time", skew.time_imbalance()),
        ("operations", skew.operations_imbalance()),
    ];
    let ends: Vec<String> = imbalances
        .iter()
        .filter_map(|(what, v)| Some(format!("{v:.2} in {what}", v = (*v)?)))
        .collect();
    if !ends.is_empty() {
        let _ = write!(
            s,
            "; ends: the longest rank over the shortest {}",
            ends.join(", ")
        );
    }
    s
}

/// After the stonewall line's count: the ranks left out of it.
pub fn ran_on_words(ran_on: &[RanOn], noun: &str, nouns: &str) -> String {
    const NAMED: usize = 3;
    let named: Vec<String> = ran_on
        .iter()
        .take(NAMED)
        .map(|r| {
            format!(
                "rank {} on {} ({} {}, {:.2} KB) learned of the first finish {} after it",
                r.client.rank,
                r.client.host,
                r.workers,
                if r.workers == 1 { noun } else { nouns },
                r.bytes as f64 / 1024.0,
                duration(r.after_ns)
            )
        })
        .collect();
    let more = match ran_on.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(", and {n} more ranks"),
    };
    let whose = if ran_on.len() == 1 { "its" } else { "their" };
    format!(
        "; {}{more}: left out, {whose} {nouns} ran on after the others had stopped",
        named.join(", ")
    )
}

/// Single and auto mode across ranks: one line on the cells whose start
/// skew exceeded 1 % of the cell, if any did.
pub fn cell_skew_line(result: &RunResult) -> String {
    let over: Vec<(f64, &crate::model::skew::CellSkew)> = result
        .cell_skews
        .iter()
        .filter_map(|c| {
            let longest = c.skew.ranks.iter().map(|r| r.elapsed_ns).max()?;
            Some((c.skew.worth_a_line(longest)?, c))
        })
        .collect();
    let Some((share, worst)) = over.iter().max_by(|a, b| a.0.total_cmp(&b.0)) else {
        return String::new();
    };
    format!(
        "\n\tIn {} of {} cells the ranks' starts were more than 1 % of the cell apart; the \
         most in the {} kB file, {} kB record cell (run {}): {}\n",
        over.len(),
        result.cell_skews.len(),
        worst.cell.file_bytes / 1024,
        worst.cell.record_bytes / 1024,
        worst.run,
        skew_words(&worst.skew, *share, "the cell")
    )
}

/// The settings in which ranks' environments differ from rank 0's, a
/// line per group of ranks that differ alike.
pub fn environment_differences(result: &RunResult) -> String {
    let groups = rank_differences(result);
    if groups.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\n\tThe ranks' environments differ from rank 0's (the one recorded for the run):\n",
    );
    for g in &groups {
        let lines: Vec<String> = g.differences.iter().map(difference_line).collect();
        let _ = writeln!(s, "\t  {}: {}", g.who(), lines.join("; "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::result::{Client, sample_phase};
    use crate::model::skew::{ClockOffset, RankTiming};
    use crate::model::workload::Pass;

    fn timing(rank: u32, clock: ClockOffset, elapsed_ns: u64) -> RankTiming {
        RankTiming {
            client: Client {
                rank,
                host: format!("node-{rank}"),
            },
            start_offset_ns: None,
            elapsed_ns,
            operations: 16,
            stop_reached_after_ns: None,
            clock,
        }
    }

    #[test]
    fn an_unaligned_clock_is_named_with_its_shortest_round_trip() {
        let mut phase = sample_phase(Pass::Write, 2, 1 << 20);
        assert_eq!(parent_not_measured(&phase), None, "no timings: as before");
        let slow = ClockOffset {
            offset_ns: None,
            shortest_round_trip_ns: 5_310_000,
            round_trips: 128,
        };
        phase.skew = Some(Box::new(RankSkew::new(
            vec![timing(0, ClockOffset::OWN, 10), timing(1, slow, 10)],
            &[0, 0],
        )));
        assert_eq!(
            parent_not_measured(&phase).unwrap(),
            "not measured: the clock of rank 1 on node-1 could not be aligned with rank 0's: \
             the shortest of its 128 round trips took 5.31 ms, and only one under 2 ms says \
             where its clock is (both ranks bound to one core, or a loaded machine)"
        );
    }

    #[test]
    fn a_skew_above_one_percent_of_the_phase_gets_a_line() {
        let mut phase = sample_phase(Pass::Write, 2, 1 << 20);
        let skew = RankSkew::new(
            vec![
                timing(0, ClockOffset::OWN, 1_000_000_000),
                timing(1, ClockOffset::OWN, 500_000_000),
            ],
            &[0, 20_000_000],
        );
        phase.skew = Some(Box::new(skew.clone()));
        assert_eq!(
            phase_skew_line(&[&phase]),
            "\tStart skew: 20 ms between the first and the last rank's start (rank 1 on node-1 \
             last), 2.00 % of the phase; ends: the longest rank over the shortest 2.00 in time, \
             1.00 in operations\n"
        );
        // 5 ms of a 1 s phase: no line.
        phase.skew = Some(Box::new(RankSkew::new(skew.ranks, &[0, 5_000_000])));
        assert_eq!(phase_skew_line(&[&phase]), "");
    }

    #[test]
    fn ranks_that_ran_on_are_named_three_at_most() {
        let ran_on: Vec<RanOn> = (1..5)
            .map(|rank| RanOn {
                client: Client {
                    rank,
                    host: format!("node-{rank}"),
                },
                after_ns: 2_000_000_000,
                workers: 2,
                bytes: 2048,
            })
            .collect();
        assert_eq!(
            ran_on_words(&ran_on, "thread", "threads"),
            "; rank 1 on node-1 (2 threads, 2.00 KB) learned of the first finish 2 s after it, \
             rank 2 on node-2 (2 threads, 2.00 KB) learned of the first finish 2 s after it, \
             rank 3 on node-3 (2 threads, 2.00 KB) learned of the first finish 2 s after it, \
             and 1 more ranks: left out, their threads ran on after the others had stopped"
        );
    }

    #[test]
    fn the_cells_skewed_over_one_percent_are_counted_in_one_line() {
        use crate::model::plan::Cell;
        use crate::model::result::sample_result;
        use crate::model::skew::CellSkew;
        let cell = |file_kb: u64, starts: [u64; 2]| CellSkew {
            cell: Cell {
                file_bytes: file_kb << 10,
                record_bytes: 4 << 10,
            },
            run: 0,
            skew: RankSkew::new(
                vec![
                    timing(0, ClockOffset::OWN, 100_000_000),
                    timing(1, ClockOffset::OWN, 100_000_000),
                ],
                &starts,
            ),
        };
        let mut result = sample_result(crate::cli::test_config(&["-a"]), Vec::new());
        assert_eq!(cell_skew_line(&result), "");
        // 3 ms and 2 ms of 100 ms cells, and 0.5 ms: two of three.
        result.cell_skews = vec![
            cell(64, [0, 3_000_000]),
            cell(128, [2_000_000, 0]),
            cell(256, [0, 500_000]),
        ];
        assert_eq!(
            cell_skew_line(&result),
            "\n\tIn 2 of 3 cells the ranks' starts were more than 1 % of the cell apart; the \
             most in the 64 kB file, 4 kB record cell (run 0): Start skew: 3 ms between the \
             first and the last rank's start (rank 1 on node-1 last), 3.00 % of the cell; \
             ends: the longest rank over the shortest 1.00 in time, 1.00 in operations\n"
        );
    }
}
