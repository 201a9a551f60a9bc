//! Issue #19 end to end: the built `wr-feeds` binary against a loopback
//! publisher whose feeds a reader reads but a strict parser would not, or
//! would read wrong. The digest lists titles as a reader shows them, and
//! the digest and `status` say which feed needed repairs and which listed
//! nothing.

use crate::common;

use common::*;

/// Atom 1.0: an HTML title (escaped twice for the `&`) and an XHTML one.
const ATOM: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>t</title><id>urn:t</id><updated>2026-05-20T00:00:00Z</updated>
  <entry>
    <title type="html">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more</title>
    <id>urn:1</id><updated>2026-05-20T00:00:00Z</updated>
    <link href="/bold"/>
  </entry>
  <entry>
    <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">An <em>XHTML</em> title</div></title>
    <id>urn:2</id><updated>2026-05-19T00:00:00Z</updated>
    <link href="/xhtml"/>
  </entry>
</feed>"#;

/// WordPress-style RSS 2.0: a title escaped twice, a bare `&` in a link
/// and an HTML entity in XML (not well-formed: read after repairs).
const WORDPRESS: &str =
    "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>wp</title>\n\
<item><title>It&amp;#8217;s here</title><link>http://titles.test/?p=1&b=2</link></item>\n\
<item><title>Caf&eacute;&nbsp;open</title><link>http://titles.test/?p=2</link></item>\n\
</channel></rss>\n";

/// Atom 0.3, which a reader that knows only Atom 1.0 reads as empty.
const ATOM03: &str = r#"<?xml version="1.0"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#">
  <title>old</title>
  <entry>
    <title mode="escaped" type="text/html">Old &amp;amp; &lt;i&gt;escaped&lt;/i&gt;</title>
    <link rel="alternate" type="text/html" href="http://titles.test/old"/>
    <issued>2004-01-01T00:00:00Z</issued>
  </entry>
</feed>"#;

/// A well-formed feed that lists nothing.
const EMPTY: &str =
    "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>e</title></channel></rss>";

const SOURCES: &str = r#"
[[source]]
name = "Atom"
url = "http://titles.test/"
feed = "http://titles.test/atom.xml"

[[source]]
name = "WordPress"
url = "http://titles.test/wp"
feed = "http://titles.test/wp.xml"

[[source]]
name = "Atom 0.3"
url = "http://titles.test/old"
feed = "http://titles.test/old.xml"

[[source]]
name = "Empty"
url = "http://titles.test/empty"
feed = "http://titles.test/empty.xml"
"#;

fn section<'a>(md: &'a str, name: &str) -> &'a str {
    let start = md
        .find(&format!("\n## {name}\n"))
        .unwrap_or_else(|| panic!("no section {name}:\n{md}"));
    let rest = &md[start + name.len() + 5..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

#[test]
fn titles_read_as_a_reader_shows_them_and_repairs_are_said() {
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let site = Host::start("titles.test");
    site.route(
        "/robots.txt",
        Route::ok("text/plain", "User-agent: *\nAllow: /\n"),
    )
    .route("/atom.xml", Route::ok("application/atom+xml", ATOM))
    .route(
        "/wp.xml",
        Route::ok("application/rss+xml; charset=utf-8", WORDPRESS),
    )
    .route("/old.xml", Route::ok("application/atom+xml", ATOM03))
    .route("/empty.xml", Route::ok("application/rss+xml", EMPTY));
    let hosts = [&op.wal, &op.pypi, &site];
    let tmp = TempDir::new("titles");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();

    let o = wr(&state, &hosts, &[src]);
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    // Markdown escapes the `&` so that it renders as itself: the note
    // shows "Bold & more", not `<b>Bold</b> &amp; more`.
    let atom = section(&md, "Atom");
    assert!(
        atom.contains("\n- [Bold \\& more](http://titles.test/bold)\n"),
        "{md}"
    );
    assert!(
        atom.contains("\n- [An XHTML title](http://titles.test/xhtml)\n"),
        "{md}"
    );
    assert!(
        !atom.contains('*'),
        "a clean feed has nothing to say:\n{md}"
    );
    let wp = section(&md, "WordPress");
    assert!(
        wp.contains("\n- [It’s here](http://titles.test/?p=1&b=2)\n"),
        "{md}"
    );
    assert!(
        // &eacute; and &nbsp; read as HTML does; the no-break space is
        // whitespace to clean_title.
        wp.contains("\n- [Café open](http://titles.test/?p=2)\n"),
        "{md}"
    );
    assert!(
        wp.contains("*read after repairs: a bare '\\&' read as text at line 3, column"),
        "{md}"
    );
    assert!(wp.contains("HTML entity \\&eacute;"), "{md}");
    let old = section(&md, "Atom 0.3");
    assert!(
        old.contains("\n- [Old \\& escaped](http://titles.test/old)\n"),
        "{md}"
    );
    let empty = section(&md, "Empty");
    assert!(
        empty.contains("*zero entries: the RSS 2.0 document lists none*"),
        "{md}"
    );

    // JSON: the same titles, the notes as the section's reason.
    let o = wr(
        &state,
        &hosts,
        &["--all", "--force", "--format", "json", src],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let s = &v["sources"];
    assert_eq!(s[0]["items"][0]["title"], "Bold & more", "{v}");
    assert_eq!(s[0]["items"][1]["title"], "An XHTML title", "{v}");
    assert!(s[0]["reason"].is_null(), "{v}");
    assert_eq!(s[1]["items"][0]["title"], "It’s here", "{v}");
    assert_eq!(s[1]["status"], "ok");
    assert!(
        s[1]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("read after repairs: ")),
        "{v}"
    );
    assert_eq!(s[2]["items"][0]["title"], "Old & escaped", "{v}");
    assert_eq!(s[2]["items"][0]["published"], "2004-01-01T00:00:00Z");
    assert_eq!(
        s[3]["reason"], "zero entries: the RSS 2.0 document lists none",
        "{v}"
    );

    // `status` says it too, in its table and its JSON.
    let table = stdout(&wr(&state, &hosts, &["status", src]));
    assert!(table.contains("read after repairs: a bare '&'"), "{table}");
    assert!(
        table.contains("zero entries: the RSS 2.0 document lists none"),
        "{table}"
    );
    let o = wr(&state, &hosts, &["status", src, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(v["sources"][0]["note"].is_null(), "{v}");
    assert!(
        v["sources"][1]["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("read after repairs: ")),
        "{v}"
    );
    assert_eq!(v["sources"][1]["outcome"], "ok");
    assert_eq!(
        v["sources"][3]["note"],
        "zero entries: the RSS 2.0 document lists none"
    );
}
