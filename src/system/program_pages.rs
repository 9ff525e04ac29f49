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
//! entries a node. Of ioz's own file, the tables only unwinding reads
//! (`.eh_frame`, its index and `.gcc_except_table`: 1.1 MiB of a release
//! build) are left out: a rank at 64 ranks held 31.7 MiB with them, 30.8
//! without.

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
    let unwinding = unwinding_tables();
    for (start, len, advice) in maps.lines().filter_map(|l| populated_range(l, &exe)) {
        for (start, len) in without(start, len, &unwinding) {
            // SAFETY: madvise only fills the range's page tables (the
            // stack's with its own pages, as a write would); a range no
            // longer mapped gives ENOMEM.
            unsafe { libc::madvise(start as *mut libc::c_void, len, advice) };
        }
    }
    // The vDSO, where the clock is read, cannot be advised: one reading of
    // the clock maps its pages.
    std::hint::black_box(std::time::Instant::now());
    touch_stack();
}

/// The sections of ioz's own file that only unwinding reads (a panic, a
/// backtrace), never a timed region: about 1.1 MiB of a release build,
/// which every MPI rank would otherwise hold resident.
const UNWINDING_SECTIONS: [&str; 3] = [".eh_frame", ".eh_frame_hdr", ".gcc_except_table"];

/// Where ioz's unwinding sections are in memory, whole pages only: read from
/// the section headers of /proc/self/exe and placed by the program's load
/// address (the program headers' own address, from the auxiliary vector).
/// Empty when any of it cannot be read: then everything is mapped, as before.
fn unwinding_tables() -> Vec<(usize, usize)> {
    use std::os::unix::fs::FileExt;
    let Some(bias) = load_bias() else {
        return Vec::new();
    };
    let Ok(file) = std::fs::File::open("/proc/self/exe") else {
        return Vec::new();
    };
    let read = |offset: u64, len: usize| {
        let mut bytes = vec![0u8; len];
        file.read_exact_at(&mut bytes, offset).ok().map(|_| bytes)
    };
    let Some(header) = read(0, std::mem::size_of::<libc::Elf64_Ehdr>()) else {
        return Vec::new();
    };
    // SAFETY: the bytes are as many as the plain-data header needs.
    let header: libc::Elf64_Ehdr = unsafe { std::ptr::read_unaligned(header.as_ptr().cast()) };
    let entry = std::mem::size_of::<libc::Elf64_Shdr>();
    if header.e_ident[..4] != *b"\x7fELF" || usize::from(header.e_shentsize) != entry {
        return Vec::new();
    }
    let Some(table) = read(header.e_shoff, entry * usize::from(header.e_shnum)) else {
        return Vec::new();
    };
    let sections: Vec<libc::Elf64_Shdr> = table
        .chunks_exact(entry)
        // SAFETY: each chunk is one plain-data section header.
        .map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr().cast()) })
        .collect();
    let Some(names) = sections
        .get(usize::from(header.e_shstrndx))
        .and_then(|s| read(s.sh_offset, s.sh_size as usize))
    else {
        return Vec::new();
    };
    let name_of = |s: &libc::Elf64_Shdr| {
        let tail = names.get(s.sh_name as usize..).unwrap_or(&[]);
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        std::str::from_utf8(&tail[..end]).unwrap_or("").to_owned()
    };
    sections
        .iter()
        .filter(|s| s.sh_addr != 0 && UNWINDING_SECTIONS.contains(&name_of(s).as_str()))
        .filter_map(|s| whole_pages(bias + s.sh_addr as usize, s.sh_size as usize))
        .collect()
}

/// How far the program was loaded from its file's addresses: where its
/// program headers are (the auxiliary vector's AT_PHDR) less where its
/// PT_PHDR header says they belong.
fn load_bias() -> Option<usize> {
    // SAFETY: getauxval only reads the auxiliary vector.
    let (phdr, count) = unsafe {
        (
            libc::getauxval(libc::AT_PHDR) as usize,
            libc::getauxval(libc::AT_PHNUM) as usize,
        )
    };
    if phdr == 0 {
        return None;
    }
    // SAFETY: the kernel maps the program headers where AT_PHDR says, as
    // many as AT_PHNUM says, for the life of the process.
    let headers = unsafe { std::slice::from_raw_parts(phdr as *const libc::Elf64_Phdr, count) };
    let own = headers.iter().find(|h| h.p_type == libc::PT_PHDR)?;
    phdr.checked_sub(own.p_vaddr as usize)
}

/// The whole pages inside `len` bytes from `start`, as a start and length.
fn whole_pages(start: usize, len: usize) -> Option<(usize, usize)> {
    const PAGE: usize = 4096;
    let first = start.div_ceil(PAGE) * PAGE;
    let end = (start + len) / PAGE * PAGE;
    (end > first).then(|| (first, end - first))
}

/// The parts of `len` bytes from `start` outside every range of `holes`
/// (each page-aligned, in any order).
fn without(start: usize, len: usize, holes: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut parts = vec![(start, start + len)];
    for &(hole, hole_len) in holes {
        let hole_end = hole + hole_len;
        parts = parts
            .into_iter()
            .flat_map(|(a, b)| {
                if hole_end <= a || hole >= b {
                    vec![(a, b)]
                } else {
                    [(a, hole), (hole_end, b)]
                        .into_iter()
                        .filter(|(x, y)| y > x)
                        .collect()
                }
            })
            .collect();
    }
    parts.into_iter().map(|(a, b)| (a, b - a)).collect()
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
    fn the_unwinding_tables_are_found_and_left_out() {
        let tables = unwinding_tables();
        // A Rust test binary has all three.
        assert!(!tables.is_empty(), "no unwinding section found");
        // They lie inside a mapping of this program's own file.
        let exe = std::fs::read_link("/proc/self/exe").unwrap();
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let ours: Vec<(usize, usize)> = maps
            .lines()
            .filter(|l| l.ends_with(exe.to_str().unwrap()))
            .filter_map(|l| populated_range(l, exe.to_str().unwrap()))
            .map(|(s, len, _)| (s, s + len))
            .collect();
        for &(start, len) in &tables {
            assert_eq!(start % 4096, 0);
            assert!(
                ours.iter().any(|&(a, b)| a <= start && start + len <= b),
                "{start:#x}+{len:#x} is not in {ours:x?}"
            );
        }
        // And the program still unwinds through them after the mapping.
        map_program_pages();
        assert!(std::panic::catch_unwind(|| panic!("unwound")).is_err());
    }

    #[test]
    fn holes_are_cut_out_of_a_range() {
        assert_eq!(without(0, 100, &[]), vec![(0, 100)]);
        assert_eq!(without(0, 100, &[(20, 10)]), vec![(0, 20), (30, 70)]);
        assert_eq!(without(0, 100, &[(0, 100)]), vec![]);
        assert_eq!(without(0, 100, &[(90, 50), (200, 5)]), vec![(0, 90)]);
        assert_eq!(
            without(50, 50, &[(0, 60), (70, 10)]),
            vec![(60, 10), (80, 20)]
        );
        assert_eq!(whole_pages(4095, 8194), Some((4096, 8192)));
        assert_eq!(whole_pages(1, 4096), None);
    }

    #[test]
    fn mapping_the_program_leaves_it_working() {
        map_program_pages();
        let v: Vec<u8> = vec![1; 1 << 16];
        assert_eq!(v.iter().map(|&b| b as usize).sum::<usize>(), 1 << 16);
    }
}
