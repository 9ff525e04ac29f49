//! `-U mountpoint`: before every test pass, unmount the file system that holds
//! the test file and mount it back, so the pass starts with none of the file's
//! pages (or the file system's metadata) in the page cache. Untimed.
//!
//! IOzone runs `umount mnt` and `mount mnt` through the shell, which needs an
//! fstab entry. ioz instead reads the mount from /proc/self/mountinfo before
//! the run and mounts it back with mount(2) exactly as it was: the same
//! source, type, per-mount flags and super-block options.
//!
//! Everything that could make the cycle fail or not empty the cache is
//! checked before any I/O (exit 2): root, a real mount point holding the test
//! file, a file system that keeps its data across an unmount, no bind mount,
//! nothing mounted below it, no second mount of the same super block, no
//! process using it, and mount options the kernel accepts. A file system
//! is never left unmounted silently: if mounting back fails, the run stops
//! with the command that mounts it back.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::mount::{MntFlags, MsFlags, mount, umount2};

use crate::config::RunConfig;
use crate::error::{IoFailure, RunError};
use crate::mountinfo::{self, Mount};
use crate::signals::{self, StopFlag};

/// How long an unmount may stay busy (a process closing its files) before the run stops.
const BUSY_WAIT: Duration = Duration::from_secs(10);
/// How long mounting back retries while the device is still being released.
const MOUNT_WAIT: Duration = Duration::from_secs(5);

/// A prepared -U: the mount as it was, ready to be cycled before each pass.
#[derive(Debug)]
pub struct Remounter {
    mount_point: PathBuf,
    source: OsString,
    fs_type: String,
    request: MountRequest,
    /// The mount ID now at the mount point (it changes with every mount).
    mount_id: u64,
    /// Unmounting must release this block device (else the cache survives).
    block_source: bool,
    /// Unmounted by a cycle whose mount back failed.
    unmounted: bool,
    cycles: u64,
}

/// What ended a cycle that did not fail.
#[derive(Debug, PartialEq, Eq)]
pub enum Cycle {
    Remounted,
    /// A stop signal came while the unmount was busy; still mounted, untouched.
    Interrupted(i32),
}

/// The mount(2) call that recreates a mount, and its propagation type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MountRequest {
    pub flags: MsFlags,
    /// The file system's own options, passed as mount data.
    pub data: Vec<String>,
    /// MS_SHARED, MS_PRIVATE or MS_UNBINDABLE to set again after mounting.
    pub propagation: Option<MsFlags>,
}

fn refused(message: String) -> RunError {
    RunError::Refused(message)
}

impl Remounter {
    /// Checks -U for `config` before any I/O; `None` without -U.
    pub fn for_run(config: &RunConfig) -> Result<Option<Remounter>, RunError> {
        let Some(given) = &config.variations.remount else {
            return Ok(None);
        };
        let shown = given.display();
        if !has_sys_admin() {
            return Err(refused(format!(
                "-U needs root (CAP_SYS_ADMIN) to unmount and mount {shown}"
            )));
        }
        let mount_point =
            std::fs::canonicalize(given).map_err(|e| refused(format!("-U {shown}: {e}")))?;
        if mount_point == Path::new("/") {
            return Err(refused(format!(
                "-U {shown}: the root file system cannot be unmounted; put the test file on another file system"
            )));
        }
        let mounts = mountinfo::read()
            .map_err(|e| refused(format!("-U: cannot read /proc/self/mountinfo: {e}")))?;
        let mount = find_mount_at(&mounts, &mount_point, mount_id_of(&mount_point))
            .ok_or_else(|| {
                refused(format!(
                    "-U {shown} is not a mount point (it is a directory on the file system mounted at {})",
                    holder(&mounts, &mount_point)
                ))
            })?;
        check_mount(&mounts, mount).map_err(|why| refused(format!("-U {shown}: {why}")))?;
        for path in crate::safety::run_paths(config) {
            check_test_file(&path, mount, &mounts)
                .map_err(|why| refused(format!("-U {shown}: {why}")))?;
        }
        check_source_survives(Path::new(&mount.source))
            .map_err(|why| refused(format!("-U {shown}: {why}")))?;
        check_other_namespaces(mount).map_err(|why| refused(format!("-U {shown}: {why}")))?;
        check_users(mount).map_err(|why| refused(format!("-U {shown}: {why}")))?;
        let request = mount_request(mount).map_err(|why| refused(format!("-U {shown}: {why}")))?;
        validate_options(&mount.fs_type, &request.data)
            .map_err(|why| refused(format!("-U {shown}: {why}")))?;
        Ok(Some(Remounter {
            mount_point,
            block_source: is_block_device(Path::new(&mount.source)),
            source: mount.source.clone(),
            fs_type: mount.fs_type.clone(),
            request,
            mount_id: mount.id,
            unmounted: false,
            cycles: 0,
        }))
    }

    /// How many times the file system was unmounted and mounted back.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Whether a failed cycle left the file system unmounted.
    pub fn is_unmounted(&self) -> bool {
        self.unmounted
    }

    /// Unmounts and mounts back. A second SIGINT waits until the file system
    /// is mounted again; the working directory is left and re-entered by path
    /// when it lies inside.
    pub fn cycle(&mut self, stop: &StopFlag) -> Result<Cycle, IoFailure> {
        let _hold = signals::hold_exit();
        let cwd = std::env::current_dir()
            .ok()
            .filter(|d| d.starts_with(&self.mount_point));
        if cwd.is_some() {
            std::env::set_current_dir("/").map_err(|e| self.failure("leave", e))?;
        }
        let unmounted = self.unmount(stop);
        let mounted = match unmounted {
            Ok(Cycle::Remounted) => self.mount_back(),
            Ok(Cycle::Interrupted(_)) | Err(_) => Ok(()),
        };
        // Re-enter the working directory even when mounting failed: relative
        // paths then lead into the empty directory below, never to "/".
        let back = match &cwd {
            Some(dir) => std::env::set_current_dir(dir)
                .map_err(|e| self.failure("return to the working directory in", e)),
            None => Ok(()),
        };
        let outcome = unmounted?;
        mounted?;
        back?;
        if outcome == Cycle::Remounted {
            self.cycles += 1;
        }
        Ok(outcome)
    }

    fn failure(&self, operation: &'static str, source: io::Error) -> IoFailure {
        IoFailure {
            operation,
            path: self.mount_point.clone(),
            offset: None,
            pass: None,
            source,
        }
    }

    /// umount2, retried while busy; `Interrupted` when a stop signal comes
    /// meanwhile. On any failure the file system is still mounted.
    fn unmount(&mut self, stop: &StopFlag) -> Result<Cycle, IoFailure> {
        // What is mounted there must still be the mount checked before the run.
        let now = mount_id_of(&self.mount_point);
        if now.is_some_and(|id| id != self.mount_id) {
            return Err(self.failure(
                "unmount (-U)",
                io::Error::other(
                    "another file system was mounted there during the run; it was left alone",
                ),
            ));
        }
        let deadline = Instant::now() + BUSY_WAIT;
        let mut pause = Duration::from_millis(10);
        loop {
            match umount2(&self.mount_point, MntFlags::UMOUNT_NOFOLLOW) {
                Ok(()) => return Ok(Cycle::Remounted),
                Err(Errno::EINTR) => continue,
                Err(Errno::EBUSY) if Instant::now() < deadline => {
                    if let Some(sig) = stop.signal() {
                        return Ok(Cycle::Interrupted(sig));
                    }
                    sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                    pause = (pause * 2).min(Duration::from_secs(1));
                }
                Err(Errno::EBUSY) => {
                    return Err(self.failure(
                        "unmount (-U)",
                        io::Error::other(format!(
                            "still busy after {} s (see fuser -vm {}); it stays mounted",
                            BUSY_WAIT.as_secs(),
                            shell_quote(self.mount_point.as_os_str())
                        )),
                    ));
                }
                Err(e) => {
                    return Err(self.failure(
                        "unmount (-U)",
                        io::Error::other(format!("{}; it stays mounted", e.desc())),
                    ));
                }
            }
        }
    }

    /// mount(2) with what was read before the run; any failure says the file
    /// system is unmounted and how to mount it back.
    fn mount_back(&mut self) -> Result<(), IoFailure> {
        // Unmounting must have let go of the device: if something (a mount in
        // another namespace) still holds it, its cache survived.
        let still_held = self.block_source && device_still_claimed(Path::new(&self.source));
        let data = self.request.data.join(",");
        let deadline = Instant::now() + MOUNT_WAIT;
        loop {
            let result = mount(
                Some(self.source.as_os_str()),
                &self.mount_point,
                Some(self.fs_type.as_str()),
                self.request.flags,
                (!data.is_empty()).then_some(data.as_str()),
            );
            match result {
                Ok(()) => break,
                Err(Errno::EINTR) => continue,
                Err(Errno::EBUSY) if Instant::now() < deadline => {
                    sleep(Duration::from_millis(100));
                }
                Err(e) => {
                    self.unmounted = true;
                    // The test file's path now leads below the mount point.
                    signals::cancel_removals_on_interrupt();
                    return Err(self.failure(
                        "mount back (-U)",
                        io::Error::other(format!(
                            "{}; the file system is UNMOUNTED: mount it back with: {}",
                            e.desc(),
                            self.mount_command()
                        )),
                    ));
                }
            }
        }
        if let Some(propagation) = self.request.propagation {
            mount(
                None::<&str>,
                &self.mount_point,
                None::<&str>,
                propagation,
                None::<&str>,
            )
            .map_err(|e| self.failure("restore the propagation (-U) of", e.into()))?;
        }
        if let Some(id) = mount_id_of(&self.mount_point) {
            self.mount_id = id;
        }
        if still_held {
            return Err(self.failure(
                "unmount (-U)",
                io::Error::other(format!(
                    "unmounting did not release {} (is it mounted in another mount namespace?), \
                     so its page cache was kept; it is mounted again",
                    self.source.to_string_lossy()
                )),
            ));
        }
        Ok(())
    }

    /// The mount(8) command that recreates the mount.
    pub fn mount_command(&self) -> String {
        let mut options = flag_names(self.request.flags);
        options.extend(self.request.data.iter().cloned());
        format!(
            "mount -t {} -o {} {} {}",
            shell_quote(OsStr::new(&self.fs_type)),
            shell_quote(OsStr::new(&options.join(","))),
            shell_quote(&self.source),
            shell_quote(self.mount_point.as_os_str())
        )
    }
}

/// The mount whose mount point is `dir`: the one with `id` (statx), else
/// the last listed there (the top of a stack).
fn find_mount_at<'a>(mounts: &'a [Mount], dir: &Path, id: Option<u64>) -> Option<&'a Mount> {
    let mut at = mounts.iter().filter(|m| m.mount_point == dir);
    match id {
        Some(id) => at.find(|m| m.id == id),
        None => at.next_back(),
    }
}

/// The mount point of the file system holding `dir`, for messages.
fn holder(mounts: &[Mount], dir: &Path) -> String {
    mounts
        .iter()
        .filter(|m| dir.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.components().count())
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
pub fn check_mount(mounts: &[Mount], mount: &Mount) -> Result<(), String> {
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
fn is_btrfs_subvolume(mount: &Mount) -> bool {
    mount.fs_type == "btrfs"
        && mount.super_options.iter().any(|o| {
            o.strip_prefix("subvol=")
                .is_some_and(|s| Path::new(s) == mount.root)
        })
}

/// The test file must be a file (not a device) on that very mount.
fn check_test_file(path: &Path, mount: &Mount, mounts: &[Mount]) -> Result<(), String> {
    if crate::device::rdev_of(path).is_some() {
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
fn check_source_survives(source: &Path) -> Result<(), String> {
    let Some(rdev) = crate::device::rdev_of(source) else {
        return Ok(());
    };
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let flag = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/loop/autoclear"));
    if flag.is_ok_and(|f| f.trim() == "1") {
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
fn check_other_namespaces(mount: &Mount) -> Result<(), String> {
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
fn check_users(mount: &Mount) -> Result<(), String> {
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

/// Translates a mount's options into the mount(2) call that recreates it:
/// per-mount options and the generic super-block ones become flags, the file
/// system's own options become data (pure: tested on text).
pub fn mount_request(mount: &Mount) -> Result<MountRequest, String> {
    let mut flags = MsFlags::empty();
    let mut atime_given = false;
    for o in &mount.mount_options {
        flags |= match o.as_str() {
            "rw" => MsFlags::empty(),
            "ro" => MsFlags::MS_RDONLY,
            "nosuid" => MsFlags::MS_NOSUID,
            "nodev" => MsFlags::MS_NODEV,
            "noexec" => MsFlags::MS_NOEXEC,
            "nodiratime" => MsFlags::MS_NODIRATIME,
            "nosymfollow" => MsFlags::from_bits_retain(libc::MS_NOSYMFOLLOW),
            "noatime" => {
                atime_given = true;
                MsFlags::MS_NOATIME
            }
            "relatime" => {
                atime_given = true;
                MsFlags::MS_RELATIME
            }
            other => return Err(format!("mount(2) cannot set the mount option {other}")),
        };
    }
    // mountinfo names neither when every access updates atime.
    if !atime_given {
        flags |= MsFlags::MS_STRICTATIME;
    }
    let mut data = Vec::new();
    for o in &mount.super_options {
        match o.as_str() {
            "rw" => {}
            "ro" => flags |= MsFlags::MS_RDONLY,
            "sync" => flags |= MsFlags::MS_SYNCHRONOUS,
            "dirsync" => flags |= MsFlags::MS_DIRSYNC,
            "lazytime" => flags |= MsFlags::MS_LAZYTIME,
            "mand" => flags |= MsFlags::MS_MANDLOCK,
            // A display-only SELinux marker, not an option.
            "seclabel" => {}
            other if other.contains(',') => {
                return Err(format!(
                    "the option {other} holds a comma, which mount(2) data cannot carry"
                ));
            }
            other => data.push(other.to_string()),
        }
    }
    let propagation = if mount.optional.iter().any(|o| o == "unbindable") {
        Some(MsFlags::MS_UNBINDABLE)
    } else if mount.optional.iter().any(|o| o.starts_with("master:")) {
        // A slave of a peer group ioz cannot name again: left as the kernel makes it.
        None
    } else if mount.optional.iter().any(|o| o.starts_with("shared:")) {
        Some(MsFlags::MS_SHARED)
    } else {
        Some(MsFlags::MS_PRIVATE)
    };
    Ok(MountRequest {
        flags,
        data,
        propagation,
    })
}

/// The names mount(8) takes for the flags, in a stable order.
fn flag_names(flags: MsFlags) -> Vec<String> {
    let names = [
        (MsFlags::MS_NOSUID, "nosuid"),
        (MsFlags::MS_NODEV, "nodev"),
        (MsFlags::MS_NOEXEC, "noexec"),
        (MsFlags::MS_NOATIME, "noatime"),
        (MsFlags::MS_RELATIME, "relatime"),
        (MsFlags::MS_STRICTATIME, "strictatime"),
        (MsFlags::MS_NODIRATIME, "nodiratime"),
        (
            MsFlags::from_bits_retain(libc::MS_NOSYMFOLLOW),
            "nosymfollow",
        ),
        (MsFlags::MS_SYNCHRONOUS, "sync"),
        (MsFlags::MS_DIRSYNC, "dirsync"),
        (MsFlags::MS_LAZYTIME, "lazytime"),
        (MsFlags::MS_MANDLOCK, "mand"),
    ];
    let mut out = vec![String::from(if flags.contains(MsFlags::MS_RDONLY) {
        "ro"
    } else {
        "rw"
    })];
    out.extend(
        names
            .iter()
            .filter(|(f, _)| flags.contains(*f))
            .map(|(_, n)| n.to_string()),
    );
    out
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_quote(word: &OsStr) -> String {
    let text = word.to_string_lossy();
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._:@%+=,-".contains(&b));
    if plain {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Asks the kernel whether it accepts each file-system option, without
/// mounting anything (fsopen + fsconfig; kernels before 5.2 skip the check).
fn validate_options(fs_type: &str, options: &[String]) -> Result<(), String> {
    const FSOPEN_CLOEXEC: libc::c_uint = 1;
    const FSCONFIG_SET_FLAG: libc::c_uint = 0;
    const FSCONFIG_SET_STRING: libc::c_uint = 1;
    let c = |s: &str| CString::new(s).map_err(|_| format!("the option {s:?} holds a NUL byte"));
    let ty = c(fs_type)?;
    // SAFETY: fsopen takes a C string and flags; it returns a new descriptor or -1.
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
        // SAFETY: a descriptor from fsopen and C strings that outlive the call.
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
    // SAFETY: closing the descriptor fsopen returned.
    unsafe { libc::close(fd) };
    verdict
}

/// Whether this process may mount and unmount (CAP_SYS_ADMIN in effect).
fn has_sys_admin() -> bool {
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

/// The ID of the mount `path` is on (statx STATX_MNT_ID, Linux 5.8+).
pub fn mount_id_of(path: &Path) -> Option<u64> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statx fills the zeroed struct; the path is a valid C string.
    unsafe {
        let mut st: libc::statx = std::mem::zeroed();
        let r = libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_MNT_ID, &mut st);
        (r == 0 && st.stx_mask & libc::STATX_MNT_ID != 0).then_some(st.stx_mnt_id)
    }
}

fn is_block_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// An exclusive open of a block device fails with EBUSY while any mount
/// (in any namespace) holds it.
fn device_still_claimed(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
    {
        Ok(_) => false,
        Err(e) => e.raw_os_error() == Some(libc::EBUSY),
    }
}

#[cfg(test)]
mod tests;
