//! One result path, judged before any I/O: where its bytes would go (every
//! link followed), what is there now, and whether ioz may put a file there.
//!
//! A result is only ever a regular file. One that exists is replaced only
//! when ioz wrote it — it carries ioz's result mark ([`RESULT_MARK`]) and
//! belongs to the running user — or with `--force`. The mark is an extended
//! attribute rather than something in the file's contents: it is set on
//! every format alike (PNG, spreadsheets), it cannot come from a file a user
//! pasted or copied (cp drops user xattrs unless told otherwise), and it is
//! only taken together with the owner, since anyone able to set it on a
//! file can already write that file. On a file system without user
//! extended attributes the mark is not kept, and a later run needs
//! `--force` to replace the file.
//!
//! Nothing is ever put among a history's files (its mark, its index, its
//! `runs/`), whatever mark they carry and even with `--force`: ioz history
//! alone changes a history, and a result written over a recorded run
//! would replace it (see [`history_of`]).

use std::ffi::OsString;
use std::fs::{self, Metadata};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use super::writable_dir::{NotWritable, check_writable_dir};
use crate::model::file_kind::file_kind;
use crate::model::history_layout::{MARK, RUNS};
use crate::model::result_files::{FileId, Place};
use crate::system::xattr;

/// A result path refused, with the option that named it: one line,
/// `--json: r.json exists and was not written by ioz; …`.
#[derive(Debug, thiserror::Error)]
#[error("{opt}: {problem}")]
pub struct Refusal {
    pub opt: &'static str,
    pub problem: Problem,
}

/// What is wrong with a result path.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// Something that is not a regular file, of mode `mode`.
    #[error("{} is {}{}", path.display(), file_kind(*mode), not_a_file(*mode))]
    NotAFile { path: PathBuf, mode: u32 },
    /// A link to something that is not a regular file.
    #[error("{} leads to {}, {}{}", path.display(), target.display(), file_kind(*mode), not_a_file(*mode))]
    LeadsTo {
        path: PathBuf,
        target: PathBuf,
        mode: u32,
    },
    #[error("{} is a link to {}, which does not exist; ioz makes no file where a link points", path.display(), target.display())]
    DanglingLink { path: PathBuf, target: PathBuf },
    #[error("cannot follow {}: {source}", path.display())]
    CannotFollow { path: PathBuf, source: io::Error },
    #[error("cannot check {}: {source}", path.display())]
    CannotCheck { path: PathBuf, source: io::Error },
    #[error("{} does not name a file", path.display())]
    NoFileName { path: PathBuf },
    #[error("{} ends in /, but a result is a file", path.display())]
    EndsInSlash { path: PathBuf },
    /// The directory a new file would be made in is something else.
    #[error("{} is not a directory", path.display())]
    ParentNotADirectory { path: PathBuf },
    #[error("directory {} does not exist", path.display())]
    NoParent { path: PathBuf },
    #[error("cannot write in {}: {why}", dir.display())]
    NotWritable { dir: PathBuf, why: NotWritable },
    #[error("{} exists and was not written by ioz; refusing to replace it \
             (choose another name, or add --force to replace it)", path.display())]
    NotWrittenByIoz { path: PathBuf },
    /// The file is already one of the command's inputs or outputs: `what`
    /// (`also` when it is another output).
    #[error("{} is {}{what}", path.display(), if *also { "also " } else { "" })]
    Taken {
        path: PathBuf,
        what: String,
        also: bool,
    },
    /// `--plots DIR` names something that is not a directory.
    #[error("{} is {}, not a directory", path.display(), file_kind(*mode))]
    NotADirectory { path: PathBuf, mode: u32 },
    #[error("{} is a link to a directory that does not exist; \
             ioz makes no directory where a link points", path.display())]
    DanglingDirectoryLink { path: PathBuf },
    #[error("{} does not name a directory", path.display())]
    NoDirectoryName { path: PathBuf },
    /// In a history's directory or its runs/: never a result's place.
    #[error("{} is in the ioz history {}, which only ioz history changes; choose another path", path.display(), history.display())]
    InHistory { path: PathBuf, history: PathBuf },
}

impl Problem {
    /// The refusal of this problem with the path of option `opt`.
    pub fn of(self, opt: &'static str) -> Refusal {
        Refusal { opt, problem: self }
    }
}

/// What a path names, to find two spellings of one file: the file itself
/// when it exists (links followed, hard links alike), else the real
/// directory it would be made in and its name there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Existing(FileId),
    Missing(PathBuf),
}

/// Where `path` is (see [`Location`]).
pub fn locate(path: &Path) -> Location {
    match fs::metadata(path) {
        Ok(m) => Location::Existing(file_id(&m)),
        Err(_) => Location::Missing(real_location(path)),
    }
}

/// `path` absolute, with every link of the part that exists followed and the
/// rest (what does not exist yet) taken as written.
fn real_location(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut real = PathBuf::from("/");
    for component in absolute.components() {
        match component {
            Component::Normal(name) => {
                real.push(name);
                if let Ok(followed) = fs::canonicalize(&real) {
                    real = followed;
                }
            }
            // `real` is canonical as long as it exists, so its parent is the real one.
            Component::ParentDir => {
                real.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    real
}

fn file_id(m: &Metadata) -> FileId {
    FileId {
        dev: m.dev(),
        ino: m.ino(),
    }
}

/// A result path followed to the place its bytes would go.
#[derive(Debug)]
pub struct Resolved {
    given: PathBuf,
    /// The real directory of the file.
    dir: PathBuf,
    name: OsString,
    /// What is there now (links followed); `None` when nothing is.
    existing: Option<Metadata>,
}

/// Follows `given` (the path of option `opt`): an existing path is judged by
/// what it leads to; a missing one needs its directory. Refuses anything
/// but a regular file or a new name in an existing directory.
pub fn resolve(opt: &'static str, given: &Path) -> Result<Resolved, Refusal> {
    let path = given.to_path_buf();
    match fs::symlink_metadata(given) {
        Ok(own) => {
            let is_link = own.file_type().is_symlink();
            let meta = if is_link {
                followed_link(given).map_err(|p| p.of(opt))?
            } else {
                own
            };
            if !meta.is_file() {
                let mode = meta.mode();
                if !is_link {
                    return Err(Problem::NotAFile { path, mode }.of(opt));
                }
                // A pipe or socket behind /proc/self/fd has no path to show.
                let target = fs::canonicalize(given)
                    .or_else(|_| fs::read_link(given))
                    .unwrap_or_default();
                return Err(Problem::LeadsTo { path, target, mode }.of(opt));
            }
            let real = fs::canonicalize(given).map_err(|source| {
                Problem::CannotFollow {
                    path: path.clone(),
                    source,
                }
                .of(opt)
            })?;
            let (Some(dir), Some(name)) = (real.parent(), real.file_name()) else {
                return Err(Problem::NoFileName { path }.of(opt));
            };
            Ok(Resolved {
                given: path.clone(),
                dir: dir.to_path_buf(),
                name: name.to_os_string(),
                existing: Some(meta),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if given.as_os_str().as_bytes().ends_with(b"/") {
                return Err(Problem::EndsInSlash { path }.of(opt));
            }
            let Some(name) = given.file_name() else {
                return Err(Problem::NoFileName { path }.of(opt));
            };
            let dir = existing_parent(given).map_err(|p| p.of(opt))?;
            Ok(Resolved {
                given: path,
                dir,
                name: name.to_os_string(),
                existing: None,
            })
        }
        Err(source) => Err(Problem::CannotCheck { path, source }.of(opt)),
    }
}

/// What the link `given` leads to; a link to nothing is refused: ioz does
/// not make files wherever a link points.
fn followed_link(given: &Path) -> Result<Metadata, Problem> {
    fs::metadata(given).map_err(|source| {
        let path = given.to_path_buf();
        if source.kind() == io::ErrorKind::NotFound {
            let target = fs::read_link(given).unwrap_or_default();
            Problem::DanglingLink { path, target }
        } else {
            Problem::CannotFollow { path, source }
        }
    })
}

/// The real directory `given` would be made in; it must exist.
pub fn existing_parent(given: &Path) -> Result<PathBuf, Problem> {
    let parent = match given.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let path = parent.to_path_buf();
    match fs::canonicalize(parent) {
        Ok(dir) if dir.is_dir() => Ok(dir),
        Ok(_) => Err(Problem::ParentNotADirectory { path }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Problem::NoParent { path }),
        Err(source) => Err(Problem::CannotCheck { path, source }),
    }
}

/// The end of a refusal for something that is not a regular file.
fn not_a_file(mode: u32) -> &'static str {
    if mode & libc::S_IFMT == libc::S_IFDIR {
        ", not a file"
    } else {
        "; ioz writes results only to regular files"
    }
}

impl Resolved {
    /// The place of the result, when ioz may put a file there: the directory
    /// takes a new file, and a file already there is ioz's own or `force`
    /// gives it up.
    pub fn approve(self, opt: &'static str, force: bool) -> Result<Place, Refusal> {
        refuse_in_history(&self.given, &self.dir).map_err(|p| p.of(opt))?;
        check_writable_dir(&self.dir).map_err(|why| {
            Problem::NotWritable {
                dir: self.dir.clone(),
                why,
            }
            .of(opt)
        })?;
        let replaces = match &self.existing {
            None => None,
            Some(m) if force || written_by_ioz(&self.dir.join(&self.name), m) => Some(file_id(m)),
            Some(_) => return Err(Problem::NotWrittenByIoz { path: self.given }.of(opt)),
        };
        Ok(Place {
            given: self.given,
            dir: self.dir,
            name: self.name,
            replaces,
        })
    }
}

/// The history whose files `dir` (a real directory) holds: a directory
/// with a history's mark, or the runs/ of one.
pub fn history_of(dir: &Path) -> Option<PathBuf> {
    let marked = |d: &Path| fs::symlink_metadata(d.join(MARK)).is_ok();
    if marked(dir) {
        return Some(dir.to_path_buf());
    }
    let parent = dir.parent()?;
    (dir.file_name()? == RUNS && marked(parent)).then(|| parent.to_path_buf())
}

/// Refuses `path` (whose bytes would go in the real directory `dir`) when
/// `dir` is a history's.
pub fn refuse_in_history(path: &Path, dir: &Path) -> Result<(), Problem> {
    match history_of(dir) {
        Some(history) => Err(Problem::InHistory {
            path: path.to_path_buf(),
            history,
        }),
        None => Ok(()),
    }
}

/// A result file ioz wrote: its mark, on a file the running user owns.
fn written_by_ioz(path: &Path, meta: &Metadata) -> bool {
    meta.uid() == nix::unistd::geteuid().as_raw() && xattr::path_has(path, xattr::Mark::Result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks the file at `path` as a result ioz wrote; false (the test
    /// recorded as skipped) where the file system keeps no user attributes.
    fn set_mark(path: &Path) -> bool {
        let file = fs::File::open(path).unwrap();
        match xattr::set(std::os::fd::AsFd::as_fd(&file), xattr::Mark::Result) {
            Ok(()) => true,
            Err(e) => {
                crate::system::skip_ledger::skipped(&format!("no user xattrs here: {e}"));
                false
            }
        }
    }

    #[test]
    fn spellings_of_one_file_are_one_location() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir(d.join("sub")).unwrap();
        let a = d.join("sub/a");
        // Missing: by real directory and name.
        assert_eq!(locate(&a), locate(&d.join("sub/../sub/./a")));
        std::os::unix::fs::symlink("sub", d.join("link")).unwrap();
        assert_eq!(locate(&a), locate(&d.join("link/a")));
        assert_ne!(locate(&a), locate(&d.join("sub/b")));
        // Existing: by inode, hard links alike.
        fs::write(&a, b"x").unwrap();
        fs::hard_link(&a, d.join("h")).unwrap();
        assert_eq!(locate(&a), locate(&d.join("h")));
        assert!(matches!(locate(&a), Location::Existing(_)));
    }

    #[test]
    fn a_new_name_in_a_directory_is_approved() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let place = resolve("--json", &path)
            .unwrap()
            .approve("--json", false)
            .unwrap();
        assert_eq!(place.dir, dir.path().canonicalize().unwrap());
        assert_eq!(place.name, "r.json");
        assert_eq!(place.replaces, None);
    }

    #[test]
    fn an_existing_file_needs_the_mark_or_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        fs::write(&path, b"mine").unwrap();
        let e = resolve("--csv", &path)
            .unwrap()
            .approve("--csv", false)
            .unwrap_err();
        assert!(e.to_string().contains("was not written by ioz"), "{e}");
        assert!(matches!(e.problem, Problem::NotWrittenByIoz { .. }));
        let forced = resolve("--csv", &path).unwrap().approve("--csv", true);
        assert!(forced.unwrap().replaces.is_some());
        if !set_mark(&path) {
            return;
        }
        let marked = resolve("--csv", &path).unwrap().approve("--csv", false);
        let ino = fs::metadata(&path).unwrap().ino();
        assert_eq!(marked.unwrap().replaces.map(|id| id.ino), Some(ino));
    }

    #[test]
    fn nothing_goes_among_a_history_s_files_even_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path().canonicalize().unwrap().join("h");
        fs::create_dir_all(h.join("runs")).unwrap();
        fs::write(h.join("ioz-history"), b"mark").unwrap();
        fs::write(h.join("runs/1.json"), b"{}").unwrap();
        for path in [
            h.join("runs/1.json"),
            h.join("runs/2.json"),
            h.join("history.sqlite"),
        ] {
            let e = resolve("--json", &path)
                .unwrap()
                .approve("--json", true)
                .unwrap_err();
            assert!(matches!(e.problem, Problem::InHistory { .. }), "{e}");
            assert!(
                e.to_string().ends_with(&format!(
                    "is in the ioz history {}, which only ioz history changes; choose another path",
                    h.display()
                )),
                "{e}"
            );
        }
        // Beside it, or a runs/ of no history: free.
        for path in [dir.path().join("r.json"), dir.path().join("runs/r.json")] {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            assert!(
                resolve("--json", &path)
                    .unwrap()
                    .approve("--json", false)
                    .is_ok()
            );
        }
    }

    #[test]
    fn directories_devices_and_missing_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |opt, path: &Path| resolve(opt, path).unwrap_err().to_string();
        let e = refused("--json", dir.path());
        assert!(e.ends_with("is a directory, not a file"), "{e}");
        let e = refused("--csv", Path::new("/dev/null"));
        assert_eq!(
            e,
            "--csv: /dev/null is a character device; ioz writes results only to regular files"
        );
        let e = refused("--csv", &dir.path().join("no/x.csv"));
        assert!(e.ends_with("no does not exist"), "{e}");
        let e = refused("--csv", &dir.path().join("new/"));
        assert!(e.ends_with("ends in /, but a result is a file"), "{e}");
        let link = dir.path().join("null.csv");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        let e = refused("--csv", &link);
        assert!(
            e.contains("null.csv leads to /dev/null, a character device"),
            "{e}"
        );
    }
}
