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

use std::ffi::{CString, OsString};
use std::fs::{self, FileType, Metadata};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};

use super::writable_dir::check_writable_dir;
use crate::model::result_files::{FileId, Place, RESULT_MARK, RESULT_MARK_VALUE};

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
pub fn resolve(opt: &str, given: &Path) -> Result<Resolved, String> {
    let shown = given.display();
    match fs::symlink_metadata(given) {
        Ok(own) => {
            let is_link = own.file_type().is_symlink();
            let meta = if is_link {
                followed_link(opt, given)?
            } else {
                own
            };
            if !meta.is_file() {
                let kind = kind_of(meta.file_type());
                let end = not_a_file(meta.file_type());
                if !is_link {
                    return Err(format!("{opt}: {shown} is {kind}{end}"));
                }
                // A pipe or socket behind /proc/self/fd has no path to show.
                let target = fs::canonicalize(given)
                    .or_else(|_| fs::read_link(given))
                    .unwrap_or_default();
                return Err(format!(
                    "{opt}: {shown} leads to {}, {kind}{end}",
                    target.display()
                ));
            }
            let real = fs::canonicalize(given)
                .map_err(|e| format!("{opt}: cannot follow {shown}: {e}"))?;
            let (Some(dir), Some(name)) = (real.parent(), real.file_name()) else {
                return Err(format!("{opt}: {shown} does not name a file"));
            };
            Ok(Resolved {
                given: given.to_path_buf(),
                dir: dir.to_path_buf(),
                name: name.to_os_string(),
                existing: Some(meta),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if given.as_os_str().as_bytes().ends_with(b"/") {
                return Err(format!("{opt}: {shown} ends in /, but a result is a file"));
            }
            let Some(name) = given.file_name() else {
                return Err(format!("{opt}: {shown} does not name a file"));
            };
            let dir = existing_parent(opt, given)?;
            Ok(Resolved {
                given: given.to_path_buf(),
                dir,
                name: name.to_os_string(),
                existing: None,
            })
        }
        Err(e) => Err(format!("{opt}: cannot check {shown}: {e}")),
    }
}

/// What the link `given` leads to; a link to nothing is refused: ioz does
/// not make files wherever a link points.
fn followed_link(opt: &str, given: &Path) -> Result<Metadata, String> {
    fs::metadata(given).map_err(|e| {
        let target = fs::read_link(given).unwrap_or_default();
        if e.kind() == io::ErrorKind::NotFound {
            format!(
                "{opt}: {} is a link to {}, which does not exist; \
                 ioz makes no file where a link points",
                given.display(),
                target.display()
            )
        } else {
            format!("{opt}: cannot follow {}: {e}", given.display())
        }
    })
}

/// The real directory `given` would be made in; it must exist.
pub fn existing_parent(opt: &str, given: &Path) -> Result<PathBuf, String> {
    let parent = match given.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match fs::canonicalize(parent) {
        Ok(dir) if dir.is_dir() => Ok(dir),
        Ok(_) => Err(format!("{opt}: {} is not a directory", parent.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(format!(
            "{opt}: directory {} does not exist",
            parent.display()
        )),
        Err(e) => Err(format!("{opt}: cannot check {}: {e}", parent.display())),
    }
}

/// "a directory", "a block device", … for messages.
pub fn kind_of(kind: FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// The end of a refusal for something that is not a regular file.
fn not_a_file(kind: FileType) -> &'static str {
    if kind.is_dir() {
        ", not a file"
    } else {
        "; ioz writes results only to regular files"
    }
}

impl Resolved {
    /// The place of the result, when ioz may put a file there: the directory
    /// takes a new file, and a file already there is ioz's own or `force`
    /// gives it up.
    pub fn approve(self, opt: &str, force: bool) -> Result<Place, String> {
        check_writable_dir(&self.dir)
            .map_err(|why| format!("{opt}: cannot write in {}: {why}", self.dir.display()))?;
        let replaces = match &self.existing {
            None => None,
            Some(m) if force || written_by_ioz(&self.dir.join(&self.name), m) => Some(file_id(m)),
            Some(_) => {
                return Err(format!(
                    "{opt}: {} exists and was not written by ioz; refusing to replace it \
                     (choose another name, or add --force to replace it)",
                    self.given.display()
                ));
            }
        };
        Ok(Place {
            given: self.given,
            dir: self.dir,
            name: self.name,
            replaces,
        })
    }
}

/// A result file ioz wrote: its mark, on a file the running user owns.
fn written_by_ioz(path: &Path, meta: &Metadata) -> bool {
    meta.uid() == nix::unistd::geteuid().as_raw() && has_result_mark(path)
}

fn has_result_mark(path: &Path) -> bool {
    let (Ok(p), Ok(name)) = (
        CString::new(path.as_os_str().as_bytes()),
        CString::new(RESULT_MARK),
    ) else {
        return false;
    };
    let mut value = [0u8; 16];
    // nix and std have no extended-attribute calls.
    // SAFETY: lgetxattr reads the two NUL-terminated strings, which outlive
    // the call, and writes at most value.len() bytes into value.
    let n = unsafe {
        libc::lgetxattr(
            p.as_ptr(),
            name.as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    usize::try_from(n).is_ok_and(|n| &value[..n] == RESULT_MARK_VALUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_mark(path: &Path) {
        let p = CString::new(path.as_os_str().as_bytes()).unwrap();
        let name = CString::new(RESULT_MARK).unwrap();
        // SAFETY: the strings and the value outlive the call.
        let r = unsafe {
            libc::setxattr(
                p.as_ptr(),
                name.as_ptr(),
                RESULT_MARK_VALUE.as_ptr().cast(),
                RESULT_MARK_VALUE.len(),
                0,
            )
        };
        assert_eq!(r, 0, "{}", io::Error::last_os_error());
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
        assert!(e.contains("was not written by ioz"), "{e}");
        let forced = resolve("--csv", &path).unwrap().approve("--csv", true);
        assert!(forced.unwrap().replaces.is_some());
        set_mark(&path);
        let marked = resolve("--csv", &path).unwrap().approve("--csv", false);
        let ino = fs::metadata(&path).unwrap().ino();
        assert_eq!(marked.unwrap().replaces.map(|id| id.ino), Some(ino));
    }

    #[test]
    fn directories_devices_and_missing_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = resolve("--json", dir.path()).unwrap_err();
        assert!(e.ends_with("is a directory, not a file"), "{e}");
        let e = resolve("--csv", Path::new("/dev/null")).unwrap_err();
        assert_eq!(
            e,
            "--csv: /dev/null is a character device; ioz writes results only to regular files"
        );
        let e = resolve("--csv", &dir.path().join("no/x.csv")).unwrap_err();
        assert!(e.ends_with("no does not exist"), "{e}");
        let e = resolve("--csv", &dir.path().join("new/")).unwrap_err();
        assert!(e.ends_with("ends in /, but a result is a file"), "{e}");
        let link = dir.path().join("null.csv");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        let e = resolve("--csv", &link).unwrap_err();
        assert!(
            e.contains("null.csv leads to /dev/null, a character device"),
            "{e}"
        );
    }
}
