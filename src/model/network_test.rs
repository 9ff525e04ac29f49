//! `-+t`, IOzone's network test, as data: between two ranks of a cluster
//! job, the shortest round trip of a small message and the time to move a
//! fixed amount each way, both on the first rank's clock.

use serde::{Deserialize, Serialize};

use crate::model::client::Client;

/// What the test moves each way between two ranks: 16 messages of 1 MiB.
pub const MESSAGE_BYTES: usize = 1 << 20;
pub const MESSAGES: usize = 16;
/// Small-message round trips; the shortest is kept.
pub const ROUND_TRIPS: usize = 16;

/// The ranks the test pairs: each with rank 0, or (`every_pair`) every
/// two, in order.
pub fn pairs(ranks: u32, every_pair: bool) -> Vec<(u32, u32)> {
    let firsts = if every_pair {
        0..ranks
    } else {
        0..ranks.min(1)
    };
    firsts
        .flat_map(|a| (a + 1..ranks).map(move |b| (a, b)))
        .collect()
}

/// One pair's figures, timed by `from` (the lower rank).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairTimes {
    pub from: u32,
    pub to: u32,
    pub round_trip_ns: u64,
    /// Moving MESSAGES × MESSAGE_BYTES from `from` to `to`, its arrival
    /// acknowledged; and back, asked for.
    pub there_ns: u64,
    pub back_ns: u64,
}

/// A pair's figures with its ranks' hosts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    pub from: Client,
    pub to: Client,
    pub times: PairTimes,
}

/// What `-+t --json FILE` saves: the test's table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkTest {
    pub ranks: u32,
    /// Each rank with rank 0, or (`every_pair`) every two.
    pub every_pair: bool,
    pub message_bytes: u64,
    pub messages: u64,
    /// In order; `0 -> 0` where rank 0 is alone on its host (its host's
    /// row: MPI's path within the process, no network).
    pub pairs: Vec<Pair>,
}

impl Pair {
    /// kB/s (1 kB = 1024 bytes) of moving the test's bytes in `ns`.
    pub fn kb_per_sec(ns: u64) -> f64 {
        (MESSAGES * MESSAGE_BYTES) as f64 / 1024.0 / (ns.max(1) as f64 / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rank_meets_rank_0_or_every_other() {
        assert_eq!(pairs(3, false), [(0, 1), (0, 2)]);
        assert_eq!(pairs(3, true), [(0, 1), (0, 2), (1, 2)]);
        assert!(pairs(1, true).is_empty());
        assert!(pairs(0, false).is_empty());
    }

    #[test]
    fn sixteen_mib_in_a_second_is_16384_kb_per_sec() {
        assert_eq!(Pair::kb_per_sec(1_000_000_000), 16384.0);
    }
}
