//! Issue #23: a source's usage preferences (`Content-Signal`,
//! `Content-Usage`, `License` in its origin's robots.txt) reach what the
//! user sees of it: `status` and the JSON digest (`signals`), cleaned.

use crate::common;

use common::*;

#[test]
fn signals_reach_status_and_the_json_digest() {
    let op = Operator::start(CANARY_ROBOTS);
    let h = Host::start("signals.test");
    h.route(
        "/robots.txt",
        Route::ok(
            "text/plain",
            "User-agent: *\nContent-Signal: search=yes, ai-train=no\u{1b}[31m\nAllow: /\nContent-Usage: train-ai=n\n",
        ),
    )
    .route(
        "/feed.xml",
        Route::ok(
            "application/rss+xml",
            "<rss version=\"2.0\"><channel><title>t</title><item><title>a</title>\
             <link>http://signals.test/a</link></item></channel></rss>",
        ),
    );
    let quiet = Host::start("quiet.test");
    quiet.route(
        "/feed.xml",
        Route::ok(
            "application/rss+xml",
            "<rss version=\"2.0\"><channel><title>t</title><item><title>b</title>\
             <link>http://quiet.test/b</link></item></channel></rss>",
        ),
    );
    let pubs = [h, quiet];
    let hosts = op.with(&pubs);
    let tmp = TempDir::new("source-signals");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Signals\"\nurl = \"http://signals.test/\"\nfeed = \"http://signals.test/feed.xml\"\n\
         [[source]]\nname = \"Quiet\"\nurl = \"http://quiet.test/\"\nfeed = \"http://quiet.test/feed.xml\"\n",
    );
    let src = src.to_str().unwrap();

    let o = wr(&state, &hosts, &["--format", "json", src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let sig = &v["sources"][0]["signals"];
    assert_eq!(sig[0]["field"], "Content-Signal", "{v:#}");
    assert_eq!(sig[0]["line"], 2);
    let value = sig[0]["value"].as_str().unwrap();
    assert!(
        value.starts_with("search=yes, ai-train=no") && !value.contains('\u{1b}'),
        "{value:?}"
    );
    assert_eq!(sig[1]["field"], "Content-Usage");
    assert_eq!(v["sources"][1]["signals"], serde_json::json!([]));

    let o = wr(&state, &hosts, &["status", src]);
    let out = stdout(&o);
    assert!(
        out.contains("robots.txt Content-Signal: search=yes, ai-train=no")
            && out.contains("(line 2)"),
        "{out}"
    );
    assert!(
        out.contains("robots.txt Content-Usage: train-ai=n (line 4)"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'), "{out:?}");
    let o = wr(&state, &hosts, &["status", "--json", src]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sources"][0]["signals"][1]["field"], "Content-Usage");
    assert_eq!(v["sources"][1]["signals"], serde_json::json!([]));
}
