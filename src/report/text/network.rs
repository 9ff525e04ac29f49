//! `-+t`'s table: each pair of ranks, the shortest round trip of a small
//! message and the throughput each way, in IOzone's KB/sec.

use std::fmt::Write as _;

use crate::model::network_test::{MESSAGE_BYTES, MESSAGES, Pair};
use crate::model::units::Size;
use crate::report::web::micros;

/// The test's table (`every_pair`: it paired every two ranks).
pub fn network_table(pairs: &[Pair], ranks: usize, every_pair: bool) -> String {
    let mut s = format!(
        "\tNetwork test over MPI, {ranks} ranks: {} each way between {}, in {} messages\n\n",
        Size((MESSAGES * MESSAGE_BYTES) as u64),
        if every_pair {
            "every two ranks"
        } else {
            "each rank and rank 0"
        },
        Size(MESSAGE_BYTES as u64),
    );
    if pairs.is_empty() {
        s.push_str("\tNo pair to test: the job has one rank.\n");
        return s;
    }
    let rank_words: Vec<String> = pairs
        .iter()
        .map(|p| format!("{} -> {}", p.from.rank, p.to.rank))
        .collect();
    let host_words: Vec<String> = pairs
        .iter()
        .map(|p| format!("{} -> {}", p.from.host, p.to.host))
        .collect();
    let rank_width = rank_words.iter().map(String::len).max().unwrap_or(0).max(5);
    let host_width = host_words
        .iter()
        .map(|h| h.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let _ = writeln!(
        s,
        "\t{:<rank_width$}  {:<host_width$}  {:>10}  {:>16}  {:>16}",
        "Ranks", "Hosts", "Round trip", "There (KB/sec)", "Back (KB/sec)"
    );
    for ((p, ranks), hosts) in pairs.iter().zip(&rank_words).zip(&host_words) {
        let _ = writeln!(
            s,
            "\t{ranks:<rank_width$}  {hosts:<host_width$}  {:>10}  {:>16.2}  {:>16.2}",
            micros(p.times.round_trip_ns as f64 / 1e3),
            Pair::kb_per_sec(p.times.there_ns),
            Pair::kb_per_sec(p.times.back_ns),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::network_test::PairTimes;
    use crate::model::result::Client;

    #[test]
    fn a_pair_is_a_row_of_its_round_trip_and_both_ways() {
        let client = |rank: u32, host: &str| Client {
            rank,
            host: host.into(),
        };
        let pair = Pair {
            from: client(0, "node-a"),
            to: client(1, "node-b"),
            times: PairTimes {
                from: 0,
                to: 1,
                round_trip_ns: 25_300,
                there_ns: 1_000_000_000,
                back_ns: 500_000_000,
            },
        };
        let table = network_table(&[pair], 2, false);
        assert_eq!(
            table,
            "\tNetwork test over MPI, 2 ranks: 16 MiB each way between each rank and rank 0, \
             in 1 MiB messages\n\n\
             \tRanks   Hosts             Round trip    There (KB/sec)     Back (KB/sec)\n\
             \t0 -> 1  node-a -> node-b     25.3 µs          16384.00          32768.00\n"
        );
        assert!(network_table(&[], 1, true).contains("No pair to test"));
    }
}
