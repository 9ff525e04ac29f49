//! `--live FILE`: the live file of a run, put in place (marked as ioz's)
//! before the first pass and written one line per interval as the keeper
//! (runner/intervals/) hands each over, outside every timed loop. A line
//! that cannot be written is said once; the run goes on, and the file holds
//! the lines before it.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Mutex;

use super::output::say;
use crate::model::formats::Format;
use crate::model::intervals::LiveLine;
use crate::model::result_files::ResultPlaces;
use crate::report::live::line;
use crate::report::put::open_in_place;
use crate::runner::LiveSink;

/// The live file, open.
pub(crate) struct LiveFile {
    /// `None` once a write failed (said then, never again).
    file: Mutex<Option<File>>,
    given: String,
}

impl LiveFile {
    /// The live file of `places` (taken out of them: the run writes it as it
    /// goes, not at the end), put in place empty; `None` when none is asked
    /// for or it cannot be made (said).
    pub(crate) fn open(places: &mut ResultPlaces) -> Option<LiveFile> {
        let at = places.files.iter().position(|(f, _)| *f == Format::Live)?;
        let (_, place) = places.files.remove(at);
        let given = place.given.display().to_string();
        match open_in_place(&place) {
            Ok(file) => Some(LiveFile {
                file: Mutex::new(Some(file)),
                given,
            }),
            Err(e) => {
                say(format_args!("--live: cannot write {given}: {e}"));
                None
            }
        }
    }
}

impl LiveSink for LiveFile {
    fn line(&self, live: &LiveLine) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let Some(f) = file.as_mut() else {
            return;
        };
        // One write per line, so a reader never sees half of one.
        if let Err(e) = line(live).and_then(|bytes| f.write_all(&bytes)) {
            say(format_args!(
                "--live: cannot write {}: {e}; the run goes on without it",
                self.given
            ));
            *file = None;
        }
    }

    fn descriptors(&self) -> Option<Vec<RawFd>> {
        let file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        Some(file.iter().map(|f| f.as_raw_fd()).collect())
    }
}
