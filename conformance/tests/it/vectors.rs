//! The model against the spec's section 12.1 and 12.2 vectors as the
//! project stores them (`vectors/robots-*.json`), independently of the
//! copies in `CASES`.

use serde_json::Value;
use wr_conformance::robots_model::{decide, Model, Selection};

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
        let body = case["robots"].as_str().unwrap().as_bytes();
        let model = Model::parse(body, token);
        let selected = match model.selection() {
            Selection::Named(_) => "named",
            Selection::Wildcard => "global",
            Selection::None => "none",
        };
        assert_eq!(selected, case["selected"], "{}", case["name"]);
        let rules: Vec<String> = model.rules().iter().map(|r| r.to_string()).collect();
        let want: Vec<&str> = case["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert_eq!(rules, want, "{}", case["name"]);
    }
}

#[test]
fn section_12_2_path_matching() {
    let v = load("robots-matching.json");
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for case in cases {
        // The rules of the selected group: under a named group and under
        // `*` alike.
        for agent in ["Walsh-Research", "*"] {
            let mut body = format!("User-agent: {agent}\n");
            for r in case["rules"].as_array().unwrap() {
                body.push_str(r.as_str().unwrap());
                body.push('\n');
            }
            let path = case["path"].as_str().unwrap();
            let verdict = decide(body.as_bytes(), "Walsh-Research", path);
            assert_eq!(
                verdict.allowed,
                case["allowed"].as_bool().unwrap(),
                "{case}: {verdict:?}"
            );
        }
    }
}
