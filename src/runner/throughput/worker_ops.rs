//! The operations each worker of a throughput phase runs, built before the
//! workers start: one list for every worker, except in test 8 with `-+K`,
//! where readers and writers run different ones.

use super::super::{pass_ops, pattern_options, write_pool_bytes};
use crate::data::pattern::{IoOp, PatternOptions};
use crate::data::telemetry::Replay;
use crate::model::config::RunConfig;
use crate::model::plan::Cell;
use crate::model::workload::Pass;

/// The operations of a phase's workers: one list for all, except in the mix
/// where `-+K` gives readers and writers different ones.
pub struct WorkerOps {
    pub lists: Vec<Vec<IoOp>>,
    /// Index into `lists` for each worker.
    of_worker: Vec<usize>,
}

impl WorkerOps {
    pub fn build(
        config: &RunConfig,
        replay: &Replay,
        pass: Pass,
        cell: &Cell,
        workers: u32,
    ) -> WorkerOps {
        let mut percents: Vec<u32> = Vec::new();
        let mut of_worker = Vec::with_capacity(workers as usize);
        for w in 0..workers {
            let percent = if pass == Pass::RandomMix {
                config.mix_read_percent_of(w)
            } else {
                config.mix_read_percent
            };
            let i = percents
                .iter()
                .position(|&p| p == percent)
                .unwrap_or_else(|| {
                    percents.push(percent);
                    percents.len() - 1
                });
            of_worker.push(i);
        }
        let lists = percents
            .into_iter()
            .map(|mix_read_percent| {
                // Each worker makes its own pool (and -m work area) of this size.
                let pool = write_pool_bytes(config, cell);
                let opts = PatternOptions {
                    mix_read_percent,
                    ..pattern_options(config, pool, true)
                };
                pass_ops(config, replay, cell, pass, &opts)
            })
            .collect();
        WorkerOps { lists, of_worker }
    }

    pub fn of(&self, worker: u32) -> &[IoOp] {
        &self.lists[self.of_worker[worker as usize]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::data::pattern::OpKind;

    #[test]
    fn plus_k_gives_readers_and_writers_their_own_operations() {
        let config = test_config(&["-t", "3", "-s", "64k", "-r", "4k", "-i", "8", "-+K", "1"]);
        let cell = Cell {
            file_bytes: 64 << 10,
            record_bytes: 4 << 10,
        };
        let ops = WorkerOps::build(&config, &Replay::default(), Pass::RandomMix, &cell, 3);
        assert_eq!(ops.lists.len(), 2, "one list per role");
        let kinds = |w| ops.of(w).iter().map(|op| op.kind).collect::<Vec<_>>();
        assert_eq!(kinds(0), vec![OpKind::Read; 16]);
        assert_eq!(kinds(1), vec![OpKind::Write; 16]);
        assert_eq!(kinds(2), kinds(1));
        // Every record once, in the random order, for both roles.
        let mut offsets: Vec<u64> = ops.of(0).iter().map(|op| op.offset).collect();
        offsets.sort_unstable();
        assert_eq!(offsets, (0..16).map(|r| r * 4096).collect::<Vec<_>>());
        // Other passes share one list.
        assert_eq!(
            WorkerOps::build(&config, &Replay::default(), Pass::Read, &cell, 3)
                .lists
                .len(),
            1
        );
    }
}
