//! The offline conformance vectors (spec sections 12 and 16), compiled
//! into the binary so `wr-feeds attest` can re-run them in-process.

use serde_json::Value;
use std::time::Duration;
use wr_core::blocklist::{BlockedDomain, Blocklist};
use wr_core::canonical::canonical_url;
use wr_core::domain::host_matches_domain;
use wr_core::duration::parse_duration;
use wr_core::http_date::parse_http_date;
use wr_core::retry_after::parse_retry_after;
use wr_core::robots::{Policy, Selected};

use crate::fixtures::{
    BLOCKLIST_DOMAINS as DOMAINS, BLOCKLIST_HOSTS as HOSTS, CANARIES, CANONICAL_URLS as CANONICAL,
    DURATIONS, RETRY_AFTER, ROBOTS_MATCHING as MATCHING, ROBOTS_SELECTION as SELECTION,
};

/// The result of one vector file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct VectorResult {
    /// Spec section, e.g. `12.1`.
    pub section: &'static str,
    /// Cases checked.
    pub cases: usize,
    /// Descriptions of the cases that failed.
    pub failures: Vec<String>,
}

impl VectorResult {
    /// Every case passed (and there was at least one).
    pub fn passed(&self) -> bool {
        self.cases > 0 && self.failures.is_empty()
    }
}

fn cases(v: &Value) -> Vec<Value> {
    v["cases"].as_array().cloned().unwrap_or_default()
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

fn run(
    section: &'static str,
    text: &str,
    check: impl Fn(&Value, &Value) -> Option<String>,
) -> VectorResult {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return VectorResult {
                section,
                cases: 0,
                failures: vec![format!("vector file unreadable: {e}")],
            }
        }
    };
    let cs = cases(&v);
    let failures = cs.iter().filter_map(|c| check(&v, c)).collect();
    VectorResult {
        section,
        cases: cs.len(),
        failures,
    }
}

/// The label of the R3a port and trailing-dot vectors (this project's,
/// after section 9.2; section 12.3 has none).
pub const R3A_HOSTS: &str = "9.2 hosts";

/// How the attestation names a vector file's section.
pub fn label(section: &str) -> String {
    if section == R3A_HOSTS {
        "R3a port and trailing-dot vectors (this project's, after section 9.2: \
         vectors/blocklist-hosts.json)"
            .to_string()
    } else {
        format!("section {section} vectors")
    }
}

/// R3a on one (listed domain, host, blocked) case: the domain matcher and
/// an adopted list listing only that domain must both answer `blocked`.
fn r3a_case(domain: &str, host: &str, blocked: Option<bool>) -> Option<String> {
    let list = Blocklist::new(
        "walsh-research-blocklist/v1",
        None,
        [BlockedDomain::new(domain, "2026-05-23", "vector")],
    );
    let a = host_matches_domain(host, domain);
    let b = list.as_ref().map(|l| l.blocked_by(host).is_some()).ok();
    (Some(a) != blocked || b != blocked)
        .then(|| format!("{host} against {domain}: matched {a}, listed {b:?}"))
}

/// Runs every compiled-in vector file.
pub fn all() -> Vec<VectorResult> {
    vec![
        run("12.1", SELECTION, |v, c| {
            let p = Policy::parse(s(c, "robots").as_bytes(), s(v, "token"));
            let sel = match p.selected() {
                Selected::Named => "named",
                Selected::Global => "global",
                Selected::None => "none",
            };
            let rules: Vec<String> = p.rules().map(|r| wr_feeds::words::words(&r)).collect();
            let want: Vec<String> = c["rules"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| r.as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            (sel != s(c, "selected") || rules != want)
                .then(|| format!("{}: selected {sel}, rules {rules:?}", s(c, "name")))
        }),
        run("12.2", MATCHING, |_, c| {
            let mut body = String::from("User-agent: Walsh-Research\n");
            for r in c["rules"].as_array().into_iter().flatten() {
                body.push_str(r.as_str().unwrap_or(""));
                body.push('\n');
            }
            let got = Policy::parse(body.as_bytes(), "Walsh-Research")
                .check(s(c, "path"))
                .allowed;
            (Some(got) != c["allowed"].as_bool()).then(|| format!("{c}: allowed={got}"))
        }),
        run("16", CANARIES, |v, c| {
            let body = s(v, "robots").as_bytes();
            let walsh = Policy::parse(body, "Walsh-Research");
            let star = Policy::parse(body, "SomeOtherBot");
            let delay = walsh.crawl_delay().map(|d| d.0.as_secs_f64());
            let path = s(c, "path");
            let (w, st) = (walsh.check(path).allowed, star.check(path).allowed);
            (delay != v["crawl_delay_secs"].as_f64()
                || Some(w) != c["walsh_research"].as_bool()
                || Some(st) != c["star"].as_bool())
            .then(|| format!("{path}: Walsh-Research {w}, * {st}, Crawl-delay {delay:?}"))
        }),
        run("12.3", DOMAINS, |v, c| {
            r3a_case(s(v, "domain"), s(c, "host"), c["blocked"].as_bool())
        }),
        run(R3A_HOSTS, HOSTS, |_, c| {
            r3a_case(s(c, "domain"), s(c, "host"), c["blocked"].as_bool())
        }),
        run("12.4", CANONICAL, |_, c| {
            let got = canonical_url(s(c, "input")).ok();
            (got.as_deref() != c["canonical"].as_str()).then(|| format!("{c}: got {got:?}"))
        }),
        run("12.5", RETRY_AFTER, |v, c| {
            let Ok(now) = parse_http_date(s(v, "now")) else {
                return Some("`now` is not an HTTP-date".to_string());
            };
            let got = parse_retry_after(s(c, "value"), now).ok();
            let want = c["delay_secs"].as_u64().map(Duration::from_secs);
            (got != want).then(|| format!("{c}: got {got:?}"))
        }),
        run("12.6", DURATIONS, |_, c| {
            let got = parse_duration(s(c, "duration")).ok();
            let want = c["ms"].as_u64().map(Duration::from_millis);
            (got != want).then(|| format!("{c}: got {got:?}"))
        }),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_compiled_in_vector_passes() {
        for r in super::all() {
            assert!(r.passed(), "section {}: {:?}", r.section, r.failures);
        }
    }
}
