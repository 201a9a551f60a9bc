//! The spec's section 12.1 and 12.2 vectors and the section 16 canaries,
//! read from `vectors/` so that the data, not the test, states the contract.

use serde_json::Value;
use wr_core::robots::{Policy, Robots, Selected};

fn load(name: &str) -> Value {
    let path = format!("{}/../vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn section_12_1_group_selection() {
    let v = load("robots-selection.json");
    let token = v["token"].as_str().unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for case in cases {
        let body = case["robots"].as_str().unwrap();
        for policy in [
            Policy::parse(body.as_bytes(), token),
            Robots::parse(body.as_bytes()).policy(token),
        ] {
            let selected = match policy.selected() {
                Selected::Named => "named",
                Selected::Global => "global",
                Selected::None => "none",
            };
            assert_eq!(selected, case["selected"], "{}", case["name"]);
            // The vectors write a rule as `Disallow: /p (line 3)`.
            let rules: Vec<String> = policy
                .rules()
                .map(|r| {
                    let value = String::from_utf8_lossy(r.pattern);
                    format!("{}: {value} (line {})", r.kind.as_str(), r.line)
                })
                .collect();
            let want: Vec<&str> = case["rules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            assert_eq!(rules, want, "{}", case["name"]);
        }
    }
}

#[test]
fn section_12_2_path_matching() {
    let v = load("robots-matching.json");
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for case in cases {
        let mut body = String::from("User-agent: Walsh-Research\n");
        for r in case["rules"].as_array().unwrap() {
            body.push_str(r.as_str().unwrap());
            body.push('\n');
        }
        let policy = Policy::parse(body.as_bytes(), "Walsh-Research");
        let path = case["path"].as_str().unwrap();
        let verdict = policy.check(path);
        assert_eq!(
            verdict.allowed,
            case["allowed"].as_bool().unwrap(),
            "{case}: got {verdict:?}"
        );
    }
}

#[test]
fn section_16_canaries() {
    let v = load("canaries.json");
    let body = v["robots"].as_str().unwrap().as_bytes();
    let walsh = Policy::parse(body, "Walsh-Research");
    let star = Policy::parse(body, "SomeOtherBot");
    assert_eq!(
        walsh.crawl_delay().map(|d| d.0.as_secs_f64()),
        v["crawl_delay_secs"].as_f64(),
        "Crawl-delay of the Walsh-Research group"
    );
    for case in v["cases"].as_array().unwrap() {
        let path = case["path"].as_str().unwrap();
        assert_eq!(
            walsh.check(path).allowed,
            case["walsh_research"].as_bool().unwrap(),
            "{path}"
        );
        assert_eq!(
            star.check(path).allowed,
            case["star"].as_bool().unwrap(),
            "{path} for *"
        );
    }
}

#[test]
fn verdict_names_rule_and_line() {
    let body = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n";
    let p = Policy::parse(body, "Walsh-Research");
    let v = p.check("/private/x");
    assert!(!v.allowed);
    let rule = v.rule.expect("a rule decided");
    assert_eq!((rule.pattern, rule.line), (&b"/private"[..], 2));
    let v = p.check("/private/ok/1");
    assert!(v.allowed);
    assert_eq!(v.rule.map(|r| r.line), Some(3));
    let v = p.check("/public");
    assert!(v.allowed && v.rule.is_none());
}
