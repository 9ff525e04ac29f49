//! What a metadata benchmark measured (`ioz fileop`, `ioz mdtest`): one
//! measurement per operation (or phase), force factor and run, each with
//! every operation's latency in a histogram. A saved run holds them beside
//! its configuration (`RunResult::metadata`), so that `ioz report`, the
//! history and `ioz compare` read them as they read any run.

use serde::{Deserialize, Serialize};

use crate::model::histogram::{LatencyHistogram, LatencySummary};
use crate::model::metadata::MetaOp;

/// Everything a metadata run measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetadataResult {
    /// In the order they were measured: run by run, force factor by force
    /// factor, operation by operation.
    pub measurements: Vec<MetaMeasurement>,
    /// Each rank's host, in rank order (one machine: its own).
    pub hosts: Vec<String>,
    /// The file system of `-d` when the run began (mdtest's `FS` line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<FsUsage>,
    /// Across ranks: each rank's own measurements (its items over its own
    /// time), in rank order; `measurements` holds their sum. Empty on one
    /// machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<Vec<MetaMeasurement>>,
    /// How the walks were kept inside ioz's tree (rank 0's, across ranks);
    /// none in runs saved before ioz recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk: Option<WalkKind>,
}

/// How a metadata benchmark's walks were kept inside ioz's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WalkKind {
    /// The peer's own calls, in a private view of the tree where no walk
    /// follows a symbolic link or reaches a foreign mount (root).
    PrivateView,
    /// Each path walked by openat2 beneath ioz's tree (no link, no mount
    /// crossed), then the call on its last name: one or two system calls
    /// an item more than the peer makes.
    Guarded,
}

/// A file system's size and use, from statvfs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsUsage {
    pub bytes: u64,
    pub used_bytes: u64,
    pub inodes: u64,
    pub used_inodes: u64,
}

/// One operation over its items, once: fileop's column for one force
/// factor, mdtest's phase in one iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetaMeasurement {
    pub op: MetaOp,
    /// fileop's force factor; 0 for mdtest.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub factor: u32,
    /// Operations done (across ranks: every rank's).
    pub items: u64,
    /// The time the rate divides by: for fileop the sum of the
    /// operations' own times (each timed alone, one clock read before and
    /// after its system call), across ranks the slowest rank's; for mdtest
    /// the phase from the barrier that opens it to the collective that
    /// closes it, which every rank reaches — across ranks rank 0's, as
    /// mdtest divides by (it holds every rank's start skew and waits).
    pub elapsed_ns: u64,
    /// mdtest: this rank's own part of the phase, from the barrier to its
    /// last item (across ranks: the longest); 0 for fileop and in runs
    /// saved before ioz recorded it.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub busy_ns: u64,
    /// Every operation's latency (across ranks: every rank's together).
    pub latency: LatencySummary,
    /// Which repetition measured it (`--runs`, mdtest's `-i`), from 0.
    #[serde(default)]
    pub run: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

impl MetaMeasurement {
    /// A measurement of `op` from its operations' histogram and the time
    /// the rate divides by.
    pub fn new(op: MetaOp, factor: u32, run: u32, elapsed_ns: u64, h: &LatencyHistogram) -> Self {
        MetaMeasurement {
            op,
            factor,
            items: h.count(),
            elapsed_ns,
            busy_ns: 0,
            latency: h.summary(&crate::model::histogram::DEFAULT_PERCENTILES),
            run,
        }
    }

    /// A measurement of `op` whose time is the sum of its operations'
    /// own (fileop's: each operation timed alone).
    pub fn of_operations(op: MetaOp, factor: u32, run: u32, h: &LatencyHistogram) -> Self {
        let mut m = MetaMeasurement::new(op, factor, run, 0, h);
        m.elapsed_ns = m.latency.sum_ns;
        m
    }

    /// Operations per second: fileop's A, mdtest's rate (0 for none).
    pub fn rate(&self) -> f64 {
        if self.items == 0 {
            return 0.0;
        }
        self.items as f64 * 1e9 / self.elapsed_ns.max(1) as f64
    }

    /// fileop's B: one over the fastest operation (a nanosecond clock: a
    /// number, never `inf`).
    pub fn best_rate(&self) -> f64 {
        per_second(self.latency.min_ns, self.items)
    }

    /// fileop's W: one over the slowest operation.
    pub fn worst_rate(&self) -> f64 {
        per_second(self.latency.max_ns, self.items)
    }

    /// Seconds per operation on average (fileop's `-t`).
    pub fn seconds_per_op(&self) -> f64 {
        self.elapsed_ns as f64 / 1e9 / self.items.max(1) as f64
    }

    /// Which cell it belongs to: its operation and force factor.
    pub fn cell(&self) -> (MetaOp, u32) {
        (self.op, self.factor)
    }
}

fn per_second(ns: u64, items: u64) -> f64 {
    if items == 0 {
        0.0
    } else {
        1e9 / ns.max(1) as f64
    }
}

/// Every rank's measurements made the job's, as mdtest counts: for each
/// operation, force factor and run that every rank measured, the items of
/// all ranks over the phase's time on rank 0 (mdtest's phases, barrier to
/// barrier) or the slowest rank's sum of operation times (fileop's), and
/// all their latencies. A measurement some rank lacks (the run ended
/// inside it) is left out.
pub fn across_ranks(ranks: &[Vec<MetaMeasurement>]) -> Vec<MetaMeasurement> {
    let Some((first, others)) = ranks.split_first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter_map(|m| {
            let mut items = m.items;
            let mut elapsed_ns = m.elapsed_ns;
            let mut busy_ns = m.busy_ns;
            let mut h = LatencyHistogram::from_summary(&m.latency);
            for rank in others {
                let theirs = rank
                    .iter()
                    .find(|o| o.cell() == m.cell() && o.run == m.run)?;
                items += theirs.items;
                if !m.op.is_mdtest() {
                    elapsed_ns = elapsed_ns.max(theirs.elapsed_ns);
                }
                busy_ns = busy_ns.max(theirs.busy_ns);
                h.merge(&LatencyHistogram::from_summary(&theirs.latency));
            }
            let mut joined = MetaMeasurement::new(m.op, m.factor, m.run, elapsed_ns, &h);
            joined.items = items;
            joined.busy_ns = busy_ns;
            Some(joined)
        })
        .collect()
}

/// The measurements of one cell (operation and force factor) over every
/// run, in run order; the cells in the order they were first measured.
pub fn cells(measurements: &[MetaMeasurement]) -> Vec<Vec<&MetaMeasurement>> {
    let mut cells: Vec<Vec<&MetaMeasurement>> = Vec::new();
    for m in measurements {
        match cells.iter_mut().find(|c| c[0].cell() == m.cell()) {
            Some(cell) => cell.push(m),
            None => cells.push(vec![m]),
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(op: MetaOp, ns: &[u64], elapsed_ns: u64, run: u32) -> MetaMeasurement {
        let mut h = LatencyHistogram::new();
        for &n in ns {
            h.record(n);
        }
        MetaMeasurement::new(op, 2, run, elapsed_ns, &h)
    }

    #[test]
    fn average_best_and_worst_come_from_the_operations() {
        let m = measured(MetaOp::Stat, &[1000, 2000, 5000], 8000, 0);
        assert_eq!(m.items, 3);
        assert_eq!(m.rate().round(), 375_000.0);
        assert_eq!(m.best_rate().round(), 1_000_000.0);
        assert_eq!(m.worst_rate().round(), 200_000.0);
        let none = measured(MetaOp::Stat, &[], 0, 0);
        assert_eq!((none.rate(), none.best_rate()), (0.0, 0.0));
    }

    #[test]
    fn an_mdtest_phase_s_rate_is_every_rank_s_items_over_rank_0_s_phase() {
        // Rank 0 saw the phase from barrier to barrier take 4000 ns (its own
        // items took 1000 of them: it waited for rank 1); rank 1 saw 3900.
        let mut a = vec![measured(MetaOp::FileCreation, &[10, 20], 4000, 0)];
        a[0].busy_ns = 1000;
        let mut b = vec![
            measured(MetaOp::FileCreation, &[30, 40, 50], 3900, 0),
            measured(MetaOp::FileStat, &[5], 10, 0),
        ];
        b[0].busy_ns = 3000;
        let job = across_ranks(&[a, b]);
        assert_eq!(job.len(), 1, "stat is left out: rank 0 lacks it");
        assert_eq!((job[0].items, job[0].elapsed_ns), (5, 4000));
        assert_eq!(job[0].busy_ns, 3000, "the longest rank's own part");
        assert_eq!(job[0].rate(), 5.0 * 1e9 / 4000.0);
        assert_eq!((job[0].latency.min_ns, job[0].latency.max_ns), (10, 50));
    }

    #[test]
    fn fileop_s_ranks_add_their_items_over_the_slowest_sum_of_operations() {
        let a = vec![measured(MetaOp::Mkdir, &[10, 20], 30, 0)];
        let b = vec![measured(MetaOp::Mkdir, &[300, 400], 700, 0)];
        let job = across_ranks(&[a, b]);
        assert_eq!((job[0].items, job[0].elapsed_ns), (4, 700));
    }

    #[test]
    fn a_cell_holds_every_run_of_its_operation_and_factor() {
        let all = vec![
            measured(MetaOp::Mkdir, &[1], 1, 0),
            measured(MetaOp::Stat, &[1], 1, 0),
            measured(MetaOp::Mkdir, &[2], 2, 1),
        ];
        let grouped = cells(&all);
        assert_eq!(grouped.len(), 2);
        assert_eq!(grouped[0].len(), 2);
        assert_eq!(grouped[0][1].run, 1);
    }
}
