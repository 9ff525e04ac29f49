//! A rank's own deadline. A rank cut off from the others (its host's link
//! down) waits inside an MPI call for messages that never come, and mpirun,
//! which ends the job at its time limit, cannot reach it to end it: the
//! proof saw such ranks spin until the link came back. So each rank keeps
//! the job's time limit too — MPIEXEC_TIMEOUT, which Open MPI's and MPICH's
//! launchers both obey and `ioz -+m` hands to every rank — and a little
//! after it (mpirun's own ending, with its report, comes first when it can)
//! removes its files and leaves.
#![cfg_attr(
    not(feature = "mpi"),
    expect(dead_code, reason = "ranks exist in the MPI build only")
)]

use std::time::Duration;

use crate::app::output::say;
use crate::error::Exit;
use crate::system::signals;

/// The variable holding the job's time limit in seconds.
pub(crate) const TIME_LIMIT_VARIABLE: &str = "MPIEXEC_TIMEOUT";

/// How long after the job's time limit a rank leaves by itself.
const GRACE: Duration = Duration::from_secs(5);

/// The job's time limit, if `value` (MPIEXEC_TIMEOUT's) gives one: a whole
/// number of seconds above 0 that the launchers can hold (they read it as
/// a C int: a larger one wraps to a negative limit in Open MPI's mpirun).
pub(crate) fn time_limit(value: Option<&str>) -> Option<Duration> {
    let seconds: u32 = value?.trim().parse().ok()?;
    (seconds > 0 && seconds <= i32::MAX as u32).then(|| Duration::from_secs(seconds.into()))
}

/// The job's time limit, where MPIEXEC_TIMEOUT gives one.
pub(crate) fn job_time_limit() -> Option<Duration> {
    time_limit(std::env::var(TIME_LIMIT_VARIABLE).ok().as_deref())
}

/// Arms this rank's deadline when the job has a time limit: a thread that
/// sleeps until the limit, then stops the rank as a SIGTERM would (rank 0
/// saves what was measured: the calls across the ranks wait no more past
/// the limit, system/cluster/mpi.rs), and if the rank still runs once the
/// grace has passed too, says so, removes the rank's registered files and
/// ends it.
pub(crate) fn arm(rank: u32, host: &str) {
    let Some(limit) = job_time_limit() else {
        return;
    };
    let name = host.to_string();
    let spawned = std::thread::Builder::new()
        .name("ioz-deadline".into())
        .spawn(move || {
            std::thread::sleep(limit);
            signals::stop_self();
            std::thread::sleep(GRACE);
            say(format_args!(
                "rank {rank} on {name}: still running {} s after the job's time limit \
                 ({TIME_LIMIT_VARIABLE}={}): cut off from the others? removing its files and \
                 leaving",
                GRACE.as_secs(),
                limit.as_secs()
            ));
            signals::remove_files_and_exit(Exit::TimedOut);
        });
    if let Err(e) = spawned {
        say(format_args!(
            "warning: rank {rank} on {host}: cannot keep the job's time limit: {e}"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_limit_is_a_whole_number_of_seconds_above_zero() {
        assert_eq!(time_limit(Some("90")), Some(Duration::from_secs(90)));
        assert_eq!(time_limit(Some(" 7\n")), Some(Duration::from_secs(7)));
        assert_eq!(
            time_limit(Some("2147483647")),
            Some(Duration::from_secs(i32::MAX as u64))
        );
        for none in [
            Some("2147483648"),
            Some("18446744073709551615"),
            None,
            Some("0"),
            Some(""),
            Some("-3"),
            Some("1.5"),
            Some("1h"),
        ] {
            assert_eq!(time_limit(none), None, "{none:?}");
        }
    }
}
