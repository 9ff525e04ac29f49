//! Standard output for a run: if it fails (a closed pipe, a full disk) the
//! results can no longer reach the user, so the run is asked to stop.
//! Standard error: a line that cannot be written is lost, never the run.

use std::io::{self, Write};

use crate::error::Exit;
/// The one voice on standard error (see [`crate::model::say`]).
pub(crate) use crate::model::say::say;
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

/// How a command ends when standard output failed: a closed pipe as if
/// SIGPIPE had stopped it (128 + 13, nothing said: the reader left on
/// purpose), anything else (a full disk) with a line and status 1.
pub(crate) fn stdout_failed(error: &io::Error, what: &str) -> Exit {
    if error.kind() == io::ErrorKind::BrokenPipe {
        return Exit::Signal(SIGPIPE);
    }
    say(format_args!(
        "cannot write {what} to standard output: {error}"
    ));
    Exit::Failure
}

/// Prints the whole of `text` (the help, the version) and says how it went.
pub(crate) fn print_text(text: &str, what: &str) -> Exit {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Exit::Success,
        Err(e) => stdout_failed(&e, what),
    }
}
