//! A cluster run seen as its clients: how many took part (every view of
//! the whole run is their sum, and says so: "sum of 2 clients"), and one
//! client's own run (`run.json#rank=1`), which every command that reads a
//! run can take in place of the sum.

use crate::model::histogram::LatencyHistogram;
use crate::model::result::{PhaseResult, RunResult};

/// Why a run has no rank of that number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RankError {
    #[error("it ran on one machine: it has no ranks")]
    OneMachine,
    #[error("it has ranks 0 to {last}, not {rank}")]
    NoSuchRank { rank: u32, last: u32 },
}

impl RunResult {
    /// The clients (MPI ranks) a cluster run's figures add up, 0 for a run
    /// on one machine.
    pub fn clients(&self) -> usize {
        self.rank_hosts().len()
    }

    /// What a view of the whole run shows when it is a sum of clients
    /// ("sum of 2 clients"); `None` for a run on one machine or of one client.
    pub fn summed_words(&self) -> Option<String> {
        match self.clients() {
            n if n > 1 => Some(format!("sum of {n} clients")),
            _ => None,
        }
    }

    /// Rank `rank`'s own run: its table (single and auto mode) or its
    /// workers of each phase (throughput mode), on its host. Its phases'
    /// latency is its workers' together, and the span of a phase the end of
    /// its last worker (the rank's own clock: nothing to align).
    pub fn one_rank(&self, rank: u32) -> Result<RunResult, RankError> {
        let count = self.clients();
        if count == 0 {
            return Err(RankError::OneMachine);
        }
        if rank as usize >= count {
            return Err(RankError::NoSuchRank {
                rank,
                last: count as u32 - 1,
            });
        }
        let mut run = self.clone();
        run.ranks = Vec::new();
        // A metadata benchmark's rank: its own items over its own time.
        if let Some(meta) = &mut run.metadata {
            meta.measurements = meta.ranks.get(rank as usize).cloned().unwrap_or_default();
            meta.hosts = meta.hosts.get(rank as usize).cloned().into_iter().collect();
            meta.ranks = Vec::new();
        }
        if let Some(own) = self.ranks.iter().find(|r| r.client.rank == rank) {
            run.cells = own.cells.clone();
        }
        run.throughput = self
            .throughput
            .iter()
            .filter_map(|phase| phase_of_rank(phase, rank))
            .collect();
        // The rank's own environment where the run kept every rank's; else
        // rank 0's, with the rank's host name (a run saved before).
        match self
            .ranks
            .iter()
            .find(|r| r.client.rank == rank)
            .and_then(|r| r.environment.clone())
        {
            Some(own) => run.environment = own,
            None => {
                if let Some(host) = self
                    .rank_hosts()
                    .get(rank as usize)
                    .filter(|h| !h.is_empty())
                {
                    run.environment.hostname = host.clone();
                }
            }
        }
        Ok(run)
    }
}

/// The workers `rank` ran of a phase, as a phase of their own; `None` when
/// it ran none of them.
fn phase_of_rank(phase: &PhaseResult, rank: u32) -> Option<PhaseResult> {
    let results: Vec<_> = phase
        .results
        .iter()
        .filter(|w| w.client.as_ref().is_some_and(|c| c.rank == rank))
        .cloned()
        .collect();
    if results.is_empty() {
        return None;
    }
    let latency = phase.latency.as_ref().map(|whole| {
        let mut merged = LatencyHistogram::new();
        for summary in results.iter().filter_map(|w| w.latency.as_ref()) {
            merged.merge(&LatencyHistogram::from_summary(summary));
        }
        let percentiles: Vec<f64> = whole.percentiles.iter().map(|p| p.percent).collect();
        merged.summary(&percentiles)
    });
    let span = results
        .iter()
        .map(|w| w.end_after_release_ns.max(0) as u64)
        .chain(results.iter().map(|w| w.elapsed_ns))
        .max()
        .unwrap_or(0);
    Some(PhaseResult {
        workers: results.len() as u32,
        parent_elapsed_ns: span,
        parent_estimated: false,
        latency,
        results,
        ..phase.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::result::{
        CellResult, Client, RankCells, sample_phase, sample_result, sum_of_ranks,
    };
    use crate::model::workload::Pass;

    fn rank(rank: u32, kb_per_sec: u64) -> RankCells {
        let config = crate::cli::test_config(&["-s", "64k", "-r", "4k", "-i", "0"]);
        let mut cells: Vec<CellResult> =
            crate::model::result::sample_cells(&config, &[Pass::Write], |_, _| kb_per_sec << 10);
        cells.truncate(1);
        RankCells {
            client: Client {
                rank,
                host: format!("node{rank}"),
            },
            test_file: format!("ioz.tmp.{rank}").into(),
            cells,
            cell_starts: Vec::new(),
            environment: None,
        }
    }

    #[test]
    fn one_rank_of_an_auto_run_is_its_own_table_on_its_host() {
        let config = crate::cli::test_config(&["-s", "64k", "-r", "4k", "-i", "0"]);
        let mut run = sample_result(config, Vec::new());
        run.ranks = vec![rank(0, 100), rank(1, 300)];
        run.cells = sum_of_ranks(&run.ranks, &run.config);
        assert_eq!(run.clients(), 2);
        assert_eq!(run.summed_words().as_deref(), Some("sum of 2 clients"));
        let one = run.one_rank(1).unwrap();
        assert_eq!(one.cells, run.ranks[1].cells);
        assert!(one.ranks.is_empty());
        assert_eq!(one.clients(), 0);
        assert_eq!(one.summed_words(), None);
        assert_eq!(one.environment.hostname, "node1");
        // A run that kept every rank's environment gives the rank its own.
        let mut own = run.environment.clone();
        own.hostname = "its-own".into();
        own.kernel = "another kernel".into();
        run.ranks[1].environment = Some(own.clone());
        assert_eq!(run.one_rank(1).unwrap().environment, own);
        assert_eq!(
            run.one_rank(2).unwrap_err().to_string(),
            "it has ranks 0 to 1, not 2"
        );
        let alone = sample_result(run.config.clone(), Vec::new());
        assert_eq!(alone.one_rank(0), Err(RankError::OneMachine));
        assert_eq!(alone.summed_words(), None);
    }

    #[test]
    fn one_rank_of_a_throughput_run_keeps_its_workers_and_their_latency() {
        let config = crate::cli::test_config(&["-t", "4", "-s", "64k", "-r", "4k", "-i", "0"]);
        let mut run = sample_result(config, Vec::new());
        let mut phase = sample_phase(Pass::Write, 4, 64 << 10);
        let mut whole = LatencyHistogram::new();
        for (i, w) in phase.results.iter_mut().enumerate() {
            w.client = Some(Client {
                rank: i as u32 % 2,
                host: format!("node{}", i % 2),
            });
            let mut h = LatencyHistogram::new();
            h.record(1000 * (i as u64 + 1));
            whole.merge(&h);
            w.latency = Some(h.summary(&[50.0]));
            w.end_after_release_ns = 2_000_000_000 + i as i64;
        }
        phase.latency = Some(whole.summary(&[50.0]));
        run.throughput = vec![phase];
        assert_eq!(run.summed_words().as_deref(), Some("sum of 2 clients"));
        let one = run.one_rank(1).unwrap();
        let p = &one.throughput[0];
        assert_eq!(p.workers, 2);
        assert!(
            p.results
                .iter()
                .all(|w| w.client.as_ref().unwrap().rank == 1)
        );
        assert_eq!(p.latency.as_ref().unwrap().count, 2);
        assert_eq!(p.latency.as_ref().unwrap().min_ns, 2000);
        assert_eq!(p.parent_elapsed_ns, 2_000_000_003);
        assert!(!p.parent_estimated);
        assert_eq!(one.environment.hostname, "node1");
    }
}
