//! mdtest's phases, iteration by iteration, with mdtest's calls
//! (reference/mdtest/strace-n12-z1-b2.txt): tree creation (mkdir of each
//! `mdtest_tree.k`); directory creation (mkdir), stat (stat), rename (a
//! rotation: item 0 aside as `…-XX`, item i to item i−1's name, item 0 to
//! item n−2's) and removal (rmdir); file creation (open with O_CREAT, the
//! `-w` bytes written, fsync with `-y`, close), stat, read (open, the `-e`
//! bytes read, close) and removal (unlink); tree removal (rmdir, children
//! first). Every item is named by its whole path from `-d`
//! (`DIR/<tree>/mdtest_tree.0/file.mdtest.0.3`), so that each call walks
//! every component as mdtest's does; the walk is kept inside ioz's tree
//! by calls.rs's `Walk`.
//!
//! Each phase starts at a barrier and ends at the next collective, and its
//! time runs between the two on each rank: rank 0's is the phase's time,
//! which mdtest divides every rank's items by (model/metadata_result.rs).
//! Each item's call is also timed alone, for its latency. The names are
//! made before the first phase: item i of rank r is `file.mdtest.r.i` (or
//! `dir.mdtest.r.i`) in directory i / per-directory of the tree, the
//! tree's directories `mdtest_tree.k` nested as a tree of branching b
//! (breadth-first numbers).

use std::rc::Rc;

use super::{Bench, Halt};
use crate::data::names::{Names, Paths};
use crate::engine::clock::now_ns;
use crate::engine::metadata::{self as calls, timed};
use crate::error::RunError;
use crate::model::histogram::LatencyHistogram;
use crate::model::metadata::{MdtestConfig, MdtestTree, MetaOp, PhaseSelection};
use crate::model::metadata_result::MetaMeasurement;
use crate::runner::Event;

/// mdtest's modes: 0775 for directories, 0664 for files.
const DIR_MODE: libc::mode_t = 0o775;
const FILE_MODE: libc::mode_t = 0o664;

/// The paths every phase works on, made once.
struct Plan {
    /// This rank builds and removes the tree (its own with -u; rank 0's
    /// shared one otherwise): the tree's directories, in the order they
    /// are made (each after the one that holds it).
    tree_dirs: Option<Paths>,
    /// The order they are removed in: each after the directories it holds.
    removal_order: Vec<usize>,
    own_dirs: Option<Paths>,
    /// Item 0's name aside while the rotation goes round.
    aside: Option<Paths>,
    their_dirs: Option<Paths>,
    own_files: Option<Paths>,
    their_files: Option<Paths>,
}

/// `rank.<r>` with -u (each rank's own tree there), else the tree's own
/// directory.
fn owner_root(m: &MdtestConfig, owner: u32) -> Option<String> {
    m.unique_dir.then(|| format!("rank.{owner}"))
}

/// The directories of `owner`'s tree under the tree's directory,
/// breadth-first, each as a path (`rank.1/mdtest_tree.0/mdtest_tree.2`).
fn tree_dirs(tree: MdtestTree, root: Option<&str>, count: u64) -> Vec<String> {
    (0..count)
        .map(|d| {
            let mut p = root.map(|r| format!("{r}/")).unwrap_or_default();
            for (n, k) in tree.path_of(d).into_iter().enumerate() {
                if n > 0 {
                    p.push('/');
                }
                p.push_str(&format!("mdtest_tree.{k}"));
            }
            p
        })
        .collect()
}

/// Pre-order (each directory, then what it holds) and post-order (what it
/// holds, then it) of a tree of `count` directories of branching `b`.
fn orders(count: u64, b: u64) -> (Vec<usize>, Vec<usize>) {
    fn walk(at: u64, count: u64, b: u64, pre: &mut Vec<usize>, post: &mut Vec<usize>) {
        pre.push(at as usize);
        for c in 1..=b {
            let child = at * b + c;
            if child < count {
                walk(child, count, b, pre, post);
            }
        }
        post.push(at as usize);
    }
    let (mut pre, mut post) = (Vec::new(), Vec::new());
    if count > 0 {
        walk(0, count, b.max(1), &mut pre, &mut post);
    }
    (pre, post)
}

impl Plan {
    fn new(m: &MdtestConfig, rank: u32, ranks: u32, prefix: &[u8]) -> Plan {
        let tree = MdtestTree::of(m);
        let count = tree.dirs().unwrap_or(1);
        let per_dir = tree.per_dir(m).max(1);
        let items = tree.items_per_rank(m);
        let builds_tree = m.unique_dir || rank == 0;
        let neighbour = (rank + m.stride % ranks.max(1)) % ranks.max(1);
        // The directories any path of this rank's lies in: the tree's own
        // (`.`), then each owner's root (-u) and tree.
        let owners: Vec<u32> = if m.unique_dir {
            let mut o = vec![rank, neighbour];
            o.dedup();
            o
        } else {
            vec![0]
        };
        let mut dirs = Names::default();
        dirs.push(".");
        // Per owner: the index of its root (`.` or `rank.r`) and of its
        // tree's first directory in `dirs`.
        let mut blocks = Vec::new();
        for &o in &owners {
            let root = owner_root(m, o);
            let root_index = match &root {
                Some(r) => {
                    dirs.push(r);
                    dirs.len() - 1
                }
                None => 0,
            };
            let first = dirs.len();
            for d in tree_dirs(tree, root.as_deref(), count) {
                dirs.push(&d);
            }
            blocks.push((o, root_index, first));
        }
        let dirs = Rc::new(dirs);
        let block = |owner: u32| {
            blocks
                .iter()
                .find(|(o, _, _)| *o == owner || !m.unique_dir)
                .map(|&(_, root, first)| (root, first))
                .unwrap_or((0, 1))
        };
        let (pre, post) = orders(count, m.branch as u64);
        let tree_paths = builds_tree.then(|| {
            let (root, first) = block(rank);
            let mut p = Paths::new(prefix, dirs.clone(), count as usize);
            for &d in &pre {
                let parent = if d == 0 {
                    root
                } else {
                    first + (d - 1) / m.branch.max(1) as usize
                };
                p.push(parent, |b| {
                    b.extend_from_slice(format!("mdtest_tree.{d}").as_bytes())
                });
            }
            p
        });
        // Removal: post-order, as positions in the creation's list.
        let position: Vec<usize> = {
            let mut at = vec![0; count as usize];
            for (i, &d) in pre.iter().enumerate() {
                at[d] = i;
            }
            post.iter().map(|&d| at[d]).collect()
        };
        let list = |wanted: bool, kind: &str, owner: u32, suffix: &str, n: u64| {
            wanted.then(|| {
                let (_, first) = block(owner);
                let mut p = Paths::new(prefix, dirs.clone(), n as usize);
                for i in 0..n {
                    let dir = first + tree.item_dir(i / per_dir) as usize;
                    p.push(dir, |b| {
                        b.extend_from_slice(format!("{kind}.mdtest.{owner}.{i}{suffix}").as_bytes())
                    });
                }
                p
            })
        };
        let renames = m.directories && m.phases == PhaseSelection::ALL && items > 0;
        Plan {
            tree_dirs: tree_paths,
            removal_order: position,
            own_dirs: list(m.directories, "dir", rank, "", items),
            aside: list(renames, "dir", rank, "-XX", 1),
            their_dirs: list(m.directories && m.phases.stat, "dir", neighbour, "", items),
            own_files: list(m.files, "file", rank, "", items),
            their_files: list(
                m.files && (m.phases.stat || m.phases.read),
                "file",
                neighbour,
                "",
                items,
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
    let plan = Plan::new(m, bench.rank(), bench.ranks(), &bench.prefix);
    let mut h = LatencyHistogram::new();
    let mut buffers = Buffers {
        data: vec![0xA5; m.write_bytes as usize],
        read: vec![0; m.read_bytes as usize],
    };
    // -u: each rank's working directory, made once, untimed.
    let setup = match owner_root(m, bench.rank()) {
        Some(name) => bench.mkdir_under(&name),
        None => Ok(()),
    };
    bench.agree(setup)?;
    for run in 0..bench.recipe.runs {
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
    let walk = bench.walk;
    let mut phase = Phase { bench, run, h, out };
    let none = Paths::new(b"", Rc::new(Names::default()), 0);
    let tree = plan.tree_dirs.as_ref().unwrap_or(&none);
    phase.each(MetaOp::TreeCreation, true, tree, "mkdir", |p, i, h| {
        timed(&clock, h, || walk.mkdir(p, i, DIR_MODE))
    })?;
    let p = m.phases;
    if let Some(own) = &plan.own_dirs {
        phase.each(
            MetaOp::DirectoryCreation,
            p.create,
            own,
            "mkdir",
            |p, i, h| timed(&clock, h, || walk.mkdir(p, i, DIR_MODE)),
        )?;
        if let Some(their) = plan.their_dirs.as_ref().filter(|_| p.stat) {
            stat_phase(&mut phase, MetaOp::DirectoryStat, their, own.len())?;
        }
        if let Some(aside) = &plan.aside {
            rename_phase(&mut phase, own, aside)?;
        }
        phase.each(
            MetaOp::DirectoryRemoval,
            p.remove,
            own,
            "rmdir",
            |p, i, h| timed(&clock, h, || walk.rmdir(p, i)),
        )?;
    }
    if let Some(own) = &plan.own_files {
        let made = create_phase(&mut phase, m, own, &buffers.data)?;
        if let Some(their) = plan.their_files.as_ref() {
            if p.stat {
                stat_phase(&mut phase, MetaOp::FileStat, their, made)?;
            }
            if p.read {
                let buf = &mut buffers.read;
                phase.first(MetaOp::FileRead, true, their, made, "open", |p, i, h| {
                    timed(&clock, h, || {
                        let f = walk.open(p, i, libc::O_RDWR, 0)?;
                        let read = if buf.is_empty() {
                            Ok(())
                        } else {
                            calls::read_up_to(f, buf)
                        };
                        read.and(calls::close(f))
                    })
                })?;
            }
        }
        phase.first(
            MetaOp::FileRemoval,
            p.remove,
            own,
            made,
            "unlink",
            |p, i, h| timed(&clock, h, || walk.unlink(p, i)),
        )?;
    }
    let order = &plan.removal_order;
    phase.timed_phase(MetaOp::TreeRemoval, true, |h, _| {
        for &at in order.iter().take(tree.len()) {
            bench.stopped()?;
            timed(&clock, h, || walk.rmdir(tree, at))
                .map_err(|e| bench.failure("rmdir", &tree.shown(at), e))?;
        }
        Ok(())
    })
}

/// stat of the first `n` items of `paths` (another rank's with -N).
fn stat_phase(phase: &mut Phase<'_, '_>, op: MetaOp, paths: &Paths, n: usize) -> Result<(), Halt> {
    let clock = phase.bench.clock;
    let walk = phase.bench.walk;
    // SAFETY: an all-zero stat is a valid value for stat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    phase.first(op, true, paths, n, "stat", |p, i, h| {
        timed(&clock, h, || walk.stat(p, i, &mut st))
    })
}

/// mdtest's directory rename: item 0 renamed aside, each item i from 1 to
/// n−2 renamed to item i−1's name, the one aside to item n−2's: n renames
/// (two for one item), after which every item's name is there again.
fn rename_phase(phase: &mut Phase<'_, '_>, own: &Paths, aside: &Paths) -> Result<(), Halt> {
    let bench = phase.bench;
    let clock = bench.clock;
    let walk = bench.walk;
    let n = own.len();
    phase.timed_phase(MetaOp::DirectoryRename, true, |h, _| {
        let step = |h: &mut LatencyHistogram, from: (&Paths, usize), to: (&Paths, usize)| {
            bench.stopped()?;
            timed(&clock, h, || walk.rename(from.0, from.1, to.0, to.1))
                .map_err(|e| bench.failure("rename", &from.0.shown(from.1), e))
        };
        step(h, (own, 0), (aside, 0))?;
        for i in 1..n.saturating_sub(1) {
            step(h, (own, i), (own, i - 1))?;
        }
        step(h, (aside, 0), (own, n.saturating_sub(2)))
    })
}

/// File creation: each file created (a new one), written, synced with -y
/// and closed, timed as one item. With -W the creation stops after that
/// many seconds, then every rank creates up to the most any rank created
/// (wear-out); returns how many files each rank made.
fn create_phase(
    phase: &mut Phase<'_, '_>,
    m: &MdtestConfig,
    own: &Paths,
    data: &[u8],
) -> Result<usize, Halt> {
    let bench = phase.bench;
    let clock = bench.clock;
    let walk = bench.walk;
    let total = own.len();
    let deadline_ns = m.stonewall_seconds.saturating_mul(1_000_000_000);
    let stonewall = deadline_ns > 0 && m.phases.create;
    let create = |i: usize| -> Result<(), nix::errno::Errno> {
        let f = walk.open(own, i, libc::O_RDWR | libc::O_CREAT, FILE_MODE)?;
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
    phase.timed_phase(MetaOp::FileCreation, m.phases.create, |h, t0| {
        let first = (|| {
            while made < total {
                bench.stopped()?;
                if stonewall && made % 16 == 0 && now_ns().saturating_sub(t0) >= deadline_ns {
                    break;
                }
                timed(&clock, h, || create(made))
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
            timed(&clock, h, || create(made))
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
    /// Runs `body` (on the histogram and the phase's start) between a
    /// barrier and the agreement on its end, which every rank reaches
    /// (mdtest's closing barrier); keeps its measurement when `measured`:
    /// the time from the barrier to the agreement, and this rank's own
    /// (to its last item). Then, after its time, that the tree is still
    /// ioz's.
    fn timed_phase(
        &mut self,
        op: MetaOp,
        measured: bool,
        body: impl FnOnce(&mut LatencyHistogram, u64) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        self.h.clear();
        self.bench.meet()?;
        let t0 = now_ns();
        let end = body(self.h, t0);
        let busy = now_ns().saturating_sub(t0);
        self.bench.agree(end)?;
        let elapsed = now_ns().saturating_sub(t0);
        if measured {
            let mut m = MetaMeasurement::new(op, 0, self.run, elapsed, self.h);
            m.busy_ns = busy;
            self.out.push(m);
        }
        // Outside the phase's time, agreed as its end is.
        self.bench.agree(self.bench.still_ours())
    }

    /// A phase over the first `n` items of `paths`, item `i` done (and
    /// timed) by `item`; `call` names its system call in a failure.
    fn first(
        &mut self,
        op: MetaOp,
        measured: bool,
        paths: &Paths,
        n: usize,
        call: &'static str,
        mut item: impl FnMut(&Paths, usize, &mut LatencyHistogram) -> Result<(), nix::errno::Errno>,
    ) -> Result<(), Halt> {
        let bench = self.bench;
        self.timed_phase(op, measured, |h, _| {
            for i in 0..n.min(paths.len()) {
                bench.stopped()?;
                item(paths, i, h).map_err(|e| bench.failure(call, &paths.shown(i), e))?;
            }
            Ok(())
        })
    }

    /// A phase over every item of `paths`.
    fn each(
        &mut self,
        op: MetaOp,
        measured: bool,
        paths: &Paths,
        call: &'static str,
        item: impl FnMut(&Paths, usize, &mut LatencyHistogram) -> Result<(), nix::errno::Errno>,
    ) -> Result<(), Halt> {
        self.first(op, measured, paths, paths.len(), call, item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_are_made_parents_first_and_removed_children_first() {
        // -z 1 -b 2 (the reference trace): made 0, 1, 2; removed 1, 2, 0.
        assert_eq!(orders(3, 2), (vec![0, 1, 2], vec![1, 2, 0]));
        // -z 2 -b 2: 0 1 3 4 2 5 6, removed 3 4 1 5 6 2 0.
        assert_eq!(
            orders(7, 2),
            (vec![0, 1, 3, 4, 2, 5, 6], vec![3, 4, 1, 5, 6, 2, 0])
        );
        assert_eq!(orders(3, 1), (vec![0, 1, 2], vec![2, 1, 0]));
    }
}
