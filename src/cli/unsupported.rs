//! IOzone options that ioz recognises but does not implement yet. Each is refused
//! by name so that no flag is ever silently ignored.

/// What a `-+` option does, if it is one ioz does not support yet.
pub fn describe_plus(letter: char) -> Option<&'static str> {
    Some(match letter {
        'a' => "ignored IOzone option",
        'b' => "ignored IOzone option",
        'c' => "cluster client",
        'h' => "cluster controlling host",
        'H' => "PIT time server host",
        'i' => "cluster control port",
        'm' => "cluster mode",
        'O' => "operation rate limit",
        'P' => "PIT time server port",
        's' => "silent cluster client",
        't' => "network speed test",
        'T' => "per-worker log files",
        'U' => "Windows-only option",
        'X' => "short-circuit verification",
        'z' => "latency histograms",
        'Z' => "old data sets",
        _ => return None,
    })
}
