//! `ioz -+m clientfile -t N …` (or `-a …`, every client running the whole
//! plan): IOzone's cluster command line, carried out by MPI. Each line of
//! the client file (`host  workdir  path-to-ioz [testfile]`, `#` comments)
//! becomes one rank of an Open MPI appfile or an MPICH config file,
//! whichever MPI's launcher is on PATH (launcher.rs); ioz runs the launcher
//! on it with a time limit, passes it a stop (a Ctrl-C) and ends with that
//! stop's status as a run on one machine does, or with `--dry-run` prints
//! the command and the file instead. The ranks are this same command line
//! without `-+m`, each on its host, in its working directory. (Built
//! without MPI, ioz refuses -+m before it gets here; the client file's
//! reading is tested in every build.)
#![cfg_attr(
    not(feature = "mpi"),
    expect(dead_code, reason = "-+m is carried out by the MPI build only")
)]

use std::ffi::OsString;
use std::io::{self, Write as _};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use nix::unistd::Pid;

use super::clients::{ClientFileError, read_clients, same_file_twice};
use super::deadline::{TIME_LIMIT_VARIABLE, time_limit};
use super::launcher::{self, DEFAULT_TIMEOUT_SECONDS, LauncherError};
use super::refusal;
use crate::app::output::say;
use crate::cli::{self, Command as Parsed, UsageError};
use crate::error::Exit;
use crate::system::host;
use crate::system::signals::StopFlag;

/// How often ioz looks whether the launcher has ended, or a stop signal
/// has come for it.
const LAUNCHER_POLL: Duration = Duration::from_millis(20);

/// Why `-+m` started nothing: one line.
#[derive(Debug, thiserror::Error)]
enum LaunchError {
    #[error("-+m: give the client file (host, working directory, path to ioz)")]
    NoClientFile,
    #[error(transparent)]
    ClientFile(#[from] ClientFileError),
    #[error("-+m: the current directory: {0}")]
    CurrentDirectory(io::Error),
    #[error("-+m: {0} is not UTF-8")]
    NotUtf8(String),
    #[error("-+m: {0:?}: an argument with white space cannot go through an MPI launch file")]
    WhiteSpace(String),
    #[error("-+m: give a run (-t N …, or -a …)")]
    NotARun,
    /// The ranks' command line, refused as the parser refuses it.
    #[error("{0}")]
    CommandLine(UsageError),
    /// A run cluster mode cannot carry out (app/cluster's refusal).
    #[error("{0}")]
    Refused(String),
    #[error(
        "-+m: clients {first} and {second} give host {host} the same test file: two ranks would write \
         one file (give each its own, or -+V to share one)"
    )]
    SameFile {
        first: usize,
        second: usize,
        host: String,
    },
    #[error(
        "{TIME_LIMIT_VARIABLE}={0:?}: give the job's time limit in whole seconds, 1 to 2147483647"
    )]
    TimeLimit(String),
    #[error(transparent)]
    Launcher(#[from] LauncherError),
    #[error("-+m: cannot write the {word} {}: {source}", path.display())]
    LaunchFile {
        word: String,
        path: PathBuf,
        source: io::Error,
    },
    #[error("-+m: cannot run {program}: {source}")]
    Run { program: String, source: io::Error },
}

/// The options whose value is a result file rank 0 writes: made absolute
/// here, so that they land where the user is, not in the first client's
/// working directory.
const RESULT_FILE_OPTIONS: &[&str] = &["-b", "--json", "--csv", "--html", "--plots"];

/// The ranks' command line: the user's without `-+m FILE` and `--dry-run`,
/// its result files made absolute. An argument with white space cannot go
/// through a launch file.
fn rank_args(args: &[OsString], plus_m: usize, cwd: &Path) -> Result<Vec<String>, LaunchError> {
    let mut out: Vec<String> = Vec::new();
    let mut skip_value = false;
    for (i, a) in args.iter().enumerate().skip(1) {
        if skip_value {
            skip_value = false;
            continue;
        }
        if i == plus_m {
            skip_value = a == "-+m";
            continue;
        }
        if a == "--dry-run" {
            continue;
        }
        let Some(word) = a.to_str() else {
            return Err(LaunchError::NotUtf8(a.to_string_lossy().into_owned()));
        };
        if word.chars().any(char::is_whitespace) || word.is_empty() {
            return Err(LaunchError::WhiteSpace(word.to_string()));
        }
        let value_of_result_option = out
            .last()
            .is_some_and(|prev| RESULT_FILE_OPTIONS.contains(&prev.as_str()));
        if value_of_result_option && Path::new(word).is_relative() {
            out.push(cwd.join(word).to_string_lossy().into_owned());
        } else {
            out.push(word.to_string());
        }
    }
    Ok(out)
}

/// Carries out `ioz … -+m FILE …` (`plus_m`: where `-+m` is in `args`).
pub(crate) fn launch(args: &[OsString], plus_m: usize, file: Option<&OsString>) -> Exit {
    match try_launch(args, plus_m, file) {
        Ok(exit) => exit,
        Err(line) => {
            say(line);
            Exit::Usage
        }
    }
}

fn try_launch(
    args: &[OsString],
    plus_m: usize,
    file: Option<&OsString>,
) -> Result<Exit, LaunchError> {
    let Some(file) = file else {
        return Err(LaunchError::NoClientFile);
    };
    let clients = read_clients(file)?;
    let cwd = std::env::current_dir().map_err(LaunchError::CurrentDirectory)?;
    let rank_args = rank_args(args, plus_m, &cwd)?;
    // The command line is checked here, before anything starts anywhere.
    let mut parsed_args = vec![args[0].clone()];
    parsed_args.extend(rank_args.iter().map(OsString::from));
    let (config, first_n) = match cli::parse(parsed_args, &host::facts()) {
        Ok(Parsed::Run(config)) => {
            // IOzone's clients are the file's first N lines; in single and
            // auto mode every client runs the whole plan.
            let n = config.throughput.as_ref().map(|tp| tp.max_worker_count());
            (Some(config), n)
        }
        // -+t: the same launch, no file made on any client.
        Ok(Parsed::NetworkTest(request)) => (None, request.clients),
        Ok(_) => return Err(LaunchError::NotARun),
        Err(e) => return Err(LaunchError::CommandLine(e)),
    };
    let ranks = first_n.map_or(clients.len(), |n| clients.len().min(n as usize));
    let clients = &clients[..ranks];
    if let Some(why) = config.as_ref().and_then(|c| refusal(c, ranks as u32)) {
        return Err(LaunchError::Refused(why));
    }
    let shares_one_file = config
        .as_ref()
        .and_then(|c| c.throughput.as_ref())
        .is_some_and(|tp| tp.shared_file);
    if let (false, Some(_), Some((first, second))) =
        (shares_one_file, &config, same_file_twice(clients))
    {
        return Err(LaunchError::SameFile {
            first,
            second,
            host: clients[first - 1].host.clone(),
        });
    }
    let time_limit = match std::env::var(TIME_LIMIT_VARIABLE) {
        Err(_) => None,
        Ok(value) => {
            Some(time_limit(Some(&value)).ok_or_else(|| LaunchError::TimeLimit(value.clone()))?)
        }
    };
    let time_limit_seconds = time_limit.map_or(DEFAULT_TIMEOUT_SECONDS, |t| t.as_secs());
    let mpirun = launcher::find()?;
    let env_list = mpirun.rank_variable_list(clients, time_limit_seconds)?;
    let file = mpirun.file(clients, &rank_args, time_limit_seconds, env_list.is_none());
    let root = nix::unistd::geteuid().is_root();
    let word = mpirun.file_word();
    let user_limit = time_limit.is_some();
    let launcher_env = |file: &str| {
        let (mut env, line) = mpirun.command(file, root, user_limit);
        if let Some(list) = &env_list {
            env.push((launcher::ENV_LIST_VARIABLE.to_string(), list.clone()));
        }
        (env, line)
    };
    if args.iter().any(|a| a == "--dry-run") {
        let (env, line) = launcher_env(word);
        let env: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("{k}={} ", shell_word(v)))
            .collect();
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{}{}\n# {word}\n{file}", env.concat(), line.join(" "));
        return Ok(Exit::Success);
    }
    let path = write_launch_file(word, &file)?;
    let (env, line) = launcher_env(&path.to_string_lossy());
    let ended = run_passing_stops(&line, env);
    let _ = std::fs::remove_file(&path);
    let (status, stopped) = ended.map_err(|source| LaunchError::Run {
        program: line[0].clone(),
        source,
    })?;
    Ok(match (stopped, status.code()) {
        // Signalled, Open MPI's mpirun ends with 1 whatever its ranks did:
        // rank 0 has said the stop, and ioz ends as one machine's would.
        (Some(sig), _) => Exit::Signal(sig),
        (None, Some(0)) => Exit::Success,
        (None, Some(2)) => Exit::Usage,
        (None, _) => Exit::Failure,
    })
}

/// Runs the launcher `line` to its end, in a process group of its own, and
/// passes it the stop signal ioz receives, if any, with that signal. The
/// launcher hears of a terminal's Ctrl-C from ioz alone, so once: Open
/// MPI's mpirun takes a second within 5 s as "end at once", the ranks'
/// results unsaved. Its standard input is /dev/null: the ranks read none,
/// and a process outside the terminal's foreground group that read it
/// would be stopped.
fn run_passing_stops(
    line: &[String],
    env: Vec<(String, String)>,
) -> std::io::Result<(ExitStatus, Option<i32>)> {
    let stop = StopFlag::install()?;
    let mut launcher = Command::new(&line[0])
        .args(&line[1..])
        .envs(env)
        .process_group(0)
        .stdin(Stdio::null())
        .spawn()?;
    let pid = Pid::from_raw(launcher.id() as i32);
    let mut passed = false;
    loop {
        if let Some(status) = launcher.try_wait()? {
            return Ok((status, stop.signal()));
        }
        stop.pass_on([pid], &mut passed);
        std::thread::sleep(LAUNCHER_POLL);
    }
}

/// `value` as a shell reads it back: quoted unless it is plain.
fn shell_word(value: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:=-".contains(c);
    if !value.is_empty() && value.chars().all(plain) {
        value.to_string()
    } else {
        format!("'{value}'")
    }
}

/// The launch file (`word`: APPFILE or CONFIGFILE), in a new file of the
/// temporary directory (never one that was there).
fn write_launch_file(word: &str, text: &str) -> Result<PathBuf, LaunchError> {
    let path = std::env::temp_dir().join(format!(
        "ioz-{}-{}",
        word.to_lowercase(),
        std::process::id()
    ));
    let failed = |source| LaunchError::LaunchFile {
        word: word.to_lowercase(),
        path: path.clone(),
        source,
    };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(failed)?;
    f.write_all(text.as_bytes()).map_err(failed)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranks_get_the_command_line_without_plus_m() {
        let args: Vec<OsString> = ["ioz", "-t", "2", "-+m", "c", "--dry-run", "-b", "r.xls"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            rank_args(&args, 3, Path::new("/here")).unwrap(),
            ["-t", "2", "-b", "/here/r.xls"]
        );
        let spaced: Vec<OsString> = ["ioz", "-f", "a b"].iter().map(OsString::from).collect();
        assert!(rank_args(&spaced, 99, Path::new("/")).is_err());
    }
}
