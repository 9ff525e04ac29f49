//! The metadata benchmarks' runner (`ioz fileop`, `ioz mdtest`): the tree
//! made in a new directory of ioz's own under `-d` (`-d` itself made first
//! when it is missing, and removed after when ioz made it), the operations
//! timed one by one with the peer's calls on the peer's kind of paths
//! ([`calls`], [`names`]), fileop's tests ([`fileop`]) or mdtest's phases
//! ([`mdtest`]), then the whole tree removed — at the end, after a failure
//! and after a stop. A second Ctrl-C removes it from the signal handler
//! (system::tree).
//!
//! The walks stay inside ioz's tree: in a private view of it where no
//! link is followed and no foreign mount shows (system::private_view),
//! else guarded call by call (calls.rs's `Walk`), which the run says.
//!
//! Across the ranks of an MPI job a [`Meeting`] brings the ranks together:
//! rank 0 makes the tree's directory and the others join it; each phase
//! starts at a barrier and its end is agreed; rank 0 removes the tree once
//! every rank is done.

mod fileop;
mod mdtest;

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::data::names::{Names, Paths};
use crate::engine::clock::{OpClock, Tsc};
use crate::engine::metadata::Walk;
use crate::error::{IoFailure, RunError};
use crate::model::metadata::MetadataConfig;
use crate::model::metadata_result::{FsUsage, MetadataResult, WalkKind};
use crate::runner::recipe::MetadataRecipe;
use crate::runner::{Event, Outcome};
use crate::system::file_warden;
use crate::system::private_view::PrivateView;
use crate::system::remount::{Cycle, Remounter};
use crate::system::signals::StopFlag;
use crate::system::tree::{MadeDir, TreeRoot};

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
    pub recipe: MetadataRecipe<'a>,
    pub stop: &'a StopFlag,
    pub clock: OpClock,
    pub tree: TreeRoot,
    pub meeting: Option<&'a dyn Meeting>,
    remount: Option<&'a mut Remounter>,
    /// How the walks are kept in the tree (see calls.rs).
    pub walk: Walk,
    /// The private view, while it is there.
    view: Option<PrivateView>,
    /// A guarded walk's base: the tree's directory, held.
    base: Option<OwnedFd>,
    /// Every whole path's start: `-d` as given, the tree's name, a slash.
    pub prefix: Vec<u8>,
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

    /// A failed call on `path` (a whole path, or a name in the working
    /// directory), as the run's error; a walk that met a link or a mount
    /// says so.
    pub fn failure(&self, operation: &'static str, path: &str, e: nix::errno::Errno) -> Halt {
        let source = match e {
            nix::errno::Errno::ELOOP | nix::errno::Errno::EXDEV => std::io::Error::other(format!(
                "{} in ioz's tree was replaced by a {} while the run went on; it was not followed",
                if e == nix::errno::Errno::ELOOP {
                    "a directory or file"
                } else {
                    "a directory"
                },
                if e == nix::errno::Errno::ELOOP {
                    "symbolic link"
                } else {
                    "mount of another file system"
                }
            )),
            e => e.into(),
        };
        Halt::Failed(RunError::Io(IoFailure {
            operation,
            path: path.into(),
            offset: None,
            pass: None,
            source,
        }))
    }

    /// That the tree's path still leads to ioz's directory (a process that
    /// moved it, or `-d`, elsewhere would lead every whole path away).
    pub fn still_ours(&self) -> Result<(), Halt> {
        if self.walk != Walk::Whole {
            return Ok(());
        }
        let path = self.whole_path();
        match nix::sys::stat::lstat(path.as_path()) {
            Ok(st) if (st.st_dev, st.st_ino) == self.tree.identity() => Ok(()),
            Ok(_) => Err(Halt::Failed(RunError::Io(IoFailure {
                operation: "find the tree at",
                path,
                offset: None,
                pass: None,
                source: std::io::Error::other(
                    "it is no longer the directory ioz made (moved or replaced while the run went on)",
                ),
            }))),
            Err(e) => Err(Halt::Failed(RunError::Io(IoFailure {
                operation: "find the tree at",
                path,
                offset: None,
                pass: None,
                source: e.into(),
            }))),
        }
    }

    /// The tree's directory as every whole path names it.
    fn whole_path(&self) -> std::path::PathBuf {
        let bytes = &self.prefix[..self.prefix.len().saturating_sub(1)];
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }

    /// A directory `name` made in the tree's directory (untimed setup:
    /// mdtest's -u, a rank's own directory for fileop).
    pub fn mkdir_under(&self, name: &str) -> Result<(), Halt> {
        let mut dirs = Names::default();
        dirs.push(".");
        let mut p = Paths::new(&self.prefix, std::rc::Rc::new(dirs), 1);
        p.push(0, |b| b.extend_from_slice(name.as_bytes()));
        self.walk
            .mkdir(&p, 0, 0o755)
            .map_err(|e| self.failure("mkdir", &p.shown(0), e))
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
    /// The private view is left first (its copy of the mount would keep
    /// the file system, and its caches, alive) and made again after.
    pub fn remount(&mut self) -> Result<(), Halt> {
        let Some(r) = self.remount.as_deref_mut() else {
            return Ok(());
        };
        let viewed = self
            .view
            .take()
            .map(|v| v.leave_releasing(r.mount_point()))
            .is_some();
        let cycled = match r.cycle(self.stop) {
            Ok(Cycle::Remounted) => Ok(()),
            Ok(Cycle::Interrupted(sig)) => Err(Halt::Stopped(sig)),
            Err(e) => Err(Halt::Failed(RunError::Io(e))),
        };
        if viewed {
            self.view = Some(PrivateView::enter(&self.tree.path()).map_err(|e| {
                Halt::Failed(RunError::Io(IoFailure {
                    operation: "view the tree again after -U in",
                    path: self.tree.path(),
                    offset: None,
                    pass: None,
                    source: std::io::Error::other(e.to_string()),
                }))
            })?);
        }
        cycled
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
    recipe: MetadataRecipe<'_>,
    stop: &StopFlag,
    remount: Option<&mut Remounter>,
    meeting: Option<&dyn Meeting>,
    mut on_event: impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Outcome {
    let metadata = recipe.benchmark;
    let fs = fs_usage(metadata);
    let (tree, made_dir) = match make_tree(metadata, meeting) {
        Ok(made) => made,
        Err(e) => return Outcome::ended(Vec::new(), Vec::new(), None, Some(e), Vec::new()),
    };
    let rank = meeting.map_or(0, |m| m.rank());
    if rank == 0 {
        tree.remove_on_emergency();
        // A rank killed outright (mpirun's SIGKILL after its SIGTERM) runs
        // no handler: its file warden removes the tree then.
        file_warden::tell_tree(&tree.path(), Some(tree.identity()));
    }
    let prefix = whole_prefix(metadata.dir(), tree.name());
    let mut bench = Bench {
        recipe,
        stop,
        clock: op_clock(),
        tree,
        meeting,
        remount,
        walk: Walk::Whole,
        view: None,
        base: None,
        prefix,
    };
    let mut measurements = Vec::new();
    let end = bench.choose_walk().and_then(|()| match metadata {
        MetadataConfig::Fileop(f) => fileop::run(&mut bench, f, &mut measurements, &mut on_event),
        MetadataConfig::Mdtest(m) => mdtest::run(&mut bench, m, &mut measurements, &mut on_event),
    });
    // Every rank is done with the tree before rank 0 removes it, from the
    // machine's view (in the private one its directory is a mount point).
    let met = bench.meet();
    if let Some(view) = bench.view.take() {
        let _ = view.leave();
    }
    bench.base = None;
    let mut left = Vec::new();
    if rank == 0 {
        let path = bench.tree.path();
        match bench.tree.remove() {
            Ok(foreign) if foreign.is_empty() => {
                file_warden::tell_tree(&path, None);
                if let Some(made) = &made_dir {
                    left.extend(remove_made_dir(made));
                }
            }
            Ok(foreign) => left.extend(foreign.into_iter().map(|f| IoFailure {
                operation: "remove",
                path: f.path,
                offset: None,
                pass: None,
                source: std::io::Error::other(f.why),
            })),
            Err(source) => left.push(IoFailure {
                operation: "remove",
                path,
                offset: None,
                pass: None,
                source,
            }),
        }
    }
    let (signal, error) = match (end, met) {
        (Err(Halt::Failed(e)), _) | (_, Err(Halt::Failed(e))) => (None, Some(e)),
        (Err(Halt::Stopped(sig)), _) | (_, Err(Halt::Stopped(sig))) => (Some(sig), None),
        (Ok(()), Ok(())) => (None, None),
    };
    let mut outcome = Outcome::ended(Vec::new(), Vec::new(), signal, error, left);
    outcome.metadata = Some(MetadataResult {
        measurements,
        // Named by the caller (the environment's host; across ranks,
        // rank 0 gathers every rank's).
        hosts: Vec::new(),
        fs,
        ranks: Vec::new(),
        walk: Some(bench.walk_kind()),
    });
    outcome
}

impl Bench<'_> {
    /// The private view of the tree when it can be made, else guarded
    /// walks from the tree's directory, held.
    fn choose_walk(&mut self) -> Result<(), Halt> {
        match PrivateView::enter(&self.tree.path()) {
            Ok(view) => {
                self.view = Some(view);
                self.walk = Walk::Whole;
            }
            Err(_) => {
                // fileop's chdir then moves this thread's working
                // directory alone, not the other threads'.
                // SAFETY: unshare takes flags only; CLONE_FS needs no privilege.
                unsafe { libc::unshare(libc::CLONE_FS) };
                let base = self.open_tree()?;
                self.walk = Walk::Guarded {
                    base: base.as_raw_fd(),
                };
                self.base = Some(base);
            }
        }
        Ok(())
    }

    /// How the walks were kept in the tree, as the result records it.
    fn walk_kind(&self) -> WalkKind {
        match self.walk {
            Walk::Whole => WalkKind::PrivateView,
            Walk::Guarded { .. } => WalkKind::Guarded,
        }
    }
}

/// The outcome of a run that is no metadata benchmark (a caller's mistake).
#[cfg(feature = "mpi")]
pub(crate) fn not_a_benchmark() -> Outcome {
    Outcome::ended(
        Vec::new(),
        Vec::new(),
        None,
        Some(RunError::Refused("not a metadata benchmark".into())),
        Vec::new(),
    )
}

/// The per-operation clock of a run: the TSC (calibrated once, about
/// 20 ms) where it is the clocksource, else CLOCK_MONOTONIC.
fn op_clock() -> OpClock {
    OpClock(
        crate::system::time::tsc_is_the_clocksource()
            .then(Tsc::calibrate)
            .flatten(),
    )
}

/// `-d` as the user gave it, then the tree's name and a slash: how every
/// whole path begins (mdtest's `DIR/test-dir.0-0/…`).
fn whole_prefix(dir: &Path, tree: &str) -> Vec<u8> {
    let mut p = dir.as_os_str().as_bytes().to_vec();
    while p.len() > 1 && p.ends_with(b"/") {
        p.pop();
    }
    if !p.ends_with(b"/") {
        p.push(b'/');
    }
    p.extend_from_slice(tree.as_bytes());
    p.push(b'/');
    p
}

/// `-d` removed after the run when ioz made it (mdtest's way), if nothing
/// else was put in it meanwhile: then it is left, and said.
fn remove_made_dir(made: &MadeDir) -> Option<IoFailure> {
    made.remove_if_empty().err().map(|source| IoFailure {
        operation: "remove",
        path: made.path(),
        offset: None,
        pass: None,
        source,
    })
}

/// The tree's directory: made here (rank 0's, across ranks, which the
/// others then join), and `-d` first when it is missing (mdtest's way).
fn make_tree(
    metadata: &MetadataConfig,
    meeting: Option<&dyn Meeting>,
) -> Result<(TreeRoot, Option<MadeDir>), RunError> {
    let dir = metadata.dir();
    let failed = |operation: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| {
            RunError::Io(IoFailure {
                operation,
                path,
                offset: None,
                pass: None,
                source,
            })
        }
    };
    let made = |dir: &Path| -> Result<(TreeRoot, Option<MadeDir>), RunError> {
        let made_dir = match std::fs::symlink_metadata(dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && metadata.makes_its_dir() => {
                Some(MadeDir::make(dir).map_err(failed("make the directory", dir))?)
            }
            _ => None,
        };
        match TreeRoot::make(dir, metadata.root_prefix()) {
            Ok(tree) => Ok((tree, made_dir)),
            Err(e) => {
                if let Some(made) = &made_dir {
                    let _ = made.remove_if_empty();
                }
                Err(failed("make a new directory in", dir)(e))
            }
        }
    };
    let Some(m) = meeting else {
        return made(dir);
    };
    let mine = (m.rank() == 0).then(|| made(dir));
    let name = m.rank_0_s_tree(match &mine {
        Some(Ok((tree, _))) => Ok(tree.name().to_string()),
        Some(Err(e)) => Err(e.to_string()),
        None => Ok(String::new()),
    })?;
    match mine {
        Some(tree) => tree,
        None => TreeRoot::join(dir, &name)
            .map(|t| (t, None))
            .map_err(failed("open rank 0's tree", &dir.join(&name))),
    }
}

/// The file system of `-d` as the run begins (mdtest's `FS` line): its
/// parent's when ioz is to make it.
fn fs_usage(metadata: &MetadataConfig) -> Option<FsUsage> {
    let dir = metadata.dir().as_path();
    let st = nix::sys::statvfs::statvfs(dir)
        .or_else(|_| {
            nix::sys::statvfs::statvfs(
                dir.parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new(".")),
            )
        })
        .ok()?;
    let block = st.fragment_size();
    let bytes = st.blocks().saturating_mul(block);
    Some(FsUsage {
        bytes,
        used_bytes: bytes.saturating_sub(st.blocks_free().saturating_mul(block)),
        inodes: st.files(),
        used_inodes: st.files().saturating_sub(st.files_free()),
    })
}
