//! The operations each worker of a throughput phase runs, built before the
//! workers start: one list for every worker, except in test 8 with `-+K`,
//! where readers and writers run different ones.

use crate::data::pattern::IoOp;
use crate::runner::recipe::{CellRecipe, PassRecipe};

/// The operations of a phase's workers: one list for all, except in the mix
/// where `-+K` gives readers and writers different ones.
pub(super) struct WorkerOps {
    lists: Vec<Vec<IoOp>>,
    /// Index into `lists` for each worker.
    of_worker: Vec<usize>,
}

impl WorkerOps {
    /// `job_worker`: the job's number of each worker (-+K's roles go by it).
    pub fn build(
        cell: &CellRecipe<'_>,
        pass: &PassRecipe,
        workers: u32,
        job_worker: impl Fn(u32) -> u32,
    ) -> WorkerOps {
        let mut percents: Vec<u32> = Vec::new();
        let mut of_worker = Vec::with_capacity(workers as usize);
        for w in 0..workers {
            let percent = pass.read_percent_of(job_worker(w));
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
            .map(|percent| cell.ops(pass, percent))
            .collect();
        WorkerOps { lists, of_worker }
    }

    pub fn of(&self, worker: u32) -> &[IoOp] {
        &self.lists[self.of_worker[worker as usize]]
    }

    /// The most operations any worker runs.
    pub fn longest(&self) -> usize {
        self.lists.iter().map(Vec::len).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::data::pattern::OpKind;
    use crate::model::plan::Cell;
    use crate::model::workload::Pass;
    use crate::runner::recipe::Recipe;

    #[test]
    fn plus_k_gives_readers_and_writers_their_own_operations() {
        let config = test_config(&["-t", "3", "-s", "64k", "-r", "4k", "-i", "8", "-+K", "1"]);
        let recipe = Recipe::new(&config, None);
        let cell = recipe.cell(Cell {
            file_bytes: 64 << 10,
            record_bytes: 4 << 10,
        });
        let pass = |p: Pass| cell.passes.iter().find(|r| r.pass == p).unwrap();
        let ops = WorkerOps::build(&cell, pass(Pass::RandomMix), 3, |w| w);
        assert_eq!(ops.lists.len(), 2, "one list per role");
        let kinds = |w| ops.of(w).iter().map(|op| op.kind).collect::<Vec<_>>();
        assert_eq!(kinds(0), vec![OpKind::Read; 16]);
        assert_eq!(kinds(1), vec![OpKind::Write; 16]);
        assert_eq!(kinds(2), kinds(1));
        // Every record once, in the random order, for both roles.
        let mut offsets: Vec<u64> = ops.of(0).iter().map(|op| op.offset).collect();
        offsets.sort_unstable();
        assert_eq!(offsets, (0..16).map(|r| r * 4096).collect::<Vec<_>>());
        // -+F is not given: nobody truncates.
        assert!(!pass(Pass::RandomMix).open_for(1).truncate);
        let config = test_config(&[
            "-t", "3", "-s", "64k", "-r", "4k", "-i", "0", "-i", "8", "-+K", "1", "-+F",
        ]);
        let recipe = Recipe::new(&config, None);
        let cell = recipe.cell(Cell {
            file_bytes: 64 << 10,
            record_bytes: 4 << 10,
        });
        let mix = cell
            .passes
            .iter()
            .find(|r| r.pass == Pass::RandomMix)
            .unwrap();
        assert!(!mix.open_for(0).truncate, "a reader keeps its file");
        assert!(mix.open_for(1).truncate && mix.open_for(2).truncate);
        // Other passes share one list.
        let read = cell.passes.iter().find(|r| r.pass == Pass::Write).unwrap();
        assert_eq!(WorkerOps::build(&cell, read, 3, |w| w).lists.len(), 1);
    }
}
