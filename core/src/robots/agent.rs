//! User-agent values and group selection (section 9.1.3, RFC 9309 §2.2.1).
//!
//! A robots.txt `User-agent` value is reduced to its product token: the
//! text before the first whitespace or `/`, so `Walsh-Research/1.2
//! (+https://wal.sh)` names `walsh-research`. The spec then differs from
//! Google on purpose: a value that is a *prefix* of our token (`walsh`) also
//! selects the group, and the longest such value wins.
//!
//! Google cuts a value at the first character outside RFC 9309's
//! `identifier` (letters, `-`, `_`), so `AB42bot` names `AB`, and compares
//! for equality. The two are separate readings (see `group`), each with its
//! own selection, and a path must be allowed by both: in the spec's,
//! `Walsh-Research2` is neither our token nor a prefix of it, so its group
//! is not ours ([`spec_match_len`]); in Google's it is ([`google_match`]).
//! A cut identifier never takes part in prefix matching: `W3C-checklink`
//! would name `W`, a prefix of `walsh-research`, and the W3C link checker's
//! group (in the corpus, www.w3.org's robots.txt) would select us.

use super::lexer::{trim_unicode, uni_space_len};
use super::variant::Variant;
use crate::percent;

/// What a `User-agent` value names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentToken<'a> {
    /// `*` (possibly followed by whitespace and junk, as Google accepts).
    Global,
    /// A product token, as written.
    Named(&'a [u8]),
    /// Nothing usable (`User-agent:` with no value).
    Empty,
}

/// Reads the product token out of a `User-agent` value.
pub fn product_token(value: &[u8]) -> AgentToken<'_> {
    match value {
        [b'*'] => return AgentToken::Global,
        [b'*', next, ..] if next.is_ascii_whitespace() => return AgentToken::Global,
        _ => {}
    }
    let n = value
        .iter()
        .take_while(|&&b| !b.is_ascii_whitespace() && b != b'/')
        .count();
    if n == 0 {
        AgentToken::Empty
    } else {
        AgentToken::Named(&value[..n])
    }
}

/// What a `User-agent` value names in the reading `variant` (see
/// [`Variant`]): the product token of [`product_token`], with Unicode's
/// white space also ending it under [`Variant::UNICODE_SPACE`]; under
/// [`Variant::WHOLE_AGENT`] the whole value (9.1.3 read literally: U is
/// the value, so `Walsh-Research/1.2` is neither our token nor a prefix
/// of it, and `* Googlebot` is not `*`).
// Out of line: `divergence` asks it six times, on a rare path.
#[inline(never)]
pub fn agent_token(value: &[u8], variant: Variant) -> AgentToken<'_> {
    match token_in(value, variant) {
        // 9.1.3 read literally: "" is a prefix of every token.
        AgentToken::Empty if variant.empty_agent() => AgentToken::Named(&[]),
        t => t,
    }
}

/// [`agent_token`] but for [`Variant::EMPTY_AGENT`].
fn token_in(value: &[u8], variant: Variant) -> AgentToken<'_> {
    let value = if variant.unicode_space() {
        trim_unicode(value)
    } else {
        value
    };
    if variant.whole_agent() {
        return match value {
            [] => AgentToken::Empty,
            [b'*'] => AgentToken::Global,
            v => AgentToken::Named(v),
        };
    }
    if !variant.unicode_space() {
        return product_token(value);
    }
    // The product token, ended by any white space character.
    let mut n = 0;
    while n < value.len() && value[n] != b'/' && uni_space_len(&value[n..]) == 0 {
        n += 1;
    }
    match &value[..n] {
        [] => AgentToken::Empty,
        [b'*'] => AgentToken::Global,
        t => AgentToken::Named(t),
    }
}

/// How a token selects for `wanted` in the spec's and in Google's
/// selection: `*`, a match of some length, or none.
fn class(token: AgentToken<'_>, wanted: &[u8]) -> (Option<usize>, bool) {
    match token {
        AgentToken::Global => (Some(usize::MAX), true),
        AgentToken::Named([]) => (Some(0), false),
        AgentToken::Named(t) => (spec_match_len(t, wanted), google_match(t, wanted)),
        AgentToken::Empty => (None, false),
    }
}

/// The [`Variant`] options (as bits) under which the `User-agent` value
/// `value` (as the base reading trimmed it) selects otherwise for
/// `wanted` than the base reading's product token does. Nearly every
/// value is a plain token, which reads the same in every way.
#[inline(never)]
pub fn divergence(value: &[u8], wanted: &[u8]) -> u8 {
    // Every reading's token starts where the value does (past Unicode's
    // spaces, only when the value starts with one, or past an escape when
    // it is unquoted): a value whose first octet is not our token's first
    // letter, `*`, `/`, `%` or such a space names nobody we are in any
    // reading, nor the empty name. Most values of a file
    // (`Mozilla/5.0 (...)`, `Googlebot/2.1`) end here.
    match value.first() {
        // `*` alone reads as `*` every way.
        Some(b'*') if value.len() == 1 => return 0,
        Some(&b)
            if b < 0x80
                && !(0x1C..=0x1F).contains(&b)
                && !matches!(b, b'*' | b'/' | b'%')
                && !wanted.first().is_some_and(|w| w.eq_ignore_ascii_case(&b)) =>
        {
            return 0;
        }
        _ => {}
    }
    // Python unquotes a value before it reads it: `Walsh%2DResearch` is
    // ours to it (see `Variant::UNQUOTED_VALUES`).
    let unquoted = if percent::has_printable_escape(value) {
        Variant::ESCAPED_VALUE
    } else {
        0
    };
    unquoted | token_divergence(value, wanted)
}

/// [`divergence`] through the value's product token and its Unicode
/// spaces, for a value that may name us.
fn token_divergence(value: &[u8], wanted: &[u8]) -> u8 {
    let base = product_token(value);
    // VT (0x0B) is a blank to the lexer and white space to Unicode, but
    // not to `is_ascii_whitespace`, so the product token runs on past it
    // (`*\x0B\0` names nobody) where Unicode's reading ends it (`*`).
    if value
        .iter()
        .all(|&b| b < 0x80 && !(0x1C..=0x1F).contains(&b) && b != 0x0B)
    {
        // ASCII: Unicode's spaces change nothing. Read whole, a value
        // holding a blank or a `/` names nobody (our token has neither),
        // so it selects otherwise only when its product token selects.
        return match base {
            AgentToken::Named(t) if t.len() == value.len() => 0,
            AgentToken::Empty if value.is_empty() => Variant::EMPTY_AGENT,
            // `/1.0` names "" under `Variant::EMPTY_AGENT`, a prefix of
            // every token, and nobody read whole: the two together
            // select otherwise than either alone.
            AgentToken::Empty => Variant::EMPTY_AGENT | Variant::WHOLE_AGENT,
            _ if class(base, wanted) == (None, false) => 0,
            _ => Variant::WHOLE_AGENT,
        };
    }
    // The value's class in each combination of the two options: when any
    // two differ, both options are read again (one may matter only with
    // the other: `Walsh\u{2002}Research` is ours cut at Unicode's space,
    // and not read whole).
    let both = Variant::WHOLE_AGENT | Variant::UNICODE_SPACE;
    let mut d = if base == AgentToken::Empty {
        Variant::EMPTY_AGENT
    } else {
        0
    };
    let base = class(base, wanted);
    for bits in [Variant::WHOLE_AGENT, Variant::UNICODE_SPACE, both] {
        if class(agent_token(value, Variant::of(bits)), wanted) != base {
            d |= both;
        }
        if agent_token(value, Variant::of(bits | Variant::EMPTY_AGENT)) == AgentToken::Named(&[]) {
            d |= both | Variant::EMPTY_AGENT;
        }
    }
    d
}

fn is_identifier(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'-' || b == b'_'
}

/// How strongly a named token selects a group for `wanted` (our product
/// token) in the spec's reading (9.1.3: "U = T" or "U is a prefix of T"):
/// the length of the match, or `None`.
pub fn spec_match_len(token: &[u8], wanted: &[u8]) -> Option<usize> {
    if token.is_empty() || wanted.is_empty() {
        return None;
    }
    (token.len() <= wanted.len() && wanted[..token.len()].eq_ignore_ascii_case(token))
        .then_some(token.len())
}

/// Whether a named token selects a group for `wanted` in Google's reading:
/// its identifier (the letters, `-` and `_` it starts with) equals it.
pub fn google_match(token: &[u8], wanted: &[u8]) -> bool {
    // The identifier equals `wanted` exactly when the token starts with
    // `wanted`, no identifier octet follows, and `wanted` is all
    // identifier octets: decided without measuring the identifier, which
    // for most tokens (`Mediapartners-Google`) is the whole token.
    let n = wanted.len();
    n > 0
        && token.len() >= n
        && token[..n].eq_ignore_ascii_case(wanted)
        && !token.get(n).is_some_and(|&b| is_identifier(b))
        && wanted.iter().all(|&b| is_identifier(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert_eq!(product_token(b"*"), AgentToken::Global);
        assert_eq!(product_token(b"* # all"), AgentToken::Global);
        assert_eq!(
            product_token(b"Walsh-Research/1.2"),
            AgentToken::Named(b"Walsh-Research")
        );
        assert_eq!(product_token(b"Foo Bar"), AgentToken::Named(b"Foo"));
        assert_eq!(
            product_token(b"W3C-checklink"),
            AgentToken::Named(b"W3C-checklink")
        );
        assert_eq!(product_token(b"*bot"), AgentToken::Named(b"*bot"));
        assert_eq!(product_token(b""), AgentToken::Empty);
    }

    #[test]
    fn prefix_selection() {
        let spec = |t: &[u8]| spec_match_len(t, b"walsh-research");
        assert_eq!(spec(b"WALSH"), Some(5));
        assert_eq!(spec(b"walsh-research"), Some(14));
        assert_eq!(spec(b"walsh-research-x"), None);
        assert_eq!(spec(b"Walsh-Research2"), None);
        assert_eq!(spec(b"research"), None);
        assert_eq!(spec(b""), None);
        // The W3C link checker's group must not select us through `W`.
        assert_eq!(spec(b"W3C-checklink"), None);
        assert!(!google_match(b"W3C-checklink", b"walsh-research"));
        // Google's reading: the identifier before a digit or `*`, equal.
        assert!(google_match(b"Walsh-Research2", b"walsh-research"));
        assert!(!google_match(b"walsh", b"walsh-research"));
        assert!(google_match(b"AB42bot", b"ab"));
        assert!(google_match(b"barbarbot*", b"barbarbot"));
        assert!(!google_match(b"barbarbot*", b"barbarbot-prod"));
    }

    #[test]
    fn google_match_is_its_identifier_compared_whole() {
        // Google's reading as written: cut the token at its first
        // non-identifier octet, then compare. Tokens and wanted names
        // drawn from octets on both sides of that line.
        let plain = |token: &[u8], wanted: &[u8]| {
            let ident = &token[..token.iter().take_while(|&&b| is_identifier(b)).count()];
            !wanted.is_empty() && ident.eq_ignore_ascii_case(wanted)
        };
        let alphabet: &[u8] = b"aAbB-_2/* \xc3";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut word = |max: usize| -> alloc::vec::Vec<u8> {
            (0..next(max))
                .map(|_| alphabet[next(alphabet.len())])
                .collect()
        };
        for _ in 0..50_000 {
            let (token, wanted) = (word(7), word(4));
            assert_eq!(
                google_match(&token, &wanted),
                plain(&token, &wanted),
                "{token:?} {wanted:?}"
            );
        }
    }

    #[test]
    fn a_value_whose_product_token_is_empty_is_read_whole_too() {
        // Its product token names "" under EMPTY_AGENT (a prefix of every
        // token) and it names nobody read whole: only the two options
        // together read it as selecting nothing, while a file's blank
        // `User-agent:` still selects (proptest spec_model, seed ffe0ca4b).
        let w = b"walsh-research";
        let both = Variant::EMPTY_AGENT | Variant::WHOLE_AGENT;
        assert_eq!(divergence(b"/1.0", w) & both, both);
        assert_eq!(divergence(b"", w), Variant::EMPTY_AGENT);
        assert_eq!(divergence(b"Googlebot", w), 0);
    }

    #[test]
    fn a_vertical_tab_ends_the_token_in_unicodes_reading() {
        // Found by the fuzz target: the spec model ends a token at any
        // white space, and VT is one, but not to `is_ascii_whitespace`.
        let w = b"walsh-research";
        for v in [&b"*\x0B\0"[..], b"walsh\x0Bbot", b"Walsh-Research\x0B2"] {
            assert_ne!(divergence(v, w) & Variant::UNICODE_SPACE, 0, "{v:?}");
        }
        assert_eq!(
            agent_token(b"*\x0B\0", Variant::of(Variant::UNICODE_SPACE)),
            AgentToken::Global
        );
        // A value with no VT keeps the fast path's answer.
        assert_eq!(divergence(b"walsh bot", w), Variant::WHOLE_AGENT);
    }
}
