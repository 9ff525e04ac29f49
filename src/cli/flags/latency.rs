//! Per-operation latency: `--latency` histograms and their percentiles, and
//! IOzone's `-+z` histogram files, `-+O` rate limit and `-+T` logs.

use super::Spelling::{Long, Plus};
use super::{Flag, Number, Scope, Section};
use crate::cli::shared;
use crate::model::intervals::{MAX_INTERVAL_NS, MIN_INTERVAL_NS};

/// `--interval`: from 10 ms (shorter intervals would time mostly the
/// keeper's wake-ups) to an hour.
const INTERVAL: Number = Number::duration(MIN_INTERVAL_NS, MAX_INTERVAL_NS, "interval");

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
        Flag::number(
            Long("interval"),
            "D",
            INTERVAL,
            "record every pass (throughput mode: every worker and their sum) in \
             consecutive intervals of D ({range}; 100ms, 1s): bytes, operations, \
             --latency's histogram, and the page cache's Dirty and Writeback at \
             each interval's end; in the JSON, the HTML report, --plots, \
             --interval-csv and --live",
            |s, ns| s.interval_ns = Some(ns),
        ),
    ],
};
