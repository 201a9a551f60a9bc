//! Built-in robots.txt cases: the spec's section 12.1 and 12.2 vectors,
//! every row of the under-blocking table of issue #10, and edge cases of
//! the reading in [`crate::robots_model`].
//!
//! Each case names the spec sentence that decides it, quoted, so that a
//! failure points at the contract rather than at an implementation. All
//! cases are for the product token [`TOKEN`]. The unit tests below check
//! that the model answers every case as recorded; `wr-core`'s tests and
//! `wr-feeds attest` hold the production code to the same answers (at
//! least to every denial: over-blocking an allowed case is permitted).

/// The product token every case is evaluated for.
pub const TOKEN: &str = "Walsh-Research";

/// One built-in case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Short name.
    pub name: &'static str,
    /// The spec sentence that decides it.
    pub rests_on: &'static str,
    /// The robots.txt body.
    pub body: &'static str,
    /// The request target (path and query).
    pub path: &'static str,
    /// Whether the spec's algorithm allows it.
    pub allowed: bool,
}

// Sentences of the spec, quoted once and shared by the cases.
const NAMED_WINS: &str = "9.1.3: The non-* group whose matching U is longest wins.";
const STAR_FALLBACK: &str = "9.1.3: If no named group matches, use the * group.";
const NO_STAR: &str = "9.1.3: If no * group exists, no rules apply (allow all).";
const PREFIX_AGENT: &str = "9.1.3: U is a prefix of T (walsh matches walsh-research)";
const LOWERCASE_AGENT: &str = "9.1.3: For each User-agent value U (lowercased), U matches T when any of: ... U = T (exact match)";
const PREFIX_RULE: &str =
    "9.1.4: Otherwise a rule matches if path+query starts with the rule value (after expanding any *).";
const EMPTY_RULE: &str = "9.1.4: A rule value \"\" matches nothing (an empty Disallow allows all).";
const STAR_DOLLAR: &str =
    "9.1.4: * matches any sequence (including none); $ anchors to the end of path+query.";
const LONGEST_WINS: &str = "9.1.4: among matching rules, the longest value wins (an expanded * counts as the characters it consumed).";
const TIE_ALLOW: &str = "9.1.4: On a length tie, Allow wins.";
const PERCENT: &str =
    "9.1.4: Compare percent-encoding consistently (decode unreserved octets on both sides).";
const GROUP_DEF: &str = "9.1.2: A group is one or more consecutive User-agent lines followed by the rule lines (Allow, Disallow, Crawl-delay) that apply to them. A User-agent line appearing after a rule line starts a new group.";
const MERGE: &str = "9.1.2: Records with the same User-agent value merge.";
const LINES: &str = "9.1.2: Lines are field: value; # begins a comment; field names are case-insensitive; surrounding whitespace is trimmed; blank lines are ignored.";
const RFC9309: &str =
    "9.1: A tool MUST fetch /robots.txt over the target's scheme+host, parse it per RFC 9309";
const VERSION: &str = "8.1: The version is part of the exact UA string but is not used for robots matching (R2 keys on the bare Walsh-Research token)";
const ONLY_SELECTED: &str = "9.1.3: Only the selected group's rules are consulted.";

/// The cases.
pub const CASES: &[Case] = &[
    // ---- Section 12.1: group selection -----------------------------------
    Case {
        name: "12.1 named beats * (named rule applies)",
        rests_on: NAMED_WINS,
        body: "User-agent: *\nDisallow: /a\n\nUser-agent: Walsh-Research\nDisallow: /b\n",
        path: "/b",
        allowed: false,
    },
    Case {
        name: "12.1 named beats * (* rule does not apply)",
        rests_on: ONLY_SELECTED,
        body: "User-agent: *\nDisallow: /a\n\nUser-agent: Walsh-Research\nDisallow: /b\n",
        path: "/a",
        allowed: true,
    },
    Case {
        name: "12.1 no named group",
        rests_on: STAR_FALLBACK,
        body: "User-agent: *\nDisallow: /a\n",
        path: "/a",
        allowed: false,
    },
    Case {
        name: "12.1 longest prefix match (walsh-research applies)",
        rests_on: NAMED_WINS,
        body: "User-agent: walsh\nDisallow: /x\n\nUser-agent: walsh-research\nDisallow: /y\n",
        path: "/y",
        allowed: false,
    },
    Case {
        name: "12.1 longest prefix match (walsh does not)",
        rests_on: NAMED_WINS,
        body: "User-agent: walsh\nDisallow: /x\n\nUser-agent: walsh-research\nDisallow: /y\n",
        path: "/x",
        allowed: true,
    },
    Case {
        name: "12.1 no named, no * -> allow all",
        rests_on: NO_STAR,
        body: "User-agent: Googlebot\nDisallow: /\n",
        path: "/",
        allowed: true,
    },
    Case {
        name: "12.1 case-insensitive",
        rests_on: LOWERCASE_AGENT,
        body: "User-agent: WALSH-RESEARCH\nDisallow: /z\n",
        path: "/z",
        allowed: false,
    },
    // ---- Section 12.2: path matching -------------------------------------
    Case {
        name: "12.2 prefix match",
        rests_on: PREFIX_RULE,
        body: "User-agent: Walsh-Research\nDisallow: /research/bots/dogfood-disallow\n",
        path: "/research/bots/dogfood-disallow.html",
        allowed: false,
    },
    Case {
        name: "12.2 not a prefix of the rule",
        rests_on: PREFIX_RULE,
        body: "User-agent: Walsh-Research\nDisallow: /research/bots/dogfood-disallow\n",
        path: "research/bots",
        allowed: true,
    },
    Case {
        name: "12.2 root disallow",
        rests_on: PREFIX_RULE,
        body: "User-agent: Walsh-Research\nDisallow: /\n",
        path: "/anything",
        allowed: false,
    },
    Case {
        name: "12.2 empty Disallow matches nothing",
        rests_on: EMPTY_RULE,
        body: "User-agent: Walsh-Research\nDisallow:\n",
        path: "/anything",
        allowed: true,
    },
    Case {
        name: "12.2 longer Allow wins",
        rests_on: LONGEST_WINS,
        body: "User-agent: Walsh-Research\nDisallow: /a\nAllow: /a/b\n",
        path: "/a/b/c",
        allowed: true,
    },
    Case {
        name: "12.2 equal length -> Allow wins",
        rests_on: TIE_ALLOW,
        body: "User-agent: Walsh-Research\nDisallow: /a\nAllow: /a\n",
        path: "/a/x",
        allowed: true,
    },
    Case {
        name: "12.2 * + end-anchor",
        rests_on: STAR_DOLLAR,
        body: "User-agent: Walsh-Research\nDisallow: /*.pdf$\n",
        path: "/docs/report.pdf",
        allowed: false,
    },
    Case {
        name: "12.2 $ anchors end; query breaks it",
        rests_on: STAR_DOLLAR,
        body: "User-agent: Walsh-Research\nDisallow: /*.pdf$\n",
        path: "/docs/report.pdf?x=1",
        allowed: true,
    },
    // ---- The under-blocking table (issue #10) ----------------------------
    Case {
        name: "table: an Allow of /dir/index.html does not open /dir/",
        rests_on: PREFIX_RULE,
        body: "User-agent: *\nDisallow: /freecharts/\nAllow: /freecharts/index.html\n",
        path: "/freecharts/",
        allowed: false,
    },
    Case {
        name: "table: a leading * counts what it consumed",
        rests_on: LONGEST_WINS,
        body: "User-agent: *\nAllow: /wp-content/uploads/\nDisallow: */trackback/\n",
        path: "/wp-content/uploads/x/trackback/",
        allowed: false,
    },
    Case {
        name: "table: a Crawl-delay line ends the run of User-agent lines",
        rests_on: GROUP_DEF,
        body: "User-agent: Walsh-Research\nCrawl-delay: 5\nUser-agent: OtherBot\nAllow: /private/x\n\nUser-agent: Walsh-Research\nDisallow: /private\n",
        path: "/private/x",
        allowed: false,
    },
    Case {
        name: "table: Walsh-Research2 is not a prefix of walsh-research",
        rests_on: PREFIX_AGENT,
        body: "User-agent: Walsh-Research2\nAllow: /private\n\nUser-agent: Walsh-Research\nDisallow: /private\n",
        path: "/private",
        allowed: false,
    },
    Case {
        name: "table: Allow-ads is not Allow",
        rests_on: LINES,
        body: "User-agent: *\nDisallow: /\nAllow-ads: /\n",
        path: "/page",
        allowed: false,
    },
    // ---- Edge cases ------------------------------------------------------
    Case {
        name: "an escaped unreserved octet in the rule matches it raw",
        rests_on: PERCENT,
        body: "User-agent: *\nDisallow: /%7Euser/\n",
        path: "/~user/notes",
        allowed: false,
    },
    Case {
        name: "a raw unreserved octet in the rule matches it escaped, lower-case hex",
        rests_on: PERCENT,
        body: "User-agent: *\nDisallow: /~user/\n",
        path: "/%7euser/notes",
        allowed: false,
    },
    Case {
        name: "%41 is A",
        rests_on: PERCENT,
        body: "User-agent: *\nDisallow: /%41dmin\n",
        path: "/Admin",
        allowed: false,
    },
    Case {
        name: "an escaped reserved octet stays escaped",
        rests_on: PERCENT,
        body: "User-agent: *\nDisallow: /a%2Fb\n",
        path: "/a/b",
        allowed: true,
    },
    Case {
        name: "escaped reserved octets compare whatever the hex case",
        rests_on: PERCENT,
        body: "User-agent: *\nDisallow: /a%3ab\n",
        path: "/a%3Ab",
        allowed: false,
    },
    Case {
        name: "a non-ASCII rule matches its escaped form",
        rests_on: PERCENT,
        body: "User-agent: *\nDisallow: /ツ\n",
        path: "/%E3%83%84/x",
        allowed: false,
    },
    Case {
        name: "$ at the end anchors",
        rests_on: STAR_DOLLAR,
        body: "User-agent: *\nDisallow: /a$\n",
        path: "/ab",
        allowed: true,
    },
    Case {
        name: "$ before the end is an ordinary octet",
        rests_on: STAR_DOLLAR,
        body: "User-agent: *\nDisallow: /a$b\n",
        path: "/a$bc",
        allowed: false,
    },
    Case {
        name: "a Disallow's * may consume the whole target",
        rests_on: LONGEST_WINS,
        body: "User-agent: *\nDisallow: /*\nAllow: /public\n",
        path: "/public/page",
        allowed: false,
    },
    Case {
        name: "CRLF line ends",
        rests_on: RFC9309,
        body: "User-agent: *\r\nDisallow: /x\r\n",
        path: "/x",
        allowed: false,
    },
    Case {
        name: "CR line ends",
        rests_on: RFC9309,
        body: "User-agent: *\rAllow: /\rDisallow: /x\r",
        path: "/x/y",
        allowed: false,
    },
    Case {
        name: "a byte order mark is not part of the first line",
        rests_on: RFC9309,
        body: "\u{FEFF}User-agent: Walsh-Research\nDisallow: /x\n",
        path: "/x",
        allowed: false,
    },
    Case {
        name: "a User-agent value with a version selects",
        rests_on: VERSION,
        body: "User-agent: *\nAllow: /\n\nUser-agent: Walsh-Research/1.2\nDisallow: /x\n",
        path: "/x",
        allowed: false,
    },
    Case {
        name: "walsh selects for walsh-research",
        rests_on: PREFIX_AGENT,
        body: "User-agent: *\nAllow: /\n\nUser-agent: walsh\nDisallow: /x\n",
        path: "/x",
        allowed: false,
    },
    Case {
        name: "W3C-checklink does not select",
        rests_on: PREFIX_AGENT,
        body: "User-agent: W3C-checklink\nDisallow:\n\nUser-agent: *\nDisallow: /\n",
        path: "/page",
        allowed: false,
    },
    Case {
        name: "Walsh_Research does not select",
        rests_on: PREFIX_AGENT,
        body: "User-agent: Walsh_Research\nAllow: /\n\nUser-agent: *\nDisallow: /\n",
        path: "/page",
        allowed: false,
    },
    Case {
        name: "Sitemap and typos between User-agent lines keep one group",
        rests_on: GROUP_DEF,
        body: "User-agent: OtherBot\nSitemap: https://example.com/s.xml\nDissallow: /\nUser-agent: Walsh-Research\nDisallow: /p\n",
        path: "/p",
        allowed: false,
    },
    Case {
        name: "groups of one name merge",
        rests_on: MERGE,
        body: "User-agent: Walsh-Research\nAllow: /a\n\nUser-agent: walsh-research\nDisallow: /a/b\n",
        path: "/a/b",
        allowed: false,
    },
    Case {
        name: "a named group overrides * in the allowing direction",
        rests_on: NAMED_WINS,
        body: "User-agent: *\nDisallow: /\n\nUser-agent: Walsh-Research\nAllow: /\n",
        path: "/x",
        allowed: true,
    },
    Case {
        name: "a comment ends the value; field and value are trimmed",
        rests_on: LINES,
        body: "user-agent : * \n  DISALLOW\t:  /x # not /y\n",
        path: "/x",
        allowed: false,
    },
    Case {
        name: "a line without a colon is no rule",
        rests_on: LINES,
        body: "User-agent: *\nDisallow /x\n",
        path: "/x",
        allowed: true,
    },
    Case {
        name: "a misspelt User-agent line does not start a group",
        rests_on: LINES,
        body: "User-agent: Walsh-Research\nDisallow: /a\nuseragent: *\nDisallow: /\n",
        path: "/",
        allowed: false,
    },
    Case {
        name: "a User-agent line without a colon does not start a group",
        rests_on: LINES,
        body: "User-agent: *\nDisallow: /\nUser-agent Walsh-Research\n",
        path: "/",
        allowed: false,
    },
    Case {
        name: "Walsh-Research* does not select",
        rests_on: PREFIX_AGENT,
        body: "User-agent: *\nDisallow: /\nUser-agent: Walsh-Research*\n",
        path: "/",
        allowed: false,
    },
    Case {
        name: "an Allow's * counts its shortest run",
        rests_on: LONGEST_WINS,
        body: "User-agent: *\nDisallow: /~\nAllow: /*\n",
        path: "/%7E",
        allowed: false,
    },
    Case {
        name: "Disallow: * outranks Allow: / on a longer target",
        rests_on: LONGEST_WINS,
        body: "User-agent: *\nDisallow: *\nAllow: /\n",
        path: "/a",
        allowed: false,
    },
    Case {
        name: "form feed and vertical tab are trimmed",
        rests_on: LINES,
        body: "User-agent: *\nDisallow:\u{0C}/x\u{0B}\n",
        path: "/x",
        allowed: false,
    },
    Case {
        name: "rules before any User-agent line apply to nobody",
        rests_on: GROUP_DEF,
        body: "Disallow: /\nUser-agent: *\nDisallow: /x\n",
        path: "/y",
        allowed: true,
    },
    Case {
        name: "an empty target is /",
        rests_on: "9.1.4: Match the request's path + query (default / when empty)",
        body: "User-agent: *\nDisallow: /$\n",
        path: "",
        allowed: false,
    },
];

/// The rows of issue #10's under-blocking table, in the table's order:
/// paths every earlier wr-core allowed and the spec's algorithm denies.
pub fn under_blocking_table() -> impl Iterator<Item = &'static Case> {
    CASES.iter().filter(|c| c.name.starts_with("table: "))
}

/// For generated request targets (the differential tests): writes the
/// octet at `at` (modulo the length) the other way: an escape `%XX` of an ASCII
/// octet decoded, a raw URL octet escaped (lower-case hex when `lower`).
pub fn toggle_encoding(path: &str, at: usize, lower: bool) -> String {
    let bytes = path.as_bytes();
    if bytes.is_empty() {
        return path.to_string();
    }
    let at = at % bytes.len();
    if !path.is_char_boundary(at) {
        return path.to_string();
    }
    let hex = |b: u8| (b as char).to_digit(16);
    if bytes[at] == b'%' && bytes.len() > at + 2 {
        if let (Some(h), Some(l)) = (hex(bytes[at + 1]), hex(bytes[at + 2])) {
            let decoded = (h * 16 + l) as u8;
            if decoded.is_ascii_graphic() {
                return format!("{}{}{}", &path[..at], decoded as char, &path[at + 3..]);
            }
        }
        return path.to_string();
    }
    let b = bytes[at];
    if b.is_ascii_graphic() {
        let escaped = if lower {
            format!("%{b:02x}")
        } else {
            format!("%{b:02X}")
        };
        return format!("{}{escaped}{}", &path[..at], &path[at + 1..]);
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots_model::decide;

    #[test]
    fn the_model_answers_every_case_as_recorded() {
        let mut wrong = Vec::new();
        for case in CASES {
            let v = decide(case.body.as_bytes(), TOKEN, case.path);
            if v.allowed != case.allowed {
                wrong.push(format!("{}: {v:?}", case.name));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn names_are_unique_and_every_case_quotes_the_spec() {
        let mut names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CASES.len());
        for case in CASES {
            let (section, sentence) = case.rests_on.split_once(": ").expect("section: sentence");
            assert!(
                section.chars().all(|c| c.is_ascii_digit() || c == '.'),
                "{}",
                case.name
            );
            assert!(!sentence.is_empty(), "{}", case.name);
        }
    }

    #[test]
    fn every_quoted_sentence_is_in_the_spec_when_it_is_at_hand() {
        // The spec text sits beside the project in the development set-up;
        // elsewhere this check has nothing to read.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/spec/walsh-research-compliance-v1.3.txt"
        );
        let Ok(spec) = std::fs::read_to_string(path) else {
            eprintln!("skipping: spec text absent at {path}");
            return;
        };
        // The text file breaks lines and lost the spaces around inline
        // code: compare with all whitespace removed, and the fragments of
        // a quote (joined by " ... ") one by one.
        let squash = |s: &str| s.split_whitespace().collect::<String>();
        let spec = squash(&spec);
        for case in CASES {
            let (_, sentence) = case.rests_on.split_once(": ").unwrap();
            for fragment in sentence.split(" ... ") {
                assert!(
                    spec.contains(&squash(fragment)),
                    "{}: {fragment:?}",
                    case.name
                );
            }
        }
    }
}
