//! `--live FILE`: the live files of a run (every `--live` given), put in
//! place (marked as ioz's) before the first pass and written one line per
//! interval as the keeper (runner/intervals/) hands each over, outside every
//! timed loop. A line is written whole or not at all: its room is reserved
//! first (system::reserve), and a write that fails all the same is cut back
//! to the last whole line, so a reader following the file (`tail -f | jq`)
//! never meets half a line. A file that cannot take a line (a full disk)
//! ends there, said once; the run goes on, and its other files are written.

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
use crate::system::reserve::reserve;

/// One live file, open.
struct Stream {
    /// `None` once a line could not be written (said then, never again).
    file: Option<File>,
    /// The bytes of the whole lines written: where the file ends.
    whole: u64,
    given: String,
}

impl Stream {
    /// Writes `bytes` (one line) whole, or ends the stream at its last
    /// whole line and says why.
    fn write_line(&mut self, bytes: &[u8]) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let len = bytes.len() as u64;
        let written = reserve(file, self.whole, len)
            .and_then(|_| file.write_all(bytes))
            .map_err(|e| {
                // Part of the line may be in: cut it back off.
                let cut = file.set_len(self.whole);
                (e, cut)
            });
        match written {
            Ok(()) => self.whole += len,
            Err((e, cut)) => {
                let tail = match cut {
                    Ok(()) => "its lines before are whole".to_string(),
                    Err(c) => format!("and its last line could not be cut back ({c})"),
                };
                say(format_args!(
                    "--live: cannot write {}: {e}; the stream ends there ({tail}), the run goes on",
                    self.given
                ));
                self.file = None;
            }
        }
    }
}

/// The run's live files, open.
pub(crate) struct LiveFile {
    streams: Mutex<Vec<Stream>>,
}

impl LiveFile {
    /// The live files of `places` (taken out of them: the run writes them
    /// as it goes, not at the end), put in place empty; `None` when none is
    /// asked for or none can be made (each one that cannot is said).
    pub(crate) fn open(places: &mut ResultPlaces) -> Option<LiveFile> {
        let (live, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut places.files)
            .into_iter()
            .partition(|(f, _)| *f == Format::Live);
        places.files = rest;
        let streams: Vec<Stream> = live
            .into_iter()
            .filter_map(|(_, place)| {
                let given = place.given.display().to_string();
                match open_in_place(&place) {
                    Ok(file) => Some(Stream {
                        file: Some(file),
                        whole: 0,
                        given,
                    }),
                    Err(e) => {
                        say(format_args!("--live: cannot write {given}: {e}"));
                        None
                    }
                }
            })
            .collect();
        (!streams.is_empty()).then(|| LiveFile {
            streams: Mutex::new(streams),
        })
    }
}

impl LiveSink for LiveFile {
    fn line(&self, live: &LiveLine) {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        match line(live) {
            Ok(bytes) => {
                for stream in streams.iter_mut() {
                    stream.write_line(&bytes);
                }
            }
            Err(e) => {
                for stream in streams.iter_mut().filter(|s| s.file.is_some()) {
                    say(format_args!(
                        "--live: cannot write {}: {e}; the run goes on without it",
                        stream.given
                    ));
                    stream.file = None;
                }
            }
        }
    }

    fn descriptors(&self) -> Option<Vec<RawFd>> {
        let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        Some(
            streams
                .iter()
                .filter_map(|s| s.file.as_ref().map(|f| f.as_raw_fd()))
                .collect(),
        )
    }
}
