//! The environment for people, in plain text: every fact grouped (`ioz
//! env`), a few header lines for `-M`, and what differs between two
//! environments (`ioz env --diff`, and `ioz compare` before its numbers).

use std::fmt::Write;

use crate::model::env_facts::{Difference, Fact, Group, Topic};
use crate::model::environment::{DeviceInfo, Environment, TargetEnvironment};
use crate::model::units::Size;
use crate::report::web::esc;

/// How an unknown value is shown.
pub const UNKNOWN: &str = "unknown";

fn shown(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or(UNKNOWN)
}

/// Every fact under its group's heading, names aligned within a group.
pub fn environment_text(env: &Environment) -> String {
    let facts = env.facts();
    let mut s = String::new();
    let mut groups: Vec<Group> = Vec::new();
    for f in &facts {
        if !groups.contains(&f.group) {
            groups.push(f.group);
        }
    }
    for group in groups {
        let members: Vec<&Fact> = facts.iter().filter(|f| f.group == group).collect();
        let width = members
            .iter()
            .map(|f| f.name.chars().count() + 1)
            .max()
            .unwrap_or(0);
        let _ = writeln!(s, "{}", group.title());
        for f in members {
            let name = format!("{}:", f.name);
            let _ = writeln!(s, "  {name:<width$} {}", shown(&f.value));
        }
        s.push('\n');
    }
    s
}

/// The facts the HTML and .xlsx environments show by their own rows since
/// before the full disclosure (host, kernel, CPU, memory, the mount and the
/// target device's name, model, driver, rotational flag and scheduler).
const OWN_ROWS: [&str; 16] = [
    "host",
    "kernel",
    "CPU",
    "logical CPUs",
    "CPU caches",
    "memory",
    "test file",
    "mount point",
    "file system",
    "mount options",
    "mount source",
    "device",
    "model",
    "driver",
    "rotational",
    "scheduler",
];

/// The facts a view with those rows adds after them: every other one.
pub fn further_facts(env: &Environment) -> Vec<Fact> {
    env.facts()
        .into_iter()
        .filter(|f| !OWN_ROWS.contains(&f.name.as_str()))
        .collect()
}

/// One line a difference: `scheduler: mq-deadline → none`.
/// What the kernel changed with it follows in parentheses.
pub fn difference_line(d: &Difference) -> String {
    format!("{}: {}", d.name, change_words(d))
}

/// `mq-deadline → none`, and what the kernel changed with it.
fn change_words(d: &Difference) -> String {
    let mut line = format!("{} → {}", shown(&d.old), shown(&d.new));
    if !d.with_it.is_empty() {
        let also: Vec<String> = d
            .with_it
            .iter()
            .map(|w| format!("{} {} → {}", w.name, shown(&w.old), shown(&w.new)))
            .collect();
        let _ = write!(
            line,
            " (and with it, as the kernel sets it: {})",
            also.join(", ")
        );
    }
    line
}

/// The differences by topic, topics in the order their first difference
/// comes (the order of the facts).
pub fn difference_groups(diffs: &[Difference]) -> Vec<(Topic, Vec<&Difference>)> {
    let mut groups: Vec<(Topic, Vec<&Difference>)> = Vec::new();
    for d in diffs {
        match groups.iter_mut().find(|(t, _)| *t == d.topic) {
            Some((_, members)) => members.push(d),
            None => groups.push((d.topic, vec![d])),
        }
    }
    groups
}

/// The one line that leads what differs: nothing, one setting and its
/// topic, or a warning that several differ, counted by topic (the
/// comparison then measures them together).
pub fn differences_summary(diffs: &[Difference]) -> String {
    let groups = difference_groups(diffs);
    match diffs.len() {
        0 => "environments: no setting differs".to_string(),
        1 => format!(
            "environments: 1 setting differs ({})",
            diffs[0].topic.words()
        ),
        n => {
            let counts: Vec<String> = groups
                .iter()
                .map(|(t, members)| format!("{} {}", t.words(), members.len()))
                .collect();
            format!(
                "warning: {n} settings differ between the environments ({}), not one: a \
                 difference in the results may come from any of them",
                counts.join(", ")
            )
        }
    }
}

/// One topic's differences in one line: `device: scheduler mq-deadline →
/// none; read-ahead 128 KiB → 4096 KiB` (a setting named as its topic,
/// such as the file system, is not named twice).
pub fn group_line(topic: Topic, members: &[&Difference]) -> String {
    let parts: Vec<String> = members
        .iter()
        .map(|d| {
            if d.name == topic.words() {
                change_words(d)
            } else {
                format!("{} {}", d.name, change_words(d))
            }
        })
        .collect();
    format!("{}: {}", topic.words(), parts.join("; "))
}

/// What differs between two runs' environments, as `ioz compare` and
/// `ioz history trend` lead with it: the summary line, then a line per
/// topic, indented under it.
pub fn differences_lines(diffs: &[Difference]) -> Vec<String> {
    std::iter::once(differences_summary(diffs))
        .chain(
            difference_groups(diffs)
                .into_iter()
                .map(|(topic, members)| format!("  {}", group_line(topic, &members))),
        )
        .collect()
}

/// Every difference on its own line under its topic (`ioz env --diff`):
/// the summary line, then each topic and its settings.
pub fn differences_detail(diffs: &[Difference]) -> Vec<String> {
    let mut lines = vec![differences_summary(diffs)];
    for (topic, members) in difference_groups(diffs) {
        lines.push(format!("{}:", topic.words()));
        lines.extend(members.iter().map(|d| format!("  {}", difference_line(d))));
    }
    lines
}

/// What differs, for a web page: `lead` (HTML) and the summary line, the
/// differences folded under it by topic (`<details>`); nothing folded when
/// nothing differs.
pub fn differences_html(lead: &str, diffs: &[Difference]) -> String {
    let summary = esc(&differences_summary(diffs));
    if diffs.is_empty() {
        return format!("<p class=\"note envdiff\">{lead}: {summary}</p>");
    }
    let mut h = format!("<details class=\"envdiff\"><summary>{lead}: {summary}</summary><ul>");
    for (topic, members) in difference_groups(diffs) {
        let _ = write!(h, "<li><b>{}</b><ul>", esc(topic.words()));
        for d in members {
            let _ = write!(h, "<li>{}</li>", esc(&difference_line(d)));
        }
        h.push_str("</ul></li>");
    }
    h.push_str("</ul></details>");
    h
}

/// The `-M` header lines: the machine's settings in a few lines (the full
/// list is in the JSON, HTML and .xlsx environment, and `ioz env`).
pub fn header_lines(env: &Environment) -> Vec<String> {
    let p = &env.platform;
    let pc = &env.page_cache;
    let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| UNKNOWN.into());
    let num = |v: Option<u64>| v.map_or(UNKNOWN.to_string(), |n| n.to_string());
    let mut lines = vec![
        format!(
            "Virtualisation: hypervisor {}; container {}",
            or_unknown(&p.hypervisor),
            or_unknown(&p.container)
        ),
        format!(
            "CPU: governor {}, NUMA nodes {}, {} of {} kernel-listed vulnerabilities not mitigated",
            or_unknown(&p.cpu_governor),
            p.numa_nodes.map_or(UNKNOWN.to_string(), |n| n.to_string()),
            p.mitigations
                .iter()
                .filter(|m| m.state.starts_with("Vulnerable"))
                .count(),
            p.mitigations.len()
        ),
        format!(
            "Memory: {} free at start; swap {}; transparent huge pages {}",
            env.memory_available_bytes
                .map_or(UNKNOWN.to_string(), |b| Size(b).to_string()),
            pc.swap_total_bytes
                .map_or(UNKNOWN.to_string(), |b| if b == 0 {
                    "none".into()
                } else {
                    Size(b).to_string()
                }),
            or_unknown(&pc.transparent_hugepages)
        ),
        format!(
            "Page cache: dirty_ratio {}, dirty_background_ratio {}, dirty_expire_centisecs {}, \
             dirty_writeback_centisecs {}, vfs_cache_pressure {}, swappiness {}",
            num(pc.dirty_ratio),
            num(pc.dirty_background_ratio),
            num(pc.dirty_expire_centisecs),
            num(pc.dirty_writeback_centisecs),
            num(pc.vfs_cache_pressure),
            num(pc.swappiness)
        ),
    ];
    if let Some(fpr) = &p.free_page_reporting {
        lines.push(format!("Free page reporting: {}", fpr.words()));
    }
    let t = &env.target;
    lines.push(format!("File system: {}", file_system_words(t)));
    match &t.device {
        Some(d) => {
            lines.push(format!("Device: {}", device_words(d)));
            let mut stack = d.underneath.iter().map(|u| (d, u)).collect::<Vec<_>>();
            while let Some((over, u)) = stack.pop() {
                lines.push(format!("Under {}: {}", over.name, device_words(u)));
                stack.extend(u.underneath.iter().map(|v| (u, v)));
            }
        }
        None => lines.push(format!(
            "Device: {}",
            if t.source.is_empty() || t.source.starts_with("/dev/") {
                UNKNOWN
            } else {
                "none"
            }
        )),
    }
    if let Some(n) = &t.network {
        let s = &env.sockets;
        lines.push(format!(
            "Network file system: version {}, protocol {}, rsize {}, wsize {}; \
             wmem_max {}, rmem_max {}, tcp_wmem {}, tcp_rmem {}",
            or_unknown(&n.version),
            or_unknown(&n.protocol),
            num(n.rsize),
            num(n.wsize),
            num(s.wmem_max),
            num(s.rmem_max),
            or_unknown(&s.tcp_wmem),
            or_unknown(&s.tcp_rmem)
        ));
    }
    lines
}

/// Where the test file is, in one line: the file system and its mount
/// (type, mount point, source, options), or the raw device written in place.
fn file_system_words(t: &TargetEnvironment) -> String {
    let or_unknown = |s: &str| {
        if s.is_empty() {
            UNKNOWN.to_string()
        } else {
            s.to_string()
        }
    };
    if t.is_raw_device() {
        return format!("none (raw block device {})", or_unknown(&t.source));
    }
    format!(
        "{} on {} (mount source {}, options {})",
        or_unknown(&t.fs_type),
        or_unknown(&t.mount_point),
        or_unknown(&t.source),
        or_unknown(&t.mount_options)
    )
}

/// A device in one line: its name and queue settings.
fn device_words(d: &DeviceInfo) -> String {
    let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| UNKNOWN.into());
    let num = |v: Option<u64>| v.map_or(UNKNOWN.to_string(), |n| n.to_string());
    let mut s = d.name.clone();
    if let Some(file) = &d.backing_file {
        let _ = write!(s, " (backing file {file})");
    }
    if let Some(name) = &d.mapper_name {
        let _ = write!(s, " ({name})");
    }
    let _ = write!(
        s,
        ", scheduler {}, read-ahead {} KiB, nr_requests {}, blocks {}/{} bytes (logical/physical), \
         write cache {}, discard {}, rotational {}",
        or_unknown(&d.scheduler),
        num(d.read_ahead_kb),
        num(d.nr_requests),
        num(d.logical_block_bytes),
        num(d.physical_block_bytes),
        or_unknown(&d.write_cache),
        d.discard.map_or(UNKNOWN, |b| if b { "yes" } else { "no" }),
        d.rotational
            .map_or(UNKNOWN, |b| if b { "yes" } else { "no" }),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::environment::FreePageReporting;

    fn env() -> Environment {
        let mut e = Environment {
            hostname: "box".into(),
            ..Environment::default()
        };
        e.platform.free_page_reporting = Some(FreePageReporting {
            active: true,
            order: Some(9),
            page_bytes: 4096,
        });
        e.target = TargetEnvironment {
            source: "/dev/loop0".into(),
            device: Some(DeviceInfo {
                name: "loop0".into(),
                backing_file: Some("/tmp/disk.img".into()),
                scheduler: Some("none".into()),
                underneath: vec![DeviceInfo {
                    name: "vda".into(),
                    scheduler: Some("mq-deadline".into()),
                    ..DeviceInfo::default()
                }],
                ..DeviceInfo::default()
            }),
            ..TargetEnvironment::default()
        };
        e
    }

    #[test]
    fn the_text_groups_facts_and_says_unknown() {
        let text = environment_text(&env());
        assert!(text.contains("Machine\n  host: "), "{text}");
        assert!(text.contains("free page reporting:"), "{text}");
        assert!(text.contains("on, order 9 (2 MiB blocks)"), "{text}");
        assert!(text.contains("backing file:"), "{text}");
        assert!(text.contains("/tmp/disk.img"), "{text}");
        assert!(text.contains("vda (under loop0) scheduler:"), "{text}");
        let swappiness = text.lines().find(|l| l.contains("vm.swappiness")).unwrap();
        assert!(swappiness.ends_with(" unknown"), "{swappiness}");
    }

    #[test]
    fn header_lines_show_the_stack_and_free_page_reporting() {
        let lines = header_lines(&env());
        assert!(lines.contains(&"Free page reporting: on, order 9 (2 MiB blocks)".to_string()));
        assert!(
            lines.contains(&"File system: none (raw block device /dev/loop0)".to_string()),
            "{lines:?}"
        );
        let mut mounted = env();
        mounted.target.fs_type = "ext4".into();
        mounted.target.mount_point = "/mnt/a".into();
        mounted.target.mount_options = "rw,relatime".into();
        let lines = header_lines(&mounted);
        let at = |start: &str| lines.iter().position(|l| l.starts_with(start)).unwrap();
        assert_eq!(
            lines[at("File system: ")],
            "File system: ext4 on /mnt/a (mount source /dev/loop0, options rw,relatime)"
        );
        assert_eq!(at("Device: "), at("File system: ") + 1, "{lines:?}");
        assert!(
            lines.iter().any(
                |l| l.starts_with("Device: loop0 (backing file /tmp/disk.img), scheduler none")
            ),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("Under loop0: vda, scheduler mq-deadline")),
            "{lines:?}"
        );
    }

    #[test]
    fn differences_lead_with_a_summary_then_a_line_per_topic() {
        let d = |name: &str, topic: Topic, old: Option<&str>, new: Option<&str>| Difference {
            name: name.into(),
            topic,
            old: old.map(str::to_string),
            new: new.map(str::to_string),
            with_it: Vec::new(),
        };
        let one = [d(
            "scheduler",
            Topic::Device,
            Some("mq-deadline"),
            Some("none"),
        )];
        assert_eq!(
            differences_lines(&one),
            [
                "environments: 1 setting differs (device)",
                "  device: scheduler mq-deadline → none"
            ]
        );
        assert_eq!(
            differences_detail(&one),
            [
                "environments: 1 setting differs (device)",
                "device:",
                "  scheduler: mq-deadline → none"
            ]
        );
        let three = [
            one[0].clone(),
            d("file system", Topic::FileSystem, Some("ext4"), Some("xfs")),
            d("read-ahead", Topic::Device, Some("128 KiB"), None),
        ];
        let lines = differences_lines(&three);
        assert_eq!(
            lines[0],
            "warning: 3 settings differ between the environments (device 2, file system 1), \
             not one: a difference in the results may come from any of them"
        );
        assert_eq!(
            lines[1..],
            [
                "  device: scheduler mq-deadline → none; read-ahead 128 KiB → unknown",
                "  file system: ext4 → xfs"
            ]
        );
        assert_eq!(differences_lines(&[]), ["environments: no setting differs"]);
        let mut s = one[0].clone();
        s.with_it = vec![d("nr_requests", Topic::Device, Some("64"), Some("128"))];
        assert_eq!(
            difference_line(&s),
            "scheduler: mq-deadline → none (and with it, as the kernel sets it: \
             nr_requests 64 → 128)"
        );
    }
}
