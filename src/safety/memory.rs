//! Before any I/O: will what ioz builds in memory fit? Dedup data is built
//! as whole file images before the clock (one per worker).

use crate::error::RunError;
use crate::model::config::{RunConfig, Sizes};
use crate::model::plan::Cell;
use crate::model::units::human;
use crate::system::environment::parse_mem_available;

/// Bytes of dedup images alive at once at the largest moment of the run: one
/// per worker, as large as the worker's file.
pub fn image_bytes_needed(config: &RunConfig) -> u64 {
    match (&config.throughput, &config.sizes) {
        (
            None,
            Sizes::Single {
                file_bytes,
                record_bytes,
            },
        ) => Cell {
            file_bytes: *file_bytes,
            record_bytes: *record_bytes,
        }
        .pass_bytes(),
        (None, Sizes::Auto(auto)) => auto.file_sizes.values().into_iter().max().unwrap_or(0),
        (
            Some(tp),
            Sizes::Single {
                file_bytes,
                record_bytes,
            },
        ) => tp
            .worker_counts
            .iter()
            .map(|&n| {
                let cell = Cell {
                    file_bytes: tp.worker_file_bytes(*file_bytes, *record_bytes, n),
                    record_bytes: *record_bytes,
                };
                cell.pass_bytes().saturating_mul(n as u64)
            })
            .max()
            .unwrap_or(0),
        (Some(_), Sizes::Auto(_)) => 0,
    }
}

/// Dedup images must fit in memory without swapping: at most half of what
/// /proc/meminfo calls available. Refuses the run up front otherwise.
pub fn check_memory(config: &RunConfig) -> Result<(), RunError> {
    if !config.variations.dedup.any() {
        return Ok(());
    }
    let Some(available) = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| parse_mem_available(&m))
    else {
        return Ok(()); // no /proc: nothing to judge by
    };
    memory_verdict(config, image_bytes_needed(config), available)
}

fn memory_verdict(config: &RunConfig, needed: u64, available: u64) -> Result<(), RunError> {
    let cap = available / 2;
    if needed <= cap {
        return Ok(());
    }
    let workers = match &config.throughput {
        Some(_) => " (one file image per worker)",
        None => "",
    };
    Err(RunError::Refused(format!(
        "dedup data (-+w/-+y/-+C) is built in memory before the clock: the run needs {}{workers} \
         but only {} may be used (half of the {} available); use smaller files (-s, -g) or \
         fewer workers",
        human(needed),
        human(cap),
        human(available)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_beyond_half_of_what_is_available_is_refused_with_the_sizes() {
        let c = crate::cli::test_config(&["-s", "64m", "-+w", "50", "-i", "0"]);
        assert_eq!(image_bytes_needed(&c), 64 << 20);
        assert!(memory_verdict(&c, 64 << 20, 128 << 20).is_ok());
        let err = memory_verdict(&c, 64 << 20, 100 << 20).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let msg = err.to_string();
        assert!(
            msg.contains("needs 64.0 MiB") && msg.contains("50.0 MiB may be used"),
            "{msg}"
        );
        let t = crate::cli::test_config(&["-t", "3", "-s", "1m", "-+w", "50", "-i", "0"]);
        assert_eq!(image_bytes_needed(&t), 3 << 20);
        let k = crate::cli::test_config(&["-l", "1", "-u", "4", "-s", "4m", "-+k", "-+y", "9"]);
        assert_eq!(image_bytes_needed(&k), 4 << 20);
    }
}
