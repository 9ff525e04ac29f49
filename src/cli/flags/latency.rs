//! Per-operation latency: `--latency` histograms and their percentiles, and
//! IOzone's `-+z` histogram files, `-+O` rate limit and `-+T` logs.

use super::Spelling::Plus;
use super::{Flag, Number, Scope, Section};
use crate::cli::shared;

/// `-+O`: operations per second per worker (IOzone's limit is an int).
const RATE: Number = Number::count(1, 1_000_000_000, "operations per second");

pub(super) const SECTION: Section = Section {
    title: "Latency",
    note: "",
    flags: &[
        shared::latency(
            "time every operation of every pass: a latency table (min, percentiles, \
             max in µs) after the results, histograms in the JSON",
            |s| s.latency.histograms = true,
        ),
        shared::percentiles(|s, list| s.percentiles = Some(list.to_string())),
        Flag::switch(
            Plus('z'),
            "IOzone's latency histogram files, Iozone_histogram_child_<n>.txt in the \
             current directory, appended (in single and auto mode, child 0's)",
            |s| s.latency.iozone_histograms = true,
        )
        .header(&["Histogram summary enabled."]),
        Flag::number(
            Plus('O'),
            "N",
            RATE,
            "at most N ({range}) operations per second per worker, paced between \
             operations",
            |s, n| s.latency.rate_limit = Some(n),
        )
        .header_number(|n| vec![format!("Rate control active {n} Ops/sec .")]),
        Flag::switch(
            Plus('T'),
            "log each phase's start and end to Child_<n>.log in the current \
             directory, appended",
            |s| s.latency.worker_logs = true,
        )
        .only_in(Scope::ThroughputMode),
    ],
};
