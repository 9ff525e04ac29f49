//! The checks -U makes before any I/O: whatever would make a cycle fail,
//! lose data, or leave the cache warm is refused with its reason.

use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

use nix::errno::Errno;

use super::mount_id_of;
use crate::system::device::{self, DeviceKind};
use crate::system::mountinfo::{self, Mount};
use crate::system::sysfs::read_attr;

/// The mount whose mount point is `dir`: the one with `id` (statx), else
/// the last listed there (the top of a stack).
pub(super) fn find_mount_at<'a>(
    mounts: &'a [Mount],
    dir: &Path,
    id: Option<u64>,
) -> Option<&'a Mount> {
    let mut at = mounts.iter().filter(|m| m.mount_point == dir);
    match id {
        Some(id) => at.find(|m| m.id == id),
        None => at.next_back(),
    }
}

/// The mount point of the file system holding `dir`, for messages.
pub(super) fn holder(mounts: &[Mount], dir: &Path) -> String {
    mountinfo::mount_holding(mounts, dir)
        .map(|m| m.mount_point.display().to_string())
        .unwrap_or_else(|| String::from("?"))
}

/// Why -U refuses to cycle a mount; its text follows "-U MOUNTPOINT: ".
#[derive(Debug, thiserror::Error)]
pub enum Unfit {
    #[error("{0} keeps its files in memory only; unmounting it would destroy them")]
    InMemory(String),
    #[error("{0} is a kernel interface, not stored data")]
    KernelInterface(String),
    #[error("{0} is served by a FUSE daemon that mount(2) cannot start again")]
    Fuse(String),
    #[error("an overlay's cache belongs to the file systems below it; give their mount point")]
    Overlay,
    #[error("it is an idmapped mount, which mount(2) cannot recreate")]
    Idmapped,
    #[error(
        "it is a bind mount of {} of the file system on {device}; give that file system's own mount point",
        root.display()
    )]
    BindMount { root: PathBuf, device: String },
    #[error("{} is mounted inside it, so it cannot be unmounted", .0.display())]
    MountedInside(PathBuf),
    #[error(
        "its file system is also mounted at {}; unmounting one of them would keep its cache",
        .0.display()
    )]
    MountedTwice(PathBuf),
    #[error(
        "its file system is also mounted at {} in the mount namespace of process {pid} ({command}); \
         unmounting it here would keep its cache",
        at.display()
    )]
    OtherNamespace {
        at: PathBuf,
        pid: String,
        command: String,
    },
    #[error("{who} has {what} there, so it could not be unmounted")]
    InUse { who: String, what: String },
    #[error("the test file {} is a block device; -U remounts a file system", .0.display())]
    TestFileIsADevice(PathBuf),
    #[error("cannot find the working directory: {0}")]
    NoWorkingDirectory(io::Error),
    #[error("the test file's directory {}: {source}", dir.display())]
    TestFileDirectory { dir: PathBuf, source: io::Error },
    #[error(
        "the test file {} is not on that file system (it is on the one mounted at {holder})",
        path.display()
    )]
    TestFileElsewhere { path: PathBuf, holder: String },
    #[error(
        "{} detaches itself when unmounted (mount -o loop); attach the image with \
         losetup and mount that device instead",
        .0.display()
    )]
    DetachesItself(PathBuf),
    #[error("mount(2) cannot set the mount option {0}")]
    MountOption(String),
    #[error("the option {0} holds a comma, which mount(2) data cannot carry")]
    CommaInOption(String),
    #[error("the option {0:?} holds a NUL byte")]
    NulInOption(String),
    #[error("the kernel has no {0} file system to mount it back with")]
    NoSuchFileSystem(String),
    #[error(
        "the kernel refuses its mount option {option} ({}), so ioz could not mount it back as it is",
        errno.desc()
    )]
    OptionRefused { option: String, errno: Errno },
}

/// Types whose files live only in memory: unmounting destroys them.
const IN_MEMORY: &[&str] = &["tmpfs", "ramfs", "hugetlbfs", "devtmpfs"];
/// Kernel interfaces that hold no stored files.
const PSEUDO: &[&str] = &[
    "proc",
    "sysfs",
    "cgroup",
    "cgroup2",
    "devpts",
    "mqueue",
    "debugfs",
    "tracefs",
    "securityfs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "efivarfs",
    "binfmt_misc",
    "autofs",
    "rpc_pipefs",
    "nsfs",
    "selinuxfs",
    "nfsd",
];

/// Whether -U can cycle `mount` and leave it as it was (pure: tested on text).
pub(super) fn check_mount(mounts: &[Mount], mount: &Mount) -> Result<(), Unfit> {
    let t = mount.fs_type.as_str();
    if IN_MEMORY.contains(&t) {
        return Err(Unfit::InMemory(t.to_string()));
    }
    if PSEUDO.contains(&t) {
        return Err(Unfit::KernelInterface(t.to_string()));
    }
    if t == "fuse" || t == "fuseblk" || t.starts_with("fuse.") {
        return Err(Unfit::Fuse(t.to_string()));
    }
    if t == "overlay" {
        return Err(Unfit::Overlay);
    }
    if mount.mount_options.iter().any(|o| o == "idmapped") {
        return Err(Unfit::Idmapped);
    }
    if mount.root != Path::new("/") && !is_btrfs_subvolume(mount) {
        return Err(Unfit::BindMount {
            root: mount.root.clone(),
            device: mount.source.to_string_lossy().into_owned(),
        });
    }
    if let Some(below) = mounts.iter().find(|m| m.parent_id == mount.id) {
        return Err(Unfit::MountedInside(below.mount_point.clone()));
    }
    if let Some(other) = mounts
        .iter()
        .find(|m| m.dev == mount.dev && m.id != mount.id)
    {
        return Err(Unfit::MountedTwice(other.mount_point.clone()));
    }
    Ok(())
}

/// A btrfs subvolume mount: its root is the subvolume, which `subvol=` in
/// the super options names, so mounting back gives the same root.
pub(super) fn is_btrfs_subvolume(mount: &Mount) -> bool {
    mount.fs_type == "btrfs"
        && mount.super_options.iter().any(|o| {
            o.strip_prefix("subvol=")
                .is_some_and(|s| Path::new(s) == mount.root)
        })
}

/// The test file must be a file (not a device) on that very mount.
pub(super) fn check_test_file(path: &Path, mount: &Mount, mounts: &[Mount]) -> Result<(), Unfit> {
    if DeviceKind::of(path) == Some(DeviceKind::Block) {
        return Err(Unfit::TestFileIsADevice(path.to_path_buf()));
    }
    let absolute = std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .map_err(Unfit::NoWorkingDirectory)?;
    let parent = absolute.parent().unwrap_or(Path::new("/"));
    let dir = std::fs::canonicalize(parent).map_err(|source| Unfit::TestFileDirectory {
        dir: parent.to_path_buf(),
        source,
    })?;
    let on_it =
        dir.starts_with(&mount.mount_point) && mount_id_of(&dir).is_none_or(|id| id == mount.id);
    if on_it {
        Ok(())
    } else {
        Err(Unfit::TestFileElsewhere {
            path: path.to_path_buf(),
            holder: holder(mounts, &dir),
        })
    }
}

/// A loop device attached by `mount -o loop` detaches itself when the file
/// system is unmounted, and there would be nothing left to mount back.
pub(super) fn check_source_survives(source: &Path) -> Result<(), Unfit> {
    let Some(rdev) = device::rdev_of(source) else {
        return Ok(());
    };
    let (major, minor) = device::major_minor(rdev);
    let flag = read_attr(format!("/sys/dev/block/{major}:{minor}/loop/autoclear"));
    if flag.as_deref() == Some("1") {
        return Err(Unfit::DetachesItself(source.to_path_buf()));
    }
    Ok(())
}

/// A mount of the same super block in another mount namespace (a container,
/// a service with a private /tmp) keeps the file system and its cache alive
/// when ioz unmounts its own. Found through each namespace's processes.
pub(super) fn check_other_namespaces(mount: &Mount) -> Result<(), Unfit> {
    let ns_of = |pid: &str| std::fs::read_link(format!("/proc/{pid}/ns/mnt")).ok();
    let Some(mine) = ns_of("self") else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Ok(());
    };
    let mut seen = vec![mine];
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Some(ns) = ns_of(pid) else {
            continue;
        };
        if seen.contains(&ns) {
            continue;
        }
        let text = std::fs::read_to_string(entry.path().join("mountinfo")).unwrap_or_default();
        if let Some(other) = mountinfo::parse(&text).iter().find(|m| m.dev == mount.dev) {
            let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            return Err(Unfit::OtherNamespace {
                at: other.mount_point.clone(),
                pid: pid.to_string(),
                command: comm.trim().to_string(),
            });
        }
        seen.push(ns);
    }
    Ok(())
}

/// A process using the file system (its working directory, root, program or
/// an open file; ioz's own working directory excepted: ioz steps out of it)
/// would keep the unmount busy. Found the way fuser(1) does, through /proc.
pub(super) fn check_users(mount: &Mount) -> Result<(), Unfit> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Ok(());
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(what) = use_of(&entry.path(), mount.id, pid == me) {
            let who = if pid == me {
                String::from("ioz itself")
            } else {
                let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
                format!("process {pid} ({})", comm.trim())
            };
            return Err(Unfit::InUse { who, what });
        }
    }
    Ok(())
}

/// How the process at `proc_dir` uses the mount `id`, if it does.
fn use_of(proc_dir: &Path, id: u64, is_self: bool) -> Option<String> {
    let links: &[(&str, &str)] = if is_self {
        &[("root", "its root directory")]
    } else {
        &[
            ("cwd", "its working directory"),
            ("root", "its root directory"),
            ("exe", "its program"),
        ]
    };
    for (link, what) in links {
        if mount_id_of(&proc_dir.join(link)) == Some(id) {
            return Some(what.to_string());
        }
    }
    let fds = std::fs::read_dir(proc_dir.join("fdinfo")).ok()?;
    for fd in fds.flatten() {
        let Ok(info) = std::fs::read_to_string(fd.path()) else {
            continue;
        };
        let on_it = info
            .lines()
            .filter_map(|l| l.strip_prefix("mnt_id:"))
            .any(|v| v.trim().parse() == Ok(id));
        if on_it {
            let name = fd.file_name();
            let target = std::fs::read_link(proc_dir.join("fd").join(&name))
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| String::from("?"));
            return Some(format!(
                "{target} open (descriptor {})",
                name.to_string_lossy()
            ));
        }
    }
    None
}

/// Asks the kernel whether it accepts each file-system option, without
/// mounting anything (fsopen + fsconfig; kernels before 5.2 skip the check).
pub(super) fn validate_options(fs_type: &str, options: &[String]) -> Result<(), Unfit> {
    const FSOPEN_CLOEXEC: libc::c_uint = 1;
    const FSCONFIG_SET_FLAG: libc::c_uint = 0;
    const FSCONFIG_SET_STRING: libc::c_uint = 1;
    let c = |s: &str| CString::new(s).map_err(|_| Unfit::NulInOption(s.to_string()));
    let ty = c(fs_type)?;
    // nix wraps neither fsopen nor fsconfig (new mount API, Linux 5.2).
    // SAFETY: fsopen reads the NUL-terminated type name, which outlives the
    // call, and takes plain flags; it returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_fsopen, ty.as_ptr(), FSOPEN_CLOEXEC) } as i32;
    if fd < 0 {
        return match Errno::last() {
            Errno::ENODEV => Err(Unfit::NoSuchFileSystem(fs_type.to_string())),
            _ => Ok(()),
        };
    }
    let mut verdict = Ok(());
    for option in options {
        let (key, value) = match option.split_once('=') {
            Some((k, v)) => (c(k)?, Some(c(v)?)),
            None => (c(option)?, None),
        };
        // SAFETY: fsconfig reads the NUL-terminated key and value (or a null
        // value for a flag, as FSCONFIG_SET_FLAG requires), which outlive the
        // call, on the descriptor fsopen returned, which is still open.
        let r = unsafe {
            match &value {
                Some(v) => libc::syscall(
                    libc::SYS_fsconfig,
                    fd,
                    FSCONFIG_SET_STRING,
                    key.as_ptr(),
                    v.as_ptr(),
                    0,
                ),
                None => libc::syscall(
                    libc::SYS_fsconfig,
                    fd,
                    FSCONFIG_SET_FLAG,
                    key.as_ptr(),
                    std::ptr::null::<libc::c_char>(),
                    0,
                ),
            }
        };
        if r < 0 {
            verdict = Err(Unfit::OptionRefused {
                option: option.clone(),
                errno: Errno::last(),
            });
            break;
        }
    }
    // Nothing to do if closing fails: the descriptor only held the question.
    let _ = nix::unistd::close(fd);
    verdict
}

/// Whether this process may mount and unmount (CAP_SYS_ADMIN in effect).
pub(super) fn has_sys_admin() -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        })
        .is_some_and(|caps| caps & (1 << CAP_SYS_ADMIN) != 0)
}
