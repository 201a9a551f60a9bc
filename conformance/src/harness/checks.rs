//! In-process checks behind `wr-feeds attest` (spec 14): each one drives the
//! real code (wr-core's robots, throttle, gate and backoff; wr-feeds'
//! blocklist validation, robots.txt body limit and HTTP client) with inputs
//! built here, and compares the outcome with what the spec requires, or
//! with the reference model of `wr-conformance`. No files, no clock:
//! instants are fixed, so a check gives the same answer on every run. The
//! only socket is R1's listener on 127.0.0.1, because the User-Agent that
//! counts is the one the HTTP client actually sends.
//!
//! Every check is data plus a comparison: the expected outcome is part of
//! the case, so a wrong expectation (or wrong code) makes the check fail.
//! The unit tests below feed such wrong cases to show that no check passes
//! vacuously.

use super::replica as loopback;
use super::SPEC_USER_AGENT;
use crate::{robots_cases, robots_model};
use serde::Serialize;
use std::time::Duration;
use wr_core::backoff::{is_retryable_status, Backoff, BackoffStep};
use wr_core::blocklist::{Blocklist, BlocklistError};
use wr_core::constants::{
    BACKOFF_CAP, BLOCKLIST_REFRESH_FLOOR, BLOCKLIST_REQUESTS_PER_RUN, DEFAULT_BACKOFF_BASE,
    DEFAULT_MAX_RETRIES, MIN_REQUEST_INTERVAL, ROBOTS_MAX_BYTES, ROBOTS_TTL, UA_TOKEN,
};
use wr_core::fetch::{
    Action, BlocklistRefresh, Ctx, Get, GetOutcome, Machine, RefreshEvent, Refreshed, Response,
    Run, Stored,
};
use wr_core::gate::{Decision, Gate, GateConfig, WaitReason};
use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::lexer::MAX_LINE;
use wr_core::robots::Policy;
use wr_core::throttle;
use wr_core::time::Timestamp;
use wr_core::url::Url;
use wr_feeds::blocklist_doc::{self, BlocklistDocError, SchemaSource};
use wr_feeds::http::{robots_body, BodyLimit, Http, Request, ROBOTS_BODY_LIMIT};
use wr_feeds::store::Validators;
use wr_feeds::{Config, ConnectTo, Timeouts};

/// The operator's blocklist as published (inline schema, lists
/// `example.com`), and the standalone schema, compiled in from
/// `wr-conformance`'s package.
pub use crate::fixtures::{BLOCKLIST_DOC, BLOCKLIST_SCHEMA};

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
/// one check. A check that holds names every case it covered, so the
/// evidence of a `true` says what was established, not only how much.
fn compare<T: PartialEq + std::fmt::Debug>(
    name: &str,
    what: &str,
    rows: Vec<(String, T, T)>,
) -> Check {
    let n = rows.len();
    let names: Vec<String> = rows.iter().map(|(case, _, _)| case.clone()).collect();
    let bad: Vec<String> = rows
        .into_iter()
        .filter(|(_, got, want)| got != want)
        .map(|(case, got, want)| format!("{case}: got {got:?}, expected {want:?}"))
        .collect();
    if n == 0 {
        return Check::new(name, false, format!("{what}: no case ran"));
    }
    if bad.is_empty() {
        Check::new(
            name,
            true,
            format!("{what}: {n}/{n} cases hold ({})", names.join("; ")),
        )
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

// ---- R1 --------------------------------------------------------------------

/// What is wrong with the User-Agent headers of `requests`, one line per
/// request at fault: R1 wants exactly one, byte-identical to section 6.
pub fn user_agent_problems(requests: &[&loopback::Request]) -> Vec<String> {
    requests
        .iter()
        .filter_map(|r| {
            let sent: Vec<&str> = r
                .headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
                .map(|(_, v)| v.as_str())
                .collect();
            match sent.as_slice() {
                [ua] if *ua == SPEC_USER_AGENT => None,
                [ua] => Some(format!("{}{}: sent {ua:?}", r.host, r.target)),
                _ => Some(format!(
                    "{}{}: {} User-Agent headers",
                    r.host,
                    r.target,
                    sent.len()
                )),
            }
        })
        .collect()
}

/// Sends requests to 127.0.0.1:`port`; `Err` says why it could not.
pub type Sender<'a> = &'a dyn Fn(u16) -> Result<(), String>;

/// R1 on the wire: starts a listener on 127.0.0.1, lets `send` (described
/// by `client`) make its requests to it, and compares the User-Agent each
/// one carried with the section 6 value. The client is a parameter so that
/// a test can show the check failing for a client that sends something
/// else.
pub fn r1_check(client: &str, send: Sender<'_>) -> Check {
    const NAME: &str = "User-Agent sent by the HTTP client";
    let server = match loopback::Server::start(|_| loopback::Reply::new(200, "text/plain", "ok\n"))
    {
        Ok(s) => s,
        Err(e) => return Check::new(NAME, false, format!("no listener on 127.0.0.1: {e}")),
    };
    let sent = send(server.port());
    let hits = server.hits();
    let requests: Vec<&loopback::Request> = hits.iter().map(|h| &h.req).collect();
    let bad = user_agent_problems(&requests);
    let (passed, detail) = match sent {
        Err(e) => (false, format!("the client could not send: {e}")),
        Ok(()) if requests.is_empty() => (false, "no request reached the listener".to_string()),
        Ok(()) if !bad.is_empty() => (
            false,
            format!(
                "{} of {} requests to a loopback listener differ from the section 6 value: {}",
                bad.len(),
                requests.len(),
                bad.join(", ")
            ),
        ),
        Ok(()) => (
            true,
            format!(
                "{} requests by {client} to a listener on 127.0.0.1 each carried one \
                 User-Agent, byte-identical to the section 6 value",
                requests.len()
            ),
        ),
    };
    Check::new(NAME, passed, detail)
}

/// The production client: `wr_feeds::http::Http::send`, the only place a
/// request is built, with a gate permit for each request, as the pipeline
/// sends them. One request as bare as a robots.txt fetch, one with every
/// optional header a target fetch can carry.
pub fn send_with_production_client(port: u16) -> Result<(), String> {
    const HOST: &str = "user-agent.test";
    let mut cfg = Config::new(std::env::temp_dir());
    cfg.connect_to = vec![ConnectTo::new(HOST, 80, "127.0.0.1", port)];
    // A proxy from the environment would carry the requests elsewhere.
    cfg.use_env_proxy = false;
    cfg.identity = None;
    cfg.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(5),
        ..Timeouts::default()
    };
    let http = Http::new(&cfg)?;
    let mut gate = fresh_gate();
    let robots = format!("http://{HOST}/robots.txt");
    let target = format!("http://{HOST}/feed.xml");
    let permit = gate
        .admit_robots(&robots, T0)
        .map_err(|d| format!("{robots}: {}", decision(&d)))?;
    let bare = Request {
        accept: None,
        validators: None,
        limit: ROBOTS_BODY_LIMIT,
    };
    http.send(&permit, &robots, &bare)
        .map_err(|e| e.to_string())?;
    let u = Url::parse(&target).map_err(|e| e.to_string())?;
    gate.robots_not_found(&u, T0);
    let permit = gate
        .admit(&target, Timestamp(T0.0 + ms(MIN_REQUEST_INTERVAL)))
        .map_err(|d| format!("{target}: {}", decision(&d)))?;
    let validators = Validators {
        etag: Some("\"v1\"".to_string()),
        last_modified: Some("Sat, 23 May 2026 00:00:00 GMT".to_string()),
        kind: Some("feed".to_string()),
    };
    let full = Request {
        accept: Some("application/atom+xml, application/rss+xml;q=0.9"),
        validators: Some(&validators),
        limit: BodyLimit::Fail(1 << 20),
    };
    http.send(&permit, &target, &full)
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// R1: the User-Agent the production HTTP client puts on the wire.
pub fn r1() -> Vec<Check> {
    vec![r1_check(
        "Http::send (a robots.txt request, and a target request with Accept and both \
         validators)",
        &send_with_production_client,
    )]
}

// ---- R2, R2a, R2b, R2c against the reference model ------------------------

/// Decides whether a request target (second argument) may be fetched under
/// a robots.txt body as served (first argument), for our token.
pub type Decider<'a> = &'a dyn Fn(&[u8], &str) -> bool;

/// Production's answer: the body cut the way the HTTP layer cuts every
/// robots.txt it fetches ([`robots_body`], the same limit `Http::send`
/// applies for the pipeline), then wr-core's parser, as the gate runs it.
pub fn production_decides(body: &[u8], path: &str) -> bool {
    Policy::parse(robots_body(body), UA_TOKEN)
        .check(path)
        .allowed
}

/// One case for the comparison with the reference model.
#[derive(Debug, Clone)]
pub struct ModelCase {
    pub name: String,
    /// `section: sentence` of the spec that decides it.
    pub rests_on: String,
    /// The robots.txt as served: what production reads.
    pub served: Vec<u8>,
    /// What the file means, as the model reads it: `served` itself, or,
    /// for a body past the model's 500 KiB domain, the same rules without
    /// the comment lines that pad it.
    pub meaning: Vec<u8>,
    pub path: String,
    /// Whether the spec's algorithm allows the target.
    pub allowed: bool,
}

/// The section 9.1.1 sentence the over-limit cases rest on.
const TRUNCATION: &str = "9.1.1: A body over 500 KiB MAY be truncated to 500 KiB before parsing.";

/// A robots.txt of `rules` (whole lines) padded with comment lines so that
/// `line` starts `within` octets before the 500 KiB limit, which therefore
/// cuts it: (as served, what it means).
fn straddling_the_limit(rules: &str, line: &str, within: usize) -> (Vec<u8>, Vec<u8>) {
    let start = ROBOTS_MAX_BYTES.saturating_sub(within);
    let mut served = rules.as_bytes().to_vec();
    const PAD: &[u8] = b"# padding up to the 500 KiB limit of section 9.1.1 -----------\n";
    while served.len() + PAD.len() < start {
        served.extend_from_slice(PAD);
    }
    // One last comment line of the exact length left.
    let fill = start.saturating_sub(served.len() + 1);
    served.extend(std::iter::repeat_n(b'#', fill));
    served.push(b'\n');
    let meaning = format!("{rules}{line}\n").into_bytes();
    served.extend_from_slice(line.as_bytes());
    served.push(b'\n');
    (served, meaning)
}

/// Cases over 500 KiB whose line at the limit would, read whole after the
/// cut, open what the file does not: production must read them through
/// the same cut the HTTP layer makes.
pub fn over_limit_cases() -> Vec<ModelCase> {
    let case = |name: &str, rules: &str, line: &str, kept: &str, path: &str| {
        let (served, meaning) = straddling_the_limit(rules, line, kept.len());
        ModelCase {
            name: name.to_string(),
            rests_on: TRUNCATION.to_string(),
            served,
            meaning,
            path: path.to_string(),
            allowed: false,
        }
    };
    vec![
        case(
            "an Allow cut by the 500 KiB limit opens nothing",
            "User-agent: *\nDisallow: /private\n",
            "Allow: /private/feed.xml-and-more",
            "Allow: /private/feed",
            "/private/feed.xml",
        ),
        case(
            "an Allow cut by the 500 KiB limit does not match its cut value",
            "User-agent: *\nDisallow: /\n\nUser-agent: Walsh-Research\nDisallow: /private\n",
            "Allow: /private/feeds/all.xml",
            "Allow: /private/f",
            "/private/f",
        ),
        case(
            "a Disallow cut by the 500 KiB limit still denies",
            "User-agent: *\nAllow: /blog/feed\n",
            "Disallow: /blog/feed.xml",
            "Disallow: /blog/fe",
            "/blog/feed.xml",
        ),
    ]
}

/// The built-in cases of `wr_conformance` and [`over_limit_cases`].
pub fn model_cases() -> Vec<ModelCase> {
    let built_in = robots_cases::CASES.iter().map(|c| ModelCase {
        name: c.name.to_string(),
        rests_on: c.rests_on.to_string(),
        served: c.body.as_bytes().to_vec(),
        meaning: c.body.as_bytes().to_vec(),
        path: c.path.to_string(),
        allowed: c.allowed,
    });
    built_in.chain(over_limit_cases()).collect()
}

/// Which part of section 9.1 a case is about, from the section it quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// 9.1, 9.1.1, 9.1.2: fetching and reading the file into groups (R2).
    Reading,
    /// 9.1.3, and 8.1 on the token: which groups apply (R2a).
    Selection,
    /// 9.1.4: which rule decides a target (R2b).
    Matching,
}

/// The [`Topic`] of a case resting on `rests_on`.
pub fn topic(rests_on: &str) -> Topic {
    let section = rests_on.split_once(':').map_or(rests_on, |(s, _)| s).trim();
    let within = |s: &str| section == s || section.starts_with(&format!("{s}."));
    if within("9.1.3") || within("8.1") {
        Topic::Selection
    } else if within("9.1.4") {
        Topic::Matching
    } else {
        Topic::Reading
    }
}

/// Holds `decide` to the reference model on `cases`. A case fails when
/// `decide` allows a target that the model, or the case's own answer,
/// denies (R2c: under-blocking is a violation, over-blocking is not), and
/// when the model and the case disagree (the evidence would then prove
/// nothing).
pub fn model_check(name: &str, cases: &[&ModelCase], decide: Decider<'_>) -> Check {
    if !UA_TOKEN.eq_ignore_ascii_case(robots_cases::TOKEN) {
        return Check::new(
            name,
            false,
            format!(
                "the built-in cases are for the token {:?}, not {UA_TOKEN:?}",
                robots_cases::TOKEN
            ),
        );
    }
    if cases.is_empty() {
        return Check::new(name, false, "no case to run".to_string());
    }
    let mut bad = Vec::new();
    let mut over = Vec::new();
    for c in cases {
        let model = robots_model::decide(&c.meaning, UA_TOKEN, &c.path).allowed;
        let got = decide(&c.served, &c.path);
        let verdict = |allowed: bool| if allowed { "allowed" } else { "denied" };
        if model != c.allowed {
            bad.push(format!(
                "{}: the model answers {}, the case records {}",
                c.name,
                verdict(model),
                verdict(c.allowed)
            ));
        } else if got && !model {
            bad.push(format!("{}: {} allowed, the model denies", c.name, c.path));
        } else if !got && model {
            over.push(c.name.as_str());
        }
    }
    let n = cases.len();
    let what = format!(
        "wr-core's Policy on each robots.txt as the HTTP layer cuts it, against the reference \
         model (wr_conformance::robots_model) on {n} cases (of wr_conformance::robots_cases \
         and the bodies over 500 KiB; this project's own model and cases)"
    );
    if bad.is_empty() {
        let over = match over.as_slice() {
            [] => "none over-blocked".to_string(),
            names => format!("over-blocked (permitted): {}", names.join("; ")),
        };
        Check::new(
            name,
            true,
            format!("{what}: none allowed what the model denies; {over}"),
        )
    } else {
        Check::new(
            name,
            false,
            format!("{what}: {} of {n} fail: {}", bad.len(), bad.join("; ")),
        )
    }
}

fn model_check_on(name: &str, keep: impl Fn(&ModelCase) -> bool, decide: Decider<'_>) -> Check {
    let cases = model_cases();
    let chosen: Vec<&ModelCase> = cases.iter().filter(|c| keep(c)).collect();
    model_check(name, &chosen, decide)
}

/// R2: reading the file (sections 9.1, 9.1.1, 9.1.2), over-limit bodies
/// included.
pub fn r2_model_check(decide: Decider<'_>) -> Check {
    model_check_on(
        "file read as the model reads it",
        |c| topic(&c.rests_on) == Topic::Reading,
        decide,
    )
}

/// R2a: group selection (section 9.1.3, and 8.1 on the token).
pub fn r2a_model_check(decide: Decider<'_>) -> Check {
    model_check_on(
        "groups selected as the model selects them",
        |c| topic(&c.rests_on) == Topic::Selection,
        decide,
    )
}

/// R2b: path matching and precedence (section 9.1.4).
pub fn r2b_model_check(decide: Decider<'_>) -> Check {
    model_check_on(
        "targets matched as the model matches them",
        |c| topic(&c.rests_on) == Topic::Matching,
        decide,
    )
}

/// R2c: never under-block, on every case.
pub fn r2c_model_check(decide: Decider<'_>) -> Check {
    model_check_on("never allows what the model denies", |_| true, decide)
}

/// R2, as far as in-process checks go (the fetch and cache are the
/// loopback run's and the live self-test's).
pub fn r2() -> Vec<Check> {
    vec![r2_model_check(&production_decides)]
}

/// R2a.
pub fn r2a() -> Vec<Check> {
    vec![r2a_model_check(&production_decides)]
}

/// R2b.
pub fn r2b() -> Vec<Check> {
    vec![r2b_model_check(&production_decides)]
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
        r2c_model_check(&production_decides),
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
        other => wr_feeds::words::words(&wr_core::outcome::Refusal::from(other.clone())),
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
        Decision::BlocklistUnavailable { .. } => "BlocklistUnavailable",
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

/// One refresh of the blocklist through `wr_core::fetch::BlocklistRefresh`
/// at `now`, the operator answering 200 with a document that validates to
/// `list`: how it ended, and whether a request was sent.
fn refresh_once(
    gate: &mut Gate,
    run: &mut Run,
    now: &mut Timestamp,
    list: &Blocklist,
) -> (String, bool) {
    let url = format!(
        "{}{}",
        gate.config().operator_base,
        wr_core::constants::BLOCKLIST_PATH
    );
    let mut m = BlocklistRefresh::new(&url, Stored::Nothing);
    let mut sent = false;
    for _ in 0..20 {
        let mut cx = Ctx {
            gate,
            run,
            now: *now,
            jitter: 0.5,
        };
        match m.poll(&mut cx) {
            Action::Send(_) => {
                sent = true;
                *now = now.saturating_add(EXCHANGE);
                cx.now = *now;
                m.handle_response(&mut cx, answer(200, None), None);
            }
            Action::Done(RefreshEvent::Validate { .. }) => m.validated(&mut cx, Ok(list.clone())),
            Action::Done(RefreshEvent::Finished(r)) => {
                let _ = run.take_effects();
                let what = match r {
                    Refreshed::Fresh { .. } => "adopted",
                    Refreshed::Retained { .. } => "kept the list in force",
                    Refreshed::Fallback { .. } | Refreshed::Unavailable { .. } => "no list",
                };
                return (what.to_string(), sent);
            }
            Action::Wait(t) => *now = (*now).max(t),
            Action::NeedBlocklist => break,
        }
    }
    ("did not finish".to_string(), sent)
}

/// R12 with the degenerate refresh: a schema-valid `PT0S` list is fresh
/// until `floor` after it was adopted and due from then on (taken as
/// written it was never fresh, and block-on-refresh asked for it before
/// every request); and a run whose clock jumps an hour before every
/// refresh asks for the list at most `per_run` times, then keeps the list
/// in force, still blocking what it lists. (case, got, expected).
pub fn zero_refresh_rows(floor: Duration, per_run: u32) -> Vec<(String, String, String)> {
    let Ok(list) = Blocklist::new(
        "walsh-research-blocklist/v1",
        Some("PT0S"),
        [wr_core::blocklist::BlockedDomain::new(
            "example.com",
            "2026-05-23",
            "opt-out",
        )],
    ) else {
        return Vec::new();
    };
    let mut gate = Gate::new(GateConfig::default());
    let mut run = Run::new(Duration::from_secs(300), Backoff::default());
    let mut now = T0;
    let (first, _) = refresh_once(&mut gate, &mut run, &mut now, &list);
    let adopted = now;
    let at = |d: Duration, minus: u64| Timestamp((adopted.0 + ms(d)).saturating_sub(minus));
    let mut rows = vec![
        (
            "PT0S list, first refresh".to_string(),
            first,
            "adopted".to_string(),
        ),
        (
            "PT0S list, other host, 1 ms before the floor".to_string(),
            kind(&gate.check("http://new.test/", at(floor, 1))).to_string(),
            "NeedRobots".to_string(),
        ),
        (
            "PT0S list, other host, at the floor".to_string(),
            kind(&gate.check("http://new.test/", at(floor, 0))).to_string(),
            "NeedBlocklist".to_string(),
        ),
    ];
    let mut requests = u32::from(run.blocklist_requests() > 0);
    for _ in 0..per_run + 3 {
        now = now.saturating_add(Duration::from_secs(3600));
        let (_, sent) = refresh_once(&mut gate, &mut run, &mut now, &list);
        requests += u32::from(sent);
    }
    rows.push((
        format!(
            "requests for the list in a run whose clock jumps an hour {} times",
            per_run + 3
        ),
        requests.to_string(),
        per_run.to_string(),
    ));
    rows.push((
        "listed host once the bound is reached".to_string(),
        kind(&gate.check("http://www.example.com/", now)).to_string(),
        "DenyBlocklist".to_string(),
    ));
    rows
}

/// R12: block-on-refresh at the section 6 TTLs (robots.txt 24 h, the
/// blocklist's own `refresh`), and at the refresh floor for `PT0S`.
pub fn r12() -> Vec<Check> {
    vec![
        compare(
            "block-on-refresh",
            "wr_core::gate::Gate::check around ROBOTS_TTL and the blocklist's refresh (PT6H)",
            refresh_rows(ROBOTS_TTL, Duration::from_secs(6 * 3600)),
        ),
        compare(
            "degenerate refresh",
            &format!(
                "a PT0S blocklist through wr_core::fetch::BlocklistRefresh and Gate::check: read \
                 as the {} s floor (BLOCKLIST_REFRESH_FLOOR), at most {} requests a run \
                 (BLOCKLIST_REQUESTS_PER_RUN)",
                BLOCKLIST_REFRESH_FLOOR.as_secs(),
                BLOCKLIST_REQUESTS_PER_RUN
            ),
            zero_refresh_rows(BLOCKLIST_REFRESH_FLOOR, BLOCKLIST_REQUESTS_PER_RUN),
        ),
    ]
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

// ---- R5 through the fetch machine ----------------------------------------

/// What one scripted GET did: its outcome, when each request was sent and
/// when its exchange ended, and the gate and run it left behind.
pub struct Driven {
    pub outcome: Option<GetOutcome>,
    /// (sent at, exchange ended at), per request of the target.
    pub requests: Vec<(Timestamp, Timestamp)>,
    pub gate: Gate,
    pub run: Run,
    pub now: Timestamp,
}

/// How long each scripted exchange takes.
const EXCHANGE: Duration = Duration::from_millis(20);

/// Drives one `wr_core::fetch::Get` of `url` as the pipeline does, with
/// `answers` as the server's responses in order (robots.txt is known to
/// be absent, the blocklist empty), jitter 0.5 and a patience of 300 s.
/// No sockets, no sleeping: instants advance as the machine asks.
pub fn drive_get(
    mut gate: Gate,
    mut run: Run,
    start: Timestamp,
    url: &str,
    answers: &[Response],
) -> Driven {
    let mut get = Get::new(url, None);
    let mut now = start;
    let mut requests = Vec::new();
    let mut script = answers.iter();
    let mut outcome = None;
    for _ in 0..100 {
        let mut cx = Ctx {
            gate: &mut gate,
            run: &mut run,
            now,
            jitter: 0.5,
        };
        match get.poll(&mut cx) {
            Action::Send(_) => {
                let Some(answer) = script.next() else {
                    break;
                };
                let sent = now;
                now = now.saturating_add(EXCHANGE);
                requests.push((sent, now));
                let mut cx = Ctx {
                    gate: &mut gate,
                    run: &mut run,
                    now,
                    jitter: 0.5,
                };
                get.handle_response(&mut cx, answer.clone(), None);
                if let Some(out) = get.take_output() {
                    outcome = Some(out);
                    break;
                }
            }
            Action::Wait(t) => now = now.max(t),
            Action::NeedBlocklist => break,
            Action::Done(out) => {
                outcome = Some(out);
                break;
            }
        }
    }
    let _ = run.take_effects();
    Driven {
        outcome,
        requests,
        gate,
        run,
        now,
    }
}

fn answer(status: u16, retry_after: Option<&str>) -> Response {
    Response {
        status,
        retry_after: retry_after.map(str::to_string),
        ..Response::default()
    }
}

fn outcome_kind(o: &Option<GetOutcome>) -> String {
    match o {
        Some(GetOutcome::Response { response, .. }) => format!("HTTP {}", response.status),
        Some(GetOutcome::Failed { cause, .. }) => {
            format!("failed ({})", wr_feeds::words::Words(cause))
        }
        Some(GetOutcome::Deferred { .. }) => "deferred".to_string(),
        Some(other) => format!("{other:?}"),
        None => "no outcome (the script ran out)".to_string(),
    }
}

/// The R5 rows of [`drive_get`] under `backoff` (section 6's for the
/// attestation; another one in the tests, to show the rows fail): 429 and
/// 503 retried, never taken for success; Retry-After (seconds and
/// HTTP-date) waited in full; exponential full-jitter backoff otherwise;
/// five retries, then the one-hour hold; a Retry-After past the run's
/// patience deferring the target; a Retry-After on the last answer
/// outlasting the hold. (case, got, expected).
pub fn get_rows(backoff: Backoff) -> Vec<(String, String, String)> {
    let patience = Duration::from_secs(300);
    let url = "https://r5.test/feed";
    let gate = || {
        let mut g = fresh_gate();
        if let Ok(u) = Url::parse(url) {
            g.robots_not_found(&u, T0);
        }
        g
    };
    let run = || Run::new(patience, backoff);
    let gap_ms = |d: &Driven, i: usize| -> u64 {
        match (d.requests.get(i), d.requests.get(i + 1)) {
            (Some((_, ended)), Some((next, _))) => next.0.saturating_sub(ended.0),
            _ => 0,
        }
    };
    let hold_s = |d: &Driven| {
        d.gate
            .host_hold("r5.test")
            .map(|(until, why)| (until.0.saturating_sub(d.now.0) / 1000, why))
    };
    let mut rows = Vec::new();

    // 429 + Retry-After: 2, then 200.
    let d = drive_get(
        gate(),
        run(),
        T0,
        url,
        &[answer(429, Some("2")), answer(200, None)],
    );
    rows.push((
        "429 with Retry-After: 2, then 200 (requests, retry gap >= 2 s, outcome)".to_string(),
        format!(
            "{} requests, {}, {}",
            d.requests.len(),
            gap_ms(&d, 0) >= 2000,
            outcome_kind(&d.outcome)
        ),
        "2 requests, true, HTTP 200".to_string(),
    ));

    // 503 + Retry-After as an HTTP-date 5 s after the request, then 200.
    let mut date = String::new();
    let _ =
        wr_core::http_date::format_http_date(T0.saturating_add(Duration::from_secs(5)), &mut date);
    let d = drive_get(
        gate(),
        run(),
        T0,
        url,
        &[answer(503, Some(&date)), answer(200, None)],
    );
    let retried_at = d.requests.get(1).map_or(0, |(at, _)| at.0);
    rows.push((
        format!("503 with Retry-After: {date} (retry not before that instant)"),
        format!(
            "{}, {}",
            retried_at >= T0.0 + 5000,
            outcome_kind(&d.outcome)
        ),
        "true, HTTP 200".to_string(),
    ));

    // 503 without Retry-After, six times: five retries, then the hold.
    let d = drive_get(gate(), run(), T0, url, &vec![answer(503, None); 7]);
    let gaps: Vec<bool> = [500u64, 1000, 2000, 4000, 8000]
        .iter()
        .enumerate()
        .map(|(i, want)| gap_ms(&d, i) >= *want)
        .collect();
    rows.push((
        "503 without Retry-After, always (requests: 1 + 5 retries)".to_string(),
        d.requests.len().to_string(),
        "6".to_string(),
    ));
    rows.push((
        "backoff gaps >= min(60 s, 1 s * 2^n) * 0.5 for n = 0..4".to_string(),
        format!("{gaps:?}"),
        format!("{:?}", [true; 5]),
    ));
    rows.push((
        "after five retries: failed, host held 1 h (cool-down)".to_string(),
        format!(
            "{}, {:?}",
            matches!(
                &d.outcome,
                Some(GetOutcome::Failed {
                    cause: wr_core::outcome::Cause::RetriesExhausted { retries: 5, .. },
                    ..
                })
            ),
            hold_s(&d)
        ),
        format!("true, {:?}", Some((3600u64, WaitReason::Cooldown))),
    ));
    // The hold binds the next GET to that host in the run: deferred, unsent.
    let later = d.now.saturating_add(Duration::from_secs(60));
    let next = drive_get(d.gate, d.run, later, url, &[answer(200, None)]);
    rows.push((
        "another GET of the held host a minute later".to_string(),
        format!(
            "{} requests, {}",
            next.requests.len(),
            outcome_kind(&next.outcome)
        ),
        "0 requests, deferred".to_string(),
    ));

    // 429 + Retry-After: 3600, past the run's patience.
    let d = drive_get(
        gate(),
        run(),
        T0,
        url,
        &[answer(429, Some("3600")), answer(200, None)],
    );
    rows.push((
        "429 with Retry-After: 3600 (past the 300 s patience): deferred, held by the server's Retry-After".to_string(),
        format!(
            "{} requests, {}, {:?}",
            d.requests.len(),
            outcome_kind(&d.outcome),
            hold_s(&d)
        ),
        format!("1 requests, deferred, {:?}", Some((3600u64, WaitReason::RetryAfter))),
    ));

    // The answer that spends the budget carries Retry-After: 7200.
    let mut script = vec![answer(429, Some("1")); 5];
    script.push(answer(429, Some("7200")));
    let d = drive_get(gate(), run(), T0, url, &script);
    rows.push((
        "a Retry-After: 7200 on the answer that spends the budget outlasts the 1 h cool-down"
            .to_string(),
        format!("{} requests, {:?}", d.requests.len(), hold_s(&d)),
        format!("6 requests, {:?}", Some((7200u64, WaitReason::RetryAfter))),
    ));
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
        compare(
            "fetch machine",
            "wr_core::fetch::Get driven in-process through scripted answers (429, 503, \
             Retry-After in seconds and as an HTTP-date, five retries, the 1 h hold, a \
             Retry-After past the run's patience and one on the last answer), with the gate \
             and the run it shares",
            get_rows(b),
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
    use wr_core::robots::RuleKind;

    #[test]
    fn every_check_passes_on_the_real_code() {
        for (req, checks) in [
            ("R1", r1()),
            ("R2", r2()),
            ("R2a", r2a()),
            ("R2b", r2b()),
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

    /// The model checks on `decide`: R2, R2a, R2b, R2c, in that order.
    fn model_checks(decide: Decider<'_>) -> [Check; 4] {
        [
            r2_model_check(decide),
            r2a_model_check(decide),
            r2b_model_check(decide),
            r2c_model_check(decide),
        ]
    }

    /// Asserts which of the four model checks `decide` fails (R2, R2a,
    /// R2b, R2c), and that each failing one names the case `because`.
    fn assert_fails(decide: Decider<'_>, fails: [bool; 4], because: &str) {
        for (check, fails) in model_checks(decide).iter().zip(fails) {
            assert_eq!(!check.passed, fails, "{}: {}", check.name, check.detail);
            if fails {
                assert!(
                    check.detail.contains(because),
                    "{}: {}",
                    check.name,
                    check.detail
                );
            }
        }
    }

    /// Production on a body rewritten line by line by `edit` (`None` keeps
    /// the line, `Some` replaces it with zero or more lines).
    fn production_on_edited(
        edit: impl Fn(&str, &str) -> Option<String>,
    ) -> impl Fn(&[u8], &str) -> bool {
        move |body, path| {
            let text = String::from_utf8_lossy(body);
            let mut out = String::new();
            for line in text.split_inclusive(['\n', '\r']) {
                let bare = line.trim_end_matches(['\n', '\r']);
                let (field, value) = bare.split_once(':').unwrap_or((bare, ""));
                match edit(field.trim(), value.trim()) {
                    Some(lines) => out.push_str(&lines),
                    None => out.push_str(line),
                }
            }
            production_decides(out.as_bytes(), path)
        }
    }

    #[test]
    fn the_model_checks_pass_on_production() {
        for c in model_checks(&production_decides) {
            assert!(c.passed, "{}: {}", c.name, c.detail);
        }
        // Every topic has cases, and the over-limit ones are among them.
        let cases = model_cases();
        for t in [Topic::Reading, Topic::Selection, Topic::Matching] {
            assert!(cases.iter().any(|c| topic(&c.rests_on) == t), "{t:?}");
        }
        let over: Vec<_> = cases
            .iter()
            .filter(|c| c.served.len() > ROBOTS_MAX_BYTES)
            .collect();
        assert_eq!(over.len(), 3);
        for c in over {
            assert!(c.meaning.len() < 200, "{}", c.name);
            assert!(c.served.starts_with(&c.meaning[..c.meaning.len() - 40]));
        }
    }

    #[test]
    fn the_over_limit_cases_put_the_limit_inside_their_last_line() {
        for (rules, line, kept) in [
            ("User-agent: *\n", "Allow: /a-long-value", "Allow: /a"),
            ("User-agent: *\n", "Disallow: /x", "Disallow: /"),
        ] {
            let (served, meaning) = straddling_the_limit(rules, line, kept.len());
            assert_eq!(meaning, format!("{rules}{line}\n").into_bytes());
            let start = ROBOTS_MAX_BYTES - kept.len();
            assert_eq!(&served[start..ROBOTS_MAX_BYTES], kept.as_bytes());
            assert_eq!(served[start - 1], b'\n');
            assert_eq!(served.len(), start + line.len() + 1);
        }
    }

    /// Google's implied `Allow: /dir/$` for `Allow: /dir/index.html`.
    #[test]
    fn r2b_fails_when_an_index_html_allow_opens_its_directory() {
        let google = production_on_edited(|field, value| {
            let slash = value.rfind('/')?;
            (field.eq_ignore_ascii_case("allow") && value[slash..].starts_with("/index.htm"))
                .then(|| format!("Allow: {value}\nAllow: {}$\n", &value[..=slash]))
        });
        assert_fails(&google, [false, false, true, true], "/freecharts/");
    }

    /// Precedence by the octets of the pattern (RFC 9309, Google) instead
    /// of the octets a `*` consumed: production's own rules, each matched
    /// the model's way, the longest pattern deciding. The two rankings part
    /// only where a matching rule has a `*`, so only there is the answer
    /// changed (`Policy::rules` holds the rules of every reading; ranking
    /// them all would also undo the group selection).
    #[test]
    fn r2b_fails_when_rules_rank_by_pattern_length() {
        let by_pattern = |body: &[u8], path: &str| {
            let policy = Policy::parse(robots_body(body), UA_TOKEN);
            let matches = |pattern: &[u8]| {
                let alone = format!(
                    "User-agent: *\nDisallow: {}\n",
                    String::from_utf8_lossy(pattern)
                );
                !robots_model::decide(alone.as_bytes(), UA_TOKEN, path).allowed
            };
            let matching: Vec<_> = policy.rules().filter(|r| matches(r.pattern)).collect();
            let wildcard = matching.iter().any(|r| r.pattern.contains(&b'*'));
            let best = matching
                .iter()
                .max_by_key(|r| (r.pattern.len(), r.kind == RuleKind::Allow));
            production_decides(body, path)
                || (wildcard && best.is_some_and(|r| r.kind == RuleKind::Allow))
        };
        assert_fails(&by_pattern, [false, false, true, true], "trackback");
    }

    /// Crawl-delay leaving a run of User-agent lines open (Google): the
    /// same as reading the file without its Crawl-delay lines.
    #[test]
    fn r2_fails_when_crawl_delay_does_not_end_a_run_of_user_agents() {
        let google = production_on_edited(|field, _| {
            field.eq_ignore_ascii_case("crawl-delay").then(String::new)
        });
        assert_fails(
            &google,
            [true, false, false, true],
            "Crawl-delay line ends the run",
        );
    }

    /// Google's product token (the value cut at its first character that is
    /// not a letter, `-` or `_`) compared for equality: `Walsh-Research2`
    /// then reads as our token.
    #[test]
    fn r2a_fails_when_walsh_research2_is_selected() {
        let cut_agent = production_on_edited(|field, value| {
            let end = value
                .find(|c: char| !(c.is_ascii_alphabetic() || c == '-' || c == '_'))
                .unwrap_or(value.len());
            (field.eq_ignore_ascii_case("user-agent")
                && value.len() != end
                && value[..end].eq_ignore_ascii_case(UA_TOKEN))
            .then(|| format!("User-agent: {}\n", &value[..end]))
        });
        assert_fails(&cut_agent, [false, true, false, true], "Walsh-Research2");
    }

    /// Field names matched by prefix: `Allow-ads` read as `Allow`.
    #[test]
    fn r2_fails_when_allow_ads_reads_as_allow() {
        let by_prefix = production_on_edited(|field, value| {
            let lower = field.to_ascii_lowercase();
            (lower.starts_with("allow") && lower != "allow").then(|| format!("Allow: {value}\n"))
        });
        assert_fails(&by_prefix, [true, false, false, true], "Allow-ads");
    }

    /// The old HTTP layer: the body cut to exactly 500 KiB, so the parser
    /// takes the cut line for a whole one.
    #[test]
    fn r2_fails_when_the_parser_does_not_see_the_cut() {
        let cut_blind = |body: &[u8], path: &str| {
            let kept = &body[..body.len().min(ROBOTS_MAX_BYTES)];
            Policy::parse(kept, UA_TOKEN).check(path).allowed
        };
        assert_fails(&cut_blind, [true, false, false, true], "500 KiB");
        let c = r2_model_check(&cut_blind);
        for name in over_limit_cases().iter().map(|c| c.name.clone()) {
            assert!(c.detail.contains(&name), "{name}: {}", c.detail);
        }
    }

    #[test]
    fn a_model_check_fails_without_cases_or_on_a_case_the_model_contradicts() {
        assert!(!model_check("x", &[], &production_decides).passed);
        let mut case = over_limit_cases().remove(0);
        case.allowed = true;
        let c = model_check("x", &[&case], &|_, _| false);
        assert!(
            !c.passed && c.detail.contains("the case records allowed"),
            "{}",
            c.detail
        );
    }

    #[test]
    fn r1_passes_for_the_production_client_only() {
        let c = r1()[0].clone();
        assert!(
            c.passed && c.detail.starts_with("2 requests"),
            "{}",
            c.detail
        );
        // A client that sends another User-Agent, two, or none.
        let raw = |headers: &'static str| {
            move |port: u16| -> Result<(), String> {
                use std::io::{Read, Write};
                let mut s =
                    std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
                write!(
                    s,
                    "GET /feed.xml HTTP/1.1\r\nHost: user-agent.test\r\n{headers}\r\n"
                )
                .map_err(|e| e.to_string())?;
                let mut answer = Vec::new();
                s.read_to_end(&mut answer).map_err(|e| e.to_string())?;
                Ok(())
            }
        };
        for (headers, says) in [
            ("User-Agent: Mozilla/5.0 (compatible; Walsh-Research/1.1; +https://wal.sh/bot/)\r\n", "Walsh-Research/1.1"),
            ("User-Agent: curl/8.5.0\r\n", "curl/8.5.0"),
            (
                "User-Agent: Mozilla/5.0 (compatible; Walsh-Research/1.2; +https://wal.sh/bot/)\r\nUser-Agent: x\r\n",
                "2 User-Agent headers",
            ),
            ("", "0 User-Agent headers"),
        ] {
            let c = r1_check("a raw client", &raw(headers));
            assert!(!c.passed && c.detail.contains(says), "{headers:?}: {}", c.detail);
        }
        let c = r1_check("a silent client", &|_| Ok(()));
        assert!(!c.passed && c.detail.contains("no request"), "{}", c.detail);
        let c = r1_check("a failing client", &|_| Err("refused".into()));
        assert!(!c.passed && c.detail.contains("refused"), "{}", c.detail);
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
    fn r12_fails_when_the_floor_or_the_bound_is_claimed_wrong() {
        let floor = BLOCKLIST_REFRESH_FLOOR;
        let rows = zero_refresh_rows(floor, BLOCKLIST_REQUESTS_PER_RUN);
        assert!(rows.iter().all(|(_, got, want)| got == want), "{rows:?}");
        // Read as written (no floor): the list would be due at once.
        let none = zero_refresh_rows(Duration::ZERO, BLOCKLIST_REQUESTS_PER_RUN);
        assert!(none.iter().any(|(_, got, want)| got != want), "{none:?}");
        let late = zero_refresh_rows(floor * 2, BLOCKLIST_REQUESTS_PER_RUN);
        assert!(late.iter().any(|(_, got, want)| got != want), "{late:?}");
        let unbounded = zero_refresh_rows(floor, BLOCKLIST_REQUESTS_PER_RUN + 1);
        assert!(
            unbounded.iter().any(|(_, got, want)| got != want),
            "{unbounded:?}"
        );
    }

    #[test]
    fn r5_machine_rows_fail_for_a_schedule_that_is_not_section_6s() {
        assert!(compare("m", "m", get_rows(Backoff::default())).passed);
        for wrong in [
            Backoff {
                max_retries: 6,
                ..Backoff::default()
            },
            Backoff {
                max_retries: 4,
                ..Backoff::default()
            },
            Backoff {
                base: Duration::from_millis(100),
                ..Backoff::default()
            },
        ] {
            let c = compare("m", "m", get_rows(wrong));
            assert!(!c.passed, "{wrong:?}: {}", c.detail);
        }
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
