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

    let o = wr(
        &state,
        &hosts,
        &["reset", "held.test", "Broken", "--sources", src],
    );
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

/// `export` writes OPML a feed reader (and `import`) reads back; `import`
/// reads a windows-1252 file by its declaration.
#[test]
fn export_and_import_round_trip_through_the_binary() {
    let tmp = TempDir::new("opml");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Café & co\"\nurl = \"https://a.test/\"\nfeed = \"https://a.test/feed.xml\"\ntags = [\"food\"]\n",
    );
    let opml = tmp.path().join("subs.opml");
    let o = wr(
        &state,
        &[],
        &[
            "export",
            src.to_str().unwrap(),
            "-o",
            opml.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let xml = std::fs::read_to_string(&opml).unwrap();
    assert!(xml.contains("text=\"Café &amp; co\""), "{xml}");
    let o = wr(&state, &[], &["import", opml.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let toml = stdout(&o);
    assert!(toml.contains("name = \"Café & co\""), "{toml}");
    assert!(
        toml.contains("feed = \"https://a.test/feed.xml\""),
        "{toml}"
    );

    // The same list saved by an old reader in windows-1252.
    let latin: Vec<u8> = xml
        .replace("UTF-8", "windows-1252")
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("Latin-1 text"))
        .collect();
    let old = tmp.path().join("old.opml");
    std::fs::write(&old, &latin).unwrap();
    let o = wr(&state, &[], &["import", old.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("name = \"Café & co\""),
        "{}",
        stdout(&o)
    );
}

/// Issue #12: renaming a source reset its R8 hour and listed every item
/// as new again, because history was keyed by name. It is keyed by the
/// canonical URL now: the renamed source is still within its hour.
#[test]
fn renaming_a_source_keeps_its_hour_and_its_items() {
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let blog = Host::start("blog.test");
    blog.route("/robots.txt", Route::status(404)).route(
        "/rss.xml",
        Route::ok("application/rss+xml", data("feeds/rss_1.0_spec_1.xml")),
    );
    let hosts = [&op.wal, &op.pypi, &blog];
    let tmp = TempDir::new("rename");
    let state = tmp.path().join("state");
    let entry = |name: &str| {
        format!("[[source]]\nname = \"{name}\"\nurl = \"http://blog.test/\"\nfeed = \"http://blog.test/rss.xml\"\n")
    };
    let src = tmp.write("sources.toml", &entry("Blog"));
    let o = wr(&state, &hosts, &[src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let src = tmp.write("sources.toml", &entry("My blog"));
    let o = wr(&state, &hosts, &[src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.contains("## My blog\n\n*skipped: fetched less than an hour ago"),
        "{md}"
    );
    assert_eq!(
        blog.requests_to("/rss.xml").len(),
        1,
        "R8 kept across the rename"
    );
    let v: serde_json::Value = serde_json::from_slice(
        &wr(&state, &hosts, &["status", src.to_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(v["sources"][0]["name"], "My blog");
    assert_eq!(v["sources"][0]["items_seen"], 2, "{v}");
}
