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
//! Where two faithful readings of the rules disagree — the spec's
//! percent-decoding of unreserved octets against Google's verbatim
//! comparison — the request is denied if either reading denies it. R2c
//! permits over-blocking and forbids under-blocking, so ambiguity resolves
//! toward "no". See `docs/conformance.md`.

pub mod agent;
#[cfg(feature = "heapless")]
pub mod fixed;
pub(crate) mod group;
pub mod lexer;
pub mod matcher;
#[cfg(feature = "alloc")]
mod model;

#[cfg(feature = "alloc")]
pub use model::{Group, Policy, Robots, Selected};

use crate::constants::ROBOTS_MAX_BYTES;
use crate::percent;
use core::fmt;
use core::time::Duration;
use matcher::matches;

/// Whether a rule permits or forbids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

impl fmt::Display for MatchedRule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.kind.as_str())?;
        for chunk in self.pattern.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("\u{FFFD}")?;
            }
        }
        write!(f, " (line {})", self.line)
    }
}

/// Whether a path may be fetched, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// `true` when the path may be fetched.
    pub allowed: bool,
    /// The deciding rule; `None` when no rule matched (allowed).
    pub rule: Option<MatchedRule<'a>>,
    /// Set when the answer is a deliberate over-block because a fixed
    /// capacity was exceeded (never set by the allocating model).
    pub overflow: bool,
}

impl fmt::Display for Verdict<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.allowed {
            "allowed"
        } else {
            "disallowed"
        })?;
        match self.rule {
            Some(r) => write!(f, " by {r}"),
            None if self.overflow => f.write_str(" (capacity exceeded: over-blocking)"),
            None => f.write_str(" (no rule matched)"),
        }
    }
}

/// One rule as the evaluator sees it, whichever model stores it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleView<'a> {
    pub kind: RuleKind,
    pub line: u32,
    pub text: &'a [u8],
    /// Canonical form (see [`percent`]).
    pub spec: &'a [u8],
    /// Google's form.
    pub google: &'a [u8],
    /// Precedence in the spec reading: octets of `spec`, or of the value
    /// before a cut when the line was too long.
    pub priority: usize,
    /// Precedence in Google's reading.
    pub google_priority: usize,
    /// A cut Disallow whose remaining pattern is empty: it matches
    /// everything (its full value would have matched something unknown).
    pub match_all: bool,
}

fn best_match<'a, S: matcher::Subject>(
    rules: impl Iterator<Item = RuleView<'a>>,
    subject: S,
    sorted: bool,
    google: bool,
) -> Option<RuleView<'a>> {
    let mut best: Option<(usize, RuleView<'a>)> = None;
    for r in rules {
        let (pattern, priority) = if google {
            (r.google, r.google_priority)
        } else {
            (r.spec, r.priority)
        };
        let hit = if r.match_all {
            true
        } else {
            priority > 0 && matches(pattern, subject)
        };
        if !hit {
            continue;
        }
        if sorted && !google {
            return Some(r);
        }
        let better = match &best {
            None => true,
            Some((p, b)) => {
                priority > *p
                    || (priority == *p && r.kind == RuleKind::Allow && b.kind != RuleKind::Allow)
            }
        };
        if better {
            best = Some((priority, r));
        }
    }
    best.map(|(_, r)| r)
}

fn verdict(rule: Option<RuleView<'_>>, overflow: bool) -> Verdict<'_> {
    Verdict {
        allowed: !matches!(rule, Some(r) if r.kind == RuleKind::Disallow),
        rule: rule.map(|r| MatchedRule {
            kind: r.kind,
            pattern: r.text,
            line: r.line,
        }),
        overflow,
    }
}

/// Decides `path_and_query` against `rules`.
///
/// `sorted`: rules come by descending spec priority, Allow before Disallow
/// on ties, so the first spec match decides. `has_alt`: some rule's Google
/// form differs from its canonical form.
pub(crate) fn decide<'a, I>(
    rules: I,
    path_and_query: &[u8],
    sorted: bool,
    has_alt: bool,
) -> Verdict<'a>
where
    I: Iterator<Item = RuleView<'a>> + Clone,
{
    let rooted = path_and_query.first() == Some(&b'/');
    let canonical = rooted && percent::is_canonical(path_and_query);
    let spec = if canonical {
        best_match(rules.clone(), path_and_query, sorted, false)
    } else if rooted {
        best_match(
            rules.clone(),
            percent::Normalized::new(path_and_query),
            sorted,
            false,
        )
    } else {
        best_match(
            rules.clone(),
            percent::Normalized::with_leading_slash(path_and_query, false),
            sorted,
            false,
        )
    };
    if matches!(spec, Some(r) if r.kind == RuleKind::Disallow) || (canonical && !has_alt) {
        return verdict(spec, false);
    }
    let google = if rooted {
        best_match(rules, path_and_query, false, true)
    } else {
        best_match(
            rules,
            percent::Normalized::with_leading_slash(path_and_query, true),
            false,
            true,
        )
    };
    if matches!(google, Some(r) if r.kind == RuleKind::Disallow) {
        return verdict(google, false);
    }
    verdict(spec, false)
}

/// Cuts a body to [`ROBOTS_MAX_BYTES`]. A line straddling the limit is
/// dropped whole: a cut Allow would permit more than its author wrote.
pub(crate) fn limit(body: &[u8]) -> (&[u8], bool) {
    if body.len() <= ROBOTS_MAX_BYTES {
        return (body, false);
    }
    let head = &body[..ROBOTS_MAX_BYTES];
    let end = if matches!(body[ROBOTS_MAX_BYTES], b'\n' | b'\r') {
        ROBOTS_MAX_BYTES
    } else {
        head.iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1)
    };
    (&body[..end], true)
}

/// Whether an Allow value names a directory index (`/dir/index.html`,
/// `/dir/index.htm...`): Google also allows the directory itself
/// (`/dir/$`). Returns the length of `/dir/`.
pub(crate) fn index_dir_prefix(value: &[u8]) -> Option<usize> {
    let slash = value.iter().rposition(|&b| b == b'/')?;
    value[slash..]
        .starts_with(b"/index.htm")
        .then_some(slash + 1)
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

    #[test]
    fn index_dir() {
        assert_eq!(index_dir_prefix(b"/a/index.html"), Some(3));
        assert_eq!(index_dir_prefix(b"/index.htm"), Some(1));
        assert_eq!(index_dir_prefix(b"/a/index.php"), None);
    }
}
