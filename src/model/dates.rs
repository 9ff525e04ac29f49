//! Dates as ioz writes them, all RFC 3339 in UTC (`2008-06-12T10:22:33Z`):
//! a run's `started_at` and `finished_at` (made from the clock's seconds by
//! system/time.rs), IOzone's `Run began:` line (ctime's layout, read as UTC:
//! IOzone does not say its zone), an `--date`/`--since`/`--until` given by
//! the user, a file's time; and back to seconds, for a chart's time axis or
//! the distance between two runs. Pure functions: no clock, no zone database.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since 1970 as RFC 3339 in UTC.
pub fn from_epoch(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// A time of the system's clock (now, a file's modification) as RFC 3339
/// in UTC, to the second.
pub fn from_system_time(t: SystemTime) -> String {
    from_epoch(match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(before) => -(before.duration().as_secs() as i64),
    })
}

/// Seconds since 1970 of an RFC 3339 date in UTC, or of a bare
/// `YYYY-MM-DD` (its midnight); `None` when it is neither.
pub fn to_epoch(date: &str) -> Option<i64> {
    let (y, m, d) = (
        date.get(0..4)?.parse::<i64>().ok()?,
        date.get(5..7)?.parse::<u32>().ok()?,
        date.get(8..10)?.parse::<u32>().ok()?,
    );
    if !valid(y, m, d) {
        return None;
    }
    let secs = match date.get(11..19) {
        Some(time) => {
            let (h, mi, s) = clock(time)?;
            i64::from(h * 3600 + mi * 60 + s)
        }
        None => 0,
    };
    Some(days_from_civil(y, m, d) * 86_400 + secs)
}

/// IOzone's `Run began:` text (`Thu Jun 12 10:22:33 2008`) as RFC 3339;
/// `None` when it is not in ctime's layout.
pub fn from_ctime(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [_weekday, month, day, time, year] = words[..] else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? as u32 + 1;
    let day: u32 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let (h, mi, s) = clock(time)?;
    valid(year, month, day).then(|| format!("{year:04}-{month:02}-{day:02}T{h:02}:{mi:02}:{s:02}Z"))
}

/// A date the user gave that is none; its text says what is accepted.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a date: give YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC)")]
pub struct NotADate(pub String);

/// A date the user gave: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]`,
/// `YYYY-MM-DDTHH:MM[:SS][Z]` (UTC), as RFC 3339.
pub fn from_user(text: &str) -> Result<String, NotADate> {
    let bad = || NotADate(text.to_string());
    let t = text.trim().trim_end_matches('Z');
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (t, None),
    };
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts[..] else {
        return Err(bad());
    };
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i64>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return Err(bad());
    };
    if !(1900..=9999).contains(&y) || !valid(y, m, d) {
        return Err(bad());
    }
    let (h, mi, s) = match time {
        None => (0, 0, 0),
        Some(t) => clock(t).ok_or_else(bad)?,
    };
    Ok(format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"))
}

/// The end of the day `until` names when it is a bare date (so that
/// `--until 2008-06-12` includes that day's runs), else `until` itself.
pub fn until_end_of_day(user_text: &str, rfc3339: &str) -> String {
    if user_text.trim().len() == 10 {
        format!("{}T23:59:59Z", &rfc3339[..10])
    } else {
        rfc3339.to_string()
    }
}

/// `HH:MM` or `HH:MM:SS`.
fn clock(text: &str) -> Option<(u32, u32, u32)> {
    let parts: Vec<u32> = text
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let (h, m, s) = match parts[..] {
        [h, m] => (h, m, 0),
        [h, m, s] => (h, m, s),
        _ => return None,
    };
    (h < 24 && m < 60 && s < 61).then_some((h, m, s.min(59)))
}

fn valid(year: i64, month: u32, day: u32) -> bool {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// Howard Hinnant's days-from-civil algorithm (proleptic Gregorian): days
/// since 1970-01-01 of a valid date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_seconds_become_utc_dates() {
        assert_eq!(from_epoch(0), "1970-01-01T00:00:00Z");
        assert_eq!(from_epoch(1_213_266_153), "2008-06-12T10:22:33Z");
        assert_eq!(from_epoch(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(from_epoch(-1), "1969-12-31T23:59:59Z");
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_213_266_153);
        assert_eq!(from_system_time(t), "2008-06-12T10:22:33Z");
        let before = UNIX_EPOCH - std::time::Duration::from_secs(86_400);
        assert_eq!(from_system_time(before), "1969-12-31T00:00:00Z");
    }

    #[test]
    fn dates_become_epoch_seconds_and_back() {
        assert_eq!(to_epoch("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(to_epoch("2008-06-12T10:22:33Z"), Some(1_213_266_153));
        assert_eq!(to_epoch("2000-02-29"), Some(951_782_400));
        for secs in [
            0,
            59,
            86_399,
            951_782_400,
            1_213_266_153,
            4_102_444_800,
            -86_400,
        ] {
            assert_eq!(to_epoch(&from_epoch(secs)), Some(secs), "{secs}");
        }
        for bad in ["x", "", "2008-13-01", "2001-02-29", "2008-06-12T25:00:00Z"] {
            assert_eq!(to_epoch(bad), None, "{bad}");
        }
    }

    #[test]
    fn iozone_run_began_lines_are_read_as_utc() {
        assert_eq!(
            from_ctime("Sat Nov 21 21:05:03 2026").as_deref(),
            Some("2026-11-21T21:05:03Z")
        );
        assert_eq!(
            from_ctime("Thu Jun  5 01:02:03 2008").as_deref(),
            Some("2008-06-05T01:02:03Z")
        );
        assert_eq!(from_ctime("yesterday"), None);
        assert_eq!(from_ctime("Thu Feb 30 01:02:03 2008"), None);
    }

    #[test]
    fn user_dates_in_three_spellings() {
        assert_eq!(from_user("2007-09-06").unwrap(), "2007-09-06T00:00:00Z");
        assert_eq!(
            from_user("2007-09-06T12:30").unwrap(),
            "2007-09-06T12:30:00Z"
        );
        assert_eq!(
            from_user("2007-09-06 12:30:05").unwrap(),
            "2007-09-06T12:30:05Z"
        );
        assert_eq!(
            from_user("2007-09-06T12:30:05Z").unwrap(),
            "2007-09-06T12:30:05Z"
        );
        for bad in ["2007-13-01", "06/09/2007", "2007-09-06T25:00", "", "2007-9"] {
            let e = from_user(bad).unwrap_err();
            assert_eq!(e, NotADate(bad.to_string()));
            assert!(e.to_string().contains("is not a date"), "{bad}: {e}");
        }
        let until = from_user("2008-06-12").unwrap();
        assert_eq!(
            until_end_of_day("2008-06-12", &until),
            "2008-06-12T23:59:59Z"
        );
    }
}
