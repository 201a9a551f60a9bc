//! Lines of a robots.txt body and the directive each one carries
//! (section 9.1.2, RFC 9309 §2.2, and Google's tolerances where the spec is
//! silent).
//!
//! The lexer works on bytes, not `str`: real files mix encodings, carry
//! BOMs, and are sometimes binary garbage. It never fails; a line it cannot
//! read is [`Directive::Unknown`] and changes nothing, exactly as a parser
//! that ignores unknown lines would.
//!
//! Each line is read twice at once. The spec's grammar ("Lines are
//! `field: value`", field names compared whole) and Google's tolerance
//! (field names matched by prefix, common typos, a missing colon) disagree
//! on lines such as `Allow-ads: /`, `Dissallow: /x` or `Disallow /x`. A line
//! only the tolerant reading understands is marked [`Line::strict`] `false`;
//! the grouper then lets it count in Google's reading only, and never as an
//! Allow: a misspelt Disallow may deny, a misspelt Allow must not allow.

use nom::bytes::complete::{take_till, take_while, take_while1};
use nom::character::complete::char as nchar;
use nom::combinator::rest;
use nom::sequence::preceded;
use nom::{IResult, Parser};

pub use super::variant::Variant;

/// Longest line content Google's parser keeps, in octets (2083 × 8 − 1):
/// the `Variant::LINE_LIMIT` reading cuts longer lines here (a Disallow
/// value cut to a superset, see `Directive`); the base reading has no
/// limit.
pub const MAX_LINE: usize = 2083 * 8 - 1;

/// What one line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Directive<'a> {
    /// `User-agent: value` (value trimmed, comment removed).
    UserAgent(&'a [u8]),
    /// `Allow: value`.
    Allow(&'a [u8]),
    /// `Disallow: value`; `truncated_from` is the original value length when
    /// the line was longer than [`MAX_LINE`] and the value was cut.
    Disallow {
        /// The (possibly cut) value.
        value: &'a [u8],
        /// Length of the value before the cut, if it was cut.
        truncated_from: Option<usize>,
    },
    /// `Crawl-delay: value`.
    CrawlDelay(&'a [u8]),
    /// `Sitemap: value`.
    Sitemap(&'a [u8]),
    /// Blank, comment-only, unknown field or unreadable line.
    Unknown,
}

/// One line with its 1-based number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the body.
    pub number: u32,
    /// What the line says, in the tolerant reading.
    pub directive: Directive<'a>,
    /// Whether the spec's grammar reads the line the same way (exact field
    /// name, a colon). Always `true` for [`Directive::Unknown`].
    pub strict: bool,
}

/// Skips a UTF-8 byte-order mark, or any prefix of one, at the start.
pub fn skip_bom(body: &[u8]) -> &[u8] {
    const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
    let n = body
        .iter()
        .zip(BOM.iter())
        .take_while(|(a, b)| a == b)
        .count();
    &body[n..]
}

/// Iterates over the lines of `body` (BOM already skipped or not; this
/// skips it). CR, LF and CRLF all end a line.
pub fn lines(body: &[u8]) -> Lines<'_> {
    lines_in(body, Variant::BASE)
}

/// [`lines`] as `variant` reads them (see [`Variant`]).
pub fn lines_in(body: &[u8], variant: Variant) -> Lines<'_> {
    let rest = if variant.bom_kept() {
        body
    } else {
        skip_bom(body)
    };
    Lines {
        rest,
        number: 0,
        ends: Ends::new(),
        variant,
        diverges: if bom_may_matter(body, rest) {
            Variant::BOM_KEPT
        } else {
            0
        },
    }
}

/// Whether a byte-order mark was skipped from `body` (leaving `rest`) in
/// front of a first line that may be a `User-agent` line: kept, the mark
/// makes it none (see [`Variant::BOM_KEPT`]). Any other first line reads
/// the same for access either way: a rule or a Crawl-delay before every
/// User-agent line belongs to no group in any reading, and a Sitemap, a
/// usage preference, a comment or HTML grants and denies nothing. Every
/// spelling of the field the readings accept starts with a `u`, after
/// blanks or, in `Variant::UNICODE_SPACE`, Unicode's spaces.
fn bom_may_matter(body: &[u8], rest: &[u8]) -> bool {
    if rest.len() == body.len() {
        return false;
    }
    let first = &rest[blanks(rest)..];
    first
        .first()
        .is_some_and(|&b| b | 0x20 == b'u' || may_start_space(b))
}

/// Iterator returned by [`lines`].
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
    number: u32,
    ends: Ends,
    variant: Variant,
    diverges: u8,
}

impl Lines<'_> {
    /// The [`Variant`] options under which some line read so far may be
    /// read otherwise (a union of `Variant::UNICODE_SPACE`,
    /// `Variant::LINE_LIMIT`, `Variant::BOM_KEPT`, and
    /// `Variant::RESERVED_ESCAPES` for an escape outside a value): the base
    /// reading sets them, so that a file whose readings cannot differ is
    /// read once.
    pub fn diverges(&self) -> u8 {
        self.diverges
    }
}

/// The searches for a line's end (`\n`, `\r`, and `#` for a directive),
/// built once per body. `memchr::memchr3` builds its searcher and goes
/// through two dispatch layers at every call, which for lines of some 30
/// octets cost about as much as the search itself; on x86_64 with AVX2
/// (detected at run time when memchr has `std`) the searchers are built
/// here once and called directly.
#[derive(Debug, Clone, Copy)]
struct Ends {
    #[cfg(target_arch = "x86_64")]
    avx2: Option<(
        memchr::arch::x86_64::avx2::memchr::Two,
        memchr::arch::x86_64::avx2::memchr::Three,
    )>,
}

impl Ends {
    fn new() -> Ends {
        #[cfg(target_arch = "x86_64")]
        {
            use memchr::arch::x86_64::avx2::memchr::{Three, Two};
            Ends {
                avx2: Two::new(b'\n', b'\r').zip(Three::new(b'\n', b'\r', b'#')),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Ends {}
    }

    /// The first `\n` or `\r` of `s`.
    #[inline(always)]
    fn end(&self, s: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some((two, _)) = &self.avx2 {
            return two.find(s);
        }
        memchr::memchr2(b'\n', b'\r', s)
    }

    /// The first `\n`, `\r` or `#` of `s`.
    #[inline(always)]
    fn end_or_hash(&self, s: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some((_, three)) = &self.avx2 {
            return three.find(s);
        }
        memchr::memchr3(b'\n', b'\r', b'#', s)
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    // Inlined into the one loop that reads every line (`group::events`):
    // a `Line` returned through memory, and the call's register saves,
    // were a tenth of the lexer's instructions. Not in wasm32: each model
    // has its own copy of that loop, and there one call per line kept
    // 3 KiB of the module's 80 KiB budget.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        // A line is a directive only if its first non-blank octet starts a
        // field name we know (see `read`); any other line (HTML, prose,
        // comments, blank lines) needs only its end. A directive line's
        // end or comment, whichever comes first, takes one search: rule
        // lines rarely carry a comment.
        let mut start = blanks(rest);
        let mut directive_like = rest.get(start).is_some_and(|&b| starts_field(b));
        if !directive_like && rest.get(start).is_some_and(|&b| may_start_space(b)) {
            if let Some(after) = field_after_unicode_space(&rest[start..]) {
                if self.variant.unicode_space() {
                    start += after;
                    directive_like = true;
                } else {
                    self.diverges |= Variant::UNICODE_SPACE;
                }
            }
        }
        let (end, hash) = if directive_like {
            match self.ends.end_or_hash(&rest[start..]) {
                Some(i) if rest[start + i] == b'#' => (
                    self.ends
                        .end(&rest[start + i + 1..])
                        .map(|j| start + i + 1 + j),
                    Some(start + i),
                ),
                end => (end.map(|i| start + i), None),
            }
        } else {
            match rest.get(start) {
                // A blank line (an eighth of the corpus' lines) ends
                // where it starts: no search.
                Some(b'\n' | b'\r') => (Some(start), None),
                _ => (self.ends.end(&rest[start..]).map(|i| start + i), None),
            }
        };
        let (line, next) = match end {
            None => (rest, &rest[rest.len()..]),
            Some(i) => {
                let skip = if rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                (&rest[..i], &rest[i + skip..])
            }
        };
        self.rest = next;
        self.number = self.number.saturating_add(1);
        let (directive, strict) = if directive_like {
            read_field(line, start, hash, self.variant, &mut self.diverges)
        } else {
            (Directive::Unknown, true)
        };
        Some(Line {
            number: self.number,
            directive,
            strict,
        })
    }
}

/// Whether a line whose first non-blank octet is `b` may be a directive:
/// every field name we know starts with one of these letters.
#[inline]
fn starts_field(b: u8) -> bool {
    matches!(b | 0x20, b'u' | b'a' | b'd' | b'c' | b's')
}

#[inline(always)]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// Octets of the run of blanks ([`is_ws`]) that starts `s`.
///
/// A million octets of the corpus' 17 MB are blanks that indent a line,
/// nearly all of them in HTML served as robots.txt, and nearly all runs
/// of spaces or of tabs: those are passed a word at a time, where an
/// octet at a time took ten instructions for each.
#[cfg_attr(
    any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
    inline(always)
)]
fn blanks(s: &[u8]) -> usize {
    let mut n = 0;
    while s.get(n).is_some_and(|&b| is_ws(b)) {
        n += match s.get(n..).and_then(|r| r.first_chunk::<8>()) {
            Some(w) => {
                let w = u64::from_le_bytes(*w);
                // Octets of spaces, or of tabs, from `n` on (64: all
                // eight); at least the blank at `n` itself.
                let spaces = (w ^ 0x2020_2020_2020_2020).trailing_zeros();
                let tabs = (w ^ 0x0909_0909_0909_0909).trailing_zeros();
                (spaces.max(tabs) as usize / 8).max(1)
            }
            None => 1,
        };
    }
    n
}

#[inline(always)]
fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if is_ws(*first) {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if is_ws(*last) {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// Whether `b` may start a character that Unicode counts as white space
/// and [`is_ws`] does not: a lead octet of U+0085, U+00A0, U+1680,
/// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F or U+3000, or one of
/// the separators 0x1C-0x1F that Python's `str.strip` also removes.
#[inline(always)]
fn may_start_space(b: u8) -> bool {
    matches!(b, 0xC2 | 0xE1..=0xE3 | 0x1C..=0x1F)
}

/// Octets of the white space character (Unicode `White_Space`, and
/// 0x1C-0x1F) at the start of `s`; 0 when none.
#[inline(never)]
pub(crate) fn uni_space_len(s: &[u8]) -> usize {
    match s {
        [b' ' | b'\t' | 0x0b | 0x0c | 0x1c..=0x1f, ..] => 1,
        [0xC2, 0x85 | 0xA0, ..] => 2,
        [0xE1, 0x9A, 0x80, ..]
        | [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..]
        | [0xE2, 0x81, 0x9F, ..]
        | [0xE3, 0x80, 0x80, ..] => 3,
        _ => 0,
    }
}

/// Octets of the white space character at the end of `s`; 0 when none.
fn uni_space_len_back(s: &[u8]) -> usize {
    for n in [1, 2, 3] {
        if s.len() >= n && uni_space_len(&s[s.len() - n..]) == n {
            return n;
        }
    }
    0
}

/// Octets of the run of white space characters at the start of `s`.
fn uni_space_run(s: &[u8]) -> usize {
    let mut n = 0;
    loop {
        match uni_space_len(&s[n..]) {
            0 => return n,
            k => n += k,
        }
    }
}

/// `trim` of every white space character Unicode knows (issue #18:
/// `Disallow:\u{a0}/private` is read by Python's parser, the platform
/// parser of spec 15.1, as `/private`).
// Out of line: called from the line loop of every model (rarely).
#[inline(never)]
pub fn trim_unicode(mut s: &[u8]) -> &[u8] {
    s = &s[uni_space_run(s)..];
    loop {
        match uni_space_len_back(s) {
            0 => return s,
            k => s = &s[..s.len() - k],
        }
    }
}

/// Whether `s`, trimmed of ASCII blanks, would lose more to
/// [`trim_unicode`]: a white space character only Unicode knows at either
/// end. Tested on the values of the common lines, so cheap first.
#[inline(always)]
fn unicode_trims_more(s: &[u8]) -> bool {
    // Both ends tested without a branch: nearly every value is plain.
    let edge = |b: u8| (b >= 0x80) | (b.wrapping_sub(0x1C) < 4);
    match (s.first(), s.last()) {
        (Some(&f), Some(&l)) => (edge(f) | edge(l)) && trims_more(s),
        _ => false,
    }
}

// Out of line, as `field_after_unicode_space`.
#[inline(never)]
fn trims_more(s: &[u8]) -> bool {
    trim_unicode(s).len() != s.len()
}

/// Where a field name starts in `s`, a line that starts with a space only
/// Unicode calls one; `None` when it starts no field there. Out of line:
/// the line loop is inlined into every model, and this is rare.
#[inline(never)]
fn field_after_unicode_space(s: &[u8]) -> Option<usize> {
    let after = uni_space_run(s);
    (after > 0 && s.get(after).is_some_and(|&b| starts_field(b))).then_some(after)
}

/// `key ws* ':' value` — the regular form.
fn colon_form(input: &[u8]) -> IResult<&[u8], (&[u8], &[u8])> {
    (take_till(|b| b == b':'), preceded(nchar(':'), rest)).parse(input)
}

/// `key ws+ value` with exactly two runs of non-whitespace — Google accepts
/// a missing colon only in this unambiguous shape.
fn space_form(input: &[u8]) -> IResult<&[u8], (&[u8], &[u8])> {
    let (input, key) = take_while1(|b| !is_ws(b))(input)?;
    let (input, _) = take_while1(is_ws)(input)?;
    let (input, value) = take_while1(|b| !is_ws(b))(input)?;
    let (input, _) = take_while(is_ws)(input)?;
    let (input, _) = nom::combinator::eof(input)?;
    Ok((input, (key, value)))
}

/// The key and value of a line, and whether a colon separated them;
/// `uni`: trimmed of every white space character Unicode knows.
fn key_value(line: &[u8], uni: bool) -> Option<(&[u8], &[u8], bool)> {
    let t = if uni { trim_unicode } else { trim };
    let line = t(line);
    let (key, value, colon) = match colon_form(line) {
        Ok((_, (k, v))) => (k, v, true),
        Err(_) => {
            let (k, v) = space_form(line).ok()?.1;
            (k, v, false)
        }
    };
    let key = t(key);
    if key.is_empty() {
        return None;
    }
    Some((key, t(value), colon))
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Cuts `s` to at most `max` octets without splitting a UTF-8 sequence.
pub fn cut_at_char_boundary(s: &[u8], max: usize) -> &[u8] {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    // Back off over continuation octets (10xxxxxx) so a multi-octet
    // character is never split; at most three steps for valid UTF-8.
    let mut steps = 0;
    while end > 0 && steps < 3 && (s[end] & 0xC0) == 0x80 {
        end -= 1;
        steps += 1;
    }
    if steps == 3 && (s[end] & 0xC0) == 0x80 {
        end = max; // not UTF-8 at all: cut at the octet limit
    }
    &s[..end]
}

/// Makes a cut Disallow value match at least what the whole value matched.
///
/// A prefix of a rule matches a superset of its paths, except where the cut
/// leaves a `$` at the end (a literal `$` of the full value, `/a$b` cut to
/// `/a$`, would now anchor: only `/a` would match) or splits a percent
/// escape (`/a%41` cut to `/a%4`: the full value decodes to `/aA`, the cut
/// one matches only a literal `%4`). Both are dropped, as often as they
/// recur; what is left may be empty, which a cut rule reads as "match
/// everything" (see `RawRule::cut_from`).
pub(crate) fn superset_cut(mut v: &[u8]) -> &[u8] {
    loop {
        v = match v {
            [rest @ .., b'$' | b'%'] => rest,
            [rest @ .., b'%', h] if h.is_ascii_hexdigit() => rest,
            _ => return v,
        };
    }
}

/// A value as the common shapes read it: `s`, what follows the colon,
/// trimmed; and whether [`trim_unicode`] would trim it further (see
/// [`Lines::diverges`]).
///
/// Nearly every value is one space, then printable ASCII: its first
/// and last octets say that neither trim takes more than that space,
/// where the two trims, octet by octet, and the test of both ends were
/// some forty instructions a line.
#[cfg_attr(
    any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
    inline(always)
)]
fn value_of(s: &[u8]) -> (&[u8], bool) {
    let v = s.strip_prefix(b" ").unwrap_or(s);
    let printable = |b: u8| b.wrapping_sub(0x21) < 0x5E;
    match (v.first(), v.last()) {
        (Some(&f), Some(&l)) if printable(f) & printable(l) => (v, false),
        _ => {
            let v = trim(s);
            (v, unicode_trims_more(v))
        }
    }
}

/// The lines nearly every file is made of, `Disallow: v`, `Allow: v`,
/// `User-agent: v`, `Sitemap: v` and `Crawl-delay: v` with the name spelt
/// out and the colon right after it, read without the general machinery.
/// Reads exactly what `read` would; the flag is [`value_of`]'s (false for
/// a Sitemap, whose value no reading trims otherwise).
#[inline(always)]
fn common(content: &[u8]) -> Option<(Directive<'_>, bool)> {
    if content.len() > MAX_LINE {
        return None;
    }
    // Field names compared a word at a time: `w | fold == name` with the
    // case bit folded only where the name has a letter, so `-` and `:`
    // match only themselves (0x0D | 0x20 is `-`, 0x1A | 0x20 is `:`).
    // Each arm has checked that the octets it loads exist.
    let w8 = |at: usize| u64::from_le_bytes(*content[at..].first_chunk::<8>().unwrap_or(&[0; 8]));
    let w4 = |at: usize| u32::from_le_bytes(*content[at..].first_chunk::<4>().unwrap_or(&[0; 4]));
    let le8 = |s: &[u8; 8]| u64::from_le_bytes(*s);
    let le4 = |s: &[u8; 4]| u32::from_le_bytes(*s);
    let n = content.len();
    Some(match content[0] | 0x20 {
        // "disallow:"
        b'd' if n > 8
            && w8(0) | 0x2020_2020_2020_2020 == le8(b"disallow")
            && content[8] == b':' =>
        {
            let (value, more) = value_of(&content[9..]);
            (
                Directive::Disallow {
                    value,
                    truncated_from: None,
                },
                more,
            )
        }
        // "allow:"
        b'a' if n > 5
            && w4(0) | 0x2020_2020 == le4(b"allo")
            && content[4] | 0x20 == b'w'
            && content[5] == b':' =>
        {
            let (value, more) = value_of(&content[6..]);
            (Directive::Allow(value), more)
        }
        // "user-agent:"
        b'u' if n > 10
            && w8(0) | 0x2020_2000_2020_2020 == le8(b"user-age")
            && w4(7) | 0x0020_2020 == le4(b"ent:") =>
        {
            let (value, more) = value_of(&content[11..]);
            (Directive::UserAgent(value), more)
        }
        // "sitemap:"
        b's' if n > 7 && w8(0) | 0x0020_2020_2020_2020 == le8(b"sitemap:") => {
            (Directive::Sitemap(trim(&content[8..])), false)
        }
        // "crawl-delay:"
        b'c' if n > 11
            && w8(0) | 0x2020_0020_2020_2020 == le8(b"crawl-de")
            && w4(8) | 0x0020_2020 == le4(b"lay:") =>
        {
            let (value, more) = value_of(&content[12..]);
            (Directive::CrawlDelay(value), more)
        }
        _ => return None,
    })
}

/// Reads one line (without its terminator) in the tolerant reading.
pub fn directive(line: &[u8]) -> Directive<'_> {
    read(line).0
}

/// Reads one line (without its terminator): the tolerant reading, and
/// whether the spec's grammar reads it the same (see [`Line::strict`]).
pub fn read(line: &[u8]) -> (Directive<'_>, bool) {
    read_with_comment(line, memchr::memchr(b'#', line))
}

/// [`read`], given where the line's first `#` is (if anywhere).
#[inline]
fn read_with_comment(line: &[u8], hash: Option<usize>) -> (Directive<'_>, bool) {
    // Every field name we know starts with one of these letters, and the
    // key starts at the first non-blank octet. Anything else (HTML, prose,
    // comments, blank lines) is decided here without reading the rest.
    let start = line.iter().position(|&b| !is_ws(b)).unwrap_or(line.len());
    if !line.get(start).is_some_and(|&b| starts_field(b)) {
        return (Directive::Unknown, true);
    }
    // The general reader reads the common shapes as the line loop's fast
    // path does (`the_common_shapes_read_as_the_general_reader_reads_them`);
    // this path is rare (a line the 500 KiB limit cut, the tests), so it
    // does without a second copy of that fast path.
    let content = match hash {
        Some(i) => &line[..i],
        None => line,
    };
    general(content, Variant::BASE, &mut 0)
}

/// [`read`] of a line whose first non-blank octet, at `start`, may start a
/// field name, given where its first `#` is. Inlined into the line loop: a
/// directive returned through memory costs a store forwarding stall per
/// line.
///
/// `diverges` gathers the [`Variant`] options under which the line may be
/// read otherwise (see [`Lines::diverges`]).
#[inline(always)]
fn read_field<'a>(
    line: &'a [u8],
    start: usize,
    hash: Option<usize>,
    variant: Variant,
    diverges: &mut u8,
) -> (Directive<'a>, bool) {
    // A comment runs from `#` to the end of the line, wherever it starts.
    let content = match hash {
        Some(i) => &line[..i],
        None => line,
    };
    // The common shapes read the same without a line limit and with
    // ASCII blanks; the base reading notes a value that Unicode's white
    // space would trim further.
    if !variant.unicode_space() && !variant.line_limit() {
        if let Some((d, more)) = common(&content[start..]) {
            if variant.is_base() && more {
                *diverges |= Variant::UNICODE_SPACE;
            }
            return (d, true);
        }
    }
    // Every name the tolerant reading knows starts with one of these
    // (`user…`, `allow`, `dis…`/`dia…`, `crawl…`, `site…`): any other
    // word (prose, markup, `Host:`) is unknown without the general reader.
    let head = content
        .get(start..start + 3)
        .map(|h| [h[0] | 0x20, h[1] | 0x20, h[2] | 0x20]);
    if !matches!(
        head.as_ref().map(|h| &h[..]),
        Some(b"use" | b"all" | b"dis" | b"dia" | b"cra" | b"sit")
    ) {
        return (Directive::Unknown, true);
    }
    general(content, variant, diverges)
}

/// [`read`] of a line's content (comment removed) in full generality.
///
/// The spec's reading has no line limit: the key and the value are read
/// from the whole line, so padding before a value or inside a field name
/// never drops a directive (issue #18). Google's 16,663-octet limit is the
/// [`Variant::LINE_LIMIT`] reading of the same line.
#[inline(never)]
fn general<'a>(content: &'a [u8], variant: Variant, diverges: &mut u8) -> (Directive<'a>, bool) {
    let read = general_in(content, variant);
    if !variant.line_limit() && content.len() > MAX_LINE {
        *diverges |= Variant::LINE_LIMIT;
    }
    if variant.is_base()
        && content.iter().any(|&b| may_start_space(b))
        && general_in(content, Variant::BASE.with(Variant::UNICODE_SPACE)) != read
    {
        *diverges |= Variant::UNICODE_SPACE;
    }
    if !variant.reserved_escapes()
        && memchr::memchr(b'%', content).is_some()
        && escapes_read_otherwise(content, variant, read)
    {
        *diverges |= Variant::RESERVED_ESCAPES;
    }
    read
}

/// Whether `content`, decoded as `Variant::RESERVED_ESCAPES` decodes the
/// whole file before reading it, is another directive, or one the spec's
/// grammar reads otherwise, than `read`: an escaped `:` or `#` outside a
/// value (`Disallow%3A/a`, found by the spec-model proptest). Only this
/// path can meet one: the common shapes spell their field name and colon
/// out, no letter's escape is decoded, and a changed value is the stored
/// values' scan's to note (`Policy::values_escape`), a User-agent's the
/// selection's. Decoded on the stack; a line too long for it is said to
/// read otherwise, which costs a reading, or in fixed capacity an
/// over-block, and never a denial.
#[cold]
fn escapes_read_otherwise(content: &[u8], variant: Variant, read: (Directive<'_>, bool)) -> bool {
    let mut buf = [0u8; 512];
    let Some(n) = crate::percent::gather(&mut buf, |out| {
        crate::percent::decode_reserved(content, out)
    }) else {
        return true;
    };
    // A decoded `#` starts a comment, as it would in the decoded file.
    let decoded = &buf[..n];
    let decoded = memchr::memchr(b'#', decoded).map_or(decoded, |i| &decoded[..i]);
    let again = general_in(decoded, variant);
    core::mem::discriminant(&again.0) != core::mem::discriminant(&read.0) || again.1 != read.1
}

/// [`general`] in one reading.
#[inline(never)]
fn general_in(content: &[u8], variant: Variant) -> (Directive<'_>, bool) {
    let over_long = content.len() > MAX_LINE;
    let limited = variant.line_limit() && over_long;
    let kept = if limited {
        cut_at_char_boundary(content, MAX_LINE)
    } else {
        content
    };
    let Some((key, value, colon)) = key_value(kept, variant.unicode_space()) else {
        return (Directive::Unknown, true);
    };
    // The spec's grammar: a colon, and the whole field name.
    let exact = |name: &[u8]| colon && key.eq_ignore_ascii_case(name);
    // Google matches field names by prefix and tolerates frequent typos;
    // the spec is silent, and recognising a misspelt Disallow can only
    // block more, never less.
    let is = |prefixes: &[&[u8]]| prefixes.iter().any(|p| starts_with_ci(key, p));
    // The names of each first letter are tried only for keys with it.
    match key[0].to_ascii_lowercase() {
        b'u' if is(&[b"user-agent", b"useragent", b"user agent"]) => {
            (Directive::UserAgent(value), exact(b"user-agent"))
        }
        // Cut as Google cuts it, an Allow may lose its value (padding
        // before it) and with it what it allowed: Google's reference then
        // denies. A cut that leaves a shorter value allows more in this
        // reading, which the others, asked too, keep from mattering.
        b'a' if is(&[b"allow"]) => (Directive::Allow(value), exact(b"allow")),
        b'd' if is(&[
            b"disallow",
            b"dissallow",
            b"dissalow",
            b"disalow",
            b"diasllow",
            b"disallaw",
        ]) =>
        {
            let truncated_from = if limited {
                key_value(content, variant.unicode_space())
                    .map(|(_, v, _)| v.len())
                    // Cut before its value (padding), Google reads an empty
                    // Disallow; the base reading keeps the whole rule.
                    .filter(|&n| n > value.len() && !value.is_empty())
            } else {
                None
            };
            // A cut value must match every path the full one matched.
            let value = if truncated_from.is_some() {
                superset_cut(value)
            } else {
                value
            };
            (
                Directive::Disallow {
                    value,
                    truncated_from,
                },
                exact(b"disallow"),
            )
        }
        b'c' if is(&[b"crawl-delay", b"crawldelay", b"crawl_delay"]) => {
            (Directive::CrawlDelay(value), exact(b"crawl-delay"))
        }
        b's' if is(&[b"sitemap", b"site-map"]) => (Directive::Sitemap(value), exact(b"sitemap")),
        _ => (Directive::Unknown, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    fn dirs(body: &[u8]) -> Vec<Directive<'_>> {
        lines(body).map(|l| l.directive).collect()
    }

    #[test]
    fn fields_comments_and_line_ends() {
        let body = b"\xEF\xBB\xBFUser-Agent: Foo # c\r\nDISALLOW:/a\rallow : /b\n\n# only\nSitemap: http://x/s.xml";
        assert_eq!(
            dirs(body),
            [
                Directive::UserAgent(b"Foo"),
                Directive::Disallow {
                    value: b"/a",
                    truncated_from: None
                },
                Directive::Allow(b"/b"),
                Directive::Unknown,
                Directive::Unknown,
                Directive::Sitemap(b"http://x/s.xml"),
            ]
        );
    }

    #[test]
    fn every_field_name_and_neighbour() {
        let d = |v: &'static [u8]| Directive::Disallow {
            value: v,
            truncated_from: None,
        };
        for (line, want) in [
            (&b"  \tUSER-AGENT : x"[..], Directive::UserAgent(b"x")),
            (b"useragent:x", Directive::UserAgent(b"x")),
            (b"User Agent: x", Directive::UserAgent(b"x")),
            (b"user-agents: x", Directive::UserAgent(b"x")),
            (b"Allow: /a", Directive::Allow(b"/a")),
            (b"ALLOWED: /a", Directive::Allow(b"/a")),
            (b"dissallow: /a", d(b"/a")),
            (b"Dissalow: /a", d(b"/a")),
            (b"disalow: /a", d(b"/a")),
            (b"diasllow: /a", d(b"/a")),
            (b"DISALLAW: /a", d(b"/a")),
            (b"\x0bdisallow /a", d(b"/a")),
            (b"Crawl-delay: 5", Directive::CrawlDelay(b"5")),
            (b"crawldelay: 5", Directive::CrawlDelay(b"5")),
            (b"crawl_delay: 5", Directive::CrawlDelay(b"5")),
            (b"Site-map: s", Directive::Sitemap(b"s")),
            (b"sitemap:s", Directive::Sitemap(b"s")),
            // Same first letter, other name; other first letters.
            (b"user: x", Directive::Unknown),
            (b"alow: /a", Directive::Unknown),
            (b"delay: 5", Directive::Unknown),
            (b"crawl: 5", Directive::Unknown),
            (b"site: s", Directive::Unknown),
            (b"host: example.com", Directive::Unknown),
            (b"<html><body>disallow: /a", Directive::Unknown),
            (b"# disallow: /a", Directive::Unknown),
            (b"  # disallow: /a", Directive::Unknown),
            (b": disallow", Directive::Unknown),
            (b"", Directive::Unknown),
            (b" \t ", Directive::Unknown),
            (b"\xEF\xBB\xBFdisallow: /a", Directive::Unknown),
            (b"disallow: /a # b", d(b"/a")),
            (b"disallow#: /a", Directive::Unknown),
        ] {
            assert_eq!(
                directive(line),
                want,
                "{:?}",
                line.utf8_chunks().collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn the_common_shapes_read_as_the_general_reader_reads_them() {
        for line in [
            &b"Disallow: /a"[..],
            b"disallow:/a b ",
            b"DISALLOW:",
            b"Allow: /x:y",
            b"allow:\t/x\x0b",
            b"User-agent: Walsh-Research/1.2",
            b"user-agent:*",
            b"User-Agent:",
            b"Sitemap: https://example.com/sitemap.xml",
            b"SITEMAP:",
            b"sitemap:\tx y ",
            b"Crawl-delay: 5",
            b"crawl-DELAY:0.5 ",
            b"Crawl-delay:",
        ] {
            let (fast, _) = common(line).expect("a common shape");
            assert_eq!(
                (fast, true),
                general_in(line, Variant::BASE),
                "{:?}",
                core::str::from_utf8(line)
            );
        }
        for line in [
            &b"Disallow /a"[..],
            b"Disallowed: /a",
            b"Allow-ads: /",
            b"user-agent :x",
            b"Sitemaps: x",
            b"Site-map: x",
            b"crawldelay: 5",
            b"Crawl-delay 5",
        ] {
            assert_eq!(common(line), None, "{:?}", core::str::from_utf8(line));
        }
    }

    #[test]
    fn the_word_compares_accept_exactly_the_names() {
        // Every octet in every place of each common shape: the fast path
        // either declines or reads what the general reader reads, and it
        // takes every case-folded spelling of the names.
        for name in [
            &b"disallow"[..],
            b"allow",
            b"user-agent",
            b"sitemap",
            b"crawl-delay",
        ] {
            let mut line = Vec::from(name);
            line.extend_from_slice(b": /v");
            for at in 0..line.len() {
                for o in 0..=255u8 {
                    let mut l = line.clone();
                    l[at] = o;
                    if let Some((d, _)) = common(&l) {
                        assert_eq!((d, true), general_in(&l, Variant::BASE), "{l:?}");
                    }
                }
            }
            for flips in 0..1u32 << name.len() {
                let mut l = line.clone();
                for (i, b) in l.iter_mut().take(name.len()).enumerate() {
                    if flips >> i & 1 == 1 {
                        *b = b.to_ascii_uppercase();
                    }
                }
                assert!(common(&l).is_some(), "{l:?}");
            }
            // Too short for the colon: declined, never read past the end.
            assert_eq!(common(name), None);
        }
    }

    #[test]
    fn only_exact_names_with_a_colon_are_strict() {
        for (line, strict) in [
            (&b"User-agent: x"[..], true),
            (b"  USER-AGENT : x", true),
            (b"Allow: /a", true),
            (b"allow:/a", true),
            (b"Disallow: /a", true),
            (b"Crawl-delay: 5", true),
            (b"Sitemap: s", true),
            (b"Allow-ads: /", false),
            (b"ALLOWED: /a", false),
            (b"Allow /a", false),
            (b"Disallow /a", false),
            (b"Dissallow: /a", false),
            (b"useragent: x", false),
            (b"User Agent: x", false),
            (b"crawldelay: 5", false),
            (b"host: x", true),
            (b"", true),
        ] {
            assert_eq!(read(line).1, strict, "{:?}", core::str::from_utf8(line));
        }
    }

    #[test]
    fn the_prebuilt_searchers_split_lines_as_memchr_does() {
        // Bodies of directive lines, comments, blank lines and every line
        // end, long and short: the searchers built once per body (AVX2 on
        // this machine when available) and the portable `memchr` calls
        // give the same lines.
        let pieces: [&[u8]; 9] = [
            b"Disallow: /a",
            b"\n",
            b"\r\n",
            b"\r",
            b"# c",
            b"User-agent: *",
            b" allow: /x#y",
            b"<html> some prose that runs past one vector of thirty-two octets",
            b"",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3_000 {
            let mut body = Vec::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                body.extend_from_slice(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let fast: Vec<_> = lines(&body).collect();
            let mut portable = lines(&body);
            #[cfg(target_arch = "x86_64")]
            {
                portable.ends.avx2 = None;
            }
            assert_eq!(fast, portable.collect::<Vec<_>>(), "{body:?}");
        }
    }

    #[test]
    fn blank_runs_end_where_the_octet_by_octet_scan_ends() {
        // Runs of spaces, tabs and the other blanks, mixed, of every
        // length around a word, ended by each kind of octet or by the end.
        let octets = [b' ', b'\t', 0x0b, 0x0c, b'a', b'\n', b'#', 0x20 ^ 0x80];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut s = Vec::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 40) as usize;
            for i in 0..len {
                let pick = (seed >> (i % 60)) as usize;
                // Blanks four times in five, to make long runs.
                s.push(
                    octets[if pick.is_multiple_of(5) {
                        pick % 8
                    } else {
                        pick % 4
                    }],
                );
            }
            let want = s.iter().position(|&b| !is_ws(b)).unwrap_or(s.len());
            assert_eq!(blanks(&s), want, "{s:?}");
        }
    }

    #[test]
    fn a_value_reads_as_the_two_trims_read_it() {
        // Values of blanks, Unicode's spaces, the separators, printable
        // and other octets at either end: the shortcut for a space then
        // printable ASCII gives the trims' value and flag, or steps aside.
        let pieces: [&[u8]; 10] = [
            b" ",
            b"\t",
            b"\x0b",
            b"/a",
            b"*",
            b"\x1d",
            "\u{a0}".as_bytes(),
            "\u{3000}".as_bytes(),
            b"\x7f",
            b"\xff",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut v = Vec::new();
            for _ in 0..seed % 6 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                v.extend_from_slice(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let t = trim(&v);
            assert_eq!(value_of(&v), (t, unicode_trims_more(t)), "{v:?}");
        }
    }

    #[test]
    fn missing_colon_only_with_two_tokens() {
        assert_eq!(
            directive(b"user-agent FooBot"),
            Directive::UserAgent(b"FooBot")
        );
        assert_eq!(directive(b"disallow / extra"), Directive::Unknown);
        assert_eq!(directive(b"disallow"), Directive::Unknown);
    }

    #[test]
    fn bom_prefixes_are_skipped() {
        assert_eq!(skip_bom(b"\xEF\xBBUser"), b"User");
        assert_eq!(skip_bom(b"\xEFUser"), b"User");
        assert_eq!(skip_bom(b"\xEF\x11\xBF"), b"\x11\xBF");
    }

    #[test]
    fn long_lines_cut_without_splitting_utf8() {
        let mut line = Vec::from(&b"disallow: /"[..]);
        while line.len() < MAX_LINE - 1 {
            line.push(b'a');
        }
        line.extend_from_slice("ツツ".as_bytes());
        // Google's limit, the LINE_LIMIT reading: cut, never inside a
        // character, and marked cut.
        match general_in(&line, Variant::BASE.with(Variant::LINE_LIMIT)).0 {
            Directive::Disallow {
                value,
                truncated_from,
            } => {
                assert!(core::str::from_utf8(value).is_ok());
                assert!(value.len() < MAX_LINE);
                assert_eq!(truncated_from, Some(line.len() - 10));
            }
            d => panic!("{d:?}"),
        }
        // The spec's reading has no limit: the whole value, not cut.
        assert_eq!(
            directive(&line),
            Directive::Disallow {
                value: &line[10..],
                truncated_from: None
            }
        );
    }
}
