//! User-agent values and group selection (section 9.1.3, RFC 9309 §2.2.1).
//!
//! A robots.txt `User-agent` value is reduced to its product token, the
//! leading run of letters, `-` and `_` (RFC 9309's `identifier`), so
//! `Walsh-Research/1.2 (+https://wal.sh)` names `walsh-research`. The spec
//! then differs from Google on purpose: a value that is a *prefix* of our
//! token (`walsh`) also selects the group, and the longest such value wins.

/// What a `User-agent` value names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentToken<'a> {
    /// `*` (possibly followed by whitespace and junk, as Google accepts).
    Global,
    /// A product token, as written.
    Named(&'a [u8]),
    /// Nothing usable (`User-agent:` empty, or starting with a digit).
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
        .take_while(|&&b| b.is_ascii_alphabetic() || b == b'-' || b == b'_')
        .count();
    if n == 0 {
        AgentToken::Empty
    } else {
        AgentToken::Named(&value[..n])
    }
}

/// How strongly a named token selects a group for `wanted` (our product
/// token): the token's length when it equals or is a case-insensitive prefix
/// of `wanted`, else `None`.
pub fn match_len(token: &[u8], wanted: &[u8]) -> Option<usize> {
    if token.is_empty() || token.len() > wanted.len() {
        return None;
    }
    wanted[..token.len()]
        .eq_ignore_ascii_case(token)
        .then_some(token.len())
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
        assert_eq!(product_token(b"42bot"), AgentToken::Empty);
        assert_eq!(product_token(b"*bot"), AgentToken::Empty);
    }

    #[test]
    fn prefix_selection() {
        assert_eq!(match_len(b"WALSH", b"walsh-research"), Some(5));
        assert_eq!(match_len(b"walsh-research", b"walsh-research"), Some(14));
        assert_eq!(match_len(b"walsh-research-x", b"walsh-research"), None);
        assert_eq!(match_len(b"research", b"walsh-research"), None);
        assert_eq!(match_len(b"", b"walsh-research"), None);
    }
}
