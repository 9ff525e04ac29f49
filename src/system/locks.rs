//! A flock taken without waiting (safety/lock.rs says which, and why), and
//! who holds a lock on a file: /proc/locks names the process that took each
//! flock (and POSIX) lock, by the device and inode of the locked file.

use std::fmt;
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// What an attempt at a flock found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flock {
    /// Taken: held until the open file description is closed.
    Taken,
    /// Another open file description holds a lock that excludes it.
    Held,
    /// This file system cannot lock (ENOLCK, EOPNOTSUPP, EINVAL).
    Unsupported,
}

/// Takes a flock on the open file `fd` (exclusive, or shared), without
/// waiting for another's to be let go.
pub fn try_flock(fd: BorrowedFd<'_>, exclusive: bool) -> Flock {
    let operation = if exclusive {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    } | libc::LOCK_NB;
    loop {
        // nix's flock takes the descriptor's ownership (its Flock guard):
        // the run keeps its own descriptor, and the lock with it.
        // SAFETY: plain syscall on a descriptor the caller keeps open.
        if unsafe { libc::flock(fd.as_raw_fd(), operation) } == 0 {
            return Flock::Taken;
        }
        match io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => return Flock::Held,
            _ => return Flock::Unsupported,
        }
    }
}

/// A process holding a lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    /// Its command name (/proc/PID/comm), when it can be read.
    pub name: Option<String>,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "process {} ({name})", self.pid),
            None => write!(f, "process {}", self.pid),
        }
    }
}

/// The process holding a lock on the file with device number `dev` and
/// inode `ino`, other than this one (with `writers_only`, an exclusive
/// lock: udev holds shared ones on block devices while it probes them);
/// `None` when /proc/locks names none (an OFD lock has no owner there, a
/// lock on an NFS file may be another machine's).
pub fn holder(dev: u64, ino: u64, writers_only: bool) -> Option<Holder> {
    let text = fs::read_to_string("/proc/locks").ok()?;
    let pid = holders_in(&text, dev, ino, writers_only)
        .into_iter()
        .find(|&pid| pid != std::process::id())?;
    let name = fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    Some(Holder { pid, name })
}

/// The PIDs holding (not waiting for) a lock on `dev`/`ino` in the text of
/// /proc/locks: `1: FLOCK  ADVISORY  WRITE 1234 fe:00:10010797 0 EOF`, the
/// device as hexadecimal major:minor.
fn holders_in(text: &str, dev: u64, ino: u64, writers_only: bool) -> Vec<u32> {
    let file = format!("{:02x}:{:02x}:{ino}", libc::major(dev), libc::minor(dev));
    text.lines()
        .filter(|line| !line.contains("->"))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // id, class, advisory, access, pid, file, start, end
            match fields[..] {
                [_, _, _, access, pid, f, ..] if f == file => {
                    (!writers_only || access == "WRITE").then(|| pid.parse().ok())?
                }
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holders_are_found_by_device_and_inode() {
        let text = "1: FLOCK  ADVISORY  WRITE 24401 fe:00:10010797 0 EOF\n\
                    1: -> FLOCK  ADVISORY  WRITE 999 fe:00:10010797 0 EOF\n\
                    2: OFDLCK ADVISORY  WRITE -1 00:2d:77 0 EOF\n\
                    3: POSIX  ADVISORY  READ 555 103:02:77 0 EOF\n";
        let dev = libc::makedev(0xfe, 0);
        assert_eq!(holders_in(text, dev, 10010797, true), [24401]);
        // An OFD lock has no process to name.
        assert!(holders_in(text, libc::makedev(0, 0x2d), 77, false).is_empty());
        let third = libc::makedev(0x103, 2);
        assert_eq!(holders_in(text, third, 77, false), [555]);
        assert!(holders_in(text, third, 77, true).is_empty());
        assert!(holders_in(text, dev, 1, false).is_empty());
    }

    #[test]
    fn a_holder_reads_with_its_name() {
        let h = Holder {
            pid: 42,
            name: Some("ioz".into()),
        };
        assert_eq!(h.to_string(), "process 42 (ioz)");
        assert_eq!(
            Holder {
                pid: 42,
                name: None
            }
            .to_string(),
            "process 42"
        );
    }
}
