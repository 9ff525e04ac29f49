//! The metadata benchmarks' runner (`ioz fileop`, `ioz mdtest`): the tree
//! made in a new directory of ioz's own under `-d`, the operations timed
//! one by one on names made before the clock ([`calls`], [`names`]),
//! fileop's tests ([`fileop`]) or mdtest's phases ([`mdtest`]), then the
//! whole tree removed — at the end, after a failure and after a stop. A
//! second Ctrl-C removes it from the signal handler (system::tree).
//!
//! Across the ranks of an MPI job a [`Meeting`] brings the ranks together:
//! rank 0 makes the tree's directory and the others join it; each phase
//! starts at a barrier and its end is agreed; rank 0 removes the tree once
//! every rank is done.

mod calls;
mod fileop;
mod mdtest;
mod names;

use std::os::fd::OwnedFd;

use crate::engine::clock::OpClock;
use crate::error::{IoFailure, RunError};
use crate::model::config::RunConfig;
use crate::model::metadata::MetadataConfig;
use crate::model::metadata_result::{FsUsage, MetadataResult};
use crate::runner::{Event, Outcome};
use crate::system::file_warden;
use crate::system::remount::{Cycle, Remounter};
use crate::system::signals::StopFlag;
use crate::system::tree::TreeRoot;

/// What the ranks of a job do together around a metadata benchmark's
/// phases (the MPI job's, app/cluster/metadata.rs). Every call is
/// collective: every rank makes it, in the same order.
pub(crate) trait Meeting {
    fn rank(&self) -> u32;
    fn ranks(&self) -> u32;
    /// A barrier.
    fn meet(&self) -> Result<(), RunError>;
    /// Every rank's end of a step: the first failure is every rank's,
    /// else a stop on any rank stops them all.
    fn agree_on_stop(&self, end: Result<Option<i32>, RunError>) -> Result<Option<i32>, RunError>;
    /// The largest of every rank's `mine` (mdtest's stonewall: the most
    /// files any rank created).
    fn most(&self, mine: u64) -> Result<u64, RunError>;
    /// Rank 0's tree (its name in `-d`, or why it could not be made), for
    /// every rank.
    fn rank_0_s_tree(&self, mine: Result<String, String>) -> Result<String, RunError>;
}

/// Why a benchmark stopped before its end.
#[derive(Debug)]
pub(crate) enum Halt {
    Stopped(i32),
    Failed(RunError),
}

impl From<RunError> for Halt {
    fn from(e: RunError) -> Halt {
        Halt::Failed(e)
    }
}

/// What a benchmark works with: its tree, clocks, histograms and the other
/// ranks, made before its first phase.
pub(crate) struct Bench<'a> {
    pub config: &'a RunConfig,
    pub stop: &'a StopFlag,
    pub clock: OpClock,
    pub tree: TreeRoot,
    pub meeting: Option<&'a dyn Meeting>,
    remount: Option<&'a mut Remounter>,
}

impl Bench<'_> {
    pub fn rank(&self) -> u32 {
        self.meeting.map_or(0, |m| m.rank())
    }

    pub fn ranks(&self) -> u32 {
        self.meeting.map_or(1, |m| m.ranks())
    }

    /// The tree's directory, checked to be ioz's still.
    pub fn open_tree(&self) -> Result<OwnedFd, Halt> {
        self.tree.open().map_err(|e| {
            Halt::Failed(RunError::Io(IoFailure {
                operation: "open the tree",
                path: self.tree.path(),
                offset: None,
                pass: None,
                source: e,
            }))
        })
    }

    /// A failed call on `relative` (a path in the tree), as the run's error.
    pub fn failure(&self, operation: &'static str, relative: &str, e: nix::errno::Errno) -> Halt {
        Halt::Failed(RunError::Io(IoFailure {
            operation,
            path: self.tree.path().join(relative),
            offset: None,
            pass: None,
            source: e.into(),
        }))
    }

    /// The stop signal received, if any (polled between operations).
    #[inline(always)]
    pub fn stopped(&self) -> Result<(), Halt> {
        match self.stop.word().load(std::sync::atomic::Ordering::Relaxed) {
            0 => Ok(()),
            sig => Err(Halt::Stopped(sig as i32)),
        }
    }

    /// `-U`: the file system unmounted and mounted back before a test.
    pub fn remount(&mut self) -> Result<(), Halt> {
        let Some(r) = self.remount.as_deref_mut() else {
            return Ok(());
        };
        match r.cycle(self.stop) {
            Ok(Cycle::Remounted) => Ok(()),
            Ok(Cycle::Interrupted(sig)) => Err(Halt::Stopped(sig)),
            Err(e) => Err(Halt::Failed(RunError::Io(e))),
        }
    }

    /// A barrier with the other ranks (nothing on one machine).
    pub fn meet(&self) -> Result<(), Halt> {
        match self.meeting {
            Some(m) => m.meet().map_err(Halt::Failed),
            None => Ok(()),
        }
    }

    /// A step's end agreed with every rank.
    pub fn agree(&self, end: Result<(), Halt>) -> Result<(), Halt> {
        let Some(m) = self.meeting else {
            return end;
        };
        let local = match end {
            Ok(()) => Ok(None),
            Err(Halt::Stopped(sig)) => Ok(Some(sig)),
            Err(Halt::Failed(e)) => Err(e),
        };
        match m.agree_on_stop(local) {
            Ok(None) => Ok(()),
            Ok(Some(sig)) => Err(Halt::Stopped(sig)),
            Err(e) => Err(Halt::Failed(e)),
        }
    }
}

/// Measures the metadata benchmark of `config`: its tree made, its tests
/// or phases run (with `meeting`, together with the other ranks; with
/// `remount`, -U before each test), the tree removed. Every force factor
/// (or iteration) goes to `on_event` once measured.
pub(crate) fn measure(
    config: &RunConfig,
    stop: &StopFlag,
    remount: Option<&mut Remounter>,
    meeting: Option<&dyn Meeting>,
    mut on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    let Some(metadata) = &config.metadata else {
        return Outcome::ended(
            Vec::new(),
            Vec::new(),
            None,
            Some(RunError::Refused("not a metadata benchmark".into())),
            Vec::new(),
        );
    };
    let fs = fs_usage(metadata);
    let tree = match make_tree(metadata, meeting) {
        Ok(tree) => tree,
        Err(e) => return Outcome::ended(Vec::new(), Vec::new(), None, Some(e), Vec::new()),
    };
    let rank = meeting.map_or(0, |m| m.rank());
    if rank == 0 {
        tree.remove_on_emergency();
        // A rank killed outright (mpirun's SIGKILL after its SIGTERM) runs
        // no handler: its file warden removes the tree then.
        file_warden::tell_tree(&tree.path(), Some(tree.identity()));
    }
    let mut bench = Bench {
        config,
        stop,
        clock: calls::op_clock(),
        tree,
        meeting,
        remount,
    };
    let mut measurements = Vec::new();
    let end = match metadata {
        MetadataConfig::Fileop(f) => fileop::run(&mut bench, f, &mut measurements, &mut on_event),
        MetadataConfig::Mdtest(m) => mdtest::run(&mut bench, m, &mut measurements, &mut on_event),
    };
    // Every rank is done with the tree before rank 0 removes it.
    let met = bench.meet();
    let left = if rank == 0 {
        let removed = bench.tree.remove();
        if removed.is_ok() {
            file_warden::tell_tree(&bench.tree.path(), None);
        }
        removed.err().map(|source| IoFailure {
            operation: "remove",
            path: bench.tree.path(),
            offset: None,
            pass: None,
            source,
        })
    } else {
        None
    };
    let (signal, error) = match (end, met) {
        (Err(Halt::Failed(e)), _) | (_, Err(Halt::Failed(e))) => (None, Some(e)),
        (Err(Halt::Stopped(sig)), _) | (_, Err(Halt::Stopped(sig))) => (Some(sig), None),
        (Ok(()), Ok(())) => (None, None),
    };
    let mut outcome = Outcome::ended(
        Vec::new(),
        Vec::new(),
        signal,
        error,
        left.into_iter().collect(),
    );
    outcome.metadata = Some(MetadataResult {
        measurements,
        // Named by the caller (the environment's host; across ranks,
        // rank 0 gathers every rank's).
        hosts: Vec::new(),
        fs,
        ranks: Vec::new(),
    });
    outcome
}

/// The tree's directory: made here (rank 0's, across ranks, which the
/// others then join).
fn make_tree(
    metadata: &MetadataConfig,
    meeting: Option<&dyn Meeting>,
) -> Result<TreeRoot, RunError> {
    let dir = metadata.dir();
    let made = |dir: &std::path::Path| {
        TreeRoot::make(dir, metadata.root_prefix()).map_err(|e| {
            RunError::Io(IoFailure {
                operation: "make a new directory in",
                path: dir.to_path_buf(),
                offset: None,
                pass: None,
                source: e,
            })
        })
    };
    let Some(m) = meeting else {
        return made(dir);
    };
    let mine = (m.rank() == 0).then(|| made(dir));
    let name = m.rank_0_s_tree(match &mine {
        Some(Ok(tree)) => Ok(tree.name().to_string()),
        Some(Err(e)) => Err(e.to_string()),
        None => Ok(String::new()),
    })?;
    match mine {
        Some(tree) => tree,
        None => TreeRoot::join(dir, &name).map_err(|e| {
            RunError::Io(IoFailure {
                operation: "open rank 0's tree",
                path: dir.join(&name),
                offset: None,
                pass: None,
                source: e,
            })
        }),
    }
}

/// The file system of `-d` as the run begins (mdtest's `FS` line).
fn fs_usage(metadata: &MetadataConfig) -> Option<FsUsage> {
    let st = nix::sys::statvfs::statvfs(metadata.dir().as_path()).ok()?;
    let block = st.fragment_size();
    let bytes = st.blocks().saturating_mul(block);
    Some(FsUsage {
        bytes,
        used_bytes: bytes.saturating_sub(st.blocks_free().saturating_mul(block)),
        inodes: st.files(),
        used_inodes: st.files().saturating_sub(st.files_free()),
    })
}
