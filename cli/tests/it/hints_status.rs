//! Issue #23 through the binary: a publisher's hint holds a source back,
//! the digest and `status` say until when and why, `--force` says what it
//! overrides.

use crate::common;

use common::*;

const RSS: &str = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>\
<link>http://paced.test/</link><ttl>120</ttl>\
<item><title>One</title><link>http://paced.test/1</link></item></channel></rss>";

#[test]
fn a_hint_is_obeyed_shown_and_overridden_by_force() {
    let op = Operator::start(CANARY_ROBOTS);
    let paced = Host::start("paced.test");
    paced.route(
        "/feed.xml",
        Route::ok("application/rss+xml", RSS)
            .with_validators("\"p1\"", "Sat, 23 May 2026 00:00:00 GMT"),
    );
    let pubs = [paced];
    let hosts = op.with(&pubs);
    let tmp = TempDir::new("hints");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Paced\"\nurl = \"http://paced.test/\"\nfeed = \"http://paced.test/feed.xml\"\n",
    );
    let src = src.to_str().unwrap();

    let o = wr(&state, &hosts, &[src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Within the ttl's two hours: skipped, and the digest says by what.
    let o = wr(&state, &hosts, &[src]);
    let md = stdout(&o);
    assert!(
        md.contains("*skipped: fetched 20")
            && md.contains("the publisher asks for no fetch before 20")
            && md.contains("\\(RSS ttl\\); --force fetches it anyway*"),
        "{md}"
    );
    assert_eq!(pubs[0].requests_to("/feed.xml").len(), 1);

    // status shows it.
    let o = wr(&state, &hosts, &["status", src]);
    let out = stdout(&o);
    assert!(
        out.contains("next fetch not before 20") && out.contains("(RSS ttl; --force overrides)"),
        "{out}"
    );
    let o = wr(&state, &hosts, &["status", "--json", src]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sources"][0]["next_fetch_by"], "RSS ttl");

    // --force fetches it and says what it overrides.
    let o = wr(&state, &hosts, &["--force", src]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("Paced: --force fetches it now, overriding the publisher's hint (RSS ttl): not due before "),
        "{err}"
    );
    assert_eq!(pubs[0].requests_to("/feed.xml").len(), 2);
}
