//! fileop's tests, for each force factor X in turn, with fileop's calls in
//! fileop's order (reference/fileop/strace-f2.txt): it works in its tree
//! by `chdir` into each directory and names one entry at a time.
//!
//! - The directory test: mkdir of `fileop_L1_i`, in it of `fileop_L1_i_L2_j`,
//!   in that of `fileop_dir_i_j_k` (X + X² + X³ directories), entering each
//!   one it made; then chdir into each of them (and back up); then rmdir of
//!   each, the deepest first (each entered and left before it goes).
//! - The file test on X³ files `fileop_file_i_j_k` in the X² directories
//!   `fileop_L1_i/fileop_L1_i_L2_j` (made as the create test goes): create,
//!   write, fsync (untimed: later tests find clean files, as fileop's do),
//!   close; stat; open and read (then close, untimed); access; chmod;
//!   readdir of each directory (opendir, one readdir, closedir); link to
//!   `…L`, unlink of the link; delete of the file (each directory removed,
//!   untimed, once its files are gone).
//!
//! Each operation is timed alone (one clock read before its call and one
//! after); an operation's rate is its count over the sum of its times.
//! The names are written between operations, outside every clock.

use super::{Bench, Halt};
use crate::data::names::Name;
use crate::engine::metadata::{self as calls, Cwd, Here, timed};
use crate::error::RunError;
use crate::model::histogram::LatencyHistogram;
use crate::model::metadata::{FILEOP_COLUMNS, FileopConfig, MetaOp};
use crate::model::metadata_result::MetaMeasurement;
use crate::runner::Event;

/// Modes: fileop asks 0777 for directories and 0602 for files and chmods
/// them to 0666; ioz makes nothing others may write (the calls cost the
/// same whatever the bits).
const DIR_MODE: libc::mode_t = 0o755;
const FILE_MODE: libc::mode_t = 0o600;
const CHMOD_MODE: libc::mode_t = 0o644;

/// The words of fileop's names, between the numbers i, j, k.
const L1: [&str; 1] = ["fileop_L1_"];
const L2: [&str; 2] = ["fileop_L1_", "_L2_"];
const LEAF: [&str; 3] = ["fileop_dir_", "_", "_"];
const FILE: [&str; 3] = ["fileop_file_", "_", "_"];

/// What the tests write and read, made once.
struct Buffers {
    data: Vec<u8>,
    read: Vec<u8>,
}

/// Runs every force factor of `f`, every run; each factor's measurements
/// go to `out` and, on one machine, to `on_event` as soon as measured.
pub(super) fn run(
    bench: &mut Bench<'_>,
    f: &FileopConfig,
    out: &mut Vec<MetaMeasurement>,
    on_event: &mut impl FnMut(Event<'_>) -> Result<(), RunError>,
) -> Result<(), Halt> {
    // Across ranks, each rank's own directory in the tree, made now.
    let own = (bench.ranks() > 1).then(|| format!("rank.{}", bench.rank()));
    if let Some(name) = &own {
        bench.mkdir_under(name)?;
    }
    let size = f.file_bytes as usize;
    let mut buffers = Buffers {
        data: vec![0xA5; size],
        read: vec![0; size],
    };
    let mut h: Vec<LatencyHistogram> = FILEOP_COLUMNS
        .iter()
        .map(|_| LatencyHistogram::new())
        .collect();
    for run in 0..bench.recipe.runs {
        for &x in &f.factors {
            for one in h.iter_mut() {
                one.clear();
            }
            bench.meet()?;
            let end = one_factor(bench, own.as_deref(), x as usize, &mut h, &mut buffers);
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

/// A test's walk of the tree: the working directory at its start (the
/// tree's, or the rank's own in it), the calls, where a failure names.
struct Walker<'b, 'c> {
    bench: &'b Bench<'c>,
    cwd: Cwd,
    here: Here,
    name: Name,
    /// The directories entered, for a failure's message.
    at: Vec<String>,
}

impl<'b, 'c> Walker<'b, 'c> {
    /// At the tree's directory (after a remount, the new mount's), in the
    /// rank's own directory when there is one.
    fn start(bench: &'b Bench<'c>, own: Option<&str>) -> Result<Walker<'b, 'c>, Halt> {
        let base = bench.open_tree()?;
        let guarded = bench.walk != calls::Walk::Whole;
        let path = bench.tree.path().display().to_string();
        let cwd = Cwd::at(std::os::fd::AsRawFd::as_raw_fd(&base), guarded)
            .map_err(|e| bench.failure("chdir", &path, e))?;
        let mut w = Walker {
            bench,
            cwd,
            here: Here { guarded },
            name: Name::new(),
            at: vec![path],
        };
        if let Some(own) = own {
            let c = std::ffi::CString::new(own).unwrap_or_default();
            w.cwd.down(&c).map_err(|e| w.failed("chdir", own, e))?;
            w.at.push(own.to_string());
        }
        Ok(w)
    }

    /// The failure of `call` on `name` in the working directory.
    fn failed(&self, call: &'static str, name: &str, e: nix::errno::Errno) -> Halt {
        let mut path = self.at.join("/");
        if !name.is_empty() {
            path.push('/');
            path.push_str(name);
        }
        self.bench.failure(call, &path, e)
    }

    /// Into `words`/`numbers`' directory; `h` times the chdir when given.
    fn down(
        &mut self,
        words: &[&str],
        numbers: &[usize],
        h: Option<&mut LatencyHistogram>,
    ) -> Result<(), Halt> {
        self.bench.stopped()?;
        let clock = self.bench.clock;
        let name = self.name.set(words, numbers, "");
        let cwd = &mut self.cwd;
        let done = match h {
            Some(h) => timed(&clock, h, || cwd.down(name)),
            None => cwd.down(name),
        };
        let shown = name.to_string_lossy().into_owned();
        done.map_err(|e| self.failed("chdir", &shown, e))?;
        self.at.push(shown);
        Ok(())
    }

    fn up(&mut self) -> Result<(), Halt> {
        let done = self.cwd.up();
        done.map_err(|e| self.failed("chdir", "..", e))?;
        self.at.pop();
        Ok(())
    }

    /// `call` (timed into `h`) on the name of `words`/`numbers` (+ `tail`)
    /// in the working directory.
    fn on(
        &mut self,
        what: &'static str,
        words: &[&str],
        numbers: &[usize],
        tail: &str,
        h: &mut LatencyHistogram,
        call: impl FnOnce(Here, &std::ffi::CStr) -> Result<(), nix::errno::Errno>,
    ) -> Result<(), Halt> {
        self.bench.stopped()?;
        let clock = self.bench.clock;
        let here = self.here;
        let name = self.name.set(words, numbers, tail);
        let done = timed(&clock, h, || call(here, name));
        if let Err(e) = done {
            let shown = name.to_string_lossy().into_owned();
            return Err(self.failed(what, &shown, e));
        }
        Ok(())
    }

    /// An untimed call on a name (the file test's directories).
    fn untimed(
        &mut self,
        what: &'static str,
        words: &[&str],
        numbers: &[usize],
        call: impl FnOnce(Here, &std::ffi::CStr) -> Result<(), nix::errno::Errno>,
    ) -> Result<(), Halt> {
        let here = self.here;
        let name = self.name.set(words, numbers, "");
        if let Err(e) = call(here, name) {
            let shown = name.to_string_lossy().into_owned();
            return Err(self.failed(what, &shown, e));
        }
        Ok(())
    }

    /// `body` in each of the file test's X² directories, entered in turn.
    fn each_directory(
        &mut self,
        x: usize,
        mut body: impl FnMut(&mut Self, usize, usize) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        for i in 0..x {
            self.down(&L1, &[i], None)?;
            for j in 0..x {
                self.down(&L2, &[i, j], None)?;
                body(self, i, j)?;
                self.up()?;
            }
            self.up()?;
        }
        Ok(())
    }
}

/// One force factor: every test, each after -U's remount when asked.
fn one_factor(
    bench: &mut Bench<'_>,
    own: Option<&str>,
    x: usize,
    h: &mut [LatencyHistogram],
    buffers: &mut Buffers,
) -> Result<(), Halt> {
    bench.remount()?;
    mkdir_test(
        &mut Walker::start(bench, own)?,
        x,
        &mut h[MetaOp::Mkdir as usize],
    )?;
    bench.remount()?;
    chdir_test(
        &mut Walker::start(bench, own)?,
        x,
        &mut h[MetaOp::Chdir as usize],
    )?;
    bench.remount()?;
    rmdir_test(
        &mut Walker::start(bench, own)?,
        x,
        &mut h[MetaOp::Rmdir as usize],
    )?;
    bench.remount()?;
    create_test(&mut Walker::start(bench, own)?, x, h, &buffers.data)?;
    bench.remount()?;
    per_file(bench, own, x, MetaOp::Stat, h)?;
    bench.remount()?;
    read_test(&mut Walker::start(bench, own)?, x, h, &mut buffers.read)?;
    for op in [MetaOp::Access, MetaOp::Chmod] {
        bench.remount()?;
        per_file(bench, own, x, op, h)?;
    }
    bench.remount()?;
    readdir_test(
        &mut Walker::start(bench, own)?,
        x,
        &mut h[MetaOp::Readdir as usize],
    )?;
    for op in [MetaOp::Link, MetaOp::Unlink] {
        bench.remount()?;
        per_file(bench, own, x, op, h)?;
    }
    bench.remount()?;
    delete_test(
        &mut Walker::start(bench, own)?,
        x,
        &mut h[MetaOp::Delete as usize],
    )
}

/// mkdir of every directory of the test, each entered once made.
fn mkdir_test(w: &mut Walker<'_, '_>, x: usize, h: &mut LatencyHistogram) -> Result<(), Halt> {
    let mkdir = |here: Here, name: &std::ffi::CStr| here.mkdir(name, DIR_MODE);
    for i in 0..x {
        w.on("mkdir", &L1, &[i], "", h, mkdir)?;
        w.down(&L1, &[i], None)?;
        for j in 0..x {
            w.on("mkdir", &L2, &[i, j], "", h, mkdir)?;
            w.down(&L2, &[i, j], None)?;
            for k in 0..x {
                w.on("mkdir", &LEAF, &[i, j, k], "", h, mkdir)?;
                w.down(&LEAF, &[i, j, k], None)?;
                w.up()?;
            }
            w.up()?;
        }
        w.up()?;
    }
    Ok(())
}

/// chdir into every directory of the test, each timed (back up untimed).
fn chdir_test(w: &mut Walker<'_, '_>, x: usize, h: &mut LatencyHistogram) -> Result<(), Halt> {
    for i in 0..x {
        w.down(&L1, &[i], Some(h))?;
        for j in 0..x {
            w.down(&L2, &[i, j], Some(h))?;
            for k in 0..x {
                w.down(&LEAF, &[i, j, k], Some(h))?;
                w.up()?;
            }
            w.up()?;
        }
        w.up()?;
    }
    Ok(())
}

/// rmdir of every directory of the test, the deepest first, each entered
/// and left just before.
fn rmdir_test(w: &mut Walker<'_, '_>, x: usize, h: &mut LatencyHistogram) -> Result<(), Halt> {
    let rmdir = |here: Here, name: &std::ffi::CStr| here.rmdir(name);
    for i in 0..x {
        w.down(&L1, &[i], None)?;
        for j in 0..x {
            w.down(&L2, &[i, j], None)?;
            for k in 0..x {
                w.down(&LEAF, &[i, j, k], None)?;
                w.up()?;
                w.on("rmdir", &LEAF, &[i, j, k], "", h, rmdir)?;
            }
            w.up()?;
            w.on("rmdir", &L2, &[i, j], "", h, rmdir)?;
        }
        w.up()?;
        w.on("rmdir", &L1, &[i], "", h, rmdir)?;
    }
    Ok(())
}

/// The file test's directories made as it goes; each file created (a new
/// file), written, fsynced (untimed) and closed: three timed operations.
fn create_test(
    w: &mut Walker<'_, '_>,
    x: usize,
    h: &mut [LatencyHistogram],
    data: &[u8],
) -> Result<(), Halt> {
    let [create, write, close] = three(h, [MetaOp::Create, MetaOp::Write, MetaOp::Close]);
    let mkdir = |here: Here, name: &std::ffi::CStr| here.mkdir(name, DIR_MODE);
    let clock = w.bench.clock;
    for i in 0..x {
        w.untimed("mkdir", &L1, &[i], mkdir)?;
        w.down(&L1, &[i], None)?;
        for j in 0..x {
            w.untimed("mkdir", &L2, &[i, j], mkdir)?;
            w.down(&L2, &[i, j], None)?;
            for k in 0..x {
                w.bench.stopped()?;
                let here = w.here;
                let name = w.name.set(&FILE, &[i, j, k], "");
                let done = match timed(&clock, create, || here.create(name, FILE_MODE)) {
                    Ok(fd) => {
                        let written = timed(&clock, write, || calls::write_all(fd, data));
                        let synced = calls::fsync(fd);
                        let closed = timed(&clock, close, || calls::close(fd));
                        [("write", written), ("fsync", synced), ("close", closed)]
                            .into_iter()
                            .find_map(|(call, done)| done.err().map(|e| (call, e)))
                    }
                    Err(e) => Some(("create", e)),
                };
                if let Some((call, e)) = done {
                    let shown = name.to_string_lossy().into_owned();
                    return Err(w.failed(call, &shown, e));
                }
            }
            w.up()?;
        }
        w.up()?;
    }
    Ok(())
}

/// Each file opened and read (two operations, each timed), then closed,
/// untimed.
fn read_test(
    w: &mut Walker<'_, '_>,
    x: usize,
    h: &mut [LatencyHistogram],
    buf: &mut [u8],
) -> Result<(), Halt> {
    let [open_h, read_h, _] = three(h, [MetaOp::Open, MetaOp::Read, MetaOp::Close]);
    let clock = w.bench.clock;
    w.each_directory(x, |w, i, j| {
        for k in 0..x {
            w.bench.stopped()?;
            let here = w.here;
            let name = w.name.set(&FILE, &[i, j, k], "");
            let fd = match timed(&clock, open_h, || here.open_read(name)) {
                Ok(fd) => fd,
                Err(e) => {
                    let shown = name.to_string_lossy().into_owned();
                    return Err(w.failed("open", &shown, e));
                }
            };
            let read = timed(&clock, read_h, || calls::read_up_to(fd, buf));
            let _ = calls::close(fd);
            if let Err(e) = read {
                let shown = name.to_string_lossy().into_owned();
                return Err(w.failed("read", &shown, e));
            }
        }
        Ok(())
    })
}

/// One call per file: stat, access, chmod, link, unlink (of the link).
fn per_file(
    bench: &Bench<'_>,
    own: Option<&str>,
    x: usize,
    op: MetaOp,
    h: &mut [LatencyHistogram],
) -> Result<(), Halt> {
    let h = &mut h[op as usize];
    // SAFETY: an all-zero stat is a valid value for stat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let mut w = Walker::start(bench, own)?;
    w.each_directory(x, |w, i, j| {
        for k in 0..x {
            let n = [i, j, k];
            match op {
                MetaOp::Stat => w.on("stat", &FILE, &n, "", h, |here, f| here.stat(f, &mut st))?,
                MetaOp::Access => w.on("access", &FILE, &n, "", h, |here, f| here.access(f))?,
                MetaOp::Chmod => w.on("chmod", &FILE, &n, "", h, |here, f| {
                    here.chmod(f, CHMOD_MODE)
                })?,
                MetaOp::Link => link(w, &n, h)?,
                _ => w.on("unlink", &FILE, &n, "L", h, |here, f| here.unlink(f))?,
            }
        }
        Ok(())
    })
}

/// link(file, fileL): two names, written before the clock.
fn link(w: &mut Walker<'_, '_>, n: &[usize; 3], h: &mut LatencyHistogram) -> Result<(), Halt> {
    w.bench.stopped()?;
    let clock = w.bench.clock;
    let here = w.here;
    let mut to = Name::new();
    let to = to.set(&FILE, n, "L");
    let from = w.name.set(&FILE, n, "");
    if let Err(e) = timed(&clock, h, || here.link(from, to)) {
        let shown = from.to_string_lossy().into_owned();
        return Err(w.failed("link", &shown, e));
    }
    Ok(())
}

/// Each of the X² directories read: opendir, one readdir, closedir, timed
/// as one operation.
fn readdir_test(w: &mut Walker<'_, '_>, x: usize, h: &mut LatencyHistogram) -> Result<(), Halt> {
    let clock = w.bench.clock;
    w.each_directory(x, |w, _, _| {
        w.bench.stopped()?;
        let here = w.here;
        timed(&clock, h, || here.read_dir()).map_err(|e| w.failed("readdir", ".", e))
    })
}

/// Each file deleted (timed), each directory removed once empty (untimed).
fn delete_test(w: &mut Walker<'_, '_>, x: usize, h: &mut LatencyHistogram) -> Result<(), Halt> {
    let rmdir = |here: Here, name: &std::ffi::CStr| here.rmdir(name);
    for i in 0..x {
        w.down(&L1, &[i], None)?;
        for j in 0..x {
            w.down(&L2, &[i, j], None)?;
            for k in 0..x {
                w.on("unlink", &FILE, &[i, j, k], "", h, |here, f| here.unlink(f))?;
            }
            w.up()?;
            w.untimed("rmdir", &L2, &[i, j], rmdir)?;
        }
        w.up()?;
        w.untimed("rmdir", &L1, &[i], rmdir)?;
    }
    Ok(())
}

/// Three operations' histograms at once.
fn three(h: &mut [LatencyHistogram], ops: [MetaOp; 3]) -> [&mut LatencyHistogram; 3] {
    let [a, b, c] = ops.map(|op| op as usize);
    let [x, y, z] = h
        .get_disjoint_mut([a, b, c])
        .expect("three distinct operations of fileop");
    [x, y, z]
}
