//! `ioz help --completions SHELL`: a script that completes ioz's commands,
//! subcommands, options and their values in bash, zsh or fish, written from
//! the tables: a context per command (the run's is the empty one), its
//! flags, the words that may come next, and what each flag's value is.

use super::COMMANDS;
use super::flags::RUN;
use super::grammar::{Described, FlagDoc, Spelling, ValueDoc};

/// The shells ioz completes.
pub(super) const SHELLS: [&str; 3] = ["bash", "zsh", "fish"];

/// The script for `shell` (one of [`SHELLS`]).
pub(super) fn completions(shell: &str) -> String {
    let contexts = contexts();
    match shell {
        "zsh" => zsh(&contexts),
        "fish" => fish(&contexts),
        _ => bash(&contexts),
    }
}

/// Where on the command line the cursor is: after `ioz` (the run), after
/// `ioz report`, after `ioz history list`…
struct Context {
    /// The words naming it: "" for the run, "history list".
    name: &'static str,
    flags: Vec<FlagDoc>,
    /// The words that may come next (commands, subcommands), with what they do.
    words: Vec<(&'static str, &'static str)>,
    /// The command takes file names.
    files: bool,
}

fn context(command: &dyn Described) -> Context {
    Context {
        name: command.name(),
        flags: command
            .sections()
            .into_iter()
            .flat_map(|s| s.flags)
            .collect(),
        words: command
            .subcommands()
            .iter()
            .map(|s| (last_word(s.name()), s.summary()))
            .collect(),
        files: command.operands().iter().any(|o| o.path),
    }
}

fn contexts() -> Vec<Context> {
    let mut all = vec![Context {
        words: COMMANDS.iter().map(|c| (c.name(), c.summary())).collect(),
        ..context(&RUN)
    }];
    for command in COMMANDS {
        all.push(context(*command));
        all.extend(command.subcommands().iter().map(|s| context(*s)));
    }
    all
}

/// `list` of `history list`.
fn last_word(name: &str) -> &str {
    name.rsplit(' ').next().unwrap_or(name)
}

/// The commands that have subcommands, with them: `history` → list, show…
fn parents() -> Vec<(&'static str, Vec<&'static str>)> {
    COMMANDS
        .iter()
        .filter(|c| !c.subcommands().is_empty())
        .map(|c| {
            let subs = c
                .subcommands()
                .iter()
                .map(|s| last_word(s.name()))
                .collect();
            (c.name(), subs)
        })
        .collect()
}

fn command_names() -> Vec<&'static str> {
    COMMANDS.iter().map(|c| c.name()).collect()
}

/// The flags of a context whose value is of `kind`, joined by `|` (a case
/// pattern).
fn flags_taking(context: &Context, kind: impl Fn(&ValueDoc) -> bool) -> String {
    let matching: Vec<String> = context
        .flags
        .iter()
        .filter(|f| kind(&f.value))
        .map(|f| f.spelling.to_string())
        .collect();
    matching.join("|")
}

fn spellings(context: &Context) -> String {
    let all: Vec<String> = context
        .flags
        .iter()
        .map(|f| f.spelling.to_string())
        .collect();
    all.join(" ")
}

/// The loop both bash and zsh run over the words before the cursor (each
/// in `$w`) to find the context (`$ctx`); `first` is the index of the word
/// after `ioz`.
fn find_context(first: u32, indent: &str) -> String {
    let mut out = format!(
        "{indent}if (( i == {first} )); then\n\
         {indent}    case \"$w\" in ({commands}) ctx=\"$w\"; continue ;; esac\n\
         {indent}fi\n\
         {indent}case \"$ctx\" in\n",
        commands = command_names().join("|"),
    );
    for (parent, subs) in parents() {
        out.push_str(&format!(
            "{indent}    ({parent}) case \"$w\" in ({}) ctx=\"{parent} $w\" ;; esac ;;\n",
            subs.join("|")
        ));
    }
    out.push_str(&format!("{indent}esac\n"));
    out
}

/// How bash and zsh, whose scripts are alike, write their parts.
struct Dialect {
    /// Where a context's case arm starts.
    indent: &'static str,
    /// A case pattern of options, without its closing parenthesis:
    /// `-s|--json`.
    pattern: fn(&str) -> String,
    /// The case pattern of a context: `"history list")`.
    context: fn(&str) -> String,
    /// Completes a file name, a directory, one of these words.
    file: &'static str,
    directory: &'static str,
    words: fn(&[&str]) -> String,
    /// Sets `opts`, the words that may come next, and whether files may.
    assign: fn(&str, &str, u8) -> String,
}

const BASH: Dialect = Dialect {
    indent: "        ",
    pattern: |p| p.to_string(),
    context: |name| format!("\"{name}\")"),
    file: "COMPREPLY=($(compgen -f -- \"$cur\")); return",
    directory: "COMPREPLY=($(compgen -d -- \"$cur\")); return",
    words: |names| {
        format!(
            "COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return",
            names.join(" ")
        )
    },
    assign: |opts, words, files| format!("opts=\"{opts}\"; words=\"{words}\"; files={files}"),
};

const ZSH: Dialect = Dialect {
    indent: "    ",
    // Each option quoted, so that no shell option turns `+` or `-` into a
    // pattern character.
    pattern: |p| {
        let quoted: Vec<String> = p.split('|').map(|o| format!("'{o}'")).collect();
        format!("({}", quoted.join("|"))
    },
    context: |name| format!("(\"{name}\")"),
    file: "_files; return",
    directory: "_files -/; return",
    words: |names| format!("compadd -- {}; return", names.join(" ")),
    assign: |opts, words, files| format!("opts=({opts}); subs=({words}); files={files}"),
};

/// A context's arm of the script's `case $ctx`: what the value after each
/// of its flags is, then its options and next words.
fn context_arm(c: &Context, d: &Dialect) -> String {
    let indent = d.indent;
    let mut out = format!(
        "{indent}{}\n{indent}    case \"$prev\" in\n",
        (d.context)(c.name)
    );
    let kinds = [
        (ValueDoc::File, d.file),
        (ValueDoc::Directory, d.directory),
        (ValueDoc::Other, "return"),
    ];
    for (kind, action) in kinds {
        let pattern = flags_taking(c, |v| *v == kind);
        if !pattern.is_empty() {
            out.push_str(&format!(
                "{indent}        {}) {action} ;;\n",
                (d.pattern)(&pattern)
            ));
        }
    }
    for flag in &c.flags {
        if let ValueDoc::Words(names) = flag.value {
            out.push_str(&format!(
                "{indent}        {}) {} ;;\n",
                (d.pattern)(&flag.spelling.to_string()),
                (d.words)(names)
            ));
        }
    }
    let words: Vec<&str> = c.words.iter().map(|(w, _)| *w).collect();
    out.push_str(&format!(
        "{indent}    esac\n{indent}    {} ;;\n",
        (d.assign)(&spellings(c), &words.join(" "), u8::from(c.files))
    ));
    out
}

fn bash(contexts: &[Context]) -> String {
    let mut out = String::from(
        "# bash completion for ioz (ioz help --completions bash), written from its tables\n\
         _ioz() {\n    \
         local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n    \
         local ctx=\"\" i w opts=\"\" words=\"\" files=0\n    \
         COMPREPLY=()\n    \
         for ((i = 1; i < COMP_CWORD; i++)); do\n        \
         w=\"${COMP_WORDS[i]}\"\n",
    );
    out.push_str(&find_context(1, "        "));
    out.push_str("    done\n    case \"$ctx\" in\n");
    for c in contexts {
        out.push_str(&context_arm(c, &BASH));
    }
    out.push_str(
        "    esac\n    \
         if [[ $cur == -* ]]; then\n        \
         COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n    \
         else\n        \
         COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n        \
         if (( files )); then COMPREPLY+=($(compgen -f -- \"$cur\")); fi\n    \
         fi\n\
         }\n\
         complete -o filenames -F _ioz ioz\n",
    );
    out
}

fn zsh(contexts: &[Context]) -> String {
    let mut out = String::from(
        "#compdef ioz\n\
         # zsh completion for ioz (ioz help --completions zsh), written from its tables\n\
         _ioz() {\n  \
         local cur=${words[CURRENT]} prev=${words[CURRENT-1]} ctx=\"\" i w\n  \
         local -a opts subs\n  \
         local files=0\n  \
         for (( i = 2; i < CURRENT; i++ )); do\n    \
         w=${words[i]}\n",
    );
    out.push_str(&find_context(2, "    "));
    out.push_str("  done\n  case $ctx in\n");
    for c in contexts {
        out.push_str(&context_arm(c, &ZSH));
    }
    out.push_str(
        "  esac\n  \
         if [[ $cur == -* ]]; then\n    \
         compadd -- $opts\n  \
         else\n    \
         (( ${#subs} )) && compadd -- $subs\n    \
         (( files )) && _files\n  \
         fi\n\
         }\n\
         _ioz \"$@\"\n",
    );
    out
}

fn fish(contexts: &[Context]) -> String {
    let commands = command_names().join(" ");
    let mut out = String::from(
        "# fish completion for ioz (ioz help --completions fish), written from its tables\n\
         complete -c ioz -f\n",
    );
    for c in contexts {
        let condition = match c.name {
            "" => format!("not __fish_seen_subcommand_from {commands}"),
            name => match name.split_once(' ') {
                None => match parents().into_iter().find(|(p, _)| *p == name) {
                    Some((_, subs)) => format!(
                        "__fish_seen_subcommand_from {name}; and not __fish_seen_subcommand_from {}",
                        subs.join(" ")
                    ),
                    None => format!("__fish_seen_subcommand_from {name}"),
                },
                Some((parent, sub)) => format!(
                    "__fish_seen_subcommand_from {parent}; and __fish_seen_subcommand_from {sub}"
                ),
            },
        };
        for (word, summary) in &c.words {
            out.push_str(&format!(
                "complete -c ioz -n '{condition}' -a {word} -d {}\n",
                fish_quote(summary)
            ));
        }
        if c.files {
            out.push_str(&format!("complete -c ioz -n '{condition}' -F\n"));
        }
        for flag in &c.flags {
            let option = match flag.spelling {
                Spelling::Short(letter) => format!("-s {letter}"),
                Spelling::Plus(letter) => format!("-o +{letter}"),
                Spelling::Long(name) => format!("-l {name}"),
            };
            let value = match flag.value {
                ValueDoc::None => String::new(),
                ValueDoc::File => " -r -F".to_string(),
                ValueDoc::Directory => " -x -a '(__fish_complete_directories)'".to_string(),
                ValueDoc::Words(names) => format!(" -x -a '{}'", names.join(" ")),
                ValueDoc::Other => " -x".to_string(),
            };
            out.push_str(&format!(
                "complete -c ioz -n '{condition}' {option}{value} -d {}\n",
                fish_quote(first_clause(&flag.help))
            ));
        }
    }
    out
}

/// The help line up to its first `;` or `:` clause end, for fish's short
/// descriptions.
fn first_clause(help: &str) -> &str {
    help.split(['(', ';']).next().unwrap_or(help).trim()
}

/// A single-quoted fish word.
fn fish_quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How each script writes an option.
    fn written(shell: &str, spelling: Spelling<'_>) -> String {
        match (shell, spelling) {
            ("fish", Spelling::Short(c)) => format!(" -s {c}"),
            ("fish", Spelling::Plus(c)) => format!(" -o +{c}"),
            ("fish", Spelling::Long(name)) => format!(" -l {name}"),
            _ => format!("{spelling}"),
        }
    }

    #[test]
    fn every_command_and_option_of_the_tables_is_in_each_script() {
        for shell in SHELLS {
            let script = completions(shell);
            for c in contexts() {
                let named = match shell {
                    "fish" => format!("__fish_seen_subcommand_from {}", last_word(c.name)),
                    _ => c.name.to_string(),
                };
                assert!(script.contains(&named), "{shell}: {}", c.name);
                for (word, _) in &c.words {
                    assert!(script.contains(word), "{shell}: {word}");
                }
                for flag in &c.flags {
                    let option = written(shell, flag.spelling);
                    assert!(
                        script.contains(&option),
                        "{shell}: {option} of {:?} missing",
                        c.name
                    );
                    if let ValueDoc::Words(names) = flag.value {
                        assert!(script.contains(&names.join(" ")), "{shell}: {names:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_context_of_the_tables_has_its_options() {
        let contexts = contexts();
        assert_eq!(contexts[0].name, "");
        assert!(contexts.iter().any(|c| c.name == "history trend"));
        let run = &contexts[0];
        assert_eq!(run.flags.len(), RUN.flags().count());
        assert!(run.words.iter().any(|(w, _)| *w == "compare"));
    }
}
