//! What a cluster run's workers are, as every output names them. Within a
//! rank the workers are always threads of the rank's process (the ranks
//! are the processes, one per client, started by the launcher), so a
//! cluster run is a threads run whether -T was given or not: the text says
//! "Throughput test with 4 threads", "Each thread writes …", "Min
//! throughput per thread", and the JSON's `threads` is true, in the config
//! and in every phase. IOzone's -R header ("X-axis is number of
//! processes") is a fixed string scripts parse, the same with -T: kept.
#![cfg_attr(
    all(not(feature = "mpi"), not(test)),
    expect(dead_code, reason = "ranks run in the MPI build only")
)]

use crate::model::config::RunConfig;

/// `config` as the ranks run it: its workers threads.
pub(super) fn as_ranks_run_it(mut config: RunConfig) -> RunConfig {
    if let Some(tp) = config.throughput.as_mut() {
        tp.threads = true;
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_run_s_workers_are_threads_with_or_without_t() {
        for args in [&["-t", "2"][..], &["-t", "2", "-T"]] {
            let config = as_ranks_run_it(crate::cli::test_config(args));
            assert!(config.throughput.unwrap().threads, "{args:?}");
        }
        // Not a throughput run: nothing to say (cluster mode refuses it).
        let config = as_ranks_run_it(crate::cli::test_config(&["-s", "64k"]));
        assert!(config.throughput.is_none());
    }
}
