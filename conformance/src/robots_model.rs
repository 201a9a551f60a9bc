//! Reference model of spec sections 9.1.2-9.1.5: how a robots.txt body is
//! read, which of its groups apply to a product token, whether a request
//! target may be fetched, and what Crawl-delay applies.
//!
//! # Why a second implementation
//!
//! `wr-core` reads robots.txt quickly: it streams the body once, keeps
//! only what one token needs, groups the lines two ways at once, uses a
//! linear-time matcher and evaluates three readings in one pass. Each of those shortcuts is a
//! place where it can drift from the contract. This module is the opposite:
//! it follows the spec's sentences in their order, one function per
//! paragraph, with no shortcut that needs an argument to be trusted. Tests
//! hold `wr-core` against it with a single invariant, the one R2c states:
//! "it MUST NOT fetch a URL the full algorithm would deny (no
//! under-blocking), but it MAY over-block". Production may therefore deny
//! more than this model; it must never allow a target the model denies.
//!
//! # The strict reading
//!
//! Where the spec's text leaves room, the model takes the reading that
//! denies more, because that is the reading an implementation can follow
//! without risk of under-blocking:
//!
//! - Only the four field names the spec lists are lines of the grammar,
//!   spelt exactly (any letter case). A misspelt or unknown field, or a line
//!   with no colon, is not a line of the grammar at all: it neither adds a
//!   rule nor ends a run of User-agent lines.
//! - A Crawl-delay line is a rule line (the spec lists it among them), so it
//!   ends a run of User-agent lines, whatever its value.
//! - A User-agent value is read up to its first whitespace or `/`: section
//!   8.1 says the product version is not used for matching.
//! - Precedence counts subject octets: the octets the rule's match covers,
//!   which is the spec's "an expanded * counts as the characters it
//!   consumed". A `*` can consume runs of several lengths; a Disallow is
//!   credited with the longest run that still lets it match, an Allow with
//!   the shortest. A final `$` counts nothing. Lengths are taken after
//!   percent normalisation, in the octets of the normalised target.
//! - "Unreserved" is RFC 3986's set: ALPHA, DIGIT, `-`, `.`, `_`, `~`.
//!
//! # Domain
//!
//! The model is defined for bodies of at most [`MAX_BODY`] octets: section
//! 9.1.1 lets a tool cut a longer body to 500 KiB before parsing, and how it
//! cuts is the tool's business. Callers pass at most that many octets (for
//! a longer body, its first [`MAX_BODY`]); the answers for a longer body are
//! not part of the model.
//!
//! # Cost
//!
//! Clarity first. Every [`decide`] call re-reads the whole body; matching is
//! a dynamic programme over (rule octet, target octet) positions, so it is
//! O(rule length x target length) per rule. [`Model`] parses once for
//! callers that ask about many targets.

use std::borrow::Cow;

/// The largest body the model is defined for: 500 KiB, the size section
/// 9.1.1 lets a tool cut a body to.
pub const MAX_BODY: usize = 500 * 1024;

/// Where the spec's words leave room in how the text itself is read
/// (issue #18), the model follows each reading on request, so that a test
/// can hold production to every one of them:
///
/// - `unicode_space`: "surrounding whitespace is trimmed" (9.1.2) with
///   whitespace as Unicode defines it (`char::is_whitespace`, plus the
///   separators U+001C-U+001F that Python's `str.strip` removes), not only
///   ASCII blanks; a product token ends at any of them too;
/// - `whole_agent`: "For each User-agent value U (lowercased)" (9.1.3) read
///   literally: U is the whole value, not its product token;
/// - `reserved_escapes`: an escape of a printable ASCII octet other than
///   `%` (`%2F`, `%3F`, `%3D`...) names that octet, and a `%` that starts
///   no escape is `%25`, in the file and in the target (Python's parser
///   unquotes and quotes again before it compares); in a User-agent or
///   Crawl-delay value every escape of a printable octet names it
///   (Python unquotes each value before it reads it);
/// - `empty_agent`: an empty User-agent value is a name, and "U is a
///   prefix of T" holds for it (the shortest match there is);
/// - `placed_octets`: "compare percent-encoding consistently" with each
///   rule octet in the form of the place where it meets the target. The
///   URL the bot sends encodes `{` `}` `` ` `` in its path and keeps them
///   raw in its query, and `'` the other way round; the default reading
///   places a rule's octets by the rule's own first `?`, but after a `*`
///   an octet before that `?` may meet the target's query (`*{x}*` and
///   `/?id={x}`). Here it is compared as the query holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// See the type's docs.
    pub unicode_space: bool,
    /// See the type's docs.
    pub whole_agent: bool,
    /// See the type's docs.
    pub reserved_escapes: bool,
    /// See the type's docs.
    pub empty_agent: bool,
    /// See the type's docs.
    pub placed_octets: bool,
}

impl Options {
    /// Every combination, the default one first.
    pub fn all() -> impl Iterator<Item = Options> {
        (0..32u8).map(|b| Options {
            unicode_space: b & 1 != 0,
            whole_agent: b & 2 != 0,
            reserved_escapes: b & 4 != 0,
            empty_agent: b & 8 != 0,
            placed_octets: b & 16 != 0,
        })
    }
}

/// The model's answer for one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelVerdict {
    /// Whether the spec's algorithm allows the path.
    pub allowed: bool,
    /// 1-based line of the deciding rule, if a rule decided.
    pub line: Option<u32>,
}

/// Decides `path_and_query` for product token `token` under `body`.
///
/// `body` must be at most [`MAX_BODY`] octets (see the module docs).
pub fn decide(body: &[u8], token: &str, path_and_query: &str) -> ModelVerdict {
    Model::parse(body, token).decide(path_and_query)
}

/// The selected groups' Crawl-delay in seconds (largest when several apply).
///
/// `body` must be at most [`MAX_BODY`] octets (see the module docs).
pub fn crawl_delay(body: &[u8], token: &str) -> Option<f64> {
    Model::parse(body, token).crawl_delay()
}

// ---------------------------------------------------------------------------
// Lines (9.1.2)
// ---------------------------------------------------------------------------

/// What kind of line of the grammar a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineKind {
    /// `User-agent:`
    UserAgent,
    /// `Allow:`
    Allow,
    /// `Disallow:`
    Disallow,
    /// `Crawl-delay:`
    CrawlDelay,
}

impl LineKind {
    /// The field name as the spec spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::UserAgent => "User-agent",
            LineKind::Allow => "Allow",
            LineKind::Disallow => "Disallow",
            LineKind::CrawlDelay => "Crawl-delay",
        }
    }
}

/// One line of the grammar, as the model reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelLine {
    /// 1-based line number in the body.
    pub line: u32,
    /// Which field.
    pub kind: LineKind,
    /// The value: after the first colon, comment removed, whitespace
    /// trimmed; octets as written.
    pub value: Vec<u8>,
}

/// The octets the spec's "surrounding whitespace is trimmed" trims: space,
/// horizontal tab, vertical tab and form feed. (CR and LF end lines, so a
/// line never holds them.)
fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0B | 0x0C)
}

/// The first character of `octets` and its length in octets, if it starts
/// with valid UTF-8.
fn first_char(octets: &[u8]) -> Option<(char, usize)> {
    (1..=4.min(octets.len())).find_map(|n| {
        let c = std::str::from_utf8(&octets[..n]).ok()?.chars().next()?;
        Some((c, n))
    })
}

/// The last character of `octets` and its length in octets.
fn last_char(octets: &[u8]) -> Option<(char, usize)> {
    (1..=4.min(octets.len())).find_map(|n| {
        let c = std::str::from_utf8(&octets[octets.len() - n..])
            .ok()?
            .chars()
            .next()?;
        Some((c, n))
    })
}

/// Whitespace in the `unicode_space` reading (see [`Options`]).
fn is_unicode_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `octets` without leading and trailing whitespace, as `options` reads
/// whitespace.
fn trim_with(mut octets: &[u8], options: Options) -> &[u8] {
    if !options.unicode_space {
        return trim(octets);
    }
    while let Some((c, n)) = first_char(octets).filter(|(c, _)| is_unicode_space(*c)) {
        let _ = c;
        octets = &octets[n..];
    }
    while let Some((_, n)) = last_char(octets).filter(|(c, _)| is_unicode_space(*c)) {
        octets = &octets[..octets.len() - n];
    }
    octets
}

/// `octets` without leading and trailing whitespace.
fn trim(octets: &[u8]) -> &[u8] {
    let start = octets.iter().position(|&b| !is_whitespace(b));
    let Some(start) = start else {
        // Nothing but whitespace: trimming leaves nothing.
        return &[];
    };
    let end = octets
        .iter()
        .rposition(|&b| !is_whitespace(b))
        .unwrap_or(start);
    &octets[start..=end]
}

/// The body's lines, numbered from 1, without their line ends.
///
/// The spec says to "parse it per RFC 9309" (9.1); that RFC is where the
/// two rules below come from: a byte order mark at the start is not part
/// of the first line, and CR, LF and CRLF each end a line.
fn split_lines(body: &[u8]) -> Vec<(u32, &[u8])> {
    // A UTF-8 byte order mark is EF BB BF. A body that starts with all of
    // it, or with only its first one or two octets, is read from after
    // those octets (a cut-off mark is still not text).
    const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
    let mut skip = 0;
    while skip < BOM.len() && body.get(skip) == Some(&BOM[skip]) {
        skip += 1;
    }
    let rest = &body[skip..];

    let mut lines = Vec::new();
    let mut number: u32 = 1;
    let mut start = 0;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            // "CR, LF or CRLF" end a line; a CR directly followed by LF is
            // one line end, not two.
            b'\r' => {
                lines.push((number, &rest[start..i]));
                number += 1;
                if rest.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            b'\n' => {
                lines.push((number, &rest[start..i]));
                number += 1;
                start = i + 1;
            }
            // Any other octet belongs to the line.
            _ => {}
        }
        i += 1;
    }
    // The last line need not end with a line end.
    if start < rest.len() {
        lines.push((number, &rest[start..]));
    }
    lines
}

/// Reads one line: `Some` for a line of the grammar, `None` for anything
/// else (blank lines, comments, unknown fields, lines with no colon).
fn read_line(number: u32, text: &[u8], options: Options) -> Option<ModelLine> {
    // "# begins a comment": everything from the first `#` to the end of the
    // line is not part of the line.
    let text = match text.iter().position(|&b| b == b'#') {
        Some(hash) => &text[..hash],
        None => text,
    };
    // "Lines are field: value": a line with no colon has no field, so it
    // is not a line of the grammar ("blank lines are ignored" covers the
    // empty ones, and a comment-only line is empty once its comment is
    // gone). The field ends at the first colon; the value is the rest.
    let colon = text.iter().position(|&b| b == b':')?;
    // "surrounding whitespace is trimmed": around the field and the value.
    let field = trim_with(&text[..colon], options);
    let value = trim_with(&text[colon + 1..], options);
    // "field names are case-insensitive": compared in lower case, and only
    // the four fields section 9.1.2 names are lines of the grammar. A
    // misspelling (`dissallow`, `useragent`) or another field (`sitemap`,
    // `allow-ads`) is not one of them: ignored.
    let kind = match field.to_ascii_lowercase().as_slice() {
        b"user-agent" => LineKind::UserAgent,
        b"allow" => LineKind::Allow,
        b"disallow" => LineKind::Disallow,
        b"crawl-delay" => LineKind::CrawlDelay,
        _ => return None,
    };
    Some(ModelLine {
        line: number,
        kind,
        value: value.to_vec(),
    })
}

/// Every line of the grammar in `body`, in file order.
pub fn lines(body: &[u8]) -> Vec<ModelLine> {
    lines_with(body, Options::default())
}

/// [`lines`] in the reading `options`.
pub fn lines_with(body: &[u8], options: Options) -> Vec<ModelLine> {
    split_lines(body)
        .into_iter()
        .filter_map(|(number, text)| read_line(number, text, options))
        .collect()
}

// ---------------------------------------------------------------------------
// Groups (9.1.2)
// ---------------------------------------------------------------------------

/// One group: its User-agent values and the rule lines that follow them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Group {
    /// The product tokens of its User-agent lines, lower-cased.
    agents: Vec<Vec<u8>>,
    /// Its Allow, Disallow and Crawl-delay lines, in file order.
    rules: Vec<ModelLine>,
}

/// The product token of a User-agent value: lower-cased, cut at the first
/// whitespace or `/`.
fn agent_token(value: &[u8], options: Options) -> Vec<u8> {
    if options.whole_agent {
        // 9.1.3 read literally: "For each User-agent value U (lowercased)".
        return value.to_ascii_lowercase();
    }
    // Section 8.1: "The version is part of the exact UA string but is not
    // used for robots matching (R2 keys on the bare Walsh-Research token)".
    // So `Walsh-Research/1.2` names `walsh-research`; whatever follows a
    // space is not part of the name either.
    let mut end = 0;
    while end < value.len() {
        let rest = &value[end..];
        if rest[0] == b'/' || is_whitespace(rest[0]) {
            break;
        }
        match first_char(rest) {
            Some((c, _)) if options.unicode_space && is_unicode_space(c) => break,
            Some((_, n)) => end += n,
            None => end += 1,
        }
    }
    // 9.1.3: "For each User-agent value U (lowercased)".
    value[..end].to_ascii_lowercase()
}

/// The body's groups, in file order.
fn groups(lines: &[ModelLine], options: Options) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for line in lines {
        match line.kind {
            LineKind::UserAgent => {
                // "A group is one or more consecutive User-agent lines
                // followed by the rule lines ... that apply to them. A
                // User-agent line appearing after a rule line starts a new
                // group." Only lines of the grammar count here: an ignored
                // line between two User-agent lines leaves them consecutive.
                let starts_new = match groups.last() {
                    None => true,
                    Some(group) => !group.rules.is_empty(),
                };
                if starts_new {
                    groups.push(Group::default());
                }
                let group = groups.last_mut().expect("pushed above when absent");
                group
                    .agents
                    .push(agent_token(&unquoted(&line.value, options), options));
            }
            LineKind::Allow | LineKind::Disallow | LineKind::CrawlDelay => {
                // "the rule lines (Allow, Disallow, Crawl-delay) that apply
                // to them": a rule line belongs to the group whose
                // User-agent lines precede it. Before the first User-agent
                // line there is no such group; the line applies to nobody.
                if let Some(group) = groups.last_mut() {
                    group.rules.push(line.clone());
                }
            }
        }
    }
    groups
}

// ---------------------------------------------------------------------------
// Selection (9.1.3)
// ---------------------------------------------------------------------------

/// Which groups apply to the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Groups naming the token (or a prefix of it); the value is the
    /// longest matching name, lower-cased.
    Named(Vec<u8>),
    /// The `*` groups: no named group matched.
    Wildcard,
    /// Neither: no rules apply.
    None,
}

/// The length of the longest name in `group` that matches `t`, if any.
fn named_match(group: &Group, t: &[u8], options: Options) -> Option<usize> {
    if options.empty_agent && group.agents.iter().any(|u| u.is_empty()) {
        // The empty name is a prefix of every token, the shortest one.
        let longer = named_match(
            group,
            t,
            Options {
                empty_agent: false,
                ..options
            },
        );
        return Some(longer.unwrap_or(0));
    }
    group
        .agents
        .iter()
        // "U = T (exact match)" and "U is a prefix of T (walsh matches
        // walsh-research)". An empty value names nothing: it is a prefix of
        // every token only in the degenerate sense, and the spec's example
        // is a real name. `*` is handled apart ("The non-* group").
        .filter(|u| u.as_slice() != b"*" && !u.is_empty() && t.starts_with(u))
        .map(|u| u.len())
        .max()
}

/// Whether `group` lists the wildcard.
fn is_wildcard(group: &Group) -> bool {
    // "U = "*" (wildcard)".
    group.agents.iter().any(|u| u.as_slice() == b"*")
}

/// The groups that apply to `token`, merged, and which kind they are.
fn select<'g>(groups: &'g [Group], token: &str, options: Options) -> (Selection, Vec<&'g Group>) {
    // 'Let T = "walsh-research" (lowercased token).'
    let t = token.as_bytes().to_ascii_lowercase();
    // "The non-* group whose matching U is longest wins." A group that lists
    // a matching name next to `*` is a named group for this purpose.
    let longest = groups
        .iter()
        .filter_map(|g| named_match(g, &t, options))
        .max();
    if let Some(longest) = longest {
        // "Records with the same User-agent value merge": every group whose
        // longest matching name is that longest one is selected. (All
        // matching names are prefixes of T, so equal length means the same
        // name.)
        let chosen: Vec<&Group> = groups
            .iter()
            .filter(|g| named_match(g, &t, options) == Some(longest))
            .collect();
        return (Selection::Named(t[..longest].to_vec()), chosen);
    }
    // "If no named group matches, use the * group." Several `*` groups are
    // records with the same User-agent value: they merge.
    let wildcards: Vec<&Group> = groups.iter().filter(|g| is_wildcard(g)).collect();
    if !wildcards.is_empty() {
        return (Selection::Wildcard, wildcards);
    }
    // "If no * group exists, no rules apply (allow all)."
    (Selection::None, Vec::new())
}

// ---------------------------------------------------------------------------
// Percent-encoding (9.1.4)
// ---------------------------------------------------------------------------

/// RFC 3986's unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~".
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// The value of one hexadecimal digit.
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Writes `%XX` for `b`, upper-case hexadecimal.
fn push_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push(b'%');
    out.push(HEX[usize::from(b >> 4)]);
    out.push(HEX[usize::from(b & 0x0F)]);
}

/// The one form both sides of a comparison are brought to.
///
/// "Compare percent-encoding consistently (decode unreserved octets on both
/// sides)". Applied alike to rule values and to the request target:
///
/// - `%XX` naming an unreserved octet becomes that octet (`%7E` is `~`,
///   `%41` is `A`);
/// - any other `%XX` stays encoded, its hex digits in upper case (`%2f`
///   and `%2F` are one thing, and neither is `/`);
/// - octets that cannot appear raw in a request target (non-ASCII, the
///   controls, space and DEL) are written `%XX`, as RFC 9309 asks for
///   octets outside ASCII, so a raw `ツ` and its escaped form compare equal;
/// - a `%` not followed by two hex digits is an ordinary octet.
///
/// `*` and `$` are untouched: they are plain octets in a target and
/// metacharacters in a rule, and no escape decodes to them.
pub fn normalize(octets: &[u8]) -> Vec<u8> {
    normalize_from(octets, false)
}

/// [`normalize`] of octets that start in the query (`query`) or the path.
fn normalize_from(octets: &[u8], query: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(octets.len());
    let mut i = 0;
    let mut query = query;
    while i < octets.len() {
        let b = octets[i];
        query |= b == b'?';
        if b == b'%' {
            let hi = octets.get(i + 1).copied().and_then(hex_value);
            let lo = octets.get(i + 2).copied().and_then(hex_value);
            if let (Some(hi), Some(lo)) = (hi, lo) {
                let decoded = hi << 4 | lo;
                if is_unreserved(decoded) {
                    // "decode unreserved octets".
                    out.push(decoded);
                } else {
                    // Not unreserved: still encoded, spelt one way.
                    push_escape(&mut out, decoded);
                }
                i += 3;
                continue;
            }
            // A lone `%`: nothing to decode.
            out.push(b);
        } else if b >= 0x80 || b <= 0x20 || b == 0x7F || never_sent_raw(b, query) {
            // Raw octets a target cannot carry, or that the URL the bot
            // sends never carries raw there: compared in encoded form.
            push_escape(&mut out, b);
        } else {
            // Printable ASCII other than `%` is compared as it is.
            out.push(b);
        }
        i += 1;
    }
    out
}

/// Whether the URL the bot sends (the WHATWG serialisation, which the
/// `url` crate writes) never carries `b` raw in its path, or, with
/// `query`, in its query: the octets its path percent-encode set and its
/// special-query percent-encode set add to controls, space and non-ASCII.
fn never_sent_raw(b: u8, query: bool) -> bool {
    if query {
        matches!(b, b'"' | b'<' | b'>' | b'\'')
    } else {
        matches!(b, b'"' | b'<' | b'>' | b'`' | b'{' | b'}')
    }
}

/// Whether the `placed_octets` reading can read `body` otherwise than the
/// default one: it needs a `*`, which may carry a rule's octet into a
/// query, and an octet the URL the bot sends encodes in one place only
/// (see [`Options`]).
pub fn placed_octets_may_differ(body: &[u8]) -> bool {
    body.contains(&b'*')
        && body
            .iter()
            .any(|&b| never_sent_raw(b, false) != never_sent_raw(b, true))
}

/// The octet the escape at `i` of `octets` names, if an escape (`%` and
/// two hex digits, either case) starts there.
fn escape_at(octets: &[u8], i: usize) -> Option<u8> {
    match octets.get(i..i + 3) {
        Some([b'%', h, l]) => hex_value(*h).zip(hex_value(*l)).map(|(h, l)| h << 4 | l),
        _ => None,
    }
}

/// A User-agent or Crawl-delay value as the `reserved_escapes` reading
/// reads it: Python's parser unquotes every value before it reads it, so
/// every escape of a printable ASCII octet names it there, `%2D` and
/// `%25` too (`Walsh%2DResearch` is our name to it).
fn unquoted(value: &[u8], options: Options) -> Vec<u8> {
    if !options.reserved_escapes {
        return value.to_vec();
    }
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        match escape_at(value, i).filter(|o| (0x21..=0x7E).contains(o)) {
            Some(o) => {
                out.push(o);
                i += 3;
            }
            None => {
                out.push(value[i]);
                i += 1;
            }
        }
    }
    out
}

/// `octets` with each escape of a printable ASCII octet other than `%`
/// read as the octet, either case, and each `%` that starts no escape
/// written `%25` (the `reserved_escapes` reading, see [`Options`]).
fn decode_slash_and_question(octets: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(octets.len());
    let mut i = 0;
    while i < octets.len() {
        let escape = escape_at(octets, i);
        // Printable ASCII, but not `%` itself, nor an unreserved octet:
        // `normalize` decodes those in every reading, once (decoding them
        // here too would decode `%%37E` twice).
        let named =
            escape.filter(|&o| (0x21..=0x7E).contains(&o) && o != b'%' && !is_unreserved(o));
        match (named, escape) {
            (Some(o), _) => {
                out.push(o);
                i += 3;
            }
            (None, None) if octets[i] == b'%' => {
                out.extend_from_slice(b"%25");
                i += 1;
            }
            _ => {
                out.push(octets[i]);
                i += 1;
            }
        }
    }
    out
}

/// The subject a rule is matched against: path and query, `/` when empty,
/// rooted, normalised.
fn subject(path_and_query: &str) -> Vec<u8> {
    let raw = path_and_query.as_bytes();
    // "Match the request's path + query (default / when empty)".
    let rooted: Vec<u8> = if raw.is_empty() {
        b"/".to_vec()
    } else if raw[0] != b'/' {
        // A target is a path, and every path starts with `/`; `?q` alone
        // is the query of the root. (12.2: `research/bots` is read as
        // `/research/bots`.)
        let mut v = b"/".to_vec();
        v.extend_from_slice(raw);
        v
    } else {
        // Already rooted: taken as it is.
        raw.to_vec()
    };
    // "Compare percent-encoding consistently": the subject is normalised
    // exactly as the rule values are.
    normalize(&rooted)
}

// ---------------------------------------------------------------------------
// Matching (9.1.4)
// ---------------------------------------------------------------------------

/// A rule value ready to match: normalised, its anchor split off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// The value without a final `$`, normalised. `*` is a metacharacter.
    pub octets: Vec<u8>,
    /// The value without a final `$`, as written (for the `placed_octets`
    /// reading, which normalises each octet where it meets the target).
    pub raw: Vec<u8>,
    /// Whether the value ended in `$`.
    pub anchored: bool,
}

impl Pattern {
    /// Reads a rule value as written (already trimmed), or `None` for the
    /// empty value.
    pub fn new(value: &[u8]) -> Option<Pattern> {
        // 'A rule value "" matches nothing (an empty Disallow allows all).'
        if value.is_empty() {
            return None;
        }
        // "$ anchors to the end of path+query": it anchors where it ends
        // the value. A `$` anywhere else cannot anchor anything (the
        // target would have to end in the middle of the rule), so it is an
        // ordinary octet there.
        let (body, anchored) = match value.split_last() {
            Some((b'$', rest)) => (rest, true),
            _ => (value, false),
        };
        Some(Pattern {
            octets: normalize(body),
            raw: body.to_vec(),
            anchored,
        })
    }

    /// Every position in `subject` where a match of this pattern can end,
    /// ascending; empty when the pattern does not match.
    ///
    /// "* matches any sequence (including none)" and "Otherwise a rule
    /// matches if path+query starts with the rule value (after expanding any
    /// *)": the value, each `*` replaced by some run of octets, must be a
    /// prefix of the subject. A position is where such a prefix can end.
    /// The value is taken one normalised octet at a time, keeping the set
    /// of subject positions the pattern read so far can have reached.
    pub fn match_ends(&self, subject: &[u8]) -> Vec<usize> {
        let octets = self.octets.chunks(1);
        self.ends(subject, octets, |o, _| Cow::Borrowed(o))
    }

    /// [`Pattern::match_ends`] in the `placed_octets` reading: each octet
    /// (or escape) of the value as written is normalised as the place it
    /// meets holds it, a query from the subject's first `?` on, a path
    /// before it.
    pub fn match_ends_placed(&self, subject: &[u8]) -> Vec<usize> {
        let query_from = subject
            .iter()
            .position(|&b| b == b'?')
            .map_or(usize::MAX, |q| q + 1);
        // One octet, or one escape: an escape is normalised alike in both
        // places.
        let mut i = 0;
        let pieces = std::iter::from_fn(|| {
            let len = if escape_at(&self.raw, i).is_some() {
                3
            } else {
                1
            };
            let piece = self.raw.get(i..i + len)?;
            i += len;
            Some(piece)
        });
        self.ends(subject, pieces, |o, at| {
            Cow::Owned(normalize_from(o, at >= query_from))
        })
    }

    /// The positions a match can end at, the value taken as `pieces` (a
    /// `*`, or octets that must meet the subject in the form `form` gives
    /// them at a position). Computed one piece at a time, keeping the set
    /// of subject positions the pattern read so far can have reached.
    fn ends<'p>(
        &self,
        subject: &[u8],
        pieces: impl Iterator<Item = &'p [u8]>,
        form: impl Fn(&'p [u8], usize) -> Cow<'p, [u8]>,
    ) -> Vec<usize> {
        // Before any pattern octet, only the start of the subject is reached.
        let mut reached: Vec<usize> = vec![0];
        for piece in pieces {
            reached = if piece == b"*" {
                // A `*` consumes any run, including none: from the earliest
                // position reached, every later position is reachable.
                match reached.first() {
                    Some(&earliest) => (earliest..=subject.len()).collect(),
                    None => Vec::new(),
                }
            } else {
                // Any other piece must come next in the subject. A form of
                // three octets and one of one may make the positions cross.
                let mut next: Vec<usize> = reached
                    .iter()
                    .filter_map(|&at| {
                        let form = form(piece, at);
                        subject[at..].starts_with(&form).then_some(at + form.len())
                    })
                    .collect();
                next.sort_unstable();
                next.dedup();
                next
            };
            if reached.is_empty() {
                // Nothing reached: the rule cannot match.
                return reached;
            }
        }
        if self.anchored {
            // "$ anchors to the end of path+query": the match must cover the
            // whole subject.
            reached.retain(|&at| at == subject.len());
        }
        reached
    }
}

// ---------------------------------------------------------------------------
// The model for one token
// ---------------------------------------------------------------------------

/// Allow or Disallow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// `Allow:`
    Allow,
    /// `Disallow:`
    Disallow,
}

/// One Allow or Disallow of the selected groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRule {
    /// Allow or Disallow.
    pub kind: RuleKind,
    /// The value as written (trimmed, comment removed).
    pub value: Vec<u8>,
    /// 1-based line number.
    pub line: u32,
    /// The value ready to match; `None` for the empty value.
    pub pattern: Option<Pattern>,
}

impl std::fmt::Display for ModelRule {
    /// `Disallow: /b (line 5)`, the form the section 12 vector files use.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            RuleKind::Allow => "Allow",
            RuleKind::Disallow => "Disallow",
        };
        write!(
            f,
            "{kind}: {} (line {})",
            String::from_utf8_lossy(&self.value),
            self.line
        )
    }
}

/// A body read for one token: the selected groups' rules and Crawl-delay.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    selection: Selection,
    rules: Vec<ModelRule>,
    crawl_delay: Option<f64>,
    options: Options,
}

/// Reads a Crawl-delay value: decimal seconds, or `None` when it is not a
/// number.
pub fn parse_crawl_delay(value: &[u8]) -> Option<f64> {
    // "Fractional allowed; ignore a non-numeric value." A number here is
    // digits, optionally a point and more digits, with at least one digit
    // in all: `5`, `0.5`, `.5` and `10.` are numbers; `-1`, `1e3`, `5s`,
    // `soon` and `.` are not.
    let (int, frac) = match value.iter().position(|&b| b == b'.') {
        Some(dot) => (&value[..dot], &value[dot + 1..]),
        None => (value, &[][..]),
    };
    let digits = |s: &[u8]| s.iter().all(|b| b.is_ascii_digit());
    if !digits(int) || !digits(frac) || int.len() + frac.len() == 0 {
        return None;
    }
    // Only ASCII digits and one point remain: valid UTF-8 and a float.
    std::str::from_utf8(value).ok()?.parse::<f64>().ok()
}

impl Model {
    /// Reads `body` for product token `token` (section 9.1.2 and 9.1.3).
    ///
    /// `body` must be at most [`MAX_BODY`] octets (see the module docs).
    pub fn parse(body: &[u8], token: &str) -> Model {
        Model::parse_with(body, token, Options::default())
    }

    /// [`Model::parse`] in the reading `options` (see [`Options`]).
    pub fn parse_with(body: &[u8], token: &str, options: Options) -> Model {
        let decoded;
        let body = if options.reserved_escapes {
            decoded = decode_slash_and_question(body);
            &decoded[..]
        } else {
            body
        };
        let lines = lines_with(body, options);
        let groups = groups(&lines, options);
        let (selection, chosen) = select(&groups, token, options);
        // "Only the selected group's rules are consulted." Merged groups
        // contribute their rules in file order.
        let mut chosen_lines: Vec<&ModelLine> = chosen.iter().flat_map(|g| &g.rules).collect();
        chosen_lines.sort_by_key(|l| l.line);
        let mut rules = Vec::new();
        let mut crawl_delay: Option<f64> = None;
        for line in chosen_lines {
            let kind = match line.kind {
                LineKind::Allow => RuleKind::Allow,
                LineKind::Disallow => RuleKind::Disallow,
                LineKind::CrawlDelay => {
                    // 9.1.5: "a tool MUST honor it when present in the
                    // selected group as the minimum seconds between
                    // requests". Merged groups may give several; the
                    // largest is the one that honours all of them.
                    if let Some(secs) = parse_crawl_delay(&unquoted(&line.value, options)) {
                        crawl_delay = Some(crawl_delay.map_or(secs, |d: f64| d.max(secs)));
                    }
                    continue;
                }
                LineKind::UserAgent => unreachable!("groups hold no User-agent line as a rule"),
            };
            rules.push(ModelRule {
                kind,
                value: line.value.clone(),
                line: line.line,
                pattern: Pattern::new(&line.value),
            });
        }
        Model {
            selection,
            rules,
            crawl_delay,
            options,
        }
    }

    /// Which groups were selected.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The selected Allow and Disallow lines, in file order.
    pub fn rules(&self) -> &[ModelRule] {
        &self.rules
    }

    /// The selected groups' Crawl-delay in seconds, the largest of several.
    pub fn crawl_delay(&self) -> Option<f64> {
        self.crawl_delay
    }

    /// Decides one request target (section 9.1.4).
    pub fn decide(&self, path_and_query: &str) -> ModelVerdict {
        let subject = if self.options.reserved_escapes {
            let decoded = decode_slash_and_question(path_and_query.as_bytes());
            subject(&String::from_utf8_lossy(&decoded))
        } else {
            subject(path_and_query)
        };
        // The best Disallow and the best Allow so far: (length, line).
        let mut best_disallow: Option<(usize, u32)> = None;
        let mut best_allow: Option<(usize, u32)> = None;
        for rule in &self.rules {
            // 'A rule value "" matches nothing'.
            let Some(pattern) = &rule.pattern else {
                continue;
            };
            let ends = if self.options.placed_octets {
                pattern.match_ends_placed(&subject)
            } else {
                pattern.match_ends(&subject)
            };
            // A rule matches when some expansion of its `*`s makes it a
            // prefix of (or, anchored, equal to) the subject.
            let (Some(&shortest), Some(&longest)) = (ends.first(), ends.last()) else {
                continue;
            };
            // "the longest value wins (an expanded * counts as the
            // characters it consumed)". A rule's length is the number of
            // subject octets its match covers: its literal octets plus what
            // its `*`s consumed; a final `$` consumes nothing. When the
            // `*`s can consume more or less, the reading that can only deny
            // more is taken: a Disallow is as long as its longest match, an
            // Allow as short as its shortest.
            let (length, best) = match rule.kind {
                RuleKind::Disallow => (longest, &mut best_disallow),
                RuleKind::Allow => (shortest, &mut best_allow),
            };
            // Among rules of one kind and equal length, the first in the
            // file is named as the deciding one (the answer is the same).
            if best.is_none_or(|(l, _)| length > l) {
                *best = Some((length, rule.line));
            }
        }
        match (best_disallow, best_allow) {
            // "a winning Allow, or no match -> allowed".
            (None, None) => ModelVerdict {
                allowed: true,
                line: None,
            },
            (None, Some((_, line))) => ModelVerdict {
                allowed: true,
                line: Some(line),
            },
            // "A winning Disallow -> denied".
            (Some((_, line)), None) => ModelVerdict {
                allowed: false,
                line: Some(line),
            },
            (Some((d, d_line)), Some((a, a_line))) => {
                if d > a {
                    // The Disallow is longer: it wins, denied.
                    ModelVerdict {
                        allowed: false,
                        line: Some(d_line),
                    }
                } else {
                    // "On a length tie, Allow wins", as does a longer Allow.
                    ModelVerdict {
                        allowed: true,
                        line: Some(a_line),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "Walsh-Research";

    fn denied(body: &str, path: &str) -> bool {
        !decide(body.as_bytes(), T, path).allowed
    }

    #[test]
    fn placed_octets_meet_the_target_where_they_stand() {
        let placed = Options {
            placed_octets: true,
            ..Options::default()
        };
        let denied_placed = |body: &str, path: &str| {
            !Model::parse_with(body.as_bytes(), T, placed)
                .decide(path)
                .allowed
        };
        // Before the rule's own `?`, after a `*`: a path's `%7B` by
        // default, so a query's raw `{` is never met; placed, it is.
        let body = "User-agent: *\nDisallow: *{x}*\n";
        assert!(!denied(body, "/?id={x}"));
        assert!(denied_placed(body, "/?id={x}"));
        assert!(denied_placed(body, "/{x}"));
        assert!(!denied_placed(body, "/?id=x"));
        // `'` the other way round: raw in a path, `%27` in a query.
        let body = "User-agent: *\nDisallow: /*'x\n";
        assert!(!denied(body, "/a?q='x"));
        assert!(denied_placed(body, "/a?q='x"));
        assert!(denied_placed(body, "/a?q=%27x"));
        assert!(denied_placed(body, "/a'x"));
        // Both places in one rule: its first `{` meets the query, its
        // second stands after its own `?`.
        let body = "User-agent: *\nDisallow: /*{y}?*{w}\n";
        assert!(!denied(body, "/a?{y}?{w}"));
        assert!(denied_placed(body, "/a?{y}?{w}"));
        // Precedence still counts subject octets: the Allow covers more.
        let body = "User-agent: *\nDisallow: /*{\nAllow: /a?{{\n";
        assert!(!denied_placed(body, "/a?{{"));
    }

    #[test]
    fn byte_order_mark_and_its_prefixes_are_skipped() {
        for bom in [&[0xEFu8, 0xBB, 0xBF][..], &[0xEF, 0xBB], &[0xEF], &[]] {
            let mut body = bom.to_vec();
            body.extend_from_slice(b"User-agent: *\nDisallow: /x\n");
            let v = decide(&body, T, "/x");
            assert_eq!(
                v,
                ModelVerdict {
                    allowed: false,
                    line: Some(2)
                },
                "{bom:?}"
            );
        }
        // Only at the start: a mark later on is part of a line.
        let body = b"User-agent: *\n\xEF\xBB\xBFDisallow: /x\n";
        assert!(decide(body, T, "/x").allowed);
    }

    #[test]
    fn cr_lf_and_crlf_each_end_one_line() {
        let body = b"User-agent: *\r\nAllow: /a\rDisallow: /x\n\r\nDisallow: /y";
        let numbered: Vec<(u32, LineKind)> = lines(body).iter().map(|l| (l.line, l.kind)).collect();
        assert_eq!(
            numbered,
            [
                (1, LineKind::UserAgent),
                (2, LineKind::Allow),
                (3, LineKind::Disallow),
                (5, LineKind::Disallow)
            ]
        );
    }

    #[test]
    fn fields_are_exact_case_insensitive_and_trimmed() {
        let body = b" \tDISALLOW \x0B: \x0C/a b \t# note\nuser-AGENT:x\ndissallow: /\nDisallow /x\nSitemap: /s\n:/v\n";
        let got: Vec<(LineKind, Vec<u8>)> =
            lines(body).into_iter().map(|l| (l.kind, l.value)).collect();
        assert_eq!(
            got,
            [
                (LineKind::Disallow, b"/a b".to_vec()),
                (LineKind::UserAgent, b"x".to_vec())
            ]
        );
    }

    #[test]
    fn ignored_lines_neither_start_nor_end_groups() {
        // Sitemap and a typo between two User-agent lines: one group.
        let body = "User-agent: OtherBot\nSitemap: /s\nDissallow: /\nUser-agent: Walsh-Research\nDisallow: /p\n";
        assert!(denied(body, "/p"));
        // A Crawl-delay, even a non-numeric one, is a rule line: it ends
        // the run, and OtherBot's Allow is not ours.
        let body = "User-agent: Walsh-Research\nCrawl-delay: soon\nUser-agent: OtherBot\nAllow: /p\nUser-agent: *\nDisallow: /\n";
        let m = Model::parse(body.as_bytes(), T);
        assert_eq!(m.selection(), &Selection::Named(b"walsh-research".to_vec()));
        assert!(m.rules().is_empty());
        assert!(!denied(body, "/p"));
        // Rules before any User-agent line apply to nobody.
        assert!(!denied("Disallow: /\nUser-agent: *\nDisallow: /x\n", "/y"));
    }

    #[test]
    fn agent_values() {
        for (agent, selects) in [
            ("Walsh-Research", true),
            ("WALSH-research", true),
            ("Walsh-Research/1.2", true),
            ("Walsh-Research bot", true),
            ("walsh", true),
            ("w", true),
            ("Walsh-Research2", false),
            ("Walsh_Research", false),
            ("W3C-checklink", false),
            ("", false),
            ("/1.2", false),
            ("*bot", false),
        ] {
            let body = format!(
                "User-agent: {agent}\nDisallow: /named\n\nUser-agent: *\nDisallow: /star\n"
            );
            assert_eq!(denied(&body, "/named"), selects, "{agent:?}");
            assert_eq!(denied(&body, "/star"), !selects, "{agent:?}");
        }
    }

    #[test]
    fn longest_name_wins_and_equal_names_merge() {
        let body = "User-agent: walsh\nUser-agent: OtherBot\nDisallow: /a\n\
                    User-agent: Walsh-Research\nDisallow: /b\nCrawl-delay: 2\n\
                    User-agent: walsh-RESEARCH/9\nUser-agent: *\nDisallow: /c\nCrawl-delay: 7\n";
        let m = Model::parse(body.as_bytes(), T);
        assert_eq!(m.selection(), &Selection::Named(b"walsh-research".to_vec()));
        let lines: Vec<u32> = m.rules().iter().map(|r| r.line).collect();
        assert_eq!(lines, [5, 9]);
        assert_eq!(m.crawl_delay(), Some(7.0));
        assert!(!denied(body, "/a"));
    }

    #[test]
    fn normalisation() {
        for (raw, norm) in [
            ("/%7e%7E~", "/~~~"),
            ("/%41%61", "/Aa"),
            ("/%2f%2F/", "/%2F%2F/"),
            ("/%3a", "/%3A"),
            ("/%", "/%"),
            ("/%4", "/%4"),
            ("/%zz", "/%zz"),
            ("/%257E", "/%257E"),
            ("/a b", "/a%20b"),
            ("/ツ", "/%E3%83%84"),
            ("/*$", "/*$"),
        ] {
            assert_eq!(normalize(raw.as_bytes()), norm.as_bytes(), "{raw}");
        }
        assert_eq!(normalize(b"\x7F\x00\xFF"), b"%7F%00%FF");
    }

    #[test]
    fn match_ends_are_every_reachable_end() {
        let ends = |value: &str, subject: &str| {
            Pattern::new(value.as_bytes())
                .unwrap()
                .match_ends(subject.as_bytes())
        };
        assert_eq!(ends("/a", "/ab"), [2]);
        assert_eq!(ends("/a*", "/ab"), [2, 3]);
        assert_eq!(ends("/*b", "/bab"), [2, 4]);
        assert_eq!(ends("/*b$", "/bab"), [4]);
        assert_eq!(ends("/*b$", "/ba"), Vec::<usize>::new());
        assert_eq!(ends("*", "/x"), [0, 1, 2]);
        assert_eq!(ends("$", "/"), Vec::<usize>::new());
        assert_eq!(ends("/a$b", "/a$bc"), [4]);
        assert_eq!(ends("x", "/x"), Vec::<usize>::new());
        assert!(Pattern::new(b"").is_none());
    }

    #[test]
    fn precedence_counts_consumed_octets() {
        // Disallow `*/trackback/` covers the whole 32-octet target.
        let body = "User-agent: *\nAllow: /wp-content/uploads/\nDisallow: */trackback/\n";
        let v = decide(body.as_bytes(), T, "/wp-content/uploads/x/trackback/");
        assert_eq!(
            v,
            ModelVerdict {
                allowed: false,
                line: Some(3)
            }
        );
        // An Allow is credited with its shortest match: `/p*` counts 2.
        let body = "User-agent: *\nDisallow: /pa\nAllow: /p*\n";
        assert_eq!(
            decide(body.as_bytes(), T, "/page"),
            ModelVerdict {
                allowed: false,
                line: Some(2)
            }
        );
        // A Disallow with its longest: `/*` covers all of `/public/x`.
        let body = "User-agent: *\nDisallow: /*\nAllow: /public\n";
        assert!(denied(body, "/public/x"));
        assert!(!denied(body, "/public"));
        // Ties go to the Allow; the first rule of the winning kind is named.
        let body = "User-agent: *\nDisallow: /a\nAllow: /a\nAllow: /*\nAllow: /a\n";
        assert_eq!(
            decide(body.as_bytes(), T, "/a/x"),
            ModelVerdict {
                allowed: true,
                line: Some(3)
            }
        );
        // No rule matched.
        assert_eq!(
            decide(body.as_bytes(), T, "/b"),
            ModelVerdict {
                allowed: true,
                line: Some(4)
            }
        );
        assert_eq!(
            decide(b"User-agent: *\nDisallow: /a\n", T, "/b"),
            ModelVerdict {
                allowed: true,
                line: None
            }
        );
        // An anchor counts nothing, and both sides are normalised.
        let body = "User-agent: *\nDisallow: /%7Ea$\nAllow: /~\n";
        assert!(denied(body, "/%7ea"));
        assert!(!denied(body, "/~ab"));
    }

    #[test]
    fn subject_forms() {
        let body = "User-agent: *\nDisallow: /$\nDisallow: /?q\n";
        assert!(denied(body, ""));
        assert!(denied(body, "?q"));
        assert!(!denied(body, "/x"));
    }

    #[test]
    fn crawl_delay_values() {
        for (value, want) in [
            ("5", Some(5.0)),
            ("0.5", Some(0.5)),
            (".5", Some(0.5)),
            ("10.", Some(10.0)),
            ("007", Some(7.0)),
            (".", None),
            ("", None),
            ("-1", None),
            ("+1", None),
            ("1e3", None),
            ("5s", None),
            ("5 s", None),
            ("soon", None),
            ("1.2.3", None),
        ] {
            assert_eq!(parse_crawl_delay(value.as_bytes()), want, "{value:?}");
        }
        let body = "User-agent: walsh\nCrawl-delay: 3 # three\nCrawl-delay: x\nUser-agent: Walsh-Research\nCrawl-delay: 1\n\nUser-agent: *\nCrawl-delay: 9\n";
        assert_eq!(crawl_delay(body.as_bytes(), T), Some(1.0));
        assert_eq!(crawl_delay(body.as_bytes(), "walsh"), Some(3.0));
        assert_eq!(crawl_delay(body.as_bytes(), "Googlebot"), Some(9.0));
        assert_eq!(crawl_delay(b"User-agent: x\nCrawl-delay: 9\n", T), None);
    }
}
