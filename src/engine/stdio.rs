//! C stdio `fread`/`fwrite` (IOzone's tests 6 and 7), with a stdio buffer of
//! one record as IOzone sets it up with `setvbuf`; the unlocked calls, as a
//! stream is only ever one engine's in one thread. Never O_DIRECT: IOzone
//! opens these tests with fopen() whatever `-I` says (model::workload's
//! `Pass::direct_with_i`).

use std::io;
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use super::batch::Engine;
use super::descriptor::Descriptor;
use super::open::OpenSpec;
use super::syscall;
use super::transfer::{short_read, short_write};
use crate::data::buffer::AlignedBuf;

// glibc's fwrite without the stream's lock (the libc crate declares only
// fread_unlocked). A stream is only ever used by the engine that made it,
// in one thread, so its lock guards nothing; a one-thread process (IOzone's)
// skips it anyway, and so must ioz when it has other threads.
unsafe extern "C" {
    fn fwrite_unlocked(
        ptr: *const libc::c_void,
        size: libc::size_t,
        nitems: libc::size_t,
        stream: *mut libc::FILE,
    ) -> libc::size_t;
}

pub struct StdioEngine {
    stream: Option<NonNull<libc::FILE>>,
    fd: RawFd,
    writable: bool,
    /// A reader's path and open, for the second descriptor IOzone's fread
    /// test fsyncs ([`Engine::settle`]).
    reopen: Option<(PathBuf, OpenSpec)>,
    position: u64,
    /// The buffer handed to `setvbuf`; it must outlive `fclose`, so it is
    /// declared after `stream` and freed only after `close` in `Drop`.
    _stdio_buffer: AlignedBuf,
}

impl StdioEngine {
    #[inline]
    fn stream(&self) -> io::Result<*mut libc::FILE> {
        self.stream
            .map(NonNull::as_ptr)
            .ok_or_else(|| io::Error::other("stream already closed"))
    }

    #[inline]
    fn seek_to(&mut self, stream: *mut libc::FILE, offset: u64) -> io::Result<()> {
        if offset != self.position {
            // SAFETY: the stream is open.
            if unsafe { libc::fseeko(stream, offset as libc::off_t, libc::SEEK_SET) } != 0 {
                return Err(io::Error::last_os_error());
            }
            self.position = offset;
        }
        Ok(())
    }

    /// The error behind a short fread/fwrite: the OS error if the stream has one.
    fn stream_error(stream: *mut libc::FILE, done: usize, wanted: usize, read: bool) -> io::Error {
        let os = io::Error::last_os_error();
        // SAFETY: the stream is open.
        if unsafe { libc::ferror(stream) } != 0 && os.raw_os_error().unwrap_or(0) != 0 {
            os
        } else if read {
            short_read(done, wanted)
        } else {
            short_write(done, wanted)
        }
    }
}

impl Engine for StdioEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<StdioEngine> {
        let mut descriptor = Descriptor::open(path, spec)?;
        // "c" (glibc): the stream's reads and writes are no cancellation
        // points, so they cost what they cost in a one-thread process
        // whatever threads ioz has (engine/syscall.rs says why).
        let mode: &[u8] = if spec.writable { b"r+c\0" } else { b"rc\0" };
        // SAFETY: the descriptor is open; on success the stream owns it.
        let stream = unsafe { libc::fdopen(descriptor.raw(), mode.as_ptr().cast()) };
        let stream = NonNull::new(stream).ok_or_else(io::Error::last_os_error)?;
        let fd = descriptor.raw();
        descriptor.disown();
        let mut stdio_buffer = AlignedBuf::zeroed(spec.record_bytes.max(1));
        // SAFETY: the stream is fresh (no I/O yet) and the buffer lives as long as it.
        let r = unsafe {
            libc::setvbuf(
                stream.as_ptr(),
                stdio_buffer.as_mut_ptr().cast(),
                libc::_IOFBF,
                stdio_buffer.len(),
            )
        };
        let mut engine = StdioEngine {
            stream: Some(stream),
            fd,
            writable: spec.writable,
            reopen: (!spec.writable).then(|| (path.to_path_buf(), *spec)),
            position: 0,
            _stdio_buffer: stdio_buffer,
        };
        if r != 0 {
            let _ = engine.close();
            return Err(io::Error::other("setvbuf failed"));
        }
        Ok(engine)
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let stream = self.stream()?;
        self.seek_to(stream, offset)?;
        self.position = u64::MAX;
        // SAFETY: buf is valid for buf.len() bytes; the stream is open and
        // this thread's alone.
        let n = unsafe { libc::fread_unlocked(buf.as_mut_ptr().cast(), 1, buf.len(), stream) };
        if n != buf.len() {
            return Err(Self::stream_error(stream, n, buf.len(), true));
        }
        self.position = offset + n as u64;
        Ok(())
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        let stream = self.stream()?;
        self.seek_to(stream, offset)?;
        self.position = u64::MAX;
        // SAFETY: buf is valid for buf.len() bytes; the stream is open and
        // this thread's alone.
        let n = unsafe { fwrite_unlocked(buf.as_ptr().cast(), 1, buf.len(), stream) };
        if n != buf.len() {
            return Err(Self::stream_error(stream, n, buf.len(), false));
        }
        self.position = offset + n as u64;
        Ok(())
    }

    /// fflush, plus fsync for a writer (a reader only flushes, as in IOzone).
    fn sync(&mut self) -> io::Result<()> {
        let stream = self.stream()?;
        // SAFETY: the stream is open.
        if unsafe { libc::fflush(stream) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if self.writable {
            syscall::fsync(self.fd)?;
        }
        Ok(())
    }

    /// A writer fsyncs its stream's descriptor; a reader, as IOzone's fread
    /// test does, a second read-only descriptor of the file, opened for it
    /// (and checked as every open of the test file is) and closed: the same
    /// flush of the file, made with IOzone's calls.
    fn settle(&mut self) -> io::Result<()> {
        match &self.reopen {
            None => syscall::fsync(self.fd),
            Some((path, spec)) => {
                let mut second = Descriptor::open(path, spec)?;
                second.fsync()?;
                second.close()
            }
        }
    }

    fn close(&mut self) -> io::Result<()> {
        match self.stream.take() {
            None => Ok(()),
            // SAFETY: the stream is open and never used after this.
            Some(s) => match unsafe { libc::fclose(s.as_ptr()) } {
                0 => Ok(()),
                _ => Err(io::Error::last_os_error()),
            },
        }
    }

    fn raw_fd(&self) -> RawFd {
        self.fd
    }
}

impl Drop for StdioEngine {
    fn drop(&mut self) {
        let _ = self.close();
    }
}
