//! Entry dates: RFC 822 (RSS) and ISO 8601 / RFC 3339 (Atom, JSON Feed,
//! Dublin Core), as feeds write them rather than as the RFCs do.
//!
//! A date only orders items and is shown beside them, so a reading that is
//! a little generous costs nothing, while refusing one leaves the item
//! undated (oldest for the item cap). Accepted beyond the RFCs: a missing
//! or wrong weekday, long month names, any case, one-digit days and hours,
//! missing seconds, two-digit years (RFC 2822's rule: below 50 is 20xx),
//! `UTC` and the North American zone names, an ISO date with a space for
//! its `T`, without a zone (UTC), without a colon in its offset, or with
//! only a year and month (the first of it; W3C-DTF allows this). The
//! result is RFC 3339 in UTC (`2003-12-13T18:30:02Z`); a date outside the
//! years 0000-9999 has no such form and is `None` (issue #12).

/// `s` as RFC 3339 in UTC, if it is a date this module reads.
pub(super) fn rfc3339(s: &str) -> Option<String> {
    let s = s.trim();
    let secs = iso8601(s).or_else(|| rfc822(s))?;
    let days = secs.div_euclid(86_400);
    let t = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return None;
    }
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    ))
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC): the instants the
/// digest's words give ([`crate::words`]).
pub(crate) fn unix_rfc3339(unix_secs: i64) -> String {
    let (y, m, d) = civil_from_days(unix_secs.div_euclid(86_400));
    let secs = unix_secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Seconds since the epoch of a valid calendar date and time, `offset`
/// minutes east of UTC.
fn instant(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, offset: i64) -> Option<i64> {
    let valid = (1..=12).contains(&mo)
        && (1..=days_in_month(y, mo)).contains(&d)
        && (0..=24).contains(&h)
        && (0..=59).contains(&mi)
        && (0..=60).contains(&s)
        && (h < 24 || (mi == 0 && s == 0));
    // A leap second is the last second of its minute.
    valid.then(|| days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s.min(59) - offset * 60)
}

/// A run of ASCII digits at the start of `b`: its value and length.
fn digits(b: &[u8], max: usize) -> (i64, usize) {
    let n = b
        .iter()
        .take(max)
        .take_while(|c| c.is_ascii_digit())
        .count();
    let v = b[..n]
        .iter()
        .fold(0i64, |v, c| v * 10 + i64::from(c - b'0'));
    (v, n)
}

/// ISO 8601 as feeds write it (RFC 3339, W3C-DTF, the basic format).
fn iso8601(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let (y, n) = digits(b, 4);
    if n != 4 {
        return None;
    }
    let mut at = 4;
    let (mo, d) = if b.get(at) == Some(&b'-') {
        let (mo, n) = digits(&b[at + 1..], 2);
        if n == 0 {
            return None;
        }
        at += 1 + n;
        if b.get(at) == Some(&b'-') {
            let (d, n) = digits(&b[at + 1..], 2);
            if n == 0 {
                return None;
            }
            at += 1 + n;
            (mo, d)
        } else {
            (mo, 1)
        }
    } else if b.len() == 4 {
        (1, 1)
    } else {
        let (md, n) = digits(&b[at..], 4);
        if n != 4 {
            return None;
        }
        at += 4;
        (md / 100, md % 100)
    };
    let (mut h, mut mi, mut sec) = (0, 0, 0);
    if matches!(b.get(at), Some(b'T' | b't' | b' '))
        && b.get(at + 1).is_some_and(u8::is_ascii_digit)
    {
        at += 1;
        let (v, n) = digits(&b[at..], 2);
        if n != 2 {
            return None;
        }
        h = v;
        at += 2;
        let colon = b.get(at) == Some(&b':');
        at += usize::from(colon);
        let (v, n) = digits(&b[at..], 2);
        if n != 2 {
            return None;
        }
        mi = v;
        at += 2;
        if (colon && b.get(at) == Some(&b':'))
            || (!colon && b.get(at).is_some_and(u8::is_ascii_digit))
        {
            at += usize::from(colon);
            let (v, n) = digits(&b[at..], 2);
            if n != 2 {
                return None;
            }
            sec = v;
            at += 2;
            if matches!(b.get(at), Some(b'.' | b',')) {
                at += 1;
                at += b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
            }
        }
    }
    let zone = s[at..].trim();
    let offset = if zone.is_empty() {
        0
    } else {
        zone_offset(zone)?
    };
    instant(y, mo, d, h, mi, sec, offset)
}

/// Minutes east of UTC of a zone: `Z`, `±hh:mm`, `±hhmm`, `±hh`, or a
/// name RFC 822 or feeds use.
fn zone_offset(zone: &str) -> Option<i64> {
    let b = zone.as_bytes();
    if let Some(sign) = match b.first() {
        Some(b'+') => Some(1),
        Some(b'-') => Some(-1),
        _ => None,
    } {
        let rest: Vec<u8> = b[1..].iter().copied().filter(|&c| c != b':').collect();
        let (v, n) = digits(&rest, 4);
        if n != rest.len() {
            return None;
        }
        let (h, m) = match n {
            1 | 2 => (v, 0),
            3 | 4 => (v / 100, v % 100),
            _ => return None,
        };
        return (m < 60 && h < 24).then_some(sign * (h * 60 + m));
    }
    Some(match zone.to_ascii_uppercase().as_str() {
        "Z" | "UT" | "UTC" | "GMT" => 0,
        "EST" => -5 * 60,
        "EDT" => -4 * 60,
        "CST" => -6 * 60,
        "CDT" => -5 * 60,
        "MST" => -7 * 60,
        "MDT" => -6 * 60,
        "PST" => -8 * 60,
        "PDT" => -7 * 60,
        // RFC 2822: military zones carry no information (read as -0000).
        z if z.len() == 1 && z.as_bytes()[0].is_ascii_alphabetic() => 0,
        _ => return None,
    })
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn month(token: &str) -> Option<i64> {
    let t = token.get(..3)?.to_ascii_lowercase();
    let m = MONTHS.iter().position(|&m| m == t)?;
    let whole = token.to_ascii_lowercase();
    const LONG: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    (whole.len() == 3 || LONG[m].starts_with(&whole) || whole == "sept").then_some(m as i64 + 1)
}

/// RFC 822 / 2822 as feeds write it: `[Day,] DD Mon YYYY HH:MM[:SS] [zone]`.
fn rfc822(s: &str) -> Option<i64> {
    let mut tokens = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .peekable();
    // The weekday is redundant and often wrong or long ("Thurs").
    if tokens
        .peek()
        .is_some_and(|t| t.bytes().all(|c| c.is_ascii_alphabetic()) && month(t).is_none())
    {
        tokens.next();
    }
    let day: i64 = tokens.next()?.parse().ok()?;
    let mo = month(tokens.next()?)?;
    let year = tokens.next()?;
    let y: i64 = year.parse().ok()?;
    let y = match year.len() {
        2 if y < 50 => 2000 + y,
        2 => 1900 + y,
        // RFC 2822 obsolete three-digit years are 1900 + y.
        3 => 1900 + y,
        _ => y,
    };
    let (h, mi, sec) = match tokens.next() {
        None => (0, 0, 0),
        Some(time) => {
            let mut parts = time.split(':');
            let h: i64 = parts.next()?.parse().ok()?;
            let mi: i64 = parts.next()?.parse().ok()?;
            let sec: i64 = match parts.next() {
                Some(p) => p.parse().ok()?,
                None => 0,
            };
            if parts.next().is_some() {
                return None;
            }
            (h, mi, sec)
        }
    };
    let offset = match tokens.next() {
        None => 0,
        Some(z) => zone_offset(z)?,
    };
    if tokens.next().is_some() {
        return None;
    }
    instant(y, mo, day, h, mi, sec, offset)
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn rfc_822_as_feeds_write_it() {
        for (s, want) in [
            ("Sat, 07 Sep 2002 00:00:01 GMT", "2002-09-07T00:00:01Z"),
            ("Tue, 02 Mar 2021 23:39:15 +0100", "2021-03-02T22:39:15Z"),
            ("Thurs, 13 Jul 2011 07:38:00 GMT", "2011-07-13T07:38:00Z"),
            ("7 September 2002 9:05 EDT", "2002-09-07T13:05:00Z"),
            ("Sun, 29 Sep 02 19:59:01 -0000", "2002-09-29T19:59:01Z"),
            ("01 May 2026 10:00:00 UTC", "2026-05-01T10:00:00Z"),
            ("Wed, 31 Dec 1969 23:59:59 +0000", "1969-12-31T23:59:59Z"),
            ("Mon, 01 Jan 2024", "2024-01-01T00:00:00Z"),
        ] {
            assert_eq!(rfc3339(s).as_deref(), Some(want), "{s}");
        }
    }

    #[test]
    fn iso_8601_as_feeds_write_it() {
        for (s, want) in [
            ("2003-12-13T18:30:02Z", "2003-12-13T18:30:02Z"),
            ("2003-12-13T18:30:02.25+01:00", "2003-12-13T17:30:02Z"),
            ("2024-02-03T04:05:06+0200", "2024-02-03T02:05:06Z"),
            ("2024-02-03 04:05", "2024-02-03T04:05:00Z"),
            ("2024-02-03", "2024-02-03T00:00:00Z"),
            ("2024-02", "2024-02-01T00:00:00Z"),
            ("20240203T040506Z", "2024-02-03T04:05:06Z"),
            ("2024-12-31T24:00:00Z", "2025-01-01T00:00:00Z"),
        ] {
            assert_eq!(rfc3339(s).as_deref(), Some(want), "{s}");
        }
    }

    #[test]
    fn what_is_not_a_date() {
        for s in [
            "",
            "yesterday",
            "2024-13-01",
            "2024-02-30T00:00:00Z",
            "Fri, 01 Jan 99999 00:00:00 GMT",
            "99999-01-01T00:00:00Z",
            "31 Foo 2020 00:00:00 GMT",
            "2024-01-01T25:00:00Z",
            "2024-01-01T00:00:00+99:00",
        ] {
            assert_eq!(rfc3339(s), None, "{s}");
        }
    }
}
