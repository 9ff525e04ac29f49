//! What the printed report shows.

use super::Spelling::{Long, Plus, Short};
use super::{Flag, Section};
use crate::cli::shared;

pub(super) const SECTION: Section = Section {
    title: "Output",
    note: "",
    flags: &[
        Flag::switch(Short('R'), "Excel-style report after the table", |s| {
            s.excel_report = true
        })
        .header(&["Excel chart generation enabled"]),
        Flag::switch(Short('N'), "microseconds per operation", |s| {
            s.micros_per_op = true
        })
        .header(&["Microseconds/op Mode. Output is in microseconds per operation."]),
        Flag::switch(Short('O'), "operations per second", |s| {
            s.ops_per_sec = true
        })
        .header(&["OPS Mode. Output is in operations per second."]),
        Flag::switch(
            Short('Q'),
            "offset/latency files per pass (wol.dat, rol.dat, ...) in the current \
             directory, appended",
            |s| s.variations.offset_latency_files = true,
        )
        .header(&["Offset/latency files enabled."]),
        Flag::switch(
            Plus('u'),
            "CPU utilisation: -R CPU blocks, throughput CPU lines",
            |s| s.variations.cpu_utilisation = true,
        )
        .header_host(|host| {
            vec![
                format!(
                    "CPU utilization Resolution = {:5.3} seconds.",
                    host.cpu_clock_resolution_s
                ),
                "CPU utilization Excel chart enabled".to_string(),
            ]
        }),
        Flag::switch(
            Short('M'),
            "include uname and the machine's settings (device, page cache, \
             virtualisation) in the header",
            |s| s.machine = true,
        )
        .header_host(|host| vec![String::new(), format!("Machine = {}", host.machine)]),
        shared::help(),
        shared::help_long(),
        Flag::version(Short('v'), "the version"),
        Flag::version(Long("version"), "the same as -v"),
    ],
};
