//! `ioz -+m clientfile -t N …` (or `-a …`, every client running the whole
//! plan): IOzone's cluster command line, carried out by MPI. Each line of
//! the client file (`host  workdir  path-to-ioz [testfile]`, `#` comments)
//! becomes one rank of an Open MPI appfile or an MPICH config file,
//! whichever MPI's launcher is on PATH (launcher.rs); ioz runs the launcher
//! on it with a time limit, passes it a stop (a Ctrl-C) and ends with that
//! stop's status as a run on one machine does, or with `--dry-run` prints
//! the command and the file instead. The launcher dies with ioz: killed
//! outright (SIGKILL), ioz still ends the job, the launcher getting the
//! SIGTERM a stop sends it (PR_SET_PDEATHSIG); and the launch file is a
//! memory file the launcher reads through its descriptor, so nothing is
//! left in $TMPDIR however ioz ends. Its stderr comes through ioz
//! (launcher_stderr.rs), which names the host it could not reach. The ranks are this same command line
//! without `-+m`, each on its host, in its working directory. (Built
//! without MPI, ioz refuses -+m before it gets here; the client file's
//! reading is tested in every build.)
#![cfg_attr(
    not(feature = "mpi"),
    expect(dead_code, reason = "-+m is carried out by the MPI build only")
)]

use std::ffi::OsString;
use std::io::{self, Write as _};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use nix::fcntl::{FcntlArg, SealFlag, fcntl};
use nix::sys::memfd::{MFdFlags, memfd_create};
use nix::sys::signal::{SigHandler, Signal};
use nix::unistd::{Pid, getpid, getppid};

use super::clients::{ClientFileError, check_clients, read_clients, same_file_twice};
use super::deadline::{TIME_LIMIT_VARIABLE, time_limit};
use super::launcher::{self, DEFAULT_TIMEOUT_SECONDS, LauncherError};
use super::launcher_stderr::{Relayed, relay, unreached};
use super::refusal;
use super::typed_command::{TYPED_COMMAND_VARIABLE, encode};
use crate::app::output::say;
use crate::cli::{self, Command as Parsed, UsageError};
use crate::error::Exit;
use crate::history::{HISTORY_ENV, NO_HISTORY_ENV};
use crate::model::formats::FORMATS;
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
    #[error("-+m is given {0} times: give one client file")]
    Repeated(usize),
    #[error(transparent)]
    ClientFile(#[from] ClientFileError),
    #[error("-+m: the current directory: {0}")]
    CurrentDirectory(io::Error),
    #[error("-+m: {0} is not UTF-8")]
    NotUtf8(String),
    #[error(
        "-+m: {0:?}: an argument or variable with white space cannot go through an MPI launch \
         file"
    )]
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
    #[error("-+m: cannot make the {word} (a memory file): {source}")]
    LaunchFile { word: String, source: io::Error },
    #[error("-+m: cannot run {program}: {source}")]
    Run { program: String, source: io::Error },
}

/// Whether `option` takes a path rank 0 writes: a result file of the one
/// list of formats, or the history (`--history`). Made absolute here, so
/// that it lands where the user is, not in the first client's working
/// directory.
fn takes_a_result_path(option: &str) -> bool {
    option == "--history" || FORMATS.iter().any(|row| row.flag == option)
}

/// ioz's own variables that rank 0 reads and the launcher would not pass
/// on (mpirun passes only its own, MPIEXEC_TIMEOUT and what -x names): the
/// history's place, made absolute as the result paths are, and its
/// refusal.
const PASSED_VARIABLES: &[(&str, bool)] = &[(HISTORY_ENV, true), (NO_HISTORY_ENV, false)];

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
        let value_of_result_option = out.last().is_some_and(|prev| takes_a_result_path(prev));
        if value_of_result_option && Path::new(word).is_relative() {
            out.push(cwd.join(word).to_string_lossy().into_owned());
        } else {
            out.push(word.to_string());
        }
    }
    Ok(out)
}

/// The variables every rank gets: the job's time limit, ioz's own that are
/// set here ([`PASSED_VARIABLES`]), and the command line the user typed.
fn rank_variables(
    args: &[OsString],
    cwd: &Path,
    time_limit_seconds: u64,
) -> Result<Vec<(String, String)>, LaunchError> {
    let mut vars = vec![(
        TIME_LIMIT_VARIABLE.to_string(),
        time_limit_seconds.to_string(),
    )];
    for &(name, is_path) in PASSED_VARIABLES {
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        let Some(value) = value.to_str() else {
            return Err(LaunchError::NotUtf8(format!(
                "{name}={}",
                value.to_string_lossy()
            )));
        };
        let value = if is_path && Path::new(value).is_relative() {
            cwd.join(value).to_string_lossy().into_owned()
        } else {
            value.to_string()
        };
        if value.chars().any(char::is_whitespace) || value.contains(';') {
            return Err(LaunchError::WhiteSpace(format!("{name}={value}")));
        }
        vars.push((name.to_string(), value));
    }
    // What a launch runs: --dry-run only prints it.
    let typed: Vec<String> = args
        .iter()
        .filter(|a| *a != "--dry-run")
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    vars.push((TYPED_COMMAND_VARIABLE.to_string(), encode(&typed)));
    Ok(vars)
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
    let given = super::client_file_options(args).count();
    if given > 1 {
        return Err(LaunchError::Repeated(given));
    }
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
    // Names, characters, this machine's working directories, name
    // resolution: refused here in one line rather than by the launcher.
    if !args.iter().any(|a| a == "--dry-run") {
        check_clients(file, clients)?;
    }
    let time_limit = match std::env::var(TIME_LIMIT_VARIABLE) {
        Err(_) => None,
        Ok(value) => {
            Some(time_limit(Some(&value)).ok_or_else(|| LaunchError::TimeLimit(value.clone()))?)
        }
    };
    let time_limit_seconds = time_limit.map_or(DEFAULT_TIMEOUT_SECONDS, |t| t.as_secs());
    let vars = rank_variables(args, &cwd, time_limit_seconds)?;
    let mpirun = launcher::find()?;
    let env_list = mpirun.rank_variable_list(clients, &vars)?;
    let file = mpirun.file(clients, &rank_args, &vars, env_list.is_none());
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
    let launch_file = launch_file(word, &file)?;
    let path = format!("/proc/self/fd/{}", launch_file.as_raw_fd());
    let (env, line) = launcher_env(&path);
    let ended = run_passing_stops(&line, env);
    drop(launch_file);
    let (status, stopped, said) = ended.map_err(|source| LaunchError::Run {
        program: line[0].clone(),
        source,
    })?;
    Ok(match (stopped, status.code()) {
        // Signalled, Open MPI's mpirun ends with 1 whatever its ranks did:
        // rank 0 has said the stop, and ioz ends as one machine's would.
        (Some(sig), _) => Exit::Signal(sig),
        (None, Some(0)) => Exit::Success,
        (None, Some(2)) => Exit::Usage,
        (None, _) => {
            let here = host::facts().machine;
            let node = here.split_whitespace().nth(1).unwrap_or("localhost");
            if let Some(line) = unreached(&said, clients, &["localhost", node]) {
                say(line);
            }
            Exit::Failure
        }
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
) -> std::io::Result<(ExitStatus, Option<i32>, String)> {
    let stop = StopFlag::install()?;
    let ioz = getpid();
    let mut command = Command::new(&line[0]);
    command
        .args(&line[1..])
        .envs(env)
        .process_group(0)
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: between fork and exec the closure makes only async-signal-safe
    // calls (prctl, sigaction, getppid, _exit) and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            // The launcher gets a stop's SIGTERM when ioz dies, however it
            // dies (this thread, ioz's main one, lives as long as ioz).
            nix::sys::prctl::set_pdeathsig(Signal::SIGTERM)?;
            // Its stderr is ioz's pipe: once ioz is gone, a write there must
            // fail, not kill it before it has ended its ranks.
            nix::sys::signal::signal(Signal::SIGPIPE, SigHandler::SigIgn)?;
            // ioz died before the line above: nothing would end the job.
            if getppid() != ioz {
                libc::_exit(1);
            }
            Ok(())
        })
    };
    let mut launcher = command.spawn()?;
    let relayed = launcher.stderr.take().map(relay);
    let pid = Pid::from_raw(launcher.id() as i32);
    let mut passed = false;
    loop {
        if let Some(status) = launcher.try_wait()? {
            let said = relayed.map(Relayed::said).unwrap_or_default();
            return Ok((status, stop.signal(), said));
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

/// The launch file (`word`: APPFILE or CONFIGFILE): a memory file, sealed
/// once written, that the launcher inherits and reads as
/// /proc/self/fd/N. It has no name in any directory, so it goes with ioz
/// however ioz ends (a file in $TMPDIR stayed after a SIGKILL).
fn launch_file(word: &str, text: &str) -> Result<OwnedFd, LaunchError> {
    let failed = |source: io::Error| LaunchError::LaunchFile {
        word: word.to_lowercase(),
        source,
    };
    // Not close-on-exec: the launcher inherits it.
    let fd = memfd_create(
        format!("ioz-{}", word.to_lowercase()).as_str(),
        MFdFlags::MFD_ALLOW_SEALING,
    )
    .map_err(|e| failed(e.into()))?;
    let mut file = std::fs::File::from(fd);
    file.write_all(text.as_bytes()).map_err(failed)?;
    // Nothing the launcher starts (every rank inherits the descriptor) can
    // change what it reads.
    let seals = SealFlag::F_SEAL_WRITE
        | SealFlag::F_SEAL_GROW
        | SealFlag::F_SEAL_SHRINK
        | SealFlag::F_SEAL_SEAL;
    fcntl(&file, FcntlArg::F_ADD_SEALS(seals)).map_err(|e| failed(e.into()))?;
    Ok(file.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranks_get_the_command_line_without_plus_m() {
        let args: Vec<OsString> = [
            "ioz",
            "-t",
            "2",
            "-+m",
            "c",
            "--dry-run",
            "-b",
            "r.xls",
            "--live",
            "l.jsonl",
            "--interval-csv",
            "i.csv",
            "--history",
            "h",
            "-f",
            "t",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        // Every result path of the one list of formats, and the history,
        // land where the user is; the test file is the client's.
        assert_eq!(
            rank_args(&args, 3, Path::new("/here")).unwrap(),
            [
                "-t",
                "2",
                "-b",
                "/here/r.xls",
                "--live",
                "/here/l.jsonl",
                "--interval-csv",
                "/here/i.csv",
                "--history",
                "/here/h",
                "-f",
                "t"
            ]
        );
        for row in FORMATS {
            assert!(takes_a_result_path(row.flag), "{}", row.flag);
        }
        let spaced: Vec<OsString> = ["ioz", "-f", "a b"].iter().map(OsString::from).collect();
        assert!(rank_args(&spaced, 99, Path::new("/")).is_err());
    }
}
