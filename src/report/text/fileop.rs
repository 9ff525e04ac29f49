//! `ioz fileop`'s text, in fileop's layout: the `Fileop:` banner line
//! (left out with `-e`), the header (byte for byte fileop's), then per
//! force factor an `A` row (the average), a `B` row (best, `-b`) and a `W`
//! row (worst, `-w`), or with `-t` a block per operation. The numbers are
//! ioz's: operations per second from a nanosecond clock, so a `B` is a
//! number where fileop's microsecond clock printed `inf`. Columns never run
//! together: a wide number widens its column and keeps a separating space.

use std::fmt::Write as _;

use crate::analysis::summary::summarize;
use crate::model::metadata::{FILEOP_COLUMNS, FILEOP_ORDER, FileopConfig, FileopTree, MetaOp};
use crate::model::metadata_result::{MetaMeasurement, cells};
use crate::model::result::mean;

/// fileop's header line, as fileop prints it.
pub const HEADER: &str = " .       mkdir   chdir   rmdir  create    open    read   write   close    stat  access   chmod readdir  link    unlink  delete  Total_files";

/// Everything before the first row: the banner line (unless `-e`) and,
/// without `-t`, the header.
pub fn opening(f: &FileopConfig) -> String {
    let mut s = String::new();
    if !f.excel {
        let _ = writeln!(
            s,
            "\nFileop:  Working in {}, File size is {},  Output is in Ops/sec. (A=Avg, B=Best, W=Worst)",
            crate::model::visible::visible(&f.dir.display().to_string()),
            f.file_bytes
        );
    }
    if !f.verbose {
        s.push_str(HEADER);
        s.push('\n');
    }
    s
}

/// What fileop prints for one force factor: its rows, or with `-t` its
/// blocks. `measured` holds that factor's operations (one run's, or each
/// operation's mean over the runs).
pub fn factor(f: &FileopConfig, measured: &[Figures]) -> String {
    let Some(first) = measured.first() else {
        return String::new();
    };
    if f.verbose {
        return blocks(measured);
    }
    let x = first.factor;
    let mut s = row('A', x, measured, |m| m.rate);
    if f.best {
        s.push_str(&row('B', x, measured, |m| m.best));
    }
    if f.worst {
        s.push_str(&row('W', x, measured, |m| m.worst));
    }
    s
}

/// One operation's figures as the table shows them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figures {
    pub op: MetaOp,
    pub factor: u32,
    pub items: u64,
    pub elapsed_ns: f64,
    /// A, B and W: ops/s on average, of the fastest and of the slowest.
    pub rate: f64,
    pub best: f64,
    pub worst: f64,
}

impl Figures {
    pub fn of(m: &MetaMeasurement) -> Figures {
        Figures {
            op: m.op,
            factor: m.factor,
            items: m.items,
            elapsed_ns: m.elapsed_ns as f64,
            rate: m.rate(),
            best: m.best_rate(),
            worst: m.worst_rate(),
        }
    }

    /// The mean of several runs' figures of one operation.
    pub fn mean_of(runs: &[&MetaMeasurement]) -> Figures {
        let first = Figures::of(runs[0]);
        let over = |f: fn(&MetaMeasurement) -> f64| mean(runs.iter().map(|m| f(m)));
        Figures {
            elapsed_ns: over(|m| m.elapsed_ns as f64),
            rate: over(MetaMeasurement::rate),
            best: over(MetaMeasurement::best_rate),
            worst: over(MetaMeasurement::worst_rate),
            ..first
        }
    }
}

/// A row: its letter, the force factor, a rate per column, X³.
fn row(letter: char, x: u32, measured: &[Figures], figure: fn(&Figures) -> f64) -> String {
    let mut s = format!("{letter} {x:>4}");
    for op in FILEOP_COLUMNS {
        match measured.iter().find(|m| m.op == op) {
            Some(m) => {
                let _ = write!(s, " {:>7}", figure(m) as u64);
            }
            None => s.push_str(&" ".repeat(8)),
        }
    }
    let _ = writeln!(s, " {:>10} ", FileopTree { factor: x }.files());
    s
}

/// `-t`: a block per operation, in the order they ran.
fn blocks(measured: &[Figures]) -> String {
    let mut s = String::new();
    for op in FILEOP_ORDER {
        let Some(m) = measured.iter().find(|m| m.op == op) else {
            continue;
        };
        let name = op.name();
        let counted = if op.on_directories() { "Dirs" } else { "Files" };
        let _ = writeln!(
            s,
            "{:<9}{counted} = {:>9} Total Time = {:>12.9} seconds",
            format!("{name}:"),
            m.items,
            m.elapsed_ns / 1e9
        );
        let per_op = |rate: f64| if rate > 0.0 { 1.0 / rate } else { 0.0 };
        for (what, rate) in [("Avg", m.rate), ("Best", m.best), ("Worst", m.worst)] {
            let _ = writeln!(
                s,
                "         {:<21}= {rate:>12.2} ({:>12.9} seconds/op)",
                format!("{what} {name}(s)/sec"),
                per_op(rate)
            );
        }
        s.push('\n');
    }
    s
}

/// Every force factor's rows (or blocks), each operation the mean of its
/// runs: what the run prints at its end when it could not print them as
/// it went (`--runs`, or across ranks).
pub fn all_factors(f: &FileopConfig, measurements: &[MetaMeasurement]) -> String {
    let mut s = String::new();
    let grouped = cells(measurements);
    let mut factors: Vec<u32> = grouped.iter().map(|c| c[0].factor).collect();
    factors.dedup();
    for x in factors {
        let figures: Vec<Figures> = grouped
            .iter()
            .filter(|c| c[0].factor == x)
            .map(|c| Figures::mean_of(c))
            .collect();
        s.push_str(&factor(f, &figures));
    }
    s
}

/// `--runs`: each operation's spread over the runs, after the rows of
/// means (A: operations over their total time).
pub fn spread(measurements: &[MetaMeasurement], runs: u32) -> String {
    let mut s = format!(
        "\nOver {runs} runs, A in ops/sec: mean, standard deviation, 95 % interval of the mean (on log rates)\n"
    );
    let _ = writeln!(
        s,
        "{:>4} {:<8} {:>12} {:>12} {:>27} {:>5}",
        "X", "op", "mean", "sd", "95 % interval", "runs"
    );
    for cell in cells(measurements) {
        let rates: Vec<f64> = cell.iter().map(|m| m.rate()).collect();
        let Some(sum) = summarize(&rates) else {
            continue;
        };
        let sd = sum.sd.map_or("-".to_string(), |sd| format!("{sd:.0}"));
        let ci = sum.ci95.map_or("-".to_string(), |i| {
            format!("[{:.0}, {:.0}]", i.low, i.high)
        });
        let _ = writeln!(
            s,
            "{:>4} {:<8} {:>12.0} {:>12} {:>27} {:>5}",
            cell[0].factor,
            cell[0].op.name(),
            sum.mean,
            sd,
            ci,
            sum.n
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> FileopConfig {
        FileopConfig {
            factors: vec![3],
            file_bytes: 1,
            excel: false,
            best: true,
            worst: true,
            verbose: false,
            dir: ".".into(),
        }
    }

    fn figures(x: u32, rate: f64) -> Vec<Figures> {
        FILEOP_COLUMNS
            .iter()
            .map(|&op| Figures {
                op,
                factor: x,
                items: FileopTree { factor: x }.count(op),
                elapsed_ns: 139_713.0,
                rate,
                best: rate * 2.0,
                worst: rate / 2.0,
            })
            .collect()
    }

    #[test]
    fn the_banner_and_header_are_fileop_s() {
        let reference = include_str!("../../../tests/fixtures/metadata/fileop/f3bw.txt");
        let lines: Vec<&str> = reference.lines().collect();
        assert_eq!(
            opening(&config()),
            format!("\n{}\n{}\n", lines[1], lines[2])
        );
        let mut e = config();
        e.excel = true;
        assert_eq!(opening(&e), format!("{HEADER}\n"));
    }

    #[test]
    fn rows_keep_fileop_s_columns() {
        let text = factor(&config(), &figures(3, 112116.0));
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].len(), 138);
        assert!(rows[0].starts_with("A    3  112116  112116"));
        assert!(rows[0].ends_with("         27 "));
        assert!(rows[1].starts_with("B    3  224232"));
        assert!(rows[2].starts_with("W    3   56058"));
        // A number wider than the column widens it and keeps its space.
        let wide = factor(&config(), &figures(3, 123_456_789.0));
        assert!(wide.starts_with("A    3 123456789 123456789"));
    }

    #[test]
    fn verbose_blocks_are_fileop_s() {
        let mut v = config();
        v.verbose = true;
        let mut f = figures(2, 100205.22);
        f[0].items = 14;
        f[0].best = 167772.16;
        f[0].worst = 52428.80;
        let text = factor(&v, &f);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "mkdir:   Dirs =        14 Total Time =  0.000139713 seconds"
        );
        assert_eq!(
            lines[1],
            "         Avg mkdir(s)/sec     =    100205.22 ( 0.000009980 seconds/op)"
        );
        assert_eq!(
            lines[2],
            "         Best mkdir(s)/sec    =    167772.16 ( 0.000005960 seconds/op)"
        );
        assert!(text.contains("readdir: Files =         4 Total Time"));
        assert!(text.contains("         Worst readdir(s)/sec = "));
    }
}
