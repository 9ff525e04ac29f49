//! The environment as a list of named facts, the one form every view of it
//! takes (`ioz env`, the HTML and .xlsx environment, the differences
//! between two runs), and what differs between two environments.
//!
//! A fact's value is `None` when the system could not tell: views show it
//! as "unknown", never a guess.

use serde::Serialize;

use crate::model::environment::{DeviceInfo, Environment, FreePageReporting, TargetEnvironment};
use crate::model::units::Size;

/// What a fact is about: the views group facts under these headings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Machine,
    Platform,
    PageCache,
    Sockets,
    Target,
    Device,
}

impl Group {
    pub fn title(self) -> &'static str {
        match self {
            Group::Machine => "Machine",
            Group::Platform => "CPU, virtualisation and mitigations",
            Group::PageCache => "Page cache and memory",
            Group::Sockets => "Socket buffers",
            Group::Target => "Target",
            Group::Device => "Device",
        }
    }
}

/// What a difference is about: the groups the views sum differences up by
/// ("3 settings differ: device 2, mount 1").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    Machine,
    Platform,
    PageCache,
    Sockets,
    FileSystem,
    Mount,
    Network,
    Device,
}

impl Topic {
    pub fn words(self) -> &'static str {
        match self {
            Topic::Machine => "machine",
            Topic::Platform => "CPU and platform",
            Topic::PageCache => "page cache and memory",
            Topic::Sockets => "socket buffers",
            Topic::FileSystem => "file system",
            Topic::Mount => "mount",
            Topic::Network => "network file system",
            Topic::Device => "device",
        }
    }

    /// A fact's topic: its group's, the target's split into its file
    /// system, its mount and a network file system's transport.
    fn of(group: Group, name: &str) -> Topic {
        match group {
            Group::Machine => Topic::Machine,
            Group::Platform => Topic::Platform,
            Group::PageCache => Topic::PageCache,
            Group::Sockets => Topic::Sockets,
            Group::Device => Topic::Device,
            Group::Target => match name {
                "file system" => Topic::FileSystem,
                "mount point" | "mount options" | "mount source" | "test file" => Topic::Mount,
                _ => Topic::Network,
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub group: Group,
    pub name: String,
    /// `None`: unknown.
    pub value: Option<String>,
    /// A setting two runs are compared by; the test file's name and the
    /// free memory of the moment are not.
    pub compared: bool,
    /// What two environments compare it by: its name, but for a device
    /// underneath the target's, the device's own name with the setting
    /// ("vda (underneath) scheduler"), whatever it is under, so that one
    /// disk under two loop devices compares with itself.
    pub key: String,
    /// The device this fact describes, by its name ("" for the target's
    /// own, which compares with the other target's whatever its name):
    /// compared only when the other environment has that device too (a
    /// device one of them lacks is one difference, of the "device" or
    /// "underneath" fact above it, not a dozen settings against unknown).
    pub device: Option<String>,
}

/// A setting that differs between two environments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub name: String,
    /// What it is about (device, mount, page cache…).
    pub topic: Topic,
    /// `None`: unknown in that run (or absent from it).
    pub old: Option<String>,
    pub new: Option<String>,
    /// Settings the kernel changes with this one, which differ with it:
    /// a new I/O scheduler resets the queue's nr_requests.
    pub with_it: Vec<Difference>,
}

/// Of a device, the settings the kernel sets anew with its scheduler.
const SET_WITH_THE_SCHEDULER: [&str; 1] = ["nr_requests"];

/// A device's scheduler that differs takes along the settings the kernel
/// resets with it (of the same device), so one change is one difference.
fn fold_into_the_scheduler(diffs: &mut Vec<Difference>) {
    let schedulers: Vec<String> = diffs
        .iter()
        .filter_map(|d| d.name.strip_suffix("scheduler").map(str::to_string))
        .collect();
    for prefix in schedulers {
        let (taken, kept): (Vec<Difference>, Vec<Difference>) =
            std::mem::take(diffs).into_iter().partition(|d| {
                SET_WITH_THE_SCHEDULER
                    .iter()
                    .any(|s| d.name == format!("{prefix}{s}"))
            });
        *diffs = kept;
        if let Some(s) = diffs
            .iter_mut()
            .find(|d| d.name == format!("{prefix}scheduler"))
        {
            s.with_it = taken;
        }
    }
}

impl Environment {
    /// The CPU caches in a few words: "L1d 32 KiB, L1i 32 KiB, L2 1 MiB".
    pub fn cpu_cache_list(&self) -> String {
        self.cpu_caches
            .iter()
            .map(|c| {
                let kind = match c.kind.as_str() {
                    "Data" => "d",
                    "Instruction" => "i",
                    _ => "",
                };
                format!("L{}{kind} {}", c.level, Size(c.size_bytes))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl FreePageReporting {
    /// "on, order 9 (2 MiB blocks)", or "off (…)".
    pub fn words(&self) -> String {
        if !self.active {
            return "off (no virtio balloon reports free pages)".to_string();
        }
        match (self.order, self.block_bytes()) {
            (Some(order), Some(block)) => {
                format!("on, order {order} ({} blocks)", Size(block))
            }
            _ => "on, order unknown".to_string(),
        }
    }
}

struct Facts(Vec<Fact>);

impl Facts {
    fn add(&mut self, group: Group, name: impl Into<String>, value: Option<String>) {
        let name = name.into();
        self.0.push(Fact {
            group,
            key: name.clone(),
            name,
            value,
            compared: true,
            device: None,
        });
    }

    /// A fact shown but never compared.
    fn shown(&mut self, group: Group, name: impl Into<String>, value: Option<String>) {
        self.add(group, name, value);
        if let Some(last) = self.0.last_mut() {
            last.compared = false;
        }
    }
}

fn text(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.to_string())
}

fn number(n: Option<u64>) -> Option<String> {
    n.map(|n| n.to_string())
}

fn yes_no(b: Option<bool>) -> Option<String> {
    b.map(|b| if b { "yes" } else { "no" }.to_string())
}

impl Environment {
    /// Every fact of the environment, in the order the views show them.
    pub fn facts(&self) -> Vec<Fact> {
        let mut f = Facts(Vec::new());
        self.machine_facts(&mut f);
        self.platform_facts(&mut f);
        self.page_cache_facts(&mut f);
        self.socket_facts(&mut f);
        target_facts(&mut f, &self.target);
        f.0
    }

    /// The settings that differ between `self` (the old run) and `other`
    /// (the new), in the order of [`Environment::facts`]; a fact only one
    /// of them has is compared with unknown.
    ///
    /// A device underneath the target's is compared by its own name, and
    /// only with the same device of the other environment.
    pub fn differences(&self, other: &Environment) -> Vec<Difference> {
        let (old, new) = (self.facts(), other.facts());
        let devices = |facts: &[Fact]| -> Vec<String> {
            facts.iter().filter_map(|f| f.device.clone()).collect()
        };
        let (old_devices, new_devices) = (devices(&old), devices(&new));
        let in_both = |f: &Fact| {
            f.device
                .as_ref()
                .is_none_or(|d| old_devices.contains(d) && new_devices.contains(d))
        };
        let old: Vec<Fact> = old
            .into_iter()
            .filter(|f| f.compared && in_both(f))
            .collect();
        let new: Vec<Fact> = new
            .into_iter()
            .filter(|f| f.compared && in_both(f))
            .collect();
        let find = |list: &[Fact], key: &str| {
            list.iter()
                .find(|f| f.key == key)
                .and_then(|f| f.value.clone())
        };
        let mut keys: Vec<(&str, Topic)> = Vec::new();
        for f in old.iter().chain(&new) {
            if !keys.iter().any(|(k, _)| *k == f.key) {
                keys.push((&f.key, Topic::of(f.group, &f.name)));
            }
        }
        let mut diffs: Vec<Difference> = keys
            .into_iter()
            .filter_map(|(key, topic)| {
                let (a, b) = (find(&old, key), find(&new, key));
                (a != b).then(|| Difference {
                    name: key.to_string(),
                    topic,
                    old: a,
                    new: b,
                    with_it: Vec::new(),
                })
            })
            .collect();
        fold_into_the_scheduler(&mut diffs);
        diffs
    }

    fn machine_facts(&self, f: &mut Facts) {
        let g = Group::Machine;
        f.add(g, "host", text(&self.hostname));
        f.add(g, "kernel", text(&self.kernel));
        f.add(g, "CPU", text(&self.cpu_model));
        f.add(
            g,
            "logical CPUs",
            (self.cpu_count > 0).then(|| self.cpu_count.to_string()),
        );
        f.add(g, "CPU caches", text(&self.cpu_cache_list()));
        f.add(
            g,
            "memory",
            (self.memory_bytes > 0).then(|| Size(self.memory_bytes).to_string()),
        );
        f.shown(
            g,
            "free memory at start",
            self.memory_available_bytes.map(|b| Size(b).to_string()),
        );
    }

    fn platform_facts(&self, f: &mut Facts) {
        let g = Group::Platform;
        let p = &self.platform;
        f.add(g, "CPU frequency governor", p.cpu_governor.clone());
        f.add(g, "NUMA nodes", p.numa_nodes.map(|n| n.to_string()));
        f.add(g, "hypervisor", p.hypervisor.clone());
        f.add(g, "container", p.container.clone());
        f.add(
            g,
            "free page reporting",
            p.free_page_reporting.as_ref().map(FreePageReporting::words),
        );
        for m in &p.mitigations {
            f.add(g, format!("mitigation {}", m.name), text(&m.state));
        }
    }

    fn page_cache_facts(&self, f: &mut Facts) {
        let g = Group::PageCache;
        let p = &self.page_cache;
        f.add(g, "vm.dirty_ratio", number(p.dirty_ratio));
        f.add(
            g,
            "vm.dirty_background_ratio",
            number(p.dirty_background_ratio),
        );
        f.add(g, "vm.dirty_bytes", number(p.dirty_bytes));
        f.add(
            g,
            "vm.dirty_background_bytes",
            number(p.dirty_background_bytes),
        );
        f.add(
            g,
            "vm.dirty_expire_centisecs",
            number(p.dirty_expire_centisecs),
        );
        f.add(
            g,
            "vm.dirty_writeback_centisecs",
            number(p.dirty_writeback_centisecs),
        );
        f.add(g, "vm.vfs_cache_pressure", number(p.vfs_cache_pressure));
        f.add(g, "vm.swappiness", number(p.swappiness));
        f.add(g, "transparent huge pages", p.transparent_hugepages.clone());
        f.add(
            g,
            "swap",
            p.swap_total_bytes.map(|b| match b {
                0 => "none".to_string(),
                b => Size(b).to_string(),
            }),
        );
    }

    fn socket_facts(&self, f: &mut Facts) {
        let g = Group::Sockets;
        let s = &self.sockets;
        f.add(g, "net.core.wmem_max", number(s.wmem_max));
        f.add(g, "net.core.rmem_max", number(s.rmem_max));
        f.add(g, "net.ipv4.tcp_wmem", s.tcp_wmem.clone());
        f.add(g, "net.ipv4.tcp_rmem", s.tcp_rmem.clone());
    }
}

fn target_facts(f: &mut Facts, t: &TargetEnvironment) {
    let g = Group::Target;
    f.shown(g, "test file", text(&t.path));
    f.add(g, "mount point", text(&t.mount_point));
    f.add(g, "file system", text(&t.file_system_words()));
    f.add(g, "mount options", text(&t.mount_options));
    f.add(g, "mount source", text(&t.source));
    if let Some(n) = &t.network {
        f.add(g, "protocol version", n.version.clone());
        f.add(g, "protocol", n.protocol.clone());
        f.add(g, "rsize", number(n.rsize));
        f.add(g, "wsize", number(n.wsize));
        f.add(g, "server", n.server.clone());
    }
    match &t.device {
        Some(d) => device_facts(f, d, ""),
        // A source that is no block device (tmpfs, a server's export) has
        // none; one that is and was not found is unknown.
        None if !t.source.is_empty() && !t.source.starts_with("/dev/") => {
            f.add(Group::Device, "device", Some("none".to_string()));
        }
        None => f.add(Group::Device, "device", None),
    }
}

/// A device's facts; `prefix` names a device underneath another
/// ("vda (under dm-0) "), empty for the target's own.
fn device_facts(f: &mut Facts, d: &DeviceInfo, prefix: &str) {
    let g = Group::Device;
    let name = |field: &str| format!("{prefix}{field}");
    if prefix.is_empty() {
        f.add(g, "device", text(&d.name));
    }
    let first = f.0.len();
    if d.mapper_name.is_some() {
        f.add(g, name("mapper name"), d.mapper_name.clone());
    }
    if d.backing_file.is_some() || d.name.starts_with("loop") {
        f.add(g, name("backing file"), d.backing_file.clone());
    }
    f.add(g, name("model"), d.model.clone());
    f.add(g, name("driver"), d.driver.clone());
    f.add(g, name("rotational"), d.rotational_words());
    f.add(g, name("scheduler"), d.scheduler.clone());
    f.add(
        g,
        name("read-ahead"),
        d.read_ahead_kb.map(|kb| format!("{kb} KiB")),
    );
    f.add(g, name("nr_requests"), number(d.nr_requests));
    f.add(
        g,
        name("logical block size"),
        d.logical_block_bytes.map(|b| format!("{b} bytes")),
    );
    f.add(
        g,
        name("physical block size"),
        d.physical_block_bytes.map(|b| format!("{b} bytes")),
    );
    f.add(g, name("write cache"), d.write_cache.clone());
    f.add(g, name("discard"), yes_no(d.discard));
    if !d.underneath.is_empty() {
        let names: Vec<&str> = d.underneath.iter().map(|u| u.name.as_str()).collect();
        f.add(g, name("underneath"), Some(names.join(", ")));
    }
    // Compared only with the same device of the other environment: one
    // underneath by its own name (keyed by it, not by what it is under),
    // the target's own ("") with the other target's device whatever its
    // name, and with none not at all: "device: vda → none" says it.
    let identity = if prefix.is_empty() {
        String::new()
    } else {
        d.name.clone()
    };
    for fact in &mut f.0[first..] {
        if !prefix.is_empty() {
            let field = fact.name.strip_prefix(prefix).unwrap_or(&fact.name);
            fact.key = format!("{} (underneath) {field}", d.name);
        }
        fact.device = Some(identity.clone());
    }
    for u in &d.underneath {
        device_facts(f, u, &format!("{} (under {}) ", u.name, d.name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::environment::{Mitigation, NetworkMount};

    fn machine() -> Environment {
        let mut env = Environment {
            hostname: "box".into(),
            kernel: "Linux 6.12.0 #1 SMP x86_64".into(),
            cpu_count: 2,
            memory_bytes: 8 << 30,
            memory_available_bytes: Some(6 << 30),
            ..Environment::default()
        };
        env.page_cache.dirty_ratio = Some(20);
        env.platform.mitigations = vec![Mitigation {
            name: "meltdown".into(),
            state: "Not affected".into(),
        }];
        env.target = TargetEnvironment {
            path: "/mnt/a/ioz.tmp".into(),
            mount_point: "/mnt/a".into(),
            fs_type: "ext4".into(),
            mount_options: "rw,relatime".into(),
            source: "/dev/loop3".into(),
            device: Some(DeviceInfo {
                name: "loop3".into(),
                scheduler: Some("mq-deadline".into()),
                backing_file: Some("/tmp/img".into()),
                underneath: vec![DeviceInfo {
                    name: "vda".into(),
                    scheduler: Some("none".into()),
                    ..DeviceInfo::default()
                }],
                ..DeviceInfo::default()
            }),
            network: None,
            file_system: None,
        };
        env
    }

    #[test]
    fn two_environments_that_differ_by_the_scheduler_list_exactly_that() {
        let old = machine();
        let mut new = machine();
        new.target.device.as_mut().unwrap().scheduler = Some("none".into());
        // Neither the test file's name nor the free memory of the moment is a setting.
        new.target.path = "/mnt/a/other.tmp".into();
        new.memory_available_bytes = Some(5 << 30);
        assert_eq!(
            old.differences(&new),
            vec![Difference {
                name: "scheduler".into(),
                topic: Topic::Device,
                old: Some("mq-deadline".into()),
                new: Some("none".into()),
                with_it: Vec::new(),
            }]
        );
        assert!(old.differences(&old).is_empty());
        // The kernel resets nr_requests with the scheduler: one change.
        new.target.device.as_mut().unwrap().nr_requests = Some(256);
        let d = old.differences(&new);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].with_it[0].name, "nr_requests");
        assert_eq!(d[0].with_it[0].new.as_deref(), Some("256"));
        // Without a new scheduler, a new nr_requests is a difference of its own.
        let mut deeper = machine();
        deeper.target.device.as_mut().unwrap().nr_requests = Some(256);
        assert_eq!(old.differences(&deeper)[0].name, "nr_requests");
    }

    #[test]
    fn a_device_underneath_is_compared_by_its_own_name() {
        let old = machine();
        let mut new = machine();
        new.target.device.as_mut().unwrap().underneath[0].scheduler = Some("bfq".into());
        new.page_cache.dirty_ratio = None;
        let d = old.differences(&new);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].name, "vm.dirty_ratio");
        assert_eq!(d[0].topic, Topic::PageCache);
        assert_eq!(d[0].new, None);
        assert_eq!(d[1].name, "vda (underneath) scheduler");
        assert_eq!(d[1].topic, Topic::Device);
        assert_eq!(
            (d[1].old.as_deref(), d[1].new.as_deref()),
            (Some("none"), Some("bfq"))
        );
        // The view of one environment still says what it is under.
        assert!(
            old.facts()
                .iter()
                .any(|f| f.name == "vda (under loop3) scheduler")
        );
    }

    #[test]
    fn one_disk_under_two_loop_devices_compares_with_itself() {
        // The issue's case: two file systems on loop4 and loop5, both
        // images on vda; the disk was keyed by the loop device above it,
        // and 16 settings differed against unknown.
        let on = |lo: &str, image: &str, mnt: &str| {
            let mut env = machine();
            env.target.mount_point = mnt.into();
            env.target.source = format!("/dev/{lo}");
            let dev = env.target.device.as_mut().unwrap();
            dev.name = lo.into();
            dev.backing_file = Some(image.into());
            dev.underneath[0].driver = Some("virtio_blk".into());
            env
        };
        let a = on("loop4", "/var/tmp/a.img", "/mnt/a");
        let mut b = on("loop5", "/var/tmp/b.img", "/mnt/b");
        b.target.fs_type = "xfs".into();
        let d = a.differences(&b);
        let names: Vec<(&str, Topic)> = d.iter().map(|d| (d.name.as_str(), d.topic)).collect();
        assert_eq!(
            names,
            [
                ("mount point", Topic::Mount),
                ("file system", Topic::FileSystem),
                ("mount source", Topic::Mount),
                ("device", Topic::Device),
                ("backing file", Topic::Device),
            ]
        );
        // A device that only one of them has is one difference, not each
        // of its settings against unknown: the target's own on a tmpfs…
        let mut tmpfs = a.clone();
        tmpfs.target.fs_type = "tmpfs".into();
        tmpfs.target.source = "tmpfs".into();
        tmpfs.target.device = None;
        let names: Vec<String> = a.differences(&tmpfs).into_iter().map(|d| d.name).collect();
        assert_eq!(names, ["file system", "mount source", "device"]);
        // … and a disk underneath.
        b.target.device.as_mut().unwrap().underneath[0].name = "vdb".into();
        let d = a.differences(&b);
        assert_eq!(d.len(), 6, "{d:?}");
        assert_eq!(d[5].name, "underneath");
        assert_eq!(
            (d[5].old.as_deref(), d[5].new.as_deref()),
            (Some("vda"), Some("vdb"))
        );
    }

    #[test]
    fn facts_say_unknown_as_none_and_a_tmpfs_has_no_device() {
        let mut env = machine();
        let facts = env.facts();
        let value = |facts: &[Fact], name: &str| {
            facts
                .iter()
                .find(|f| f.name == name)
                .unwrap_or_else(|| panic!("{name}: {facts:?}"))
                .value
                .clone()
        };
        assert_eq!(value(&facts, "backing file").as_deref(), Some("/tmp/img"));
        assert_eq!(value(&facts, "underneath").as_deref(), Some("vda"));
        assert_eq!(value(&facts, "vm.swappiness"), None);
        assert_eq!(
            value(&facts, "mitigation meltdown").as_deref(),
            Some("Not affected")
        );
        assert_eq!(
            value(&facts, "free memory at start").as_deref(),
            Some("6 GiB")
        );
        env.target.source = "tmpfs".into();
        env.target.device = None;
        env.target.network = Some(NetworkMount {
            version: Some("4.2".into()),
            ..NetworkMount::default()
        });
        let facts = env.facts();
        assert_eq!(value(&facts, "device").as_deref(), Some("none"));
        assert_eq!(value(&facts, "protocol version").as_deref(), Some("4.2"));
        assert_eq!(value(&facts, "rsize"), None);
    }

    #[test]
    fn free_page_reporting_names_its_block_size() {
        let on = FreePageReporting {
            active: true,
            order: Some(9),
            page_bytes: 4096,
        };
        assert_eq!(on.words(), "on, order 9 (2 MiB blocks)");
        assert_eq!(on.block_bytes(), Some(2 << 20));
        let off = FreePageReporting {
            active: false,
            ..on.clone()
        };
        assert!(off.words().starts_with("off"));
    }

    #[test]
    fn an_older_run_without_the_new_fields_still_reads() {
        let old = r#"{"hostname":"h","kernel":"k","cpu_model":"c","cpu_count":1,
            "cpu_caches":[],"memory_bytes":1,"target":{"path":"p","mount_point":"/",
            "fs_type":"ext4","mount_options":"rw","source":"/dev/vda",
            "device":{"name":"vda","model":null,"rotational":true,"scheduler":"none"}}}"#;
        let env: Environment = serde_json::from_str(old).unwrap();
        assert_eq!(env.memory_available_bytes, None);
        assert_eq!(env.page_cache, Default::default());
        assert!(env.target.device.unwrap().underneath.is_empty());
    }
}
