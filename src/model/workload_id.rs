//! A run's workload identity: the settings that define the I/O it does
//! (tests, sizes, engine, and the flags that change what is written or
//! how), named, and a hash of them saved in every run (`workload_id`), so
//! that `ioz compare` can say when two runs are not the same workload and
//! which settings differ. Paths, labels, result files and the history are
//! not part of it: they change where, not what.

use crate::model::config::{DataPattern, RunConfig, Sizes};
use crate::model::units::Size;

/// The settings, each named, in a fixed order.
pub fn settings(config: &RunConfig) -> Vec<(&'static str, String)> {
    let v = &config.variations;
    let on = |b: bool| if b { "on" } else { "off" }.to_string();
    let mut s = vec![
        (
            "tests",
            config
                .tests
                .iter()
                .map(|t| t.number().to_string())
                .collect::<Vec<_>>()
                .join(","),
        ),
        (
            "sizes",
            match &config.sizes {
                Sizes::Single {
                    file_bytes,
                    record_bytes,
                } => format!(
                    "file {}, records {}",
                    Size(*file_bytes),
                    Size(*record_bytes)
                ),
                Sizes::Auto(auto) => format!("auto {auto:?}"),
            },
        ),
        (
            "engine",
            v.engine
                .map_or("default".to_string(), |e| e.name().to_string()),
        ),
        ("iodepth", v.iodepth.to_string()),
        (
            "open",
            format!(
                "sync {} dsync {} direct {} sync_all {}",
                on(config.open.sync_writes),
                on(config.open.dsync_writes),
                on(config.open.direct),
                on(config.open.sync_all)
            ),
        ),
        (
            "timing",
            format!(
                "fsync {} close {}",
                on(config.fsync_in_timing),
                on(config.close_in_timing)
            ),
        ),
        (
            "data",
            match config.data {
                DataPattern::Random => "random".to_string(),
                DataPattern::Iozone => "iozone".to_string(),
            } + &if v.dedup.any() {
                format!(", dedup {:?}", v.dedup)
            } else {
                String::new()
            },
        ),
        ("stride", config.stride.to_string()),
        ("mix read percent", config.mix_read_percent.to_string()),
        ("retests", on(!config.no_retest)),
        (
            "locking",
            format!(
                "file {} records {}",
                on(config.lock_file),
                on(config.record_locking)
            ),
        ),
        (
            "mmap",
            format!(
                "msync {:?} madvise {:?} mix {}",
                v.msync,
                v.madvise,
                on(v.mix_mmap_file_io)
            ),
        ),
        (
            "caches",
            format!("drop {:?} purge {}", v.drop_caches, on(v.purge_cpu_cache)),
        ),
        (
            "file state",
            format!(
                "no truncate {} existing {}",
                on(v.no_truncate),
                on(v.existing_file)
            ),
        ),
        ("telemetry", on(config.telemetry.is_some())),
    ];
    if let Some(t) = &config.throughput {
        s.push((
            "throughput",
            format!(
                "workers {:?} {} shared file {} stonewall {} constant total {}",
                t.worker_counts,
                if t.threads { "threads" } else { "processes" },
                on(t.shared_file),
                on(t.stonewall),
                on(t.constant_total)
            ),
        ));
    }
    if let Some(m) = &config.metadata {
        s.push(("metadata", format!("{m:?}")));
    }
    s
}

/// The hash of [`settings`]: 16 hex digits.
pub fn id(config: &RunConfig) -> String {
    let text: String = settings(config)
        .iter()
        .map(|(name, value)| format!("{name}={value}\n"))
        .collect();
    crate::model::rules::digest_of(text.as_bytes())
}

/// The settings that differ between two runs' workloads: (name, a's, b's).
pub fn differences(a: &RunConfig, b: &RunConfig) -> Vec<(&'static str, String, String)> {
    settings(a)
        .into_iter()
        .zip(settings(b))
        .filter(|((_, x), (_, y))| x != y)
        .map(|((name, x), (_, y))| (name, x, y))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;

    #[test]
    fn the_same_workload_from_elsewhere_has_the_same_id() {
        let a = test_config(&[
            "-s", "1m", "-r", "64k", "-i", "0", "-f", "/tmp/a", "--label", "x",
        ]);
        let b = test_config(&["-s", "1m", "-r", "64k", "-i", "0", "-f", "/mnt/b"]);
        assert_eq!(id(&a), id(&b));
        assert!(differences(&a, &b).is_empty());
    }

    #[test]
    fn a_record_size_and_an_engine_are_other_workloads() {
        let a = test_config(&["-s", "1m", "-r", "64k", "-i", "0"]);
        let b = test_config(&["-s", "1m", "-r", "16k", "-i", "0", "-I", "-e"]);
        assert_ne!(id(&a), id(&b));
        let names: Vec<&str> = differences(&a, &b).iter().map(|d| d.0).collect();
        assert_eq!(names, ["sizes", "open", "timing"]);
        let sizes = &differences(&a, &b)[0];
        assert_eq!(sizes.1, "file 1 MiB, records 64 KiB");
        assert_eq!(sizes.2, "file 1 MiB, records 16 KiB");
    }
}
