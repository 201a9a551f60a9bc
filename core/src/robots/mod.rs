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

#[cfg(feature = "alloc")]
pub use model::{Group, Policy, Robots, Selected};

use crate::constants::ROBOTS_MAX_BYTES;
use crate::percent;
use core::fmt;
use core::time::Duration;

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

impl fmt::Display for Verdict<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.allowed {
            "allowed"
        } else {
            "disallowed"
        })?;
        match self.rule {
            Some(r) if self.reading != Reading::Spec => {
                write!(f, " by {r} in {}", self.reading.as_str())?;
                if !self.variant.is_base() {
                    write!(f, " ({})", self.variant)?;
                }
                Ok(())
            }
            Some(r) if !self.variant.is_base() => {
                write!(f, " by {r} in the spec's reading ({})", self.variant)
            }
            Some(r) => write!(f, " by {r}"),
            None if self.overflow => f.write_str(" (capacity exceeded: over-blocking)"),
            None => f.write_str(" (no rule matched)"),
        }
    }
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

    /// A short name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Reading::Spec => "the spec's reading",
            Reading::Rfc9309 => "RFC 9309's reading",
            Reading::Google => "Google's reading",
        }
    }
}

/// A rule belongs to the groups the spec's selection chose (the spec's and
/// RFC 9309's readings).
pub(crate) const IN_SPEC: u8 = 1;
/// A rule belongs to the groups Google's selection chose.
pub(crate) const IN_GOOGLE: u8 = 2;

/// The forms a rule or a target is compared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Canonical (see [`percent`]): the spec's reading.
    Spec,
    /// RFC 9309's table on top of the canonical form.
    Rfc,
    /// Google's: rules with non-ASCII encoded, targets as sent.
    Google,
}

/// One rule as the evaluator sees it, whichever model stores it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleView<'a> {
    pub kind: RuleKind,
    pub line: u32,
    pub text: &'a [u8],
    /// Canonical form (see [`percent`]).
    pub spec: &'a [u8],
    /// RFC 9309 form; `rfc_same` when it is the canonical one.
    pub rfc: &'a [u8],
    pub rfc_same: bool,
    /// Google's form; `google_same` when it is the canonical one.
    pub google: &'a [u8],
    pub google_same: bool,
    /// [`IN_SPEC`] and/or [`IN_GOOGLE`].
    pub readings: u8,
    /// A Disallow cut short (long line, the 500 KiB limit, a fixed
    /// capacity): it matches a superset of what its whole value matched, and
    /// `floor` is the length of the whole value, so that it never ranks
    /// below it.
    pub cut: bool,
    pub floor: usize,
}

impl RuleView<'_> {
    fn form(&self, form: Form) -> &[u8] {
        match form {
            Form::Spec => self.spec,
            Form::Rfc => self.rfc,
            Form::Google => self.google,
        }
    }
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

    /// How many octets the key holds.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline]
    pub(crate) fn len(self) -> usize {
        (self.0 >> 56) as usize
    }

    /// The key of the first octets of `s` (up to 7).
    #[inline]
    fn of_slice(s: &[u8]) -> Key {
        // One word load when there are 8 octets (most targets).
        if let Some(c) = s.first_chunk::<8>() {
            return Key(u64::from_le_bytes(*c) & 0x00ff_ffff_ffff_ffff | 7 << 56);
        }
        let s = &s[..s.len().min(Key::MAX)];
        let mut k = 0u64;
        for (i, &b) in s.iter().enumerate() {
            k |= u64::from(b) << (8 * i);
        }
        Key(k | (s.len() as u64) << 56)
    }

    /// The key of a pattern as the matcher reads it.
    pub(crate) fn of_pattern(pattern: &[u8]) -> Key {
        let body = match pattern.split_last() {
            Some((b'$', rest)) => rest,
            _ => pattern,
        };
        // The first 7 octets as one word; the literal part ends at the
        // first `*` among them, found with the zero-octet trick on the
        // word XOR `*`s (exact for the lowest zero octet).
        let n = body.len().min(Key::MAX);
        // A direct 8-octet load when there are 8 (no copy through memory,
        // which would stall the load); the 8th octet is masked off below.
        let w = match body.first_chunk::<8>() {
            Some(c) => u64::from_le_bytes(*c),
            None => {
                let mut w = 0u64;
                for (i, &b) in body.iter().enumerate() {
                    w |= u64::from(b) << (8 * i);
                }
                w
            }
        };
        let x = w ^ 0x2a2a_2a2a_2a2a_2a2a;
        let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
        let star = (zero.trailing_zeros() / 8) as usize;
        let len = n.min(star);
        let mask = (1u64 << (8 * len)) - 1;
        Key(w & mask | (len as u64) << 56)
    }

    /// The second key of a pattern: octets 7 to 13 of its literal part
    /// (before any `*` and a final `$`), empty when that part is shorter.
    /// Many rules of a large file share their first 7 octets
    /// (`/html/A12345_01/`): the second key still tells them apart. The
    /// parse computes it with the first in [`Key::pair_of_pattern`]; this
    /// plain reading of it is what the tests hold that one to.
    #[cfg(test)]
    pub(crate) fn of_pattern_tail(pattern: &[u8]) -> Key {
        let body = match pattern.split_last() {
            Some((b'$', rest)) => rest,
            _ => pattern,
        };
        let Some(tail) = body.get(Key::MAX..) else {
            return Key::of_slice(&[]);
        };
        if body[..Key::MAX].contains(&b'*') {
            return Key::of_slice(&[]);
        }
        let tail = &tail[..tail.len().min(Key::MAX)];
        match tail.iter().position(|&b| b == b'*') {
            Some(i) => Key::of_slice(&tail[..i]),
            None => Key::of_slice(tail),
        }
    }

    /// [`Key::of_pattern`] and [`Key::of_pattern_tail`] at once, from two
    /// word loads: the parse computes both for every rule it keeps.
    // Only the owned `Policy` keeps two keys per rule; a heapless-only
    // build has no caller.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline]
    pub(crate) fn pair_of_pattern(pattern: &[u8]) -> (Key, Key) {
        let body = match pattern.split_last() {
            Some((b'$', rest)) => rest,
            _ => pattern,
        };
        let load = |at: usize| -> u64 {
            match body.get(at..).and_then(|s| s.first_chunk::<8>()) {
                Some(c) => u64::from_le_bytes(*c),
                None => {
                    let mut w = 0u64;
                    for (i, &b) in body.iter().skip(at).take(8).enumerate() {
                        w |= u64::from(b) << (8 * i);
                    }
                    w
                }
            }
        };
        // The first `*` of a word (8 when none), with the zero-octet trick
        // on the word XOR `*`s (exact for the lowest zero octet).
        let star = |w: u64| {
            let x = w ^ 0x2a2a_2a2a_2a2a_2a2a;
            let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
            (zero.trailing_zeros() / 8) as usize
        };
        let key = |w: u64, len: usize| {
            let mask = (1u64 << (8 * len)) - 1;
            Key(w & mask | (len as u64) << 56)
        };
        let n = body.len().min(2 * Key::MAX);
        let w1 = load(0);
        let s1 = star(w1);
        if s1 < Key::MAX || n <= Key::MAX {
            // The literal part ends within the first key: no second one.
            return (key(w1, s1.min(n).min(Key::MAX)), key(0, 0));
        }
        let w2 = load(Key::MAX);
        let len2 = star(w2).min(n - Key::MAX).min(Key::MAX);
        (key(w1, Key::MAX), key(w2, len2))
    }

    /// Whether a pattern with this key may match a subject whose first
    /// octets are `head` (a necessary condition, never a sufficient one).
    /// The scans read it from the subject's [`Head`] table; this plain
    /// reading of it is what the tests hold that one to.
    #[cfg(test)]
    fn admits(self, head: Key) -> bool {
        let n = self.0 >> 56;
        let mask = (1u64 << (8 * n)) - 1;
        n <= head.0 >> 56 && (self.0 ^ head.0) & mask == 0
    }
}

/// The keys of a subject: of its first 7 octets, and of the 7 after them,
/// with, for each, the one key of every length that it admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head {
    pub k1: Key,
    pub k2: Key,
    /// `t1[n]`: the key of `n` octets that [`Key::admits`] `k1` (the
    /// subject's first `n` octets), or `u64::MAX`, which is no key, when
    /// `k1` holds fewer than `n`. A rule's key is then admitted when it
    /// equals the entry of its length: one load and one comparison per
    /// rule in the scans, instead of a mask built from the key's length.
    t1: [u64; 8],
}

impl Head {
    fn new(k1: Key, k2: Key) -> Head {
        Head {
            k1,
            k2,
            t1: Head::table(k1),
        }
    }

    /// For each key length, the key of that length that `head` admits
    /// (see [`Head::t1`]).
    #[inline]
    pub(crate) fn table(head: Key) -> [u64; 8] {
        let n = head.0 >> 56;
        core::array::from_fn(|len| {
            let len = len as u64;
            if len <= n {
                head.0 & ((1u64 << (8 * len)) - 1) | len << 56
            } else {
                u64::MAX
            }
        })
    }

    /// [`Key::admits`] of this subject's first key, from the table.
    #[inline(always)]
    pub(crate) fn admits1(&self, k1: Key) -> bool {
        self.t1[(k1.0 >> 56) as usize & 7] == k1.0
    }

    /// Whether a pattern with keys `k1` and `k2` (see
    /// [`Key::of_pattern_tail`]) may match this subject.
    // Only the owned `Policy` keeps two keys per rule; a heapless-only
    // build has no caller.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn admits(&self, k1: Key, k2: Key) -> bool {
        // The second key is read only for rules the first admits: a mask
        // from its length costs less there than a second table per query
        // (see [`Head::admits_with`] for large files).
        self.admits1(k1) && {
            let n = k2.0 >> 56;
            let mask = (1u64 << (8 * n)) - 1;
            n <= self.k2.0 >> 56 && (k2.0 ^ self.k2.0) & mask == 0
        }
    }

    /// [`Head::admits`] with `t2`, the [`Head::table`] of `k2`: in a large
    /// file many rules share their first 7 octets, and the table, built
    /// once per query, costs less than a mask per such rule.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn admits_with(&self, t2: &[u64; 8], k1: Key, k2: Key) -> bool {
        self.admits1(k1) && t2[(k2.0 >> 56) as usize & 7] == k2.0
    }
}

/// The rules of a model as the evaluator sees them, in the model's order.
pub(crate) trait RuleSet<'a>: Copy {
    /// Whether a request target too long for the stack copy may be copied
    /// to the heap (see [`with_subject`]); models without an allocator say
    /// no and match such a target on the lazy view.
    const HEAP_COPY: bool = false;

    /// From how many rules on the tight scan reads the second keys from a
    /// table (see [`Head::admits_with`]).
    const SECOND_TABLE_FROM: usize = usize::MAX;

    /// Number of rules.
    fn len(self) -> usize;
    /// Whether some rule's form `form` differs from its canonical form.
    fn has_alt(self, form: Form) -> bool;
    /// Whether rule `i`'s pattern in `form` may match a subject starting
    /// with `head`.
    fn admits(self, i: usize, form: Form, head: &Head) -> bool;
    /// The first rule from `from` on that may match in some form, and in
    /// which forms (canonical, RFC 9309, Google): form `f` is tested with
    /// `heads[f]`, and the RFC 9309 and Google forms only when `own[f - 1]`
    /// (else they take the canonical form's answer).
    #[inline]
    fn next_admitted_forms(
        self,
        from: usize,
        heads: &[Head; 3],
        own: [bool; 2],
    ) -> Option<(usize, [bool; 3])> {
        (from..self.len()).find_map(|i| {
            let a_spec = self.admits(i, Form::Spec, &heads[0]);
            let a_rfc = if own[0] {
                self.admits(i, Form::Rfc, &heads[1])
            } else {
                a_spec
            };
            let a_google = if own[1] {
                self.admits(i, Form::Google, &heads[2])
            } else {
                a_spec
            };
            (a_spec || a_rfc || a_google).then_some((i, [a_spec, a_rfc, a_google]))
        })
    }
    /// The first rule from `from` on whose canonical form may match a
    /// subject starting with `head` (`t2`: the table of its second key,
    /// see [`RuleSet::SECOND_TABLE_FROM`]).
    #[inline]
    fn next_admitted(self, from: usize, head: &Head, _t2: Option<&[u64; 8]>) -> Option<usize> {
        (from..self.len()).find(|&i| self.admits(i, Form::Spec, head))
    }
    /// Whether the model lists the rules whose RFC 9309 or Google form
    /// differs from the canonical one (see [`RuleSet::own_form_rule`]).
    const OWN_FORM_LIST: bool = false;
    /// The `k`-th rule, in rule order, whose RFC 9309 or Google form
    /// differs from its canonical one (only when
    /// [`RuleSet::OWN_FORM_LIST`]).
    #[inline]
    fn own_form_rule(self, _k: usize) -> Option<usize> {
        None
    }
    /// The `k`-th entry, in rule order, of the model's list of rules with
    /// literal octets after a `*`: the rule's index and the [`classes`] of
    /// those octets in its canonical form (see [`LazySet::has_classes`]).
    #[inline]
    fn star_need(self, _k: usize) -> Option<(usize, u64)> {
        None
    }
    /// Rule `i`.
    fn view(self, i: usize) -> RuleView<'a>;
}

/// [`classes`] of a target, eight octets at a time.
#[inline]
fn classes_of_target(s: &[u8]) -> u64 {
    let mut set = 0u64;
    let mut words = s.chunks_exact(8);
    for c in &mut words {
        let w = u64::from_le_bytes(c.try_into().unwrap_or_default());
        // Every octet's class at once (bit 6 of an octet is bit 5 of the
        // same octet of `w >> 1`).
        let k = w & 0x1f1f_1f1f_1f1f_1f1f | (w >> 1) & 0x2020_2020_2020_2020;
        for j in 0..8 {
            set |= 1 << (k >> (8 * j) & 63);
        }
    }
    set | classes(words.remainder())
}

/// The class of an octet in a 64-bit set: its low five bits, and whether
/// it is a letter or one of `@[\]^_` and `` `{|}~ `` (bit 6): digits and
/// punctuation apart from letters, a letter's two cases together.
#[inline(always)]
fn class(o: u8) -> u32 {
    u32::from(o & 0x1f | (o >> 1) & 0x20)
}

/// The set of the classes of `octets` (see [`class`]).
pub(crate) fn classes(octets: &[u8]) -> u64 {
    octets.iter().fold(0u64, |set, &o| set | 1 << class(o))
}

/// [`star_need_at`] wherever the first `*` is (`0` without one): what
/// the tests hold the parse's list to.
#[cfg(test)]
fn star_need(pattern: &[u8]) -> u64 {
    let body = match pattern.split_last() {
        Some((b'$', rest)) => rest,
        _ => pattern,
    };
    match memchr::memchr(b'*', body) {
        Some(star) => star_need_at(pattern, star),
        None => 0,
    }
}

/// The classes of the literal octets after the first `*` of a pattern,
/// at `star` (as its keys tell; a final `$` is no literal): each occurs in
/// a subject the pattern matches, so a subject lacking one of their
/// classes is not searched. `0` when nothing literal follows.
// Only the owned `Policy` keeps them; a heapless-only build has no caller.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) fn star_need_at(pattern: &[u8], star: usize) -> u64 {
    let body = match pattern.split_last() {
        Some((b'$', rest)) => rest,
        _ => pattern,
    };
    debug_assert_eq!(memchr::memchr(b'*', body), Some(star));
    classes_of_target(body.get(star..).unwrap_or_default()) & !(1 << class(b'*'))
}

/// A request target in one form: a slice when it could be copied (or
/// needed no change), else a lazy view.
#[derive(Debug, Clone, Copy)]
enum Subj<'s> {
    Slice(&'s [u8]),
    View(percent::Normalized<'s>),
}

impl matcher::Subject for Subj<'_> {
    #[inline]
    fn strip_prefix(self, seg: &[u8]) -> Option<Self> {
        match self {
            Subj::Slice(s) => s.strip_prefix(seg).map(Subj::Slice),
            Subj::View(v) => v.strip_prefix(seg).map(Subj::View),
        }
    }
    #[inline]
    fn find_after(self, seg: &[u8]) -> Option<Self> {
        match self {
            Subj::Slice(s) => matcher::Subject::find_after(s, seg).map(Subj::Slice),
            Subj::View(v) => v.find_after(seg).map(Subj::View),
        }
    }
    #[inline]
    fn ends_with(self, seg: &[u8]) -> bool {
        match self {
            Subj::Slice(s) => s.ends_with(seg),
            Subj::View(v) => v.ends_with(seg),
        }
    }
    #[inline]
    fn is_empty(self) -> bool {
        match self {
            Subj::Slice(s) => s.is_empty(),
            Subj::View(v) => matcher::Subject::is_empty(v),
        }
    }
    #[inline]
    fn rfind_after(self, seg: &[u8]) -> Option<Self> {
        match self {
            Subj::Slice(s) => matcher::Subject::rfind_after(s, seg).map(Subj::Slice),
            Subj::View(v) => v.rfind_after(seg).map(Subj::View),
        }
    }
    #[inline]
    fn remaining(self) -> usize {
        match self {
            Subj::Slice(s) => s.len(),
            Subj::View(v) => v.remaining(),
        }
    }
}

impl Subj<'_> {
    fn head(self) -> Head {
        match self {
            Subj::Slice(s) => Head::new(
                Key::of_slice(s),
                Key::of_slice(s.get(Key::MAX..).unwrap_or_default()),
            ),
            Subj::View(mut v) => Head::new(
                Key::from_octets(core::iter::from_fn(move || v.next_byte())),
                Key::from_octets(core::iter::from_fn(move || v.next_byte()).skip(Key::MAX)),
            ),
        }
    }
}

/// Normalised subjects up to this many octets are matched from a copy on
/// the stack, where the matcher's SIMD searches apply.
const SMALL_SUBJECT: usize = 256;

/// Hands `f` the octets of `view`: copied to the stack when they fit in
/// `SCRATCH`, to the heap when longer and `heap` allows it, else the lazy
/// view itself. Matching a view costs up to O(path x segment) per `*`
/// segment; a copy makes it linear.
fn with_subject<T, const SCRATCH: usize>(
    view: percent::Normalized<'_>,
    bound: usize,
    heap: bool,
    f: impl FnOnce(Subj<'_>) -> T,
) -> T {
    if bound <= SMALL_SUBJECT {
        // Short enough whatever it holds: filled and measured in one pass
        // (the counting pass cost as much as the copy).
        let mut buf = [0u8; SMALL_SUBJECT];
        let mut view = view;
        let len = view.fill(&mut buf[..bound]);
        return f(Subj::Slice(&buf[..len]));
    }
    let len = matcher::Subject::remaining(view);
    if len <= SMALL_SUBJECT {
        let mut buf = [0u8; SMALL_SUBJECT];
        f(Subj::Slice(fill(view, &mut buf[..len])))
    } else if len <= SCRATCH {
        with_large_copy::<T, SCRATCH>(view, len, f)
    } else {
        // A target this long is rare and costs a pass over every rule
        // anyway: one allocation is cheaper than the view's rescans.
        #[cfg(feature = "alloc")]
        if heap {
            let mut buf = alloc::vec![0u8; len];
            return f(Subj::Slice(fill(view, &mut buf)));
        }
        let _ = heap;
        f(Subj::View(view))
    }
}

// Kept out of line so that the common, short targets do not pay for a
// large stack frame.
#[inline(never)]
fn with_large_copy<T, const SCRATCH: usize>(
    view: percent::Normalized<'_>,
    len: usize,
    f: impl FnOnce(Subj<'_>) -> T,
) -> T {
    let mut buf = [0u8; SCRATCH];
    f(Subj::Slice(fill(view, &mut buf[..len])))
}

fn fill<'b>(mut view: percent::Normalized<'_>, buf: &'b mut [u8]) -> &'b [u8] {
    let _ = view.fill(buf);
    buf
}

/// The best match of one reading so far: the rule's index, not its view,
/// so that keeping and comparing it copies three words.
#[derive(Clone, Copy)]
struct Best {
    priority: usize,
    rule: usize,
    kind: RuleKind,
}

fn consider(best: &mut Option<Best>, priority: usize, rule: usize, kind: RuleKind) {
    let better = match best {
        None => true,
        // "On a length tie, Allow wins"; among equals the first reports.
        Some(b) => {
            priority > b.priority
                || (priority == b.priority
                    && kind == RuleKind::Allow
                    && b.kind == RuleKind::Disallow)
        }
    };
    if better {
        *best = Some(Best {
            priority,
            rule,
            kind,
        });
    }
}

/// The precedence of a matching rule in the spec's reading: the octets its
/// match covers, the most for a Disallow and the fewest for an Allow (the
/// strict reading of "an expanded * counts as the characters it consumed").
/// A cut Disallow may have covered anything up to the whole target.
fn spec_priority(r: &RuleView<'_>, span: (usize, usize), target_len: usize) -> usize {
    match r.kind {
        RuleKind::Allow => span.0,
        RuleKind::Disallow if r.cut => span.1.max(r.floor).max(target_len),
        RuleKind::Disallow => span.1,
    }
}

/// Whether `r` in `form` matches `subject`: an empty pattern matches
/// nothing (9.1.4), unless it is what a cut left of a Disallow, which then
/// matches everything.
/// `need`: the [`classes`] the subject must hold for `r`'s pattern in
/// `form` to match it (`0`: none known).
fn hit(r: &RuleView<'_>, form: Form, subject: Subj<'_>, set: &mut LazySet, need: u64) -> bool {
    let p = r.form(form);
    if p.is_empty() {
        return r.cut;
    }
    (need == 0 || set.has_classes(need, subject))
        && set.may_match(p, subject)
        && matcher::matches(p, subject)
}

/// The octets present in a long subject. Every literal octet of a pattern
/// that matches occurs in the subject (each segment does), so a pattern
/// whose segment after a `*` starts with an octet the subject lacks is
/// rejected without searching the subject: with many `*` rules and a long
/// target, those searches were the whole cost (one scan of the target per
/// rule); this is one scan in all, then one look-up per `*`. Only a
/// filter: a pattern it lets through is matched as before, so the worst
/// case stays O(path x pattern) and allocation-free.
#[derive(Clone, Copy)]
struct ByteSet([u64; 4]);

impl ByteSet {
    /// Targets shorter than this are searched directly: the scans are cheap.
    const MIN_SUBJECT: usize = 256;

    /// The set of a slice subject of at least [`ByteSet::MIN_SUBJECT`] octets.
    fn of(subject: Subj<'_>) -> Option<ByteSet> {
        let Subj::Slice(s) = subject else {
            return None;
        };
        if s.len() < ByteSet::MIN_SUBJECT {
            return None;
        }
        let mut set = [0u64; 4];
        for &o in s {
            set[usize::from(o >> 6)] |= 1 << (o & 63);
        }
        Some(ByteSet(set))
    }

    fn has(&self, o: u8) -> bool {
        self.0[usize::from(o >> 6)] >> (o & 63) & 1 != 0
    }
}

/// The first octet of every segment after a `*` of `pattern` that the
/// matcher searches for (all but an anchored last one, which it compares
/// with the end of the subject): each must occur in a subject the pattern
/// matches.
fn after_stars(pattern: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let body = match pattern.split_last() {
        Some((b'$', rest)) => match memchr::memrchr(b'*', rest) {
            Some(last) => &rest[..last],
            None => &[],
        },
        _ => pattern,
    };
    // A long literal start is skipped at memchr speed; from the first `*`
    // on, one pass over pairs of octets (a `memchr` call per `*` cost more
    // than the look-ups on patterns dense with `*`).
    let from = memchr::memchr(b'*', body).unwrap_or(body.len());
    body[from..]
        .windows(2)
        .filter(|w| w[0] == b'*' && w[1] != b'*')
        .map(|w| w[1])
}

/// A [`ByteSet`] built the first time a pattern with a `*` asks for it.
#[derive(Clone, Copy)]
struct LazySet {
    bytes: Option<Option<ByteSet>>,
    /// The [`classes`] of the subject's octets, once a pattern asked.
    classes: Option<u64>,
}

impl LazySet {
    const NEW: LazySet = LazySet {
        bytes: None,
        classes: None,
    };

    /// Whether the subject (the one this set is of) holds every class of
    /// `need`. The classes of a subject are gathered the first time a rule
    /// asks, in one pass of eight octets at a time; a rule with a `*` early
    /// in it, which every key admits (`/*.pdf`, `*/calendar/*atom*`), is
    /// then passed over with one test when the target lacks one of its
    /// octets, instead of a search of the target. Only a filter: what it
    /// lets through is matched as before.
    #[inline]
    fn has_classes(&mut self, need: u64, subject: Subj<'_>) -> bool {
        let set = *self.classes.get_or_insert_with(|| match subject {
            Subj::Slice(s) => classes_of_target(s),
            // A target too long for any copy: not worth a pass of its own.
            Subj::View(_) => u64::MAX,
        });
        need & !set == 0
    }

    /// Whether `pattern` may match `subject` (the subject this set is of):
    /// `false` only when some segment after a `*` starts with an octet
    /// the subject lacks.
    fn may_match(&mut self, pattern: &[u8], subject: Subj<'_>) -> bool {
        // A short target (nearly all) is searched directly: settled once,
        // before any look at the pattern.
        if matches!(self.bytes, Some(None)) {
            return true;
        }
        if !matches!(subject, Subj::Slice(s) if s.len() >= ByteSet::MIN_SUBJECT) {
            self.bytes = Some(None);
            return true;
        }
        let mut firsts = after_stars(pattern).peekable();
        if firsts.peek().is_none() {
            return true;
        }
        let set = *self.bytes.get_or_insert_with(|| ByteSet::of(subject));
        match set {
            Some(set) => firsts.all(|b| set.has(b)),
            None => true,
        }
    }
}

fn span(
    r: &RuleView<'_>,
    subject: Subj<'_>,
    set: &mut LazySet,
    need: u64,
) -> Option<(usize, usize)> {
    if r.spec.is_empty() {
        return r.cut.then_some((0, 0));
    }
    if need != 0 && !set.has_classes(need, subject) {
        return None;
    }
    if !set.may_match(r.spec, subject) {
        return None;
    }
    matcher::match_span(r.spec, subject)
}

/// Evaluates every reading over `rules`. `rfc` and `google` are `None`
/// when the target's form is its canonical one.
fn evaluate<'a, R: RuleSet<'a>>(
    rules: R,
    canon: Subj<'_>,
    rfc: Option<Subj<'_>>,
    google: Option<Subj<'_>>,
) -> Verdict<'a> {
    let canon_head = &canon.head();
    // The second key's table for the tight scan of a large file.
    let t2 = (rules.len() >= R::SECOND_TABLE_FROM).then(|| Head::table(canon_head.k2));
    let canon_len = matcher::Subject::remaining(canon);
    let mut canon_set = LazySet::NEW;
    let mut rfc_set = LazySet::NEW;
    let mut google_set = LazySet::NEW;
    // When neither the target nor any rule changes in a form, that form's
    // keys and matches are the canonical ones.
    let rfc_keys = rfc.is_some() || rules.has_alt(Form::Rfc);
    let google_keys = google.is_some() || rules.has_alt(Form::Google);
    let mut best: [Option<Best>; 3] = [None; 3];
    // With one form for every rule and the target, only the canonical
    // keys are scanned, in one tight loop.
    let one_form = !rfc_keys && !google_keys;
    // A target that is its own form in every reading, with some rule
    // whose form differs: the canonical keys are scanned in the tight
    // loop, and the few listed rules with forms of their own are weighed
    // in every form at their place in rule order.
    let listed = R::OWN_FORM_LIST && !one_form && rfc.is_none() && google.is_none();
    // The three forms' heads, for the scan of every form's keys.
    let heads = (!one_form && !listed).then(|| {
        [
            *canon_head,
            rfc.map_or(*canon_head, Subj::head),
            google.map_or(*canon_head, Subj::head),
        ]
    });
    // The next rule with literal octets after a `*` (see
    // [`RuleSet::star_need`]), a cursor in rule order.
    let mut need_k = 0;
    let mut need_next = rules.star_need(0);
    let mut own_k = 0;
    let mut own_next = if listed { rules.own_form_rule(0) } else { None };
    // The next rule from `next` on that the canonical keys admit, once
    // known (`Some(None)`: none is left).
    let mut admitted: Option<Option<usize>> = None;
    let mut next = 0;
    while next < rules.len() {
        let (i, a_spec, a_rfc, a_google) = if listed {
            let c = match admitted {
                Some(Some(c)) if c >= next => Some(c),
                Some(None) => None,
                _ => {
                    let c = rules.next_admitted(next, canon_head, t2.as_ref());
                    admitted = Some(c);
                    c
                }
            };
            match (c, own_next) {
                (None, None) => break,
                (Some(c), None) => (c, true, true, true),
                (Some(c), Some(o)) if c < o => (c, true, true, true),
                (_, Some(o)) => {
                    own_k += 1;
                    own_next = rules.own_form_rule(own_k);
                    let a_spec = rules.admits(o, Form::Spec, canon_head);
                    let a_rfc = if rfc_keys {
                        rules.admits(o, Form::Rfc, canon_head)
                    } else {
                        a_spec
                    };
                    let a_google = if google_keys {
                        rules.admits(o, Form::Google, canon_head)
                    } else {
                        a_spec
                    };
                    if !(a_spec || a_rfc || a_google) {
                        next = o + 1;
                        continue;
                    }
                    (o, a_spec, a_rfc, a_google)
                }
            }
        } else if one_form {
            match rules.next_admitted(next, canon_head, t2.as_ref()) {
                Some(i) => (i, true, true, true),
                None => break,
            }
        } else if let Some(heads) = &heads {
            match rules.next_admitted_forms(next, heads, [rfc_keys, google_keys]) {
                Some((i, [a_spec, a_rfc, a_google])) => (i, a_spec, a_rfc, a_google),
                None => break,
            }
        } else {
            break;
        };
        next = i + 1;
        let need = loop {
            match need_next {
                Some((j, _)) if j < i => {
                    need_k += 1;
                    need_next = rules.star_need(need_k);
                }
                Some((j, need)) if j == i => break need,
                _ => break 0,
            }
        };
        let r = rules.view(i);
        let floor = |n: usize| if r.cut { n.max(r.floor) } else { n };
        let spec_span = if a_spec && (r.readings & IN_SPEC != 0 || r.google_same) {
            span(&r, canon, &mut canon_set, need)
        } else {
            None
        };
        if r.readings & IN_SPEC != 0 {
            if let Some(s) = spec_span {
                consider(&mut best[0], spec_priority(&r, s, canon_len), i, r.kind);
            }
            let rfc_hit = match rfc {
                None if r.rfc_same => spec_span.is_some(),
                _ => {
                    let set = if rfc.is_some() {
                        &mut rfc_set
                    } else {
                        &mut canon_set
                    };
                    let need = if r.rfc_same { need } else { 0 };
                    a_rfc && hit(&r, Form::Rfc, rfc.unwrap_or(canon), set, need)
                }
            };
            if rfc_hit {
                consider(&mut best[1], floor(r.rfc.len()), i, r.kind);
            }
        }
        if r.readings & IN_GOOGLE != 0 {
            let google_hit = match google {
                None if r.google_same => spec_span.is_some(),
                _ => {
                    let set = if google.is_some() {
                        &mut google_set
                    } else {
                        &mut canon_set
                    };
                    let need = if r.google_same { need } else { 0 };
                    a_google && hit(&r, Form::Google, google.unwrap_or(canon), set, need)
                }
            };
            if google_hit {
                consider(&mut best[2], floor(r.google.len()), i, r.kind);
            }
        }
    }
    for (reading, b) in Reading::ALL.into_iter().zip(best) {
        if let Some(b) = b {
            if b.kind == RuleKind::Disallow {
                return verdict(Some(rules.view(b.rule)), reading);
            }
        }
    }
    verdict(best[0].map(|b| rules.view(b.rule)), Reading::Spec)
}

fn verdict(rule: Option<RuleView<'_>>, reading: Reading) -> Verdict<'_> {
    Verdict {
        allowed: !matches!(rule, Some(r) if r.kind == RuleKind::Disallow),
        rule: rule.map(|r| MatchedRule {
            kind: r.kind,
            pattern: r.text,
            line: r.line,
        }),
        reading,
        overflow: false,
        variant: Variant::BASE,
    }
}

/// Decides `path_and_query` against `rules` in every [`Reading`]: allowed
/// only if each allows. `SCRATCH`: the most stack a request target that
/// needs normalising may take (see [`with_subject`]).
pub(crate) fn decide<'a, R: RuleSet<'a>, const SCRATCH: usize>(
    rules: R,
    path_and_query: &[u8],
) -> Verdict<'a> {
    decide_scanned::<R, SCRATCH>(rules, path_and_query, Scan::of(path_and_query))
}

/// [`decide`], with the target's [`Scan`] made by the caller, who may need
/// it too (whether a variant can read the target otherwise).
pub(crate) fn decide_scanned<'a, R: RuleSet<'a>, const SCRATCH: usize>(
    rules: R,
    path_and_query: &[u8],
    scan: Scan,
) -> Verdict<'a> {
    let t = path_and_query;
    let rooted = t.first() == Some(&b'/');
    // Nearly every target: rooted, no escape, no query, nothing to
    // encode. It is then its own form in every reading.
    let Scan { plain, query } = scan;
    debug_assert!(!plain || !percent::has_special(t) || query);
    if rooted && plain && !query {
        return evaluate(rules, Subj::Slice(t), None, None);
    }
    let canonical = rooted && plain;
    let rfc_differs = query && rfc_differs(t);
    let heap = R::HEAP_COPY;
    // Every form of `t` holds at most three octets per octet of `t` (an
    // encoded one), and a leading `/`.
    let bound = t.len().saturating_mul(3).saturating_add(1);
    let with_rfc = |canon: Subj<'_>| {
        let with_google = |rfc: Option<Subj<'_>>| {
            if canonical {
                evaluate(rules, canon, rfc, None)
            } else if rooted {
                evaluate(rules, canon, rfc, Some(Subj::Slice(t)))
            } else {
                with_subject::<_, SCRATCH>(
                    percent::Normalized::with_leading_slash(t, true),
                    bound,
                    heap,
                    |g| evaluate(rules, canon, rfc, Some(g)),
                )
            }
        };
        if !rfc_differs {
            with_google(None)
        } else {
            let view = if rooted {
                percent::Normalized::rfc(t)
            } else {
                percent::Normalized::rfc_with_leading_slash(t)
            };
            with_subject::<_, SCRATCH>(view, bound, heap, |r| with_google(Some(r)))
        }
    };
    if canonical {
        with_rfc(Subj::Slice(t))
    } else {
        let view = if rooted {
            percent::Normalized::new(t)
        } else {
            percent::Normalized::with_leading_slash(t, false)
        };
        with_subject::<_, SCRATCH>(view, bound, heap, with_rfc)
    }
}

/// What one pass over a request target finds: whether it is plain (its own
/// form in every reading, so `decide` judges it as it is) and whether it
/// holds a `?`. Half the targets of a feed bot carry a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scan {
    /// No `%`, no octet outside 0x21..=0x7A, and none of `"` `'` `` ` ``
    /// `<` `>`: a superset of what a form may change (the octets a sent
    /// URL never carries raw, see [`percent::never_raw`], and the ones
    /// encoded everywhere), taking `|` and `~` along because `{|}~` and DEL
    /// are one test that way; they are rare in paths and only cost the
    /// slower path.
    pub plain: bool,
    /// A `?` somewhere.
    pub query: bool,
}

impl Scan {
    /// Sixteen octets at a time, each block folded without an early exit
    /// so that it vectorises (the last block overlaps the one before it; a
    /// target of 8 to 15 octets is its first eight and its last eight, a
    /// shorter one is padded).
    #[inline]
    pub(crate) fn of(t: &[u8]) -> Scan {
        // Every block is 16 octets; were one not, zeros would count it
        // not plain, which costs the slower path and nothing else.
        fn block(t: &[u8]) -> &[u8; 16] {
            t.try_into().unwrap_or(&[0; 16])
        }
        // Two reductions of lanes to one flag each (a movemask apiece).
        #[inline(always)]
        fn fold(block: &[u8; 16]) -> (bool, bool) {
            let (mut other, mut query) = (false, false);
            for &b in block {
                other |= !is_plain(b);
                query |= b == b'?';
            }
            (other, query)
        }
        // Without SIMD (wasm32) the blocks only unroll: the plain loop keeps
        // the module within its size budget.
        if cfg!(target_arch = "wasm32") {
            return Scan {
                plain: t.iter().all(|&b| is_plain(b)),
                query: t.contains(&b'?'),
            };
        }
        let or = |(a, b): (bool, bool), (c, d): (bool, bool)| (a | c, b | d);
        let (other, query) = match t.len() {
            0..=15 => {
                // A plain octet pads a short one.
                let mut b = [b'/'; 16];
                if t.len() >= 8 {
                    b[..8].copy_from_slice(&t[..8]);
                    b[8..].copy_from_slice(&t[t.len() - 8..]);
                } else {
                    for (b, &o) in b.iter_mut().zip(t) {
                        *b = o;
                    }
                }
                fold(&b)
            }
            // Most targets: one or two blocks, no loop (a loop without an
            // exit is vectorised across blocks, an octet at a time).
            16..=32 => or(fold(block(&t[..16])), fold(block(&t[t.len() - 16..]))),
            _ => {
                let mut any = (false, false);
                let mut blocks = t.chunks_exact(16);
                for b in &mut blocks {
                    any = or(any, fold(block(b)));
                    if any.0 {
                        // Only a plain target's `?` is wanted exactly.
                        return Scan {
                            plain: false,
                            query: memchr::memchr(b'?', t).is_some(),
                        };
                    }
                }
                if !blocks.remainder().is_empty() {
                    any = or(any, fold(block(&t[t.len() - 16..])));
                }
                any
            }
        };
        Scan {
            plain: !other,
            query,
        }
    }
}

/// Whether `b` may be in a plain target (see [`Scan::plain`]).
#[inline(always)]
fn is_plain(b: u8) -> bool {
    // Bitwise, not `&&`: branches would not vectorise. `%` or `'` (| 2 is
    // `'`), `<` or `>` (| 2 is `>`) are one test each.
    (b.wrapping_sub(0x21) < 0x5a) & (b | 2 != b'\'') & (b | 2 != b'>') & (b != b'"') & (b != b'`')
}

/// [`percent::rfc_differs`], with the `?` found in line (a target is short).
#[inline]
fn rfc_differs(t: &[u8]) -> bool {
    match matcher::find_byte(b'?', t) {
        Some(q) => t[q + 1..].iter().any(|&b| percent::is_gen_delim(b)),
        None => false,
    }
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

    #[test]
    fn byte_sets_never_reject_a_match() {
        extern crate std;
        use std::vec::Vec;
        let mut x: u32 = 5;
        let mut next = |n: u32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) % n
        };
        let mut matched = 0;
        for _ in 0..3000 {
            // Some subjects lack `$` and `*`.
            let alphabet = if next(2) == 0 { 3 } else { 5 };
            let subject: Vec<u8> = (0..ByteSet::MIN_SUBJECT as u32 + next(64))
                .map(|_| b"/ab$*"[next(alphabet) as usize])
                .collect();
            let set = ByteSet::of(Subj::Slice(&subject)).expect("long enough");
            for b in 0..=255u8 {
                assert_eq!(set.has(b), subject.contains(&b));
            }
            let pattern: Vec<u8> = (0..next(12)).map(|_| b"/ab$*c"[next(6) as usize]).collect();
            if matcher::matches(&pattern, subject.as_slice()) {
                matched += 1;
                assert!(after_stars(&pattern).all(|b| set.has(b)), "{pattern:?}");
                let mut lazy = LazySet::NEW;
                assert!(lazy.may_match(&pattern, Subj::Slice(&subject)));
            }
        }
        assert!(matched > 100, "{matched}");
        let short = ByteSet::of(Subj::Slice(b"/short"));
        assert!(short.is_none());
        let firsts: Vec<u8> = after_stars(b"/a*b**c*$x*$").collect();
        assert_eq!(firsts, b"bc$");
        assert_eq!(after_stars(b"/a*$").count(), 0);
        assert_eq!(after_stars(b"/a*b*c").collect::<Vec<u8>>(), b"bc");
    }

    #[test]
    fn second_keys_never_reject_a_match() {
        extern crate std;
        use std::vec::Vec;
        let mut x: u32 = 7;
        let mut next = |n: u32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) % n
        };
        let mut matched = 0;
        for _ in 0..20_000 {
            let subject: Vec<u8> = (0..next(24)).map(|_| b"/ab"[next(3) as usize]).collect();
            // A pattern that often matches: a prefix of the subject with
            // some octets turned into `*`, sometimes anchored.
            let mut pattern: Vec<u8> = subject[..next(subject.len() as u32 + 1) as usize]
                .iter()
                .map(|&b| if next(6) == 0 { b'*' } else { b })
                .collect();
            if next(4) == 0 {
                pattern.push(b'$');
            }
            let body = match pattern.split_last() {
                Some((b'$', rest)) => rest,
                _ => &pattern[..],
            };
            let lit: Vec<u8> = body.iter().copied().take_while(|&b| b != b'*').collect();
            let want = Key::from_octets(lit.iter().copied().skip(Key::MAX).take(Key::MAX));
            assert_eq!(Key::of_pattern_tail(&pattern), want, "{pattern:?}");
            assert_eq!(
                Key::pair_of_pattern(&pattern),
                (Key::of_pattern(&pattern), want),
                "{pattern:?}"
            );
            let head = Subj::Slice(&subject).head();
            let view = Subj::View(percent::Normalized::new(&subject)).head();
            assert_eq!(head, view);
            if matcher::matches(&pattern, subject.as_slice()) {
                matched += 1;
                let (k1, k2) = (Key::of_pattern(&pattern), Key::of_pattern_tail(&pattern));
                assert!(head.admits(k1, k2), "{pattern:?} {subject:?}");
            }
        }
        assert!(matched > 1000, "{matched}");
    }

    #[test]
    fn target_tests_agree_with_percent() {
        extern crate std;
        use std::vec::Vec;
        let mut x: u32 = 9;
        let mut next = |n: u32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) % n
        };
        let mut canonical = 0;
        for _ in 0..20_000 {
            // Mostly plain octets, with now and then any octet at all.
            let t: Vec<u8> = (0..next(40))
                .map(|_| match next(16) {
                    0 => next(256) as u8,
                    1 => b"?:/#[]@%"[next(8) as usize],
                    2 => b"\"'`{}<>|~="[next(10) as usize],
                    _ => b"/ab=&.-"[next(7) as usize],
                })
                .collect();
            let plain_ref = !t
                .iter()
                .any(|&b| b == b'%' || !(0x21..=0x7a).contains(&b) || b"\"'`<>".contains(&b));
            let want = Scan {
                plain: plain_ref,
                query: t.contains(&b'?'),
            };
            assert_eq!(Scan::of(&t), want, "{t:?}");
            // A plain target is its own canonical form.
            assert!(!want.plain || percent::is_canonical(&t), "{t:?}");
            assert_eq!(rfc_differs(&t), percent::rfc_differs(&t), "{t:?}");
            let Scan { plain, query } = Scan::of(&t);
            // Whatever `decide` sends to the plain path needs no form.
            if plain && !query {
                assert!(!percent::has_special(&t), "{t:?}");
            }
            canonical += usize::from(plain);
        }
        assert!(canonical > 1000, "{canonical}");
        for b in 0..=255u8 {
            let t = [b'/', b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', b];
            for t in [&t[..], &t[2..], &t[6..]] {
                let plain = !(b == b'%' || !(0x21..=0x7a).contains(&b) || b"\"'`<>".contains(&b));
                let want = Scan {
                    plain,
                    query: t.contains(&b'?'),
                };
                assert_eq!(Scan::of(t), want, "{b}");
            }
        }
    }

    #[test]
    fn star_needs_never_reject_a_match() {
        extern crate std;
        use std::vec::Vec;
        let mut x: u32 = 13;
        let mut next = |n: u32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) % n
        };
        // Octets of distinct classes, and octets sharing one (`.` and `N`,
        // `/` and `O`, `a` and `A`), with `*` and `$`.
        let alphabet = b"/ab.NOA1*$";
        let (mut matched, mut rejected) = (0, 0);
        for _ in 0..50_000 {
            let subject: Vec<u8> = (0..next(40)).map(|_| alphabet[next(8) as usize]).collect();
            let pattern: Vec<u8> = (0..next(10)).map(|_| alphabet[next(10) as usize]).collect();
            let set = classes_of_target(&subject);
            assert_eq!(set, classes(&subject), "{subject:?}");
            let need = star_need(&pattern);
            let mut lazy = LazySet::NEW;
            let admitted = lazy.has_classes(need, Subj::Slice(&subject));
            assert_eq!(admitted, need & !set == 0);
            if matcher::matches(&pattern, subject.as_slice()) {
                matched += 1;
                assert!(admitted, "{pattern:?} {subject:?}");
            } else if !admitted {
                rejected += 1;
            }
        }
        assert!(matched > 1000 && rejected > 1000, "{matched} {rejected}");
        // The octets after the first `*`, not the `*`s nor a final `$`.
        assert_eq!(star_need(b"/a*b"), classes(b"b"));
        assert_eq!(star_need(b"/*.pdf$"), classes(b".pdf"));
        assert_eq!(star_need(b"/a*$"), 0);
        assert_eq!(star_need(b"/a*$x*"), classes(b"$x"));
        assert_eq!(star_need(b"/abc"), 0);
        assert_eq!(class(b'a'), class(b'A'));
        assert_ne!(class(b'.'), class(b'n'));
        assert_ne!(class(b'0'), class(b'p'));
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn policies_list_every_star_need() {
        extern crate std;
        use std::format;
        use std::string::String;
        let mut body = String::from("User-agent: *\n");
        let values = [
            "/*.pdf",
            "/*",
            "/a*",
            "/a*b",
            "*/x/*y*",
            "/abcdefg*h",
            "/abcdefgh*",
            "/abcdefghijklm*n",
            "/abcdefghijklmn*o",
            "/abcdefghijklmnopq*r",
            "/plain",
            "/x$",
            "/*.php$",
            "/a%41*%42",
            "/abcdefghijklmn",
            "/abcdefghijklm*",
        ];
        for v in values {
            body.push_str(&format!("Disallow: {v}\n"));
        }
        let policy = Policy::parse(body.as_bytes(), "bot");
        let rules = &policy;
        let mut listed = 0;
        for i in 0..rules.len() {
            let spec = rules.view(i).spec;
            // Listed when the first `*` is among the first key's octets.
            let want = match spec.iter().position(|&b| b == b'*') {
                Some(at) if at < Key::MAX => star_need(spec),
                _ => 0,
            };
            let got = (0..)
                .map_while(|k| rules.star_need(k))
                .find(|&(j, _)| j == i)
                .map_or(0, |(_, need)| need);
            assert_eq!(got, want, "{:?}", rules.view(i).text);
            listed += usize::from(want != 0);
        }
        assert_eq!(listed, 5);
    }

    #[test]
    fn head_tables_are_the_key_test() {
        let mut x: u32 = 3;
        let mut next = |n: u32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) % n
        };
        let mut admitted = 0;
        for _ in 0..50_000 {
            // Octets from a small alphabet (with NUL and 0xFF, which a
            // table entry's filler must not pass for) so that keys often
            // agree.
            let mut octets = |n: u32| -> ([u8; 7], usize) {
                let len = next(n) as usize;
                let mut o = [0u8; 7];
                for b in &mut o[..len] {
                    *b = b"/a\0\xff"[next(4) as usize];
                }
                (o, len)
            };
            let (s, sn) = octets(8);
            let (p, pn) = octets(8);
            let (s2, sn2) = octets(8);
            let (p2, pn2) = octets(8);
            let head = Head::new(Key::of_slice(&s[..sn]), Key::of_slice(&s2[..sn2]));
            let (k1, k2) = (Key::of_slice(&p[..pn]), Key::of_slice(&p2[..pn2]));
            assert_eq!(head.admits1(k1), k1.admits(head.k1), "{p:?} {s:?}");
            let want = k1.admits(head.k1) && k2.admits(head.k2);
            assert_eq!(head.admits(k1, k2), want);
            assert_eq!(head.admits_with(&Head::table(head.k2), k1, k2), want);
            admitted += usize::from(want);
        }
        assert!(admitted > 1000, "{admitted}");
    }

    #[test]
    fn keys_never_reject_a_match() {
        let head = |s: &[u8]| {
            let k = Key::of_slice(s);
            assert_eq!(k, Key::from_octets(s.iter().copied()));
            k
        };
        let k = |p: &[u8]| {
            let body = match p.split_last() {
                Some((b'$', rest)) => rest,
                _ => p,
            };
            let want = Key::from_octets(body.iter().copied().take_while(|&b| b != b'*'));
            assert_eq!(Key::of_pattern(p), want, "{p:?}");
            want
        };
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
        // Every place of a `*` (or none) around the 7-octet window.
        for len in 0..20 {
            for star in 0..=len {
                let mut p: [u8; 20] = *b"/abcdefghijklmnopqrs";
                if star < len {
                    p[star] = b'*';
                }
                k(&p[..len]);
                assert_eq!(
                    Key::pair_of_pattern(&p[..len]),
                    (Key::of_pattern(&p[..len]), Key::of_pattern_tail(&p[..len]))
                );
                let mut anchored = [0u8; 21];
                anchored[..len].copy_from_slice(&p[..len]);
                anchored[len] = b'$';
                k(&anchored[..=len]);
                let a = &anchored[..=len];
                assert_eq!(
                    Key::pair_of_pattern(a),
                    (Key::of_pattern(a), Key::of_pattern_tail(a))
                );
            }
        }
    }
}
