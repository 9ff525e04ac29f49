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

use crate::error::{IoFailure, RunError};
use crate::model::config::RunConfig;
use crate::system::device::{self, DeviceKind};
use crate::system::mountinfo::{self, Mount};
use crate::system::signals::{self, StopFlag};
pub use checks::Unfit;
use checks::{
    check_mount, check_other_namespaces, check_source_survives, check_test_file, check_users,
    find_mount_at, has_sys_admin, holder, validate_options,
};

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
        for path in config.run_paths() {
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
            block_source: DeviceKind::of(Path::new(&mount.source)) == Some(DeviceKind::Block),
            source: mount.source.clone(),
            fs_type: mount.fs_type.clone(),
            request,
            mount_id: mount.id,
            unmounted: false,
            cycles: 0,
        }))
    }

    /// Whether a failed cycle left the file system unmounted.
    /// The mount point it cycles.
    pub fn mount_point(&self) -> &Path {
        &self.mount_point
    }

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
        let still_held = self.block_source && device::is_busy(Path::new(&self.source));
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

/// Translates a mount's options into the mount(2) call that recreates it:
/// per-mount options and the generic super-block ones become flags, the file
/// system's own options become data (pure: tested on text).
pub fn mount_request(mount: &Mount) -> Result<MountRequest, Unfit> {
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
            other => return Err(Unfit::MountOption(other.to_string())),
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
                return Err(Unfit::CommaInOption(other.to_string()));
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

/// The ID of the mount `path` is on (statx STATX_MNT_ID, Linux 5.8+).
pub fn mount_id_of(path: &Path) -> Option<u64> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // nix has no statx (and std's metadata does not expose the mount ID).
    // SAFETY: libc::statx is plain integers, so all-zero bytes are a valid
    // value; statx reads the NUL-terminated path, which outlives the call, and
    // writes at most one struct statx through the pointer, which is live.
    unsafe {
        let mut st: libc::statx = std::mem::zeroed();
        let r = libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_MNT_ID, &mut st);
        (r == 0 && st.stx_mask & libc::STATX_MNT_ID != 0).then_some(st.stx_mnt_id)
    }
}

mod checks;

#[cfg(test)]
mod tests;
