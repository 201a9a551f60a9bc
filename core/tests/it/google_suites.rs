//! Google's two robots.txt suites (`vectors/google/`). Every case must
//! pass except those listed in `vectors/google/deviations.json`, each with
//! the reason our contract differs; a listed case that starts passing fails
//! too, so the list never hides a change of behaviour.

use serde_json::Value;
use std::collections::BTreeMap;
use wr_core::robots::Policy;
use wr_core::url::Url;

fn dir() -> String {
    format!("{}/../vectors/google", env!("CARGO_MANIFEST_DIR"))
}

fn path_of(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) => u.path_and_query.to_string(),
        // Google's harness passes "" and other non-URLs; its matcher reads
        // them as the root path.
        Err(_) => "/".to_string(),
    }
}

fn run(file: &str) -> (usize, BTreeMap<String, String>) {
    let text = std::fs::read_to_string(format!("{}/{file}", dir())).unwrap();
    let mut failures = BTreeMap::new();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let case: Value = serde_json::from_str(line).unwrap();
        n += 1;
        let body: Vec<u8> = match case.get("robots_bytes") {
            Some(bytes) => bytes
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_u64().unwrap() as u8)
                .collect(),
            None => case["robots"].as_str().unwrap().as_bytes().to_vec(),
        };
        let agent = case["agent"].as_str().unwrap();
        let url = case["url"].as_str().unwrap();
        let short_url: String = url.chars().take(60).collect();
        let want = case["allowed"].as_bool().unwrap();
        let policy = Policy::parse(&body, agent);
        let verdict = policy.check(&path_of(url));
        if verdict.allowed != want {
            // R2c: a deviation may only ever deny what Google allows.
            assert!(
                want && !verdict.allowed,
                "{file}:{}: {} under-blocks: Google denies, wr-core allows",
                i + 1,
                case["test"]
            );
            failures.insert(
                format!("{file}:{}", i + 1),
                format!(
                    "{} agent={agent:?} url={short_url:?} want allowed={want}, got {}",
                    case["test"],
                    format!("{verdict:?}").chars().take(80).collect::<String>()
                ),
            );
        }
    }
    (n, failures)
}

#[test]
fn google_suites_pass_except_documented_deviations() {
    let deviations: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{}/deviations.json", dir())).unwrap(),
    )
    .unwrap();
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    for d in deviations["deviations"].as_array().unwrap() {
        let reason = d["reason"].as_str().unwrap();
        assert!(!reason.trim().is_empty(), "a deviation needs a reason: {d}");
        expected.insert(d["case"].as_str().unwrap().to_string(), reason.to_string());
    }
    let mut total = 0;
    let mut failures = BTreeMap::new();
    for file in [
        "google-robotstxt-cases.jsonl",
        "google-robotstxt-spec-test-cases.jsonl",
    ] {
        let (n, f) = run(file);
        total += n;
        failures.extend(f);
    }
    assert_eq!(total, 545, "both suites are present in full");
    let unexpected: Vec<_> = failures
        .iter()
        .filter(|(k, _)| !expected.contains_key(*k))
        .collect();
    let now_passing: Vec<_> = expected
        .keys()
        .filter(|k| !failures.contains_key(*k))
        .collect();
    assert!(
        unexpected.is_empty() && now_passing.is_empty(),
        "unexpected failures:\n{unexpected:#?}\nlisted deviations that now pass:\n{now_passing:#?}"
    );
}
