//! A rank's share of a throughput run: which of the job's workers it runs
//! (model::rank_share deals them round robin) and their files, named as the
//! whole job names them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::clients::CLIENT_FILE_VARIABLE;
use crate::model::config::ThroughputConfig;
use crate::model::rank_share::RankShare;
use crate::system::cluster;

/// Turns the job's throughput config into rank `rank`'s of `ranks`: its
/// share of every worker count, its workers' files, threads.
pub(super) fn deal(tp: &mut ThroughputConfig, base: &Path, rank: u32, ranks: u32) {
    let job = tp.clone();
    let (host_rank, host_ranks) = cluster::host_place();
    let share =
        RankShare::new(rank, ranks, job.worker_counts.clone()).on_host(host_rank, host_ranks);
    let most = share.local_counts().into_iter().max().unwrap_or(0);
    // -+m's client file names this client's test file (fourth column):
    // the file of its worker, or with several `<file>.<i>`.
    let client_file = std::env::var_os(CLIENT_FILE_VARIABLE).map(PathBuf::from);
    // -+V/-+L: the job's one file, as this rank reaches it (every rank
    // must reach the same: runner/throughput/rank_files.rs checks).
    tp.files = if job.shared_file {
        vec![client_file.unwrap_or_else(|| job.worker_path(base, 0))]
    } else {
        (0..most)
            .map(|i| match &client_file {
                Some(f) if most == 1 => f.clone(),
                Some(f) => numbered(f, i),
                None => job.worker_path(base, share.job_worker(i)),
            })
            .collect()
    };
    tp.worker_counts = share.local_counts();
    tp.min_workers = None;
    tp.max_workers = None;
    tp.threads = true;
    tp.ranks = Some(share);
}

/// `<file>.<i>`.
fn numbered(file: &Path, i: u32) -> PathBuf {
    let mut name: OsString = file.as_os_str().to_owned();
    name.push(format!(".{i}"));
    name.into()
}
