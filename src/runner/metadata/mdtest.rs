//! mdtest's phases, iteration by iteration: tree creation; directory
//! creation, stat, rename and removal; file creation (written, synced),
//! stat, read and removal; tree removal. Each phase starts at a barrier
//! (across ranks) and is timed from it to this rank's end; its rate is the
//! items of every rank over the slowest rank's time. Each item's call is
//! also timed alone, for its latency. The names are made before the first
//! phase: item i of rank r is `file.mdtest.r.i` (or `dir.mdtest.r.i`) in
//! directory i / per-directory of the tree, the tree's directories
//! `mdtest_tree.k` nested as a tree of branching b (breadth-first numbers).

use std::ffi::CStr;
use std::os::fd::{AsRawFd, RawFd};

use super::calls::{self, timed};
use super::names::Names;
use super::{Bench, Halt};
use crate::engine::clock::now_ns;
use crate::error::RunError;
use crate::model::histogram::LatencyHistogram;
use crate::model::metadata::{MdtestConfig, MdtestTree, MetaOp, PhaseSelection};
use crate::model::metadata_result::MetaMeasurement;
use crate::runner::Event;

/// The names every phase works on, made once.
struct Plan {
    /// This rank builds and removes the tree (its own with -u; rank 0's
    /// shared one otherwise).
    builds_tree: bool,
    tree_dirs: Names,
    own_dirs: Names,
    renamed_dirs: Names,
    their_dirs: Names,
    own_files: Names,
    their_files: Names,
}

/// `rank.<r>/` with -u, else nothing: where rank r's tree is.
fn prefix(m: &MdtestConfig, rank: u32) -> String {
    if m.unique_dir {
        format!("rank.{rank}/")
    } else {
        String::new()
    }
}

/// The path of tree directory `index` under `prefix`.
fn tree_path(tree: MdtestTree, prefix: &str, index: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(prefix.as_bytes());
    for (n, k) in tree.path_of(index).into_iter().enumerate() {
        if n > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(format!("mdtest_tree.{k}").as_bytes());
    }
}

impl Plan {
    fn new(m: &MdtestConfig, rank: u32, ranks: u32) -> Plan {
        let tree = MdtestTree::of(m);
        let dirs = tree.dirs().unwrap_or(1);
        let per_dir = tree.per_dir(m).max(1);
        let items = tree.items_per_rank(m);
        let builds_tree = m.unique_dir || rank == 0;
        let neighbour = (rank + m.stride % ranks.max(1)) % ranks.max(1);
        let mut tree_dirs = Names::default();
        if builds_tree {
            let own = prefix(m, rank);
            for d in 0..dirs {
                tree_dirs.push_with(|b| tree_path(tree, &own, d, b));
            }
        }
        let list = |wanted: bool, kind: &str, owner: u32, suffix: &str| {
            let mut names = Names::default();
            if !wanted {
                return names;
            }
            let pre = prefix(m, owner);
            names = Names::with_capacity(items as usize, items as usize * (pre.len() + 48));
            for i in 0..items {
                names.push_with(|b| {
                    tree_path(tree, &pre, tree.item_dir(i / per_dir), b);
                    b.extend_from_slice(format!("/{kind}.mdtest.{owner}.{i}{suffix}").as_bytes());
                });
            }
            names
        };
        let renames = m.directories && m.phases == PhaseSelection::ALL;
        Plan {
            builds_tree,
            tree_dirs,
            own_dirs: list(m.directories, "dir", rank, ""),
            renamed_dirs: list(renames, "dir", rank, ".renamed"),
            their_dirs: list(m.directories && m.phases.stat, "dir", neighbour, ""),
            own_files: list(m.files, "file", rank, ""),
            their_files: list(
                m.files && (m.phases.stat || m.phases.read),
                "file",
                neighbour,
                "",
            ),
        }
    }
}

/// What the file phases write and read, made once.
struct Buffers {
    data: Vec<u8>,
    read: Vec<u8>,
}

/// Runs every iteration of `m`; each iteration's measurements go to `out`
/// and, on one machine, to `on_event` once it is over.
pub(super) fn run(
    bench: &mut Bench<'_>,
    m: &MdtestConfig,
    out: &mut Vec<MetaMeasurement>,
    on_event: &mut impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Result<(), Halt> {
    let plan = Plan::new(m, bench.rank(), bench.ranks());
    let mut h = LatencyHistogram::new();
    let mut buffers = Buffers {
        data: vec![0xA5; m.write_bytes as usize],
        read: vec![0; m.read_bytes as usize],
    };
    // -u: each rank's working directory, made once, untimed.
    let setup = if m.unique_dir {
        let name = prefix(m, bench.rank());
        let name = name.trim_end_matches('/');
        let c = std::ffi::CString::new(name).unwrap_or_default();
        bench.open_tree().and_then(|t| {
            calls::mkdir(t.as_raw_fd(), &c).map_err(|e| bench.failure("mkdir", name, e))
        })
    } else {
        Ok(())
    };
    bench.agree(setup)?;
    for run in 0..bench.config.runs {
        let mut measured = Vec::new();
        let done = iteration(bench, m, &plan, run, &mut h, &mut measured, &mut buffers);
        if bench.ranks() == 1 && !measured.is_empty() {
            on_event(Event::MetadataDone(&measured)).map_err(Halt::Failed)?;
        }
        out.extend(measured);
        done?;
    }
    Ok(())
}

/// One iteration's phases, each measured one kept in `out`.
fn iteration(
    bench: &Bench<'_>,
    m: &MdtestConfig,
    plan: &Plan,
    run: u32,
    h: &mut LatencyHistogram,
    out: &mut Vec<MetaMeasurement>,
    buffers: &mut Buffers,
) -> Result<(), Halt> {
    let clock = bench.clock;
    let mut phase = Phase { bench, run, h, out };
    let tree_dirs = if plan.builds_tree {
        plan.tree_dirs.len()
    } else {
        0
    };
    phase.each(
        MetaOp::TreeCreation,
        true,
        tree_dirs,
        "mkdir",
        |fd, i, h| {
            timed(&clock, h, || calls::mkdir(fd, plan.tree_dirs.get(i)))
                .map_err(|e| (e, plan.tree_dirs.shown(i)))
        },
    )?;
    let p = m.phases;
    if m.directories {
        let n = plan.own_dirs.len();
        phase.each(
            MetaOp::DirectoryCreation,
            p.create,
            n,
            "mkdir",
            |fd, i, h| {
                timed(&clock, h, || calls::mkdir(fd, plan.own_dirs.get(i)))
                    .map_err(|e| (e, plan.own_dirs.shown(i)))
            },
        )?;
        if p.stat {
            stat_phase(&mut phase, MetaOp::DirectoryStat, &plan.their_dirs, n)?;
        }
        let removed = if plan.renamed_dirs.len() == n && n > 0 {
            phase.each(MetaOp::DirectoryRename, true, n, "rename", |fd, i, h| {
                timed(&clock, h, || {
                    calls::rename(fd, plan.own_dirs.get(i), plan.renamed_dirs.get(i))
                })
                .map_err(|e| (e, plan.own_dirs.shown(i)))
            })?;
            &plan.renamed_dirs
        } else {
            &plan.own_dirs
        };
        phase.each(
            MetaOp::DirectoryRemoval,
            p.remove,
            n,
            "rmdir",
            |fd, i, h| {
                timed(&clock, h, || calls::rmdir(fd, removed.get(i)))
                    .map_err(|e| (e, removed.shown(i)))
            },
        )?;
    }
    if m.files {
        let made = create_phase(&mut phase, m, plan, &buffers.data)?;
        if p.stat {
            stat_phase(&mut phase, MetaOp::FileStat, &plan.their_files, made)?;
        }
        if p.read {
            let their = &plan.their_files;
            let buf = &mut buffers.read;
            phase.each(MetaOp::FileRead, true, made, "read", |fd, i, h| {
                timed(&clock, h, || {
                    let f = calls::open_read(fd, their.get(i))?;
                    let read = if buf.is_empty() {
                        Ok(())
                    } else {
                        calls::read_up_to(f, buf)
                    };
                    read.and(calls::close(f))
                })
                .map_err(|e| (e, their.shown(i)))
            })?;
        }
        let own = &plan.own_files;
        phase.each(MetaOp::FileRemoval, p.remove, made, "unlink", |fd, i, h| {
            timed(&clock, h, || calls::unlink(fd, own.get(i))).map_err(|e| (e, own.shown(i)))
        })?;
    }
    phase.each(MetaOp::TreeRemoval, true, tree_dirs, "rmdir", |fd, i, h| {
        // The deepest first.
        let at = tree_dirs - 1 - i;
        timed(&clock, h, || calls::rmdir(fd, plan.tree_dirs.get(at)))
            .map_err(|e| (e, plan.tree_dirs.shown(at)))
    })
}

/// stat of the first `n` items of `names` (another rank's with -N).
fn stat_phase(phase: &mut Phase<'_, '_>, op: MetaOp, names: &Names, n: usize) -> Result<(), Halt> {
    let clock = phase.bench.clock;
    // SAFETY: an all-zero stat is a valid value for fstatat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    phase.each(op, true, n.min(names.len()), "stat", |fd, i, h| {
        timed(&clock, h, || calls::stat(fd, names.get(i), &mut st)).map_err(|e| (e, names.shown(i)))
    })
}

/// File creation: each file created (a new one), written, synced with -y
/// and closed, timed as one item. With -W the creation stops after that
/// many seconds, then every rank creates up to the most any rank created
/// (wear-out); returns how many files each rank made.
fn create_phase(
    phase: &mut Phase<'_, '_>,
    m: &MdtestConfig,
    plan: &Plan,
    data: &[u8],
) -> Result<usize, Halt> {
    let bench = phase.bench;
    let clock = bench.clock;
    let own = &plan.own_files;
    let total = own.len();
    let deadline_ns = m.stonewall_seconds.saturating_mul(1_000_000_000);
    let stonewall = deadline_ns > 0 && m.phases.create;
    let create = |fd: RawFd, name: &CStr| -> Result<(), nix::errno::Errno> {
        let f = calls::create(fd, name)?;
        let written = if data.is_empty() {
            Ok(())
        } else {
            calls::write_all(f, data)
        };
        let synced = if m.sync {
            written.and(calls::fsync(f))
        } else {
            written
        };
        synced.and(calls::close(f))
    };
    let mut made = 0;
    phase.timed_phase(MetaOp::FileCreation, m.phases.create, |fd, h, t0| {
        let first = (|| {
            while made < total {
                bench.stopped()?;
                if stonewall && made % 16 == 0 && now_ns().saturating_sub(t0) >= deadline_ns {
                    break;
                }
                timed(&clock, h, || create(fd, own.get(made)))
                    .map_err(|e| bench.failure("create", &own.shown(made), e))?;
                made += 1;
            }
            Ok(())
        })();
        if !stonewall {
            return first;
        }
        // Collective whatever happened here: the others wait for it.
        let most = match bench.meeting {
            Some(meeting) => meeting
                .most(if first.is_ok() { made as u64 } else { 0 })
                .map_err(Halt::Failed)?,
            None => made as u64,
        };
        first?;
        while (made as u64) < most && made < total {
            bench.stopped()?;
            timed(&clock, h, || create(fd, own.get(made)))
                .map_err(|e| bench.failure("create", &own.shown(made), e))?;
            made += 1;
        }
        Ok(())
    })?;
    Ok(made)
}

/// A phase of one iteration: its barrier, its time, its end agreed, its
/// measurement kept when it is measured.
struct Phase<'b, 'o> {
    bench: &'b Bench<'b>,
    run: u32,
    h: &'o mut LatencyHistogram,
    out: &'o mut Vec<MetaMeasurement>,
}

impl Phase<'_, '_> {
    /// Runs `body` (on the tree's descriptor, the histogram and the
    /// phase's start) between a barrier and the agreement on its end;
    /// keeps its measurement when `measured`.
    fn timed_phase(
        &mut self,
        op: MetaOp,
        measured: bool,
        body: impl FnOnce(RawFd, &mut LatencyHistogram, u64) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        // Whatever fails here, this rank still meets the others and
        // agrees on the end: they would wait for it otherwise.
        let tree = self.bench.open_tree();
        self.h.clear();
        self.bench.meet()?;
        let t0 = now_ns();
        let end = tree.and_then(|tree| body(tree.as_raw_fd(), self.h, t0));
        let elapsed = now_ns().saturating_sub(t0);
        self.bench.agree(end)?;
        if measured {
            self.out
                .push(MetaMeasurement::new(op, 0, self.run, elapsed, self.h));
        }
        Ok(())
    }

    /// A phase of `n` items, item `i` done (and timed) by `item`, which
    /// names the item that failed; `call` names its system call.
    fn each(
        &mut self,
        op: MetaOp,
        measured: bool,
        n: usize,
        call: &'static str,
        mut item: impl FnMut(
            RawFd,
            usize,
            &mut LatencyHistogram,
        ) -> Result<(), (nix::errno::Errno, String)>,
    ) -> Result<(), Halt> {
        let bench = self.bench;
        self.timed_phase(op, measured, |fd, h, _| {
            for i in 0..n {
                bench.stopped()?;
                item(fd, i, h).map_err(|(e, name)| bench.failure(call, &name, e))?;
            }
            Ok(())
        })
    }
}
