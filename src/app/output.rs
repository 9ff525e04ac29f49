//! Standard output for a run: if it fails (a closed pipe, a full disk) the
//! results can no longer reach the user, so the run is asked to stop.

use std::io::{self, Write};

use crate::system::signals::StopFlag;

/// The signal a closed pipe would have sent: the run stops as if by it.
pub(crate) const SIGPIPE: i32 = 13;

pub(crate) struct Output<'a> {
    out: io::StdoutLock<'static>,
    stop: &'a StopFlag,
    /// The first write error; nothing more is written after it.
    pub error: Option<io::Error>,
}

impl<'a> Output<'a> {
    pub fn new(stop: &'a StopFlag) -> Output<'a> {
        Output {
            out: io::stdout().lock(),
            stop,
            error: None,
        }
    }

    /// Writes and flushes `text` (nothing once a write has failed).
    pub fn put(&mut self, text: &str) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self
            .out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.flush())
        {
            self.stop.raise(SIGPIPE);
            self.error = Some(e);
        }
    }
}
