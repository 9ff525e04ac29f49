//! The machine and target a run measured: kernel, CPU and caches, memory, and
//! the file system and device under the test file. Captured once, before the
//! first cell, outside any timing.

use std::fs;
use std::path::{Path, PathBuf};

use crate::model::environment::{CpuCache, DeviceInfo, Environment, FilePlace, TargetEnvironment};
use crate::system::device;
use crate::system::mountinfo::{self, Mount};
use crate::system::sysfs::parse_cpu_list_count;
use crate::system::{netfs, queue, tunables, virt};

/// Captures the environment of a run whose test file is `target`. Never
/// fails: what cannot be read stays empty (or `None`).
pub fn capture(target: &Path) -> Environment {
    let mut env = Environment::default();
    if let Ok(u) = nix::sys::utsname::uname() {
        env.hostname = u.nodename().to_string_lossy().into_owned();
        env.kernel = format!(
            "{} {} {} {}",
            u.sysname().to_string_lossy(),
            u.release().to_string_lossy(),
            u.version().to_string_lossy(),
            u.machine().to_string_lossy()
        );
    }
    let cpuinfo = read("/proc/cpuinfo");
    env.cpu_model = parse_cpu_model(&cpuinfo).unwrap_or_default();
    env.cpu_count = parse_cpu_list_count(&read("/sys/devices/system/cpu/online"))
        .or_else(|| u32::try_from(parse_processor_count(&cpuinfo)).ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    env.cpu_caches = cpu0_caches();
    env.memory_bytes = parse_mem_total(&read("/proc/meminfo")).unwrap_or(0);
    env.target = capture_target(target, Path::new("/sys"));
    read_settings(&mut env, Path::new("/"));
    env
}

/// The settings that change storage results, from /proc and /sys under
/// `root` ("/", or a fixture tree in tests): the memory free now, the page
/// cache tunables and swap, the socket buffers, the platform and whether
/// the machine is virtual.
pub fn read_settings(env: &mut Environment, root: &Path) {
    let meminfo = read(root.join("proc/meminfo"));
    env.memory_available_bytes = parse_mem_available(&meminfo);
    env.page_cache = tunables::page_cache(root);
    env.page_cache.swap_total_bytes = parse_meminfo_bytes(&meminfo, "SwapTotal");
    env.sockets = tunables::sockets(root);
    env.platform = tunables::platform(root, page_bytes());
    env.platform.hypervisor = virt::hypervisor(root);
    env.platform.container = virt::container(root);
}

/// The page size free page reporting's order counts (4 KiB when unknown:
/// every Linux architecture's smallest).
fn page_bytes() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|b| u64::try_from(b).ok())
        .unwrap_or(4096)
}

/// The file's text, or "" when it cannot be read.
fn read(path: impl AsRef<Path>) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

/// The first CPU's model from /proc/cpuinfo ("model name" on x86, else the
/// closest field other architectures have).
pub fn parse_cpu_model(cpuinfo: &str) -> Option<String> {
    ["model name", "cpu model", "Model", "Hardware", "cpu"]
        .iter()
        .find_map(|key| {
            cpuinfo.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                let v = v.trim();
                (k.trim() == *key && !v.is_empty()).then(|| v.to_string())
            })
        })
}

/// How many `processor : N` entries /proc/cpuinfo lists.
fn parse_processor_count(cpuinfo: &str) -> usize {
    cpuinfo
        .lines()
        .filter(|l| {
            l.split_once(':')
                .is_some_and(|(k, _)| k.trim() == "processor")
        })
        .count()
}

/// MemTotal from /proc/meminfo, in bytes.
pub fn parse_mem_total(meminfo: &str) -> Option<u64> {
    parse_meminfo_bytes(meminfo, "MemTotal")
}

/// MemAvailable from /proc/meminfo (what can be allocated without swapping), in bytes.
pub fn parse_mem_available(meminfo: &str) -> Option<u64> {
    parse_meminfo_bytes(meminfo, "MemAvailable")
}

/// The field `key` of /proc/meminfo, in bytes.
pub fn parse_meminfo_bytes(meminfo: &str, key: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    let mut fields = line[key.len() + 1..].split_whitespace();
    let value: u64 = fields.next()?.parse().ok()?;
    let scale = match fields.next().map(str::to_ascii_lowercase).as_deref() {
        None => 1,
        Some("kb") => 1024,
        Some("mb") => 1024 * 1024,
        Some("gb") => 1024 * 1024 * 1024,
        Some(_) => return None,
    };
    value.checked_mul(scale)
}

/// A sysfs cache size ("48K", "2048K", "32M", or plain bytes), in bytes.
pub fn parse_cache_size(size: &str) -> Option<u64> {
    let size = size.trim();
    let (digits, scale) = match size.char_indices().last()? {
        (i, 'K' | 'k') => (&size[..i], 1 << 10),
        (i, 'M' | 'm') => (&size[..i], 1 << 20),
        (i, 'G' | 'g') => (&size[..i], 1 << 30),
        _ => (size, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(scale)
}

/// One cache from the texts of its sysfs `level`, `type` and `size` files
/// (`None` for a type other than Data, Instruction or Unified).
pub fn parse_cache(level: &str, kind: &str, size: &str) -> Option<CpuCache> {
    let kind = kind.trim();
    if !matches!(kind, "Data" | "Instruction" | "Unified") {
        return None;
    }
    Some(CpuCache {
        level: level.trim().parse().ok()?,
        kind: kind.to_string(),
        size_bytes: parse_cache_size(size)?,
    })
}

/// The CPU cache `-p` evicts: `given` (-S), else the largest cache sysfs
/// reports for CPU 0, else IOzone's 1 MiB.
pub fn purge_cache_bytes(given: Option<u64>) -> u64 {
    given.unwrap_or_else(|| {
        cpu0_caches()
            .iter()
            .map(|c| c.size_bytes)
            .max()
            .unwrap_or(1 << 20)
    })
}

/// CPU 0's caches, from sysfs.
pub fn cpu0_caches() -> Vec<CpuCache> {
    read_caches(Path::new("/sys/devices/system/cpu/cpu0/cache"))
}

/// The caches under a sysfs `cpuN/cache` directory, in index order.
fn read_caches(dir: &Path) -> Vec<CpuCache> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut indexed: Vec<(u32, CpuCache)> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let index: u32 = e
                .file_name()
                .to_str()?
                .strip_prefix("index")?
                .parse()
                .ok()?;
            let p = e.path();
            let cache = parse_cache(
                &read(p.join("level")),
                &read(p.join("type")),
                &read(p.join("size")),
            )?;
            Some((index, cache))
        })
        .collect();
    indexed.sort_by_key(|(i, _)| *i);
    indexed.into_iter().map(|(_, c)| c).collect()
}

/// The canonical directory that holds (or will hold) `target`: its parent,
/// or the nearest ancestor that exists.
fn target_dir(target: &Path) -> Option<PathBuf> {
    let absolute = if target.is_absolute() {
        target.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(target)
    };
    let mut dir = if absolute.is_dir() {
        Some(absolute.as_path())
    } else {
        absolute.parent()
    };
    while let Some(d) = dir {
        if let Ok(canonical) = fs::canonicalize(d) {
            return Some(canonical);
        }
        dir = d.parent();
    }
    None
}

fn capture_target(target: &Path, sys: &Path) -> TargetEnvironment {
    let mut t = TargetEnvironment {
        path: target.display().to_string(),
        ..TargetEnvironment::default()
    };
    // A block device is the target itself, not a node on devtmpfs.
    if let Some(rdev) = device::rdev_of(target) {
        t.source = t.path.clone();
        t.device = device_info(sys, &t.source, device::major_minor(rdev));
        return t;
    }
    let Some(dir) = target_dir(target) else {
        return t;
    };
    let mounts = mountinfo::read().unwrap_or_default();
    if let Some(mount) = mountinfo::mount_holding(&mounts, &dir) {
        describe_mount(&mut t, mount, sys);
    }
    t
}

/// The target's file system, as the mount holding it shows it.
pub(super) fn describe_mount(t: &mut TargetEnvironment, mount: &Mount, sys: &Path) {
    t.source = mount.source.to_string_lossy().into_owned();
    t.device = device_info(sys, &t.source, mount.dev);
    t.mount_point = mount.mount_point.to_string_lossy().into_owned();
    t.fs_type = mount.fs_type.clone();
    t.mount_options = mount.combined_options();
    t.network = netfs::describe(mount);
    t.file_system = Some(format!("{}:{}", mount.dev.0, mount.dev.1));
}

/// Where `path` (a file the run will write beside its test files) lands:
/// the mount holding its directory and that file system's device.
pub fn place_of(role: &str, path: &Path) -> FilePlace {
    let mut place = FilePlace {
        role: role.to_string(),
        path: path.display().to_string(),
        ..FilePlace::default()
    };
    let mounts = mountinfo::read().unwrap_or_default();
    if let Some(mount) = target_dir(path)
        .as_deref()
        .and_then(|dir| mountinfo::mount_holding(&mounts, dir))
    {
        place.mount_point = mount.mount_point.to_string_lossy().into_owned();
        place.file_system = Some(format!("{}:{}", mount.dev.0, mount.dev.1));
    }
    place
}

/// The whole disk behind a mount source such as /dev/vda1,
/// /dev/mapper/root or /dev/disk/by-uuid/…; `sys` is where sysfs is mounted.
/// `dev` (major, minor) finds sources like /dev/root that have no node.
fn device_info(sys: &Path, source: &str, dev: (u32, u32)) -> Option<DeviceInfo> {
    if !source.starts_with("/dev/") {
        return None;
    }
    let class = sys.join("class/block");
    let by_node = fs::canonicalize(source)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| class.join(n).exists());
    let name = by_node.or_else(|| {
        // Major 0: an anonymous device (tmpfs, btrfs, NFS), not in sysfs.
        let (major, minor) = dev;
        if major == 0 {
            return None;
        }
        queue::by_number(sys, (major, minor))
    })?;
    Some(queue::describe(sys, &name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::queue::whole_disk;

    const CPUINFO: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\nflags\t\t: fpu vme\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n";

    #[test]
    fn cpu_model_is_the_first_model_name() {
        assert_eq!(
            parse_cpu_model(CPUINFO).as_deref(),
            Some("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz")
        );
        assert_eq!(parse_processor_count(CPUINFO), 2);
        assert_eq!(parse_cpu_model("processor : 0\nflags : fpu\n"), None);
        assert_eq!(parse_cpu_model(""), None);
    }

    #[test]
    fn mem_total_is_in_bytes() {
        let meminfo = "MemTotal:       16303452 kB\nMemFree:         1234567 kB\n";
        assert_eq!(parse_mem_total(meminfo), Some(16_303_452 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: lots kB\n"), None);
        let meminfo = "MemAvailableX: 1 kB\nMemAvailable:    8000 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(8000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn cache_sizes_and_entries_parse() {
        assert_eq!(parse_cache_size("48K\n"), Some(48 * 1024));
        assert_eq!(parse_cache_size("2048K"), Some(2048 * 1024));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("1G"), Some(1 << 30));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size(""), None);
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size("12Q"), None);
        assert_eq!(
            parse_cache("2\n", "Unified\n", "2048K\n"),
            Some(CpuCache {
                level: 2,
                kind: "Unified".into(),
                size_bytes: 2 << 20,
            })
        );
        assert_eq!(parse_cache("", "Data", "48K"), None);
        assert_eq!(parse_cache("1", "", "48K"), None);
        assert_eq!(parse_cache("1", "Other", "48K"), None);
    }

    #[test]
    fn last_level_cache_ignores_instruction_caches() {
        let env = Environment {
            cpu_caches: vec![
                parse_cache("1", "Data", "48K").unwrap(),
                parse_cache("1", "Instruction", "32K").unwrap(),
                parse_cache("2", "Unified", "2048K").unwrap(),
                parse_cache("3", "Unified", "32M").unwrap(),
            ],
            ..Environment::default()
        };
        assert_eq!(env.last_level_cache_bytes(), Some(32 << 20));
    }

    #[test]
    fn a_raw_block_device_says_it_has_no_file_system() {
        let mut t = TargetEnvironment {
            path: "/dev/loop3".into(),
            source: "/dev/loop3".into(),
            device: Some(DeviceInfo {
                name: "loop3".into(),
                ..DeviceInfo::default()
            }),
            ..TargetEnvironment::default()
        };
        assert!(t.is_raw_device());
        assert_eq!(t.file_system_words(), "none (raw block device)");
        t.fs_type = "ext4".into();
        t.mount_point = "/".into();
        assert!(!t.is_raw_device());
        assert_eq!(t.file_system_words(), "ext4");
    }

    #[test]
    fn the_target_takes_the_file_system_of_the_mount_holding_it() {
        let mounts = mountinfo::parse(
            "61 27 259:2 / /mnt/fast\\040disk rw,noatime shared:30 - xfs /dev/nvme0n1p2 rw,attr2,inode64\n",
        );
        let absent_sys = Path::new("/nonexistent-ioz-sys");
        let mut t = TargetEnvironment::default();
        describe_mount(&mut t, &mounts[0], absent_sys);
        assert_eq!(t.mount_point, "/mnt/fast disk");
        assert_eq!(t.fs_type, "xfs");
        assert_eq!(t.source, "/dev/nvme0n1p2");
        assert_eq!(t.mount_options, "rw,noatime,attr2,inode64");
        assert_eq!(t.device, None);
    }

    /// A fake /dev and /sys: /dev/disk/by-uuid/u → /dev/sda2, a partition of sda.
    #[test]
    fn a_partition_maps_to_its_disk() {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let sys = r.join("sys");
        let disk = sys.join("devices/pci0/block/sda");
        fs::create_dir_all(disk.join("sda2")).unwrap();
        fs::write(disk.join("sda2/partition"), "2\n").unwrap();
        fs::create_dir_all(sys.join("class/block")).unwrap();
        symlink(disk.join("sda2"), sys.join("class/block/sda2")).unwrap();
        symlink(&disk, sys.join("class/block/sda")).unwrap();
        fs::create_dir_all(sys.join("dev/block")).unwrap();
        symlink(disk.join("sda2"), sys.join("dev/block/8:2")).unwrap();
        let block = sys.join("block/sda");
        fs::create_dir_all(block.join("device")).unwrap();
        fs::create_dir_all(block.join("queue")).unwrap();
        fs::write(block.join("device/model"), "Samsung SSD 870   \n").unwrap();
        fs::write(block.join("queue/rotational"), "0\n").unwrap();
        fs::write(block.join("queue/scheduler"), "[mq-deadline] none\n").unwrap();
        symlink("../../../bus/scsi/drivers/sd", block.join("device/driver")).unwrap();
        fs::create_dir_all(r.join("dev/disk/by-uuid")).unwrap();
        fs::write(r.join("dev/sda2"), "").unwrap();
        symlink("../../sda2", r.join("dev/disk/by-uuid/u")).unwrap();

        let expected = DeviceInfo {
            name: "sda".into(),
            model: Some("Samsung SSD 870".into()),
            rotational: Some(false),
            scheduler: Some("mq-deadline".into()),
            driver: Some("sd".into()),
            ..DeviceInfo::default()
        };
        // device_info only follows sources under /dev/; the fake tree is
        // elsewhere, so test the two steps it is made of.
        let by_uuid = fs::canonicalize(r.join("dev/disk/by-uuid/u")).unwrap();
        let name = by_uuid.file_name().unwrap().to_str().unwrap();
        assert_eq!(name, "sda2");
        assert_eq!(whole_disk(&sys.join("class/block"), name), "sda");
        assert_eq!(whole_disk(&sys.join("class/block"), "sda"), "sda");
        // A source without a node (/dev/root) is found by major:minor.
        assert_eq!(
            device_info(&sys, "/dev/root-ioz-absent", (8, 2)),
            Some(expected)
        );
        assert_eq!(device_info(&sys, "/dev/root-ioz-absent", (0, 33)), None);
        assert_eq!(device_info(&sys, "tmpfs", (8, 2)), None);
    }

    #[test]
    fn the_settings_are_read_from_a_fixture_tree() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/environment");
        let mut env = Environment::default();
        read_settings(&mut env, &root);
        assert_eq!(env.memory_available_bytes, Some(6_291_456 * 1024));
        assert_eq!(env.page_cache.swap_total_bytes, Some(2_097_148 * 1024));
        assert_eq!(env.page_cache.dirty_ratio, Some(20));
        assert_eq!(env.sockets.wmem_max, Some(212_992));
        assert!(env.platform.hypervisor.unwrap().starts_with("QEMU"));
        assert!(env.platform.container.unwrap().starts_with("docker"));
        let fpr = env.platform.free_page_reporting.unwrap();
        assert!(fpr.active && fpr.order == Some(9), "{fpr:?}");
        // The NFS mount of the same tree: its transport is in the target.
        let mounts = mountinfo::parse(&read(root.join("proc/self/mountinfo")));
        let mut t = TargetEnvironment::default();
        let nfs = mountinfo::mount_holding(&mounts, Path::new("/mnt/nfs/dir")).unwrap();
        describe_mount(&mut t, nfs, &root.join("sys"));
        let n = t.network.unwrap();
        assert_eq!(
            (n.version.as_deref(), n.protocol.as_deref()),
            (Some("4.2"), Some("tcp"))
        );
        assert_eq!(t.device, None);
        // The dm device: described with the disk underneath.
        let dm = mountinfo::mount_holding(&mounts, Path::new("/srv/data/x")).unwrap();
        let mut t = TargetEnvironment::default();
        describe_mount(&mut t, dm, &root.join("sys"));
        assert_eq!(t.network, None);
        // /dev/mapper/vg0-data is no node of this machine: found by 252:0.
        assert_eq!(t.source, "/dev/mapper/vg0-data");
        let dm = t.device.unwrap();
        assert_eq!(dm.name, "dm-0");
        assert_eq!(dm.mapper_name.as_deref(), Some("vg0-data"));
        assert_eq!(dm.underneath[0].name, "vda");
        assert_eq!(dm.underneath[0].scheduler.as_deref(), Some("mq-deadline"));
    }

    #[test]
    fn capture_describes_a_temporary_directory() {
        let dir = tempfile::tempdir().unwrap();
        let env = capture(&dir.path().join("ioz.tmp"));
        assert!(!env.kernel.is_empty());
        assert!(env.cpu_count >= 1);
        assert!(env.memory_bytes > 0, "{env:?}");
        assert!(!env.target.fs_type.is_empty(), "{env:?}");
        assert!(!env.target.mount_point.is_empty(), "{env:?}");
        assert!(
            fs::canonicalize(dir.path())
                .unwrap()
                .starts_with(&env.target.mount_point)
        );
        assert_eq!(
            env.target.path,
            dir.path().join("ioz.tmp").display().to_string()
        );
    }
}
