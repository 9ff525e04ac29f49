//! Before any I/O: will the plan's files fit on their file systems, and will
//! they fit in RAM (so that, without O_DIRECT, the run measures the page cache)?

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::RunError;
use crate::model::config::{RunConfig, Sizes};
use crate::model::plan::passes;
use crate::model::telemetry::Telemetry;
use crate::model::units::Size;
use crate::model::variations::DropCaches;
use crate::model::workload::TestId;
use crate::system::device;
use crate::system::environment::parse_mem_total;

/// The most bytes each test file holds at any moment of the run.
pub fn largest_files(config: &RunConfig) -> BTreeMap<PathBuf, u64> {
    let mut files = BTreeMap::new();
    // Replayed writes leave holes: a sparse file takes less than its size.
    let allocated = |file_bytes: u64| match &config.telemetry {
        Some(t) => allocated_bytes(config, t, file_bytes),
        None => file_bytes,
    };
    match (&config.throughput, &config.sizes) {
        (None, Sizes::Single { file_bytes, .. }) => {
            files.insert(config.path.clone(), allocated(*file_bytes));
        }
        (None, Sizes::Auto(auto)) => {
            let largest = auto.file_sizes.values().into_iter().max().unwrap_or(0);
            files.insert(config.path.clone(), largest);
        }
        (Some(tp), sizes) => {
            let (file_bytes, record_bytes) = match sizes {
                Sizes::Single {
                    file_bytes,
                    record_bytes,
                } => (*file_bytes, *record_bytes),
                Sizes::Auto(_) => return files,
            };
            for (n, job) in tp.counts() {
                let each = allocated(tp.worker_file_bytes(file_bytes, record_bytes, job));
                for i in 0..n {
                    let slot = files.entry(tp.worker_path(&config.path, i)).or_insert(0);
                    *slot = (*slot).max(each);
                }
            }
        }
    }
    files
}

/// The most space the test file of a telemetry run takes: a replayed write
/// file allocates only what it writes (the rest of the file is holes), plus
/// the tail the untimed fill adds before reads that reach past its end; a
/// sequential write pass, or a fill of the whole file, takes the file size.
fn allocated_bytes(config: &RunConfig, t: &Telemetry, file_bytes: u64) -> u64 {
    let writes = config.tests.contains(&TestId::Write) && !config.variations.existing_file;
    let reads = config.tests.contains(&TestId::Read);
    match (&t.write, writes) {
        (Some(x), true) => {
            let tail = if reads {
                file_bytes.saturating_sub(x.end)
            } else {
                0
            };
            x.bytes.min(x.end) + tail
        }
        _ => file_bytes,
    }
}

/// A telemetry run's file is as long as its traces reach, whatever they
/// write: the extent must fit in the free space too. A sparse file larger
/// than the disk can never be filled (a read test without the write test
/// fills it), is allocated in full where the file system keeps no holes,
/// and is left for someone to copy when the run is cut short.
fn reaches_within(t: &Telemetry, path: &Path, free: u64, dir: &Path) -> Result<(), RunError> {
    let Some((opt, trace)) = t.traces().max_by_key(|(_, trace)| trace.end) else {
        return Ok(());
    };
    if trace.end <= free {
        return Ok(());
    }
    Err(RunError::Refused(format!(
        "{opt} {}: the telemetry file reaches {:.1} into {} but only {:.1} is free in {}; \
         use a telemetry file that reaches less far, or another directory",
        trace.path.display(),
        Size(trace.end),
        path.display(),
        Size(free),
        dir.display()
    )))
}

/// The directory a test file will be created in.
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Refuses a plan whose files cannot fit; returns a warning when the whole
/// working set fits in RAM and nothing bypasses or empties the page cache.
pub fn check(config: &RunConfig) -> Result<Option<String>, RunError> {
    let files = largest_files(config);
    // Needed and available bytes per file system (keyed by device number).
    let mut per_fs: BTreeMap<u64, (u64, u64, PathBuf)> = BTreeMap::new();
    let mut total = 0u64;
    for (path, bytes) in &files {
        if device::is_device(path) {
            continue; // a device's size is checked where devices are checked
        }
        total = total.saturating_add(*bytes);
        let dir = parent_dir(path);
        let (Ok(dir_meta), Ok(stat)) = (std::fs::metadata(&dir), nix::sys::statvfs::statvfs(&dir))
        else {
            continue; // creating the file will fail with a clear error
        };
        // A file ioz is about to reuse gives its space back.
        let reusable = std::fs::metadata(path).map_or(0, |m| m.len());
        let free = stat.blocks_available() * stat.fragment_size();
        if let Some(t) = &config.telemetry {
            reaches_within(t, path, free.saturating_add(reusable), &dir)?;
        }
        let entry = per_fs.entry(dir_meta.dev()).or_insert((0, free, dir));
        entry.0 = entry.0.saturating_add(*bytes);
        entry.1 = entry.1.saturating_add(reusable);
    }
    for (needed, available, dir) in per_fs.values() {
        if needed > available {
            return Err(RunError::Refused(format!(
                "the run needs {:.1} for its largest file(s) in {} but only {:.1} is free there; \
                 use smaller sizes (-s, -g) or another directory",
                Size(*needed),
                dir.display(),
                Size(*available)
            )));
        }
    }
    let ram = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| parse_mem_total(&m));
    match ram {
        Some(ram)
            if !passes(config).into_iter().all(|p| config.direct(p))
                && config.variations.drop_caches == DropCaches::None
                && config.variations.remount.is_none()
                && total > 0
                && total <= ram =>
        {
            Ok(Some(format!(
                "the largest working set ({:.1}) fits in RAM ({:.1}): the results will show the page \
             cache, not the device (use -I, or files larger than RAM, to measure the device)",
                Size(total),
                Size(ram)
            )))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;

    #[test]
    fn the_largest_file_of_an_auto_run_and_each_workers_file() {
        let c = test_config(&["-a", "-n", "64k", "-g", "4m", "-f", "/x/t"]);
        assert_eq!(
            largest_files(&c),
            BTreeMap::from([(PathBuf::from("/x/t"), 4 << 20)])
        );
        let c = test_config(&["-l", "1", "-u", "3", "-s", "1m", "-f", "/x/w"]);
        let files = largest_files(&c);
        assert_eq!(files.len(), 3);
        assert!(files.values().all(|&b| b == 1 << 20));
        let c = test_config(&["-l", "1", "-u", "4", "-s", "4m", "-+k", "-f", "/x/w"]);
        let files = largest_files(&c);
        // Worker 0's file is largest with one worker: all of the 4 MiB.
        assert_eq!(files[&PathBuf::from("/x/w.0")], 4 << 20);
        assert_eq!(files[&PathBuf::from("/x/w.3")], 1 << 20);
    }

    #[test]
    fn a_plan_larger_than_the_free_space_is_refused_with_the_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let c = test_config(&["-s", "100000g", "-f", path.to_str().unwrap()]);
        let err = check(&c).unwrap_err().to_string();
        assert!(
            err.contains("needs 97.7 TiB") && err.contains("is free there"),
            "{err}"
        );
        assert!(!path.exists());
    }

    #[test]
    fn a_device_has_no_free_space_to_count() {
        // A character device (a block device alike) is sized where devices
        // are checked: neither refused for space nor counted in RAM.
        let c = test_config(&["-s", "100000g", "-f", "/dev/null"]);
        assert_eq!(check(&c).unwrap(), None);
    }

    #[test]
    fn a_small_cached_plan_warns_and_o_direct_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let c = test_config(&["-s", "64k", "-f", path.to_str().unwrap()]);
        let warning = check(&c).unwrap().expect("a warning");
        assert!(warning.contains("fits in RAM"), "{warning}");
        let p = path.to_str().unwrap();
        let c = test_config(&["-s", "64k", "-I", "-i", "0", "-i", "1", "-f", p]);
        assert_eq!(check(&c).unwrap(), None);
        // -I leaves the stdio tests cached (IOzone opens them with fopen).
        let c = test_config(&["-s", "64k", "-I", "-i", "0", "-i", "7", "-f", p]);
        assert!(check(&c).unwrap().is_some());
    }

    #[test]
    fn a_replayed_write_file_needs_only_what_it_writes() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("w.txt");
        // 8 KiB written around the 1 TiB mark: a 1 TiB sparse file.
        std::fs::write(&trace, "1099511627776 4096\n0 4096\n").unwrap();
        let path = dir.path().join("t");
        let (t, p) = (trace.to_str().unwrap(), path.to_str().unwrap());
        let replayed = |args: &[&str]| {
            let mut c = test_config(args);
            crate::safety::preflight::attach_telemetry(&mut c).unwrap();
            c
        };
        let needed = |args: &[&str]| largest_files(&replayed(args))[&path];
        assert_eq!(needed(&["-X", t, "-f", p]), 8192);
        // But the file is 1 TiB long, more than the free space here.
        let err = check(&replayed(&["-X", t, "-f", p]))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!(
                "-X {t}: the telemetry file reaches 1.0 TiB into {p}"
            )),
            "{err}"
        );
        assert!(err.contains("is free in"), "{err}");
        assert!(!path.exists());
        // Within the free space, the sparse file is fine.
        let near = dir.path().join("near.txt");
        std::fs::write(&near, "1048576 4096\n0 4096\n").unwrap();
        let n = near.to_str().unwrap();
        assert_eq!(needed(&["-X", n, "-f", p]), 8192);
        assert!(check(&replayed(&["-X", n, "-f", p])).is_ok());
        // Reading without the write test fills the whole file first.
        assert_eq!(needed(&["-X", t, "-i", "1", "-f", p]), (1 << 40) + 4096);
        // -Y alone: test 0 writes the whole file sequentially.
        assert_eq!(needed(&["-Y", t, "-f", p]), (1 << 40) + 4096);
        // Reads past the written end find the tail filled.
        let reads = dir.path().join("r.txt");
        std::fs::write(&reads, "1099511635968 4096\n").unwrap();
        let r = reads.to_str().unwrap();
        assert_eq!(needed(&["-X", t, "-Y", r, "-f", p]), 8192 + 8192);
        assert_eq!(needed(&["-X", t, "-Y", r, "-i", "0", "-f", p]), 8192);
    }
}
