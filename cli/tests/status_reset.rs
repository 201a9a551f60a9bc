//! `wr-feeds status` and `wr-feeds reset` on a real state directory.

mod common;

use common::*;
use wr_core::time::Timestamp;

const SOURCES: &str = r#"
[[source]]
name = "Broken"
url = "http://broken.test/"
feed = "http://broken.test/gone.xml"
"#;

#[test]
fn status_shows_streaks_and_holds_and_reset_lifts_them() {
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let broken = Host::start("broken.test");
    broken
        .route("/robots.txt", Route::status(404))
        .route("/gone.xml", Route::status(404));
    let hosts = [&op.wal, &op.pypi, &broken];
    let tmp = TempDir::new("status");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    for _ in 0..2 {
        let o = wr(&state, &hosts, &["--force", "-q", src]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    }
    // A hold as a long Retry-After leaves it (R5), written as a run would.
    let far = Timestamp(4_102_444_800_000); // 2100-01-01
    wr_feeds::store::Store::open(&state)
        .unwrap()
        .hold("held.test", far, false)
        .unwrap();
    let before = broken.requests().len();

    let o = wr(&state, &hosts, &["status", src, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["sources"][0]["name"], "Broken");
    assert_eq!(v["sources"][0]["outcome"], "failed");
    assert_eq!(v["sources"][0]["error_streak"], 2);
    assert_eq!(v["held_hosts"][0]["host"], "held.test");
    assert_eq!(v["held_hosts"][0]["held_until"], "2100-01-01T00:00:00Z");
    assert!(v["blocklist"]["entries"].as_u64().is_some(), "{v}");
    let table = stdout(&wr(&state, &hosts, &["status", src]));
    assert!(table.contains("2 failed in a row"), "{table}");
    assert!(
        table.contains("`wr-feeds reset held.test` lifts it"),
        "{table}"
    );

    let o = wr(&state, &hosts, &["reset", "held.test", "Broken"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.contains("lifted the hold on host held.test (it was held until 2100-01-01T00:00:00Z)"),
        "{said}"
    );
    assert!(said.contains("source `Broken`"), "{said}");
    let v: serde_json::Value =
        serde_json::from_slice(&wr(&state, &hosts, &["status", src, "--json"]).stdout).unwrap();
    assert_eq!(v["held_hosts"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["sources"][0]["error_streak"], 0);
    assert!(v["sources"][0]["last_run"].is_null(), "{v}");

    let o = wr(&state, &hosts, &["reset", "nobody.test"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing to reset"), "{}", stderr(&o));
    assert_eq!(
        broken.requests().len(),
        before,
        "status and reset made a request"
    );
}
