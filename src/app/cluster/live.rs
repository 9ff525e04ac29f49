//! `--live` across the ranks of a job. Every rank's keeper hands its lines
//! here (a pass's, or a phase's sum of the rank's workers); a rank other
//! than 0 sends each to rank 0 as it comes. Rank 0 writes the job's line of
//! an interval — the ranks' intervals of that index summed, each rank's
//! beside it — once every rank has passed the index or ended the pass, and
//! after its own loops end it waits (a few seconds at most) for the others'
//! last lines. The job's line holds no latency: its percentiles would need
//! every rank's histogram in flight; each rank's beside has its own.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::app::output::say;
use crate::model::intervals::{Beside, Interval, LiveHeading, LiveLine, of_index, sum_of_index};
use crate::model::workload::Pass;
use crate::runner::LiveSink;
use crate::system::cluster::Peers;

/// How long rank 0 waits, once its own loops ended, for the other ranks'
/// last lines of the pass (they end together, give or take a stonewall).
const LAST_LINES: Duration = Duration::from_secs(5);

/// A pass or phase's lines are told apart by these.
type SeriesKey = (Pass, u32, u64, u64);

fn key_of(line: &LiveLine) -> SeriesKey {
    (line.pass, line.run, line.file_bytes, line.record_bytes)
}

/// One pass or phase, as rank 0 gathers it.
struct Gathered {
    key: SeriesKey,
    /// Each rank's lines so far, in order.
    ranks: Vec<Vec<LiveLine>>,
    /// The first index not written yet.
    written: u32,
}

impl Gathered {
    fn ended(&self, rank: usize) -> bool {
        self.ranks[rank].last().is_some_and(|l| l.interval.partial)
    }

    fn all_ended(&self) -> bool {
        (0..self.ranks.len()).all(|r| self.ended(r))
    }
}

/// The sink of a rank of the job (see the module).
pub(super) struct JobLive<'a> {
    peers: &'a dyn Peers,
    /// Rank 0's live file, when the job asked for one.
    file: Option<&'a dyn LiveSink>,
    interval_ns: u64,
    gathered: Mutex<Vec<Gathered>>,
    /// A failed send or receive is said once; the run goes on.
    failed: Mutex<bool>,
}

impl<'a> JobLive<'a> {
    pub(super) fn new(
        peers: &'a dyn Peers,
        file: Option<&'a dyn LiveSink>,
        interval_ns: u64,
    ) -> JobLive<'a> {
        JobLive {
            peers,
            file,
            interval_ns,
            gathered: Mutex::new(Vec::new()),
            failed: Mutex::new(false),
        }
    }

    fn fail(&self, e: impl std::fmt::Display) {
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        if !*failed {
            say(format_args!(
                "--live: the ranks' lines could not travel: {e}"
            ));
            *failed = true;
        }
    }

    /// Rank 0: a rank's line, kept with its pass's.
    fn keep(&self, gathered: &mut Vec<Gathered>, rank: u32, line: LiveLine) {
        let key = key_of(&line);
        let at = match gathered.iter().position(|g| g.key == key) {
            Some(at) => at,
            None => {
                gathered.push(Gathered {
                    key,
                    ranks: vec![Vec::new(); self.peers.size() as usize],
                    written: 0,
                });
                gathered.len() - 1
            }
        };
        if let Some(lines) = gathered[at].ranks.get_mut(rank as usize) {
            lines.push(line);
        }
    }

    /// Rank 0: takes the other ranks' lines that have arrived.
    fn receive(&self, gathered: &mut Vec<Gathered>) {
        match self.peers.live_arrived() {
            Ok(arrived) => {
                for (rank, bytes) in arrived {
                    match serde_json::from_slice::<LiveLine>(&bytes) {
                        Ok(line) => self.keep(gathered, rank, line),
                        Err(e) => self.fail(e),
                    }
                }
            }
            Err(e) => self.fail(e),
        }
    }

    /// Rank 0: writes every line of the job that is whole; a pass every
    /// rank has ended is written to its end and forgotten.
    fn write_whole(&self, gathered: &mut Vec<Gathered>) {
        for g in gathered.iter_mut() {
            let top = g
                .ranks
                .iter()
                .filter_map(|lines| lines.last())
                .map(|l| l.interval.index)
                .max();
            let Some(top) = top else {
                continue;
            };
            let all_ended = g.all_ended();
            while g.written < top
                || (all_ended && g.written == top && g.ranks.iter().any(|l| !l.is_empty()))
            {
                let k = g.written;
                let passed = (0..g.ranks.len())
                    .all(|r| g.ended(r) || g.ranks[r].last().is_some_and(|l| l.interval.index > k));
                if !passed {
                    break;
                }
                self.write_index(g, k, all_ended && k == top);
                g.written += 1;
            }
        }
        gathered.retain(|g| !(g.all_ended() && g.written > 0));
    }

    /// Rank 0: the job's line of index `k` of `g` (the pass's last with
    /// `last`).
    fn write_index(&self, g: &Gathered, k: u32, last: bool) {
        let Some(file) = self.file else {
            return;
        };
        let series: Vec<Vec<Interval>> = g
            .ranks
            .iter()
            .map(|lines| lines.iter().map(|l| l.interval.clone()).collect())
            .collect();
        let refs: Vec<&[Interval]> = series.iter().map(|s| &s[..]).collect();
        let end = last.then(|| {
            refs.iter()
                .filter_map(|s| s.last())
                .map(Interval::end_ns)
                .max()
                .unwrap_or(0)
        });
        let mut sum = sum_of_index(&refs, k, self.interval_ns, end, &[]);
        sum.latency = None;
        let beside = refs
            .iter()
            .enumerate()
            .filter_map(|(rank, s)| Some(Beside::rank(rank as u32, of_index(s, k)?)))
            .collect();
        let workers = g
            .ranks
            .iter()
            .filter_map(|lines| lines.first()?.workers)
            .reduce(|a, b| a + b);
        let heading = LiveHeading {
            pass: g.key.0,
            run: g.key.1,
            file_bytes: g.key.2,
            record_bytes: g.key.3,
            workers,
        };
        file.line(&LiveLine::new(heading, &sum, beside));
    }
}

impl LiveSink for JobLive<'_> {
    fn line(&self, line: &LiveLine) {
        // The rank's workers stay on the rank: rank 0 needs its sum alone.
        let own = LiveLine {
            beside: Vec::new(),
            ..line.clone()
        };
        if self.peers.rank() != 0 {
            match serde_json::to_vec(&own) {
                Ok(bytes) => {
                    if let Err(e) = self.peers.send_live(&bytes) {
                        self.fail(e);
                    }
                }
                Err(e) => self.fail(e),
            }
            return;
        }
        let mut gathered = self.gathered.lock().unwrap_or_else(|e| e.into_inner());
        self.keep(&mut gathered, 0, own);
        self.receive(&mut gathered);
        self.write_whole(&mut gathered);
    }

    fn poll(&self) {
        if self.peers.rank() == 0 {
            let mut gathered = self.gathered.lock().unwrap_or_else(|e| e.into_inner());
            self.receive(&mut gathered);
            self.write_whole(&mut gathered);
        }
    }

    /// Rank 0 waits for the other ranks' last lines of the passes it ended.
    fn loops_ended(&self) {
        if self.peers.rank() != 0 {
            return;
        }
        let started = Instant::now();
        loop {
            let mut gathered = self.gathered.lock().unwrap_or_else(|e| e.into_inner());
            self.receive(&mut gathered);
            self.write_whole(&mut gathered);
            if gathered.iter().all(|g| !g.ended(0)) || started.elapsed() > LAST_LINES {
                // What never came (a rank that stopped) is written as it is.
                for g in gathered.iter_mut().filter(|g| g.ended(0)) {
                    let top = g
                        .ranks
                        .iter()
                        .filter_map(|l| l.last())
                        .map(|l| l.interval.index)
                        .max()
                        .unwrap_or(0);
                    while g.written <= top {
                        self.write_index(g, g.written, g.written == top);
                        g.written += 1;
                    }
                }
                gathered.retain(|g| !g.ended(0));
                return;
            }
            drop(gathered);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
