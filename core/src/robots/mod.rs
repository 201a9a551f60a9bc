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

/// The first literal octets of a pattern (up to 7, before any `*` and a
/// final `$`) and their count in the top octet; or the same of a subject.
/// A pattern can only match a subject that starts with its key, so one
/// integer comparison rejects almost every rule of a large file before the
/// matcher (and the arena) is touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(u64);

impl Key {
    const MAX: usize = 7;

    fn from_octets(octets: impl Iterator<Item = u8>) -> Key {
        let mut k = 0u64;
        let mut n = 0u64;
        for b in octets.take(Key::MAX) {
            k |= u64::from(b) << (8 * n);
            n += 1;
        }
        Key(k | n << 56)
    }

    /// The key of a pattern as the matcher reads it.
    pub(crate) fn of_pattern(pattern: &[u8]) -> Key {
        let body = match pattern.split_last() {
            Some((b'$', rest)) => rest,
            _ => pattern,
        };
        Key::from_octets(body.iter().copied().take_while(|&b| b != b'*'))
    }

    /// Whether a pattern with this key may match a subject whose first
    /// octets are `head` (a necessary condition, never a sufficient one).
    #[inline]
    fn admits(self, head: Key) -> bool {
        let n = self.0 >> 56;
        let mask = (1u64 << (8 * n)) - 1;
        n <= head.0 >> 56 && (self.0 ^ head.0) & mask == 0
    }
}

/// The rules of a model as the evaluator sees them, in the model's order.
pub(crate) trait RuleSet<'a>: Copy {
    /// Whether a request target too long for the stack copy may be copied
    /// to the heap (see [`best_in_view`]); models without an allocator say
    /// no and match such a target on the lazy view.
    #[cfg(feature = "alloc")]
    const HEAP_COPY: bool = false;

    /// Number of rules.
    fn len(self) -> usize;
    /// Whether rule `i`'s pattern in the spec's (or Google's) reading may
    /// match a subject starting with `head`.
    fn admits(self, i: usize, google: bool, head: Key) -> bool;
    /// Rule `i`.
    fn view(self, i: usize) -> RuleView<'a>;
}

fn best_match<'a, R: RuleSet<'a>, S: matcher::Subject>(
    rules: R,
    subject: S,
    head: Key,
    sorted: bool,
    google: bool,
) -> Option<RuleView<'a>> {
    let mut best: Option<(usize, RuleView<'a>)> = None;
    for i in 0..rules.len() {
        if !rules.admits(i, google, head) {
            continue;
        }
        let r = rules.view(i);
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

/// Normalised subjects up to this many octets are matched from a copy on
/// the stack, where the matcher's SIMD searches apply.
const SMALL_SUBJECT: usize = 256;

/// [`best_match`] on a normalised view of the request target. Matching the
/// view octet by octet costs up to O(path × segment) per `*` segment; a
/// copy makes it linear. `SCRATCH` bounds the stack the copy may take;
/// longer targets are copied to the heap when the model allows it, else
/// matched on the view itself.
fn best_in_view<'a, R: RuleSet<'a>, const SCRATCH: usize>(
    rules: R,
    view: percent::Normalized<'_>,
    sorted: bool,
    google: bool,
) -> Option<RuleView<'a>> {
    let mut len = 0usize;
    let mut probe = view;
    while probe.next_byte().is_some() {
        len += 1;
    }
    if len <= SMALL_SUBJECT {
        let mut buf = [0u8; SMALL_SUBJECT];
        best_in_copy(rules, view, &mut buf[..len], sorted, google)
    } else if len <= SCRATCH {
        best_in_large_copy::<R, SCRATCH>(rules, view, len, sorted, google)
    } else {
        // A target this long is rare and costs a pass over every rule
        // anyway: one allocation is cheaper than the view's rescans.
        #[cfg(feature = "alloc")]
        if R::HEAP_COPY {
            let mut buf = alloc::vec![0u8; len];
            return best_in_copy(rules, view, &mut buf, sorted, google);
        }
        let head = Key::from_octets(core::iter::from_fn({
            let mut v = view;
            move || v.next_byte()
        }));
        best_match(rules, view, head, sorted, google)
    }
}

// Kept out of line so that the common, short targets do not pay for a
// large stack frame.
#[inline(never)]
fn best_in_large_copy<'a, R: RuleSet<'a>, const SCRATCH: usize>(
    rules: R,
    view: percent::Normalized<'_>,
    len: usize,
    sorted: bool,
    google: bool,
) -> Option<RuleView<'a>> {
    let mut buf = [0u8; SCRATCH];
    best_in_copy(rules, view, &mut buf[..len], sorted, google)
}

fn best_in_copy<'a, R: RuleSet<'a>>(
    rules: R,
    mut view: percent::Normalized<'_>,
    buf: &mut [u8],
    sorted: bool,
    google: bool,
) -> Option<RuleView<'a>> {
    for slot in buf.iter_mut() {
        *slot = view.next_byte().unwrap_or_default();
    }
    let subject: &[u8] = buf;
    best_match(rules, subject, head_of(subject), sorted, google)
}

fn head_of(subject: &[u8]) -> Key {
    Key::from_octets(subject.iter().copied())
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
/// form differs from its canonical form. `SCRATCH`: the most stack a
/// request target that needs normalising may take (see [`best_in_view`]).
pub(crate) fn decide<'a, R: RuleSet<'a>, const SCRATCH: usize>(
    rules: R,
    path_and_query: &[u8],
    sorted: bool,
    has_alt: bool,
) -> Verdict<'a> {
    let rooted = path_and_query.first() == Some(&b'/');
    let canonical = rooted && percent::is_canonical(path_and_query);
    let spec = if canonical {
        best_match(
            rules,
            path_and_query,
            head_of(path_and_query),
            sorted,
            false,
        )
    } else if rooted {
        best_in_view::<R, SCRATCH>(
            rules,
            percent::Normalized::new(path_and_query),
            sorted,
            false,
        )
    } else {
        best_in_view::<R, SCRATCH>(
            rules,
            percent::Normalized::with_leading_slash(path_and_query, false),
            sorted,
            false,
        )
    };
    if matches!(spec, Some(r) if r.kind == RuleKind::Disallow) || (canonical && !has_alt) {
        return verdict(spec, false);
    }
    let google = if rooted {
        best_match(rules, path_and_query, head_of(path_and_query), false, true)
    } else {
        best_in_view::<R, SCRATCH>(
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
        head.iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1)
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
    fn keys_never_reject_a_match() {
        let head = |s: &[u8]| head_of(s);
        let k = Key::of_pattern;
        // Literal octets before the first `*`, at most 7 of them.
        assert!(k(b"/abc").admits(head(b"/abcdef")));
        assert!(!k(b"/abc").admits(head(b"/abd")));
        assert!(!k(b"/abc").admits(head(b"/ab")));
        assert!(k(b"/abcdefghij").admits(head(b"/abcdefXYZ")));
        assert!(!k(b"/abcdefghij").admits(head(b"/abcdeXghij")));
        // `*` and a final `$` end the literal part; an inner `$` does not.
        assert!(k(b"*x").admits(head(b"")));
        assert!(k(b"/a*x").admits(head(b"/a")));
        assert!(k(b"/a$").admits(head(b"/a")));
        assert!(!k(b"/a$b").admits(head(b"/a")));
        assert!(k(b"/a$b").admits(head(b"/a$bc")));
        assert!(k(b"$").admits(head(b"")));
        assert!(k(b"").admits(head(b"")));
        // A NUL octet is compared, not taken for padding.
        assert!(!k(b"/\0").admits(head(b"/")));
        assert!(k(b"/\0").admits(head(b"/\0x")));
        assert!(!k(b"/").admits(head(b"")));
    }

    #[test]
    fn index_dir() {
        assert_eq!(index_dir_prefix(b"/a/index.html"), Some(3));
        assert_eq!(index_dir_prefix(b"/index.htm"), Some(1));
        assert_eq!(index_dir_prefix(b"/a/index.php"), None);
    }
}
