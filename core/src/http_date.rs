//! HTTP-date (RFC 9110 §5.6.7), for the date form of `Retry-After` (R5).
//!
//! RFC 9110 says a recipient MUST accept all three formats, so all three are
//! parsed:
//!
//! ```text
//! IMF-fixdate   Sun, 06 Nov 1994 08:49:37 GMT
//! RFC 850       Sunday, 06-Nov-94 08:49:37 GMT
//! asctime       Sun Nov  6 08:49:37 1994
//! ```
//!
//! Choices where the RFC leaves room (RFC 9110 asks recipients to be
//! robust when parsing timestamps):
//!
//! * **The weekday name is not checked against the date.** It must be a
//!   day name (short or long, any case, in any of the three formats), but a
//!   wrong one is ignored: the date is what counts. The spec's own section
//!   12.5 vectors need this: they call 23 May 2026 both "Mon" and "Sun",
//!   and it is a Saturday.
//! * Month names and `GMT` are matched case-insensitively; a one-digit day
//!   is accepted in IMF-fixdate and RFC 850 (`6 Nov`), and asctime accepts
//!   `Nov  6`, `Nov 06` and `Nov 6`. RFC 850 also accepts a four-digit year.
//! * Surrounding spaces and tabs (HTTP OWS) are ignored; nothing else is.
//! * Ranges are checked: the day must exist in that month and year (no
//!   30 February), hour 0-23, minute 0-59, second 0-60 (`60` is the leap
//!   second RFC 9110 allows; Unix time has none, so it reads as the first
//!   second of the next minute).
//! * **Two-digit years** (RFC 850): [`parse_http_date`] has no clock, so it
//!   reads `70`-`99` as 19xx and `00`-`69` as 20xx (the Unix-epoch pivot).
//!   [`parse_http_date_relative_to`] applies RFC 9110's rule instead: the
//!   year is taken within 50 years of `now`, so one that would be more than
//!   50 years in the future is the most recent past year with those digits.
//!   `Retry-After` uses the latter.
//! * Dates before 1970 are [`HttpDateError::BeforeEpoch`]: a
//!   [`Timestamp`] cannot hold them.
//!
//! The civil-date arithmetic is done by hand (Howard Hinnant's
//! days-from-civil algorithm) so the crate stays `no_std` without a
//! date-time dependency.

use core::fmt;

use nom::branch::alt;
use nom::bytes::complete::{tag_no_case, take_while1, take_while_m_n};
use nom::character::complete::char as nchar;
use nom::combinator::{all_consuming, map_res};
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::time::Timestamp;

/// Why a string is not an HTTP-date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HttpDateError {
    /// The input is empty (after trimming spaces).
    #[error("empty HTTP-date")]
    Empty,
    /// The shape matches none of IMF-fixdate, RFC 850 and asctime.
    #[error("not an HTTP-date (expected IMF-fixdate \"Sun, 06 Nov 1994 08:49:37 GMT\", RFC 850 \"Sunday, 06-Nov-94 08:49:37 GMT\" or asctime \"Sun Nov  6 08:49:37 1994\")")]
    Syntax,
    /// The day name is not one of `Mon`..`Sun` / `Monday`..`Sunday`.
    #[error("unknown day name in HTTP-date")]
    UnknownDayName,
    /// The month name is not one of `Jan`..`Dec`.
    #[error("unknown month name in HTTP-date")]
    UnknownMonth,
    /// The day does not exist in that month and year.
    #[error("day of month out of range in HTTP-date")]
    InvalidDay,
    /// Hour above 23, minute above 59 or second above 60.
    #[error("hour, minute or second out of range in HTTP-date")]
    InvalidTime,
    /// The date is before 1970-01-01T00:00:00Z.
    #[error("HTTP-date before 1970")]
    BeforeEpoch,
}

const DAYS_SHORT: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const DAYS_LONG: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

const MS_PER_DAY: u64 = 86_400_000;

#[derive(Clone, Copy)]
enum Year {
    Full(u32),
    TwoDigit(u32),
}

/// The fields as written, before names and ranges are checked.
struct Raw<'a> {
    day_name: &'a str,
    day: u32,
    month: &'a str,
    year: Year,
    hour: u32,
    minute: u32,
    second: u32,
}

fn name(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphabetic()).parse(i)
}

/// `min..=max` ASCII digits as a number (at most 4, so it cannot overflow).
fn num<'a>(
    min: usize,
    max: usize,
) -> impl Parser<&'a str, Output = u32, Error = nom::error::Error<&'a str>> {
    map_res(
        take_while_m_n(min, max, |c: char| c.is_ascii_digit()),
        |d: &str| d.parse::<u32>(),
    )
}

fn sp(i: &str) -> IResult<&str, char> {
    nchar(' ').parse(i)
}

fn time_of_day(i: &str) -> IResult<&str, (u32, u32, u32)> {
    let (i, (h, _, m, _, s)) =
        (num(2, 2), nchar(':'), num(2, 2), nchar(':'), num(2, 2)).parse(i)?;
    Ok((i, (h, m, s)))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`
fn imf_fixdate(i: &str) -> IResult<&str, Raw<'_>> {
    let (i, (day_name, _, _, day, _, month, _, year, _, (hour, minute, second), _, _)) = (
        name,
        nchar(','),
        sp,
        num(1, 2),
        sp,
        name,
        sp,
        num(4, 4),
        sp,
        time_of_day,
        sp,
        tag_no_case("GMT"),
    )
        .parse(i)?;
    Ok((
        i,
        Raw {
            day_name,
            day,
            month,
            year: Year::Full(year),
            hour,
            minute,
            second,
        },
    ))
}

/// `Sunday, 06-Nov-94 08:49:37 GMT` (also with a four-digit year).
fn rfc850_date(i: &str) -> IResult<&str, Raw<'_>> {
    let year = alt((
        // Four digits first: two would match the start of four.
        num(4, 4).map(Year::Full),
        num(2, 2).map(Year::TwoDigit),
    ));
    let (i, (day_name, _, _, day, _, month, _, year, _, (hour, minute, second), _, _)) = (
        name,
        nchar(','),
        sp,
        num(1, 2),
        nchar('-'),
        name,
        nchar('-'),
        year,
        sp,
        time_of_day,
        sp,
        tag_no_case("GMT"),
    )
        .parse(i)?;
    Ok((
        i,
        Raw {
            day_name,
            day,
            month,
            year,
            hour,
            minute,
            second,
        },
    ))
}

/// `Sun Nov  6 08:49:37 1994`
fn asctime_date(i: &str) -> IResult<&str, Raw<'_>> {
    let day = alt((preceded(sp, num(1, 1)), num(1, 2)));
    let (i, (day_name, _, month, _, day, _, (hour, minute, second), _, year)) =
        (name, sp, name, sp, day, sp, time_of_day, sp, num(4, 4)).parse(i)?;
    Ok((
        i,
        Raw {
            day_name,
            day,
            month,
            year: Year::Full(year),
            hour,
            minute,
            second,
        },
    ))
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (Hinnant), for `days >= 0`.
fn civil_from_days(days: u64) -> (u64, u32, u32) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // All three are small: day <= 31, month <= 12.
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

fn year_of(t: Timestamp) -> i64 {
    // At most ~5.8e8: fits an i64.
    civil_from_days(t.0 / MS_PER_DAY).0 as i64
}

/// Reads a two-digit year: with `now`, the year within [now-49, now+50]
/// ending in those digits (RFC 9110); without, the 1970 pivot.
fn full_year(year: Year, now: Option<Timestamp>) -> i64 {
    match (year, now) {
        (Year::Full(y), _) => i64::from(y),
        (Year::TwoDigit(yy), None) if yy >= 70 => 1900 + i64::from(yy),
        (Year::TwoDigit(yy), None) => 2000 + i64::from(yy),
        (Year::TwoDigit(yy), Some(now)) => {
            let now_year = year_of(now);
            let mut y = now_year - now_year.rem_euclid(100) + i64::from(yy);
            if y > now_year + 50 {
                y -= 100;
            } else if y <= now_year - 50 {
                y += 100;
            }
            y
        }
    }
}

fn parse(s: &str, now: Option<Timestamp>) -> Result<Timestamp, HttpDateError> {
    let s = s.trim_matches([' ', '\t']);
    if s.is_empty() {
        return Err(HttpDateError::Empty);
    }
    let (_, raw) = all_consuming(alt((imf_fixdate, rfc850_date, asctime_date)))
        .parse(s)
        .map_err(|_| HttpDateError::Syntax)?;
    let known_day = DAYS_SHORT
        .iter()
        .chain(DAYS_LONG.iter())
        .any(|d| d.eq_ignore_ascii_case(raw.day_name));
    if !known_day {
        return Err(HttpDateError::UnknownDayName);
    }
    let month = MONTHS
        .iter()
        .position(|m| m.eq_ignore_ascii_case(raw.month))
        .ok_or(HttpDateError::UnknownMonth)? as u32
        + 1;
    let year = full_year(raw.year, now);
    if raw.day == 0 || raw.day > days_in_month(year, month) {
        return Err(HttpDateError::InvalidDay);
    }
    if raw.hour > 23 || raw.minute > 59 || raw.second > 60 {
        return Err(HttpDateError::InvalidTime);
    }
    let days = days_from_civil(year, month, raw.day);
    let secs = days * 86_400
        + i64::from(raw.hour) * 3_600
        + i64::from(raw.minute) * 60
        + i64::from(raw.second);
    // Years are at most 4 digits (9999 < 2^38 s), so nothing here overflows.
    let secs = u64::try_from(secs).map_err(|_| HttpDateError::BeforeEpoch)?;
    Ok(Timestamp::from_secs(secs))
}

/// Parses an HTTP-date in any of its three formats. A two-digit RFC 850
/// year `70`-`99` is 19xx, `00`-`69` is 20xx (see the module docs).
pub fn parse_http_date(s: &str) -> Result<Timestamp, HttpDateError> {
    parse(s, None)
}

/// Like [`parse_http_date`], but reads a two-digit RFC 850 year with RFC
/// 9110's rule: never more than 50 years after `now`.
pub fn parse_http_date_relative_to(s: &str, now: Timestamp) -> Result<Timestamp, HttpDateError> {
    parse(s, Some(now))
}

/// Writes `t` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// dropping milliseconds.
///
/// Fails with [`fmt::Error`] when the writer does, or when `t` is after the
/// year 9999, which IMF-fixdate's four-digit year cannot express.
pub fn format_http_date(t: Timestamp, out: &mut impl fmt::Write) -> fmt::Result {
    let days = t.0 / MS_PER_DAY;
    let ms_of_day = t.0 % MS_PER_DAY;
    let (year, month, day) = civil_from_days(days);
    if year > 9999 {
        return Err(fmt::Error);
    }
    // 1970-01-01 was a Thursday (index 3 from Monday).
    let weekday = DAYS_SHORT[((days + 3) % 7) as usize];
    let month_name = MONTHS[(month as usize).saturating_sub(1) % 12];
    let secs = ms_of_day / 1000;
    write!(
        out,
        "{weekday}, {day:02} {month_name} {year:04} {:02}:{:02}:{:02} GMT",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::string::String;

    /// 1994-11-06T08:49:37Z, RFC 9110's example instant.
    const EXAMPLE: Timestamp = Timestamp::from_secs(784_111_777);

    #[test]
    fn three_formats_of_rfc_9110_example() {
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Ok(EXAMPLE)
        );
        assert_eq!(
            parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"),
            Ok(EXAMPLE)
        );
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Ok(EXAMPLE));
    }

    #[test]
    fn lenient_forms() {
        assert_eq!(
            parse_http_date("sun, 06 nov 1994 08:49:37 gmt"),
            Ok(EXAMPLE)
        );
        assert_eq!(parse_http_date("Sun, 6 Nov 1994 08:49:37 GMT"), Ok(EXAMPLE));
        assert_eq!(parse_http_date("Sun Nov 06 08:49:37 1994"), Ok(EXAMPLE));
        assert_eq!(parse_http_date("Sun Nov 6 08:49:37 1994"), Ok(EXAMPLE));
        assert_eq!(
            parse_http_date("Sunday, 06-Nov-1994 08:49:37 GMT"),
            Ok(EXAMPLE)
        );
        assert_eq!(
            parse_http_date(" \tSun, 06 Nov 1994 08:49:37 GMT\t "),
            Ok(EXAMPLE)
        );
        // A long name in IMF-fixdate, a short one in RFC 850.
        assert_eq!(
            parse_http_date("Sunday, 06 Nov 1994 08:49:37 GMT"),
            Ok(EXAMPLE)
        );
        assert_eq!(parse_http_date("Sun, 06-Nov-94 08:49:37 GMT"), Ok(EXAMPLE));
    }

    #[test]
    fn weekday_name_is_not_checked_against_the_date() {
        // 23 May 2026 is a Saturday; section 12.5 calls it Mon and Sun.
        let sat = parse_http_date("Sat, 23 May 2026 00:00:00 GMT").unwrap();
        assert_eq!(sat, Timestamp::from_secs(1_779_494_400));
        assert_eq!(parse_http_date("Mon, 23 May 2026 00:00:00 GMT"), Ok(sat));
        assert_eq!(parse_http_date("Sun, 23 May 2026 00:00:00 GMT"), Ok(sat));
        let mut s = String::new();
        format_http_date(sat, &mut s).unwrap();
        assert_eq!(s, "Sat, 23 May 2026 00:00:00 GMT");
    }

    #[test]
    fn two_digit_years() {
        let t = |s| parse_http_date(s).unwrap();
        assert_eq!(t("Thursday, 01-Jan-70 00:00:00 GMT"), Timestamp(0));
        assert_eq!(
            t("Friday, 31-Dec-69 00:00:00 GMT"),
            t("Fri, 31 Dec 2069 00:00:00 GMT")
        );
        let now = t("Sat, 23 May 2026 00:00:00 GMT");
        let rel = |s| parse_http_date_relative_to(s, now).unwrap();
        // 2076 is exactly 50 years ahead: kept; 2077 is more: 1977.
        assert_eq!(
            rel("Sunday, 01-Jan-76 00:00:00 GMT"),
            t("Wed, 01 Jan 2076 00:00:00 GMT")
        );
        assert_eq!(
            rel("Sunday, 01-Jan-77 00:00:00 GMT"),
            t("Sat, 01 Jan 1977 00:00:00 GMT")
        );
        assert_eq!(
            rel("Sunday, 01-Jan-26 00:00:00 GMT"),
            t("Thu, 01 Jan 2026 00:00:00 GMT")
        );
        // Near the end of a century, small digits are the next century.
        let late = t("Sat, 01 Jan 2080 00:00:00 GMT");
        assert_eq!(
            parse_http_date_relative_to("Monday, 01-Jan-01 00:00:00 GMT", late),
            parse_http_date("Mon, 01 Jan 2101 00:00:00 GMT")
        );
        assert_eq!(
            parse_http_date_relative_to("Monday, 01-Jan-50 00:00:00 GMT", Timestamp(0)),
            Err(HttpDateError::BeforeEpoch)
        );
    }

    #[test]
    fn ranges_are_validated() {
        use HttpDateError::*;
        assert_eq!(
            parse_http_date("Sun, 30 Feb 2026 00:00:00 GMT"),
            Err(InvalidDay)
        );
        assert_eq!(
            parse_http_date("Sun, 29 Feb 2025 00:00:00 GMT"),
            Err(InvalidDay)
        );
        assert!(parse_http_date("Thu, 29 Feb 2024 00:00:00 GMT").is_ok());
        assert_eq!(
            parse_http_date("Sun, 29 Feb 2100 00:00:00 GMT"),
            Err(InvalidDay)
        );
        assert!(parse_http_date("Tue, 29 Feb 2000 00:00:00 GMT").is_ok());
        assert_eq!(
            parse_http_date("Sun, 31 Apr 2026 00:00:00 GMT"),
            Err(InvalidDay)
        );
        assert_eq!(
            parse_http_date("Sun, 00 Apr 2026 00:00:00 GMT"),
            Err(InvalidDay)
        );
        assert_eq!(
            parse_http_date("Sun, 01 Apr 2026 24:00:00 GMT"),
            Err(InvalidTime)
        );
        assert_eq!(
            parse_http_date("Sun, 01 Apr 2026 00:60:00 GMT"),
            Err(InvalidTime)
        );
        assert_eq!(
            parse_http_date("Sun, 01 Apr 2026 00:00:61 GMT"),
            Err(InvalidTime)
        );
        assert_eq!(
            parse_http_date("Wed, 31 Dec 2025 23:59:60 GMT"),
            parse_http_date("Thu, 01 Jan 2026 00:00:00 GMT"),
            "leap second"
        );
        assert_eq!(
            parse_http_date("Sun, 01 Foo 2026 00:00:00 GMT"),
            Err(UnknownMonth)
        );
        assert_eq!(
            parse_http_date("Xyz, 01 Apr 2026 00:00:00 GMT"),
            Err(UnknownDayName)
        );
        assert_eq!(
            parse_http_date("Wed, 31 Dec 1969 23:59:59 GMT"),
            Err(BeforeEpoch)
        );
        assert_eq!(
            parse_http_date("Mon, 01 Jan 0000 00:00:00 GMT"),
            Err(BeforeEpoch)
        );
    }

    #[test]
    fn malformed() {
        use HttpDateError::*;
        for bad in [
            "Sun, 06 Nov 1994 08:49:37",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun,06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06  Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-994 08:49:37 GMT",
            "Sun Nov  6 08:49:37 94",
            "1994-11-06T08:49:37Z",
            "Sun, 06 Nov 1994 08:49:37 GMT (past)",
            "120",
            "Sun, 06 Nov 1994 08:49:37 GMTé",
        ] {
            assert_eq!(parse_http_date(bad), Err(Syntax), "{bad}");
        }
        assert_eq!(parse_http_date(""), Err(Empty));
        assert_eq!(parse_http_date(" \t "), Err(Empty));
    }

    #[test]
    fn civil_arithmetic_round_trips() {
        // Every day from 1970 to beyond 9999, sampled.
        let mut days = 0u64;
        while days < 3_000_000 {
            let (y, m, d) = civil_from_days(days);
            assert!((1..=12).contains(&m) && d >= 1 && d <= days_in_month(y as i64, m));
            assert_eq!(days_from_civil(y as i64, m, d), days as i64);
            days += 97;
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn format_round_trips() {
        for t in [
            0u64,
            784_111_777_000,
            1_779_494_430_999,
            253_402_300_799_000,
        ] {
            let mut s = String::new();
            format_http_date(Timestamp(t), &mut s).unwrap();
            assert_eq!(parse_http_date(&s), Ok(Timestamp(t / 1000 * 1000)), "{s}");
        }
        let mut s = String::new();
        format_http_date(Timestamp(784_111_777_000), &mut s).unwrap();
        assert_eq!(s, "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(
            format_http_date(Timestamp(253_402_300_800_000), &mut String::new()),
            Err(fmt::Error),
            "year 10000"
        );
        assert_eq!(
            format_http_date(Timestamp(u64::MAX), &mut String::new()),
            Err(fmt::Error)
        );
    }
}
