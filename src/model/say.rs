//! The one way ioz speaks on standard error: `ioz: <message>`, one line
//! written in one piece. It lives in the layer every other imports, so that
//! the commands, the reports, the runner and the engines all speak alike.
//!
//! One write of the whole line: stderr is unbuffered, and a line written
//! piece by piece interleaves with another process's on a shared stderr
//! (the ranks of a cluster job started by a launcher that does not forward
//! each rank's output apart, the worker processes of a throughput run).
//! Where stderr cannot be written (closed, /dev/full) the line is lost and
//! nothing else: the caller goes on, and its exit status still says how it
//! ended.
//!
//! A message often quotes outside text (a path, a saved run's label, an
//! error of SQLite or of a launcher): its control characters are shown as
//! escapes ([`visible`]), so the line stays one line and an escape
//! sequence never reaches the terminal.

use std::fmt::Display;
use std::io::{self, Write};

use super::visible::visible;

/// Writes `ioz: <message>` as one line on standard error.
pub fn say(message: impl Display) {
    let _ = io::stderr().lock().write_all(line(message).as_bytes());
}

/// The line [`say`] writes.
fn line(message: impl Display) -> String {
    format!("ioz: {}\n", visible(&message.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_one_line_with_ioz_s_name() {
        assert_eq!(
            line("report: x.json: no such file"),
            "ioz: report: x.json: no such file\n"
        );
        assert_eq!(line(format_args!("{}: {}", "-b", 3)), "ioz: -b: 3\n");
        assert_eq!(
            line("compare: a\nioz: forged\x1b[2J"),
            "ioz: compare: a\\x0aioz: forged\\x1b[2J\n"
        );
    }
}
