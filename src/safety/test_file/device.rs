//! Block devices as test targets: blank and unused, named by
//! `--destroy-data` when they hold data, large enough for the run.

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::RunError;
use crate::model::config::{RunConfig, Sizes};
use crate::safety::lock::device_holder;
use crate::system::device::{self, BlockDevice, DeviceKind, Identity, join_and};
use crate::system::locks::Holder;

/// The block device at `path`, `None` when it is not one.
fn examine(path: &Path) -> Result<Option<BlockDevice>, RunError> {
    if DeviceKind::of(path) != Some(DeviceKind::Block) {
        return Ok(None);
    }
    BlockDevice::open(path).map(Some).map_err(|e| {
        RunError::Refused(format!("cannot examine the device {}: {e}", path.display()))
    })
}

/// Each `--destroy-data` must name a device the run writes to.
pub(super) fn check_destroy_ids(run: &RunConfig) -> Result<(), RunError> {
    if run.destroy_data.is_empty() {
        return Ok(());
    }
    let mut devices: Vec<(PathBuf, Identity)> = Vec::new();
    for p in run.run_paths() {
        if let Some(dev) = examine(&p)? {
            devices.push((p, dev.identity()));
        }
    }
    for given in &run.destroy_data {
        if devices.iter().any(|(_, id)| id.matches(given)) {
            continue;
        }
        let message = match &devices[..] {
            [] => format!(
                "--destroy-data={given} names no device this run writes to \
                 ({} is not a block device)",
                run.run_paths()[0].display()
            ),
            [(p, id)] => format!(
                "--destroy-data={given} does not name {} (which is named {}); \
                 refusing to write to it",
                p.display(),
                id.suggestion()
            ),
            many => format!(
                "--destroy-data={given} names none of the devices this run writes to ({}); \
                 refusing to write to them",
                many.iter()
                    .map(|(p, id)| format!("{} is named {}", p.display(), id.suggestion()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(RunError::Refused(message));
    }
    Ok(())
}

/// A block device is usable when it is blank and unused (see the module);
/// `run` gives the `--destroy-data` that may name it and the bytes written.
pub(super) fn check_device(path: &Path, run: Option<&RunConfig>) -> Result<(), RunError> {
    let Some(dev) = examine(path)? else {
        return Err(RunError::Refused(format!(
            "{} is not a block device",
            path.display()
        )));
    };
    // Before the other uses: another run's exclusive open would read as
    // "busy", when the user wants to know which run it is.
    if let Some(holder) = other_run(path) {
        return Err(RunError::Refused(format!(
            "{} is in use by another run: {holder} holds its lock; refusing to share it",
            path.display()
        )));
    }
    let uses = dev.uses();
    if !uses.is_empty() {
        return Err(RunError::Refused(format!(
            "{} {}; refusing to write to it while it is in use",
            path.display(),
            join_and(&uses)
        )));
    }
    let identity = dev.identity();
    let permitted = run.is_some_and(|r| r.destroy_data.iter().any(|given| identity.matches(given)));
    if !permitted {
        let contents = dev.contents().map_err(|e| {
            RunError::Refused(format!(
                "cannot read {} to check what it holds: {e}",
                path.display()
            ))
        })?;
        if !contents.is_empty() {
            return Err(RunError::Refused(format!(
                "{} {}; refusing to write to it (add --destroy-data={} to destroy it)",
                path.display(),
                join_and(&contents),
                identity.suggestion()
            )));
        }
    }
    if let Some(run) = run {
        check_size(path, &dev, run)?;
    }
    Ok(())
}

/// What a run writes to one device: `files` files of `file_bytes` each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceNeed {
    pub file_bytes: u64,
    pub files: u64,
}

impl DeviceNeed {
    pub fn total(&self) -> u64 {
        self.file_bytes.saturating_mul(self.files)
    }
}

/// The most a run writes to the device the paths for which `on_device` holds
/// lead to: the largest file size (-s, or the largest auto size), times the
/// workers whose -F file is that device, at the worker count needing most.
pub fn bytes_needed(config: &RunConfig, on_device: impl Fn(&Path) -> bool) -> DeviceNeed {
    let mut cache: HashMap<PathBuf, bool> = HashMap::new();
    let mut on = |p: PathBuf| *cache.entry(p).or_insert_with_key(|p| on_device(p));
    let largest_file = match &config.sizes {
        Sizes::Single { file_bytes, .. } => *file_bytes,
        Sizes::Auto(a) => a.file_sizes.values().into_iter().max().unwrap_or(0),
    };
    let Some(tp) = &config.throughput else {
        return DeviceNeed {
            file_bytes: largest_file,
            files: u64::from(on(config.path.clone())),
        };
    };
    let Sizes::Single {
        file_bytes,
        record_bytes,
    } = config.sizes
    else {
        return DeviceNeed {
            file_bytes: largest_file,
            files: u64::from(on(config.path.clone())),
        };
    };
    let mut most = DeviceNeed {
        file_bytes: 0,
        files: 0,
    };
    for (workers, job) in tp.counts() {
        let files = if tp.shared_file {
            u64::from(on(tp.worker_path(&config.path, 0)))
        } else {
            (0..workers)
                .filter(|&i| on(tp.worker_path(&config.path, i)))
                .count() as u64
        };
        let need = DeviceNeed {
            file_bytes: tp.worker_file_bytes(file_bytes, record_bytes, job),
            files,
        };
        if need.total() > most.total() {
            most = need;
        }
    }
    most
}

fn check_size(path: &Path, dev: &BlockDevice, run: &RunConfig) -> Result<(), RunError> {
    let rdev = dev.rdev();
    let need = bytes_needed(run, |p| device::rdev_of(p) == Some(rdev));
    if need.total() <= dev.size {
        return Ok(());
    }
    let what = if need.files > 1 {
        format!(
            "{} files of {} kB, {} kB ({} bytes) in all,",
            need.files,
            need.file_bytes / 1024,
            need.total() / 1024,
            need.total()
        )
    } else {
        format!("{} kB ({} bytes)", need.total() / 1024, need.total())
    };
    let hint = match (&run.sizes, need.files > 1) {
        (Sizes::Auto(_), _) => "give a smaller -g or -s",
        (_, true) => "give a smaller -s or fewer workers",
        _ => "give a smaller -s",
    };
    Err(RunError::Refused(format!(
        "{} has room for {} kB ({} bytes) but the run writes {what} to it; refusing ({hint})",
        path.display(),
        dev.size / 1024,
        dev.size
    )))
}

/// Another run on the device at `path`: the process holding an exclusive
/// flock on its node (each run takes one, beside its O_EXCL open).
fn other_run(path: &Path) -> Option<Holder> {
    let node = fs::metadata(path).ok()?;
    device_holder(node.dev(), node.ino())
}
