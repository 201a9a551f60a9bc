//! Issue #23, end to end: filters (`[filters]`, a source's keep/drop) and
//! one link listed once across overlapping sources, with the built binary
//! against loopback publishers.

use crate::common;

use common::*;

fn rss(items: &[(&str, &str)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>\
         <link>http://x.test/</link><description>d</description>",
    );
    for (title, link) in items {
        s.push_str(&format!(
            "<item><title>{title}</title><link>{link}</link></item>"
        ));
    }
    s.push_str("</channel></rss>");
    s
}

/// Two publishers whose feeds share a link (written differently: case,
/// default port, fragment), and a third that repeats one of them.
fn sites() -> (Operator, Vec<Host>) {
    let op = Operator::start(CANARY_ROBOTS);
    let a = Host::start("a.test");
    a.route(
        "/feed.xml",
        Route::ok(
            "application/rss+xml",
            rss(&[
                ("Rust 1.90 released", "http://news.test/rust-190"),
                ("SPONSORED: a VPN", "http://a.test/ad"),
                ("Python 4", "http://news.test/py4"),
            ]),
        ),
    );
    let b = Host::start("b.test");
    b.route(
        "/feed.xml",
        Route::ok(
            "application/rss+xml",
            rss(&[
                ("Rust 1.90 is out", "HTTP://NEWS.test:80/rust-190#comments"),
                ("Go 2", "http://news.test/go2"),
                ("Cooking tips", "http://b.test/cook"),
            ]),
        ),
    );
    let c = Host::start("c.test");
    c.route(
        "/feed.xml",
        Route::ok(
            "application/rss+xml",
            rss(&[("Python 4!", "http://news.test/py4")]),
        ),
    );
    (op, vec![a, b, c])
}

const SOURCES: &str = r#"
[filters]
drop = ["sponsored"]

[[source]]
name = "Alpha"
url = "http://a.test/"
feed = "http://a.test/feed.xml"

[[source]]
name = "Beta"
url = "http://b.test/"
feed = "http://b.test/feed.xml"
keep = ["rust|go"]

[[source]]
name = "Gamma"
url = "http://c.test/"
feed = "http://c.test/feed.xml"
"#;

#[test]
fn filters_drop_and_each_link_is_listed_once() {
    let (op, pubs) = sites();
    let hosts = op.with(&pubs);
    let tmp = TempDir::new("refine");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();

    let o = wr(&state, &hosts, &[src]);
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "3 sources: 3 ok; 7 new items (2 filtered out, 2 listed under an earlier source); "
        ),
        "{}",
        stderr(&o)
    );
    // Each link once, under the first source in file order.
    for link in ["news.test/rust-190", "news.test/py4"] {
        assert_eq!(md.matches(link).count(), 1, "{link}:\n{md}");
    }
    assert!(
        md.contains("- [Rust 1.90 released](http://news.test/rust-190) (also in Beta)\n"),
        "{md}"
    );
    assert!(
        md.contains("- [Python 4](http://news.test/py4) (also in Gamma)\n"),
        "{md}"
    );
    // What each filter dropped.
    assert!(!md.contains("VPN") && !md.contains("Cooking"), "{md}");
    assert!(
        md.contains("*Filtered out 1: drop /sponsored/ \\(\\[filters\\]\\): 1*\n"),
        "{md}"
    );
    assert!(
        md.contains("*Filtered out 1: keep /rust\\|go/ \\(this source\\): 1*\n"),
        "{md}"
    );
    assert!(md.contains("- [Go 2](http://news.test/go2)\n"), "{md}");
    assert!(
        md.contains("\n## Gamma\n\n*1 item listed under an earlier source.*\n"),
        "{md}"
    );

    // `show` writes the day's digest again as it was written: filtered,
    // each link once.
    let shown = wr(&state, &hosts, &["show", src]);
    assert_eq!(stdout(&shown), md, "{}", stderr(&shown));
    let json = wr(&state, &hosts, &["--format", "json", src]);
    let shown = wr(&state, &hosts, &["show", "--format", "json", src]);
    assert_eq!(stdout(&shown), stdout(&json), "{}", stderr(&shown));

    // --all keeps the rule, in JSON too.
    let o = wr(
        &state,
        &hosts,
        &["--all", "--force", "--format", "json", src],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let urls: Vec<String> = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["items"].as_array().unwrap().clone())
        .map(|i| i["url"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        urls,
        [
            "http://news.test/rust-190",
            "http://news.test/py4",
            "http://news.test/go2"
        ],
        "{v:#}"
    );
    assert_eq!(
        v["sources"][0]["items"][0]["also_in"],
        serde_json::json!(["Beta"])
    );
    assert_eq!(
        v["sources"][0]["items"][1]["also_in"],
        serde_json::json!(["Gamma"])
    );
    assert_eq!(
        v["sources"][0]["filtered"],
        serde_json::json!([{"filter": "drop", "scope": "global", "patterns": ["sponsored"], "dropped": 1}])
    );
    assert_eq!(v["sources"][1]["filtered"][1]["filter"], "keep");
    assert_eq!(v["sources"][1]["filtered"][1]["dropped"], 1);
}

#[test]
fn a_bad_pattern_is_refused_before_any_request() {
    let (op, pubs) = sites();
    let hosts = op.with(&pubs);
    let tmp = TempDir::new("refine-bad");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        &SOURCES.replace("keep = [\"rust|go\"]", "keep = [\"rust|(go\"]"),
    );
    let o = wr(&state, &hosts, &[src.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("sources.toml:14:9: bad filter pattern `rust|(go`"),
        "{err}"
    );
    assert!(err.contains("unclosed group"), "{err}");
    assert!(
        hosts.iter().all(|h| h.requests().is_empty()),
        "nothing fetched"
    );
}
