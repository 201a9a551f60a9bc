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
//! - Its parser keeps the first 16,663 octets of a longer line, as
//!   Google's does, but counts what it skips in characters, not octets:
//!   after a long line holding a multi-octet character, it resumes inside
//!   the skipped text (reading a fragment of it as the next line), or
//!   panics inside a character. [`allows`] says `None` for such a body: it
//!   cannot be asked. Found by the first runs of the differential, where
//!   the fragments denied what Google allows.
//! - Its matcher ends a run of `User-agent` lines at a Sitemap line or at
//!   any line with a field it does not know (a Crawl-delay, say), where
//!   Google's parser ends one at Allow and Disallow only: Google's own
//!   suite holds it to that (`ID_LineSyntax_Groups_OtherRules`, "Group
//!   must not be closed by rules not explicitly defined in the REP"), and
//!   so does RFC 9309 2.1. Those lines mean nothing else to Google, so
//!   [`allows`] empties them (their line ends stay) before it asks:
//!   `User-agent: *`, `Crawl-delay: 2`, `User-agent: other`, `Allow: /a`
//!   is one group to Google and was two to the port (gen-105/mixed/296).

use robotstxt::matcher::{RobotsMatchStrategy, RobotsMatcher};
use robotstxt::RobotsParseHandler;
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

/// The longest line Google's parser keeps whole, in octets.
const MAX_LINE: usize = 2083 * 8 - 1;

/// Whether the port reads `body`'s lines as Google's parser does: no line
/// longer than Google's limit holds a multi-octet character (see the
/// module docs).
pub fn port_reads_lines_as_google(body: &str) -> bool {
    body.split(['\n', '\r'])
        .all(|line| line.len() <= MAX_LINE || line.is_ascii())
}

/// The lines (1-based, as the port numbers them) the port reads as a
/// Sitemap or as a field it does not know.
#[derive(Default)]
struct OtherLines(Vec<u32>);

impl RobotsParseHandler for OtherLines {
    fn handle_robots_start(&mut self) {}
    fn handle_robots_end(&mut self) {}
    fn handle_user_agent(&mut self, _: u32, _: &str) {}
    fn handle_allow(&mut self, _: u32, _: &str) {}
    fn handle_disallow(&mut self, _: u32, _: &str) {}
    fn handle_sitemap(&mut self, line: u32, _: &str) {
        self.0.push(line);
    }
    fn handle_unknown_action(&mut self, line: u32, _: &str, _: &str) {
        self.0.push(line);
    }
}

/// `body` with the content of its lines numbered `lines` removed, their
/// line ends kept (CR, LF and CRLF each end one line, as in the port).
fn without_lines(body: &str, lines: &[u32]) -> String {
    let mut out = String::with_capacity(body.len());
    let mut number = 1u32;
    let mut rest = body;
    while !rest.is_empty() {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        if !lines.contains(&number) {
            out.push_str(&rest[..end]);
        }
        let eol = if rest[end..].starts_with("\r\n") {
            2
        } else {
            usize::from(end < rest.len())
        };
        out.push_str(&rest[end..end + eol]);
        rest = &rest[end + eol..];
        number += 1;
    }
    out
}

/// Google's verdict for product token `token` on `url` (absolute, in the
/// form the bot sends) under `body`; `None` when the port does not read
/// the body as Google does ([`port_reads_lines_as_google`]) or panics.
pub fn allows(body: &str, token: &str, url: &str) -> Option<bool> {
    if !port_reads_lines_as_google(body) {
        return None;
    }
    catch_unwind(AssertUnwindSafe(|| {
        let mut other = OtherLines::default();
        robotstxt::parse_robotstxt(body, &mut other);
        let body = without_lines(body, &other.0);
        RobotsMatcher::<PositionSet>::default().one_agent_allowed_by_robots(&body, token, url)
    }))
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use robotstxt::matcher::LongestMatchRobotsMatchStrategy;

    #[test]
    fn lines_google_ignores_do_not_end_a_run() {
        // Google's suite, ID_LineSyntax_Groups_OtherRules.
        for body in [
            "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
            "User-agent: BarBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
            "User-agent: BarBot\r\nCrawl-delay: 2\r\nUser-agent: *\r\nDisallow: /\r\n",
        ] {
            let url = "http://foo.bar/";
            let port = RobotsMatcher::<PositionSet>::default()
                .one_agent_allowed_by_robots(body, "BarBot", url);
            assert!(port, "the port now keeps the run open: {body:?}");
            assert_eq!(allows(body, "BarBot", url), Some(false), "{body:?}");
            assert_eq!(allows(body, "FooBot", url), Some(false), "{body:?}");
        }
        assert_eq!(
            without_lines("a\r\nb\rc\n\nd", &[2, 4]),
            "a\r\n\rc\n\nd",
            "line ends stay, numbering as the port's"
        );
    }

    #[test]
    fn the_port_misreads_what_follows_a_long_line_of_wide_characters() {
        // gen-63/padding/91 of the platform families: 8,352 NBSPs (16,704
        // octets) before a Disallow. Google cuts the line and keeps none of
        // it; no rule names `/?q=1`.
        let body = format!(
            "User-agent: walsh-research\n{}Disallow: /cart\nDisallow: /also\n",
            "\u{a0}".repeat(8352)
        );
        let url = "https://example.com/?q=1";
        let port = RobotsMatcher::<PositionSet>::default().one_agent_allowed_by_robots(
            &body,
            "walsh-research",
            url,
        );
        assert!(!port, "the port now reads this body as Google does");
        assert!(!port_reads_lines_as_google(&body));
        assert_eq!(allows(&body, "walsh-research", url), None);
        let ascii = body.replace('\u{a0}', "  ");
        assert!(port_reads_lines_as_google(&ascii));
        assert_eq!(allows(&ascii, "walsh-research", url), Some(true));
    }

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
