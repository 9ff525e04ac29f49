//! `-Q` in throughput mode: where each worker leaves its operations'
//! latencies for the parent, which writes the `Child_<n>_*.dat` files once
//! every worker of the phase has finished (so no worker's timed region shares
//! the machine with the file writing). Shared words (runner/shared_words.rs),
//! so that forked worker processes and threads use it alike; the copy into
//! it happens after the worker's timed region.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::runner::shared_words::SharedWords;

/// Per worker: a count, then room for `capacity` latencies (ns).
pub struct SharedLatencies {
    words: SharedWords,
    workers: usize,
    capacity: usize,
}

impl SharedLatencies {
    /// Room for `capacity` latencies for each of `workers` workers.
    pub fn new(workers: u32, capacity: usize) -> std::io::Result<SharedLatencies> {
        let workers = workers as usize;
        let words = workers
            .checked_mul(capacity + 1)
            .ok_or_else(|| std::io::Error::other("too many latencies to keep"))?;
        Ok(SharedLatencies {
            words: SharedWords::new(words)?,
            workers,
            capacity,
        })
    }

    fn words(&self) -> &[AtomicU64] {
        self.words.words()
    }

    fn region(&self, worker: u32) -> &[AtomicU64] {
        let w = worker as usize;
        assert!(w < self.workers, "worker {w} has no latency region");
        let start = w * (self.capacity + 1);
        &self.words()[start..start + self.capacity + 1]
    }

    /// Worker `worker` leaves its latencies (at most the capacity are kept).
    pub fn store(&self, worker: u32, latencies: &[u64]) {
        let region = self.region(worker);
        let n = latencies.len().min(self.capacity);
        for (slot, &ns) in region[1..].iter().zip(&latencies[..n]) {
            slot.store(ns, Ordering::Relaxed);
        }
        // The count last: the parent reads it after the worker has reported.
        region[0].store(n as u64, Ordering::Release);
    }

    /// What worker `worker` left (empty if nothing).
    pub fn load(&self, worker: u32) -> Vec<u64> {
        let region = self.region(worker);
        let n = region[0].load(Ordering::Acquire) as usize;
        region[1..=n]
            .iter()
            .map(|slot| slot.load(Ordering::Relaxed))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_keep_their_own_latencies() {
        let area = SharedLatencies::new(3, 4).unwrap();
        area.store(0, &[1, 2, 3]);
        area.store(2, &[9, 8, 7, 6, 5]);
        assert_eq!(area.load(0), vec![1, 2, 3]);
        assert_eq!(area.load(1), Vec::<u64>::new());
        assert_eq!(
            area.load(2),
            vec![9, 8, 7, 6],
            "capacity bounds what is kept"
        );
        // A forked child's stores are seen by the parent.
        // SAFETY: the child only stores and leaves with _exit.
        match unsafe { nix::unistd::fork() }.unwrap() {
            nix::unistd::ForkResult::Child => {
                area.store(1, &[42, 43]);
                // SAFETY: _exit leaves the forked child without running the
                // test harness's handlers in it.
                unsafe { libc::_exit(0) };
            }
            nix::unistd::ForkResult::Parent { child } => {
                nix::sys::wait::waitpid(child, None).unwrap();
                assert_eq!(area.load(1), vec![42, 43]);
            }
        }
        assert!(SharedLatencies::new(2, usize::MAX / 4).is_err());
    }
}
