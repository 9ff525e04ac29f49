//! The environment for people, in plain text: every fact grouped (`ioz
//! env`), a few header lines for `-M`, and what differs between two
//! environments (`ioz env --diff`, and `ioz compare` before its numbers).

use std::fmt::Write;

use crate::model::env_facts::{Difference, Fact, Group};
use crate::model::environment::{DeviceInfo, Environment};
use crate::model::units::Size;

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
    let mut line = format!("{}: {} → {}", d.name, shown(&d.old), shown(&d.new));
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

/// What differs between two runs' environments, a line each, and a
/// warning line when more than one setting differs (the comparison then
/// measures them together); one line saying so when nothing differs.
pub fn differences_lines(diffs: &[Difference]) -> Vec<String> {
    if diffs.is_empty() {
        return vec!["environments: no setting differs".to_string()];
    }
    let mut lines: Vec<String> = diffs.iter().map(difference_line).collect();
    if diffs.len() > 1 {
        lines.push(format!(
            "warning: {} settings differ between the environments, not one: a difference \
             in the results may come from any of them",
            diffs.len()
        ));
    }
    lines
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
    use crate::model::environment::{FreePageReporting, TargetEnvironment};

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
    fn one_difference_is_a_line_and_more_warn() {
        let d = |name: &str, old: Option<&str>, new: Option<&str>| Difference {
            name: name.into(),
            old: old.map(str::to_string),
            new: new.map(str::to_string),
            with_it: Vec::new(),
        };
        let one = [d("scheduler", Some("mq-deadline"), Some("none"))];
        assert_eq!(differences_lines(&one), ["scheduler: mq-deadline → none"]);
        let two = [one[0].clone(), d("vm.dirty_ratio", Some("20"), None)];
        let lines = differences_lines(&two);
        assert_eq!(lines[1], "vm.dirty_ratio: 20 → unknown");
        assert!(
            lines[2].starts_with("warning: 2 settings differ"),
            "{lines:?}"
        );
        assert_eq!(differences_lines(&[]), ["environments: no setting differs"]);
        let mut s = one[0].clone();
        s.with_it = vec![d("nr_requests", Some("64"), Some("128"))];
        assert_eq!(
            difference_line(&s),
            "scheduler: mq-deadline → none (and with it, as the kernel sets it: \
             nr_requests 64 → 128)"
        );
    }
}
