//! Single and auto mode across the ranks of an MPI job (`mpirun -np N ioz
//! -a …`, or `-s … -r …` without `-t`): every rank runs the whole plan on
//! its own test file, each cell begun on all of them after a barrier, so
//! that the ranks load a shared server at the same moments. Rank 0 prints
//! each rank's table and their sum (the aggregate of simultaneous clients)
//! and saves the run: its cells are the sum, `ranks` holds each rank's.
//! A failure ends the job at the next cell, named by rank and host; a stop
//! (Ctrl-C to mpirun) ends it there too, the cells so far saved.

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
pub(super) use cells::Cells;

/// The mode itself, in the MPI build.
#[cfg(feature = "mpi")]
mod cells {
    use std::cell::RefCell;
    use std::path::PathBuf;
    use std::time::SystemTime;

    use serde::{Deserialize, Serialize};

    use crate::engine::clock::now_ns;
    use crate::model::environment::Environment;
    use crate::model::skew::{CellSkew, ClockOffset, RankSkew, RankTiming};

    use crate::app::cluster::clients::CLIENT_FILE_VARIABLE;
    use crate::app::cluster::job::RankMode;
    use crate::app::cluster::test_hooks::TestHooks;
    use crate::app::driver::OnEvent;
    use crate::app::run_start::{Measured, RunStart};
    use crate::error::RunError;
    use crate::model::config::RunConfig;
    use crate::model::plan::Cell;
    use crate::model::result::{CellResult, CellStart, Client, RankCells, sum_of_ranks};
    use crate::report::text::LiveText;
    use crate::runner::{self, Across, CellMeeting, LiveSink, Outcome};
    use crate::system::signals::StopFlag;

    /// Single and auto mode on one rank; when it began each cell, and
    /// how long it took.
    pub(in crate::app::cluster) struct Cells {
        hooks: TestHooks,
        starts: RefCell<Vec<CellStart>>,
        times: RefCell<Vec<CellTime>>,
    }

    impl Cells {
        pub(in crate::app::cluster) fn new(hooks: TestHooks) -> Cells {
            Cells {
                hooks,
                starts: RefCell::new(Vec::new()),
                times: RefCell::new(Vec::new()),
            }
        }
    }

    /// A cell on this rank, on its own monotonic clock: from the barrier's
    /// release to its end (its file removed, its row handed out).
    #[derive(Clone, Copy, Serialize, Deserialize)]
    struct CellTime {
        start_ns: u64,
        elapsed_ns: u64,
    }

    /// The ranks around each cell: a barrier before it (when this rank
    /// began it is noted), the cell's end settled with every rank after it.
    struct Together<'a> {
        across: &'a Across<'a>,
        hooks: &'a TestHooks,
        starts: &'a RefCell<Vec<CellStart>>,
        times: &'a RefCell<Vec<CellTime>>,
    }

    impl CellMeeting for Together<'_> {
        fn before_cell(&self, cell: Cell, run: u32) -> Result<(), RunError> {
            self.hooks.before_cell();
            self.across.meet()?;
            self.times.borrow_mut().push(CellTime {
                start_ns: now_ns(),
                elapsed_ns: 0,
            });
            let unix_ns = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            self.starts
                .borrow_mut()
                .push(CellStart { cell, run, unix_ns });
            Ok(())
        }

        fn after_cell(&self, end: Result<Option<i32>, RunError>) -> Result<Option<i32>, RunError> {
            if let Some(time) = self.times.borrow_mut().last_mut() {
                time.elapsed_ns = now_ns().saturating_sub(time.start_ns);
            }
            self.across.agree_on_stop(end)
        }
    }

    /// What a rank tells rank 0 at the end.
    #[derive(Serialize, Deserialize)]
    struct RankReport {
        test_file: PathBuf,
        cells: Vec<CellResult>,
        cell_starts: Vec<CellStart>,
        cell_times: Vec<CellTime>,
        environment: Environment,
    }

    impl RankMode for Cells {
        /// This rank's copy of the run: the whole plan on its own test file
        /// (the client file's fourth column under `-+m`, else `<-f
        /// path>.<rank>`).
        fn share(&self, config: &RunConfig, rank: u32, _ranks: u32) -> RunConfig {
            let mut mine = config.clone();
            mine.path = match std::env::var_os(CLIENT_FILE_VARIABLE) {
                Some(file) => file.into(),
                None => {
                    let mut name = config.path.clone().into_os_string();
                    name.push(format!(".{rank}"));
                    name.into()
                }
            };
            mine
        }

        /// Rank 0 estimates how far each rank's clock is from its own, so
        /// that the ranks' starts of each cell can be compared.
        fn after_agreement(&self, across: &mut Across<'_>) -> Result<(), RunError> {
            across.align_clocks()
        }

        fn warning(&self, _mine: &RunConfig) -> Option<String> {
            None
        }

        fn opening(
            &self,
            text: &LiveText<'_>,
            start: &RunStart,
            mine: &RunConfig,
            (me, ranks): (&Client, u32),
        ) -> String {
            text.opening_across_ranks(
                (&start.environment, &start.started, start.time_resolution_ns),
                ranks as usize,
                me,
                &mine.path,
            )
        }

        /// Rank 0's own rows go to the driver as its cells end: the run's
        /// progress. A stdout that fails stops rank 0 alone: the stop is
        /// settled with the others at the next meeting (runner::single).
        fn measure(
            &mut self,
            across: &Across<'_>,
            mine: &RunConfig,
            (stop, live): (&StopFlag, Option<&dyn LiveSink>),
            on_event: &mut OnEvent<'_>,
        ) -> Outcome {
            let together = Together {
                across,
                hooks: &self.hooks,
                starts: &self.starts,
                times: &self.times,
            };
            runner::measure_cells_across(mine, (stop, live), &together, on_event)
        }

        /// Rank 0 gets every rank's cells: its run's cells are their sum,
        /// `ranks` holds each rank's. The other ranks' are sent, not kept.
        fn gather(
            &mut self,
            across: &Across<'_>,
            mine: &RunConfig,
            here: &Environment,
            measured: Measured,
        ) -> Result<Measured, RunError> {
            let report = RankReport {
                test_file: mine.path.clone(),
                cells: measured.cells,
                cell_starts: self.starts.take(),
                cell_times: self.times.take(),
                environment: here.clone(),
            };
            let mut times = Vec::new();
            let ranks: Vec<RankCells> = across
                .gather_with_hosts(&report)?
                .into_iter()
                .enumerate()
                .map(|(rank, (host, r))| {
                    times.push(r.cell_times);
                    RankCells {
                        client: Client {
                            rank: rank as u32,
                            host,
                        },
                        test_file: r.test_file,
                        cells: r.cells,
                        cell_starts: r.cell_starts,
                        environment: Some(r.environment),
                    }
                })
                .collect();
            Ok(Measured {
                cells: sum_of_ranks(&ranks, mine),
                throughput: Vec::new(),
                cell_skews: cell_skews(&ranks, &times, across.clocks()),
                ranks,
                metadata: None,
                job: None,
                status: measured.status,
            })
        }
    }

    /// Each cell every rank began, its ranks' starts and ends (`times`:
    /// each rank's cells' times, in the order of its `cell_starts`).
    fn cell_skews(
        ranks: &[RankCells],
        times: &[Vec<CellTime>],
        clocks: &[ClockOffset],
    ) -> Vec<CellSkew> {
        let Some(first) = ranks.first() else {
            return Vec::new();
        };
        (0..first.cell_starts.len())
            .map_while(|i| {
                let CellStart { cell, run, .. } = first.cell_starts[i];
                let (timings, starts): (Vec<RankTiming>, Vec<u64>) = ranks
                    .iter()
                    .zip(times)
                    .enumerate()
                    .map(|(k, (r, t))| {
                        let time = t.get(i)?;
                        let operations = r
                            .cells
                            .iter()
                            .filter(|c| c.cell == cell)
                            .flat_map(|c| &c.measurements)
                            .filter(|m| m.run == run)
                            .map(|m| m.records)
                            .sum();
                        let timing = RankTiming {
                            client: r.client.clone(),
                            start_offset_ns: None,
                            elapsed_ns: time.elapsed_ns,
                            operations,
                            stop_reached_after_ns: None,
                            clock: clocks.get(k).copied().unwrap_or(ClockOffset::UNKNOWN),
                        };
                        Some((timing, time.start_ns))
                    })
                    .collect::<Option<Vec<_>>>()?
                    .into_iter()
                    .unzip();
                Some(CellSkew {
                    cell,
                    run,
                    skew: RankSkew::new(timings, &starts),
                })
            })
            .collect()
    }
}
