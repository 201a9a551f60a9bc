//! Blocklist document validation (R3, R3c, R10) and the section 13 fixtures
//! document, against the operator files in `tests/data/operator/`.

use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use wr_core::blocklist::BlocklistError;
use wr_feeds::blocklist_doc::{
    compile_schema, parse_fixtures, validate, validate_detailed, BlocklistDocError, FixturesError,
    SchemaSource, MAX_REPORTED_ERRORS,
};

fn operator(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/operator")
        .join(name);
    match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => panic!("reading {}: {e}", path.display()),
    }
}

fn json_of(name: &str) -> Value {
    match serde_json::from_slice(&operator(name)) {
        Ok(v) => v,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// The shipped blocklist with `edit` applied to its JSON.
fn edited(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut doc = json_of("blocklist.json");
    edit(&mut doc);
    doc.to_string().into_bytes()
}

fn field<'a>(doc: &'a mut Value, key: &str) -> &'a mut Value {
    match doc.get_mut(key) {
        Some(v) => v,
        None => panic!("no {key}"),
    }
}

/// The error of a document that must be refused.
fn refused(doc: &[u8], fallback: Option<&Value>) -> BlocklistDocError {
    match validate(doc, fallback) {
        Ok(list) => panic!("adopted: {list:?}"),
        Err(e) => e,
    }
}

/// The distinct pointers of a schema refusal, in order.
fn violations(err: &BlocklistDocError) -> Vec<&str> {
    match err {
        BlocklistDocError::Invalid { violations, .. } => {
            // One value can break several keywords (pattern and format).
            let mut pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
            pointers.dedup();
            pointers
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn r3c_shipped_document_is_adopted_with_its_inline_schema() {
    let (list, source) = match validate_detailed(&operator("blocklist.json"), None) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(source, SchemaSource::Inline);
    assert_eq!(list.contract(), "walsh-research-blocklist/v1");
    assert_eq!(list.updated(), "2026-05-23T00:00:00Z");
    assert_eq!(list.refresh().as_secs(), 6 * 3600);
    assert_eq!(list.len(), 1);
    let entry = &list.entries()[0];
    assert_eq!(
        (
            entry.domain.as_str(),
            entry.added.as_str(),
            entry.reason.as_str()
        ),
        ("example.com", "2026-05-23", "email opt-out")
    );
    // Section 12.3, through the adopted list.
    assert!(list.blocked_by("www.EXAMPLE.com:8443").is_some());
    assert!(list.blocked_by("notexample.com").is_none());
}

#[test]
fn r3c_inline_schema_is_the_standalone_schema() {
    let doc = json_of("blocklist.json");
    assert_eq!(doc.get("schema"), Some(&json_of("blocklist.schema.json")));
}

#[test]
fn r3c_missing_required_field_is_refused() {
    let doc = edited(|d| {
        d.as_object_mut().map(|o| o.remove("updated"));
    });
    let err = refused(&doc, None);
    assert_eq!(violations(&err), [""]);
    assert!(
        err.to_string()
            .contains("\"updated\" is a required property"),
        "{err}"
    );

    let doc = edited(|d| {
        field(d, "blocked")[0]
            .as_object_mut()
            .map(|o| o.remove("domain"));
    });
    assert_eq!(violations(&refused(&doc, None)), ["/blocked/0"]);
}

#[test]
fn r3c_wrong_type_is_refused() {
    let doc = edited(|d| *field(d, "blocked") = json!({"domain": "example.com"}));
    assert_eq!(violations(&refused(&doc, None)), ["/blocked"]);
    let doc = edited(|d| *field(d, "refresh") = json!(21600));
    assert_eq!(violations(&refused(&doc, None)), ["/refresh"]);
}

#[test]
fn r3c_formats_are_asserted() {
    let doc = edited(|d| *field(d, "updated") = json!("yesterday"));
    let err = refused(&doc, None);
    assert_eq!(violations(&err), ["/updated"]);
    assert!(err.to_string().contains("date-time"), "{err}");

    let doc = edited(|d| *field(d, "updated") = json!("2026-05-23 00:00:00"));
    assert_eq!(violations(&refused(&doc, None)), ["/updated"]);
    let doc = edited(|d| field(d, "blocked")[0]["added"] = json!("2026-13-45"));
    assert_eq!(violations(&refused(&doc, None)), ["/blocked/0/added"]);
    let doc = edited(|d| field(d, "blocked")[0]["domain"] = json!("exa mple.com"));
    assert_eq!(violations(&refused(&doc, None)), ["/blocked/0/domain"]);
    let doc = edited(|d| *field(d, "contact") = json!("not an email"));
    assert_eq!(violations(&refused(&doc, None)), ["/contact"]);
    let doc = edited(|d| *field(d, "refresh") = json!("6 hours"));
    assert_eq!(violations(&refused(&doc, None)), ["/refresh"]);
}

#[test]
fn r3c_unknown_top_level_key_is_refused() {
    let doc = edited(|d| d["extra"] = json!(1));
    assert_eq!(violations(&refused(&doc, None)), [""]);
}

#[test]
fn r3c_violations_are_capped_and_all_reported_with_pointers() {
    let doc = edited(|d| {
        *field(d, "updated") = json!("x");
        *field(d, "contact") = json!("x");
        *field(d, "policy") = json!("not a uri");
        *field(d, "blocked") = json!((0..20).map(|_| json!({"domain": 1})).collect::<Vec<_>>());
    });
    match refused(&doc, None) {
        BlocklistDocError::Invalid {
            schema,
            violations,
            more,
        } => {
            assert_eq!(schema, SchemaSource::Inline);
            assert_eq!(violations.len(), MAX_REPORTED_ERRORS);
            assert!(more);
            assert!(violations.iter().all(|v| v.pointer.starts_with('/')));
            assert!(violations.iter().all(|v| !v.message.is_empty()));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn r3c_unknown_contract_major_is_refused() {
    let doc = edited(|d| *field(d, "contract") = json!("walsh-research-blocklist/v2"));
    let err = refused(&doc, None);
    assert_eq!(
        err,
        BlocklistDocError::Contract(BlocklistError::UnknownMajor(2))
    );
    assert!(err.to_string().contains("v2"), "{err}");
    // A minor of the known major is fine (section 4: minors are additive).
    let doc = edited(|d| *field(d, "contract") = json!("walsh-research-blocklist/v1.4"));
    assert!(validate(&doc, None).is_ok());
}

#[test]
fn r10_calendar_refresh_is_adopted_at_its_shortest_length() {
    // Issue #11: "P1M" and "P1Y" are schema-valid ISO 8601; refusing the
    // document whole left a fresh install with no list. They are read at
    // their shortest length (28 and 365 days), never caching longer than
    // the operator wrote.
    for (refresh, days) in [("P1M", 28), ("P1Y", 365)] {
        let doc = edited(|d| *field(d, "refresh") = json!(refresh));
        let list = validate(&doc, None).expect(refresh);
        assert_eq!(
            list.refresh(),
            Duration::from_secs(days * 86_400),
            "{refresh}"
        );
    }
}

#[test]
fn r3c_a_refresh_naming_no_length_is_refused() {
    // "P" matches the schema's pattern (every part is optional) but names
    // no length of time at all.
    let doc = edited(|d| *field(d, "refresh") = json!("P"));
    assert!(validate(&doc, None).is_err());
}

#[test]
fn r3c_invalid_json_reports_line_and_column() {
    let err = refused(
        b"{\n  \"contract\": \"walsh-research-blocklist/v1\",\n  oops\n}",
        None,
    );
    match &err {
        BlocklistDocError::Json { line, column, .. } => assert_eq!((*line, *column), (3, 3)),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "blocklist is not valid JSON (line 3, column 3): key must be a string"
    );
    assert!(matches!(refused(b"", None), BlocklistDocError::Json { .. }));
    assert!(matches!(
        refused(b"<html>404</html>", None),
        BlocklistDocError::Json { .. }
    ));
}

#[test]
fn r10_no_inline_schema_and_no_fallback_is_never_adopted() {
    let doc = edited(|d| {
        d.as_object_mut().map(|o| o.remove("schema"));
    });
    let err = refused(&doc, None);
    assert_eq!(err, BlocklistDocError::NoSchema);
    assert!(err.to_string().contains("cannot validate"), "{err}");
    // Arbitrary JSON without a schema: same.
    assert_eq!(refused(b"[1, 2, 3]", None), BlocklistDocError::NoSchema);
    assert_eq!(refused(b"{}", None), BlocklistDocError::NoSchema);
}

#[test]
fn r10_no_inline_schema_validates_against_the_fallback() {
    let schema = json_of("blocklist.schema.json");
    let doc = edited(|d| {
        d.as_object_mut().map(|o| o.remove("schema"));
    });
    match validate_detailed(&doc, Some(&schema)) {
        Ok((list, source)) => {
            assert_eq!(source, SchemaSource::Fallback);
            assert_eq!(list.len(), 1);
        }
        Err(e) => panic!("{e}"),
    }
    // The fallback is really applied: a bad date is refused through it.
    let bad = edited(|d| {
        d.as_object_mut().map(|o| o.remove("schema"));
        *field(d, "updated") = json!("soon");
    });
    match refused(&bad, Some(&schema)) {
        BlocklistDocError::Invalid { schema, .. } => assert_eq!(schema, SchemaSource::Fallback),
        other => panic!("{other:?}"),
    }
    // Arbitrary JSON against the fallback is refused, not adopted.
    assert!(matches!(
        refused(b"[1, 2, 3]", Some(&schema)),
        BlocklistDocError::Invalid { .. }
    ));
}

#[test]
fn r10_inline_schema_wins_over_the_fallback() {
    // A fallback that would refuse everything is not consulted.
    let never = json!({"not": {}});
    assert!(validate(&operator("blocklist.json"), Some(&never)).is_ok());
}

#[test]
fn r3c_invalid_inline_schema_is_refused() {
    // Not a valid Draft 2020-12 schema.
    let doc = edited(|d| *field(d, "schema") = json!({"type": "no-such-type"}));
    let err = refused(&doc, None);
    assert!(
        matches!(
            err,
            BlocklistDocError::BadSchema {
                schema: SchemaSource::Inline,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("blocklist inline schema is unusable"),
        "{err}"
    );
    // A boolean schema would accept anything: refused.
    let doc = edited(|d| *field(d, "schema") = json!(true));
    assert!(matches!(
        refused(&doc, None),
        BlocklistDocError::BadSchema { .. }
    ));
    let doc = edited(|d| *field(d, "schema") = json!("https://wal.sh/schema.json"));
    assert!(matches!(
        refused(&doc, None),
        BlocklistDocError::BadSchema { .. }
    ));
    // A bad pattern.
    let doc = edited(|d| {
        *field(d, "schema") =
            json!({"type": "object", "properties": {"contract": {"pattern": "("}}})
    });
    assert!(matches!(
        refused(&doc, None),
        BlocklistDocError::BadSchema { .. }
    ));
}

#[test]
fn r3c_permissive_schema_still_needs_a_blocklist_shape() {
    let doc = br#"{"schema": {"type": "object"}, "contract": "walsh-research-blocklist/v1"}"#;
    let err = refused(doc, None);
    assert!(
        matches!(err, BlocklistDocError::NotABlocklist(_)),
        "{err:?}"
    );
    assert!(err.to_string().contains("blocked"), "{err}");
    let doc = br#"{"schema": {}, "contract": "walsh-research-blocklist/v1", "blocked": [{"domain": ""}]}"#;
    assert!(matches!(
        refused(doc, None),
        BlocklistDocError::Contract(BlocklistError::EmptyDomain { index: 0 })
    ));
}

#[test]
fn remote_refs_fail_cleanly_without_network() {
    // Unroutable and unresolvable targets: if anything tried the network
    // this would hang or take seconds, not fail at once.
    for target in [
        "https://192.0.2.1/blocklist.schema.json",
        "http://schema.invalid/x.json#/defs/a",
        "file:///etc/passwd",
    ] {
        let schema = json!({"$ref": target});
        let started = std::time::Instant::now();
        let err = match compile_schema(&schema) {
            Ok(_) => panic!("{target}: compiled"),
            Err(e) => e,
        };
        assert!(started.elapsed().as_secs() < 2, "{target}");
        assert!(
            matches!(err, BlocklistDocError::BadSchema { .. }),
            "{err:?}"
        );
    }
    // `$schema` and `$id` naming URLs do not trigger a fetch either.
    let schema = json_of("blocklist.schema.json");
    assert!(compile_schema(&schema).is_ok());
    // Even an unknown meta-schema is not fetched: the draft is forced to
    // 2020-12, so `$schema` is not consulted.
    let odd = json!({"$schema": "https://meta.invalid/schema", "type": "object"});
    assert!(compile_schema(&odd).is_ok());
}

#[test]
fn the_draft_is_2020_12_whatever_the_schema_says() {
    // Under draft-07 `$defs` is not a keyword and a $ref sibling is ignored;
    // under 2020-12 `dependentRequired` works. Check the latter applies.
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "dependentRequired": {"refresh": ["updated"]}
    });
    let compiled = match compile_schema(&schema) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    assert!(compiled
        .check(&json!({"refresh": "PT1H"}), SchemaSource::Fallback)
        .is_err());
}

#[test]
fn hostile_documents_are_errors_not_panics() {
    // Nesting beyond serde_json's recursion limit.
    let deep = "[".repeat(100_000);
    assert!(matches!(
        refused(deep.as_bytes(), None),
        BlocklistDocError::Json { .. }
    ));
    let deep_obj = "{\"a\":".repeat(10_000) + "1" + &"}".repeat(10_000);
    assert!(matches!(
        refused(deep_obj.as_bytes(), None),
        BlocklistDocError::Json { .. }
    ));
    // Garbage bytes, invalid UTF-8, a huge flat array.
    assert!(validate(&[0xff, 0xfe, 0x00, 0x7b], None).is_err());
    let huge = format!("[{}1]", "1,".repeat(200_000));
    assert_eq!(refused(huge.as_bytes(), None), BlocklistDocError::NoSchema);
    let schema = json_of("blocklist.schema.json");
    assert!(validate(huge.as_bytes(), Some(&schema)).is_err());
    // A schema nested deeply (within the JSON limit) and self-referencing.
    let mut nested = json!({"type": "object"});
    for _ in 0..60 {
        nested = json!({"properties": {"a": nested}});
    }
    let _ = compile_schema(&nested);
    let recursive = json!({"$ref": "#", "type": "object"});
    if let Ok(c) = compile_schema(&recursive) {
        let _ = c.check(&json!({}), SchemaSource::Fallback);
    }
    // Escape sequences in values do not reach error messages raw.
    let doc = edited(|d| *field(d, "updated") = json!("\u{1b}]52;c;cHduZWQ=\u{7}x"));
    let err = refused(&doc, None).to_string();
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    // Many entries: fine.
    let doc = edited(|d| {
        *field(d, "blocked") = json!((0..5000)
            .map(
                |i| json!({"domain": format!("d{i}.example"), "added": "2026-05-23", "reason": "r"})
            )
            .collect::<Vec<_>>());
    });
    assert_eq!(validate(&doc, None).map(|l| l.len()).ok(), Some(5000));
}

#[test]
fn fixtures_section_13_document_is_parsed() {
    let fx = match parse_fixtures(&operator("test-fixtures.json")) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(fx.contract, "walsh-research-test-fixtures/v1");
    assert_eq!(fx.updated, "2026-05-23T00:00:00Z");
    assert_eq!(
        fx.robots_allowed_sentinel,
        "https://wal.sh/research/bots/dogfood-allow"
    );
    assert_eq!(
        fx.robots_disallowed,
        "https://wal.sh/research/bots/dogfood-disallow"
    );
    assert_eq!(
        fx.walsh_only_allowed,
        "https://wal.sh/research/bots/dogfood-walsh-only"
    );
    assert_eq!(fx.external_positive, "https://pypi.org/project/jsonschema/");
    assert_eq!(fx.operator_blocked_host, "example.com");
    assert_eq!(fx.flaky_429_endpoint, None);
    assert!(fx.other_fixtures.is_empty());
    assert_eq!(
        fx.notes.get("flaky_429_endpoint").map(String::as_str),
        Some("no live R5 fixture; tools SHOULD use a local mock")
    );
}

fn fixtures_edited(
    edit: impl FnOnce(&mut Value),
) -> Result<wr_feeds::blocklist_doc::TestFixtures, FixturesError> {
    let mut doc = json_of("test-fixtures.json");
    edit(&mut doc);
    parse_fixtures(doc.to_string().as_bytes())
}

#[test]
fn fixtures_contract_and_shape_are_checked() {
    assert_eq!(
        fixtures_edited(|d| d["contract"] = json!("walsh-research-test-fixtures/v2")).err(),
        Some(FixturesError::UnknownMajor(2))
    );
    assert!(
        fixtures_edited(|d| d["contract"] = json!("walsh-research-test-fixtures/v1.1")).is_ok()
    );
    assert!(matches!(
        fixtures_edited(|d| d["contract"] = json!("walsh-research-blocklist/v1")),
        Err(FixturesError::MalformedContract(_))
    ));
    assert!(matches!(
        fixtures_edited(|d| {
            d["fixtures"]
                .as_object_mut()
                .map(|o| o.remove("robots_disallowed"));
        }),
        Err(FixturesError::Shape(_))
    ));
    assert!(matches!(
        fixtures_edited(|d| d["fixtures"]["external_positive"] = json!("javascript:alert(1)")),
        Err(FixturesError::BadFixture { .. })
    ));
    assert!(matches!(
        fixtures_edited(|d| d["fixtures"]["operator_blocked_host"] = json!("https://example.com/")),
        Err(FixturesError::BadFixture { .. })
    ));
    // An additive minor's new fixture is kept, not refused.
    let fx = fixtures_edited(|d| {
        d["fixtures"]["lab_canary"] = json!("https://wal.sh/research/bots/lab/")
    });
    assert_eq!(fx.map(|f| f.other_fixtures.len()).ok(), Some(1));
    assert!(matches!(
        parse_fixtures(b"{"),
        Err(FixturesError::Json { line: 1, .. })
    ));
    assert!(parse_fixtures(&"[".repeat(100_000).into_bytes()).is_err());
}

#[test]
fn r3_a_zero_refresh_is_adopted_and_read_as_the_floor() {
    // Issue #18: "PT0S" is schema-valid; taken as written it livelocked
    // every run. It is adopted (the schema allows it) and read as the floor.
    let doc = edited(|d| *field(d, "refresh") = json!("PT0S"));
    let list = validate(&doc, None).expect("PT0S is schema-valid");
    assert_eq!(list.refresh(), wr_core::constants::BLOCKLIST_REFRESH_FLOOR);
    assert_eq!(list.refresh_as_written(), Duration::ZERO);
}
