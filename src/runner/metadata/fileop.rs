//! fileop's tests, for each force factor X in turn: the directory test
//! (mkdir, chdir, rmdir of X + X² + X³ directories), then the file test on
//! X³ files in X² directories (create, write, close; stat; open, read;
//! access; chmod; readdir of each directory; link, unlink; delete). Each
//! operation is timed alone; the directory descriptors it works in are
//! opened before it, untimed, so each timed call looks up one name. An
//! operation's rate is its count over the sum of its operations' times.

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::calls::{self, timed};
use super::names::Names;
use super::{Bench, Halt};
use crate::error::RunError;
use crate::model::histogram::LatencyHistogram;
use crate::model::metadata::{FILEOP_COLUMNS, FileopConfig, MetaOp};
use crate::model::metadata_result::MetaMeasurement;
use crate::runner::Event;

/// The names of one force factor's tree, made before its first test.
struct Tree {
    x: usize,
    dirs: Names,
    sdirs: Names,
    files: Names,
    links: Names,
    /// Across ranks, this rank's directory in the tree (`rank.3/`).
    prefix: String,
}

impl Tree {
    fn new(x: u32, prefix: String) -> Tree {
        let x = x as usize;
        let list = |stem: &str| {
            let mut n = Names::with_capacity(x, x * (stem.len() + 5));
            for i in 1..=x {
                n.push(&format!("{stem}_{i}"));
            }
            n
        };
        Tree {
            x,
            dirs: list("dir"),
            sdirs: list("sdir"),
            files: list("file"),
            links: list("link"),
            prefix,
        }
    }

    /// A path for a message: `dir_1/sdir_2/file_3`.
    fn path(&self, i: usize, j: Option<usize>, last: Option<&Names>, k: usize) -> String {
        let mut p = format!("{}{}", self.prefix, self.dirs.shown(i));
        if let Some(j) = j {
            p.push('/');
            p.push_str(&self.sdirs.shown(j));
        }
        if let Some(names) = last {
            p.push('/');
            p.push_str(&names.shown(k));
        }
        p
    }
}

/// What the tests write and read, made once.
struct Buffers {
    data: Vec<u8>,
    read: Vec<u8>,
    dirents: Vec<u8>,
}

/// Runs every force factor of `f`, every run; each factor's measurements
/// go to `out` and, on one machine, to `on_event` as soon as measured.
pub(super) fn run(
    bench: &mut Bench<'_>,
    f: &FileopConfig,
    out: &mut Vec<MetaMeasurement>,
    on_event: &mut impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Result<(), Halt> {
    let prefix = own_directory(bench)?;
    let size = f.file_bytes as usize;
    let mut buffers = Buffers {
        data: vec![0xA5; size],
        read: vec![0; size],
        dirents: vec![0; 32 << 10],
    };
    let mut h: Vec<LatencyHistogram> = FILEOP_COLUMNS
        .iter()
        .map(|_| LatencyHistogram::new())
        .collect();
    for run in 0..bench.config.runs {
        for &x in &f.factors {
            let tree = Tree::new(x, prefix.clone());
            for one in h.iter_mut() {
                one.clear();
            }
            bench.meet()?;
            let end = one_factor(bench, &tree, &mut h, &mut buffers);
            bench.agree(end)?;
            let measured: Vec<MetaMeasurement> = FILEOP_COLUMNS
                .iter()
                .map(|&op| MetaMeasurement::of_operations(op, x, run, &h[op as usize]))
                .collect();
            if bench.ranks() == 1 {
                on_event(Event::MetadataDone(&measured)).map_err(Halt::Failed)?;
            }
            out.extend(measured);
        }
    }
    Ok(())
}

/// Across ranks, each rank's own directory in the tree (`rank.<r>/`,
/// made now); on one machine the tree itself.
fn own_directory(bench: &Bench<'_>) -> Result<String, Halt> {
    if bench.ranks() == 1 {
        return Ok(String::new());
    }
    let name = format!("rank.{}", bench.rank());
    let tree = bench.open_tree()?;
    let c = std::ffi::CString::new(name.clone()).unwrap_or_default();
    calls::mkdir(tree.as_raw_fd(), &c).map_err(|e| bench.failure("mkdir", &name, e))?;
    Ok(format!("{name}/"))
}

/// The directory the tests work in, opened now (after a remount, the file
/// system's new mount).
fn base(bench: &Bench<'_>, tree: &Tree) -> Result<OwnedFd, Halt> {
    let top = bench.open_tree()?;
    if tree.prefix.is_empty() {
        return Ok(top);
    }
    let name = tree.prefix.trim_end_matches('/');
    let c = std::ffi::CString::new(name).unwrap_or_default();
    open(bench, top.as_raw_fd(), &c, name)
}

fn open(bench: &Bench<'_>, dir: RawFd, name: &CStr, shown: &str) -> Result<OwnedFd, Halt> {
    let fd = calls::open_dir(dir, name).map_err(|e| bench.failure("open", shown, e))?;
    // SAFETY: a descriptor just opened, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// One force factor: every test, each after -U's remount when asked.
fn one_factor(
    bench: &mut Bench<'_>,
    tree: &Tree,
    h: &mut [LatencyHistogram],
    buffers: &mut Buffers,
) -> Result<(), Halt> {
    bench.remount()?;
    mkdir_test(bench, tree, &mut h[MetaOp::Mkdir as usize])?;
    bench.remount()?;
    chdir_test(bench, tree, &mut h[MetaOp::Chdir as usize])?;
    bench.remount()?;
    rmdir_test(bench, tree, &mut h[MetaOp::Rmdir as usize])?;
    file_directories(bench, tree, true)?;
    bench.remount()?;
    create_test(bench, tree, h, &buffers.data)?;
    let per_file: [(MetaOp, &'static str); 3] = [
        (MetaOp::Stat, "stat"),
        (MetaOp::Access, "access"),
        (MetaOp::Chmod, "chmod"),
    ];
    bench.remount()?;
    per_file_test(bench, tree, per_file[0], &mut h[MetaOp::Stat as usize])?;
    bench.remount()?;
    read_test(bench, tree, h, &mut buffers.read)?;
    for one in &per_file[1..] {
        bench.remount()?;
        per_file_test(bench, tree, *one, &mut h[one.0 as usize])?;
    }
    bench.remount()?;
    readdir_test(
        bench,
        tree,
        &mut h[MetaOp::Readdir as usize],
        &mut buffers.dirents,
    )?;
    for one in [
        (MetaOp::Link, "link"),
        (MetaOp::Unlink, "unlink"),
        (MetaOp::Delete, "unlink"),
    ] {
        bench.remount()?;
        per_file_test(bench, tree, one, &mut h[one.0 as usize])?;
    }
    file_directories(bench, tree, false)
}

/// mkdir of dir_i, dir_i/sdir_j and dir_i/sdir_j/file_k (a directory here).
fn mkdir_test(bench: &Bench<'_>, tree: &Tree, h: &mut LatencyHistogram) -> Result<(), Halt> {
    let base = base(bench, tree)?;
    let clock = bench.clock;
    for i in 0..tree.x {
        bench.stopped()?;
        let name = tree.dirs.get(i);
        timed(&clock, h, || calls::mkdir(base.as_raw_fd(), name))
            .map_err(|e| bench.failure("mkdir", &tree.path(i, None, None, 0), e))?;
        let d = open(bench, base.as_raw_fd(), name, &tree.path(i, None, None, 0))?;
        for j in 0..tree.x {
            bench.stopped()?;
            let name = tree.sdirs.get(j);
            let shown = || tree.path(i, Some(j), None, 0);
            timed(&clock, h, || calls::mkdir(d.as_raw_fd(), name))
                .map_err(|e| bench.failure("mkdir", &shown(), e))?;
            let s = open(bench, d.as_raw_fd(), name, &shown())?;
            for k in 0..tree.x {
                bench.stopped()?;
                let name = tree.files.get(k);
                timed(&clock, h, || calls::mkdir(s.as_raw_fd(), name)).map_err(|e| {
                    bench.failure("mkdir", &tree.path(i, Some(j), Some(&tree.files), k), e)
                })?;
            }
        }
    }
    Ok(())
}

/// chdir into every directory of the test, down from the tree by one name
/// at a time (back up with chdir(".."), untimed); the working directory
/// is the run's again afterwards, whatever happened.
fn chdir_test(bench: &Bench<'_>, tree: &Tree, h: &mut LatencyHistogram) -> Result<(), Halt> {
    let here = c".";
    let up = c"..";
    // SAFETY: a NUL-terminated path; O_PATH opens any directory we are in.
    let saved = unsafe {
        libc::open(
            here.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if saved < 0 {
        return Err(Halt::Failed(RunError::Io(crate::error::IoFailure {
            operation: "open the working directory",
            path: ".".into(),
            offset: None,
            pass: None,
            source: std::io::Error::last_os_error(),
        })));
    }
    // SAFETY: a descriptor just opened, owned by nothing else.
    let saved = unsafe { OwnedFd::from_raw_fd(saved) };
    let base = base(bench, tree)?;
    let clock = bench.clock;
    let mut walk = || -> Result<(), Halt> {
        calls::fchdir(base.as_raw_fd()).map_err(|e| bench.failure("chdir", "", e))?;
        for i in 0..tree.x {
            bench.stopped()?;
            timed(&clock, h, || calls::chdir(tree.dirs.get(i)))
                .map_err(|e| bench.failure("chdir", &tree.path(i, None, None, 0), e))?;
            for j in 0..tree.x {
                bench.stopped()?;
                timed(&clock, h, || calls::chdir(tree.sdirs.get(j)))
                    .map_err(|e| bench.failure("chdir", &tree.path(i, Some(j), None, 0), e))?;
                for k in 0..tree.x {
                    bench.stopped()?;
                    let shown = || tree.path(i, Some(j), Some(&tree.files), k);
                    timed(&clock, h, || calls::chdir(tree.files.get(k)))
                        .map_err(|e| bench.failure("chdir", &shown(), e))?;
                    calls::chdir(up).map_err(|e| bench.failure("chdir ..", &shown(), e))?;
                }
                calls::chdir(up)
                    .map_err(|e| bench.failure("chdir ..", &tree.path(i, Some(j), None, 0), e))?;
            }
            calls::chdir(up)
                .map_err(|e| bench.failure("chdir ..", &tree.path(i, None, None, 0), e))?;
        }
        Ok(())
    };
    let walked = walk();
    let back = calls::fchdir(saved.as_raw_fd());
    walked?;
    back.map_err(|e| bench.failure("return to the working directory from", "", e))
}

/// rmdir of every directory of the test, the deepest first.
fn rmdir_test(bench: &Bench<'_>, tree: &Tree, h: &mut LatencyHistogram) -> Result<(), Halt> {
    let base = base(bench, tree)?;
    let clock = bench.clock;
    for i in 0..tree.x {
        let shown_i = tree.path(i, None, None, 0);
        let d = open(bench, base.as_raw_fd(), tree.dirs.get(i), &shown_i)?;
        for j in 0..tree.x {
            let shown_j = tree.path(i, Some(j), None, 0);
            let s = open(bench, d.as_raw_fd(), tree.sdirs.get(j), &shown_j)?;
            for k in 0..tree.x {
                bench.stopped()?;
                timed(&clock, h, || calls::rmdir(s.as_raw_fd(), tree.files.get(k))).map_err(
                    |e| bench.failure("rmdir", &tree.path(i, Some(j), Some(&tree.files), k), e),
                )?;
            }
            drop(s);
            bench.stopped()?;
            timed(&clock, h, || calls::rmdir(d.as_raw_fd(), tree.sdirs.get(j)))
                .map_err(|e| bench.failure("rmdir", &shown_j, e))?;
        }
        drop(d);
        bench.stopped()?;
        timed(&clock, h, || {
            calls::rmdir(base.as_raw_fd(), tree.dirs.get(i))
        })
        .map_err(|e| bench.failure("rmdir", &shown_i, e))?;
    }
    Ok(())
}

/// The file test's directories (dir_i/sdir_j), made or removed, untimed.
fn file_directories(bench: &Bench<'_>, tree: &Tree, make: bool) -> Result<(), Halt> {
    let base = base(bench, tree)?;
    for i in 0..tree.x {
        let shown_i = tree.path(i, None, None, 0);
        if make {
            calls::mkdir(base.as_raw_fd(), tree.dirs.get(i))
                .map_err(|e| bench.failure("mkdir", &shown_i, e))?;
        }
        let d = open(bench, base.as_raw_fd(), tree.dirs.get(i), &shown_i)?;
        for j in 0..tree.x {
            let call = if make { calls::mkdir } else { calls::rmdir };
            call(d.as_raw_fd(), tree.sdirs.get(j)).map_err(|e| {
                bench.failure(
                    if make { "mkdir" } else { "rmdir" },
                    &tree.path(i, Some(j), None, 0),
                    e,
                )
            })?;
        }
        drop(d);
        if !make {
            calls::rmdir(base.as_raw_fd(), tree.dirs.get(i))
                .map_err(|e| bench.failure("rmdir", &shown_i, e))?;
        }
    }
    Ok(())
}

/// `body` on each of the X² directories of the file test (its descriptor
/// opened untimed), with the directory's place (i, j).
fn each_directory(
    bench: &Bench<'_>,
    tree: &Tree,
    mut body: impl FnMut(RawFd, usize, usize) -> Result<(), Halt>,
) -> Result<(), Halt> {
    let base = base(bench, tree)?;
    for i in 0..tree.x {
        let d = open(
            bench,
            base.as_raw_fd(),
            tree.dirs.get(i),
            &tree.path(i, None, None, 0),
        )?;
        for j in 0..tree.x {
            let s = open(
                bench,
                d.as_raw_fd(),
                tree.sdirs.get(j),
                &tree.path(i, Some(j), None, 0),
            )?;
            body(s.as_raw_fd(), i, j)?;
        }
    }
    Ok(())
}

/// Each file created (a new file: O_EXCL), written, closed: three
/// operations, each timed.
fn create_test(
    bench: &Bench<'_>,
    tree: &Tree,
    h: &mut [LatencyHistogram],
    data: &[u8],
) -> Result<(), Halt> {
    let clock = bench.clock;
    let [create, write, close] = three(h, [MetaOp::Create, MetaOp::Write, MetaOp::Close]);
    each_directory(bench, tree, |s, i, j| {
        for k in 0..tree.x {
            bench.stopped()?;
            let shown = || tree.path(i, Some(j), Some(&tree.files), k);
            let fd = timed(&clock, create, || calls::create(s, tree.files.get(k)))
                .map_err(|e| bench.failure("create", &shown(), e))?;
            let written = timed(&clock, write, || calls::write_all(fd, data));
            let closed = timed(&clock, close, || calls::close(fd));
            written.map_err(|e| bench.failure("write", &shown(), e))?;
            closed.map_err(|e| bench.failure("close", &shown(), e))?;
        }
        Ok(())
    })
}

/// Each file opened and read (two operations, each timed), then closed,
/// untimed.
fn read_test(
    bench: &Bench<'_>,
    tree: &Tree,
    h: &mut [LatencyHistogram],
    buf: &mut [u8],
) -> Result<(), Halt> {
    let clock = bench.clock;
    let [open_h, read_h, _] = three(h, [MetaOp::Open, MetaOp::Read, MetaOp::Close]);
    each_directory(bench, tree, |s, i, j| {
        for k in 0..tree.x {
            bench.stopped()?;
            let shown = || tree.path(i, Some(j), Some(&tree.files), k);
            let fd = timed(&clock, open_h, || calls::open_read(s, tree.files.get(k)))
                .map_err(|e| bench.failure("open", &shown(), e))?;
            let read = timed(&clock, read_h, || calls::read_up_to(fd, buf));
            let _ = calls::close(fd);
            read.map_err(|e| bench.failure("read", &shown(), e))?;
        }
        Ok(())
    })
}

/// One call per file: stat, access, chmod, link, unlink (of the link),
/// delete (of the file).
fn per_file_test(
    bench: &Bench<'_>,
    tree: &Tree,
    (op, call): (MetaOp, &'static str),
    h: &mut LatencyHistogram,
) -> Result<(), Halt> {
    let clock = bench.clock;
    // SAFETY: an all-zero stat is a valid value for fstatat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    each_directory(bench, tree, |s, i, j| {
        for k in 0..tree.x {
            bench.stopped()?;
            let file = tree.files.get(k);
            let link = tree.links.get(k);
            let done = match op {
                MetaOp::Stat => timed(&clock, h, || calls::stat(s, file, &mut st)),
                MetaOp::Access => timed(&clock, h, || calls::access(s, file)),
                MetaOp::Chmod => timed(&clock, h, || calls::chmod(s, file, 0o600)),
                MetaOp::Link => timed(&clock, h, || calls::link(s, file, link)),
                MetaOp::Unlink => timed(&clock, h, || calls::unlink(s, link)),
                _ => timed(&clock, h, || calls::unlink(s, file)),
            };
            let names = if op == MetaOp::Unlink {
                &tree.links
            } else {
                &tree.files
            };
            done.map_err(|e| bench.failure(call, &tree.path(i, Some(j), Some(names), k), e))?;
        }
        Ok(())
    })
}

/// Each of the X² directories read whole: opened, read to its end,
/// closed, timed as one operation.
fn readdir_test(
    bench: &Bench<'_>,
    tree: &Tree,
    h: &mut LatencyHistogram,
    buf: &mut [u8],
) -> Result<(), Halt> {
    let clock = bench.clock;
    each_directory(bench, tree, |s, i, j| {
        bench.stopped()?;
        let done = timed(&clock, h, || {
            let fd = calls::open_dir(s, c".")?;
            let read = calls::read_dir(fd, buf);
            let closed = calls::close(fd);
            read.and(closed)
        });
        done.map_err(|e| bench.failure("readdir", &tree.path(i, Some(j), None, 0), e))
    })
}

/// Three operations' histograms at once.
fn three(h: &mut [LatencyHistogram], ops: [MetaOp; 3]) -> [&mut LatencyHistogram; 3] {
    let [a, b, c] = ops.map(|op| op as usize);
    let [x, y, z] = h
        .get_disjoint_mut([a, b, c])
        .expect("three distinct operations of fileop");
    [x, y, z]
}
