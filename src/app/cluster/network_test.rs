//! `-+t`: IOzone's network test over the job's ranks (`ioz -+m clients
//! -+t`, or `mpirun -np N ioz -+t`), through the same launch as a run:
//! one pair of ranks at a time (a barrier between pairs, so that no two
//! share the network), the lower rank times the shortest of a few
//! one-byte round trips, then a fixed amount sent to the other until it
//! acknowledges, then the same asked back. Where rank 0 is alone on its
//! host, its host gets a row too: rank 0 with itself (two threads, MPI's
//! path within the process), so the table has a row for every host. Rank 0
//! gathers the pairs, prints the table and saves it with `--json FILE`. No
//! test file is made.

use crate::app::output::{print_text, say};
use crate::cli::NetworkTestRequest;
use crate::engine::clock::now_ns;
use crate::error::{Exit, RunError};
use crate::model::formats::Format;
use crate::model::network_test::{
    MESSAGE_BYTES, MESSAGES, NetworkTest, Pair, PairTimes, ROUND_TRIPS, pairs,
};
use crate::model::result::Client;
use crate::model::result_files::ResultPlaces;
use crate::report::files::write_files;
use crate::report::text::network::network_table;
use crate::runner::Across;
use crate::safety::outputs;
use crate::system::cluster::{Peers, Reduction};

/// Runs this rank's part of the test; rank 0 prints the table and saves it.
pub(super) fn run(request: &NetworkTestRequest, peers: &dyn Peers) -> Exit {
    let across = Across::new(peers, false);
    // The result paths approved before anything is measured, on rank 0.
    let places = if peers.rank() == 0 {
        outputs::check_for_compare(&request.outputs, &[], request.force)
            .map_err(|e| RunError::Refused(e.to_string()))
    } else {
        Ok(ResultPlaces::default())
    };
    let places = across
        .agree(
            places
                .as_ref()
                .map(drop)
                .map_err(|e| RunError::Refused(e.to_string())),
        )
        .and(places);
    match places.and_then(|places| measure(request, peers, &across).map(|t| (t, places))) {
        Ok((Some((text, test)), places)) => {
            let printed = print_text(&text, "the network test");
            let saved = write_files(&places, |format, _| match format {
                Format::Json => serde_json::to_vec_pretty(&test)
                    .map(|mut b| {
                        b.push(b'\n');
                        b
                    })
                    .map_err(std::io::Error::other),
                _ => Err(std::io::Error::other("-+t saves its table as JSON only")),
            });
            if saved { printed } else { Exit::Failure }
        }
        Ok((None, _)) => Exit::Success,
        Err(e) => {
            if peers.rank() == 0 {
                say(&e);
            }
            e.exit()
        }
    }
}

/// This rank's pairs measured; rank 0 gets the table and what it saves.
fn measure(
    request: &NetworkTestRequest,
    peers: &dyn Peers,
    across: &Across<'_>,
) -> Result<Option<(String, NetworkTest)>, RunError> {
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
    // Rank 0's host: is another rank there? If not, its row is rank 0's own.
    let zero: String = across.rank_0_s(&peers.host().to_string())?;
    let beside = u64::from(me != 0 && peers.host() == zero);
    let beside = peers
        .reduce(&[beside], Reduction::Sum, false)
        .map_err(RunError::from)?;
    if me == 0 && beside.first() == Some(&0) {
        mine.insert(0, time_itself(peers, &mut buffer)?);
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
    let text = network_table(&table, all.len(), request.every_pair);
    Ok(Some((
        text,
        NetworkTest {
            ranks: all.len() as u32,
            every_pair: request.every_pair,
            message_bytes: MESSAGE_BYTES as u64,
            messages: MESSAGES as u64,
            pairs: table,
        },
    )))
}

/// Rank 0 with itself: one thread times, another answers.
fn time_itself(peers: &dyn Peers, buffer: &mut [u8]) -> Result<PairTimes, RunError> {
    let mut other = vec![0u8; buffer.len()];
    std::thread::scope(|s| {
        let answer = s.spawn(|| answer_pair(peers, 0, &mut other));
        let times = time_pair(peers, 0, 0, buffer);
        let answered = answer.join().unwrap_or_else(|_| {
            Err(RunError::System(
                "the network test's answer panicked".into(),
            ))
        });
        answered.and(times)
    })
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
        peers.send_to(to, &[1], false)?;
        peers.receive_from(to, &mut byte, true)?;
        round_trip_ns = round_trip_ns.min(now_ns() - start);
    }
    let start = now_ns();
    for _ in 0..MESSAGES {
        peers.send_to(to, buffer, false)?;
    }
    peers.receive_from(to, &mut byte, true)?;
    let there_ns = now_ns() - start;
    let start = now_ns();
    peers.send_to(to, &[1], false)?;
    for _ in 0..MESSAGES {
        peers.receive_from(to, buffer, true)?;
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
        peers.receive_from(from, &mut byte, false)?;
        peers.send_to(from, &byte, true)?;
    }
    for _ in 0..MESSAGES {
        peers.receive_from(from, buffer, false)?;
    }
    peers.send_to(from, &[1], true)?;
    peers.receive_from(from, &mut byte, false)?;
    for _ in 0..MESSAGES {
        peers.send_to(from, buffer, true)?;
    }
    Ok(())
}
