//! robots.txt: parsing, group selection, path matching and Crawl-delay (R2).
//!
//! The pipeline is a stream: [`lexer`] turns bytes into lines and
//! directives, `group` turns directives into group events, and a sink
//! keeps what it needs. [`Robots`] keeps every group (for inspection and for
//! evaluating any product token later); [`Policy`] keeps only the rules
//! selected for one token, sorted so that the first match decides; the
//! `heapless` feature's `fixed::FixedPolicy` does the same in fixed
//! capacity with no allocator.
//!
//! The strictest reading wins. Where the spec speaks, its text is the
//! contract; where its text leaves room (how many characters an expanded
//! `*` "consumed") or is silent (typos, percent-encoding of reserved
//! octets), faithful readings differ. Every [`Reading`] is evaluated in one
//! pass, and a path is allowed only if each allows it: R2c permits
//! over-blocking and forbids under-blocking, so ambiguity resolves toward
//! "no". The lexer reads each line in the spec's grammar and in Google's
//! tolerant one, and the selector groups the lines both ways, so that one
//! parse serves every reading. See `docs/conformance.md`.

pub mod agent;
mod eval;
#[cfg(feature = "heapless")]
pub mod fixed;
pub(crate) mod group;
pub mod lexer;
pub mod matcher;
#[cfg(feature = "alloc")]
mod model;
pub mod signals;
pub mod variant;

pub use variant::Variant;

pub(crate) use eval::{decide, decide_form, Form, Head, Key, RuleSet, RuleView};
#[cfg(feature = "alloc")]
pub(crate) use eval::{decide_scanned, star_need_at, Scan};

#[cfg(feature = "alloc")]
pub use model::{Group, Policy, Robots, Selected};

use crate::constants::ROBOTS_MAX_BYTES;
use core::time::Duration;

/// Whether a rule permits or forbids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RuleKind {
    /// `Allow:`
    Allow,
    /// `Disallow:`
    Disallow,
}

impl RuleKind {
    /// The field name as robots.txt writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Allow => "Allow",
            RuleKind::Disallow => "Disallow",
        }
    }
}

/// A Crawl-delay value (R2d): the minimum spacing between two requests to
/// the host, fractional seconds allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CrawlDelay(pub Duration);

/// Longest Crawl-delay taken at face value: a year. Larger numbers are
/// clamped, not ignored: whoever wrote them wants us to stay away.
pub const MAX_CRAWL_DELAY: Duration = Duration::from_secs(365 * 86_400);

impl CrawlDelay {
    /// Parses a Crawl-delay value: decimal seconds such as `2`, `0.5`, `10.`.
    /// Anything else (`soon`, `-1`, `1e3`, empty) is ignored, as R2d asks.
    pub fn parse(value: &[u8]) -> Option<CrawlDelay> {
        use nom::bytes::complete::take_while;
        use nom::character::complete::char as nchar;
        use nom::combinator::{all_consuming, opt};
        use nom::Parser;
        fn digits(i: &[u8]) -> nom::IResult<&[u8], &[u8]> {
            take_while(|b: u8| b.is_ascii_digit())(i)
        }
        let (_, (int, frac)) = all_consuming((
            digits,
            opt((nchar::<&[u8], nom::error::Error<&[u8]>>('.'), digits)),
        ))
        .parse(value)
        .ok()?;
        let frac = frac.map(|(_, f)| f).unwrap_or_default();
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let mut secs: u64 = 0;
        for &d in int {
            secs = secs.saturating_mul(10).saturating_add(u64::from(d - b'0'));
        }
        let mut nanos: u64 = 0;
        let mut scale: u64 = 100_000_000;
        for &d in frac.iter().take(9) {
            nanos += u64::from(d - b'0') * scale;
            scale /= 10;
        }
        let d = Duration::new(secs.min(MAX_CRAWL_DELAY.as_secs()), nanos as u32);
        Some(CrawlDelay(d.min(MAX_CRAWL_DELAY)))
    }
}

/// The rule that decided a [`Verdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchedRule<'a> {
    /// Allow or Disallow.
    pub kind: RuleKind,
    /// The rule value as written in the file (in fixed-capacity mode, as
    /// normalised), octets as they came.
    pub pattern: &'a [u8],
    /// 1-based line number in the robots.txt body.
    pub line: u32,
}

/// Whether a path may be fetched, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// `true` when the path may be fetched.
    pub allowed: bool,
    /// The deciding rule; `None` when no rule matched (allowed).
    pub rule: Option<MatchedRule<'a>>,
    /// The reading whose verdict this is: the first that denied, or the
    /// spec's when every reading allowed.
    pub reading: Reading,
    /// Set when the answer is a deliberate over-block because a fixed
    /// capacity was exceeded (never set by the allocating model).
    pub overflow: bool,
    /// How the file was read when it denied: [`Variant::BASE`] but for the
    /// few files another reading of whose text denies (issue #18).
    pub variant: Variant,
}

/// The readings of a robots.txt whose verdicts must all allow a path before
/// it is fetched ("the strictest reading wins", `docs/conformance.md`).
///
/// Each is a faithful reading of the same file: the spec's own algorithm
/// (sections 9.1.2-9.1.4, with every ambiguity read the strict way), the
/// spec's algorithm with RFC 9309's precedence and percent-encoding, and
/// Google's reference parser where it tolerates what the spec's grammar does
/// not. R2c allows over-blocking and forbids under-blocking, so a path one
/// of them denies is denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Reading {
    /// The spec's text: 9.1.2 grouping (Crawl-delay is a rule line), 9.1.3
    /// prefix selection, exact field names, unreserved octets decoded, and
    /// "an expanded * counts as the characters it consumed" (a Disallow its
    /// longest possible match, an Allow its shortest).
    Spec,
    /// The spec's groups with RFC 9309's precedence (the pattern's octets)
    /// and its §2.2.2 percent-encoding table.
    Rfc9309,
    /// Google's reference parser where it adds tolerance: field-name typos
    /// and missing colons (never for an Allow), Crawl-delay not closing a
    /// run of User-agent lines, the agent cut at its first non-letter, and
    /// request paths compared as sent.
    Google,
}

impl Reading {
    /// Every reading, in the order a denial is reported.
    pub const ALL: [Reading; 3] = [Reading::Spec, Reading::Rfc9309, Reading::Google];

    /// A stable key for machine-readable output.
    pub fn key(self) -> &'static str {
        match self {
            Reading::Spec => "spec",
            Reading::Rfc9309 => "rfc9309",
            Reading::Google => "google",
        }
    }
}

/// A rule belongs to the groups the spec's selection chose (the spec's and
/// RFC 9309's readings).
pub(crate) const IN_SPEC: u8 = 1;
/// A rule belongs to the groups Google's selection chose.
pub(crate) const IN_GOOGLE: u8 = 2;

/// What is read of a body: the whole lines within [`ROBOTS_MAX_BYTES`],
/// the start of a line straddling the limit (if any), and whether anything
/// was cut off.
pub(crate) struct Limited<'a> {
    pub head: &'a [u8],
    pub tail: Option<&'a [u8]>,
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub truncated: bool,
}

/// Cuts a body to [`ROBOTS_MAX_BYTES`]. The line straddling the limit is
/// kept apart: only a Disallow may use it (see `group::events`), since a
/// cut Allow would permit more than its author wrote, while a cut Disallow
/// still denies at least what the whole one denied.
pub(crate) fn limit(body: &[u8]) -> Limited<'_> {
    if body.len() <= ROBOTS_MAX_BYTES {
        return Limited {
            head: body,
            tail: None,
            truncated: false,
        };
    }
    let head = &body[..ROBOTS_MAX_BYTES];
    let end = if matches!(body[ROBOTS_MAX_BYTES], b'\n' | b'\r') {
        ROBOTS_MAX_BYTES
    } else {
        memchr::memrchr2(b'\n', b'\r', head).map_or(0, |i| i + 1)
    };
    // Never split a UTF-8 character: the octet after the limit tells
    // whether one continues there.
    let tail = lexer::cut_at_char_boundary(&body[end..], ROBOTS_MAX_BYTES - end);
    // A CRLF split by the cut: the `\n` ends the last whole line.
    let tail = tail.strip_prefix(b"\n").unwrap_or(tail);
    Limited {
        head: &body[..end],
        tail: (!tail.is_empty()).then_some(tail),
        truncated: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawl_delay_values() {
        assert_eq!(
            CrawlDelay::parse(b"2"),
            Some(CrawlDelay(Duration::from_secs(2)))
        );
        assert_eq!(
            CrawlDelay::parse(b"0.5"),
            Some(CrawlDelay(Duration::from_millis(500)))
        );
        assert_eq!(
            CrawlDelay::parse(b".25"),
            Some(CrawlDelay(Duration::from_millis(250)))
        );
        assert_eq!(
            CrawlDelay::parse(b"10."),
            Some(CrawlDelay(Duration::from_secs(10)))
        );
        assert_eq!(
            CrawlDelay::parse(b"99999999999999999999999"),
            Some(CrawlDelay(MAX_CRAWL_DELAY))
        );
        for junk in [&b"soon"[..], b"-1", b"1e3", b"", b".", b"1.2.3", b"5s"] {
            assert_eq!(CrawlDelay::parse(junk), None, "{junk:?}");
        }
    }
}
