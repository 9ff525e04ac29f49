//! The checks -U makes before any I/O: whatever would make a cycle fail,
//! lose data, or leave the cache warm is refused with its reason.

use std::ffi::CString;
use std::path::Path;

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
pub(super) fn check_mount(mounts: &[Mount], mount: &Mount) -> Result<(), String> {
    let t = mount.fs_type.as_str();
    if IN_MEMORY.contains(&t) {
        return Err(format!(
            "{t} keeps its files in memory only; unmounting it would destroy them"
        ));
    }
    if PSEUDO.contains(&t) {
        return Err(format!("{t} is a kernel interface, not stored data"));
    }
    if t == "fuse" || t == "fuseblk" || t.starts_with("fuse.") {
        return Err(format!(
            "{t} is served by a FUSE daemon that mount(2) cannot start again"
        ));
    }
    if t == "overlay" {
        return Err(String::from(
            "an overlay's cache belongs to the file systems below it; give their mount point",
        ));
    }
    if mount.mount_options.iter().any(|o| o == "idmapped") {
        return Err(String::from(
            "it is an idmapped mount, which mount(2) cannot recreate",
        ));
    }
    if mount.root != Path::new("/") && !is_btrfs_subvolume(mount) {
        return Err(format!(
            "it is a bind mount of {} of the file system on {}; give that file system's own mount point",
            mount.root.display(),
            mount.source.to_string_lossy()
        ));
    }
    if let Some(below) = mounts.iter().find(|m| m.parent_id == mount.id) {
        return Err(format!(
            "{} is mounted inside it, so it cannot be unmounted",
            below.mount_point.display()
        ));
    }
    if let Some(other) = mounts
        .iter()
        .find(|m| m.dev == mount.dev && m.id != mount.id)
    {
        return Err(format!(
            "its file system is also mounted at {}; unmounting one of them would keep its cache",
            other.mount_point.display()
        ));
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
pub(super) fn check_test_file(path: &Path, mount: &Mount, mounts: &[Mount]) -> Result<(), String> {
    if DeviceKind::of(path) == Some(DeviceKind::Block) {
        return Err(format!(
            "the test file {} is a block device; -U remounts a file system",
            path.display()
        ));
    }
    let absolute = std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .map_err(|e| format!("cannot find the working directory: {e}"))?;
    let parent = absolute.parent().unwrap_or(Path::new("/"));
    let dir = std::fs::canonicalize(parent)
        .map_err(|e| format!("the test file's directory {}: {e}", parent.display()))?;
    let on_it =
        dir.starts_with(&mount.mount_point) && mount_id_of(&dir).is_none_or(|id| id == mount.id);
    if on_it {
        Ok(())
    } else {
        Err(format!(
            "the test file {} is not on that file system (it is on the one mounted at {})",
            path.display(),
            holder(mounts, &dir)
        ))
    }
}

/// A loop device attached by `mount -o loop` detaches itself when the file
/// system is unmounted, and there would be nothing left to mount back.
pub(super) fn check_source_survives(source: &Path) -> Result<(), String> {
    let Some(rdev) = device::rdev_of(source) else {
        return Ok(());
    };
    let (major, minor) = device::major_minor(rdev);
    let flag = read_attr(format!("/sys/dev/block/{major}:{minor}/loop/autoclear"));
    if flag.as_deref() == Some("1") {
        return Err(format!(
            "{} detaches itself when unmounted (mount -o loop); attach the image with \
             losetup and mount that device instead",
            source.display()
        ));
    }
    Ok(())
}

/// A mount of the same super block in another mount namespace (a container,
/// a service with a private /tmp) keeps the file system and its cache alive
/// when ioz unmounts its own. Found through each namespace's processes.
pub(super) fn check_other_namespaces(mount: &Mount) -> Result<(), String> {
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
            return Err(format!(
                "its file system is also mounted at {} in the mount namespace of process {pid} ({}); \
                 unmounting it here would keep its cache",
                other.mount_point.display(),
                comm.trim()
            ));
        }
        seen.push(ns);
    }
    Ok(())
}

/// A process using the file system (its working directory, root, program or
/// an open file; ioz's own working directory excepted: ioz steps out of it)
/// would keep the unmount busy. Found the way fuser(1) does, through /proc.
pub(super) fn check_users(mount: &Mount) -> Result<(), String> {
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
            return Err(format!(
                "{who} has {what} there, so it could not be unmounted"
            ));
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
pub(super) fn validate_options(fs_type: &str, options: &[String]) -> Result<(), String> {
    const FSOPEN_CLOEXEC: libc::c_uint = 1;
    const FSCONFIG_SET_FLAG: libc::c_uint = 0;
    const FSCONFIG_SET_STRING: libc::c_uint = 1;
    let c = |s: &str| CString::new(s).map_err(|_| format!("the option {s:?} holds a NUL byte"));
    let ty = c(fs_type)?;
    // nix wraps neither fsopen nor fsconfig (new mount API, Linux 5.2).
    // SAFETY: fsopen reads the NUL-terminated type name, which outlives the
    // call, and takes plain flags; it returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_fsopen, ty.as_ptr(), FSOPEN_CLOEXEC) } as i32;
    if fd < 0 {
        return match Errno::last() {
            Errno::ENODEV => Err(format!(
                "the kernel has no {fs_type} file system to mount it back with"
            )),
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
            verdict = Err(format!(
                "the kernel refuses its mount option {option} ({}), so ioz could not mount it back as it is",
                Errno::last().desc()
            ));
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
