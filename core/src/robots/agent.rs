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
    let ident = &token[..token.iter().take_while(|&&b| is_identifier(b)).count()];
    !wanted.is_empty() && ident.eq_ignore_ascii_case(wanted)
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
}
