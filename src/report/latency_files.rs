//! `-Q`: IOzone's offset/latency files, one per pass, appended to in the
//! current directory (wol.dat for writes, rol.dat for reads, …; in throughput
//! mode one per worker, `Child_<n>_wol.dat` …), with each operation's offset,
//! latency and size. Written after the pass (in throughput mode once every
//! worker is done), untimed.
//!
//! A latency is the time of the operation's system call(s). With io_uring and
//! POSIX AIO (several requests in flight) it runs from when ioz queues the
//! request to when it reaps the completion, so it includes the time spent
//! waiting behind the other requests in flight (fio's total latency, `lat`).

use std::fs::File;
use std::io::{self, BufWriter, Write};

use nix::errno::Errno;
use nix::fcntl::{OFlag, openat};
use nix::sys::stat::{Mode, fstat};

use super::put::{is_file, open_dir, set_result_mark};
use crate::model::latency::OpLatency;
use crate::model::result_files::{FileId, Place, latency_file_name, worker_latency_file_name};
use crate::model::workload::Pass;

/// The run's latency files, at the places the guard approved before the
/// run: each is appended to only while it is the file approved (or the one
/// ioz made for this run), never through a link, never a file that took
/// its place.
pub struct LatencyFiles {
    places: Vec<Place>,
}

impl LatencyFiles {
    pub fn new(places: Vec<Place>) -> LatencyFiles {
        LatencyFiles { places }
    }

    /// Appends one pass of single or auto mode to its file.
    pub fn append(
        &mut self,
        pass: Pass,
        ops: &[OpLatency],
        cpu_ns: (u64, u64),
        elapsed_ns: u64,
    ) -> io::Result<()> {
        let file = self.open(latency_file_name(pass))?;
        write_pass(file, ops, cpu_ns, elapsed_ns)
    }

    /// Appends worker `worker`'s share of a throughput phase to its file.
    pub fn append_worker(
        &mut self,
        pass: Pass,
        worker: u32,
        ops: &[OpLatency],
        cpu_ns: (u64, u64),
        elapsed_ns: u64,
    ) -> io::Result<()> {
        let file = self.open(&worker_latency_file_name(pass, worker))?;
        write_pass(file, ops, cpu_ns, elapsed_ns)
    }

    /// Appends `text` to the file `name` (`-+z` and `-+T`: report::iozone_files).
    pub fn append_text(&mut self, name: &str, text: &str) -> io::Result<()> {
        let mut file = self.open(name)?;
        file.write_all(text.as_bytes())
    }

    /// Opens `name` for appending: the approved file, or a new one ioz makes
    /// (and marks) where nothing was; from then on, that one.
    fn open(&mut self, name: &str) -> io::Result<File> {
        let place = self
            .places
            .iter_mut()
            .find(|p| p.name == name)
            .ok_or_else(|| io::Error::other("it was not checked before the run"))?;
        let dir = open_dir(&place.dir)?;
        let append = OFlag::O_WRONLY | OFlag::O_APPEND | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        match place.replaces {
            Some(id) => {
                let file = File::from(openat(&dir, name, append, Mode::empty())?);
                if !is_file(&fstat(&file)?, id) {
                    return Err(io::Error::other(
                        "another file took its place during the run; it was left as it is",
                    ));
                }
                Ok(file)
            }
            None => {
                let make = append | OFlag::O_CREAT | OFlag::O_EXCL;
                let fd = openat(&dir, name, make, Mode::from_bits_truncate(0o666)).map_err(
                    |e| match e {
                        Errno::EEXIST => io::Error::other(
                            "a file appeared there during the run; it was left as it is",
                        ),
                        e => e.into(),
                    },
                )?;
                let file = File::from(fd);
                // Best effort, as for every result file: without user xattrs
                // a later run needs --force to append to it.
                let _ = set_result_mark(&file);
                let st = fstat(&file)?;
                place.replaces = Some(FileId {
                    dev: st.st_dev,
                    ino: st.st_ino,
                });
                Ok(file)
            }
        }
    }
}

/// Appends one pass to `file`: the header, a line per operation done
/// (offset in kB, latency in µs, bytes), and the pass's CPU and wall times.
fn write_pass(
    file: File,
    ops: &[OpLatency],
    (user_ns, system_ns): (u64, u64),
    elapsed_ns: u64,
) -> io::Result<()> {
    let mut out = BufWriter::new(file);
    writeln!(
        out,
        "Offset in Kbytes   Latency in microseconds  Transfer size in bytes"
    )?;
    for op in ops {
        writeln!(
            out,
            "{:10} {:10.0} {:10}",
            op.offset / 1024,
            op.latency_ns as f64 / 1000.0,
            op.bytes
        )?;
    }
    writeln!(
        out,
        "\nSystem time {:10.3} User time {:10.3} Real {:10.3}  (seconds)",
        system_ns as f64 / 1e9,
        user_ns as f64 / 1e9,
        elapsed_ns as f64 / 1e9
    )?;
    out.flush()
}
