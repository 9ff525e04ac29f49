//! The program's pages mapped before any clock starts.
//!
//! The first run of a page of code, or the first read of a page of
//! constants, takes a minor fault (the page is in the page cache, but not
//! yet in ioz's page tables): a pass whose loop, engine or clock code had
//! not run before took a few inside its timed region (2 to 5 in a debug
//! build). A child of fork() starts again from none: the kernel copies no
//! page-table entries of the program's files to it, and its first write to
//! a page of stack it shares with its parent copies the page. A worker
//! process's loop took two or three faults that a worker thread did not.
//! A worker thread's stack is a mapping of its own, mapped as the thread
//! first reaches each page. Mapping them all at once, when a run begins and
//! in each worker before its barrier, leaves none for the timed regions. The files' pages
//! are the page cache's, shared with every other process; only the
//! resident size reported for ioz grows, by their size.
//!
//! Only ioz's own file and the C library (its stdio, syscall() and AIO run
//! in the timed loops; ld.so beside it) are mapped so, never every file
//! the process maps: an MPI rank maps the shared-memory segment of every
//! peer on its node (Open MPI's vader_segment.*, 4 MB each), and faulting
//! them all in made each rank's resident size grow by 4.1 MB per rank on
//! its node (599 MB at 128 ranks) and their page tables ranks² × 1,024
//! entries a node.

/// Maps every page of the program's own file mappings (its code, constants
/// and statics, and the C library's) and of its stack (MADV_POPULATE_READ
/// and _WRITE, Linux 5.14). Best effort: where the kernel refuses (an older
/// one) the faults stay, and the run's page-fault counts show them.
pub fn map_program_pages() {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    // As the kernel names it in the maps (" (deleted)" and all).
    let exe = std::fs::read_link("/proc/self/exe")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    for (start, len, advice) in maps.lines().filter_map(|l| populated_range(l, &exe)) {
        // SAFETY: madvise only fills the range's page tables (the stack's
        // with its own pages, as a write would); a range no longer mapped
        // gives ENOMEM.
        unsafe { libc::madvise(start as *mut libc::c_void, len, advice) };
    }
    // The vDSO, where the clock is read, cannot be advised: one reading of
    // the clock maps its pages.
    std::hint::black_box(std::time::Instant::now());
    touch_stack();
}

/// Stack a timed region may reach below the frame that readies it.
const STACK_ROOM: usize = 128 * 1024;

/// Writes a byte per page of the [`STACK_ROOM`] bytes of stack below the
/// caller's frame, so that the deeper frames of the timed loop find their
/// pages mapped: a worker thread's stack is a mapping of its own, whose
/// pages the thread maps as it first reaches them.
#[inline(never)]
pub fn touch_stack() {
    let mut room = [0u8; STACK_ROOM];
    for page in room.iter_mut().step_by(4096) {
        *page = 1;
    }
    // Observed, so that the writes are made.
    std::hint::black_box(&mut room);
}

/// Whether the file `name` is the C library or its dynamic loader, whose
/// code the timed loops run (glibc's stdio, syscall() and AIO).
fn is_c_library(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    ["libc.so", "libc-", "ld-linux"]
        .iter()
        .any(|prefix| file.starts_with(prefix))
}

/// The start, length and advice of a /proc/self/maps line's mapping when it
/// is to be mapped: a readable mapping of ioz's own file `exe` or of the C
/// library (read), or the stack (written: a worker process shares its
/// parent's pages until it writes). Any other file (another library, a
/// peer's shared memory) is left to be mapped as it is used.
fn populated_range(line: &str, exe: &str) -> Option<(usize, usize, libc::c_int)> {
    let mut fields = line.splitn(6, char::is_whitespace);
    let (range, perms) = (fields.next()?, fields.next()?);
    let name = fields.nth(3).unwrap_or("").trim_start();
    let ours = (!exe.is_empty() && name == exe) || is_c_library(name);
    let advice = match name {
        "[stack]" => libc::MADV_POPULATE_WRITE,
        _ if ours && name.starts_with('/') && perms.starts_with('r') => libc::MADV_POPULATE_READ,
        _ => return None,
    };
    let (start, end) = range.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    Some((start, end.checked_sub(start)?, advice))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioz_s_files_the_c_library_and_the_stack_are_mapped() {
        let exe = "/usr/bin/ioz";
        let range = |line: &str| populated_range(line, exe);
        let text = "55d0c0a00000-55d0c0c00000 r-xp 00200000 fd:00 123 /usr/bin/ioz";
        assert_eq!(
            range(text),
            Some((0x55d0c0a00000, 0x200000, libc::MADV_POPULATE_READ))
        );
        let data = "55d0c0c00000-55d0c0c10000 rw-p 00400000 fd:00 123 /usr/bin/ioz";
        assert_eq!(range(data).map(|r| r.2), Some(libc::MADV_POPULATE_READ));
        let libc =
            "7f1000000000-7f1000160000 r-xp 00028000 fd:00 9 /usr/lib/x86_64-linux-gnu/libc.so.6";
        assert_eq!(range(libc).map(|r| r.2), Some(libc::MADV_POPULATE_READ));
        let stack = "7ffd1000-7ffd3000 rw-p 00000000 00:00 0 [stack]";
        assert_eq!(
            range(stack),
            Some((0x7ffd1000, 0x2000, libc::MADV_POPULATE_WRITE))
        );
        // A path with a space is one name, and it is not ioz's.
        let spaced = "55d0c0a00000-55d0c0c00000 r-xp 00200000 fd:00 123 /usr/bin/ioz old";
        assert_eq!(range(spaced), None);
        for other in [
            // A peer's shared memory (Open MPI's), MPI's own libraries.
            "7f2000000000-7f2000400000 rw-s 00000000 00:1a 77 /dev/shm/vader_segment.node.0.1",
            "7f3000000000-7f3000100000 r-xp 00000000 fd:00 8 /usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4",
            "7f0000000000-7f0004000000 rw-p 00000000 00:00 0 ",
            "7f0000000000-7f0004000000 ---p 00000000 00:00 0",
            "55d0c0c10000-55d0c0c20000 ---p 00000000 fd:00 123 /usr/bin/ioz",
            "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]",
            "7fff0000-7fff2000 r-xp 00000000 00:00 0 [vdso]",
            "garbage",
        ] {
            assert_eq!(range(other), None, "{other}");
        }
    }

    #[test]
    fn mapping_the_program_leaves_it_working() {
        map_program_pages();
        let v: Vec<u8> = vec![1; 1 << 16];
        assert_eq!(v.iter().map(|&b| b as usize).sum::<usize>(), 1 << 16);
    }
}
