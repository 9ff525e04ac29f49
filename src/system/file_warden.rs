//! A rank's file warden: a small process of its own that removes the rank's
//! test files (and a metadata benchmark's tree, rank 0's) if the rank dies
//! without removing them.
//!
//! Open MPI's mpirun ends a job by sending its ranks SIGCONT, then, a
//! second later, SIGTERM and SIGKILL milliseconds apart; a rank busy in an
//! MPI call may not run its SIGTERM handler before SIGKILL lands, and a
//! rank killed by SIGKILL (or the OOM killer) removes nothing. The warden
//! is started by the rank before MPI, in a process group of its own (mpirun
//! signals the rank's group), and learns through a pipe which of the rank's
//! files are the rank's now, by path, device and inode, as the rank claims
//! and removes them ([`tell`]). When the pipe closes — the rank has ended,
//! however it ended — it removes those that still lead to the rank's file
//! and leaves. A rank that ended normally has removed its files and told
//! the warden so: the warden then has nothing to do.

use std::ffi::{CString, OsString};
use std::io::{self, IsTerminal, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::model::say::say;

/// Set in the warden's environment (to its rank's pid): the binary started
/// with it is a warden, not a run.
pub const WARDEN_VARIABLE: &str = "IOZ_FILE_WARDEN";

/// The pipe to this rank's warden, once started.
static WARDEN: OnceLock<Mutex<ChildStdin>> = OnceLock::new();

/// What the rank tells its warden.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Message {
    /// `path` leads to the rank's file (device, inode).
    Ours { path: OsString, dev: u64, ino: u64 },
    /// `path` leads to the rank's metadata tree (its directory's device
    /// and inode): removed whole, never followed out of.
    Tree { path: OsString, dev: u64, ino: u64 },
    /// `path` no longer leads to a file (or tree) of the rank's.
    Gone { path: OsString },
    /// Nothing may be removed any more (-U could not mount the file system
    /// back: the paths may lead elsewhere).
    Cancel,
}

const TAG_GONE: u8 = 0;
const TAG_OURS: u8 = 1;
const TAG_CANCEL: u8 = 2;
const TAG_TREE: u8 = 3;

impl Message {
    fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        let put_path = |bytes: &mut Vec<u8>, path: &OsString| {
            let raw = path.as_bytes();
            bytes.extend_from_slice(&(raw.len() as u32).to_le_bytes());
            bytes.extend_from_slice(raw);
        };
        match self {
            Message::Ours { path, dev, ino } => {
                bytes.push(TAG_OURS);
                bytes.extend_from_slice(&dev.to_le_bytes());
                bytes.extend_from_slice(&ino.to_le_bytes());
                put_path(&mut bytes, path);
            }
            Message::Tree { path, dev, ino } => {
                bytes.push(TAG_TREE);
                bytes.extend_from_slice(&dev.to_le_bytes());
                bytes.extend_from_slice(&ino.to_le_bytes());
                put_path(&mut bytes, path);
            }
            Message::Gone { path } => {
                bytes.push(TAG_GONE);
                put_path(&mut bytes, path);
            }
            Message::Cancel => bytes.push(TAG_CANCEL),
        }
        bytes
    }

    /// Every whole message in `bytes`, in order; a message cut short (the
    /// rank died while writing it) ends the list.
    #[cfg(test)]
    fn decode_all(bytes: &[u8]) -> Vec<Message> {
        Message::decode_prefix(bytes).0
    }

    /// The whole messages at the start of `bytes`, and how many bytes they
    /// take: the rest is a message still on its way (or cut short).
    fn decode_prefix(all: &[u8]) -> (Vec<Message>, usize) {
        let mut bytes = all;
        fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            let (head, rest) = bytes.split_at_checked(n)?;
            *bytes = rest;
            Some(head)
        }
        fn u64_of(bytes: &mut &[u8]) -> Option<u64> {
            Some(u64::from_le_bytes(take(bytes, 8)?.try_into().ok()?))
        }
        fn path_of(bytes: &mut &[u8]) -> Option<OsString> {
            let len = u32::from_le_bytes(take(bytes, 4)?.try_into().ok()?);
            Some(OsString::from_vec(take(bytes, len as usize)?.to_vec()))
        }
        let mut messages = Vec::new();
        let mut used = 0;
        while let Some(&[tag]) = take(&mut bytes, 1) {
            let message = match tag {
                TAG_OURS => (|| {
                    let dev = u64_of(&mut bytes)?;
                    let ino = u64_of(&mut bytes)?;
                    let path = path_of(&mut bytes)?;
                    Some(Message::Ours { path, dev, ino })
                })(),
                TAG_TREE => (|| {
                    let dev = u64_of(&mut bytes)?;
                    let ino = u64_of(&mut bytes)?;
                    let path = path_of(&mut bytes)?;
                    Some(Message::Tree { path, dev, ino })
                })(),
                TAG_GONE => path_of(&mut bytes).map(|path| Message::Gone { path }),
                TAG_CANCEL => Some(Message::Cancel),
                _ => None,
            };
            match message {
                Some(m) => {
                    messages.push(m);
                    used = all.len() - bytes.len();
                }
                None => break,
            }
        }
        (messages, used)
    }
}

/// Starts this rank's warden (the running binary again, with
/// [`WARDEN_VARIABLE`] set). Call it once, before MPI starts.
#[cfg_attr(
    not(feature = "mpi"),
    expect(dead_code, reason = "ranks exist in the MPI build only")
)]
pub fn start() -> io::Result<()> {
    let exe = std::env::current_exe()?;
    let mut child = Command::new(exe)
        .env(WARDEN_VARIABLE, std::process::id().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Out of the rank's process group, which mpirun signals.
        .process_group(0)
        .spawn()?;
    let pipe = child
        .stdin
        .take()
        .ok_or_else(|| io::Error::other("no pipe to the file warden"))?;
    // Never waited for: it outlives the rank by design, and init reaps it.
    drop(child);
    let _ = WARDEN.set(Mutex::new(pipe));
    Ok(())
}

/// Tells the warden, if this rank has one, that `path` leads to the rank's
/// file with this identity (`None`: to none of its files any more).
pub fn tell(path: &Path, identity: Option<(u64, u64)>) {
    let path = path.as_os_str().to_os_string();
    send(&match identity {
        Some((dev, ino)) => Message::Ours { path, dev, ino },
        None => Message::Gone { path },
    });
}

/// Tells the warden, if this rank has one, that `path` leads to the rank's
/// metadata tree with this identity (`None`: the rank removed it).
pub fn tell_tree(path: &Path, identity: Option<(u64, u64)>) {
    let path = path.as_os_str().to_os_string();
    send(&match identity {
        Some((dev, ino)) => Message::Tree { path, dev, ino },
        None => Message::Gone { path },
    });
}

/// Tells the warden, if any, to remove nothing.
pub fn cancel() {
    send(&Message::Cancel);
}

fn send(message: &Message) {
    if let Some(pipe) = WARDEN.get() {
        let mut pipe = pipe.lock().unwrap_or_else(|e| e.into_inner());
        // A warden that is gone cannot be helped: the rank's own removal
        // still runs.
        let _ = pipe.write_all(&message.encode());
    }
}

/// The warden's whole life, when this process is one (its variable set):
/// `Some(exit status)`; `None` for an ordinary ioz.
pub fn serve_if_asked() -> Option<i32> {
    let rank = std::env::var_os(WARDEN_VARIABLE)?;
    // Only the rank that started it, as its parent, makes a warden: a
    // variable set by hand (or inherited by a run the warden's rank
    // started) must not turn ioz into a silent no-op.
    let parent = nix::unistd::getppid().as_raw().to_string();
    let mut stdin = io::stdin().lock();
    if rank.to_str() != Some(parent.as_str()) || stdin.is_terminal() {
        say(format_args!(
            "{WARDEN_VARIABLE} is ioz's own variable for its MPI ranks: unset it"
        ));
        return Some(2);
    }
    // Paths are relative to the rank's directory; the warden then leaves
    // it, so that it keeps no file system busy while it waits.
    let Ok(directory) = std::env::current_dir() else {
        return Some(1);
    };
    let _ = std::env::set_current_dir("/");
    let mut ledger = Ledger::new(directory);
    let mut pending = Vec::new();
    let mut chunk = [0u8; 4096];
    // Message by message as they come, until the rank's end closes the pipe.
    loop {
        match stdin.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                pending.extend_from_slice(&chunk[..n]);
                let (messages, used) = Message::decode_prefix(&pending);
                pending.drain(..used);
                messages.into_iter().for_each(|m| ledger.apply(m));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    ledger.remove_all();
    Some(0)
}

/// The rank's files as the warden knows them, each held open (O_PATH) from
/// the moment it is told of it: while the warden holds its inode, no other
/// file can take that inode number on its device, so a path that still
/// shows the told device and inode at the end still leads to the rank's
/// file.
struct Ledger {
    /// The rank's directory, which relative paths start from.
    directory: PathBuf,
    files: Vec<Pinned>,
    /// The rank's metadata trees (directories, removed whole).
    trees: Vec<Pinned>,
    cancelled: bool,
}

struct Pinned {
    path: PathBuf,
    dev: u64,
    ino: u64,
    _pin: std::os::fd::OwnedFd,
}

impl Ledger {
    fn new(directory: PathBuf) -> Ledger {
        Ledger {
            directory,
            files: Vec::new(),
            trees: Vec::new(),
            cancelled: false,
        }
    }

    fn apply(&mut self, message: Message) {
        match message {
            Message::Ours { path, dev, ino } => {
                let path = self.directory.join(path);
                hold(
                    &mut self.files,
                    path,
                    (dev, ino),
                    libc::S_IFREG,
                    self.cancelled,
                );
            }
            Message::Tree { path, dev, ino } => {
                let path = self.directory.join(path);
                hold(
                    &mut self.trees,
                    path,
                    (dev, ino),
                    libc::S_IFDIR,
                    self.cancelled,
                );
            }
            Message::Gone { path } => {
                let path = self.directory.join(path);
                self.files.retain(|f| f.path != path);
                self.trees.retain(|t| t.path != path);
            }
            Message::Cancel => {
                self.cancelled = true;
                self.files.clear();
                self.trees.clear();
            }
        }
    }

    /// The paths of the files still the rank's, in the order told.
    #[cfg(test)]
    fn paths(&self) -> Vec<&std::path::Path> {
        self.files
            .iter()
            .chain(&self.trees)
            .map(|f| f.path.as_path())
            .collect()
    }

    /// Unlinks every file still the rank's, each only while its path leads
    /// to it, and removes every tree still the rank's (system::tree: only
    /// its own directory, never a link followed out of it).
    fn remove_all(self) {
        for f in &self.files {
            if let Ok(path) = CString::new(f.path.as_os_str().as_bytes()) {
                super::unlink::unlink_if_ours(&path, f.dev, f.ino);
            }
        }
        for t in &self.trees {
            let _ = super::tree::remove_if_ours(&t.path, t.dev, t.ino);
        }
    }
}

/// `held`'s entry for `path` replaced by the file told (of type `kind`),
/// if it is that file and removals are not cancelled.
fn hold(
    held: &mut Vec<Pinned>,
    path: PathBuf,
    (dev, ino): (u64, u64),
    kind: libc::mode_t,
    cancelled: bool,
) {
    held.retain(|f| f.path != path);
    if let Some(pin) = pin(&path, dev, ino, kind)
        && !cancelled
    {
        held.push(Pinned {
            path,
            dev,
            ino,
            _pin: pin,
        });
    }
}

/// The file at `path` held open without following a link, if it is the
/// file of this type (`S_IFREG`, `S_IFDIR`), device and inode (else the
/// warden will never remove anything there).
fn pin(
    path: &std::path::Path,
    dev: u64,
    ino: u64,
    kind: libc::mode_t,
) -> Option<std::os::fd::OwnedFd> {
    use nix::fcntl::{OFlag, open};
    let fd = open(
        path,
        OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        nix::sys::stat::Mode::empty(),
    )
    .ok()?;
    let st = nix::sys::stat::fstat(&fd).ok()?;
    (st.st_mode & libc::S_IFMT == kind && st.st_dev == dev && st.st_ino == ino).then_some(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The device and inode of `name` in `d`.
    fn identity(d: &std::path::Path, name: &str) -> (u64, u64) {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(d.join(name)).unwrap();
        (m.dev(), m.ino())
    }

    /// The names in `d`, sorted.
    fn listing(d: &std::path::Path) -> Vec<String> {
        let mut left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        left
    }

    fn ours(path: &str, dev: u64, ino: u64) -> Message {
        Message::Ours {
            path: path.into(),
            dev,
            ino,
        }
    }

    #[test]
    fn messages_come_back_as_sent_and_a_cut_one_is_dropped() {
        let sent = vec![
            ours("ioz.tmp.0", 2049, 1 << 40),
            Message::Gone {
                path: "a b/\u{e9}".into(),
            },
            Message::Cancel,
            ours("", 0, u64::MAX),
        ];
        let bytes: Vec<u8> = sent.iter().flat_map(Message::encode).collect();
        assert_eq!(Message::decode_all(&bytes), sent);
        // The rank died in the middle of its last message.
        let cut = &bytes[..bytes.len() - 3];
        assert_eq!(Message::decode_all(cut), sent[..3]);
        assert_eq!(Message::decode_all(&[9, 1, 2]), Vec::new());
    }

    #[test]
    fn the_last_word_on_each_path_counts_and_only_the_told_file_goes() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let id = |name: &str| identity(d, name);
        for name in ["a", "b", "c", "d"] {
            std::fs::write(d.join(name), name).unwrap();
        }
        let told = |name: &str, (dev, ino): (u64, u64)| ours(name, dev, ino);
        let mut ledger = Ledger::new(d.to_path_buf());
        for m in [
            told("a", id("a")),
            told("b", id("b")),
            Message::Gone { path: "a".into() },
            // Told with another file's identity: never held, never removed.
            told("c", id("d")),
            told("d", id("d")),
            told("missing", (1, 2)),
        ] {
            ledger.apply(m);
        }
        assert_eq!(ledger.paths(), [d.join("b"), d.join("d")]);
        // b replaced by another file after it was told: left alone.
        std::fs::remove_file(d.join("b")).unwrap();
        std::fs::write(d.join("b"), "someone's").unwrap();
        ledger.remove_all();
        let left = listing(d);
        assert_eq!(left, ["a", "b", "c"]);
        // After a cancel nothing is held, even what is told later.
        let mut ledger = Ledger::new(d.to_path_buf());
        ledger.apply(told("a", id("a")));
        ledger.apply(Message::Cancel);
        ledger.apply(told("c", id("c")));
        assert!(ledger.paths().is_empty());
    }

    #[test]
    fn a_told_tree_goes_whole_and_a_tree_gone_or_not_the_rank_s_stays() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let outside = d.join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("precious"), "keep").unwrap();
        for tree in ["t1", "t2", "t3"] {
            let sub = d.join(tree).join("dir_1").join("sdir_1");
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join("file_1"), "x").unwrap();
            std::os::unix::fs::symlink(&outside, d.join(tree).join("link")).unwrap();
        }
        let id = |name: &str| identity(d, name);
        let tree = |name: &str, (dev, ino): (u64, u64)| Message::Tree {
            path: name.into(),
            dev,
            ino,
        };
        let sent = [tree("t1", id("t1")), tree("t2", id("t2"))];
        let bytes: Vec<u8> = sent.iter().flat_map(Message::encode).collect();
        assert_eq!(Message::decode_all(&bytes), sent);
        let mut ledger = Ledger::new(d.to_path_buf());
        for m in [
            tree("t1", id("t1")),
            tree("t2", id("t2")),
            // The rank removed it itself (here: it stays, as the user's).
            Message::Gone { path: "t2".into() },
            // Told with another directory's identity: never removed.
            tree("t3", id("outside")),
            // A file is no tree.
            tree("outside/precious", id("outside/precious")),
        ] {
            ledger.apply(m);
        }
        assert_eq!(ledger.paths(), [d.join("t1")]);
        ledger.remove_all();
        let left = listing(d);
        assert_eq!(left, ["outside", "t2", "t3"]);
        assert_eq!(
            std::fs::read_to_string(outside.join("precious")).unwrap(),
            "keep"
        );
    }
}
