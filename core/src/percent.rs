//! Percent-encoding normalisation for robots.txt matching (R2b, RFC 9309 §2.2.2).
//!
//! Rule values and request paths reach the matcher in whatever encoding
//! their authors chose: `%7e` and `~`, `%E3%83%84` and a raw `ツ`. The spec
//! asks that both sides be compared "consistently", so both go through the
//! same function [`normalize_byte_stream`], which produces one canonical
//! octet sequence:
//!
//! * `%XX` naming an unreserved character (ALPHA, DIGIT, `-._~`) is decoded;
//! * any other `%xx` keeps its encoding, with upper-case hex;
//! * octets that can never appear raw in a URI (non-ASCII, controls, space)
//!   are encoded as `%XX`;
//! * octets that the URL the bot sends never carries raw in that part of
//!   the URL are encoded as `%XX` (issue #18): in the path `"` `<` `>`
//!   `` ` `` `{` `}`, in the query `"` `<` `>` `'` (the WHATWG URL
//!   standard's path and special-query percent-encode sets, which the `url`
//!   crate applies to every target before it is sent). A rule written
//!   `*{manageAccount}*` can then match the `%7BmanageAccount%7D` that
//!   goes on the wire; the same octets in the part of the URL that keeps
//!   them raw (`{` in a query, `'` in a path) are left as they are, since
//!   there the raw octet is what is sent;
//! * everything else, including `*` and `$`, is kept.
//!
//! Request targets are expected in the form the bot sends (see
//! `robots::Policy::check`): such a target never holds those octets raw
//! where they would be encoded, so the common target needs no copy.
//!
//! Two more forms serve the other readings of the rules (see
//! `robots`, "the strictest reading wins"):
//!
//! * [`google_form`] mirrors Google's reference parser, which encodes only
//!   non-ASCII octets of a rule and never touches the request path;
//! * the RFC 9309 form ([`Normalized::rfc`], [`rfc_form`]) applies RFC 9309
//!   §2.2.2's table on top of the canonical form: in the query, a raw
//!   general delimiter (`:` `/` `?` `#` `[` `]` `@`) is compared encoded, so
//!   `?u=https://x` and `?u=https%3A%2F%2Fx` are the same octets.
//!
//! The matcher evaluates every reading and denies when any denies.

/// Whether `b` is an RFC 3986 unreserved character.
pub const fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Whether `b` is an RFC 3986 general delimiter, which RFC 9309 §2.2.2
/// compares encoded when it appears raw in a query.
pub const fn is_gen_delim(b: u8) -> bool {
    matches!(b, b':' | b'/' | b'?' | b'#' | b'[' | b']' | b'@')
}

/// Whether the RFC 9309 form of `raw` differs from its canonical form: a
/// raw general delimiter after the first raw `?`.
pub fn rfc_differs(raw: &[u8]) -> bool {
    match memchr::memchr(b'?', raw) {
        Some(q) => raw[q + 1..].iter().any(|&b| is_gen_delim(b)),
        None => false,
    }
}

/// Feeds the RFC 9309 form of `raw` to `out` (see the module docs).
pub fn rfc_form(raw: &[u8], mut out: impl FnMut(u8)) {
    let mut it = Normalized::rfc(raw);
    while let Some(b) = it.next_byte() {
        out(b);
    }
}

/// Whether `value` holds a `%`, a `?`, an octet outside 0x21..=0x7E or
/// one that a sent URL never carries raw in some part of it
/// ([`never_raw`]): the octets that can make a form differ from the value.
/// The reference the fast tests are held to (`decide`'s one-pass target
/// test, the parse's scan of the stored values); no hot path calls it.
pub(crate) fn has_special(value: &[u8]) -> bool {
    value.iter().any(|&b| {
        b == b'%'
            || b == b'?'
            || b.wrapping_sub(0x21) >= 0x5e
            || never_raw(b, false)
            || never_raw(b, true)
    })
}

/// The octet `%hl` escapes, when it is a printable ASCII octet that the
/// reading of issue #18 reads as itself: in a rule or a target, one other
/// than `%` that the canonical form keeps escaped (an unreserved one it
/// decodes already); in a `User-agent` or `Crawl-delay` value (`value`),
/// any (Python unquotes a value whole before it reads it).
#[inline]
fn escaped_printable(h: u8, l: u8, value: bool) -> Option<u8> {
    let o = hex_val(h)? << 4 | hex_val(l)?;
    ((0x21..=0x7e).contains(&o) && (value || (o != b'%' && !is_unreserved(o)))).then_some(o)
}

/// How Python's unquote-then-quote reads the `%` at `i` of `s`, where the
/// canonical form reads it otherwise.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unquoted {
    /// An escape of a printable octet that is neither `%` nor unreserved
    /// (`%2F`, `%3F`, `%3D`), or, in a value (see [`escaped_printable`]),
    /// of any printable octet: the octet itself.
    Octet(u8),
    /// A `%` that starts no escape (`/a%b`, a final `%`): the octet `%`,
    /// which quoting writes `%25`. The canonical form keeps it raw, so
    /// that `/a%b` and `/a%25b` would never be the same octets there. A
    /// value is never quoted again: there it stays.
    Lone,
    /// Any other escape: read the same both ways.
    Same,
}

#[inline]
fn unquoted(s: &[u8], i: usize, value: bool) -> Unquoted {
    match s.get(i + 1..i + 3) {
        Some(&[h, l]) if hex_val(h).is_some() && hex_val(l).is_some() => {
            escaped_printable(h, l, value).map_or(Unquoted::Same, Unquoted::Octet)
        }
        _ if value => Unquoted::Same,
        _ => Unquoted::Lone,
    }
}

/// Whether `s` holds a `%` that the reading of issue #18 compares
/// otherwise than the canonical form does: an escape of a printable ASCII
/// octet that is neither `%` nor unreserved (`%2F`, `%3F`, `%3D`,
/// `%26`...), compared as the octet it names, or a `%` that starts no
/// escape, compared as `%25` (see [`decode_reserved`]).
pub fn has_reserved_escape(s: &[u8]) -> bool {
    reads_otherwise(s, false)
}

/// Whether `value`, a `User-agent` or `Crawl-delay` value, holds an
/// escape of a printable ASCII octet, which Python's parser reads as the
/// octet: it unquotes every value before it reads it (issue #18's
/// `Walsh%2DResearch`).
pub(crate) fn has_printable_escape(value: &[u8]) -> bool {
    reads_otherwise(value, true)
}

/// [`has_reserved_escape`] (`value` false) or [`has_printable_escape`].
fn reads_otherwise(s: &[u8], value: bool) -> bool {
    let at = |i: usize| unquoted(s, i, value) != Unquoted::Same;
    // A request target is short and, when it has one escape, has several
    // (`/%E6%97%A5`): read in line, where a `memchr` call per `%` cost 70
    // instructions an escape. A body's values go at `memchr` speed.
    if s.len() < 64 {
        let mut i = 0;
        while let Some(k) = s[i..].iter().position(|&b| b == b'%') {
            if at(i + k) {
                return true;
            }
            i += k + 1;
        }
        return false;
    }
    memchr::memchr_iter(b'%', s).any(at)
}

/// Feeds `s` to `out` as Python's `urllib.robotparser`, the platform
/// parser of spec 15.1, compares it: it unquotes a URL and quotes it again
/// before it compares, so `/a%2Fb` is `/a/b` and `?q%3Dx` is `?q=x` to it,
/// and `/a%b` (a `%` that starts no escape, left as it is by unquoting)
/// is `/a%25b`; an under-block there is one here (issue #18). So each
/// escape [`has_reserved_escape`] looks for is read as its octet, and each
/// `%` that starts no escape is written `%25`. `%25` itself stays: read as
/// `%`, it would make escapes of octets that were not escaped.
pub fn decode_reserved(s: &[u8], out: &mut dyn FnMut(&[u8])) {
    decode(s, false, out);
}

/// Gathers in `buf` the octets `write` feeds its sink (a decoding, a
/// form): their length, or `None` when they do not fit. The stack's
/// stand-in for a `Vec` on the paths that must work without an allocator
/// (the fixed-capacity policy, the lexer); each caller says what a form
/// too long for it means.
pub(crate) fn gather(buf: &mut [u8], write: impl FnOnce(&mut dyn FnMut(&[u8]))) -> Option<usize> {
    let (mut n, mut fits) = (0, true);
    write(&mut |c| match buf.get_mut(n..n + c.len()) {
        Some(o) => {
            o.copy_from_slice(c);
            n += c.len();
        }
        None => fits = false,
    });
    fits.then_some(n)
}

/// Feeds `value` to `out` with each escape of a printable ASCII octet read
/// as the octet, `%25` and the unreserved ones included (see
/// [`has_printable_escape`]). Escapes of blanks, controls and non-ASCII
/// octets stay: Python decodes them too, but into a value it has already
/// trimmed, where they name nobody a token can match.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) fn decode_printable(value: &[u8], out: &mut dyn FnMut(&[u8])) {
    decode(value, true, out);
}

/// [`decode_reserved`] (`value` false) or [`decode_printable`].
// `dyn`: every caller is a rare path, and one copy keeps the embedded
// artefacts within their size budgets; runs between escapes go out whole.
fn decode(s: &[u8], value: bool, out: &mut dyn FnMut(&[u8])) {
    let mut run = 0;
    for i in memchr::memchr_iter(b'%', s) {
        if i < run {
            continue;
        }
        match unquoted(s, i, value) {
            Unquoted::Octet(o) => {
                out(&s[run..i]);
                out(&[o]);
                run = i + 3;
            }
            Unquoted::Lone => {
                out(&s[run..i]);
                out(b"%25");
                run = i + 1;
            }
            Unquoted::Same => {}
        }
    }
    out(&s[run..]);
}

/// Feeds the canonical form of `t`, a request target, to `out` with its
/// query's octets as a path holds them: `{` `}` `` ` `` escaped, `%27` as
/// `'`. `false`, and nothing fed, when its query holds none of them.
///
/// Why: a sent URL encodes these octets by their place (`{` raw in a
/// query, escaped in a path; `'` the other way), and so does a form, but a
/// rule takes its place from its own first `?`. After a `*`, a rule's
/// octet may stand in a query all the same: `*{x}*` is `*%7Bx%7D*`, which
/// a `{` in a query never met, where the spec's text, read as the rule's
/// author meant it, and Python's parser (it quotes both sides alike)
/// deny. The form this feeds is not any target's own form, so it is
/// matched as it is (`eval::decide_form`); asked as one more reading of
/// the target, it can only add denials.
pub(crate) fn query_as_path(t: &[u8], out: &mut dyn FnMut(&[u8])) -> bool {
    if !query_keeps_raw(t) {
        return false;
    }
    let mut form = if t.first() == Some(&b'/') {
        Normalized::new(t)
    } else {
        Normalized::with_leading_slash(t, false)
    };
    let mut query = false;
    while let Some(b) = form.next_byte() {
        if query && b == b'%' {
            let mut ahead = form;
            if (ahead.next_byte(), ahead.next_byte()) == (Some(b'2'), Some(b'7')) {
                form = ahead;
                out(b"'");
                continue;
            }
        }
        query |= b == b'?';
        // Raw in a form only where the place allows it: `{` `}` `` ` ``.
        if query && never_raw(b, false) {
            out(&escape(b));
        } else {
            out(&[b]);
        }
    }
    true
}

/// Whether a sent URL encodes `b` in one place and not the other
/// (`{` `}` `` ` `` in a path, `'` in a query; see [`never_raw`]).
const fn placed(b: u8) -> bool {
    never_raw(b, false) != never_raw(b, true)
}

/// How a rule value's octets that are [`placed`] stand, as its form
/// places them by its own first `?`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RulePlace {
    /// None after a `*` before its first `?`: each meets a target where
    /// the form puts it.
    Settled,
    /// One after a `*` before its first `?`, which the `*` may carry into
    /// a target's query: only [`query_as_path`] meets it there.
    AfterStar,
    /// Such an octet, and another after that `?`: the reading that meets
    /// the first misses the second, so no form of a target meets both.
    /// Such a Disallow is read as denying every target whose query holds
    /// one (none is in the corpus; docs/conformance.md).
    BothSides,
}

/// [`RulePlace`] of rule value `v`.
pub(crate) fn rule_place(v: &[u8]) -> RulePlace {
    let Some(star) = memchr::memchr(b'*', v) else {
        return RulePlace::Settled;
    };
    let q = memchr::memchr(b'?', v).unwrap_or(v.len());
    let has = |s: &[u8]| s.iter().any(|&b| placed(b));
    match v.get(star..q) {
        Some(after_star) if has(after_star) => {
            if has(&v[q..]) {
                RulePlace::BothSides
            } else {
                RulePlace::AfterStar
            }
        }
        _ => RulePlace::Settled,
    }
}

/// Whether the query of `t`, a request target, holds an octet its path
/// would hold otherwise, raw or (`%27`) escaped (see [`query_as_path`]).
///
/// A `%` that starts no escape counts too: the canonical form decodes the
/// escapes of unreserved octets after it, so `%%327` or `%2%37` becomes
/// the `%27` of a `'` (found by the spec model's generator on
/// 2026-11-27: `Disallow: /*a'` allowed `/z?a%%327`).
pub(crate) fn query_keeps_raw(t: &[u8]) -> bool {
    let Some(q) = memchr::memchr(b'?', t) else {
        return false;
    };
    let query = &t[q..];
    query.iter().enumerate().any(|(i, &b)| {
        placed(b)
            || (b == b'%'
                && matches!(
                    unquoted(query, i, false),
                    Unquoted::Lone | Unquoted::Octet(b'\'')
                ))
    })
}

/// Whether `b` must be percent-encoded before comparison wherever it is.
const fn must_encode(b: u8) -> bool {
    b >= 0x80 || b <= 0x20 || b == 0x7f
}

/// Whether the URL the bot sends never carries `b` raw in its path (`query`
/// false) or its query (`query` true): the WHATWG path percent-encode set
/// and special-query percent-encode set, beyond the controls, space and
/// non-ASCII octets encoded everywhere
/// (`#` never reaches a request target, and `?` ends the path).
pub const fn never_raw(b: u8, query: bool) -> bool {
    match b {
        b'"' | b'<' | b'>' => true,
        b'`' | b'{' | b'}' => !query,
        b'\'' => query,
        _ => false,
    }
}

/// Whether `b`, at a position in the query (`query`) or the path, is
/// encoded in the canonical form.
#[inline(always)]
const fn encodes(b: u8, query: bool) -> bool {
    must_encode(b) || never_raw(b, query)
}

const fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// `b` percent-encoded, with upper-case hex digits.
pub(crate) const fn escape(b: u8) -> [u8; 3] {
    [
        b'%',
        HEX_UPPER[(b >> 4) as usize],
        HEX_UPPER[(b & 0xf) as usize],
    ]
}

/// Whether `raw` is already in canonical form, so it can be matched as is.
///
/// This is the fast path: almost every real request path is plain ASCII
/// without escapes.
pub fn is_canonical(raw: &[u8]) -> bool {
    match raw.iter().position(|&b| stops(b, STOP_PATH)) {
        None => true,
        // What the query encodes differs from what the path does.
        Some(q) if raw[q] == b'?' => !raw[q + 1..].iter().any(|&b| stops(b, STOP_QUERY)),
        Some(_) => false,
    }
}

/// Whether the canonical form of `raw` is `raw` itself, escapes included:
/// each escape names an octet that stays escaped and is written in
/// upper-case hex, and no other octet is one the form encodes. A target as
/// a WHATWG serialiser writes it (`/%E6%97%A5/page`, `/~user/`) is, and
/// is then its own form without the form being built (a fill cost some 50
/// instructions an octet). What [`Normalized::new`] writes, octet for
/// octet (the test `own_canonical_is_the_form_unchanged` holds it to that).
pub fn is_own_canonical(raw: &[u8]) -> bool {
    let mut stop = STOP_PATH;
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        i += 1;
        if !stops(b, stop) {
            continue;
        }
        match b {
            b'%' => {
                let (Some(&h), Some(&l)) = (raw.get(i), raw.get(i + 1)) else {
                    continue;
                };
                let (Some(hv), Some(lv)) = (hex_val(h), hex_val(l)) else {
                    // A `%` that starts no escape stays as it is.
                    continue;
                };
                if !escape_stands(hv << 4 | lv, h, l) {
                    return false;
                }
                i += 2;
            }
            // The query's first `?` stays; what the query encodes differs.
            b'?' if stop == STOP_PATH => stop = STOP_QUERY,
            _ => return false,
        }
    }
    true
}

/// Whether the escape `%hl`, of the octet `v`, stands in the canonical
/// form as it is written: it names no unreserved octet (which the form
/// decodes) and its hex digits are upper case.
#[inline(always)]
fn escape_stands(v: u8, h: u8, l: u8) -> bool {
    !is_unreserved(v) && !h.is_ascii_lowercase() && !l.is_ascii_lowercase()
}

/// Whether `b` ends a run of octets that stay as they are, in the place
/// `stop` names (see [`RUN_STOPS`]).
#[inline(always)]
fn stops(b: u8, stop: u8) -> bool {
    RUN_STOPS[usize::from(b)] & stop != 0
}

/// Feeds the canonical form of `raw` to `out`, one octet at a time.
pub fn normalize_byte_stream(raw: &[u8], mut out: impl FnMut(u8)) {
    let mut it = Normalized::new(raw);
    while let Some(b) = it.next_byte() {
        out(b);
    }
}

/// Feeds the canonical form of `raw` to `out` in pieces: runs of octets
/// that stay as they are, as slices of `raw`, and each changed octet or
/// escape as a short slice. The concatenation is what
/// [`normalize_byte_stream`] yields, octet for octet.
pub fn normalize_chunks(raw: &[u8], mut out: impl FnMut(&[u8])) {
    let mut run = 0;
    let mut i = 0;
    let mut query = false;
    while i < raw.len() {
        // A run that stays as it is, by table; the first `?` only changes
        // what the rest of the value encodes.
        let stop = if query { STOP_QUERY } else { STOP_PATH };
        match raw[i..].iter().position(|&b| stops(b, stop)) {
            Some(k) => i += k,
            None => break,
        }
        let b = raw[i];
        if b == b'?' {
            query = true;
            i += 1;
            continue;
        }
        if b == b'%' {
            if let (Some(&h), Some(&l)) = (raw.get(i + 1), raw.get(i + 2)) {
                if let (Some(hv), Some(lv)) = (hex_val(h), hex_val(l)) {
                    let v = hv * 16 + lv;
                    // An escape that stands as written (as nearly all do)
                    // stays in the run: values of many escapes came here
                    // in many pieces.
                    if !escape_stands(v, h, l) {
                        out(&raw[run..i]);
                        if is_unreserved(v) {
                            out(&[v]);
                        } else {
                            out(&[b'%', h.to_ascii_uppercase(), l.to_ascii_uppercase()]);
                        }
                        run = i + 3;
                    }
                    i += 3;
                    continue;
                }
            }
            out(&raw[run..i]);
            out(b"%");
        } else {
            out(&raw[run..i]);
            out(&escape(b));
        }
        i += 1;
        run = i;
    }
    out(&raw[run..]);
}

/// [`google_form`] in pieces, as [`normalize_chunks`] gives the canonical
/// form.
pub fn google_chunks(raw: &[u8], mut out: impl FnMut(&[u8])) {
    let mut run = 0;
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'%' && i + 2 < raw.len() {
            let (h, l) = (raw[i + 1], raw[i + 2]);
            if let (Some(_), Some(_)) = (hex_val(h), hex_val(l)) {
                // An escape already in upper case stays in the run.
                if h.is_ascii_lowercase() || l.is_ascii_lowercase() {
                    out(&raw[run..i]);
                    out(&[b'%', h.to_ascii_uppercase(), l.to_ascii_uppercase()]);
                    run = i + 3;
                }
                i += 3;
                continue;
            }
        }
        if b >= 0x80 {
            out(&raw[run..i]);
            out(&escape(b));
            run = i + 1;
        }
        i += 1;
    }
    out(&raw[run..]);
}

/// Feeds Google's form of a rule value to `out`: non-ASCII octets encoded,
/// existing escapes upper-cased, nothing decoded.
pub fn google_form(raw: &[u8], mut out: impl FnMut(u8)) {
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'%' && i + 2 < raw.len() {
            if let (Some(_), Some(_)) = (hex_val(raw[i + 1]), hex_val(raw[i + 2])) {
                out(b'%');
                out(raw[i + 1].to_ascii_uppercase());
                out(raw[i + 2].to_ascii_uppercase());
                i += 3;
                continue;
            }
        }
        if b >= 0x80 {
            out(b'%');
            out(HEX_UPPER[usize::from(b >> 4)]);
            out(HEX_UPPER[usize::from(b & 0xf)]);
        } else {
            out(b);
        }
        i += 1;
    }
}

/// The first `%` or octet that must be encoded in `hay` (see
/// [`find_escape_or`]): the stored values' scan of every parse, which
/// needs no test of its own for the `%` (`'` shares one with it).
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) fn find_escape(hay: &[u8]) -> Option<usize> {
    find_hit(hay, |_| 0)
}

/// The first `first`, `%` or octet that may be encoded (in the path or the
/// query) in `hay`, or an earlier position: a `|` or a `~` may be reported
/// too, which costs its caller a closer look and nothing else.
fn find_escape_or(first: u8, hay: &[u8]) -> Option<usize> {
    find_hit(hay, |b| u8::from(b == first))
}

/// The first octet of `hay` that `more` names (1) or that a sent URL never
/// carries raw somewhere. Whole 32-octet blocks are tested without an
/// early exit, which vectorises.
#[inline(always)]
fn find_hit(hay: &[u8], more: impl Fn(u8) -> u8) -> Option<usize> {
    // 0x21..=0x7A, which leaves out what `must_encode` encodes and `{|}~`
    // with them (`|` and `~` cost a closer look); then `%` and `'` as one
    // test (| 2 is `'`), `<` and `>` as one (| 2 is `>`), `"`, `` ` ``: the
    // octets a sent URL never carries raw somewhere.
    let hit = |b: u8| {
        more(b)
            | u8::from(b.wrapping_sub(0x21) >= 0x5a)
            | u8::from(b | 2 == b'\'')
            | u8::from(b | 2 == b'>')
            | u8::from(b == b'"')
            | u8::from(b == b'`')
    };
    if !crate::BLOCKS_VECTORISE {
        return hay.iter().position(|&b| hit(b) != 0);
    }
    let mut blocks = hay.chunks_exact(32);
    let mut base = 0;
    for block in &mut blocks {
        if block.iter().fold(false, |any, &b| any | (hit(b) != 0)) {
            return block.iter().position(|&b| hit(b) != 0).map(|i| base + i);
        }
        base += 32;
    }
    blocks
        .remainder()
        .iter()
        .position(|&b| hit(b) != 0)
        .map(|i| base + i)
}

/// Where a run of octets that stay as they are in the canonical form ends
/// ([`Normalized::plain_run`], [`normalize_chunks`], [`is_canonical`]), one
/// bit per place: in the path (a `?` too, which changes what follows), in
/// the query, in the query of the RFC 9309 form. One table lookup per octet
/// instead of four tests: the runs are the octets of every target and rule
/// value that needs a form.
const RUN_STOPS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let o = b as u8;
        let escape = o == b'%';
        if escape || encodes(o, false) || o == b'?' {
            t[b] |= STOP_PATH;
        }
        if escape || encodes(o, true) {
            t[b] |= STOP_QUERY;
        }
        if escape || encodes(o, true) || is_gen_delim(o) {
            t[b] |= STOP_RFC_QUERY;
        }
        b += 1;
    }
    t
};
const STOP_PATH: u8 = 1;
const STOP_QUERY: u8 = 2;
const STOP_RFC_QUERY: u8 = 4;

/// A lazily normalised view of a byte string: yields the canonical form
/// without allocating, so a request path with escapes costs no heap.
#[derive(Clone, Copy, Debug)]
pub struct Normalized<'a> {
    raw: &'a [u8],
    pos: usize,
    pending: [u8; 2],
    npending: u8,
    verbatim: bool,
    /// RFC 9309 form: raw general delimiters in the query are encoded.
    rfc: bool,
    /// A raw `?` has been read: what is encoded depends on it (see
    /// [`never_raw`]), and in the RFC 9309 form the delimiters too.
    in_query: bool,
}

impl<'a> Normalized<'a> {
    /// A view of `raw`.
    pub const fn new(raw: &'a [u8]) -> Self {
        Normalized {
            raw,
            pos: 0,
            pending: [0; 2],
            npending: 0,
            verbatim: false,
            rfc: false,
            in_query: false,
        }
    }

    /// A view of the RFC 9309 form of `raw` (see the module docs).
    pub const fn rfc(raw: &'a [u8]) -> Self {
        let mut v = Normalized::new(raw);
        v.rfc = true;
        v
    }

    /// [`Normalized::with_leading_slash`] in the RFC 9309 form.
    pub const fn rfc_with_leading_slash(raw: &'a [u8]) -> Self {
        let mut v = Normalized::with_leading_slash(raw, false);
        v.rfc = true;
        v
    }

    /// A view of `/` followed by `raw`: a request target such as `?q` or `""`
    /// whose path is empty means `/` (RFC 9309 §2.2.2). With `verbatim`, the
    /// octets of `raw` are passed through unchanged (Google's reading).
    pub const fn with_leading_slash(raw: &'a [u8], verbatim: bool) -> Self {
        Normalized {
            raw,
            pos: 0,
            pending: [0, b'/'],
            npending: 1,
            verbatim,
            rfc: false,
            in_query: false,
        }
    }

    /// The next canonical octet.
    #[inline]
    pub fn next_byte(&mut self) -> Option<u8> {
        if self.npending > 0 {
            let b = self.pending[2 - usize::from(self.npending)];
            self.npending -= 1;
            return Some(b);
        }
        let raw = self.raw;
        let b = *raw.get(self.pos)?;
        if self.verbatim {
            self.pos += 1;
            return Some(b);
        }
        if b == b'%' {
            if let (Some(&h), Some(&l)) = (raw.get(self.pos + 1), raw.get(self.pos + 2)) {
                if let (Some(hv), Some(lv)) = (hex_val(h), hex_val(l)) {
                    self.pos += 3;
                    let v = hv * 16 + lv;
                    if is_unreserved(v) {
                        return Some(v);
                    }
                    self.pending = [h.to_ascii_uppercase(), l.to_ascii_uppercase()];
                    self.npending = 2;
                    return Some(b'%');
                }
            }
            self.pos += 1;
            return Some(b'%');
        }
        self.pos += 1;
        if self.rfc && self.in_query && is_gen_delim(b) {
            self.pending = [
                HEX_UPPER[usize::from(b >> 4)],
                HEX_UPPER[usize::from(b & 0xf)],
            ];
            self.npending = 2;
            return Some(b'%');
        }
        self.in_query |= b == b'?';
        if encodes(b, self.in_query) {
            self.pending = [
                HEX_UPPER[usize::from(b >> 4)],
                HEX_UPPER[usize::from(b & 0xf)],
            ];
            self.npending = 2;
            return Some(b'%');
        }
        Some(b)
    }

    /// Moves to the first position from which the next octet could be
    /// `first`, skipping raw octets that cannot produce it, so that a
    /// search on the view runs at `memchr` speed when `first` is rare.
    /// Never skips a position whose output starts with `first`.
    pub(crate) fn skip_to_candidate(&mut self, first: u8) {
        // The RFC form turns raw delimiters into escapes depending on what
        // came before: no single-octet search is safe there.
        if self.npending > 0 || self.rfc {
            return;
        }
        let rest = self.raw.get(self.pos..).unwrap_or_default();
        let skip = if self.verbatim {
            memchr::memchr(first, rest)
        } else if first == b'%' || first.is_ascii_digit() || (b'A'..=b'F').contains(&first) {
            // Also produced by escapes and by encoded octets, which no
            // single-octet search finds: a plain scan, still far cheaper
            // than trying the segment at every position.
            find_escape_or(first, rest)
        } else {
            // Any other octet comes out of a raw octet equal to it, or of
            // an escape (`%` first); an octet that must be encoded comes
            // out as `%` and upper-case hex digits only.
            memchr::memchr2(first, b'%', rest)
        };
        let skip = skip.unwrap_or(rest.len());
        // What is encoded after a `?` differs: a skipped `?` still counts.
        if !self.verbatim && !self.in_query {
            self.in_query = memchr::memchr(b'?', &rest[..skip]).is_some();
        }
        self.pos += skip;
    }

    /// How many octets at the start of `rest` (the raw octets from the
    /// cursor on, or a prefix of them) come out as they are, when nothing
    /// is pending.
    #[inline]
    fn plain_run(&self, rest: &[u8]) -> usize {
        if self.verbatim {
            return rest.len();
        }
        // A `?` changes what follows (what is encoded, and in the RFC form
        // the delimiters): it goes through `next_byte`.
        let stop = match (self.in_query, self.rfc) {
            (false, _) => STOP_PATH,
            (true, false) => STOP_QUERY,
            (true, true) => STOP_RFC_QUERY,
        };
        rest.iter()
            .position(|&b| stops(b, stop))
            .unwrap_or(rest.len())
    }

    /// The number of octets left, counted by runs.
    pub(crate) fn count(mut self) -> usize {
        let mut n = 0;
        loop {
            if self.npending == 0 {
                let rest = self.raw.get(self.pos..).unwrap_or_default();
                let run = self.plain_run(rest);
                n += run;
                self.pos += run;
            }
            match self.next_byte() {
                Some(_) => n += 1,
                None => return n,
            }
        }
    }

    /// Writes the next `out.len()` octets to `out` (zeros past the end),
    /// copying runs of octets that stay as they are in one go; returns how
    /// many came from the view.
    pub(crate) fn fill(&mut self, out: &mut [u8]) -> usize {
        let mut o = 0;
        while o < out.len() {
            if self.npending == 0 {
                let rest = self.raw.get(self.pos..).unwrap_or_default();
                let room = (out.len() - o).min(rest.len());
                let run = self.plain_run(&rest[..room]);
                out[o..o + run].copy_from_slice(&rest[..run]);
                o += run;
                self.pos += run;
                if o == out.len() {
                    break;
                }
            }
            match self.next_byte() {
                Some(b) => {
                    out[o] = b;
                    o += 1;
                    // An escape's two hex digits written with its `%`, not
                    // one turn of the loop each: a target that needs a form
                    // is mostly escapes.
                    if self.npending == 2 {
                        if let Some(d) = out.get_mut(o..o + 2) {
                            d.copy_from_slice(&self.pending);
                            self.npending = 0;
                            o += 2;
                        }
                    }
                }
                None => {
                    out[o..].fill(0);
                    return o;
                }
            }
        }
        o
    }

    /// Whether nothing is left.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.npending == 0 && self.pos >= self.raw.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    fn norm(s: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        normalize_byte_stream(s, |b| v.push(b));
        v
    }

    fn google(s: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        google_form(s, |b| v.push(b));
        v
    }

    #[test]
    fn decodes_unreserved_and_uppercases_the_rest() {
        assert_eq!(norm(b"/%7efoo/%62%61%7A"), b"/~foo/baz");
        assert_eq!(norm(b"/a%2fb%3F"), b"/a%2Fb%3F");
        assert_eq!(norm("/ツ".as_bytes()), b"/%E3%83%84");
        assert_eq!(norm(b"/a b"), b"/a%20b");
        assert_eq!(norm(b"/100%"), b"/100%");
        assert_eq!(norm(b"/%zz%4"), b"/%zz%4");
        assert_eq!(norm(b"/*.pdf$"), b"/*.pdf$");
    }

    /// A decoder that feeds its pieces (`decode_reserved`,
    /// `decode_printable`).
    type Decoder = fn(&[u8], &mut dyn FnMut(&[u8]));

    /// What `decode` feeds for `s`, gathered.
    fn gathered(decode: Decoder, s: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        decode(s, &mut |c| v.extend_from_slice(c));
        v
    }

    fn reserved_decoded(s: &[u8]) -> Vec<u8> {
        gathered(decode_reserved, s)
    }

    #[test]
    fn an_agent_value_is_unquoted_as_python_reads_it() {
        let decoded = |s: &[u8]| gathered(decode_printable, s);
        // Unreserved escapes, `%25` and reserved ones alike, either case.
        assert_eq!(decoded(b"Walsh%2dResearch"), b"Walsh-Research");
        assert_eq!(decoded(b"%2A"), b"*");
        assert_eq!(decoded(b"%57alsh%25%41"), b"Walsh%A");
        // Blanks, controls and non-ASCII octets stay escaped, as does a
        // `%` that starts no escape.
        assert_eq!(decoded(b"a%20b%0A%C3%A9%zz%4"), b"a%20b%0A%C3%A9%zz%4");
        finds_only(
            has_printable_escape,
            decoded,
            &[b"Walsh%2DResearch", b"%2a", b"x%25", b"%7E%"],
            &[b"Walsh-Research", b"a%20b", b"%C3%A9", b"100%", b"%4"],
        );
    }

    /// `has` finds an escape it reads in each of `yes` and in none of
    /// `no`, which `decode` leaves as they are.
    fn finds_only(
        has: fn(&[u8]) -> bool,
        decode: impl Fn(&[u8]) -> Vec<u8>,
        yes: &[&[u8]],
        no: &[&[u8]],
    ) {
        for s in yes {
            assert!(has(s), "{s:?}");
        }
        for s in no {
            assert!(!has(s), "{s:?}");
            assert_eq!(decode(s), *s);
        }
    }

    #[test]
    fn the_unquoted_reading_names_reserved_escapes_and_quotes_a_lone_percent() {
        // Escapes of printable reserved octets name them, in either case.
        assert_eq!(reserved_decoded(b"/a%2Fb%3fq%3D1"), b"/a/b?q=1");
        // Other escapes stay as written, `%25` too (read as `%`, it would
        // start escapes that were never written).
        assert_eq!(
            reserved_decoded(b"/%7e%E3%83%84%2541"),
            b"/%7e%E3%83%84%2541"
        );
        // A `%` that starts no escape is `%25`: mid-value, before a
        // non-hex octet or a single hex digit, and last.
        assert_eq!(reserved_decoded(b"/a%b"), b"/a%25b");
        assert_eq!(reserved_decoded(b"/%zz%4"), b"/%25zz%254");
        assert_eq!(reserved_decoded(b"/100%"), b"/100%25");
        assert_eq!(reserved_decoded(b"/%%41"), b"/%25%41");
        finds_only(
            has_reserved_escape,
            reserved_decoded,
            &[b"/a%b", b"/100%", b"/a%2Fb", b"/%3d"],
            &[b"/a%25b", b"/%7E", b"/%E3%83%84", b"/plain"],
        );
        // The long path of `has_reserved_escape` (64 octets and more).
        let long = [&[b'a'; 70][..], b"%"].concat();
        assert!(has_reserved_escape(&long));
        assert!(!has_reserved_escape(&[&[b'a'; 70][..], b"%41"].concat()));
    }

    #[test]
    fn google_form_only_encodes_non_ascii() {
        assert_eq!(google("/ツ%e3".as_bytes()), b"/%E3%83%84%E3");
        assert_eq!(google(b"/%62a"), b"/%62a");
        assert_eq!(google(b"/%"), b"/%");
    }

    #[test]
    fn rfc_form_encodes_delimiters_in_the_query_only() {
        let rfc = |s: &[u8]| {
            let mut v = Vec::new();
            rfc_form(s, |b| v.push(b));
            v
        };
        // RFC 9309 §2.2.2's table, row by row.
        assert_eq!(rfc(b"/foo/bar?baz=quz"), b"/foo/bar?baz=quz");
        assert_eq!(
            rfc(b"/foo/bar?baz=https://foo.bar"),
            b"/foo/bar?baz=https%3A%2F%2Ffoo.bar"
        );
        assert_eq!(rfc("/foo/bar/ツ".as_bytes()), b"/foo/bar/%E3%83%84");
        assert_eq!(rfc(b"/foo/bar/%E3%83%84"), b"/foo/bar/%E3%83%84");
        assert_eq!(rfc(b"/foo/bar/%62%61%7A"), b"/foo/bar/baz");
        // Escaped delimiters stay escaped; `*` and `$` are never touched.
        assert_eq!(rfc(b"/a?b%3a*:$"), b"/a?b%3A*%3A$");
        assert_eq!(rfc(b"/a:b/c"), b"/a:b/c");
        assert!(rfc_differs(b"/a?x=1/2"));
        assert!(!rfc_differs(b"/a:b?x=1"));
        assert!(!rfc_differs(b"/a/b"));
        let mut view = Normalized::rfc_with_leading_slash(b"?u=a/b");
        let mut out = Vec::new();
        while let Some(b) = view.next_byte() {
            out.push(b);
        }
        assert_eq!(out, b"/?u=a%2Fb");
    }

    #[test]
    fn chunked_forms_are_the_octet_streams() {
        // Every string of up to 4 octets over an alphabet that reaches
        // every branch, and longer pseudo-random ones.
        const ABC: &[u8] = b"%4aAgG/~ \x7f\x80\xff1?";
        let check = |s: &[u8]| {
            let mut chunked = Vec::new();
            normalize_chunks(s, |c| chunked.extend_from_slice(c));
            assert_eq!(chunked, norm(s), "{s:?}");
            let mut chunked = Vec::new();
            google_chunks(s, |c| chunked.extend_from_slice(c));
            assert_eq!(chunked, google(s), "{s:?}");
        };
        let n = ABC.len();
        for len in 0..=4u32 {
            for mut k in 0..n.pow(len) {
                let mut s = Vec::new();
                for _ in 0..len {
                    s.push(ABC[k % n]);
                    k /= n;
                }
                check(&s);
            }
        }
        let mut x: u32 = 1;
        for _ in 0..2000 {
            let mut s = Vec::new();
            for _ in 0..(x % 40) {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                s.push(ABC[(x >> 16) as usize % n]);
            }
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            check(&s);
        }
    }

    #[test]
    fn fill_is_the_octet_stream() {
        const ABC: &[u8] = b"%4aA/?:=~ \x80#";
        let n = ABC.len();
        let mut x: u32 = 3;
        for _ in 0..3000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let s: Vec<u8> = (0..(x >> 16) % 30)
                .map(|i| ABC[((x >> 8) as usize + i as usize * 7) % n])
                .collect();
            for view in [
                Normalized::new(&s),
                Normalized::rfc(&s),
                Normalized::with_leading_slash(&s, true),
                Normalized::with_leading_slash(&s, false),
                Normalized::rfc_with_leading_slash(&s),
            ] {
                let mut want = Vec::new();
                let mut v = view;
                while let Some(b) = v.next_byte() {
                    want.push(b);
                }
                assert_eq!(view.count(), want.len(), "{s:?}");
                for len in [want.len(), want.len() / 2, want.len() + 3] {
                    let mut got = std::vec![0xAAu8; len];
                    let mut v = view;
                    assert_eq!(v.fill(&mut got), len.min(want.len()), "{s:?} {len}");
                    let mut expect = want.clone();
                    expect.resize(len, 0);
                    assert_eq!(got, expect, "{s:?} {len}");
                }
            }
        }
    }

    #[test]
    fn own_canonical_is_the_form_unchanged() {
        // Every octet the canonical form treats apart: escapes of reserved,
        // unreserved and non-ASCII octets in both cases, a lone `%`, the
        // query's `?`, octets encoded in the path or the query only, and
        // ones encoded everywhere.
        const ABC: &[u8] = b"%4aAfF2E7/?'{\"`~ \x80-z9";
        let n = ABC.len();
        let mut x: u32 = 7;
        for _ in 0..20_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let s: Vec<u8> = (0..(x >> 16) % 12)
                .map(|i| ABC[((x >> 8) as usize + i as usize * 5 + (x as usize >> (i % 8))) % n])
                .collect();
            assert_eq!(is_own_canonical(&s), norm(&s) == s, "{:?}", s);
        }
        assert!(is_own_canonical(b"/%E6%97%A5/page?q=%2F"));
        assert!(is_own_canonical(b"/~user/%zz%"));
        assert!(!is_own_canonical(b"/%e6"));
        assert!(!is_own_canonical(b"/%7E"));
        assert!(!is_own_canonical(b"/{x}"));
        assert!(is_own_canonical(b"/x?{x}"));
        assert!(!is_own_canonical(b"/x?it's"));
    }

    #[test]
    fn canonical_detection() {
        assert!(is_canonical(b"/a/b?c=d"));
        assert!(!is_canonical(b"/a%20"));
        assert!(!is_canonical("/é".as_bytes()));
    }
}
