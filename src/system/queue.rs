//! A block device's queue as sysfs shows it (scheduler, read-ahead, queue
//! depth, block sizes, write cache, discard) and the devices stacked under
//! it: a dm, md or bcache device's slaves/, a loop device's backing file
//! and the device holding that file. Every read is an unprivileged sysfs
//! attribute; one that cannot be read stays `None`.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::model::environment::DeviceInfo;
use crate::system::sysfs::read_attr;

/// How deep a stack is followed: a loop device on a file on a dm device on
/// an md array on disks is four; a cycle the kernel would never make ends here.
const MAX_DEPTH: usize = 6;

/// The disk `name` (a whole disk, or a partition whose queue is its disk's)
/// under `sys` (where sysfs is mounted), with the devices beneath it.
pub fn describe(sys: &Path, name: &str) -> DeviceInfo {
    describe_at(sys, name, 0)
}

fn describe_at(sys: &Path, name: &str, depth: usize) -> DeviceInfo {
    let disk = whole_disk(&sys.join("class/block"), name);
    let block = sys.join("block").join(&disk);
    let queue = block.join("queue");
    let number = |attr: &str| read_attr(queue.join(attr)).and_then(|v| v.parse::<u64>().ok());
    let mut info = DeviceInfo {
        name: disk.clone(),
        model: read_attr(block.join("device/model")),
        rotational: read_attr(queue.join("rotational")).and_then(|r| match r.as_str() {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        }),
        scheduler: parse_scheduler(&read_attr(queue.join("scheduler")).unwrap_or_default()),
        driver: link_name(&block.join("device/driver")),
        read_ahead_kb: number("read_ahead_kb"),
        nr_requests: number("nr_requests"),
        logical_block_bytes: number("logical_block_size"),
        physical_block_bytes: number("physical_block_size"),
        write_cache: read_attr(queue.join("write_cache")),
        discard: number("discard_max_bytes").map(|b| b > 0),
        mapper_name: read_attr(block.join("dm/name")),
        backing_file: read_attr(block.join("loop/backing_file")),
        underneath: Vec::new(),
    };
    if depth < MAX_DEPTH {
        info.underneath = slaves(&block)
            .iter()
            .map(|s| describe_at(sys, s, depth + 1))
            .collect();
        if info.underneath.is_empty()
            && let Some(file) = &info.backing_file
            && let Some(holder) = device_of_file(sys, Path::new(file))
        {
            info.underneath.push(describe_at(sys, &holder, depth + 1));
        }
    }
    info
}

/// The names in a device's slaves/ directory, sorted.
fn slaves(block: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(block.join("slaves")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| Some(e.ok()?.file_name().to_str()?.to_string()))
        .collect();
    names.sort();
    names
}

/// The block device holding the file at `path` (a loop device's backing
/// file), by its st_dev; `None` for a file on tmpfs or NFS (major 0).
fn device_of_file(sys: &Path, path: &Path) -> Option<String> {
    // The kernel appends " (deleted)" to a backing file that was removed.
    let dev = fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    if major == 0 {
        return None;
    }
    by_number(sys, (major, minor))
}

/// The kernel name of the block device `major:minor`.
pub fn by_number(sys: &Path, (major, minor): (u32, u32)) -> Option<String> {
    let link = fs::canonicalize(sys.join(format!("dev/block/{major}:{minor}"))).ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

/// The active scheduler in a queue/scheduler text such as
/// "mq-deadline kyber [bfq] none" (a lone word is the active one).
pub fn parse_scheduler(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if let Some(w) = words
        .iter()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
    {
        return (!w.is_empty()).then(|| w.to_string());
    }
    match words.as_slice() {
        [only] => Some(only.to_string()),
        _ => None,
    }
}

/// The last part of where the link `path` points (a driver's name).
fn link_name(path: &Path) -> Option<String> {
    let target = fs::read_link(path).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// The disk a block device belongs to: a partition's parent in sysfs, or
/// the device itself.
pub fn whole_disk(class: &Path, name: &str) -> String {
    let entry = class.join(name);
    if entry.join("partition").exists()
        && let Ok(real) = fs::canonicalize(&entry)
        && let Some(parent) = real.parent().and_then(Path::file_name)
    {
        return parent.to_string_lossy().into_owned();
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// tests/fixtures/environment: copies of the /proc and /sys files a
    /// guest with a dm device over a virtio disk, a loop device and a
    /// reporting balloon shows.
    pub(crate) fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/environment")
    }

    #[test]
    fn a_dm_device_shows_its_queue_and_the_disk_underneath() {
        let sys = fixture().join("sys");
        let dm = describe(&sys, "dm-0");
        assert_eq!(dm.name, "dm-0");
        assert_eq!(dm.mapper_name.as_deref(), Some("vg0-data"));
        assert_eq!(dm.scheduler.as_deref(), Some("none"));
        assert_eq!(dm.read_ahead_kb, Some(4096));
        assert_eq!(dm.nr_requests, Some(128));
        assert_eq!(dm.logical_block_bytes, Some(512));
        assert_eq!(dm.physical_block_bytes, Some(4096));
        assert_eq!(dm.write_cache.as_deref(), Some("write through"));
        assert_eq!(dm.discard, Some(true));
        assert_eq!(dm.underneath.len(), 1);
        let vda = &dm.underneath[0];
        assert_eq!(vda.name, "vda");
        assert_eq!(vda.scheduler.as_deref(), Some("mq-deadline"));
        assert_eq!(vda.rotational, Some(true));
        assert_eq!(vda.write_cache.as_deref(), Some("write back"));
        assert_eq!(vda.discard, Some(false));
        assert!(vda.underneath.is_empty());
    }

    #[test]
    fn a_loop_device_names_its_backing_file_and_a_missing_one_is_unknown() {
        let sys = fixture().join("sys");
        let lo = describe(&sys, "loop3");
        assert_eq!(lo.backing_file.as_deref(), Some("/var/tmp/ioz-disk.img"));
        assert_eq!(lo.scheduler.as_deref(), Some("none"));
        assert_eq!(lo.rotational, Some(false));
        // The backing file is not on this machine: nothing guessed below it.
        assert!(lo.underneath.is_empty());
        let absent = describe(&sys, "sdz");
        assert_eq!(
            absent,
            DeviceInfo {
                name: "sdz".into(),
                ..DeviceInfo::default()
            }
        );
    }

    #[test]
    fn a_loop_device_on_this_machine_finds_the_disk_holding_its_file() {
        // This test's own executable stands for a backing file: the disk
        // holding it is named the way `describe` names the loop's.
        let exe = std::env::current_exe().unwrap();
        let dev = fs::metadata(&exe).unwrap().dev();
        let expected = by_number(Path::new("/sys"), (libc::major(dev), libc::minor(dev)));
        assert_eq!(device_of_file(Path::new("/sys"), &exe), expected);
        assert_eq!(
            device_of_file(Path::new("/sys"), Path::new("/nonexistent")),
            None
        );
    }

    #[test]
    fn scheduler_is_the_bracketed_word() {
        assert_eq!(
            parse_scheduler("mq-deadline kyber [bfq] none\n").as_deref(),
            Some("bfq")
        );
        assert_eq!(
            parse_scheduler("[none] mq-deadline").as_deref(),
            Some("none")
        );
        assert_eq!(parse_scheduler("none\n").as_deref(), Some("none"));
        assert_eq!(parse_scheduler("mq-deadline kyber"), None);
        assert_eq!(parse_scheduler(""), None);
    }
}
