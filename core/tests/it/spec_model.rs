//! Differential tests against the reference model of the spec's robots.txt
//! algorithm (`wr-conformance`, written from sections 9.1.2-9.1.5 alone).
//!
//! R2c: a tool "MUST NOT fetch a URL the full algorithm would deny (no
//! under-blocking), but it MAY over-block". So the invariants are one-sided:
//!
//! - `Policy` never allows a target the model denies;
//! - `FixedPolicy`, at a small and a large capacity, never allows a target
//!   `Policy` denies;
//! - `Policy`'s Crawl-delay is never shorter than the model's.
//!
//! The generator aims at the seams between a fast implementation and the
//! text: `*`s whose consumed length differs from their pattern length,
//! `$`, `/dir/index.html` Allows, lines between User-agent lines, agent
//! values that extend or cut the token, misspelt fields, percent-encoding,
//! line ends, byte order marks and long lines. Targets are built from the
//! file's own rule values, so that most of them are matched by something.

use proptest::prelude::*;
use proptest::sample::Index;
use wr_conformance::robots_cases::{toggle_encoding, CASES, TOKEN};
use wr_conformance::robots_model::{
    lines_with, placed_octets_may_differ, LineKind, Model, Options, MAX_BODY,
};
use wr_core::robots::{Policy, MAX_CRAWL_DELAY};

// ---------------------------------------------------------------------------
// Generated robots.txt files
// ---------------------------------------------------------------------------

/// One generated line, before rendering.
#[derive(Debug, Clone)]
enum Line {
    /// A User-agent line (or a near miss of one).
    Agent {
        field: &'static str,
        sep: &'static str,
        value: &'static str,
    },
    /// An Allow or Disallow line (or a near miss of one).
    Rule {
        field: &'static str,
        sep: &'static str,
        value: String,
        /// What follows the value: nothing, a comment or whitespace.
        tail: &'static str,
    },
    /// A Crawl-delay line (or a near miss of one).
    Delay {
        field: &'static str,
        value: &'static str,
    },
    /// Anything else: Sitemap, unknown fields, comments, blank lines.
    Other(&'static str),
    /// A line padded past Google's 16,663-octet limit (issue #18): blanks
    /// inside the field name (before the colon) or before the value.
    Padded {
        field: &'static str,
        value: String,
        pad: usize,
        inside_name: bool,
    },
}

impl Line {
    fn render(&self, out: &mut Vec<u8>) {
        match self {
            Line::Agent { field, sep, value } => {
                out.extend_from_slice(format!("{field}{sep}{value}").as_bytes())
            }
            Line::Rule {
                field,
                sep,
                value,
                tail,
            } => out.extend_from_slice(format!("{field}{sep}{value}{tail}").as_bytes()),
            Line::Delay { field, value } => {
                out.extend_from_slice(format!("{field}: {value}").as_bytes())
            }
            Line::Other(text) => out.extend_from_slice(text.as_bytes()),
            Line::Padded {
                field,
                value,
                pad,
                inside_name,
            } => {
                out.extend_from_slice(field.as_bytes());
                if *inside_name {
                    out.resize(out.len() + pad, b' ');
                    out.push(b':');
                } else {
                    out.push(b':');
                    out.resize(out.len() + pad, b' ');
                }
                out.extend_from_slice(value.as_bytes());
            }
        }
    }

    /// The value of an Allow/Disallow-like line, whatever its spelling.
    fn rule_value(&self) -> Option<&str> {
        match self {
            Line::Rule { value, .. } => Some(value),
            Line::Padded { field, value, .. } if field.ends_with("llow") => Some(value),
            _ => None,
        }
    }
}

/// User-agent values: the token, its case variants, values that extend or
/// cut it, and other bots. The first ones are the simplest (proptest
/// shrinks towards them).
const AGENTS: &[&str] = &[
    "*",
    "Walsh-Research",
    "OtherBot",
    "walsh",
    "WALSH-RESEARCH",
    "walsh-research",
    "Walsh-Research2",
    "Walsh-Research/1.2",
    "Walsh-Research bot",
    "Walsh_Research",
    "W3C-checklink",
    "W",
    "wal",
    "Googlebot",
    "* Walsh-Research",
    "",
    "*bot",
    "Walsh-Research*",
    "walsh-",
    "Walsh-Research\t",
    // Issue #18: Unicode spaces, versions and `* x` read whole.
    "Walsh-Research\u{a0}",
    "*\u{a0}",
    "* Googlebot",
    "Walsh\u{2002}Research",
    "Walsh-Research/1.2 (+https://wal.sh/bot/)",
    "\u{3000}walsh",
    "/1.0",
    // Escapes, which Python's parser unquotes before it reads a value.
    "Walsh%2DResearch",
    "%57alsh",
    "%2a",
    "walsh%2dresearch/1.2",
    "Walsh%2DResearch%C2%A0",
];

/// User-agent field spellings, near misses included.
const AGENT_FIELDS: &[&str] = &[
    "User-agent",
    "user-agent",
    "USER-AGENT",
    "useragent",
    "User agent",
];

/// Allow/Disallow field spellings, near misses included.
const RULE_FIELDS: &[&str] = &[
    "Disallow",
    "Allow",
    "disallow",
    "ALLOW",
    "Dissallow",
    "Disalow",
    "Allow-ads",
    "Disallow-x",
];

/// What separates field and value: a colon with or without whitespace,
/// or (a near miss) no colon at all.
const SEPARATORS: &[&str] = &[
    ": ",
    ":",
    " : ",
    ":\t",
    " ",
    "\t",
    ":\x0C",
    " \x0B:",
    // Issue #18: white space only Unicode calls so.
    ":\u{a0}",
    "\u{a0}:",
    ":\u{2002}",
    ": \u{3000}",
    ":\x1F",
];

/// What may follow a rule value on its line; most often nothing.
const TAILS: &[&str] = &[
    "",
    "",
    "",
    "",
    "",
    " # /commented-out",
    "#x",
    " \t",
    "\x0B",
    "\x0C ",
    "\u{a0}",
    "\u{2002}",
    " \u{3000}",
];

const DELAY_FIELDS: &[&str] = &["Crawl-delay", "crawl-delay", "Crawl_delay", "crawldelay"];
const DELAY_VALUES: &[&str] = &[
    "5",
    "0.5",
    ".5",
    "10.",
    "2",
    "soon",
    "1e3",
    "-1",
    "",
    "3 # three",
    "7s",
    "100000000000000",
    "0.0000000001",
    "1,5",
    "%35",
    "1%30",
];

const OTHER_LINES: &[&str] = &[
    "",
    "# comment",
    "Sitemap: https://example.com/sitemap.xml",
    "Host: example.com",
    "Noindex: /x",
    "Request-rate: 1/5",
    "   ",
    "Disallow /bare",
    "Allow /bare",
    "Clean-param: ref /x",
    // Issue #18: lines other parsers broke on, and a field behind NBSP.
    "Content-Signal: search=yes, ai-train=no",
    "Content-Usage: train-ai=n",
    "License: https://example.com/license.xml",
    "\u{a0}Disallow: /nbsp",
    "\u{3000}User-agent: *",
];

/// Pieces of rule values and targets.
const SEGMENTS: &[&str] = &[
    "a",
    "/",
    "b",
    "dir/",
    "index.html",
    "*",
    "x",
    "%2F",
    "%3A",
    "%3a",
    "%7E",
    "%7e",
    "~",
    "%41",
    "%61",
    "A",
    ".pdf",
    "?",
    "=",
    "ツ",
    "%E3%83%84",
    "%",
    "%4",
    "$",
    "trackback/",
    "private",
    "-",
    "_",
    "index.htm",
    "wp-content/uploads/",
    " ",
    "%20",
    "%2A",
    "%24",
    "%25",
    "%e3%83%84",
    "é",
    "%C3%A9",
    "%7F",
    "&",
    // Issue #18: octets a sent URL never carries raw (template rules),
    // and the escapes of `/` and `?`.
    "{x}",
    "{",
    "}",
    "\"",
    "<",
    ">",
    "`",
    "'",
    "%7B",
    "%22",
    "%2f",
    "%3F",
    "%3f",
];

/// A rule value: usually rooted, sometimes starting with `*` or nothing,
/// sometimes anchored, sometimes empty; now and then a few thousand octets.
fn rule_value() -> impl Strategy<Value = String> {
    let ordinary = (
        prop::sample::select(&["/", "/", "*", "", "/*"][..]),
        prop::collection::vec(prop::sample::select(SEGMENTS), 0..6),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(start, segs, anchor)| {
            let mut v = String::from(start);
            v.push_str(&segs.concat());
            if anchor {
                v.push('$');
            }
            v
        });
    let index_html =
        prop::sample::select(&["/dir/index.html", "/dir/index.htm", "/index.html", "/dir/"][..])
            .prop_map(String::from);
    let long = (
        1000usize..4000,
        prop::sample::select(&["", "*", "$", "/x", "*x$"][..]),
    )
        .prop_map(|(n, tail)| {
            // Varied octets, so that a `*` before them does not make every
            // position a candidate.
            let mut v = String::from("/");
            v.extend("abcdefghij/".chars().cycle().take(n));
            v.push_str(tail);
            v
        });
    prop_oneof![12 => ordinary, 2 => index_html, 1 => long]
}

/// A User-agent value, the two that select most often the most frequent.
fn agent() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        1 => prop::sample::select(&["*", "Walsh-Research"][..]),
        1 => prop::sample::select(AGENTS),
    ]
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        3 => (
            prop::sample::select(AGENT_FIELDS),
            prop::sample::select(SEPARATORS),
            agent()
        )
            .prop_map(|(field, sep, value)| Line::Agent { field, sep, value }),
        6 => (
            prop::sample::select(RULE_FIELDS),
            prop::sample::select(SEPARATORS),
            rule_value(),
            prop::sample::select(TAILS)
        )
            .prop_map(|(field, sep, value, tail)| Line::Rule { field, sep, value, tail }),
        1 => (prop::sample::select(DELAY_FIELDS), prop::sample::select(DELAY_VALUES))
            .prop_map(|(field, value)| Line::Delay { field, value }),
        1 => prop::sample::select(OTHER_LINES).prop_map(Line::Other),
        1 => padded(),
    ]
}

/// A Disallow, Allow, User-agent or Crawl-delay line padded past Google's
/// line limit (issue #18, class 4).
fn padded() -> impl Strategy<Value = Line> {
    let value = prop_oneof![
        rule_value().prop_map(|v| ("Disallow", v)),
        rule_value().prop_map(|v| ("Allow", v)),
        agent().prop_map(|a| ("User-agent", a.to_string())),
        prop::sample::select(DELAY_VALUES).prop_map(|d| ("Crawl-delay", d.to_string())),
    ];
    (value, 16_600usize..17_200, any::<bool>()).prop_map(|((field, value), pad, inside_name)| {
        Line::Padded {
            field,
            value,
            pad,
            inside_name,
        }
    })
}

/// Field spellings are mostly right (most generated lines should be lines
/// of the grammar): `exact` replaces a line's field and separator with the
/// canonical ones.
fn canonical(line: Line, exact: bool) -> Line {
    if !exact {
        return line;
    }
    match line {
        Line::Agent { value, .. } => Line::Agent {
            field: "User-agent",
            sep: ": ",
            value,
        },
        Line::Rule {
            field, value, tail, ..
        } => Line::Rule {
            field: if field.to_ascii_lowercase().starts_with("allow") {
                "Allow"
            } else {
                "Disallow"
            },
            sep: ": ",
            value,
            tail,
        },
        Line::Delay { value, .. } => Line::Delay {
            field: "Crawl-delay",
            value,
        },
        other => other,
    }
}

/// A generated robots.txt file.
#[derive(Debug, Clone)]
struct File {
    /// How many octets of a byte order mark start it (0 to 3).
    bom: usize,
    /// Each line and the line end after it.
    lines: Vec<(Line, &'static str)>,
}

impl File {
    fn body(&self) -> Vec<u8> {
        let mut out = [0xEF, 0xBB, 0xBF][..self.bom].to_vec();
        for (line, end) in &self.lines {
            line.render(&mut out);
            out.extend_from_slice(end.as_bytes());
        }
        out
    }
}

fn file() -> impl Strategy<Value = File> {
    let one = (
        prop::bool::weighted(0.7),
        line(),
        prop::sample::select(&["\n", "\r\n", "\r", "\n", "\n", ""][..]),
    )
        .prop_map(|(exact, line, end)| (canonical(line, exact), end));
    // Most files start with a User-agent line, so that their rules apply
    // to somebody.
    let first = prop::option::weighted(0.8, agent()).prop_map(|agent| {
        agent.map(|value| {
            let line = Line::Agent {
                field: "User-agent",
                sep: ": ",
                value,
            };
            (line, "\n")
        })
    });
    (
        prop::sample::select(&[0usize, 0, 0, 0, 3, 2, 1][..]),
        first,
        prop::collection::vec(one, 1..14),
    )
        .prop_map(|(bom, first, rest)| File {
            bom,
            lines: first.into_iter().chain(rest).collect(),
        })
}

// ---------------------------------------------------------------------------
// Targets built from the file's own rule values
// ---------------------------------------------------------------------------

/// What a `*` of a rule value is replaced with in a target.
const EXPANSIONS: &[&str] = &[
    "",
    "a",
    "x/y",
    "dir/",
    "trackback/",
    "/wp-content/uploads/",
    "%7E",
    "zz?q=1",
    "ツ",
    "*",
];

/// What may follow the (possibly cut) rule value in a target.
const SUFFIXES: &[&str] = &[
    "",
    "/",
    "x",
    "/index.html",
    "?q=1",
    ".pdf",
    "%41",
    "ツ",
    "$",
    "/trackback/",
    "%2f",
    "a",
];

/// How to make one target out of one of the file's rule values.
#[derive(Debug, Clone)]
struct Recipe {
    rule: Index,
    expansions: Vec<&'static str>,
    keep_dollar: bool,
    cut: Option<Index>,
    suffix: &'static str,
    toggles: Vec<(Index, bool)>,
}

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        any::<Index>(),
        prop::collection::vec(prop::sample::select(EXPANSIONS), 1..4),
        prop::bool::weighted(0.2),
        prop::option::weighted(0.3, any::<Index>()),
        prop::sample::select(SUFFIXES),
        prop::collection::vec((any::<Index>(), any::<bool>()), 0..3),
    )
        .prop_map(
            |(rule, expansions, keep_dollar, cut, suffix, toggles)| Recipe {
                rule,
                expansions,
                keep_dollar,
                cut,
                suffix,
                toggles,
            },
        )
}

fn build_target(values: &[&str], recipe: &Recipe) -> String {
    if values.is_empty() {
        return recipe.suffix.to_string();
    }
    let value = values[recipe.rule.index(values.len())];
    // Each `*` replaced by a run of octets, in turn from the expansions.
    let (body, dollar) = match value.strip_suffix('$') {
        Some(rest) => (rest, true),
        None => (value, false),
    };
    let mut target = String::new();
    for (i, piece) in body.split('*').enumerate() {
        if i > 0 {
            target.push_str(recipe.expansions[(i - 1) % recipe.expansions.len()]);
        }
        target.push_str(piece);
    }
    if dollar && recipe.keep_dollar {
        target.push('$');
    }
    if let Some(cut) = recipe.cut {
        let mut at = cut.index(target.len() + 1);
        while !target.is_char_boundary(at) {
            at -= 1;
        }
        target.truncate(at);
    }
    target.push_str(recipe.suffix);
    for (at, lower) in &recipe.toggles {
        target = toggle_encoding(&target, at.index(target.len().max(1)), *lower);
    }
    target
}

/// The targets to ask about: half built from the rule values the model
/// selected (those decide), half from any rule-like line of the file
/// (another reading may select or recognise them), and a free one.
fn targets(file: &File, body: &[u8], recipes: &[Recipe], free: String) -> Vec<String> {
    let model = Model::parse(body, TOKEN);
    let selected: Vec<String> = model
        .rules()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.value).into_owned())
        .collect();
    let selected: Vec<&str> = selected.iter().map(String::as_str).collect();
    let all: Vec<&str> = file
        .lines
        .iter()
        .filter_map(|(l, _)| l.rule_value())
        .collect();
    let mut targets: Vec<String> = recipes
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let values = if i % 2 == 0 && !selected.is_empty() {
                &selected
            } else {
                &all
            };
            build_target(values, r)
        })
        .collect();
    targets.push(free);
    targets
}

/// A target not derived from any rule.
fn free_target() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(SEGMENTS), 0..6).prop_map(|segs| {
        let mut t = String::from("/");
        t.push_str(&segs.concat());
        t
    })
}

// ---------------------------------------------------------------------------
// The invariants
// ---------------------------------------------------------------------------

/// Checks every invariant for one body and its targets; `Err` describes the
/// first violation.
fn check(body: &[u8], targets: &[String]) -> Result<(), String> {
    assert!(body.len() <= MAX_BODY);
    // The model in every reading of the text (issue #18: Unicode spaces,
    // whole User-agent values, `%2F` and `%3F` as `/` and `?`): Policy
    // must deny whatever any of them denies.
    // A reading that cannot change anything here is not built: Unicode
    // spaces need an octet beyond ASCII or a separator, the escapes of `/`
    // and `?` a `%2`/`%3` somewhere.
    let unicode = body
        .iter()
        .any(|&b| b >= 0x80 || (0x1C..=0x1F).contains(&b));
    let escapes = |s: &[u8]| s.contains(&b'%');
    let reserved = escapes(body) || targets.iter().any(|t| escapes(t.as_bytes()));
    // An empty name needs a User-agent line whose token may be empty.
    let empty = [false, true].into_iter().any(|unicode_space| {
        let o = Options {
            unicode_space,
            ..Options::default()
        };
        lines_with(body, o).iter().any(|l| {
            l.kind == LineKind::UserAgent
                && (l.value.is_empty() || l.value[0] == b'/' || l.value[0] >= 0x80)
        })
    });
    let placed = placed_octets_may_differ(body);
    let models: Vec<(Options, Model)> = Options::all()
        .filter(|o| {
            (unicode || !o.unicode_space)
                && (reserved || !o.reserved_escapes)
                && (empty || !o.empty_agent)
                && (placed || !o.placed_octets)
        })
        .map(|o| (o, Model::parse_with(body, TOKEN, o)))
        .collect();
    let model = &models[0].1;
    let policy = Policy::parse(body, TOKEN);
    let show = || String::from_utf8_lossy(body).into_owned();
    for target in targets {
        let p = policy.check(target);
        for (options, model) in &models {
            let m = model.decide(target);
            if !m.allowed && p.allowed {
                return Err(format!(
                    "Policy allows what the model denies (reading {options:?}, model line {:?}; Policy: {p:?})\ntarget {target:?}\nbody {:?}",
                    m.line,
                    show()
                ));
            }
        }
        #[cfg(feature = "heapless")]
        {
            use wr_core::robots::fixed::FixedPolicy;
            if !p.allowed {
                let small = FixedPolicy::<4, 64>::parse(body, TOKEN);
                let large = FixedPolicy::<64, 16384>::parse(body, TOKEN);
                for (name, allowed) in [
                    ("FixedPolicy<4, 64>", small.check(target).allowed),
                    ("FixedPolicy<64, 16384>", large.check(target).allowed),
                ] {
                    if allowed {
                        return Err(format!(
                            "{name} allows what Policy denies (Policy: {p:?})\ntarget {target:?}\nbody {:?}",
                            show()
                        ));
                    }
                }
            }
        }
    }
    let _ = model;
    let longest = models
        .iter()
        .filter_map(|(_, m)| m.crawl_delay())
        .reduce(f64::max);
    if let Some(want) = longest {
        // wr-core clamps absurd values to a year (still "stay away").
        let want = want.min(MAX_CRAWL_DELAY.as_secs_f64());
        let got = policy.crawl_delay().map(|d| d.0.as_secs_f64());
        if got.is_none_or(|got| got + 1e-9 < want) {
            return Err(format!(
                "Crawl-delay: Policy {got:?}, model {want}\nbody {:?}",
                show()
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(5000), ..ProptestConfig::default() })]

    #[test]
    fn production_never_allows_what_the_model_denies(
        file in file(),
        recipes in prop::collection::vec(recipe(), 6),
        free in free_target(),
    ) {
        let body = file.body();
        let targets = targets(&file, &body, &recipes, free);
        if let Err(e) = check(&body, &targets) {
            prop_assert!(false, "{}", e);
        }
    }
}

// ---------------------------------------------------------------------------
// The under-blocking table, one test per row, and the other built-in cases
// ---------------------------------------------------------------------------

/// Asserts that `Policy` denies the built-in case named `name` (which the
/// model denies).
fn policy_denies(name: &str) {
    let case = CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no built-in case {name:?}"));
    assert!(!case.allowed, "{name}: the model allows it");
    let policy = Policy::parse(case.body.as_bytes(), TOKEN);
    let v = policy.check(case.path);
    assert!(
        !v.allowed,
        "{name}\n{}\nPolicy: {v:?}\nbody {:?} target {:?}",
        case.rests_on, case.body, case.path
    );
}

#[test]
fn table_index_html_allow_does_not_open_the_directory() {
    policy_denies("table: an Allow of /dir/index.html does not open /dir/");
}

#[test]
fn table_leading_star_counts_what_it_consumed() {
    policy_denies("table: a leading * counts what it consumed");
}

#[test]
fn table_crawl_delay_ends_the_user_agent_run() {
    policy_denies("table: a Crawl-delay line ends the run of User-agent lines");
}

#[test]
fn table_walsh_research2_does_not_select() {
    policy_denies("table: Walsh-Research2 is not a prefix of walsh-research");
}

#[test]
fn table_allow_ads_is_not_allow() {
    policy_denies("table: Allow-ads is not Allow");
}

#[test]
fn every_built_in_denial_is_denied() {
    let mut under = Vec::new();
    for case in CASES.iter().filter(|c| !c.allowed) {
        let policy = Policy::parse(case.body.as_bytes(), TOKEN);
        let v = policy.check(case.path);
        if v.allowed {
            under.push(format!("{}: Policy says {v:?}", case.name));
        }
    }
    assert!(under.is_empty(), "{under:#?}");
}
