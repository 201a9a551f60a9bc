//! In-process checks behind `wr-feeds attest` (spec 14): each one drives the
//! real code (wr-core's robots, throttle, gate and backoff; wr-feeds'
//! blocklist validation) with inputs built here, and compares the outcome
//! with what the spec requires. No network, no files, no clock: instants are
//! fixed, so a check gives the same answer on every run.
//!
//! Every check is data plus a comparison: the expected outcome is part of
//! the case, so a wrong expectation (or wrong code) makes the check fail.
//! The unit tests below feed such wrong cases to show that no check passes
//! vacuously.

use serde::Serialize;
use std::time::Duration;
use wr_core::backoff::{is_retryable_status, Backoff, BackoffStep};
use wr_core::blocklist::{Blocklist, BlocklistError};
use wr_core::constants::{
    BACKOFF_CAP, DEFAULT_BACKOFF_BASE, DEFAULT_MAX_RETRIES, MIN_REQUEST_INTERVAL, ROBOTS_TTL,
    UA_TOKEN,
};
use wr_core::gate::{Decision, Gate, GateConfig};
use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::lexer::MAX_LINE;
use wr_core::robots::Policy;
use wr_core::throttle;
use wr_core::time::Timestamp;
use wr_core::url::Url;
use wr_feeds::blocklist_doc::{self, BlocklistDocError, SchemaSource};

/// The operator's blocklist as published (inline schema, lists
/// `example.com`), and the standalone schema: the fixtures of
/// `feeds/tests/data/operator/`, compiled in.
pub const BLOCKLIST_DOC: &str = include_str!("../../feeds/tests/data/operator/blocklist.json");
/// The standalone `blocklist.schema.json`.
pub const BLOCKLIST_SCHEMA: &str =
    include_str!("../../feeds/tests/data/operator/blocklist.schema.json");

/// One check: what was established, and whether it held.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Check {
    /// Short name.
    pub name: String,
    /// Whether the real code did what the spec requires.
    pub passed: bool,
    /// What was checked and what happened.
    pub detail: String,
}

impl Check {
    pub fn new(name: &str, passed: bool, detail: String) -> Check {
        Check {
            name: name.to_string(),
            passed,
            detail,
        }
    }
}

/// Every check passed (and there was at least one).
pub fn all_passed(checks: &[Check]) -> bool {
    !checks.is_empty() && checks.iter().all(|c| c.passed)
}

/// One line of evidence for a set of checks.
pub fn evidence(checks: &[Check]) -> String {
    checks
        .iter()
        .map(|c| {
            format!(
                "{}{}: {}",
                if c.passed { "" } else { "FAILED " },
                c.name,
                c.detail
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Collects the mismatches of a list of (what, got, want) comparisons into
/// one check.
fn compare<T: PartialEq + std::fmt::Debug>(
    name: &str,
    what: &str,
    rows: Vec<(String, T, T)>,
) -> Check {
    let n = rows.len();
    let bad: Vec<String> = rows
        .into_iter()
        .filter(|(_, got, want)| got != want)
        .map(|(case, got, want)| format!("{case}: got {got:?}, expected {want:?}"))
        .collect();
    if n == 0 {
        return Check::new(name, false, format!("{what}: no case ran"));
    }
    if bad.is_empty() {
        Check::new(name, true, format!("{what}: {n}/{n} cases hold"))
    } else {
        Check::new(
            name,
            false,
            format!(
                "{what}: {} of {n} cases differ: {}",
                bad.len(),
                bad.join(", ")
            ),
        )
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

// ---- R2c -------------------------------------------------------------------

/// A Walsh-Research group with more rules and pattern bytes than the small
/// capacities below hold: Allows, Disallows, wildcards, an anchor, long
/// values. The `*` group disallows everything, so dropping the named group
/// altogether would be an over-block too, never an under-block.
pub const R2C_ROBOTS: &str = "User-agent: *\nDisallow: /\n\nUser-agent: Walsh-Research\nAllow: /public/\nDisallow: /private/\nAllow: /private/open/\nDisallow: /tmp\nDisallow: /*.pdf$\nAllow: /docs/\nDisallow: /docs/internal/drafts-and-other-long-names/\nDisallow: /a/very/long/directory/name/that/does/not/fit/\nAllow: /a/very/long/directory/name/that/does/not/fit/but-this-part-is-open\nDisallow: /search?q=\nCrawl-delay: 3\n";

/// Paths to probe a robots.txt with: each rule value (wildcards and anchors
/// dropped), longer and shorter variants of it, and a few unrelated paths.
pub fn probe_paths(robots: &str) -> Vec<String> {
    let mut out: Vec<String> = ["/", "/other", "/x.pdf", "/x.pdf?y=1", "/index.html"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for line in robots.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        if !(k.eq_ignore_ascii_case("allow") || k.eq_ignore_ascii_case("disallow")) {
            continue;
        }
        let v: String = v
            .trim()
            .chars()
            .filter(|c| *c != '*' && *c != '$')
            .collect();
        if !v.starts_with('/') {
            continue;
        }
        let mut shorter = v.clone();
        shorter.pop();
        for p in [
            v.clone(),
            format!("{v}x"),
            format!("{v}/deeper/page.html"),
            shorter,
        ] {
            if p.starts_with('/') && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// What a fixed-capacity policy answered against the allocating one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Comparison {
    /// Paths probed.
    pub paths: usize,
    /// The reference denies, the candidate allows: a violation (R2c).
    pub under: usize,
    /// The reference allows, the candidate denies: permitted (R2c).
    pub over: usize,
    /// The candidate reported a capacity overflow.
    pub overflowed: bool,
}

/// Compares `candidate` (allowed?, overflowed?) with the allocating
/// policy's verdicts on every path.
pub fn compare_with_reference(
    robots: &str,
    paths: &[String],
    candidate: impl Fn(&str) -> bool,
    overflowed: bool,
) -> Comparison {
    let reference = Policy::parse(robots.as_bytes(), UA_TOKEN);
    let mut c = Comparison {
        paths: paths.len(),
        overflowed,
        ..Comparison::default()
    };
    for p in paths {
        let want = reference.check(p).allowed;
        let got = candidate(p);
        if got && !want {
            c.under += 1;
        }
        if !got && want {
            c.over += 1;
        }
    }
    c
}

fn fixed_comparison<const RULES: usize, const BYTES: usize>(
    robots: &str,
    paths: &[String],
) -> Comparison {
    let fixed = FixedPolicy::<RULES, BYTES>::parse(robots.as_bytes(), UA_TOKEN);
    compare_with_reference(
        robots,
        paths,
        |p| fixed.check(p).allowed,
        fixed.overflowed(),
    )
}

/// The fixed-capacity comparisons of [`R2C_ROBOTS`]-like input at several
/// capacities, each labelled `RULES x BYTES`.
pub fn fixed_comparisons(robots: &str) -> Vec<(String, Comparison)> {
    let paths = probe_paths(robots);
    vec![
        ("1x8".to_string(), fixed_comparison::<1, 8>(robots, &paths)),
        (
            "2x256".to_string(),
            fixed_comparison::<2, 256>(robots, &paths),
        ),
        (
            "4x32".to_string(),
            fixed_comparison::<4, 32>(robots, &paths),
        ),
        (
            "8x64".to_string(),
            fixed_comparison::<8, 64>(robots, &paths),
        ),
        (
            "16x96".to_string(),
            fixed_comparison::<16, 96>(robots, &paths),
        ),
        (
            "32x4096".to_string(),
            fixed_comparison::<32, 4096>(robots, &paths),
        ),
    ]
}

/// R2c on the fixed-capacity mode: over every capacity, no path the full
/// algorithm denies is allowed; at least one capacity overflowed (so the
/// check exercised the overflow path) and said so; a capacity that did not
/// overflow answers exactly like the allocating policy.
pub fn check_fixed_capacity(rows: &[(String, Comparison)]) -> Check {
    let under: usize = rows.iter().map(|(_, c)| c.under).sum();
    let overflowed = rows.iter().filter(|(_, c)| c.overflowed).count();
    let over: usize = rows.iter().map(|(_, c)| c.over).sum();
    // Over-blocking without having reported an overflow is a bug, not R2c.
    let silent: Vec<&str> = rows
        .iter()
        .filter(|(_, c)| !c.overflowed && c.over > 0)
        .map(|(k, _)| k.as_str())
        .collect();
    let paths = rows.first().map_or(0, |(_, c)| c.paths);
    let passed = !rows.is_empty() && paths > 0 && under == 0 && overflowed > 0 && silent.is_empty();
    let mut detail = format!(
        "FixedPolicy at {} capacities ({}) against the allocating policy on {paths} paths: \
         {under} under-blocked, {over} over-blocked, {overflowed} capacities overflowed and reported it",
        rows.len(),
        rows.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", "),
    );
    if overflowed == 0 {
        detail.push_str(" (no capacity overflowed: the case does not exercise R2c)");
    }
    if !silent.is_empty() {
        detail.push_str(&format!(
            " (over-blocked without reporting an overflow at {})",
            silent.join(", ")
        ));
    }
    Check::new("fixed-capacity overflow", passed, detail)
}

/// One case of the allocating policy on input that a parser could read
/// more permissively: expected verdict per path.
#[derive(Debug, Clone)]
pub struct RobotsCase {
    pub name: &'static str,
    pub robots: String,
    /// (path, allowed) expected.
    pub expect: Vec<(String, bool)>,
}

/// Over-long, misspelt, colon-less and truncated lines: each one must be
/// read in the direction that can only block more (R2c).
pub fn long_line_cases() -> Vec<RobotsCase> {
    let long_allow = format!("/x/{}", "a".repeat(MAX_LINE));
    let long_disallow = format!("/y/{}", "b".repeat(MAX_LINE + 100));
    // A path the cut Allow would match but the whole one does not.
    let cut_allow_path = format!("/x/{}", "a".repeat(MAX_LINE - 64));
    // The body limit (500 KiB) falls inside the Allow line.
    let mut truncated = String::from("User-agent: Walsh-Research\nDisallow: /\n");
    let limit = wr_core::constants::ROBOTS_MAX_BYTES;
    while truncated.len() + 80 < limit {
        truncated.push_str("# padding up to the 500 KiB body limit\n");
    }
    truncated.push_str(&"#".repeat(limit - truncated.len() - 4));
    truncated.push_str("\nAllow: /open-after-the-limit\n");
    vec![
        RobotsCase {
            name: "over-long Allow kept whole (GoogleOnly_LineTooLong deviation)",
            robots: format!("User-agent: Walsh-Research\nDisallow: /\nAllow: {long_allow}\n"),
            expect: vec![(cut_allow_path, false), (long_allow.clone(), true)],
        },
        RobotsCase {
            name: "over-long Disallow cut, full-length precedence",
            robots: format!("User-agent: Walsh-Research\nAllow: /y/\nDisallow: {long_disallow}\n"),
            expect: vec![
                (long_disallow.clone(), false),
                (format!("{long_disallow}/z"), false),
                ("/y/short".to_string(), true),
            ],
        },
        RobotsCase {
            name: "misspelt Disallow honoured",
            robots: "User-agent: Walsh-Research\nDissallow: /typo\n".to_string(),
            expect: vec![("/typo".to_string(), false), ("/other".to_string(), true)],
        },
        RobotsCase {
            name: "Allow straddling the 500 KiB limit dropped",
            robots: truncated,
            expect: vec![("/open-after-the-limit".to_string(), false)],
        },
    ]
}

/// Runs [`RobotsCase`]s through the allocating policy.
pub fn check_robots_cases(name: &str, cases: &[RobotsCase]) -> Check {
    let mut rows = Vec::new();
    for c in cases {
        let p = Policy::parse(c.robots.as_bytes(), UA_TOKEN);
        for (path, allowed) in &c.expect {
            let shown = if path.len() > 40 {
                format!("{}... ({} octets)", &path[..20], path.len())
            } else {
                path.clone()
            };
            rows.push((
                format!("{}: {shown}", c.name),
                if p.check(path).allowed {
                    "allowed"
                } else {
                    "denied"
                },
                if *allowed { "allowed" } else { "denied" },
            ));
        }
    }
    let what = format!(
        "allocating policy on {} ({})",
        cases.len(),
        cases.iter().map(|c| c.name).collect::<Vec<_>>().join("; ")
    );
    compare(name, &what, rows)
}

/// R2c: may over-block, must not under-block.
pub fn r2c() -> Vec<Check> {
    vec![
        check_fixed_capacity(&fixed_comparisons(R2C_ROBOTS)),
        check_robots_cases("unusual lines", &long_line_cases()),
    ]
}

// ---- R2d -------------------------------------------------------------------

/// A Crawl-delay case: robots.txt, the token, the delay expected in the
/// selected group (ms), and the throttle spacing expected (ms).
#[derive(Debug, Clone)]
pub struct DelayCase {
    pub name: &'static str,
    pub robots: &'static str,
    pub token: &'static str,
    pub delay_ms: Option<u64>,
    pub spacing_ms: u64,
}

pub fn delay_cases() -> Vec<DelayCase> {
    const GROUPS: &str = "User-agent: *\nCrawl-delay: 30\nDisallow: /a\n\nUser-agent: Walsh-Research\nCrawl-delay: 2.5\nDisallow: /b\n";
    vec![
        DelayCase {
            name: "named group's fractional delay",
            robots: GROUPS,
            token: UA_TOKEN,
            delay_ms: Some(2500),
            spacing_ms: 2500,
        },
        DelayCase {
            name: "another bot gets the * group's",
            robots: GROUPS,
            token: "SomeOtherBot",
            delay_ms: Some(30_000),
            spacing_ms: 30_000,
        },
        DelayCase {
            name: "non-numeric ignored",
            robots: "User-agent: Walsh-Research\nCrawl-delay: soon\nDisallow: /b\n",
            token: UA_TOKEN,
            delay_ms: None,
            spacing_ms: 1000,
        },
        DelayCase {
            name: "below 1 s raised to 1 s",
            robots: "User-agent: Walsh-Research\nCrawl-delay: 0.25\n",
            token: UA_TOKEN,
            delay_ms: Some(250),
            spacing_ms: 1000,
        },
        DelayCase {
            name: "* group's when no named group",
            robots: "User-agent: *\nCrawl-delay: 4\n",
            token: UA_TOKEN,
            delay_ms: Some(4000),
            spacing_ms: 4000,
        },
    ]
}

/// Parses each case and applies the throttle arithmetic to its delay.
pub fn check_delays(cases: &[DelayCase]) -> Check {
    let mut rows = Vec::new();
    for c in cases {
        let d = Policy::parse(c.robots.as_bytes(), c.token)
            .crawl_delay()
            .map(|d| d.0);
        rows.push((
            format!("{} (delay, spacing)", c.name),
            (d.map(ms), ms(throttle::spacing(d))),
            (c.delay_ms, c.spacing_ms),
        ));
    }
    compare(
        "Crawl-delay parsed and spaced",
        "Policy::crawl_delay then throttle::spacing = max(1 s, Crawl-delay)",
        rows,
    )
}

const T0: Timestamp = Timestamp(1_779_494_400_000);

/// A gate with an empty blocklist adopted at [`T0`].
fn fresh_gate() -> Gate {
    let mut g = Gate::new(GateConfig::default());
    g.blocklist_adopted(Blocklist::empty(), T0);
    g
}

fn decision(d: &Decision<'_>) -> String {
    match d {
        Decision::Wait { until, reason } => {
            format!("Wait {} ms ({reason:?})", until.0.saturating_sub(T0.0))
        }
        Decision::Ready => "Ready".to_string(),
        other => other.to_string(),
    }
}

fn admit(g: &mut Gate, url: &str, at_ms: u64) -> String {
    match g.admit(url, Timestamp(T0.0 + at_ms)) {
        Ok(p) => format!("admitted at {} ms", p.at().0.saturating_sub(T0.0)),
        Err(d) => decision(&d),
    }
}

/// The gate applies a robots.txt Crawl-delay of `robots` to its host:
/// after a request at 0 ms the next one waits until `spacing_ms`.
pub fn check_gate_delay(robots: &str, spacing_ms: u64) -> Check {
    let mut g = fresh_gate();
    let rows = match Url::parse("http://pub.test/") {
        Ok(u) => {
            g.robots_fetched(&u, robots.as_bytes(), T0);
            let mut rows = vec![(
                "Gate::spacing".to_string(),
                format!("{} ms", ms(g.spacing("pub.test"))),
                format!("{spacing_ms} ms"),
            )];
            rows.push((
                "first request".into(),
                admit(&mut g, "http://pub.test/one", 0),
                "admitted at 0 ms".into(),
            ));
            let before = spacing_ms.saturating_sub(1);
            rows.push((
                format!("at {before} ms"),
                admit(&mut g, "http://pub.test/two", before),
                format!("Wait {spacing_ms} ms (Throttle)"),
            ));
            rows.push((
                format!("at {spacing_ms} ms"),
                admit(&mut g, "http://pub.test/two", spacing_ms),
                format!("admitted at {spacing_ms} ms"),
            ));
            rows
        }
        Err(e) => vec![("URL".into(), e.to_string(), String::new())],
    };
    compare(
        "gate honours it",
        "the gate with that robots.txt cached",
        rows,
    )
}

/// R2d: Crawl-delay from the selected group, applied by the throttle.
pub fn r2d() -> Vec<Check> {
    let cases = delay_cases();
    vec![
        check_delays(&cases),
        check_gate_delay(cases[0].robots, 2500),
    ]
}

// ---- R4 --------------------------------------------------------------------

/// The throttle arithmetic: (case, got ms, expected ms).
pub fn throttle_rows() -> Vec<(String, Option<u64>, Option<u64>)> {
    let s = |x: u64| Some(Duration::from_millis(x));
    let slot = |last: Option<Timestamp>, d: Option<Duration>| {
        throttle::next_slot(last, d).map(|t| t.0.saturating_sub(T0.0))
    };
    let wait = |last: Option<Timestamp>, d: Option<Duration>, now_ms: u64| {
        Some(ms(throttle::wait(last, d, Timestamp(T0.0 + now_ms))))
    };
    vec![
        (
            "unseen host, no delay: wait".into(),
            wait(None, None, 0),
            Some(0),
        ),
        (
            "unseen host, Crawl-delay 30: wait".into(),
            wait(None, s(30_000), 0),
            Some(0),
        ),
        (
            "next slot, no Crawl-delay".into(),
            slot(Some(T0), None),
            Some(1000),
        ),
        (
            "next slot, Crawl-delay 0.5".into(),
            slot(Some(T0), s(500)),
            Some(1000),
        ),
        (
            "next slot, Crawl-delay 2".into(),
            slot(Some(T0), s(2000)),
            Some(2000),
        ),
        (
            "wait at 400 ms".into(),
            wait(Some(T0), None, 400),
            Some(600),
        ),
        (
            "wait at 1000 ms".into(),
            wait(Some(T0), None, 1000),
            Some(0),
        ),
        (
            "MIN_REQUEST_INTERVAL".into(),
            Some(ms(MIN_REQUEST_INTERVAL)),
            Some(1000),
        ),
    ]
}

/// The gate's R4 answers on a timeline: (case, got, expected).
pub fn gate_rows() -> Vec<(String, String, String)> {
    let mut g = fresh_gate();
    for host in ["a.test", "b.test"] {
        if let Ok(u) = Url::parse(&format!("http://{host}/")) {
            g.robots_fetched(&u, b"User-agent: *\nDisallow:\n", T0);
        }
    }
    let robots_first = match g.admit_robots("http://c.test/page", T0) {
        Ok(p) => format!(
            "robots.txt admitted at {} ms",
            p.at().0.saturating_sub(T0.0)
        ),
        Err(d) => decision(&d),
    };
    vec![
        (
            "a.test first request".into(),
            admit(&mut g, "http://a.test/1", 0),
            "admitted at 0 ms".into(),
        ),
        (
            "a.test again at 999 ms".into(),
            admit(&mut g, "http://a.test/2", 999),
            "Wait 1000 ms (Throttle)".into(),
        ),
        (
            "b.test at 1 ms (the key is the host)".into(),
            admit(&mut g, "http://b.test/1", 1),
            "admitted at 1 ms".into(),
        ),
        (
            "a.test at 1000 ms".into(),
            admit(&mut g, "http://a.test/2", 1000),
            "admitted at 1000 ms".into(),
        ),
        (
            "c.test robots.txt at 0 ms".into(),
            robots_first,
            "robots.txt admitted at 0 ms".into(),
        ),
        (
            "c.test check at 500 ms (robots.txt counted)".into(),
            {
                if let Ok(u) = Url::parse("http://c.test/") {
                    g.robots_fetched(&u, b"", T0);
                }
                decision(&g.check("http://c.test/page", Timestamp(T0.0 + 500)))
            },
            "Wait 1000 ms (Throttle)".into(),
        ),
    ]
}

/// R4, the parts a pure check can prove: the throttle arithmetic and the
/// gate's answers. Seriality and the spacing on the wire are observed by
/// the loopback run.
pub fn r4() -> Vec<Check> {
    vec![
        compare(
            "throttle arithmetic",
            "wr_core::throttle (unseen host waits 0; next slot = last + max(1 s, Crawl-delay))",
            throttle_rows(),
        ),
        compare(
            "gate timeline",
            "wr_core::gate::Gate::admit/check (Wait before the slot, per host, robots.txt fetches counted)",
            gate_rows(),
        ),
    ]
}

// ---- R12 -------------------------------------------------------------------

/// What kind of answer the gate gave, for the R12 rows.
fn kind(d: &Decision<'_>) -> &'static str {
    match d {
        Decision::Invalid(_) | Decision::NotOperatorResource => "Invalid",
        Decision::DenyBlocklist(_) => "DenyBlocklist",
        Decision::DenyRobots(_) => "DenyRobots",
        Decision::NeedBlocklist => "NeedBlocklist",
        Decision::NeedRobots(_) => "NeedRobots",
        Decision::Deferred { .. } => "Deferred",
        Decision::Wait { .. } => "Wait",
        Decision::Ready => "Ready",
    }
}

/// R12 block-on-refresh, as the gate answers around the instants the
/// caller claims the caches go stale: robots.txt at `robots_stale` after it
/// was fetched, the blocklist (refresh `PT6H`) at `list_stale` after it was
/// adopted. Before: the cached copy answers; from then on: the refresh comes
/// first, for an allowed path as for a disallowed one, while a stale list
/// still blocks what it lists. (case, got, expected).
pub fn refresh_rows(
    robots_stale: Duration,
    list_stale: Duration,
) -> Vec<(String, &'static str, &'static str)> {
    let at = |d: Duration| Timestamp(T0.0 + ms(d));
    let before = |d: Duration| Timestamp((T0.0 + ms(d)).saturating_sub(1));
    let Ok(list) = Blocklist::new(
        "walsh-research-blocklist/v1",
        Some("PT6H"),
        [wr_core::blocklist::BlockedDomain::new(
            "example.com",
            "2026-05-23",
            "opt-out",
        )],
    ) else {
        return Vec::new();
    };
    // robots.txt fetched at T0; the blocklist adopted when asked, so only
    // robots.txt's age matters.
    let robots_at = |t: Timestamp, url: &str| {
        let mut g = Gate::new(GateConfig::default());
        g.blocklist_adopted(list.clone(), t);
        if let Ok(u) = Url::parse("http://pub.test/") {
            g.robots_fetched(&u, b"User-agent: *\nDisallow: /private\n", T0);
        }
        kind(&g.check(url, t))
    };
    let list_at = |t: Timestamp, url: &str| {
        let mut g = Gate::new(GateConfig::default());
        g.blocklist_adopted(list.clone(), T0);
        kind(&g.check(url, t))
    };
    let private = "http://pub.test/private";
    let open = "http://pub.test/open";
    vec![
        (
            "disallowed path, robots.txt 1 ms before stale".into(),
            robots_at(before(robots_stale), private),
            "DenyRobots",
        ),
        (
            "disallowed path, robots.txt stale".into(),
            robots_at(at(robots_stale), private),
            "NeedRobots",
        ),
        (
            "allowed path, robots.txt stale".into(),
            robots_at(at(robots_stale), open),
            "NeedRobots",
        ),
        (
            "other host, blocklist 1 ms before stale".into(),
            list_at(before(list_stale), "http://new.test/"),
            "NeedRobots",
        ),
        (
            "other host, blocklist stale".into(),
            list_at(at(list_stale), "http://new.test/"),
            "NeedBlocklist",
        ),
        (
            "listed host, blocklist stale".into(),
            list_at(at(list_stale), "http://www.example.com/"),
            "DenyBlocklist",
        ),
    ]
}

/// R12: block-on-refresh at the section 6 TTLs (robots.txt 24 h, the
/// blocklist's own `refresh`).
pub fn r12() -> Vec<Check> {
    vec![compare(
        "block-on-refresh",
        "wr_core::gate::Gate::check around ROBOTS_TTL and the blocklist's refresh (PT6H)",
        refresh_rows(ROBOTS_TTL, Duration::from_secs(6 * 3600)),
    )]
}

// ---- R5 --------------------------------------------------------------------

/// Uniform values in `[0, 1)` for the jitter checks (xorshift64*; fixed
/// seed so the check is reproducible).
fn samples(n: usize) -> Vec<f64> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut out = vec![0.0, 0.25, 0.5, 0.999_999_999, 1.0];
    for _ in 0..n {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        out.push((r >> 11) as f64 / (1u64 << 53) as f64);
    }
    out
}

/// The full-jitter bounds of `b`: every delay within `[0, min(cap,
/// base*2^n)]`, 0 at r = 0, half the ceiling at r = 0.5, and the ceilings
/// `expected_ceilings_s` for attempts 0, 1, 2...
pub fn check_jitter(b: &Backoff, expected_ceilings_s: &[u64]) -> Check {
    let mut bad = Vec::new();
    let mut draws = 0usize;
    for (n, want) in expected_ceilings_s.iter().enumerate() {
        let n = n as u32;
        let ceiling = b.ceiling(n);
        if ceiling != Duration::from_secs(*want) {
            bad.push(format!("ceiling({n}) = {ceiling:?}, expected {want} s"));
        }
        for r in samples(200) {
            draws += 1;
            let d = b.delay(n, r);
            if d > ceiling {
                bad.push(format!("delay({n}, {r}) = {d:?} > {ceiling:?}"));
            }
        }
        if b.delay(n, 0.0) != Duration::ZERO {
            bad.push(format!("delay({n}, 0) is not 0"));
        }
        let half = b.delay(n, 0.5).as_nanos().abs_diff(ceiling.as_nanos() / 2);
        if half > 1 {
            bad.push(format!("delay({n}, 0.5) is not half of {ceiling:?}"));
        }
    }
    let huge = b.delay(u32::MAX, 0.999);
    if huge > BACKOFF_CAP {
        bad.push(format!("delay(u32::MAX) = {huge:?} above the cap"));
    }
    if bad.is_empty() && draws > 0 {
        Check::new(
            "full jitter",
            true,
            format!(
                "Backoff::delay: {draws} draws over attempts 0..{} within [0, min(60 s, 1 s * 2^n)], ceilings {:?} s",
                expected_ceilings_s.len(),
                expected_ceilings_s
            ),
        )
    } else {
        bad.truncate(5);
        Check::new("full jitter", false, bad.join(", "))
    }
}

/// The retry decisions of `b`: (case, got, expected).
pub fn retry_rows(b: &Backoff) -> Vec<(String, String, String)> {
    let step = |s: BackoffStep| match s {
        BackoffStep::Retry { after } => format!("retry after {} ms", ms(after)),
        BackoffStep::GiveUp => "give up".to_string(),
    };
    let mut rows: Vec<(String, String, String)> = (0..DEFAULT_MAX_RETRIES)
        .map(|n| {
            (
                format!("retry {n}, no Retry-After, r = 0.5"),
                step(b.next(n, None, 0.5)),
                format!("retry after {} ms", ms(b.ceiling(n)) / 2),
            )
        })
        .collect();
    rows.push((
        "retry 5".into(),
        step(b.next(5, None, 0.5)),
        "give up".into(),
    ));
    rows.push((
        "retry 5 with Retry-After".into(),
        step(b.next(5, Some(Duration::from_secs(1)), 0.5)),
        "give up".into(),
    ));
    rows.push((
        "Retry-After 120 s replaces the computed delay".into(),
        step(b.next(0, Some(Duration::from_secs(120)), 0.5)),
        "retry after 120000 ms".into(),
    ));
    for s in [429u16, 503] {
        rows.push((
            format!("HTTP {s} retried"),
            is_retryable_status(s).to_string(),
            "true".into(),
        ));
    }
    for s in [200u16, 304, 404] {
        rows.push((
            format!("HTTP {s} not retried"),
            is_retryable_status(s).to_string(),
            "false".into(),
        ));
    }
    rows
}

/// R5, the schedule (the Retry-After vectors of 12.5 are in
/// [`crate::vectors`]).
pub fn r5() -> Vec<Check> {
    let b = Backoff::default();
    let defaults = compare(
        "section 6 constants",
        "Backoff::default() against section 6 (base 1 s, cap 60 s, 5 retries)",
        vec![
            ("base (ms)".to_string(), ms(b.base), 1000),
            (
                "DEFAULT_BACKOFF_BASE (ms)".to_string(),
                ms(DEFAULT_BACKOFF_BASE),
                1000,
            ),
            ("BACKOFF_CAP (ms)".to_string(), ms(BACKOFF_CAP), 60_000),
            ("cap (ms)".to_string(), ms(b.cap), 60_000),
            ("max retries".to_string(), u64::from(b.max_retries), 5),
        ],
    );
    vec![
        defaults,
        check_jitter(&b, &[1, 2, 4, 8, 16, 32, 60, 60, 60]),
        compare(
            "retries",
            "Backoff::next and is_retryable_status (at most 5 retries; Retry-After in place of the computed delay)",
            retry_rows(&b),
        ),
    ]
}

// ---- R3c, R10 --------------------------------------------------------------

/// What validating a document should give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocOutcome {
    /// Adopted, validated against this schema, listing this many domains.
    Adopted(SchemaSource, usize),
    /// Refused: not JSON.
    NotJson,
    /// Refused: fails its schema.
    Invalid,
    /// Refused: contract major unknown.
    UnknownMajor,
    /// Refused: no schema to validate against (R10).
    NoSchema,
    /// Refused: the schema is unusable.
    BadSchema,
    /// Refused for another reason.
    Other,
}

fn outcome(doc: &[u8], fallback: Option<&serde_json::Value>) -> DocOutcome {
    match blocklist_doc::validate_detailed(doc, fallback) {
        Ok((list, source)) => DocOutcome::Adopted(source, list.len()),
        Err(BlocklistDocError::Json { .. }) => DocOutcome::NotJson,
        Err(BlocklistDocError::Invalid { .. }) => DocOutcome::Invalid,
        Err(BlocklistDocError::Contract(BlocklistError::UnknownMajor(_))) => {
            DocOutcome::UnknownMajor
        }
        Err(BlocklistDocError::NoSchema) => DocOutcome::NoSchema,
        Err(BlocklistDocError::BadSchema { .. }) => DocOutcome::BadSchema,
        Err(_) => DocOutcome::Other,
    }
}

/// A blocklist document case: the document, whether the standalone schema
/// is available, and the expected outcome.
#[derive(Debug, Clone)]
pub struct DocCase {
    pub name: &'static str,
    pub doc: Vec<u8>,
    pub fallback: bool,
    pub expect: DocOutcome,
}

fn edited(edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>)) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_str(BLOCKLIST_DOC).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        edit(m);
    }
    v.to_string().into_bytes()
}

/// The R3c cases: the published document and broken variants of it.
pub fn r3c_cases() -> Vec<DocCase> {
    use serde_json::json;
    vec![
        DocCase {
            name: "published document",
            doc: BLOCKLIST_DOC.as_bytes().to_vec(),
            fallback: false,
            expect: DocOutcome::Adopted(SchemaSource::Inline, 1),
        },
        DocCase {
            name: "domain not a string",
            doc: edited(|m| {
                m.insert(
                    "blocked".into(),
                    json!([{"domain": 42, "added": "2026-05-23", "reason": "x"}]),
                );
            }),
            fallback: false,
            expect: DocOutcome::Invalid,
        },
        DocCase {
            name: "updated not a date-time",
            doc: edited(|m| {
                m.insert("updated".into(), json!("yesterday"));
            }),
            fallback: false,
            expect: DocOutcome::Invalid,
        },
        DocCase {
            name: "blocked missing",
            doc: edited(|m| {
                m.remove("blocked");
            }),
            fallback: false,
            expect: DocOutcome::Invalid,
        },
        DocCase {
            name: "contract v2",
            doc: edited(|m| {
                m.insert("contract".into(), json!("walsh-research-blocklist/v2"));
            }),
            fallback: false,
            expect: DocOutcome::UnknownMajor,
        },
        DocCase {
            name: "inline schema `true`",
            doc: edited(|m| {
                m.insert("schema".into(), json!(true));
            }),
            fallback: false,
            expect: DocOutcome::BadSchema,
        },
        DocCase {
            name: "not JSON",
            doc: b"{\"contract\": \"walsh-research-blocklist/v1\",".to_vec(),
            fallback: false,
            expect: DocOutcome::NotJson,
        },
    ]
}

/// The R10 cases: documents without an inline schema.
pub fn r10_cases() -> Vec<DocCase> {
    use serde_json::json;
    let bare = edited(|m| {
        m.remove("schema");
    });
    vec![
        DocCase {
            name: "no inline schema, no standalone schema",
            doc: bare.clone(),
            fallback: false,
            expect: DocOutcome::NoSchema,
        },
        DocCase {
            name: "no inline schema, standalone schema",
            doc: bare,
            fallback: true,
            expect: DocOutcome::Adopted(SchemaSource::Fallback, 1),
        },
        DocCase {
            name: "no inline schema, invalid against the standalone one",
            doc: edited(|m| {
                m.remove("schema");
                m.insert("blocked".into(), json!("example.com"));
            }),
            fallback: true,
            expect: DocOutcome::Invalid,
        },
    ]
}

/// Validates each case with `wr_feeds::blocklist_doc`.
pub fn check_docs(name: &str, cases: &[DocCase]) -> Check {
    let schema: Option<serde_json::Value> = serde_json::from_str(BLOCKLIST_SCHEMA).ok();
    let rows = cases
        .iter()
        .map(|c| {
            let fb = if c.fallback { schema.as_ref() } else { None };
            (c.name.to_string(), outcome(&c.doc, fb), c.expect)
        })
        .collect();
    compare(name, "wr_feeds::blocklist_doc::validate", rows)
}

/// R3c: validated before adoption; invalid and unknown-major refused.
pub fn r3c() -> Vec<Check> {
    vec![check_docs("validation", &r3c_cases())]
}

/// R10, the validation half: no schema at all means not adopted; the
/// standalone schema is used when the inline one is absent.
pub fn r10_validation() -> Vec<Check> {
    vec![check_docs("validation without inline schema", &r10_cases())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_passes_on_the_real_code() {
        for (req, checks) in [
            ("R2c", r2c()),
            ("R2d", r2d()),
            ("R4", r4()),
            ("R5", r5()),
            ("R3c", r3c()),
            ("R10", r10_validation()),
            ("R12", r12()),
        ] {
            assert!(all_passed(&checks), "{req}: {}", evidence(&checks));
        }
    }

    #[test]
    fn r12_fails_when_a_cache_answers_past_its_ttl_or_refreshes_early() {
        let hour = Duration::from_secs(3600);
        // Claiming robots.txt stale an hour before the TTL: the gate still
        // answers from it there, so the rows disagree.
        let early = refresh_rows(ROBOTS_TTL - hour, 6 * hour);
        assert!(early.iter().any(|(_, got, want)| got != want), "{early:?}");
        // Claiming the list stale an hour late: the gate already asks for it.
        let late = refresh_rows(ROBOTS_TTL, 7 * hour);
        assert!(late.iter().any(|(_, got, want)| got != want), "{late:?}");
        let c = compare("r12", "wrong TTLs", early);
        assert!(!c.passed, "{}", c.detail);
    }

    #[test]
    fn r2c_fails_on_an_under_blocking_candidate() {
        let paths = probe_paths(R2C_ROBOTS);
        // A matcher that ignores Disallow altogether.
        let allow_all = compare_with_reference(R2C_ROBOTS, &paths, |_| true, true);
        assert!(allow_all.under > 0);
        let c = check_fixed_capacity(&[("bad".into(), allow_all)]);
        assert!(!c.passed, "{}", c.detail);
    }

    #[test]
    fn r2c_fails_when_nothing_overflows_or_overflow_is_silent() {
        // Capacity large enough: nothing to prove about overflow.
        let paths = probe_paths(R2C_ROBOTS);
        let roomy = vec![(
            "64x8192".to_string(),
            fixed_comparison::<64, 8192>(R2C_ROBOTS, &paths),
        )];
        assert!(!roomy[0].1.overflowed);
        assert_eq!(roomy[0].1.over, 0);
        assert_eq!(roomy[0].1.under, 0);
        let c = check_fixed_capacity(&roomy);
        assert!(
            !c.passed && c.detail.contains("does not exercise"),
            "{}",
            c.detail
        );
        // Over-blocking without saying so.
        let silent = compare_with_reference(R2C_ROBOTS, &paths, |_| false, false);
        let c = check_fixed_capacity(&[("silent".into(), silent)]);
        assert!(
            !c.passed && c.detail.contains("without reporting"),
            "{}",
            c.detail
        );
    }

    #[test]
    fn r2c_fixed_capacity_over_blocks_somewhere() {
        let rows = fixed_comparisons(R2C_ROBOTS);
        assert!(rows.iter().any(|(_, c)| c.over > 0), "{rows:?}");
        assert!(rows.iter().all(|(_, c)| c.under == 0), "{rows:?}");
    }

    #[test]
    fn r2c_line_cases_fail_on_a_wrong_expectation() {
        let mut cases = long_line_cases();
        // Google's reading: the cut Allow opens the shorter path.
        cases[0].expect[0].1 = true;
        let c = check_robots_cases("x", &cases);
        assert!(!c.passed, "{}", c.detail);
        assert!(c.detail.contains("over-long Allow"), "{}", c.detail);
    }

    #[test]
    fn r2d_fails_on_a_wrong_expectation() {
        let mut cases = delay_cases();
        cases[0].delay_ms = Some(30_000); // the * group's delay
        assert!(!check_delays(&cases).passed);
        let mut cases = delay_cases();
        cases[3].spacing_ms = 250; // Crawl-delay below 1 s taken as is
        assert!(!check_delays(&cases).passed);
        assert!(!check_gate_delay(delay_cases()[0].robots, 1000).passed);
        assert!(check_gate_delay("User-agent: *\nDisallow:\n", 1000).passed);
    }

    #[test]
    fn r4_and_r5_comparisons_fail_on_wrong_numbers() {
        let mut rows = throttle_rows();
        rows[2].2 = Some(0); // "no spacing"
        assert!(!compare("t", "t", rows).passed);
        let mut rows = gate_rows();
        rows[1].2 = "admitted at 999 ms".into();
        assert!(!compare("g", "g", rows).passed);
        // A schedule with no cap, or one that never gives up.
        let uncapped = Backoff {
            cap: Duration::from_secs(3600),
            ..Backoff::default()
        };
        assert!(!check_jitter(&uncapped, &[1, 2, 4, 8, 16, 32, 60, 60, 60]).passed);
        let endless = Backoff {
            max_retries: 50,
            ..Backoff::default()
        };
        assert!(!compare("r", "r", retry_rows(&endless)).passed);
        assert!(compare("r", "r", retry_rows(&Backoff::default())).passed);
    }

    #[test]
    fn r3c_and_r10_fail_on_a_wrong_expectation() {
        let mut cases = r3c_cases();
        cases[4].expect = DocOutcome::Adopted(SchemaSource::Inline, 1); // v2 adopted
        assert!(!check_docs("x", &cases).passed);
        let mut cases = r10_cases();
        cases[0].expect = DocOutcome::Adopted(SchemaSource::Inline, 1);
        assert!(!check_docs("x", &cases).passed);
    }

    #[test]
    fn an_empty_check_list_does_not_pass() {
        assert!(!all_passed(&[]));
        assert!(!compare::<u8>("x", "x", vec![]).passed);
    }
}
