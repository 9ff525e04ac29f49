//! Single and auto mode across the ranks of an MPI job (`mpirun -np N ioz
//! -a …`, or `-s … -r …` without `-t`): every rank runs the whole plan on
//! its own test file, each cell begun on all of them after a barrier, so
//! that the ranks load a shared server at the same moments. Rank 0 prints
//! each rank's table and their sum (the aggregate of simultaneous clients)
//! and saves the run: its cells are the sum, `ranks` holds each rank's.
//! Failures end the job at the next cell, named by rank and host.

use crate::model::config::RunConfig;

/// Why single or auto mode `config` cannot run across ranks, if it cannot.
pub(super) fn refusal(config: &RunConfig) -> Option<&'static str> {
    let v = &config.variations;
    if v.remount.is_some() {
        return Some(
            "-U (a remount before every test) is not done across ranks: each rank would \
             unmount a file system the others may be using",
        );
    }
    if v.existing_file {
        return Some(
            "-+E (an existing file) is not done across ranks: each rank writes its own new file",
        );
    }
    if v.write_telemetry.is_some() || v.read_telemetry.is_some() || config.telemetry.is_some() {
        return Some("-X/-Y (telemetry files) are not done across ranks yet");
    }
    if v.offset_latency_files {
        return Some("-Q is not done across ranks yet");
    }
    if !config.latency.is_off() {
        return Some(
            "--latency, -+z, -+O, -+T (per-operation latencies) are not done across ranks yet",
        );
    }
    None
}

#[cfg(feature = "mpi")]
pub(super) use across::run_rank;

#[cfg(feature = "mpi")]
mod across {
    use std::cell::RefCell;
    use std::path::PathBuf;
    use std::time::{Duration, SystemTime};

    use serde::{Deserialize, Serialize};

    use super::super::clients::CLIENT_FILE_VARIABLE;
    use super::super::rank::clone_error;
    use crate::app::output::{Output, say};
    use crate::app::run_start::{Measured, RunStart};
    use crate::error::{Exit, RunError};
    use crate::model::config::RunConfig;
    use crate::model::plan::Cell;
    use crate::model::result::{CellResult, CellStart, Client, RankCells, sum_of_ranks};
    use crate::report::text::LiveText;
    use crate::runner::{self, Across, CellMeeting, Event};
    use crate::safety::preflight::{Ready, preflight};
    use crate::system::cluster::Peers;
    use crate::system::cluster::mpi;
    use crate::system::signals::{self, StopFlag};

    /// The rank named here arrives late at every cell's barrier (by
    /// [`LATE_BY`]): tests/e2e/cluster_auto.rs proves with it that the
    /// ranks still begin each cell together.
    const LATE_RANK_VARIABLE: &str = "IOZ_TEST_LATE_RANK";
    const LATE_BY: Duration = Duration::from_millis(200);

    /// The ranks around each cell: a barrier before it (when this rank
    /// began it is noted), the cell's end settled with every rank after it.
    struct Together<'a> {
        across: &'a Across<'a>,
        late: bool,
        starts: RefCell<Vec<CellStart>>,
    }

    impl CellMeeting for Together<'_> {
        fn before_cell(&self, cell: Cell, run: u32) -> Result<(), RunError> {
            if self.late {
                std::thread::sleep(LATE_BY);
            }
            self.across.meet()?;
            let unix_ns = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            self.starts
                .borrow_mut()
                .push(CellStart { cell, run, unix_ns });
            Ok(())
        }

        fn after_cell(&self, end: Result<Option<i32>, RunError>) -> Result<Option<i32>, RunError> {
            self.across.agree_on_stop(end)
        }
    }

    /// What a rank tells rank 0 at the end.
    #[derive(Serialize, Deserialize)]
    struct RankReport {
        test_file: PathBuf,
        cells: Vec<CellResult>,
        cell_starts: Vec<CellStart>,
    }

    /// This rank's copy of the run: the whole plan on its own test file
    /// (the client file's fourth column under `-+m`, else `<-f path>.<rank>`).
    /// Only rank 0 writes the result files.
    fn for_rank(config: &RunConfig, rank: u32) -> RunConfig {
        let mut mine = config.clone();
        mine.path = match std::env::var_os(CLIENT_FILE_VARIABLE) {
            Some(file) => file.into(),
            None => {
                let mut name = config.path.clone().into_os_string();
                name.push(format!(".{rank}"));
                name.into()
            }
        };
        if rank != 0 {
            mine.outputs = Default::default();
            mine.excel_report = false;
        }
        mine
    }

    /// Runs this rank of a single- or auto-mode job and says how it ended.
    pub(crate) fn run_rank(config: RunConfig, peers: &dyn Peers) -> Exit {
        let rank = peers.rank();
        let speaks = rank == 0;
        let fail = |e: RunError| {
            if speaks {
                say(&e);
            }
            e.exit()
        };
        let across = Across::new(peers, false);
        if let Err(e) = super::super::same_start::same_plan(&across, &config) {
            return fail(e);
        }
        let history = match super::super::recording::place(&config, rank, &across) {
            Ok(history) => history,
            Err(exit) => return exit,
        };
        let mine = for_rank(&config, rank);
        // As in throughput mode (rank.rs): the stop signals' handler removes
        // the rank's file and ends it, wherever it waits.
        if !config.keep_file {
            signals::remove_on_second_interrupt(mine.run_paths());
        }
        if let Err(e) = signals::leave_on_stop_signals() {
            say(format_args!("rank {rank}: cannot handle signals: {e}"));
            mpi::abort_job(1);
        }
        let ready = preflight(mine);
        if let Err(e) = across.agree(ready.as_ref().map(drop).map_err(clone_error)) {
            return fail(e);
        }
        let Ok(Ready {
            config: mine,
            warning,
            results,
            ..
        }) = ready
        else {
            return Exit::Failure;
        };
        if let Some(warning) = warning
            && speaks
            && !config.quiet
        {
            say(format_args!("warning: {warning}"));
        }
        let stop = StopFlag::default();
        let start = RunStart::capture(&mine.path);
        let mut out = Output::new(&stop);
        let text = LiveText::new(&config);
        if speaks {
            let me = Client {
                rank,
                host: peers.host().to_string(),
            };
            out.put(&text.opening_across_ranks(
                (&start.environment, &start.started, start.time_resolution_ns),
                peers.size() as usize,
                &me,
                &mine.path,
            ));
        }
        let together = Together {
            across: &across,
            late: std::env::var(LATE_RANK_VARIABLE).is_ok_and(|r| r == rank.to_string()),
            starts: RefCell::new(Vec::new()),
        };
        // Rank 0's own rows as its cells end: the run's progress. A stdout
        // that fails is not an error here (the other ranks would not know
        // it): it is said at the end, as on one host.
        let outcome = runner::measure_cells_across(&mine, &stop, &together, |event| {
            if let Event::RowDone(row) = event
                && speaks
            {
                out.put(&text.row(row));
            }
            Ok(())
        });
        drop(text);
        let left_behind = outcome.left_behind();
        let report = RankReport {
            test_file: mine.path.clone(),
            cells: outcome.cells,
            cell_starts: together.starts.take(),
        };
        let gathered = across.gather_with_hosts(&report);
        if !speaks {
            if let Some(line) = &left_behind {
                say(format_args!("rank {rank} on {}: {line}", peers.host()));
            }
            return match (outcome.error, gathered) {
                (Some(e), _) | (None, Err(e)) => e.exit(),
                (None, Ok(_)) if left_behind.is_some() => Exit::Failure,
                (None, Ok(_)) => Exit::Success,
            };
        }
        let gathered = match gathered {
            Ok(all) => all,
            Err(e) => return fail(e),
        };
        let ranks: Vec<RankCells> = gathered
            .into_iter()
            .enumerate()
            .map(|(rank, (host, r))| RankCells {
                client: Client {
                    rank: rank as u32,
                    host,
                },
                test_file: r.test_file,
                cells: r.cells,
                cell_starts: r.cell_starts,
            })
            .collect();
        let result = start.into_result(
            config,
            Measured {
                cells: sum_of_ranks(&ranks),
                throughput: Vec::new(),
                ranks,
                status: outcome.status,
            },
        );
        super::super::rank::close_job(&result, out, outcome.error, &results, &history, left_behind)
    }
}
