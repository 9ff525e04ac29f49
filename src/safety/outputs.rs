//! The guard every result path of a command goes through before any I/O
//! (--json, --csv, --html, --plots, -b, for a run, `ioz report` and
//! `ioz compare`), so that nothing ioz writes at the end lands on data it
//! does not own, and a long run does not end with results that cannot be
//! saved.
//!
//! A result path is refused when it is an input of the same command (a test
//! file of the run, a -X/-Y telemetry file, the saved run `ioz report`
//! reads) or the path of another of its outputs, compared as files (device
//! and inode), not as spellings; when it is not a regular file (a device,
//! also behind a link); when it is someone else's file (see
//! [`result_place`](super::result_place)); and when its directory cannot
//! take a new file (see [`writable_dir`](super::writable_dir)); and when
//! it is among a history's files (its directory or runs/, whatever their
//! mark: [`result_place::history_of`](super::result_place::history_of)),
//! for every command. `--force` only gives up an existing regular file. `--plots DIR` is a directory that
//! exists or that ioz makes (its parent exists), and each plot file in it
//! follows the rules of a result file.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::result_place::{
    Location, Problem, Refusal, existing_parent, locate, refuse_in_history, resolve,
};
use super::writable_dir::check_writable_dir;
use crate::model::config::RunConfig;
use crate::model::formats::{Format, GuardRule, OutputFiles};
use crate::model::plan;
use crate::model::result_files::{
    DirPlaces, Place, ResultPlaces, files_in_directory, iozone_histogram_file_name,
    latency_file_name, worker_latency_file_name, worker_log_file_name,
};
use crate::model::workload::Pass;

/// The result paths of a run, approved: see the module.
pub fn check_for_run(config: &RunConfig) -> Result<ResultPlaces, Refusal> {
    let tests = config.run_paths();
    let test_file = if tests.len() > 1 {
        "a test file of this run"
    } else {
        "the test file"
    };
    let mut inputs: Vec<Claim> = tests
        .iter()
        .map(|p| Claim::new(test_file.into(), p))
        .collect();
    let traces = [
        ("-X", &config.variations.write_telemetry),
        ("-Y", &config.variations.read_telemetry),
    ];
    for (opt, trace) in traces {
        if let Some(p) = trace {
            inputs.push(Claim::new(
                format!("the {opt} telemetry file of this run"),
                p,
            ));
        }
    }
    let passes = plan::passes(config);
    let mut guard = Guard {
        claims: inputs,
        force: config.force,
    };
    let mut latency = latency_files(config, &passes);
    for name in &latency {
        guard.claim("-Q", Path::new(name), "a -Q latency file of this run")?;
    }
    for (flag, name) in iozone_files(config) {
        guard.claim(flag, Path::new(&name), "a latency file of this run")?;
        latency.push(name);
    }
    let mut places = guard.check(&config.outputs, Some(config))?;
    places.latency = latency
        .iter()
        .map(|name| resolve(flag_of(name), Path::new(name))?.approve(flag_of(name), config.force))
        .collect::<Result<_, Refusal>>()?;
    Ok(places)
}

/// `-Q`: the latency files the run appends to, in the current directory:
/// one per pass, or in throughput mode one per worker and phase.
fn latency_files(config: &RunConfig, passes: &[Pass]) -> Vec<String> {
    if !config.variations.offset_latency_files {
        return Vec::new();
    }
    let mut names: Vec<String> = match &config.throughput {
        None => passes
            .iter()
            .map(|&p| latency_file_name(p).to_string())
            .collect(),
        // Across ranks each rank writes its own workers' files, named by
        // their numbers in the job.
        Some(tp) => (0..tp.max_worker_count())
            .map(|w| tp.job_worker(w))
            .flat_map(|w| passes.iter().map(move |&p| worker_latency_file_name(p, w)))
            .collect(),
    };
    // Fwrite and frewrite (and the other pairs) share a file.
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// `-+z` and `-+T`: IOzone's per-worker files in the current directory
/// (in single and auto mode, worker 0's histogram file), with their flag.
fn iozone_files(config: &RunConfig) -> Vec<(&'static str, String)> {
    // Across ranks rank 0 writes every worker's, the others none.
    let workers = match config.throughput.as_ref() {
        None => 1,
        Some(tp) => match &tp.ranks {
            None => tp.max_worker_count(),
            Some(share) if share.rank == 0 => share.job_counts.iter().copied().max().unwrap_or(1),
            Some(_) => 0,
        },
    };
    let latency = &config.latency;
    let mut names = Vec::new();
    if latency.iozone_histograms {
        names.extend((0..workers).map(|w| ("-+z", iozone_histogram_file_name(w))));
    }
    if latency.worker_logs && config.throughput.is_some() {
        names.extend((0..workers).map(|w| ("-+T", worker_log_file_name(w))));
    }
    names
}

/// The flag that asked for the per-operation file `name` (for messages).
fn flag_of(name: &str) -> &'static str {
    if name.starts_with("Iozone_histogram_child_") {
        "-+z"
    } else if name.ends_with(".log") {
        "-+T"
    } else {
        "-Q"
    }
}

/// The result paths of `ioz report`, approved: `saved_run` is the file it
/// read, `saved` the run in it (which decides the plot files).
pub fn check_for_report(
    outputs: &OutputFiles,
    saved_run: &Path,
    saved: &RunConfig,
    force: bool,
) -> Result<ResultPlaces, Refusal> {
    Guard {
        claims: vec![Claim::new(
            "the saved run this report reads".into(),
            saved_run,
        )],
        force,
    }
    .check(outputs, Some(saved))
}

/// The result paths of `ioz compare`, approved: `inputs` are every file it
/// reads (the files named, and those of the directories named), none of
/// which an output may take.
pub fn check_for_compare(
    outputs: &OutputFiles,
    inputs: &[&Path],
    force: bool,
) -> Result<ResultPlaces, Refusal> {
    Guard {
        claims: inputs
            .iter()
            .map(|p| Claim::new("an input of this comparison".into(), p))
            .collect(),
        force,
    }
    // A comparison is of no one run: no directory format names files.
    .check(outputs, None)
}

/// A file the command already uses, and what it is (for the message).
struct Claim {
    what: String,
    at: Location,
    /// One of the command's outputs (a clash is "also" that output).
    output: bool,
}

impl Claim {
    /// An input of the command.
    fn new(what: String, path: &Path) -> Claim {
        Claim {
            what,
            at: locate(path),
            output: false,
        }
    }
}

struct Guard {
    /// The command's inputs, then each output as it is checked.
    claims: Vec<Claim>,
    force: bool,
}

impl Guard {
    /// Every path of `outputs`, format by format as the list has them;
    /// `config` is the run the files are of (none for a comparison), which
    /// names the files of a directory format.
    fn check(
        mut self,
        outputs: &OutputFiles,
        config: Option<&RunConfig>,
    ) -> Result<ResultPlaces, Refusal> {
        let names = |format: Format| {
            config
                .map(|c| files_in_directory(format, c))
                .unwrap_or_default()
        };
        // First every path against the others, so that a clash is named as
        // one whatever else is wrong with the path.
        for (format, path) in outputs.requested() {
            let opt = format.flag();
            match format.row().guard {
                GuardRule::File => self.claim(opt, path, &format!("the {opt} file"))?,
                GuardRule::Directory => {
                    self.claim(opt, path, &format!("the {opt} directory"))?;
                    for name in names(format) {
                        self.claim(opt, &path.join(name), &format!("a {opt} file"))?;
                    }
                }
            }
        }
        let mut places = ResultPlaces::default();
        for (format, path) in outputs.requested() {
            let opt = format.flag();
            match format.row().guard {
                GuardRule::File => places
                    .files
                    .push((format, resolve(opt, path)?.approve(opt, self.force)?)),
                GuardRule::Directory => places
                    .dirs
                    .push((format, dir_places(opt, path, &names(format), self.force)?)),
            }
        }
        Ok(places)
    }

    /// Refuses `path` (of `opt`) when the command already uses that file;
    /// else records it as `what`.
    fn claim(&mut self, opt: &'static str, path: &Path, what: &str) -> Result<(), Refusal> {
        let at = locate(path);
        if let Some(c) = self.claims.iter().find(|c| c.at == at) {
            return Err(Problem::Taken {
                path: path.to_path_buf(),
                what: c.what.clone(),
                also: c.output,
            }
            .of(opt));
        }
        self.claims.push(Claim {
            what: what.into(),
            at,
            output: true,
        });
        Ok(())
    }
}

/// A directory format's DIR (`--plots DIR`): a directory, made by ioz when
/// missing, and every file in it judged as a result file.
fn dir_places(
    opt: &'static str,
    given: &Path,
    names: &[String],
    force: bool,
) -> Result<DirPlaces, Refusal> {
    let path = given.to_path_buf();
    let (dir, create) = match fs::metadata(given) {
        Ok(m) if m.is_dir() => {
            let dir = fs::canonicalize(given)
                .map_err(|source| Problem::CannotFollow { path, source }.of(opt))?;
            (dir, false)
        }
        Ok(m) => {
            let mode = m.mode();
            return Err(Problem::NotADirectory { path, mode }.of(opt));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if fs::symlink_metadata(given).is_ok() {
                return Err(Problem::DanglingDirectoryLink { path }.of(opt));
            }
            let Some(name) = given.file_name() else {
                return Err(Problem::NoDirectoryName { path }.of(opt));
            };
            (
                existing_parent(given).map_err(|p| p.of(opt))?.join(name),
                true,
            )
        }
        Err(source) => return Err(Problem::CannotCheck { path, source }.of(opt)),
    };
    let home = if create {
        dir.parent().unwrap_or(&dir)
    } else {
        &dir
    };
    refuse_in_history(given, home).map_err(|p| p.of(opt))?;
    check_writable_dir(home).map_err(|why| {
        Problem::NotWritable {
            dir: home.to_path_buf(),
            why,
        }
        .of(opt)
    })?;
    let files = names
        .iter()
        .map(|name| {
            if create {
                Ok(Place {
                    given: given.join(name),
                    dir: dir.clone(),
                    name: name.into(),
                    replaces: None,
                })
            } else {
                resolve(opt, &given.join(name))?.approve(opt, force)
            }
        })
        .collect::<Result<_, Refusal>>()?;
    Ok(DirPlaces {
        given: given.to_path_buf(),
        dir,
        create,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;

    fn config_in(dir: &Path, args: &[&str]) -> RunConfig {
        let mut c = test_config(args);
        c.path = dir.join(&c.path);
        if let Some(tp) = &mut c.throughput {
            for f in &mut tp.files {
                *f = dir.join(&*f);
            }
        }
        c
    }

    #[test]
    fn new_files_are_approved_with_their_real_places() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let json = d.join("r.json").display().to_string();
        let plots = d.join("p").display().to_string();
        let c = config_in(d, &["-i", "0", "-+n", "--json", &json, "--plots", &plots]);
        let places = check_for_run(&c).unwrap();
        let real = d.canonicalize().unwrap();
        let [(Format::Json, json)] = &places.files[..] else {
            panic!("{places:?}")
        };
        assert_eq!(json.real_path(), real.join("r.json"));
        let [(Format::Plots, plots)] = &places.dirs[..] else {
            panic!("{places:?}")
        };
        assert!(plots.create);
        assert_eq!(plots.dir, real.join("p"));
        let names: Vec<_> = plots.files.iter().map(|p| p.name.clone()).collect();
        assert_eq!(names, ["write.png", "write.svg"]);
    }

    #[test]
    fn an_output_on_an_input_or_another_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let at = |n: &str| d.join(n).display().to_string();
        let (t, r) = (at("t"), at("r"));
        let refused = |args: &[&str]| check_for_run(&config_in(d, args)).unwrap_err().to_string();
        assert_eq!(
            refused(&["-f", &t, "--json", &t]),
            format!("--json: {t} is the test file")
        );
        assert_eq!(
            refused(&["--json", &r, "--csv", &r]),
            format!("--csv: {r} is also the --json file")
        );
        fs::write(&t, b"0 4096\n").unwrap();
        let e = refused(&["-X", &t, "--html", &t, "--force"]);
        assert_eq!(
            e,
            format!("--html: {t} is the -X telemetry file of this run")
        );
        let saved = test_config(&["-i", "0"]);
        let mut outputs = OutputFiles::default();
        outputs.add(Format::Csv, d.join("./t"));
        let e = check_for_report(&outputs, &d.join("t"), &saved, true).unwrap_err();
        assert!(
            matches!(&e.problem, Problem::Taken { also: false, .. }),
            "{e}"
        );
        assert!(
            e.to_string()
                .ends_with("is the saved run this report reads"),
            "{e}"
        );
    }

    #[test]
    fn plots_need_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let f = d.join("f");
        fs::write(&f, b"x").unwrap();
        let args = ["--plots", f.to_str().unwrap()];
        let e = check_for_run(&config_in(d, &args)).unwrap_err().to_string();
        assert!(e.ends_with("f is a regular file, not a directory"), "{e}");
        let deep = d.join("no/p");
        let args = ["--plots", deep.to_str().unwrap()];
        let e = check_for_run(&config_in(d, &args)).unwrap_err().to_string();
        assert!(e.ends_with("no does not exist"), "{e}");
    }
}
