//! ioz never truncates, overwrites or deletes a file it did not create, and
//! never writes to a block device that holds data or is in use.
//!
//! Files ioz creates carry an extended attribute naming ioz as their owner, so
//! a later run (after `-w`, or after a crash) recognises them. On a file system
//! without user xattrs the file is still ioz's for the run that created it.
//!
//! A block device is usable when it is blank: no partition table, file system,
//! LVM, RAID, LUKS or swap signature, and no partitions. One that holds any of
//! these is refused unless `--destroy-data` names that very device (by WWN,
//! serial or /dev/disk/by-id name; by path only when it has none of those). A
//! device that is mounted, active swap or held by another device (or has a
//! partition that is) is always refused. Devices are never created, truncated
//! or removed, and a run that would write past a device's end is refused.

use std::collections::HashMap;
use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::{IoFailure, RunError};
use crate::model::config::{RunConfig, Sizes};
use crate::system::device::{self, BlockDevice, DeviceKind, Identity, join_and};

const OWNER_ATTR: &str = "user.ioz.owner";
const OWNER_VALUE: &[u8] = b"ioz";

/// The test file (or block device) and what ioz may do to it.
#[derive(Debug)]
pub struct TargetFile {
    path: PathBuf,
    /// ioz created it or was allowed (--force) to treat it as its own.
    owned: bool,
    /// A block device: used in place, never created or removed.
    device: bool,
    /// `-+E`: someone else's existing file, only ever read.
    read_only: bool,
}

impl TargetFile {
    /// Checks the path before anything is written: an existing file must be
    /// ioz's own, or `force` must be given; a block device must be blank and
    /// unused (see the module), with no `--destroy-data` to name it.
    #[cfg(test)]
    pub fn check(path: &Path, force: bool) -> Result<TargetFile, RunError> {
        check_target(path, force, None)
    }

    /// [`TargetFile::check`] for a target of `config`'s run: its `--force`,
    /// its `--destroy-data` and the bytes it writes to each device.
    pub fn check_for_run(path: &Path, config: &RunConfig) -> Result<TargetFile, RunError> {
        check_target(path, config.force, Some(config))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the file if it does not exist, marking it as ioz's.
    /// A device is used as it is.
    pub fn ensure_exists(&mut self) -> Result<(), IoFailure> {
        if self.device || self.read_only || (self.owned && self.path.exists()) {
            return Ok(());
        }
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o640)
            .open(&self.path)
            .map_err(|source| IoFailure {
                operation: "create",
                path: self.path.clone(),
                offset: None,
                pass: None,
                source,
            })?;
        drop(file);
        self.owned = true;
        // Best effort: without xattrs the file is still ours for this run.
        let _ = set_owner_mark(&self.path);
        Ok(())
    }

    /// Gives up any claim on the path (it no longer leads to ioz's file: -U
    /// could not mount its file system back), so nothing there is removed.
    pub fn disown(&mut self) {
        self.owned = false;
    }

    /// Deletes the file if ioz owns it. Never touches a foreign file or a device.
    pub fn remove(&mut self) -> Result<(), IoFailure> {
        if !self.owned || self.device {
            return Ok(());
        }
        match fs::remove_file(&self.path) {
            Ok(()) => {
                self.owned = false;
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.owned = false;
                Ok(())
            }
            Err(source) => Err(IoFailure {
                operation: "remove",
                path: self.path.clone(),
                offset: None,
                pass: None,
                source,
            }),
        }
    }
}

/// Checks every target of `config`'s run (each distinct file once).
pub fn check_targets(config: &RunConfig) -> Result<(), RunError> {
    config
        .run_paths()
        .iter()
        .try_for_each(|p| TargetFile::check_for_run(p, config).map(drop))
}

/// `-+E`: an existing regular file that ioz only reads: never created,
/// written, truncated or removed.
fn existing_read_only(path: &Path) -> Result<TargetFile, RunError> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(TargetFile {
            path: path.to_path_buf(),
            owned: false,
            device: false,
            read_only: true,
        }),
        Ok(_) => Err(RunError::Refused(format!(
            "-+E: {} is not a regular file",
            path.display()
        ))),
        Err(e) => Err(RunError::Refused(format!(
            "-+E: cannot use {}: {e}",
            path.display()
        ))),
    }
}

fn check_target(path: &Path, force: bool, run: Option<&RunConfig>) -> Result<TargetFile, RunError> {
    if let Some(run) = run {
        check_destroy_ids(run)?;
    }
    if run.is_some_and(|r| r.variations.existing_file) {
        return existing_read_only(path);
    }
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound && in_device_dir(path) => {
            return Err(RunError::Refused(format!(
                "{} does not exist, and ioz creates no files in /dev \
                 (is the device name right?)",
                path.display()
            )));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(TargetFile {
                path: path.to_path_buf(),
                owned: false,
                device: false,
                read_only: false,
            });
        }
        Err(e) => {
            return Err(RunError::Refused(format!(
                "cannot check the test file {}: {e}",
                path.display()
            )));
        }
        Ok(m) => m,
    };
    let kind = meta.file_type();
    // A block device is often given by a link (/dev/disk/by-id/…): followed.
    if DeviceKind::of(path) == Some(DeviceKind::Block) {
        return check_device(path, run);
    }
    // Not followed here: a link to a character device is refused below as
    // not a regular file, like any other link.
    if kind.is_char_device() {
        return Err(RunError::Refused(format!(
            "{} is a character device; ioz tests regular files and block devices",
            path.display()
        )));
    }
    if !kind.is_file() {
        return Err(RunError::Refused(format!(
            "{} exists and is not a regular file",
            path.display()
        )));
    }
    if has_owner_mark(path) || force {
        return Ok(TargetFile {
            path: path.to_path_buf(),
            owned: true,
            device: false,
            read_only: false,
        });
    }
    Err(RunError::Refused(format!(
        "{} exists and was not created by ioz; refusing to overwrite it \
         (choose another -f, or add --force to let ioz overwrite and delete it)",
        path.display()
    )))
}

/// Whether `path` names an entry of /dev itself (or of its device-link
/// directories), where a missing name is a mistyped device, not a new file.
fn in_device_dir(path: &Path) -> bool {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::canonicalize(parent).is_ok_and(|dir| {
        dir == Path::new("/dev") || dir == Path::new("/dev/mapper") || dir.starts_with("/dev/disk")
    })
}

/// The block device at `path`, `None` when it is not one.
fn examine(path: &Path) -> Result<Option<BlockDevice>, RunError> {
    if DeviceKind::of(path) != Some(DeviceKind::Block) {
        return Ok(None);
    }
    BlockDevice::open(path).map(Some).map_err(|e| {
        RunError::Refused(format!("cannot examine the device {}: {e}", path.display()))
    })
}

/// Each `--destroy-data` must name a device the run writes to.
fn check_destroy_ids(run: &RunConfig) -> Result<(), RunError> {
    if run.destroy_data.is_empty() {
        return Ok(());
    }
    let mut devices: Vec<(PathBuf, Identity)> = Vec::new();
    for p in run.run_paths() {
        if let Some(dev) = examine(&p)? {
            devices.push((p, dev.identity()));
        }
    }
    for given in &run.destroy_data {
        if devices.iter().any(|(_, id)| id.matches(given)) {
            continue;
        }
        let message = match &devices[..] {
            [] => format!(
                "--destroy-data={given} names no device this run writes to \
                 ({} is not a block device)",
                run.run_paths()[0].display()
            ),
            [(p, id)] => format!(
                "--destroy-data={given} does not name {} (which is named {}); \
                 refusing to write to it",
                p.display(),
                id.suggestion()
            ),
            many => format!(
                "--destroy-data={given} names none of the devices this run writes to ({}); \
                 refusing to write to them",
                many.iter()
                    .map(|(p, id)| format!("{} is named {}", p.display(), id.suggestion()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(RunError::Refused(message));
    }
    Ok(())
}

fn check_device(path: &Path, run: Option<&RunConfig>) -> Result<TargetFile, RunError> {
    let Some(dev) = examine(path)? else {
        return Err(RunError::Refused(format!(
            "{} is not a block device",
            path.display()
        )));
    };
    let uses = dev.uses();
    if !uses.is_empty() {
        return Err(RunError::Refused(format!(
            "{} {}; refusing to write to it while it is in use",
            path.display(),
            join_and(&uses)
        )));
    }
    let identity = dev.identity();
    let permitted = run.is_some_and(|r| r.destroy_data.iter().any(|given| identity.matches(given)));
    if !permitted {
        let contents = dev.contents().map_err(|e| {
            RunError::Refused(format!(
                "cannot read {} to check what it holds: {e}",
                path.display()
            ))
        })?;
        if !contents.is_empty() {
            return Err(RunError::Refused(format!(
                "{} {}; refusing to write to it (add --destroy-data={} to destroy it)",
                path.display(),
                join_and(&contents),
                identity.suggestion()
            )));
        }
    }
    if let Some(run) = run {
        check_size(path, &dev, run)?;
    }
    Ok(TargetFile {
        path: path.to_path_buf(),
        owned: false,
        device: true,
        read_only: false,
    })
}

/// What a run writes to one device: `files` files of `file_bytes` each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceNeed {
    pub file_bytes: u64,
    pub files: u64,
}

impl DeviceNeed {
    pub fn total(&self) -> u64 {
        self.file_bytes.saturating_mul(self.files)
    }
}

/// The most a run writes to the device the paths for which `on_device` holds
/// lead to: the largest file size (-s, or the largest auto size), times the
/// workers whose -F file is that device, at the worker count needing most.
pub fn bytes_needed(config: &RunConfig, on_device: impl Fn(&Path) -> bool) -> DeviceNeed {
    let mut cache: HashMap<PathBuf, bool> = HashMap::new();
    let mut on = |p: PathBuf| *cache.entry(p).or_insert_with_key(|p| on_device(p));
    let largest_file = match &config.sizes {
        Sizes::Single { file_bytes, .. } => *file_bytes,
        Sizes::Auto(a) => a.file_sizes.values().into_iter().max().unwrap_or(0),
    };
    let Some(tp) = &config.throughput else {
        return DeviceNeed {
            file_bytes: largest_file,
            files: u64::from(on(config.path.clone())),
        };
    };
    let Sizes::Single {
        file_bytes,
        record_bytes,
    } = config.sizes
    else {
        return DeviceNeed {
            file_bytes: largest_file,
            files: u64::from(on(config.path.clone())),
        };
    };
    let mut most = DeviceNeed {
        file_bytes: 0,
        files: 0,
    };
    for &workers in &tp.worker_counts {
        let files = if tp.shared_file {
            u64::from(on(tp.worker_path(&config.path, 0)))
        } else {
            (0..workers)
                .filter(|&i| on(tp.worker_path(&config.path, i)))
                .count() as u64
        };
        let need = DeviceNeed {
            file_bytes: tp.worker_file_bytes(file_bytes, record_bytes, workers),
            files,
        };
        if need.total() > most.total() {
            most = need;
        }
    }
    most
}

fn check_size(path: &Path, dev: &BlockDevice, run: &RunConfig) -> Result<(), RunError> {
    let rdev = dev.rdev();
    let need = bytes_needed(run, |p| device::rdev_of(p) == Some(rdev));
    if need.total() <= dev.size {
        return Ok(());
    }
    let what = if need.files > 1 {
        format!(
            "{} files of {} kB, {} kB ({} bytes) in all,",
            need.files,
            need.file_bytes / 1024,
            need.total() / 1024,
            need.total()
        )
    } else {
        format!("{} kB ({} bytes)", need.total() / 1024, need.total())
    };
    let hint = match (&run.sizes, need.files > 1) {
        (Sizes::Auto(_), _) => "give a smaller -g or -s",
        (_, true) => "give a smaller -s or fewer workers",
        _ => "give a smaller -s",
    };
    Err(RunError::Refused(format!(
        "{} has room for {} kB ({} bytes) but the run writes {what} to it; refusing ({hint})",
        path.display(),
        dev.size / 1024,
        dev.size
    )))
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

pub fn has_owner_mark(path: &Path) -> bool {
    let (Ok(p), Ok(name)) = (c_path(path), CString::new(OWNER_ATTR)) else {
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
    n >= 0 && &value[..n as usize] == OWNER_VALUE
}

fn set_owner_mark(path: &Path) -> io::Result<()> {
    let p = c_path(path)?;
    let name = CString::new(OWNER_ATTR).expect("constant has no NUL");
    // SAFETY: lsetxattr reads the two NUL-terminated strings and
    // OWNER_VALUE.len() bytes of OWNER_VALUE, all of which outlive the call.
    let r = unsafe {
        libc::lsetxattr(
            p.as_ptr(),
            name.as_ptr(),
            OWNER_VALUE.as_ptr().cast(),
            OWNER_VALUE.len(),
            0,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config as config;

    #[test]
    fn a_missing_file_is_created_marked_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tmp");
        let mut t = TargetFile::check(&path, false).unwrap();
        t.ensure_exists().unwrap();
        assert!(path.exists());
        // A second run recognises it.
        assert!(TargetFile::check(&path, false).is_ok());
        t.remove().unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn a_foreign_file_is_refused_and_never_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.txt");
        fs::write(&path, b"precious").unwrap();
        let err = TargetFile::check(&path, false).unwrap_err();
        assert!(err.to_string().contains("was not created by ioz"), "{err}");
        assert_eq!(err.exit_code(), 2);
        assert_eq!(fs::read(&path).unwrap(), b"precious");
        let forced = TargetFile::check(&path, true).unwrap();
        assert!(forced.owned);
    }

    #[test]
    fn directories_and_character_devices_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(TargetFile::check(dir.path(), true).is_err());
        let err = TargetFile::check(Path::new("/dev/null"), true).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        // A link is not followed to a character device: it is refused as a link.
        let link = dir.path().join("null-link");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        let err = TargetFile::check(&link, true).unwrap_err();
        assert!(
            err.to_string().contains("exists and is not a regular file"),
            "{err}"
        );
    }

    const M: u64 = 1 << 20;

    #[test]
    fn a_device_needs_the_largest_file_size() {
        let c = config(&["-s", "8m", "-f", "/dev/x"]);
        let need = bytes_needed(&c, |p| p == Path::new("/dev/x"));
        assert_eq!(
            need,
            DeviceNeed {
                file_bytes: 8 * M,
                files: 1
            }
        );
        let c = config(&["-a", "-g", "32m", "-f", "/dev/x"]);
        assert_eq!(bytes_needed(&c, |_| true).total(), 32 * M);
        assert_eq!(bytes_needed(&c, |_| false).total(), 0);
    }

    #[test]
    fn workers_on_one_device_multiply_its_need() {
        let c = config(&["-t", "3", "-s", "8m", "-F", "/dev/x", "/dev/y", "/dev/x"]);
        let need = bytes_needed(&c, |p| p == Path::new("/dev/x"));
        assert_eq!(
            need,
            DeviceNeed {
                file_bytes: 8 * M,
                files: 2
            }
        );
        // -+k divides the size among the workers; the largest count is not always the most.
        let c = config(&[
            "-l", "1", "-u", "2", "-+k", "-s", "8m", "-F", "/dev/x", "/dev/x",
        ]);
        assert_eq!(bytes_needed(&c, |_| true).total(), 8 * M);
        // Workers sharing one file (-+V) write it once.
        let c = config(&["-t", "4", "-+V", "-s", "8m", "-F", "/dev/x"]);
        assert_eq!(
            bytes_needed(&c, |_| true),
            DeviceNeed {
                file_bytes: 8 * M,
                files: 1
            }
        );
    }

    #[test]
    fn a_missing_name_among_the_devices_is_refused() {
        let err = TargetFile::check(Path::new("/dev/ioz-no-such-disk"), true).unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
        assert!(!Path::new("/dev/ioz-no-such-disk").exists());
        assert!(TargetFile::check(Path::new("/dev/shm/ioz-no-such-file"), false).is_ok());
    }

    #[test]
    fn destroy_data_must_name_a_device_of_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.tmp");
        let path_arg = path.to_string_lossy().into_owned();
        let c = config(&["-s", "64k", "-f", &path_arg, "--destroy-data=/dev/sdz"]);
        let err = TargetFile::check_for_run(&path, &c).unwrap_err();
        assert!(err.to_string().contains("names no device"), "{err}");
        assert_eq!(err.exit_code(), 2);
        assert!(check_targets(&c).is_err());
        assert!(check_targets(&config(&["-s", "64k", "-f", &path_arg])).is_ok());
        assert!(!path.exists());
    }
}
