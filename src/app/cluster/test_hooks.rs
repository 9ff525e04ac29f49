//! Fault injection for the end-to-end tests, compiled in with `--features
//! test-hooks` only (.ci/run builds the MPI binary with it): a binary built
//! without it never reads these variables, and its hooks do nothing.
//!
//! - IOZ_TEST_PANIC_RANK=R: rank R panics after its first phase, while the
//!   others already wait for it at the next barrier (tests/e2e/cluster.rs
//!   proves with it that a panicking rank ends the job).
//! - IOZ_TEST_LATE_RANK=R: rank R arrives late at every cell's barrier
//!   (tests/e2e/cluster_auto.rs proves with it that the ranks still begin
//!   each cell together).
//! - IOZ_TEST_SLOW_CLOCK_RANK=R: rank R answers rank 0's clock pings 3 ms
//!   late, the first IOZ_TEST_SLOW_CLOCK_ANSWERS of them (default: all),
//!   so that its clock cannot be aligned, or only on the retry
//!   (tests/e2e/cluster_scale.rs: "Parent sees" says why it is missing).
//! - IOZ_TEST_DEAF_RANK=R: rank R never hears the other ranks' stops
//!   during a phase, as a rank cut off from them (tests/e2e/cluster_scale.rs:
//!   its bytes are left out of what the stonewall counted).
//! - IOZ_TEST_LATE_START_RANK=R: rank R releases its workers 300 ms after
//!   every barrier, as a rank that starts late (tests/e2e/cluster_scale.rs:
//!   the stonewall counts only what moved while every rank ran).
//! - IOZ_TEST_GATHER_PIECE=N (every rank): a gather of more than N bytes
//!   comes in pieces of N bytes, the way past MPI's 2 GiB counts, tried on
//!   a small run (tests/e2e/cluster_scale.rs).

#[cfg(feature = "test-hooks")]
use std::time::Duration;

use crate::runner::Event;

/// What the test hooks ask of one rank.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TestHooks {
    #[cfg(feature = "test-hooks")]
    rank: u32,
    #[cfg(feature = "test-hooks")]
    panics: bool,
    #[cfg(feature = "test-hooks")]
    late: bool,
    #[cfg(feature = "test-hooks")]
    faults: crate::system::cluster::mpi::Faults,
}

#[cfg(feature = "test-hooks")]
const PANIC_RANK_VARIABLE: &str = "IOZ_TEST_PANIC_RANK";
#[cfg(feature = "test-hooks")]
const LATE_RANK_VARIABLE: &str = "IOZ_TEST_LATE_RANK";
#[cfg(feature = "test-hooks")]
const SLOW_CLOCK_RANK_VARIABLE: &str = "IOZ_TEST_SLOW_CLOCK_RANK";
#[cfg(feature = "test-hooks")]
const SLOW_CLOCK_ANSWERS_VARIABLE: &str = "IOZ_TEST_SLOW_CLOCK_ANSWERS";
#[cfg(feature = "test-hooks")]
const DEAF_RANK_VARIABLE: &str = "IOZ_TEST_DEAF_RANK";
#[cfg(feature = "test-hooks")]
const LATE_START_RANK_VARIABLE: &str = "IOZ_TEST_LATE_START_RANK";
#[cfg(feature = "test-hooks")]
const GATHER_PIECE_VARIABLE: &str = "IOZ_TEST_GATHER_PIECE";
/// How late the late-starting rank releases its workers.
#[cfg(feature = "test-hooks")]
const LATE_START_BY: Duration = Duration::from_millis(300);
/// How late the slow clock answers: longer than a round trip may be.
#[cfg(feature = "test-hooks")]
const SLOW_CLOCK_BY: Duration = Duration::from_millis(3);
/// How late the late rank is.
#[cfg(feature = "test-hooks")]
const LATE_BY: Duration = Duration::from_millis(200);

#[cfg(feature = "test-hooks")]
impl TestHooks {
    /// The hooks the environment sets for rank `rank`.
    pub(super) fn for_rank(rank: u32) -> TestHooks {
        let names = |variable: &str| std::env::var(variable).is_ok_and(|r| r == rank.to_string());
        let slow_answers = if names(SLOW_CLOCK_RANK_VARIABLE) {
            std::env::var(SLOW_CLOCK_ANSWERS_VARIABLE)
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(u32::MAX)
        } else {
            0
        };
        TestHooks {
            rank,
            panics: names(PANIC_RANK_VARIABLE),
            late: names(LATE_RANK_VARIABLE),
            faults: crate::system::cluster::mpi::Faults {
                slow_clock_answers: (slow_answers, SLOW_CLOCK_BY),
                deaf_to_stops: names(DEAF_RANK_VARIABLE),
                gather_limit: std::env::var(GATHER_PIECE_VARIABLE)
                    .ok()
                    .and_then(|n| n.parse().ok()),
                late_release: if names(LATE_START_RANK_VARIABLE) {
                    LATE_START_BY
                } else {
                    Duration::ZERO
                },
            },
        }
    }

    /// The faults the rank's calls across the ranks are to show.
    pub(super) fn inject(&self, peers: &mut crate::system::cluster::mpi::MpiPeers) {
        peers.inject(self.faults);
    }

    /// After each of the runner's events: the panicking rank panics after
    /// its first phase.
    pub(super) fn after_event(&self, event: &Event<'_>) {
        if self.panics && matches!(event, Event::PhaseDone { .. }) {
            panic!("{PANIC_RANK_VARIABLE} asked rank {} to panic", self.rank);
        }
    }

    /// Before each cell's barrier: the late rank sleeps.
    pub(super) fn before_cell(&self) {
        if self.late {
            std::thread::sleep(LATE_BY);
        }
    }
}

#[cfg(not(feature = "test-hooks"))]
impl TestHooks {
    pub(super) fn for_rank(_rank: u32) -> TestHooks {
        TestHooks {}
    }

    pub(super) fn after_event(&self, _event: &Event<'_>) {}

    pub(super) fn before_cell(&self) {}

    pub(super) fn inject(&self, _peers: &mut crate::system::cluster::mpi::MpiPeers) {}
}
