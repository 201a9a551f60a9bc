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
//! for equality. With the spec's prefix rule that cut would be dangerous:
//! `W3C-checklink` would name `W`, a prefix of `walsh-research`, and the W3C
//! link checker's group (in the corpus, www.w3.org's robots.txt) would
//! select us. So a group is selected when either
//!
//! * Google's identifier equals our token (Google's reading), or
//! * the whole value up to whitespace or `/` is our token or a prefix of it
//!   (the spec's reading),
//!
//! and a cut identifier never takes part in prefix matching.

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
/// token): the length of the match, or `None`. See the module docs for the
/// two readings.
pub fn match_len(token: &[u8], wanted: &[u8]) -> Option<usize> {
    if token.is_empty() || wanted.is_empty() {
        return None;
    }
    let ident = &token[..token.iter().take_while(|&&b| is_identifier(b)).count()];
    if ident.eq_ignore_ascii_case(wanted) {
        return Some(wanted.len());
    }
    if token.len() <= wanted.len() && wanted[..token.len()].eq_ignore_ascii_case(token) {
        return Some(token.len());
    }
    None
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
        assert_eq!(match_len(b"WALSH", b"walsh-research"), Some(5));
        assert_eq!(match_len(b"walsh-research", b"walsh-research"), Some(14));
        assert_eq!(match_len(b"walsh-research-x", b"walsh-research"), None);
        assert_eq!(match_len(b"research", b"walsh-research"), None);
        assert_eq!(match_len(b"", b"walsh-research"), None);
        // The W3C link checker's group must not select us through `W`.
        assert_eq!(match_len(b"W3C-checklink", b"walsh-research"), None);
        // Google's reading: the identifier before a digit or `*`.
        assert_eq!(match_len(b"AB42bot", b"ab"), Some(2));
        assert_eq!(match_len(b"barbarbot*", b"barbarbot"), Some(9));
        assert_eq!(match_len(b"barbarbot*", b"barbarbot-prod"), None);
    }
}
