//! ISO-8601 durations, as the blocklist's `refresh` field carries them.
//!
//! R3 says the blocklist cache lifetime is "dictated by the data": the
//! document's `refresh` is an ISO-8601 duration (section 6 default `PT6H`,
//! section 12.6 vectors). A TTL has to be an exact length of time, so only
//! each designator is given one length:
//!
//! ```text
//! duration = "P" [n "Y"] [n "M"] [n "W"] [n "D"]
//!                ["T" [n "H"] [n "M"] [n ["." / "," digits] "S"]]
//! ```
//!
//! * Years (`Y`) and months (`M` before `T`) have no fixed length, and a
//!   schema-valid document may carry them (`P1M`). Refusing such a document
//!   whole left a fresh install with no list at all, so they are read at
//!   their **shortest** calendar length, a year 365 days and a month 28:
//!   a cache lifetime is a bound on how stale an opt-out list may get, and
//!   the shortest reading never keeps a list longer than any reading of what
//!   the operator wrote (R3, R10: the strict reading).
//! * Weeks may be combined with days (`P1W2D`, ISO 8601-1:2019), a harmless
//!   extension of the 2004 "weeks stand alone" rule.
//! * Only seconds may be fractional (`PT1.5S`); `.` and `,` both separate
//!   the fraction. Digits beyond nanoseconds are truncated.
//! * Designators are upper case and no whitespace or sign is allowed: the
//!   value comes from a schema-validated JSON document, not from a human.
//! * At least one component is required (`P`, `PT`, `P1DT` are errors), and
//!   components must appear in the order above, each at most once.
//! * Totals that do not fit a [`Duration`] are an error, never a panic.

use core::time::Duration;

use nom::bytes::complete::take_while1;
use nom::character::complete::{one_of, satisfy};
use nom::combinator::opt;
use nom::{IResult, Parser};

/// Why a string is not a duration this crate accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// The input is empty.
    #[error("empty duration")]
    Empty,
    /// The input does not start with `P`.
    #[error("an ISO-8601 duration starts with 'P'")]
    MissingP,
    /// `P` (or `T`) is not followed by any component.
    #[error("'P' or 'T' must be followed by at least one component")]
    NoComponents,
    /// A fraction on a component other than seconds.
    #[error("only the seconds (S) component may have a fraction")]
    FractionNotSeconds,
    /// A component out of order, repeated, or in the wrong half (`PT1D`).
    #[error("component at byte {offset} is repeated, out of order (expected Y, M, W, D, T, H, M, S) or on the wrong side of T")]
    Order {
        /// Byte offset of the offending component.
        offset: usize,
    },
    /// Something that is not `<digits><designator>` at `offset`.
    #[error("expected <digits><designator> at byte {offset} (designators Y M W D H M S)")]
    Syntax {
        /// Byte offset of the first unexpected character.
        offset: usize,
    },
    /// The total does not fit a `Duration`.
    #[error("duration too large")]
    Overflow,
}

/// One `<digits>[<fraction>]<designator>` component, borrowed.
struct Component<'a> {
    whole: &'a str,
    fraction: Option<&'a str>,
    designator: char,
}

fn digits(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_digit()).parse(i)
}

fn component(i: &str) -> IResult<&str, Component<'_>> {
    let (i, whole) = digits(i)?;
    let (i, fraction) = opt((one_of(".,"), digits)).parse(i)?;
    let (i, designator) = satisfy(|c| c.is_ascii_uppercase()).parse(i)?;
    Ok((
        i,
        Component {
            whole,
            fraction: fraction.map(|(_, f)| f),
            designator,
        },
    ))
}

/// `digits` as a `u64`, or `None` when it does not fit.
fn to_u64(digits: &str) -> Option<u64> {
    digits.bytes().try_fold(0u64, |acc, b| {
        acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })
}

/// The first nine fraction digits as nanoseconds (the rest truncated).
fn fraction_nanos(frac: &str) -> u32 {
    let mut nanos = 0u32;
    let mut scale = 100_000_000u32;
    for b in frac.bytes().take(9) {
        nanos += u32::from(b - b'0') * scale;
        scale /= 10;
    }
    nanos
}

/// Parses an ISO-8601 duration (see the module docs): `PT6H`, `PT30M`,
/// `P1D`, `PT1H30M`, `P1W`, `PT1.5S`, and `P1M` as 28 days, `P1Y` as 365.
///
/// ```
/// use core::time::Duration;
/// use wr_core::duration::parse_duration;
/// assert_eq!(parse_duration("PT1H30M"), Ok(Duration::from_secs(5_400)));
/// assert_eq!(parse_duration("P1D"), Ok(Duration::from_secs(86_400)));
/// assert!(parse_duration("1 hour").is_err());
/// ```
pub fn parse_duration(s: &str) -> Result<Duration, DurationError> {
    if s.is_empty() {
        return Err(DurationError::Empty);
    }
    let mut rest = s.strip_prefix('P').ok_or(DurationError::MissingP)?;
    let offset = |rest: &str| s.len() - rest.len();

    // Rank of the last component seen; each must rank strictly higher.
    // Y=0 M=1 W=2 D=3 | T | H=4 M=5 S=6.
    let mut last_rank: Option<u8> = None;
    let mut in_time = false;
    let mut time_components = 0usize;
    let mut total_secs: u64 = 0;
    let mut nanos: u32 = 0;
    let mut any = false;

    while !rest.is_empty() {
        if let Some(after_t) = rest.strip_prefix('T') {
            if in_time {
                return Err(DurationError::Order {
                    offset: offset(rest),
                });
            }
            in_time = true;
            rest = after_t;
            continue;
        }
        let at = offset(rest);
        let (after, c) = component(rest).map_err(|_| DurationError::Syntax { offset: at })?;
        let (rank, unit_secs) = match (c.designator, in_time) {
            ('Y', false) => (0u8, 365 * 86_400u64),
            ('M', false) => (1, 28 * 86_400),
            ('W', false) => (2, 604_800),
            ('D', false) => (3, 86_400),
            ('H', true) => (4, 3_600),
            ('M', true) => (5, 60),
            ('S', true) => (6, 1),
            ('Y' | 'W' | 'D' | 'H' | 'S', _) => return Err(DurationError::Order { offset: at }),
            // Any other upper-case letter is not a designator at all.
            _ => {
                return Err(DurationError::Syntax {
                    offset: offset(after).saturating_sub(1),
                })
            }
        };
        if last_rank.is_some_and(|r| r >= rank) {
            return Err(DurationError::Order { offset: at });
        }
        if c.fraction.is_some() && c.designator != 'S' {
            return Err(DurationError::FractionNotSeconds);
        }
        let n = to_u64(c.whole).ok_or(DurationError::Overflow)?;
        let secs = n.checked_mul(unit_secs).ok_or(DurationError::Overflow)?;
        total_secs = total_secs
            .checked_add(secs)
            .ok_or(DurationError::Overflow)?;
        if let Some(frac) = c.fraction {
            nanos = fraction_nanos(frac);
        }
        last_rank = Some(rank);
        any = true;
        if in_time {
            time_components += 1;
        }
        rest = after;
    }
    if !any || (in_time && time_components == 0) {
        return Err(DurationError::NoComponents);
    }
    Ok(Duration::new(total_secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(s: &str) -> u128 {
        parse_duration(s).unwrap().as_millis()
    }

    #[test]
    fn section_12_6_vectors() {
        assert_eq!(ms("PT6H"), 21_600_000);
        assert_eq!(ms("PT30M"), 1_800_000);
        assert_eq!(ms("P1D"), 86_400_000);
        assert_eq!(ms("PT1H30M"), 5_400_000);
    }

    #[test]
    fn fixed_length_units() {
        assert_eq!(ms("P1W"), 604_800_000);
        assert_eq!(ms("P1W2D"), 777_600_000);
        assert_eq!(ms("P1DT1H1M1S"), 90_061_000);
        assert_eq!(ms("PT0S"), 0);
        assert_eq!(ms("PT90M"), 5_400_000);
        assert_eq!(ms("P007D"), 604_800_000);
    }

    #[test]
    fn fractional_seconds() {
        assert_eq!(parse_duration("PT1.5S"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("PT0,25S"), Ok(Duration::from_millis(250)));
        assert_eq!(
            parse_duration("PT1.0000000019S"),
            Ok(Duration::new(1, 1)),
            "digits beyond nanoseconds are truncated"
        );
        assert_eq!(
            parse_duration("PT1.5H"),
            Err(DurationError::FractionNotSeconds)
        );
        assert_eq!(
            parse_duration("PT1.S"),
            Err(DurationError::Syntax { offset: 2 })
        );
        assert_eq!(
            parse_duration("PT.5S"),
            Err(DurationError::Syntax { offset: 2 })
        );
    }

    #[test]
    fn calendar_units_take_their_shortest_length() {
        const DAY: u128 = 86_400_000;
        assert_eq!(ms("P1Y"), 365 * DAY);
        assert_eq!(ms("P1M"), 28 * DAY);
        assert_eq!(ms("P1Y2M3D"), (365 + 56 + 3) * DAY);
        assert_eq!(ms("P1MT1M"), 28 * DAY + 60_000);
        assert_eq!(
            parse_duration("PT1Y"),
            Err(DurationError::Order { offset: 2 })
        );
        assert_eq!(
            parse_duration("P1M1Y"),
            Err(DurationError::Order { offset: 3 })
        );
    }

    #[test]
    fn malformed() {
        assert_eq!(parse_duration(""), Err(DurationError::Empty));
        assert_eq!(parse_duration("6H"), Err(DurationError::MissingP));
        assert_eq!(parse_duration("pt6h"), Err(DurationError::MissingP));
        assert_eq!(parse_duration("P"), Err(DurationError::NoComponents));
        assert_eq!(parse_duration("PT"), Err(DurationError::NoComponents));
        assert_eq!(parse_duration("P1DT"), Err(DurationError::NoComponents));
        assert_eq!(
            parse_duration("PT6"),
            Err(DurationError::Syntax { offset: 2 })
        );
        assert_eq!(
            parse_duration("PT6h"),
            Err(DurationError::Syntax { offset: 2 })
        );
        assert_eq!(
            parse_duration("PT6X"),
            Err(DurationError::Syntax { offset: 3 })
        );
        assert_eq!(parse_duration(" PT6H"), Err(DurationError::MissingP));
        assert_eq!(
            parse_duration("PT6H "),
            Err(DurationError::Syntax { offset: 4 })
        );
        assert_eq!(
            parse_duration("P-1D"),
            Err(DurationError::Syntax { offset: 1 })
        );
        assert_eq!(
            parse_duration("PT1H1H"),
            Err(DurationError::Order { offset: 4 })
        );
        assert_eq!(
            parse_duration("PT1M1H"),
            Err(DurationError::Order { offset: 4 })
        );
        assert_eq!(
            parse_duration("P1D1W"),
            Err(DurationError::Order { offset: 3 })
        );
        assert_eq!(
            parse_duration("PT1D"),
            Err(DurationError::Order { offset: 2 })
        );
        assert_eq!(
            parse_duration("P1H"),
            Err(DurationError::Order { offset: 1 })
        );
        assert_eq!(
            parse_duration("P1DTT1H"),
            Err(DurationError::Order { offset: 4 })
        );
        assert_eq!(
            parse_duration("PT1Hé"),
            Err(DurationError::Syntax { offset: 4 })
        );
    }

    #[test]
    fn overflow_is_an_error() {
        assert_eq!(
            parse_duration("PT99999999999999999999S"),
            Err(DurationError::Overflow)
        );
        assert_eq!(
            parse_duration("P99999999999999999W"),
            Err(DurationError::Overflow)
        );
        assert_eq!(
            parse_duration("P1DT18446744073709551615S"),
            Err(DurationError::Overflow)
        );
        assert_eq!(
            parse_duration("PT18446744073709551615.999999999S"),
            Ok(Duration::MAX)
        );
    }

    #[test]
    fn errors_say_what_was_wrong() {
        extern crate std;
        use std::string::ToString;
        assert!(DurationError::Syntax { offset: 3 }
            .to_string()
            .contains("byte 3"));
    }
}
