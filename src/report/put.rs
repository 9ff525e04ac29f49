//! One result file put in place: written under a temporary name in its own
//! directory, marked as ioz's, made durable, then renamed over its name —
//! and only when what is there is still what the guard approved before the
//! run (nothing, or the very file it may replace). A write that fails
//! removes the temporary and leaves any old file as it was.
//!
//! Every step goes through a descriptor of the directory, so a directory
//! renamed or replaced by a link during the run is not followed elsewhere.
//! The mark is system::xattr's: ioz's one module of extended-attribute
//! calls, and the only part of `system` that `report` uses.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, RenameFlags, openat, renameat, renameat2};
use nix::sys::stat::{FileStat, Mode, SFlag, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, linkat, unlinkat};

use crate::model::result_files::{FileId, Place};
// The one import of `system` in `report` (ARCHITECTURE.md: the dependency
// rule's narrow exceptions): the mark's extended-attribute call, which std
// and nix lack.
use crate::system::xattr;

/// Writes `bytes` as the result file `place` (see the module).
pub fn put(place: &Place, bytes: &[u8]) -> io::Result<()> {
    let dir = open_dir(&place.dir)?;
    let (temp, file) = create_temp(&dir, &place.name)?;
    let done = write_marked(file, bytes).and_then(|()| rename_into_place(&dir, &temp, place));
    if done.is_err() {
        // Nothing to do if it fails: the name is ours and holds no one's data.
        let _ = unlinkat(&dir, temp.as_os_str(), UnlinkatFlags::NoRemoveDir);
    }
    done
}

/// `--live`: the result file `place`, put in place empty and marked at once
/// and handed back open, for lines written as the run goes (a reader
/// following the name finds it from the start).
pub fn open_in_place(place: &Place) -> io::Result<File> {
    let dir = open_dir(&place.dir)?;
    let (temp, file) = create_temp(&dir, &place.name)?;
    let _ = set_result_mark(&file);
    match rename_into_place(&dir, &temp, place) {
        Ok(()) => Ok(file),
        Err(e) => {
            let _ = unlinkat(&dir, temp.as_os_str(), UnlinkatFlags::NoRemoveDir);
            Err(e)
        }
    }
}

/// Makes `dir` (one level: its parent exists), or finds it made.
pub fn make_dir(dir: &Path) -> io::Result<()> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(io::Error::other("not a directory name"));
    };
    let parent = open_dir(parent)?;
    match mkdirat(&parent, name, Mode::from_bits_truncate(0o777)) {
        Ok(()) | Err(Errno::EEXIST) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

pub(super) fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    // The guard gave a real path: a link here now was put there since.
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    Ok(nix::fcntl::open(dir, flags, Mode::empty())?)
}

/// The end of every temporary name ioz writes a file under.
const TEMPORARY_SUFFIX: &str = ".ioz-tmp";

/// The hidden name this process writes `name` under first, at its
/// `attempt`th try: `.NAME.PID-ATTEMPT.ioz-tmp`.
pub fn temporary_name(name: &OsStr, attempt: u32) -> OsString {
    // Short enough for any name limit whatever `name` is.
    let mut temp = b".".to_vec();
    temp.extend(name.as_bytes().iter().copied().take(200));
    temp.extend(format!(".{}-{attempt}{TEMPORARY_SUFFIX}", std::process::id()).bytes());
    OsString::from_vec(temp)
}

/// The process that made the temporary `name` (a [`temporary_name`]), or
/// `None` when `name` is not one: what decides whether a temporary left in
/// a directory is stale (its process has ended).
pub fn temporary_owner(name: &OsStr) -> Option<u32> {
    let rest = name.as_bytes().strip_prefix(b".")?;
    let rest = rest.strip_suffix(TEMPORARY_SUFFIX.as_bytes())?;
    let at = rest.iter().rposition(|&b| b == b'.')?;
    let (pid, attempt) = std::str::from_utf8(&rest[at + 1..]).ok()?.split_once('-')?;
    attempt.parse::<u32>().ok()?;
    pid.parse().ok()
}

/// A new file under a hidden name beside `name` (never an existing one).
fn create_temp(dir: &OwnedFd, name: &OsStr) -> io::Result<(OsString, File)> {
    let flags =
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    for attempt in 0u32.. {
        let temp = temporary_name(name, attempt);
        // Like fs::write: 0666 less the umask.
        match openat(
            dir,
            temp.as_os_str(),
            flags,
            Mode::from_bits_truncate(0o666),
        ) {
            Ok(fd) => return Ok((temp, File::from(fd))),
            Err(Errno::EEXIST) if attempt < 100 => continue,
            Err(e) => return Err(e.into()),
        }
    }
    unreachable!("the loop returns by its 100th attempt")
}

/// Writes `bytes`, marks the file as ioz's and makes it durable before it
/// takes the place of the old one.
fn write_marked(mut file: File, bytes: &[u8]) -> io::Result<()> {
    file.write_all(bytes)?;
    // Best effort: on a file system without user xattrs the file is written
    // all the same, and a later run needs --force to replace it.
    let _ = set_result_mark(&file);
    file.sync_all()
}

/// Marks `file` as a result ioz wrote, which a later run may replace
/// (safety/result_place.rs). On the descriptor of the file just made, before
/// it takes its name: no one else's file is ever marked.
pub(super) fn set_result_mark(file: &File) -> io::Result<()> {
    xattr::set(file.as_fd(), xattr::Mark::Result)
}

/// Renames `temp` to the place's name: over the file the guard approved,
/// or to a name that must still be free.
fn rename_into_place(dir: &OwnedFd, temp: &OsStr, place: &Place) -> io::Result<()> {
    let name = place.name.as_os_str();
    let there = match fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(st) => Some(st),
        Err(Errno::ENOENT) => None,
        Err(e) => return Err(e.into()),
    };
    match (there, place.replaces) {
        (Some(st), Some(id)) if is_file(&st, id) => Ok(renameat(dir, temp, dir, name)?),
        (Some(_), Some(_)) => Err(io::Error::other(
            "another file took its place during the run; it was left as it is",
        )),
        (Some(_), None) => Err(appeared()),
        // Gone, or never there: the name must still be free when renamed to.
        (None, _) => rename_no_replace(dir, temp, name),
    }
}

pub(super) fn is_file(st: &FileStat, id: FileId) -> bool {
    st.st_dev == id.dev
        && st.st_ino == id.ino
        && SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG
}

fn appeared() -> io::Error {
    io::Error::other("a file appeared there during the run; it was left as it is")
}

/// Renames `temp` to `name` only if nothing has that name: one atomic call,
/// or where the file system lacks it, a hard link (which never replaces)
/// and the temporary's removal.
fn rename_no_replace(dir: &OwnedFd, temp: &OsStr, name: &OsStr) -> io::Result<()> {
    match renameat2(dir, temp, dir, name, RenameFlags::RENAME_NOREPLACE) {
        Ok(()) => Ok(()),
        Err(Errno::EEXIST) => Err(appeared()),
        Err(Errno::EINVAL | Errno::ENOSYS) => {
            match linkat(dir, temp, dir, name, AtFlags::empty()) {
                Ok(()) => {
                    let _ = unlinkat(dir, temp, UnlinkatFlags::NoRemoveDir);
                    Ok(())
                }
                Err(Errno::EEXIST) => Err(appeared()),
                Err(e) => Err(e.into()),
            }
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::MetadataExt;

    use super::*;

    fn place(dir: &Path, name: &str, replaces: Option<FileId>) -> Place {
        Place {
            given: dir.join(name),
            dir: dir.to_path_buf(),
            name: name.into(),
            replaces,
        }
    }

    fn id(path: &Path) -> FileId {
        let m = fs::metadata(path).unwrap();
        FileId {
            dev: m.dev(),
            ino: m.ino(),
        }
    }

    #[test]
    fn a_new_file_is_written_marked_and_alone() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        put(&place(d, "r.csv", None), b"a,b\n").unwrap();
        assert_eq!(fs::read(d.join("r.csv")).unwrap(), b"a,b\n");
        let names: Vec<_> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["r.csv"]);
    }

    #[test]
    fn the_approved_file_is_replaced_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let path = d.join("r.json");
        fs::write(&path, b"old").unwrap();
        put(&place(d, "r.json", Some(id(&path))), b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        // A file that was not there at the check, or another one since.
        let e = put(&place(d, "r.json", None), b"newer").unwrap_err();
        assert!(e.to_string().contains("appeared"), "{e}");
        let stale = FileId { dev: 0, ino: 1 };
        let e = put(&place(d, "r.json", Some(stale)), b"newer").unwrap_err();
        assert!(e.to_string().contains("took its place"), "{e}");
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::read_dir(d).unwrap().count(), 1, "a temporary was left");
    }

    #[test]
    fn a_temporary_names_its_process() {
        let temp = temporary_name(OsStr::new("7.json"), 3);
        let me = std::process::id();
        assert_eq!(temp, OsString::from(format!(".7.json.{me}-3.ioz-tmp")));
        assert_eq!(temporary_owner(&temp), Some(me));
        assert_eq!(temporary_owner(OsStr::new(".a.b.42-0.ioz-tmp")), Some(42));
        for not in [
            "7.json",
            ".7.json.x-0.ioz-tmp",
            "7.json.42-0.ioz-tmp",
            ".ioz-tmp",
        ] {
            assert_eq!(temporary_owner(OsStr::new(not)), None, "{not}");
        }
    }

    #[test]
    fn a_directory_is_made_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("plots");
        make_dir(&p).unwrap();
        make_dir(&p).unwrap();
        assert!(p.is_dir());
    }
}
