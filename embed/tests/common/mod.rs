//! What the embedding tests share: the vectors of `vectors/`, run through
//! any [`Embedding`] (the Rust functions called in-process, the wasm module
//! in wasmi, the C program) and held to their expectations and to wr-core
//! called natively; and the builds of the artefacts.
// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::{CrawlDelay, Policy, Reading, RuleKind, Verdict};
use wr_core_embed::{WR_ERR_EMPTY_TOKEN, WR_ERR_UTF8, WR_OK, WR_OVERFLOWED};

/// Which way of holding a policy an embedding is asked to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `wr_fixed_policy_*`, in caller storage.
    Fixed,
    /// `wr_policy_*`, an owned handle.
    Owned,
}

impl Mode {
    pub const BOTH: [Mode; 2] = [Mode::Fixed, Mode::Owned];

    pub fn key(self) -> &'static str {
        match self {
            Mode::Fixed => "fixed",
            Mode::Owned => "owned",
        }
    }
}

/// A verdict as it crossed the boundary, the pattern copied out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub allowed: u8,
    pub overflow: u8,
    pub reading: u8,
    pub rule_kind: u8,
    pub rule_line: u32,
    /// `None` for a null pattern pointer.
    pub pattern: Option<Vec<u8>>,
}

impl Answer {
    /// What wr-core itself answered, as the boundary should carry it.
    pub fn of(v: &Verdict<'_>) -> Answer {
        Answer {
            allowed: u8::from(v.allowed),
            overflow: u8::from(v.overflow),
            reading: match v.reading {
                Reading::Spec => 0,
                Reading::Rfc9309 => 1,
                Reading::Google => 2,
            },
            rule_kind: match v.rule.map(|r| r.kind) {
                None => 0,
                Some(RuleKind::Allow) => 1,
                Some(RuleKind::Disallow) => 2,
            },
            rule_line: v.rule.map_or(0, |r| r.line),
            pattern: v.rule.map(|r| r.pattern.to_vec()),
        }
    }
}

/// The exported functions, reached some way. Every method returns the
/// function's return value (and what it wrote).
pub trait Embedding {
    /// Parses into the embedding's one current policy (freeing the last).
    fn parse(&mut self, mode: Mode, body: &[u8], token: &[u8]) -> i32;
    /// `wr_*_allowed` on the current policy, with an out-verdict.
    fn allowed(&mut self, path: &[u8]) -> (i32, Answer);
    /// `wr_*_crawl_delay_ms`.
    fn crawl_delay_ms(&mut self) -> (i32, u64);
    /// `wr_*_rule_count`.
    fn rule_count(&mut self) -> i32;
    /// `wr_fixed_policy_overflowed` (fixed mode only).
    fn overflowed(&mut self) -> i32;
    /// `wr_host_matches_domain`.
    fn host_matches(&mut self, host: &[u8], domain: &[u8]) -> i32;
    /// `wr_host_matches_any_domain`: return value and the index written
    /// (`usize::MAX` when none was).
    fn host_matches_any(&mut self, host: &[u8], domains: &[&[u8]]) -> (i32, usize);
}

pub fn load(name: &str) -> Value {
    let path = format!("{}/../vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cases(v: &Value, expected: usize) -> &[Value] {
    let cases = v["cases"].as_array().expect("`cases` is an array");
    assert_eq!(cases.len(), expected, "number of cases in {}", v["source"]);
    cases
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{v}: `{key}` is not a string"))
}

fn flag(v: &Value, key: &str) -> bool {
    v[key]
        .as_bool()
        .unwrap_or_else(|| panic!("{v}: `{key}` is not a bool"))
}

/// Failures and the number of assertions made, so that a run that checked
/// nothing cannot pass.
#[derive(Default)]
pub struct Report {
    pub checks: usize,
    pub failures: Vec<String>,
}

impl Report {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checks += 1;
        if !ok {
            self.failures.push(what());
        }
    }

    fn eq<T: PartialEq + std::fmt::Debug>(
        &mut self,
        got: T,
        want: T,
        what: impl FnOnce() -> String,
    ) {
        self.checks += 1;
        if got != want {
            self.failures
                .push(format!("{}: got {got:?}, want {want:?}", what()));
        }
    }

    /// Panics with every failure unless there were none and at least
    /// `min_checks` checks.
    pub fn assert(self, name: &str, min_checks: usize) {
        eprintln!(
            "{name}: {} checks, {} failed",
            self.checks,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{name}: {} of {} checks failed:\n{}",
            self.failures.len(),
            self.checks,
            self.failures.join("\n")
        );
        assert!(
            self.checks >= min_checks,
            "{name}: only {} checks ran, expected at least {min_checks}",
            self.checks
        );
    }
}

/// Parses `"Disallow: /b (line 5)"` (section 12.1's rule notation).
fn rule_notation(s: &str) -> (u8, &str, u32) {
    let (kind, rest) = s.split_once(": ").unwrap_or_else(|| panic!("rule {s:?}"));
    let (pattern, line) = rest
        .rsplit_once(" (line ")
        .unwrap_or_else(|| panic!("rule {s:?}"));
    let line = line
        .trim_end_matches(')')
        .parse()
        .unwrap_or_else(|_| panic!("rule {s:?}"));
    let kind = match kind {
        "Allow" => 1,
        "Disallow" => 2,
        _ => panic!("rule {s:?}"),
    };
    (kind, pattern, line)
}

/// What `wr_*_crawl_delay_ms` should return and write for wr-core's
/// Crawl-delay: whole milliseconds, rounded up.
fn delay_ms(delay: Option<CrawlDelay>) -> (i32, u64) {
    match delay {
        Some(d) => (
            1,
            u64::try_from(d.0.as_nanos().div_ceil(1_000_000)).expect("a year fits"),
        ),
        None => (0, 0),
    }
}

/// Section 12.1 (group selection): the selected group's rules, and only
/// they, decide. For each listed rule, its own pattern is decided by it
/// (kind, line, pattern); every Disallow of the file that is not listed
/// decides nothing; the rule count is the listed count.
pub fn section_12_1(e: &mut dyn Embedding, mode: Mode, r: &mut Report) {
    let v = load("robots-selection.json");
    let token = text(&v, "token");
    for case in cases(&v, 5) {
        let name = format!("12.1 {} [{}]", text(case, "name"), mode.key());
        let body = text(case, "robots");
        let status = e.parse(mode, body.as_bytes(), token.as_bytes());
        r.eq(status, WR_OK, || format!("{name}: parse"));
        let listed: Vec<(u8, &str, u32)> = case["rules"]
            .as_array()
            .expect("`rules` is an array")
            .iter()
            .map(|s| rule_notation(s.as_str().expect("rule is a string")))
            .collect();
        let count = i32::try_from(listed.len()).expect("small");
        r.eq(e.rule_count(), count, || format!("{name}: rule count"));
        for &(kind, pattern, line) in &listed {
            let (ret, a) = e.allowed(pattern.as_bytes());
            let allowed = i32::from(kind == 1);
            r.eq(ret, allowed, || format!("{name}: {pattern} decided"));
            r.eq(
                (a.allowed, a.rule_kind, a.rule_line, a.pattern.as_deref()),
                (allowed as u8, kind, line, Some(pattern.as_bytes())),
                || format!("{name}: {pattern} decided by its rule"),
            );
        }
        for (i, l) in body.lines().enumerate() {
            let line = u32::try_from(i + 1).expect("small");
            let Some(pattern) = l.strip_prefix("Disallow: ") else {
                continue;
            };
            if listed.iter().any(|&(_, _, n)| n == line) {
                continue;
            }
            let (ret, a) = e.allowed(pattern.as_bytes());
            r.eq((ret, a.rule_kind, a.pattern), (1, 0, None), || {
                format!("{name}: {pattern} (line {line}, not selected) decides nothing")
            });
        }
    }
}

/// Section 12.2 (path matching): each verdict as the vector says, a denial
/// naming the case's Disallow and its line, an allowance naming nothing or
/// one of the case's Allow rules.
pub fn section_12_2(e: &mut dyn Embedding, mode: Mode, r: &mut Report) {
    let v = load("robots-matching.json");
    for case in cases(&v, 8) {
        let rules: Vec<&str> = case["rules"]
            .as_array()
            .expect("`rules` is an array")
            .iter()
            .map(|s| s.as_str().expect("rule is a string"))
            .collect();
        let path = text(case, "path");
        let name = format!(
            "12.2 {:?} {path} ({}) [{}]",
            rules,
            text(case, "why"),
            mode.key()
        );
        let mut body = String::from("User-agent: Walsh-Research\n");
        for rule in &rules {
            body.push_str(rule);
            body.push('\n');
        }
        r.eq(
            e.parse(mode, body.as_bytes(), b"Walsh-Research"),
            WR_OK,
            || format!("{name}: parse"),
        );
        let want = flag(case, "allowed");
        let (ret, a) = e.allowed(path.as_bytes());
        r.eq(ret, i32::from(want), || format!("{name}: verdict"));
        r.eq(a.allowed, u8::from(want), || format!("{name}: out.allowed"));
        r.eq(a.overflow, 0, || format!("{name}: out.overflow"));
        match a.rule_kind {
            0 => r.check(want && a.rule_line == 0 && a.pattern.is_none(), || {
                format!("{name}: no rule, but {a:?}")
            }),
            kind => {
                let i = usize::try_from(a.rule_line)
                    .unwrap_or(usize::MAX)
                    .wrapping_sub(2);
                let written = rules.get(i).map(|s| {
                    let (k, p) = s.split_once(':').expect("rule has a colon");
                    (
                        if k == "Allow" { 1 } else { 2 },
                        p.trim().as_bytes().to_vec(),
                    )
                });
                r.eq(
                    Some((kind, a.pattern.clone().unwrap_or_default())),
                    written,
                    || {
                        format!(
                            "{name}: the deciding rule is the case's line {}",
                            a.rule_line
                        )
                    },
                );
                r.eq(kind, if want { 1 } else { 2 }, || {
                    format!("{name}: rule kind")
                });
            }
        }
    }
}

/// Section 16 canaries: the operator's robots.txt for `Walsh-Research` and
/// for any other bot, and the Walsh-Research group's Crawl-delay.
pub fn section_16(e: &mut dyn Embedding, mode: Mode, r: &mut Report) {
    let v = load("canaries.json");
    let body = text(&v, "robots");
    let want_ms = v["crawl_delay_secs"].as_f64().expect("crawl_delay_secs") * 1000.0;
    for (token, key) in [
        ("Walsh-Research", "walsh_research"),
        ("SomeOtherBot", "star"),
    ] {
        let name = format!("16 {token} [{}]", mode.key());
        r.eq(
            e.parse(mode, body.as_bytes(), token.as_bytes()),
            WR_OK,
            || format!("{name}: parse"),
        );
        let delay = e.crawl_delay_ms();
        if token == "Walsh-Research" {
            r.eq(delay, (1, want_ms as u64), || {
                format!("{name}: Crawl-delay")
            });
        } else {
            let native = Policy::parse(body.as_bytes(), token).crawl_delay();
            r.eq(delay, delay_ms(native), || {
                format!("{name}: Crawl-delay as wr-core")
            });
        }
        for case in cases(&v, 5) {
            let path = text(case, "path");
            let (ret, a) = e.allowed(path.as_bytes());
            let want = flag(case, key);
            r.eq((ret, a.allowed), (i32::from(want), u8::from(want)), || {
                format!("{name}: {path}")
            });
        }
    }
}

/// Section 12.3 (blocklist domains): one domain, and lists with the domain
/// first, last, and absent; then R3a's port and trailing-dot cases
/// (`blocklist-hosts.json`, this project's: 12.3 has none).
pub fn section_12_3(e: &mut dyn Embedding, r: &mut Report) {
    let v = load("blocklist-domains.json");
    let domain = text(&v, "domain");
    for case in cases(&v, 7) {
        let name = format!("12.3 {}", text(case, "host"));
        host_case(
            e,
            r,
            domain,
            text(case, "host"),
            flag(case, "blocked"),
            &name,
        );
    }
    let v = load("blocklist-hosts.json");
    for case in cases(&v, 18) {
        let (domain, host) = (text(case, "domain"), text(case, "host"));
        let name = format!("R3a {host} against {domain}");
        host_case(e, r, domain, host, flag(case, "blocked"), &name);
    }
}

/// One blocklist case through both host functions: the domain alone, and
/// in lists where it is first, last, absent, and that are empty.
fn host_case(
    e: &mut dyn Embedding,
    r: &mut Report,
    domain: &str,
    host: &str,
    want: bool,
    name: &str,
) {
    let (domain, host) = (domain.as_bytes(), host.as_bytes());
    let decoy = b"unrelated.invalid".as_slice();
    r.eq(e.host_matches(host, domain), i32::from(want), || {
        name.to_string()
    });
    let hit = |i: usize| if want { (1, i) } else { (0, usize::MAX) };
    r.eq(e.host_matches_any(host, &[domain]), hit(0), || {
        format!("{name} in [domain]")
    });
    r.eq(e.host_matches_any(host, &[decoy, domain]), hit(1), || {
        format!("{name} in [decoy, domain]")
    });
    r.eq(e.host_matches_any(host, &[domain, decoy]), hit(0), || {
        format!("{name} in [domain, decoy]")
    });
    r.eq(e.host_matches_any(host, &[decoy]), (0, usize::MAX), || {
        format!("{name} in [decoy]")
    });
    r.eq(e.host_matches_any(host, &[]), (0, usize::MAX), || {
        format!("{name} in []")
    });
}

/// Google's 545 cases (`vectors/google`): every answer through the
/// boundary equals wr-core's own, in full (verdict, rule, line, pattern,
/// reading, overflow), and so do the Crawl-delay and the rule count.
pub fn google_suites(e: &mut dyn Embedding, mode: Mode, r: &mut Report) {
    let dir = format!("{}/../vectors/google", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for file in [
        "google-robotstxt-cases.jsonl",
        "google-robotstxt-spec-test-cases.jsonl",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{file}"))
            .unwrap_or_else(|e| panic!("{dir}/{file}: {e}"));
        for line in text.lines() {
            let case: Value = serde_json::from_str(line).expect("a JSON line");
            let body: Vec<u8> = match case.get("robots_bytes") {
                Some(b) => b
                    .as_array()
                    .expect("bytes")
                    .iter()
                    .map(|x| u8::try_from(x.as_u64().expect("byte")).expect("byte"))
                    .collect(),
                None => case["robots"].as_str().expect("robots").as_bytes().to_vec(),
            };
            let agent = case["agent"].as_str().expect("agent");
            let path = wr_core::url::Url::parse(case["url"].as_str().expect("url"))
                .map(|u| u.path_and_query.to_string())
                .unwrap_or_else(|_| "/".into());
            let name = format!("{file}:{} [{}] {agent:?} {path:?}", n + 1, mode.key());
            n += 1;
            let status = e.parse(mode, &body, agent.as_bytes());
            if agent.is_empty() {
                r.eq(status, WR_ERR_EMPTY_TOKEN, || {
                    format!("{name}: empty token")
                });
                continue;
            }
            let (want_status, want, delay, count) = match mode {
                Mode::Fixed => {
                    let p = FixedPolicy::<64, 4096>::parse(&body, agent);
                    let status = if p.overflowed() { WR_OVERFLOWED } else { WR_OK };
                    (
                        status,
                        Answer::of(&p.check(&path)),
                        p.crawl_delay(),
                        p.rule_count(),
                    )
                }
                Mode::Owned => {
                    let p = Policy::parse(&body, agent);
                    (
                        WR_OK,
                        Answer::of(&p.check(&path)),
                        p.crawl_delay(),
                        p.rule_count(),
                    )
                }
            };
            r.eq(status, want_status, || format!("{name}: parse"));
            let (ret, got) = e.allowed(path.as_bytes());
            r.eq(ret, i32::from(want.allowed == 1), || {
                format!("{name}: return")
            });
            r.eq(got, want, || format!("{name}: verdict"));
            r.eq(e.crawl_delay_ms(), delay_ms(delay), || {
                format!("{name}: Crawl-delay")
            });
            r.eq(e.rule_count(), i32::try_from(count).expect("small"), || {
                format!("{name}: rule count")
            });
        }
    }
    assert_eq!(n, 545, "Google's cases");
}

/// The fixed capacity overflowing: the parse says so, the policy says so,
/// and a path only the lost rules could have allowed is denied with
/// `overflow` set; the owned policy, given the same file, allows it.
pub fn overflow(e: &mut dyn Embedding, r: &mut Report) {
    // More Disallows than WR_FIXED_RULES: the `*` set must deny everything.
    let mut body = String::from("User-agent: *\n");
    for i in 0..=wr_core_embed::WR_FIXED_RULES {
        body.push_str(&format!("Disallow: /d{i}/\n"));
    }
    r.eq(
        e.parse(Mode::Fixed, body.as_bytes(), b"Walsh-Research"),
        WR_OVERFLOWED,
        || "overflow: parse status".into(),
    );
    r.eq(e.overflowed(), 1, || "overflow: flag".into());
    let (ret, a) = e.allowed(b"/elsewhere");
    r.eq(
        (ret, a.allowed, a.overflow, a.rule_kind, a.pattern),
        (0, 0, 1, 0, None),
        || "overflow: a path no rule matches is over-blocked, and flagged".into(),
    );
    r.eq(
        e.parse(Mode::Owned, body.as_bytes(), b"Walsh-Research"),
        WR_OK,
        || "overflow: owned parse".into(),
    );
    let (ret, a) = e.allowed(b"/elsewhere");
    r.eq((ret, a.overflow), (1, 0), || {
        "overflow: the owned policy allows it".into()
    });
    // Patterns longer than WR_FIXED_BYTES: an Allow is dropped (deny more),
    // a Disallow is cut (still denies what it denied).
    let long = "x".repeat(wr_core_embed::WR_FIXED_BYTES + 10);
    let body = format!("User-agent: *\nDisallow: /a\nAllow: /a/{long}\n");
    r.eq(
        e.parse(Mode::Fixed, body.as_bytes(), b"Walsh-Research"),
        WR_OVERFLOWED,
        || "overflow (bytes): parse status".into(),
    );
    let (ret, a) = e.allowed(format!("/a/{long}").as_bytes());
    r.eq(
        (ret, a.allowed, a.overflow, a.rule_kind, a.rule_line),
        (0, 0, 1, 2, 2),
        || "overflow (bytes): the dropped Allow leaves the Disallow, flagged".into(),
    );
    let (ret, a) = e.allowed(b"/b");
    r.eq((ret, a.overflow), (1, 0), || {
        "overflow (bytes): unrelated path".into()
    });
    // A fitting file: no overflow anywhere.
    r.eq(
        e.parse(Mode::Fixed, b"User-agent: *\nDisallow: /a\n", b"Bot"),
        WR_OK,
        || "no overflow: parse".into(),
    );
    r.eq(e.overflowed(), 0, || "no overflow: flag".into());
}

/// Which reading denied crosses the boundary: one file per reading that
/// is the first (or only) to deny.
pub fn readings(e: &mut dyn Embedding, mode: Mode, r: &mut Report) {
    for (body, path, reading, line, pattern) in [
        (
            &b"User-agent: *\nDisallow: /x\n"[..],
            &b"/x"[..],
            0,
            2,
            &b"/x"[..],
        ),
        // RFC 9309 counts the `$` as an octet: the Disallow is longer.
        (
            b"User-agent: *\nAllow: /ab\nDisallow: /ab$\n",
            b"/ab",
            1,
            3,
            b"/ab$",
        ),
        // Only Google's reading reads the misspelt field.
        (b"User-agent: *\nDissallow: /x\n", b"/x", 2, 2, b"/x"),
    ] {
        let name = format!("reading {reading} [{}]", mode.key());
        r.eq(e.parse(mode, body, b"Bot"), WR_OK, || {
            format!("{name}: parse")
        });
        let (ret, a) = e.allowed(path);
        r.eq(
            (
                ret,
                a.allowed,
                a.reading,
                a.rule_kind,
                a.rule_line,
                a.pattern,
            ),
            (0, 0, reading, 2, line, Some(pattern.to_vec())),
            || name.clone(),
        );
    }
}

/// Bad inputs the boundary refuses, reachable from any embedding.
pub fn refusals(e: &mut dyn Embedding, r: &mut Report) {
    for mode in Mode::BOTH {
        r.eq(
            e.parse(mode, b"User-agent: *\n", b""),
            WR_ERR_EMPTY_TOKEN,
            || format!("empty token [{}]", mode.key()),
        );
        r.eq(
            e.parse(mode, b"User-agent: *\n", b"Bot\xff"),
            WR_ERR_UTF8,
            || format!("non-UTF-8 token [{}]", mode.key()),
        );
        // A non-UTF-8 body and path are octets like any other.
        r.eq(
            e.parse(mode, b"User-agent: *\nDisallow: /\xff\n", b"Bot"),
            WR_OK,
            || format!("non-UTF-8 body [{}]", mode.key()),
        );
        let (ret, a) = e.allowed(b"/\xff/x");
        r.eq((ret, a.rule_kind, a.rule_line), (0, 2, 2), || {
            format!("non-UTF-8 path [{}]", mode.key())
        });
        // Empty body: everything allowed, no Crawl-delay; empty path is `/`.
        r.eq(e.parse(mode, b"", b"Bot"), WR_OK, || {
            format!("empty body [{}]", mode.key())
        });
        let (ret, a) = e.allowed(b"");
        r.eq((ret, a.rule_kind), (1, 0), || {
            format!("empty path [{}]", mode.key())
        });
        r.eq(e.crawl_delay_ms(), (0, 0), || {
            format!("no Crawl-delay [{}]", mode.key())
        });
        r.eq(e.rule_count(), 0, || format!("no rules [{}]", mode.key()));
        // Fractional Crawl-delay, rounded up to a millisecond.
        let body = b"User-agent: *\nCrawl-delay: 0.0015\n";
        r.eq(e.parse(mode, body, b"Bot"), WR_OK, || {
            format!("delay [{}]", mode.key())
        });
        r.eq(e.crawl_delay_ms(), (1, 2), || {
            format!("0.0015 s is 2 ms [{}]", mode.key())
        });
    }
    r.eq(
        e.host_matches(b"\xffexample.com", b"example.com"),
        WR_ERR_UTF8,
        || "non-UTF-8 host".into(),
    );
    r.eq(e.host_matches(b"example.com", b"\xff"), WR_ERR_UTF8, || {
        "non-UTF-8 domain".into()
    });
    r.eq(
        e.host_matches_any(b"www.example.com", &[b"example.com", b"\xff"]),
        (WR_ERR_UTF8, usize::MAX),
        || "a bad entry after a match is still refused".into(),
    );
    r.eq(e.host_matches(b"example.com", b""), 0, || {
        "empty domain".into()
    });
    r.eq(
        e.host_matches(b"www.EXAMPLE.com.:8080", b"example.com"),
        1,
        || "port, case and trailing dot".into(),
    );
}

/// Issue #18's shapes (`vectors/robots-audit.json`): each denied, the
/// owned policy naming a rule, the fixed one (which has no room for a
/// second reading of a file) possibly by over-blocking, as it says.
pub fn audit_rows(e: &mut dyn Embedding, mode: Mode, r: &mut Report) {
    let v = load("robots-audit.json");
    for case in cases(&v, 19) {
        let path = text(case, "path");
        let name = format!(
            "audit {} {} {path} [{}]",
            text(case, "site"),
            text(case, "class"),
            mode.key()
        );
        let parsed = e.parse(mode, text(case, "robots").as_bytes(), b"Walsh-Research");
        // The fixed policy says when a second reading of the text would
        // need room it has not (`FixedPolicy::overflowed`).
        let ok = parsed == WR_OK || (mode == Mode::Fixed && parsed == WR_OVERFLOWED);
        r.check(ok, || format!("{name}: parse gave {parsed}"));
        let want = flag(case, "allowed");
        let (ret, a) = e.allowed(path.as_bytes());
        r.eq(ret, i32::from(want), || format!("{name}: verdict"));
        r.eq(a.allowed, u8::from(want), || format!("{name}: out.allowed"));
        if mode == Mode::Owned {
            r.check(a.rule_kind == 2, || {
                format!("{name}: a Disallow decides, got {a:?}")
            });
        }
    }
}

/// Every vector and check above, in both modes.
pub fn run_all(e: &mut dyn Embedding) -> Report {
    let mut r = Report::default();
    for mode in Mode::BOTH {
        section_12_1(e, mode, &mut r);
        section_12_2(e, mode, &mut r);
        section_16(e, mode, &mut r);
        google_suites(e, mode, &mut r);
        readings(e, mode, &mut r);
        audit_rows(e, mode, &mut r);
    }
    section_12_3(e, &mut r);
    overflow(e, &mut r);
    refusals(e, &mut r);
    r
}

/// Fewest checks [`run_all`] makes (a guard against a run that skipped
/// its vectors).
pub const MIN_CHECKS: usize = 4000;

/// Where the tests build the artefacts: a target directory of its own
/// (the outer build holds the lock on the test's one), under the outer
/// target directory's `tmp`. `.ci/run` builds into the same directory
/// first, so the tests find them fresh.
pub fn artefact_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("wr-core-embed")
}

/// Runs `cargo ARGS` on this package into [`artefact_target_dir`], and
/// fails with cargo's output and `hint` if it cannot.
pub fn cargo_build(what: &str, args: &[&str], hint: &str) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = Command::new(&cargo)
        .args(args)
        .args(["--manifest-path", manifest])
        .env("CARGO_TARGET_DIR", artefact_target_dir())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo:?} to build {what}: {e}\n{hint}"));
    assert!(
        out.status.success(),
        "building {what} failed: cargo {}\n{}\n{hint}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The names of the `#[no_mangle]` functions of `src/`, sorted.
pub fn exported() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("embed/src") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("source");
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim() == "#[no_mangle]" {
                let sig = lines.next().unwrap_or_default();
                let name = sig
                    .split("fn ")
                    .nth(1)
                    .and_then(|s| s.split('(').next())
                    .unwrap_or_else(|| panic!("no fn after #[no_mangle]: {sig}"));
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    names
}
