//! A helper thread's own descriptor table. While a process has a second
//! thread sharing its table, the kernel takes a reference on the file at
//! every system call on a descriptor, and for read() and write() the file
//! position's lock: on a cached 4 KiB read 50 to 70 ns more (measured with
//! --interval's keeper, benches/intervals.rs). A thread that needs few
//! descriptors unshares its table and closes its copies of the others, so
//! that the measuring thread's table is the process's alone again, and its
//! files are referenced once. POSIX record locks stay with the table that
//! took them (Linux owns them by table), so the helper's closes release
//! none of the run's.

use std::io;
use std::os::fd::RawFd;

/// Gives the calling thread a table of its own holding only standard input,
/// output and error and the descriptors `kept`.
pub fn keep_only(kept: &[RawFd]) -> io::Result<()> {
    // SAFETY: unshare changes only the calling thread's descriptor table.
    if unsafe { libc::unshare(libc::CLONE_FILES) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut kept: Vec<u32> = kept
        .iter()
        .filter_map(|&fd| u32::try_from(fd).ok())
        .collect();
    kept.sort_unstable();
    let mut first = 3u32;
    for fd in kept.into_iter().filter(|&fd| fd >= 3).chain([u32::MAX]) {
        if fd > first {
            // SAFETY: closes descriptors of this thread's own table (just
            // unshared): copies, whose files the process's table still holds.
            if unsafe { libc::close_range(first, fd - 1, 0) } != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        first = fd.saturating_add(1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;

    use super::*;

    /// What the descriptors of the calling thread's table name (the
    /// listing's own directory among them, whichever number it took).
    fn open_files() -> Vec<String> {
        std::fs::read_dir("/proc/thread-self/fd")
            .unwrap()
            .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .map(|target| target.display().to_string())
            .collect()
    }

    #[test]
    fn a_thread_keeps_what_it_names_and_the_process_keeps_everything() {
        let a = std::fs::File::open("/proc/self/status").unwrap();
        let b = std::fs::File::open("/proc/self/stat").unwrap();
        let b_fd = b.as_raw_fd();
        let named = |files: &[String], end: &str| files.iter().any(|f| f.ends_with(end));
        let seen = std::thread::spawn(move || {
            keep_only(&[b_fd]).unwrap();
            open_files()
        })
        .join()
        .unwrap();
        assert!(
            named(&seen, "/stat") && !named(&seen, "/status"),
            "{seen:?}"
        );
        // The test harness's table is untouched.
        let ours = open_files();
        assert!(named(&ours, "/status") && named(&ours, "/stat"), "{ours:?}");
        let mut text = String::new();
        std::io::Read::read_to_string(&mut &a, &mut text).unwrap();
        assert!(text.contains("Name:"));
    }
}
