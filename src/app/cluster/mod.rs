//! Cluster mode's entry: `ioz` started by an MPI launcher (every rank runs
//! this binary) and `ioz -+m clientfile …` (ioz starts the launcher). A
//! binary built without MPI refuses both with the line that says how to
//! build the MPI one.

mod auto;
mod clients;
mod deadline;
#[cfg(feature = "mpi")]
mod job;
#[cfg(feature = "mpi")]
mod job_record;
mod launch;
mod launcher;
mod launcher_stderr;
#[cfg(feature = "mpi")]
mod live;
#[cfg(feature = "mpi")]
mod metadata;
#[cfg(feature = "mpi")]
mod network_test;
#[cfg(feature = "mpi")]
mod rank;
#[cfg(feature = "mpi")]
mod recording;
#[cfg(feature = "mpi")]
mod same_start;
#[cfg(feature = "mpi")]
mod share;
#[cfg(feature = "mpi")]
mod test_hooks;
#[cfg(feature = "mpi")]
mod throughput;
mod typed_command;
mod workers;

use std::ffi::OsString;

/// The client file's reader, for the fuzz targets (app's `fuzzing`).
pub use clients::{Client, ClientFileError, parse_clients};

#[cfg(not(feature = "mpi"))]
use super::output::say;
use crate::cli::Command;
use crate::error::Exit;
use crate::model::config::RunConfig;
use crate::system::cluster::{self, BUILD_HINT};

/// IOzone's options for its own cluster clients (started by rsh, talking
/// back over TCP): ioz's clients are MPI ranks instead.
const CLIENT_SIDE_FLAGS: &[&str] = &["-+c", "-+s", "-+i", "-+h"];

/// What cluster mode makes of this command line: nothing (an ordinary
/// run), or how it ended.
pub(crate) fn intercept(args: &[OsString], dispatch: fn(Command) -> Exit) -> Option<Exit> {
    if let Some(flag) = args.iter().skip(1).find(|a| {
        CLIENT_SIDE_FLAGS
            .iter()
            .any(|f| a.as_encoded_bytes() == f.as_bytes())
    }) {
        super::output::say(format_args!(
            "{}: ioz has no cluster client to start by hand: its clients are MPI ranks, \
             started by mpirun (ioz -+m clientfile -t N …, or mpirun -np N ioz -t N …)",
            flag.to_string_lossy()
        ));
        return Some(Exit::Usage);
    }
    let launcher = cluster::launcher();
    // Started N times by srun without MPI: N runs of one machine on one
    // file set, each thinking it is alone. Refused in every build.
    if let (None, Some(tasks)) = (&launcher, cluster::srun_tasks()) {
        super::output::say(cluster::srun_without_mpi(tasks));
        return Some(Exit::Usage);
    }
    let client_file = client_file_option(args);
    if launcher.is_none() && client_file.is_none() {
        return None;
    }
    #[cfg(not(feature = "mpi"))]
    {
        // Nothing to carry out here: the MPI build's ranks need it.
        let _ = dispatch;
        let asked = match &launcher {
            Some(l) => format!("started by an MPI launcher ({} is set)", l.variable),
            None => "-+m".to_string(),
        };
        say(format_args!("{asked}: {BUILD_HINT}"));
        Some(Exit::Usage)
    }
    #[cfg(feature = "mpi")]
    {
        let _ = BUILD_HINT;
        match (launcher, client_file) {
            (Some(launcher), _) => Some(rank::run(&launcher, args.to_vec(), dispatch)),
            (None, Some((at, file))) => Some(launch::launch(args, at, file.as_ref())),
            (None, None) => None,
        }
    }
}

/// Why `config` cannot run across ranks, if it cannot (any worker count
/// runs on any number of ranks: model::rank_share deals them; single and
/// auto mode run the whole plan on every rank).
pub(crate) fn refusal(config: &RunConfig, _ranks: u32) -> Option<String> {
    if config.metadata.is_some() {
        return config.variations.remount.is_some().then(|| {
            "-U (a remount before every test) is not done across ranks: each rank would \
             unmount a file system the others are using"
                .to_string()
        });
    }
    if config.throughput.is_none() {
        return auto::refusal(config).map(String::from);
    }
    None
}

/// `-+m FILE` (or `-+mFILE`): where it is in `args`, and the file, if given.
fn client_file_option(args: &[OsString]) -> Option<(usize, Option<OsString>)> {
    client_file_options(args).next()
}

/// Every `-+m` of `args` (a client file given twice is refused).
fn client_file_options(args: &[OsString]) -> impl Iterator<Item = (usize, Option<OsString>)> {
    args.iter().enumerate().skip(1).filter_map(|(i, a)| {
        let bytes = a.as_encoded_bytes();
        if bytes == b"-+m" {
            return Some((i, args.get(i + 1).cloned()));
        }
        let rest = bytes.strip_prefix(b"-+m")?;
        // SAFETY-free: a suffix of a valid OsString after an ASCII prefix.
        Some((
            i,
            Some(OsString::from(String::from_utf8_lossy(rest).into_owned())),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_client_file_is_found_in_either_spelling() {
        assert_eq!(client_file_option(&args(&["ioz", "-t", "2"])), None);
        assert_eq!(
            client_file_option(&args(&["ioz", "-t", "2", "-+m", "clients"])),
            Some((3, Some("clients".into())))
        );
        assert_eq!(
            client_file_option(&args(&["ioz", "-+mclients"])),
            Some((1, Some("clients".into())))
        );
        assert_eq!(client_file_option(&args(&["ioz", "-+m"])), Some((1, None)));
        // The program's name is never an option.
        assert_eq!(client_file_option(&args(&["-+m", "-a"])), None);
    }
}
