//! The spec's section 12.3-12.6 vectors (blocklist domains, canonical URLs,
//! Retry-After, durations), read from `vectors/` so that the data, not the
//! test, states the contract. Every case is checked; all failures are
//! reported together, each with its case.

use std::time::Duration;

use serde_json::Value;
use wr_core::blocklist::{BlockedDomain, Blocklist};
use wr_core::canonical::{canonical_url, write_canonical};
use wr_core::domain::host_matches_domain;
use wr_core::duration::parse_duration;
use wr_core::http_date::parse_http_date;
use wr_core::retry_after::parse_retry_after;
use wr_core::time::Timestamp;

fn load(name: &str) -> Value {
    let path = format!("{}/../vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cases(v: &Value, expected: usize) -> &[Value] {
    let cases = v["cases"].as_array().expect("`cases` is an array");
    assert_eq!(cases.len(), expected, "number of cases in {}", v["source"]);
    cases
}

fn str_field<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("{case}: `{key}` is not a string"))
}

fn report(section: &str, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{section}: {} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn section_12_3_blocklist_domains() {
    let v = load("blocklist-domains.json");
    let domain = str_field(&v, "domain");
    let list = Blocklist::new(
        "walsh-research-blocklist/v1",
        None,
        [BlockedDomain::new(domain, "2026-05-23", "email opt-out")],
    )
    .expect("the spec's example blocklist is adopted");
    let mut failures = Vec::new();
    for case in cases(&v, 7) {
        let host = str_field(case, "host");
        let want = case["blocked"].as_bool().expect("`blocked` is a bool");
        let matched = host_matches_domain(host, domain);
        let listed = list.blocked_by(host).is_some();
        if matched != want || listed != want {
            failures.push(format!(
                "{case}: host_matches_domain={matched}, Blocklist::blocked_by={listed}"
            ));
        }
    }
    report("12.3", failures);
}

/// R3a's "case-insensitively with port stripped", and the one trailing-dot
/// rule (every trailing dot ignored, on both sides: issue #18), on hosts
/// with ports and trailing dots; section 12.3 has none.
#[test]
fn r3a_ports_and_trailing_dots() {
    let v = load("blocklist-hosts.json");
    let mut failures = Vec::new();
    for case in cases(&v, 18) {
        let domain = str_field(case, "domain");
        let host = str_field(case, "host");
        let want = case["blocked"].as_bool().expect("`blocked` is a bool");
        let list = Blocklist::new(
            "walsh-research-blocklist/v1",
            None,
            [BlockedDomain::new(domain, "2026-05-23", "vector")],
        )
        .unwrap_or_else(|e| panic!("{domain}: {e}"));
        let matched = host_matches_domain(host, domain);
        let listed = list.blocked_by(host).is_some();
        if matched != want || listed != want {
            failures.push(format!(
                "{case}: host_matches_domain={matched}, Blocklist::blocked_by={listed}"
            ));
        }
    }
    report("R3a hosts", failures);
}

#[test]
fn section_12_4_canonical_urls() {
    let v = load("canonical-urls.json");
    let mut failures = Vec::new();
    for case in cases(&v, 6) {
        let input = str_field(case, "input");
        let want = str_field(case, "canonical");
        let owned = canonical_url(input);
        let mut written = String::new();
        let streamed = write_canonical(input, &mut written).map(|()| written);
        if owned.as_deref() != Ok(want) || streamed.as_deref() != Ok(want) {
            failures.push(format!(
                "{case}: canonical_url={owned:?}, write_canonical={streamed:?}"
            ));
        }
    }
    report("12.4", failures);
}

#[test]
fn section_12_5_retry_after() {
    let v = load("retry-after.json");
    let now = parse_http_date(str_field(&v, "now")).expect("`now` is an HTTP-date");
    assert_eq!(
        Some(now),
        v["now_unix_ms"].as_u64().map(Timestamp),
        "`now` and `now_unix_ms` agree"
    );
    let mut failures = Vec::new();
    for case in cases(&v, 5) {
        let value = str_field(case, "value");
        let want = case["delay_secs"].as_u64().map(Duration::from_secs);
        let got = parse_retry_after(value, now);
        if got.ok() != want {
            failures.push(format!("{case}: got {got:?}"));
        }
    }
    report("12.5", failures);
}

#[test]
fn section_12_6_durations() {
    let v = load("durations.json");
    let mut failures = Vec::new();
    for case in cases(&v, 4) {
        let text = str_field(case, "duration");
        let want = case["ms"].as_u64().map(Duration::from_millis);
        let got = parse_duration(text);
        if got.ok() != want {
            failures.push(format!("{case}: got {got:?}"));
        }
        // The same value as a blocklist `refresh` sets the list's TTL (R3).
        let refresh =
            Blocklist::new("walsh-research-blocklist/v1", Some(text), []).map(|l| l.refresh());
        if refresh.as_ref().ok() != want.as_ref() {
            failures.push(format!("{case}: as blocklist refresh, got {refresh:?}"));
        }
    }
    report("12.6", failures);
}
