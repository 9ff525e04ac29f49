//! SIGINT and SIGTERM ask the run to stop at the next record boundary.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Holds the number of the first stop signal received, or 0.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicUsize>);

impl StopFlag {
    /// A flag set by SIGINT and SIGTERM.
    pub fn install() -> io::Result<StopFlag> {
        let flag = StopFlag::default();
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register_usize(sig, Arc::clone(&flag.0), sig as usize)?;
        }
        Ok(flag)
    }

    /// The signal that asked to stop, if any. Cheap enough for the timed loop.
    #[inline]
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s as i32),
        }
    }

    /// Raises the flag by hand (tests, and errors that stop the run).
    pub fn raise(&self, signal: i32) {
        self.0.store(signal as usize, Ordering::Relaxed);
    }
}
