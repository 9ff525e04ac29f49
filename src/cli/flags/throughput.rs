//! Throughput mode: several workers at once, each on its own file.

use super::Spelling::{Plus, Short};
use super::{Flag, Number, Scope, Section};
use crate::model::config::{MAX_DELAY_SECONDS, MAX_WORKERS};

const WORKERS: Number = Number::count(1, MAX_WORKERS, "workers");

pub(super) const SECTION: Section = Section {
    title: "Throughput mode",
    note: "",
    // The throughput-only flags keep this order (-F -T -C -x -d -P -+k -+L
    // -+V): when several are given without -t, the error names the first.
    flags: &[
        Flag::number(
            Short('t'),
            "N",
            WORKERS,
            "N workers ({range}): processes (-T for threads), each on its own \
             file; repeat for several runs",
            |s, n| s.worker_counts.push(n as u32),
        ),
        Flag::number(
            Short('l'),
            "N",
            WORKERS,
            "run every worker count from N to -u's (default: N alone)",
            |s, n| s.min_workers = Some(n as u32),
        ),
        Flag::number(
            Short('u'),
            "N",
            WORKERS,
            "run every worker count from -l's (default 1) to N",
            |s, n| s.max_workers = Some(n as u32),
        ),
        Flag::paths(
            Short('F'),
            "F1 F2 ...",
            "the workers' file names",
            "the workers' files, one per worker (default: the -f path with .0, \
             .1, ...)",
            |s, files| s.files.extend(files),
        )
        .only_in(Scope::ThroughputMode),
        Flag::switch(Short('T'), "threads instead of processes", |s| {
            s.threads = true
        })
        .only_in(Scope::ThroughputMode),
        Flag::switch(Short('C'), "a line per worker", |s| {
            s.per_worker_lines = true
        })
        .only_in(Scope::ThroughputMode),
        Flag::switch(Short('x'), "no stonewalling", |s| s.no_stonewall = true)
            .header(&["Stonewall disabled"])
            .only_in(Scope::ThroughputMode),
        Flag::number(
            Short('d'),
            "US",
            // validate.rs also keeps the last worker's start within the hour.
            Number::count(0, MAX_DELAY_SECONDS * 1_000_000, "µs of delay"),
            "start worker i i*US µs late",
            |s, us| s.start_delay_us = Some(us),
        )
        .only_in(Scope::ThroughputMode),
        Flag::number(
            Short('P'),
            "CPU",
            // Linux numbers at most 8192 CPUs (NR_CPUS); validate.rs then
            // checks the machine's own count.
            Number::count(0, 8191, "CPU number"),
            "bind the workers to CPUs from CPU upward",
            |s, cpu| s.first_cpu = Some(cpu as usize),
        )
        .header_number(|cpu| vec![format!("Binding of processors beginning with {cpu} ")])
        .only_in(Scope::ThroughputMode),
        Flag::switch(Plus('k'), "divide the file size among the workers", |s| {
            s.constant_total = true
        })
        .only_in(Scope::ThroughputMode),
        Flag::switch(
            Plus('L'),
            "every worker on one shared file, each record locked (fcntl)",
            |s| {
                s.record_locking = true;
                s.shared_file = true;
            },
        )
        .header(&[">>> Record locking, shared file mode enabled. <<<"])
        .only_in(Scope::ThroughputMode),
        Flag::switch(Plus('V'), "every worker on one shared file", |s| {
            s.shared_file = true
        })
        .header(&[">>> Shared file mode enabled. <<<"])
        .only_in(Scope::ThroughputMode),
        Flag::number(
            Plus('K'),
            "N",
            Number::count(0, MAX_WORKERS, "reading workers"),
            "test 8: workers below N only read, the others only write",
            |s, n| s.variations.mix_readers = Some(n as u32),
        )
        .header_number(|n| vec![format!("Manual control of test 8: workers below {n} read.")]),
        Flag::switch(
            Plus('F'),
            "test 8: -+K's writers truncate their files first",
            |s| s.variations.mix_truncate_writers = true,
        ),
    ],
};
