//! Google's reference robots.txt parser, as the `robotstxt` crate ports it
//! (google/robotstxt, written by others), for differentials: Google's
//! reading is one of those every verdict must satisfy, so whatever it
//! denies, production must deny.
//!
//! Two things of the port are not Google's:
//!
//! - Its matcher keeps the positions a pattern has reached in a vector it
//!   `insert`s into, where Google's assigns, so after a `*` it loses
//!   candidates: `Disallow: /*.b` does not match `/a.x.b`. It would deny
//!   what Google allows (an Allow that misses). [`allows`] matches with
//!   Google's position-set algorithm instead ([`PositionSet`]); a test
//!   pins the port's behaviour, so that a fixed port shows.
//! - Its parser cuts lines longer than Google's limit by octet and panics
//!   when the cut falls inside a UTF-8 sequence. [`allows`] says `None`
//!   then: such a body cannot be asked. An ASCII body never panics so.

use robotstxt::matcher::{RobotsMatchStrategy, RobotsMatcher};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Google's longest-match strategy over its position-set matcher: a
/// pattern's priority is its length when it matches, else -1.
#[derive(Debug, Default, Clone, Copy)]
pub struct PositionSet;

impl PositionSet {
    /// Whether `pattern` matches a prefix of `path` (`$` anchors at the
    /// pattern's end only): the sorted set of path positions the pattern
    /// read so far can have reached, which a `*` widens to every later
    /// one.
    pub fn matches(path: &[u8], pattern: &[u8]) -> bool {
        let mut reached = vec![0usize];
        for (k, &p) in pattern.iter().enumerate() {
            if p == b'$' && k + 1 == pattern.len() {
                return reached.last() == Some(&path.len());
            }
            reached = if p == b'*' {
                (reached[0]..=path.len()).collect()
            } else {
                reached
                    .iter()
                    .filter(|&&at| path.get(at) == Some(&p))
                    .map(|at| at + 1)
                    .collect()
            };
            if reached.is_empty() {
                return false;
            }
        }
        true
    }

    fn priority(path: &str, pattern: &str) -> i32 {
        if Self::matches(path.as_bytes(), pattern.as_bytes()) {
            i32::try_from(pattern.len()).unwrap_or(i32::MAX)
        } else {
            -1
        }
    }
}

impl RobotsMatchStrategy for PositionSet {
    fn match_allow(&self, path: &str, pattern: &str) -> i32 {
        Self::priority(path, pattern)
    }

    fn match_disallow(&self, path: &str, pattern: &str) -> i32 {
        Self::priority(path, pattern)
    }
}

/// Google's verdict for product token `token` on `url` (absolute, in the
/// form the bot sends) under `body`; `None` when the port panics.
pub fn allows(body: &str, token: &str, url: &str) -> Option<bool> {
    catch_unwind(AssertUnwindSafe(|| {
        RobotsMatcher::<PositionSet>::default().one_agent_allowed_by_robots(body, token, url)
    }))
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use robotstxt::matcher::LongestMatchRobotsMatchStrategy;

    #[test]
    fn the_port_misses_a_match_after_a_star() {
        let body = "User-agent: *\nDisallow: /*.b\n";
        let url = "https://example.com/a.x.b";
        let port =
            robotstxt::DefaultMatcher::default().one_agent_allowed_by_robots(body, "bot", url);
        assert!(
            port,
            "the port now matches /*.b against /a.x.b: drop PositionSet"
        );
        assert!(!LongestMatchRobotsMatchStrategy::matches("/a.x.b", "/*.b"));
        assert!(PositionSet::matches(b"/a.x.b", b"/*.b"));
        assert_eq!(allows(body, "bot", url), Some(false));
        // Where the port is right, the position set agrees with it.
        for (path, pattern) in [
            ("/a.b", "/*.b"),
            ("/google/robotstxt/tree/master", "/*/*/tree/master$"),
            ("/x", "/x$"),
            ("/xy", "/x$"),
            ("/", "/abc"),
            ("/abc", "/"),
        ] {
            assert_eq!(
                PositionSet::matches(path.as_bytes(), pattern.as_bytes()),
                LongestMatchRobotsMatchStrategy::matches(path, pattern),
                "{pattern} on {path}"
            );
        }
    }
}
