//! `-+t`: IOzone's network test over the job's ranks (`ioz -+m clients
//! -+t`, or `mpirun -np N ioz -+t`), through the same launch as a run:
//! one pair of ranks at a time (a barrier between pairs, so that no two
//! share the network), the lower rank times the shortest of a few
//! one-byte round trips, then a fixed amount sent to the other until it
//! acknowledges, then the same asked back. Rank 0 gathers the pairs and
//! prints the table. No file is made, nothing is saved.

use crate::app::output::{print_text, say};
use crate::cli::NetworkTestRequest;
use crate::engine::clock::now_ns;
use crate::error::{Exit, RunError};
use crate::model::network_test::{MESSAGE_BYTES, MESSAGES, Pair, PairTimes, ROUND_TRIPS, pairs};
use crate::model::result::Client;
use crate::report::text::network::network_table;
use crate::runner::Across;
use crate::system::cluster::Peers;

/// Runs this rank's part of the test; rank 0 prints the table.
pub(super) fn run(request: &NetworkTestRequest, peers: &dyn Peers) -> Exit {
    match measure(request, peers) {
        Ok(Some(text)) => print_text(&text, "the network test"),
        Ok(None) => Exit::Success,
        Err(e) => {
            if peers.rank() == 0 {
                say(&e);
            }
            e.exit()
        }
    }
}

/// This rank's pairs measured; rank 0 gets the table.
fn measure(request: &NetworkTestRequest, peers: &dyn Peers) -> Result<Option<String>, RunError> {
    let across = Across::new(peers, false);
    let me = peers.rank();
    let mut buffer = vec![0u8; MESSAGE_BYTES];
    let mut mine: Vec<PairTimes> = Vec::new();
    for (from, to) in pairs(peers.size(), request.every_pair) {
        across.meet()?;
        if me == from {
            mine.push(time_pair(peers, from, to, &mut buffer)?);
        } else if me == to {
            answer_pair(peers, from, &mut buffer)?;
        }
    }
    let all = across.gather_with_hosts(&mine)?;
    if me != 0 {
        return Ok(None);
    }
    let client = |rank: u32| Client {
        rank,
        host: all
            .get(rank as usize)
            .map(|(host, _)| host.clone())
            .unwrap_or_default(),
    };
    let mut table: Vec<Pair> = all
        .iter()
        .flat_map(|(_, times)| times.iter().cloned())
        .map(|times| Pair {
            from: client(times.from),
            to: client(times.to),
            times,
        })
        .collect();
    table.sort_by_key(|p| (p.times.from, p.times.to));
    Ok(Some(network_table(&table, all.len(), request.every_pair)))
}

/// The lower rank's side of a pair: it times everything.
fn time_pair(
    peers: &dyn Peers,
    from: u32,
    to: u32,
    buffer: &mut [u8],
) -> Result<PairTimes, RunError> {
    let mut byte = [0u8; 1];
    let mut round_trip_ns = u64::MAX;
    for _ in 0..ROUND_TRIPS {
        let start = now_ns();
        peers.send_to(to, &[1])?;
        peers.receive_from(to, &mut byte)?;
        round_trip_ns = round_trip_ns.min(now_ns() - start);
    }
    let start = now_ns();
    for _ in 0..MESSAGES {
        peers.send_to(to, buffer)?;
    }
    peers.receive_from(to, &mut byte)?;
    let there_ns = now_ns() - start;
    let start = now_ns();
    peers.send_to(to, &[1])?;
    for _ in 0..MESSAGES {
        peers.receive_from(to, buffer)?;
    }
    let back_ns = now_ns() - start;
    Ok(PairTimes {
        from,
        to,
        round_trip_ns,
        there_ns,
        back_ns,
    })
}

/// The higher rank's side: it echoes, receives, acknowledges and sends.
fn answer_pair(peers: &dyn Peers, from: u32, buffer: &mut [u8]) -> Result<(), RunError> {
    let mut byte = [0u8; 1];
    for _ in 0..ROUND_TRIPS {
        peers.receive_from(from, &mut byte)?;
        peers.send_to(from, &byte)?;
    }
    for _ in 0..MESSAGES {
        peers.receive_from(from, buffer)?;
    }
    peers.send_to(from, &[1])?;
    peers.receive_from(from, &mut byte)?;
    for _ in 0..MESSAGES {
        peers.send_to(from, buffer)?;
    }
    Ok(())
}
