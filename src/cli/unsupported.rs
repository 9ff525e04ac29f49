//! IOzone options that ioz recognises but does not implement yet. Each is refused
//! by name so that no flag is ever silently ignored.

/// What a single-letter IOzone option does, if it is one ioz does not support yet.
pub fn describe(letter: char) -> Option<&'static str> {
    Some(match letter {
        'K' => "disrupted read patterns",
        'm' => "multiple buffers",
        'U' => "unmount and remount between tests",
        'X' => "write telemetry file",
        'Y' => "read telemetry file",
        _ => return None,
    })
}

/// Same for `-+` options.
pub fn describe_plus(letter: char) -> Option<&'static str> {
    Some(match letter {
        'a' => "ignored IOzone option",
        'b' => "ignored IOzone option",
        'c' => "cluster client",
        'C' => "dedup within files",
        'F' => "truncating writers in the mixed workload",
        'h' => "cluster controlling host",
        'H' => "PIT time server host",
        'i' => "cluster control port",
        'K' => "reader count in the mixed workload",
        'm' => "cluster mode",
        'O' => "operation rate limit",
        'P' => "PIT time server port",
        's' => "silent cluster client",
        'S' => "dedup seed",
        't' => "network speed test",
        'T' => "per-worker log files",
        'U' => "Windows-only option",
        'w' => "dedupable data",
        'W' => "dedup worker skew",
        'X' => "short-circuit verification",
        'y' => "interior dedup",
        'z' => "latency histograms",
        'Z' => "old data sets",
        _ => return None,
    })
}
