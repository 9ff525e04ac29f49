//! Cluster mode: how the job's workers are dealt to its ranks.
//!
//! Worker j of the job runs on rank j mod R as that rank's worker j div R
//! (round robin). So a rank keeps the same workers, and their files, for
//! every worker count of a sweep (`-l 1 -u 8`): no file changes hands
//! between counts and no two ranks ever claim the same one. A count that is
//! not a multiple of the ranks gives the first ranks one worker more; a
//! count below the ranks leaves the last ranks idle (they still meet the
//! others at every barrier).

/// This rank's part of the job's workers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankShare {
    pub rank: u32,
    pub ranks: u32,
    /// The job's worker counts, in the order of the rank's own
    /// (`ThroughputConfig::worker_counts` holds this rank's share of each).
    pub job_counts: Vec<u32>,
    /// This rank's place among the ranks on its host, and their number:
    /// -P deals the host's CPUs to the host's ranks' workers.
    pub host_rank: u32,
    pub host_ranks: u32,
}

impl RankShare {
    pub fn new(rank: u32, ranks: u32, job_counts: Vec<u32>) -> RankShare {
        RankShare {
            rank,
            ranks: ranks.max(1),
            job_counts,
            host_rank: 0,
            host_ranks: 1,
        }
    }

    /// The same share, for rank `host_rank` of the `host_ranks` on its host.
    pub fn on_host(self, host_rank: u32, host_ranks: u32) -> RankShare {
        let host_ranks = host_ranks.max(1);
        RankShare {
            host_rank: host_rank.min(host_ranks - 1),
            host_ranks,
            ..self
        }
    }

    /// -P: how many CPUs after the first the rank's worker `local` takes,
    /// so that no two workers of the ranks on one host share a CPU (dealt
    /// round robin, as the job's workers are to the ranks).
    pub fn cpu_offset(&self, local: u32) -> usize {
        local as usize * self.host_ranks as usize + self.host_rank as usize
    }

    /// This rank's workers when the job runs `job_workers`.
    pub fn workers(&self, job_workers: u32) -> u32 {
        job_workers / self.ranks + u32::from(self.rank < job_workers % self.ranks)
    }

    /// The job's number of this rank's worker `local`.
    pub fn job_worker(&self, local: u32) -> u32 {
        local * self.ranks + self.rank
    }

    /// The rank that runs the job's worker `job_worker`, and its number there.
    pub fn place_of(job_worker: u32, ranks: u32) -> (u32, u32) {
        let ranks = ranks.max(1);
        (job_worker % ranks, job_worker / ranks)
    }

    /// This rank's share of every worker count of the job, in order.
    pub fn local_counts(&self) -> Vec<u32> {
        self.job_counts.iter().map(|&n| self.workers(n)).collect()
    }

    /// The job's worker count of the rank's `k`th.
    pub fn job_count(&self, k: usize) -> Option<u32> {
        self.job_counts.get(k).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_worker_of_every_count_runs_once_and_the_first_ranks_take_the_rest() {
        for ranks in 1..6 {
            for n in 0..13 {
                let shares: Vec<RankShare> = (0..ranks)
                    .map(|r| RankShare::new(r, ranks, vec![n]))
                    .collect();
                let mut seen: Vec<u32> = shares
                    .iter()
                    .flat_map(|s| (0..s.workers(n)).map(|i| s.job_worker(i)))
                    .collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{n} on {ranks}");
                let counts: Vec<u32> = shares.iter().map(|s| s.workers(n)).collect();
                assert!(counts.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
                for j in 0..n {
                    let (rank, local) = RankShare::place_of(j, ranks);
                    assert_eq!(shares[rank as usize].job_worker(local), j);
                }
            }
        }
    }

    #[test]
    fn three_workers_on_two_ranks() {
        let first = RankShare::new(0, 2, vec![3]);
        let second = RankShare::new(1, 2, vec![3]);
        assert_eq!((first.workers(3), second.workers(3)), (2, 1));
        assert_eq!((first.job_worker(1), second.job_worker(0)), (2, 1));
        // -P: two ranks on a host, two workers each: four CPUs, none shared.
        let cpus: Vec<usize> = [first, second]
            .iter()
            .enumerate()
            .flat_map(|(r, s)| {
                let s = s.clone().on_host(r as u32, 2);
                (0..2).map(move |i| s.cpu_offset(i))
            })
            .collect();
        assert_eq!(cpus, [0, 2, 1, 3]);
        // One worker on four ranks: rank 0 runs it, the others wait.
        assert_eq!(RankShare::new(3, 4, vec![1]).workers(1), 0);
        assert_eq!(RankShare::new(0, 4, vec![1, 8]).local_counts(), vec![1, 2]);
    }
}
