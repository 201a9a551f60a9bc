//! Property tests: the parser never panics, and the linear-time matcher
//! agrees with a naive backtracking reference on small inputs.

use proptest::prelude::*;
use wr_core::robots::matcher::matches;
use wr_core::robots::{Policy, Robots};

/// The textbook definition, exponential in the worst case: `*` matches any
/// run, a final `$` anchors, otherwise a prefix match.
fn reference(pattern: &[u8], path: &[u8]) -> bool {
    let (pat, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    fn go(p: &[u8], s: &[u8], anchored: bool) -> bool {
        match p.split_first() {
            None => !anchored || s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| go(rest, &s[i..], anchored)),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..], anchored),
        }
    }
    go(pat, path, anchored)
}

/// [`reference`] with its (pattern, path) positions memoised, so that long
/// paths stay affordable; the definition is the same recursion.
fn reference_memo(pattern: &[u8], path: &[u8]) -> bool {
    let (pat, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    fn go(
        p: &[u8],
        s: &[u8],
        pi: usize,
        si: usize,
        anchored: bool,
        memo: &mut Vec<Option<bool>>,
    ) -> bool {
        let key = pi * (s.len() + 1) + si;
        if let Some(r) = memo[key] {
            return r;
        }
        let r = match p.get(pi) {
            None => !anchored || si == s.len(),
            Some(b'*') => (si..=s.len()).any(|i| go(p, s, pi + 1, i, anchored, memo)),
            Some(c) => s.get(si) == Some(c) && go(p, s, pi + 1, si + 1, anchored, memo),
        };
        memo[key] = Some(r);
        r
    }
    let mut memo = vec![None; (pat.len() + 1) * (path.len() + 1)];
    go(pat, path, 0, 0, anchored, &mut memo)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(2000), ..ProptestConfig::default() })]

    #[test]
    fn matcher_agrees_with_reference(
        pattern in proptest::collection::vec(prop::sample::select(b"ab/*$".to_vec()), 0..8),
        path in proptest::collection::vec(prop::sample::select(b"ab/$".to_vec()), 0..10),
    ) {
        prop_assert_eq!(matches(&pattern, path.as_slice()), reference(&pattern, &path),
            "pattern {:?} path {:?}", String::from_utf8_lossy(&pattern), String::from_utf8_lossy(&path));
    }

    #[test]
    fn matcher_agrees_with_reference_on_long_paths(
        pattern in proptest::collection::vec(prop::sample::select(b"aab/**$".to_vec()), 0..14),
        path in proptest::collection::vec(prop::sample::select(b"aab/$".to_vec()), 0..300),
    ) {
        // Long runs of the same few octets: every segment's first octet
        // recurs all along the path, past the short-haystack cut-offs.
        prop_assert_eq!(matches(&pattern, path.as_slice()), reference_memo(&pattern, &path),
            "pattern {:?} path {:?}", String::from_utf8_lossy(&pattern), String::from_utf8_lossy(&path));
        prop_assert_eq!(
            matches(&pattern, wr_core::percent::Normalized::new(&path)),
            reference_memo(&pattern, &path)
        );
    }

    #[test]
    fn lazy_view_matches_like_its_normalised_copy(
        pattern in proptest::collection::vec(
            prop::sample::select(vec!["a", "A", "b", "/", "*", "%", "%41", "%2F", "~", "E", "3", "$"]), 0..8),
        path in proptest::collection::vec(
            prop::sample::select(vec!["a", "A", "b", "/", "%", "%41", "%61", "%2f", "%7E", "~", "é", " ", "3", "E", "$"]), 0..40),
    ) {
        // The view skips ahead to octets that could start a segment; it
        // must find exactly what a search on the normalised copy finds.
        let pattern: Vec<u8> = pattern.concat().into_bytes();
        let raw: Vec<u8> = path.concat().into_bytes();
        let mut copy = Vec::new();
        wr_core::percent::normalize_byte_stream(&raw, |b| copy.push(b));
        prop_assert_eq!(
            matches(&pattern, wr_core::percent::Normalized::new(&raw)),
            matches(&pattern, copy.as_slice()),
            "pattern {:?} path {:?}", String::from_utf8_lossy(&pattern), String::from_utf8_lossy(&raw));
        let mut rooted = vec![b'/'];
        rooted.extend_from_slice(&raw);
        prop_assert_eq!(
            matches(&pattern, wr_core::percent::Normalized::with_leading_slash(&raw, true)),
            matches(&pattern, rooted.as_slice())
        );
        let mut rooted_copy = Vec::new();
        wr_core::percent::normalize_byte_stream(&rooted, |b| rooted_copy.push(b));
        prop_assert_eq!(
            matches(&pattern, wr_core::percent::Normalized::with_leading_slash(&raw, false)),
            matches(&pattern, rooted_copy.as_slice())
        );
    }

    #[test]
    fn parsing_arbitrary_bytes_never_panics(body in proptest::collection::vec(any::<u8>(), 0..2000),
                                            path in ".{0,40}") {
        let p = Policy::parse(&body, "Walsh-Research");
        let _ = p.check(&path);
        let r = Robots::parse(&body);
        let _ = r.policy("walsh").check(&path);
        let _ = r.sitemaps().count();
    }

    #[test]
    fn structured_robots_never_panic_and_models_agree(
        lines in proptest::collection::vec(
            (prop::sample::select(vec!["user-agent", "allow", "disallow", "crawl-delay", "sitemap", "USER AGENT", "disalow", "junk"]),
             prop::sample::select(vec![":", " ", ": ", "::"]),
             "[a-zA-Z*/$%0-9.?=-]{0,12}"),
            0..30),
        path in "/[a-z/%0-9*$?=.-]{0,20}",
    ) {
        let body: String = lines.iter().map(|(k, s, v)| format!("{k}{s}{v}\n")).collect();
        let direct = Policy::parse(body.as_bytes(), "Walsh-Research");
        let via_model = Robots::parse(body.as_bytes()).policy("Walsh-Research");
        prop_assert_eq!(direct.check(&path).allowed, via_model.check(&path).allowed, "{}", body);
        prop_assert_eq!(direct.crawl_delay(), via_model.crawl_delay());
    }
}
