//! Feed extraction (R6, R7, R9): RSS 0.9x / 1.0 / 2.0, Atom and JSON Feed
//! into titles and http(s) links, resolved against `xml:base` and the final
//! URL, de-duplicated by canonical URL, deterministic.

use std::path::Path;
use wr_feeds::extract::{feed, feed_with_stats, ExtractError, Item};

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/feeds")
        .join(name);
    match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => panic!("reading {}: {e}", path.display()),
    }
}

fn pairs(items: &[Item]) -> Vec<(&str, &str)> {
    items
        .iter()
        .map(|i| (i.title.as_str(), i.url.as_str()))
        .collect()
}

fn extract(xml: &str, final_url: &str) -> Vec<Item> {
    match feed(xml.as_bytes(), final_url) {
        Ok(items) => items,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn rss_091() {
    let items = feed(&data("rss_0.91_spec_1.xml"), "http://writetheweb.com/rss").unwrap();
    assert_eq!(
        pairs(&items),
        [
            (
                "Giving the world a pluggable Gnutella",
                "http://writetheweb.com/read.php?item=24"
            ),
            (
                "Syndication discussions hot up",
                "http://writetheweb.com/read.php?item=23"
            ),
        ]
    );
}

#[test]
fn rss_092_items_without_links_are_skipped_and_counted() {
    let out =
        feed_with_stats(&data("rss_0.92_spec_1.xml"), "http://www.scripting.com/rss").unwrap();
    // Links inside descriptions are content, and the enclosure is a
    // sub-resource: neither becomes an item.
    assert_eq!(out.entries, 3);
    assert_eq!(out.skipped_no_link, 3);
    assert!(out.items.is_empty());
}

#[test]
fn rss_10() {
    let items = feed(
        &data("rss_1.0_spec_1.xml"),
        "http://www.xml.com/xml/news.rss",
    )
    .unwrap();
    assert_eq!(
        pairs(&items),
        [
            (
                "Processing Inclusions with XSLT",
                "http://xml.com/pub/2000/08/09/xslt/xslt.html"
            ),
            (
                "Putting RDF to Work",
                "http://xml.com/pub/2000/08/09/rdfdb/index.html"
            ),
        ]
    );
}

#[test]
fn rss_20_guid_permalinks_dedup_by_canonical_url() {
    let out = feed_with_stats(
        &data("rss_2.0_spec_1.xml"),
        "http://www.scripting.com/rss.xml",
    )
    .unwrap();
    // Two items, no <link>, no <title>; their guids differ only in the
    // fragment, so they share one canonical URL (section 10.2).
    assert_eq!(out.entries, 2);
    assert_eq!(out.duplicates, 1);
    assert_eq!(out.skipped_no_link, 0);
    let item = &out.items[0];
    assert_eq!(
        item.url,
        "http://scriptingnews.userland.com/backissues/2002/09/29#When:12:59:01PM"
    );
    assert_eq!(
        item.title, item.url,
        "a missing title falls back to the link"
    );
    assert_eq!(
        item.id,
        "http://scriptingnews.userland.com/backissues/2002/09/29"
    );
    assert_eq!(item.published.as_deref(), Some("2002-09-29T19:59:01Z"));
}

#[test]
fn rss_20_item_xml_base_and_dates() {
    let items = feed(
        &data("rss_2.0_relurl_1.xml"),
        "https://insanity.industries/index.xml",
    )
    .unwrap();
    assert_eq!(
        pairs(&items),
        [
            (
                "Pareto-optimal compression",
                "https://insanity.industries/post/pareto-optimal-compression/"
            ),
            (
                "Tracking leftover packages with pacman",
                "https://insanity.industries/post/pacman-tracking-leftover-packages/"
            ),
        ]
    );
    // "Tue, 02 Mar 2021 23:39:15 +0100" in UTC.
    assert_eq!(items[0].published.as_deref(), Some("2021-03-02T22:39:15Z"));
    assert_eq!(
        items[0].id,
        "https://insanity.industries/post/pareto-optimal-compression"
    );
}

#[test]
fn rss_20_podcast_links_not_enclosures() {
    let out = feed_with_stats(
        &data("rss_2.0_bbc.xml"),
        "https://podcasts.files.bbci.co.uk/b006qykl.rss",
    )
    .unwrap();
    assert_eq!(out.entries, out.items.len());
    assert_eq!(
        pairs(&out.items)[0],
        (
            "Marcus Aurelius",
            "http://www.bbc.co.uk/programmes/m000sjxt"
        )
    );
    assert!(out.items.iter().all(|i| !i.url.ends_with(".mp3")));
    assert_eq!(
        out.items[0].published.as_deref(),
        Some("2021-02-25T10:15:00Z")
    );
}

#[test]
fn a_feed_cut_before_its_first_entry_is_unreadable_where_it_ends() {
    let err = feed(
        &data("rss_2.0_invalid_1.xml"),
        "https://www.reuters.com/rss",
    )
    .unwrap_err();
    assert_eq!(
        err,
        ExtractError::Unreadable {
            line: 19,
            column: 85,
            reason: "the document ends inside <channel>".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "unreadable feed at line 19, column 85: the document ends inside <channel>"
    );
}

#[test]
fn atom() {
    let items = feed(&data("atom_spec_1.xml"), "http://example.org/feed.atom").unwrap();
    assert_eq!(
        pairs(&items),
        [(
            "Atom-Powered Robots Run Amok",
            "http://example.org/2003/12/13/atom03"
        )]
    );
    assert_eq!(items[0].published.as_deref(), Some("2003-12-13T18:30:02Z"));
}

#[test]
fn atom_relative_links_resolve_against_the_final_url() {
    // The feed's final URL after redirects, not the URL first requested.
    let items = feed(
        &data("atom_relative.xml"),
        "https://mirror.example.net/blog/feed.xml",
    )
    .unwrap();
    assert_eq!(
        pairs(&items),
        [(
            "Atom-Powered Robots Run Amok",
            "https://mirror.example.net/blog/2003/12/13/atom03"
        )]
    );
}

#[test]
fn an_atom_entry_without_a_link_falls_back_to_its_http_id() {
    let out = feed_with_stats(&data("atom_xml_base.xml"), "https://numi.st/feed.xml").unwrap();
    // The entry's only URL is its <id>: an absolute http(s) id is its
    // page, as an RSS guid is (issue #19).
    assert_eq!(
        (out.entries, out.skipped_no_link, out.items.len()),
        (1, 0, 1)
    );
    assert_eq!(
        pairs(&out.items),
        [(
            "my cool entry title",
            "https://numi.st/post/2022/travel-uke"
        )]
    );
}

#[test]
fn json_feed() {
    let items = feed(
        &data("jsonfeed_spec_1.json"),
        "https://jsonfeed.org/feed.json",
    )
    .unwrap();
    assert_eq!(
        pairs(&items),
        [(
            "Announcing JSON Feed",
            "https://jsonfeed.org/2017/05/17/announcing_json_feed"
        )]
    );
    assert_eq!(items[0].published.as_deref(), Some("2017-05-17T15:02:12Z"));

    // `url` wins over `external_url`.
    let items = feed(
        &data("jsonfeed_example_1.json"),
        "https://daringfireball.net/feeds/json",
    )
    .unwrap();
    assert_eq!(
        pairs(&items)[0],
        (
            "How Jeff Bezos’s iPhone X Was Hacked",
            "https://daringfireball.net/linked/2020/01/24/bezos-iphone-x"
        )
    );
}

#[test]
fn xml_base_nests_and_relative_links_resolve() {
    let atom = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://base.test/blog/">
  <title>t</title><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>
  <entry><title>relative to feed base</title><id>urn:1</id><updated>2024-01-01T00:00:00Z</updated>
    <link href="posts/one"/></entry>
  <entry xml:base="https://other.test/a/b/"><title>entry base</title><id>urn:2</id><updated>2024-01-01T00:00:00Z</updated>
    <link href="../two"/></entry>
  <entry xml:base="sub/"><title>relative base</title><id>urn:3</id><updated>2024-01-01T00:00:00Z</updated>
    <link href="three"/></entry>
  <entry><title>root relative</title><id>urn:4</id><updated>2024-01-01T00:00:00Z</updated>
    <link href="/four?x=1#f"/></entry>
</feed>"#;
    assert_eq!(
        pairs(&extract(atom, "https://fetched.test/feed.xml")),
        [
            ("relative to feed base", "https://base.test/blog/posts/one"),
            ("entry base", "https://other.test/a/two"),
            ("relative base", "https://base.test/blog/sub/three"),
            ("root relative", "https://base.test/four?x=1#f"),
        ]
    );
}

#[test]
fn rss_relative_links_resolve_against_the_final_url() {
    let rss = r#"<rss version="2.0"><channel><title>t</title><link>/</link>
<item><title>rel</title><link>/posts/1</link></item>
<item><title>dot</title><link>../2</link></item>
</channel></rss>"#;
    assert_eq!(
        pairs(&extract(rss, "https://final.test/feeds/main.xml")),
        [
            ("rel", "https://final.test/posts/1"),
            ("dot", "https://final.test/2"),
        ]
    );
}

#[test]
fn json_feed_relative_urls_resolve_against_the_final_url() {
    let json = r#"{"version":"https://jsonfeed.org/version/1.1","title":"t","items":[
        {"id":"1","url":"/p/1","title":"one"},
        {"id":"2","title":"no url, attachment only","attachments":[{"url":"https://cdn.test/a.mp3","mime_type":"audio/mpeg"}]},
        {"id":"3","external_url":"https://elsewhere.test/x","title":"external only"}
    ]}"#;
    let out = feed_with_stats(json.as_bytes(), "https://j.test/feed.json").unwrap();
    assert_eq!(
        pairs(&out.items),
        [
            ("one", "https://j.test/p/1"),
            ("external only", "https://elsewhere.test/x"),
        ]
    );
    assert_eq!(out.skipped_no_link, 1);
}

#[test]
fn only_http_links_leave() {
    let rss = r#"<rss version="2.0"><channel><title>t</title><link>https://s.test/</link>
<item><title>js</title><link>javascript:alert(1)</link></item>
<item><title>data</title><link>data:text/html,&lt;b&gt;x&lt;/b&gt;</link></item>
<item><title>mail</title><link>mailto:me@s.test</link></item>
<item><title>ftp</title><link>ftp://s.test/file</link></item>
<item><title>file</title><link>file:///etc/passwd</link></item>
<item><title>js guid</title><guid>javascript:alert(2)</guid></item>
<item><title>ok</title><link>HTTPS://S.TEST/ok</link></item>
</channel></rss>"#;
    let out = feed_with_stats(rss.as_bytes(), "https://s.test/feed").unwrap();
    assert_eq!(pairs(&out.items), [("ok", "https://s.test/ok")]);
    assert_eq!(out.skipped_no_link, 6);
}

#[test]
fn atom_picks_the_alternate_link_not_self_or_enclosure() {
    let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>
  <entry><title>e</title><id>urn:1</id><updated>2024-02-03T04:05:06+02:00</updated><published>2024-02-01T00:00:00Z</published>
    <link rel="self" href="https://a.test/entry.atom"/>
    <link rel="enclosure" type="audio/mpeg" href="https://a.test/e.mp3"/>
    <link rel="edit" href="https://a.test/edit/1"/>
    <link rel="alternate" type="text/html" href="https://a.test/e.html"/>
  </entry>
  <entry><title>only self</title><id>urn:2</id><updated>2024-01-01T00:00:00Z</updated>
    <link rel="self" href="https://a.test/2.atom"/></entry>
</feed>"#;
    let out = feed_with_stats(atom.as_bytes(), "https://a.test/feed").unwrap();
    assert_eq!(pairs(&out.items), [("e", "https://a.test/e.html")]);
    assert_eq!(
        out.items[0].published.as_deref(),
        Some("2024-02-01T00:00:00Z")
    );
    assert_eq!(out.skipped_no_link, 1);
}

#[test]
fn titles_are_cleaned() {
    let rss = "<rss version=\"2.0\"><channel><title>t</title>\
<item><title>\u{1b}[31mred\u{1b}[0m  and\n\tspaced\u{202e}</title><link>https://c.test/1</link></item>\
<item><title>   </title><link>https://c.test/2</link></item>\
</channel></rss>";
    assert_eq!(
        pairs(&extract(rss, "https://c.test/feed")),
        [
            ("red and spaced", "https://c.test/1"),
            ("https://c.test/2", "https://c.test/2"),
        ]
    );
}

#[test]
fn output_is_deterministic_and_ids_are_canonical() {
    // Entries without ids: the item ids are canonical URLs, never
    // invented.
    let rss = r#"<rss version="2.0"><channel><title>t</title>
<item><title>a</title><link>HTTP://Example.TEST:80/A/</link></item>
<item><title>b</title><link>http://example.test/A</link></item>
</channel></rss>"#;
    let first = extract(rss, "http://example.test/feed");
    let second = extract(rss, "http://example.test/feed");
    assert_eq!(first, second);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].id, "http://example.test/A");
    assert_eq!(first[0].url, "http://example.test/A/");
}

#[test]
fn errors_name_what_failed() {
    let err = feed(b"<html><body>hi</body></html>", "https://h.test/").unwrap_err();
    assert!(err.to_string().starts_with("not a feed: "), "{err}");
    let err = feed(b"{\"not\": \"a feed\"}", "https://h.test/").unwrap_err();
    assert!(matches!(err, ExtractError::NotAFeed(_)), "{err:?}");
    let err = feed(b"", "https://h.test/").unwrap_err();
    assert!(matches!(err, ExtractError::NotAFeed(_)), "{err:?}");
    let err = feed(b"<rss version=\"2.0\"></rss>", "not a url").unwrap_err();
    assert!(matches!(err, ExtractError::BadBaseUrl { .. }), "{err:?}");
    assert!(err.to_string().contains("not a url"), "{err}");
}

#[test]
fn truncated_and_corrupted_feeds_never_panic() {
    for name in [
        "rss_0.91_spec_1.xml",
        "rss_1.0_spec_1.xml",
        "rss_2.0_relurl_1.xml",
        "atom_relative.xml",
        "jsonfeed_example_1.json",
    ] {
        let body = data(name);
        for cut in (0..body.len()).step_by(5) {
            let _ = feed(&body[..cut], "https://t.test/feed");
        }
        let mut flipped = body.clone();
        for i in (0..flipped.len()).step_by(11) {
            flipped[i] ^= 0x5a;
        }
        let _ = feed(&flipped, "https://t.test/feed");
    }
}

#[test]
fn a_date_with_no_rfc_3339_form_is_null() {
    // Issue #12: year 99999 came out as "+99999-01-01T00:00:00Z", which the
    // digest's schema (RFC 3339 or null) does not allow.
    let rss = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://a.example/</link>
<item><title>far</title><link>https://a.example/far</link><pubDate>Fri, 01 Jan 99999 00:00:00 GMT</pubDate></item>
<item><title>near</title><link>https://a.example/near</link><pubDate>Fri, 01 May 2026 10:00:00 GMT</pubDate></item>
</channel></rss>"#;
    let json = r#"{"version":"https://jsonfeed.org/version/1.1","title":"t","items":[
{"id":"1","url":"https://a.example/far","title":"far","date_published":"99999-01-01T00:00:00Z"},
{"id":"2","url":"https://a.example/near","title":"near","date_published":"2026-05-01T10:00:00Z"}]}"#;
    for doc in [rss, json] {
        let items = extract(doc, "https://a.example/feed");
        for i in &items {
            let p = i.published.as_deref();
            assert!(
                p.is_none_or(|d| d.len() == 20 && d.as_bytes()[..4].iter().all(u8::is_ascii_digit)),
                "{items:?}"
            );
        }
        assert!(
            items
                .iter()
                .any(|i| i.published.as_deref() == Some("2026-05-01T10:00:00Z")),
            "{items:?}"
        );
    }
}

/// An RSS 2.0 feed of `n` items, oldest first: item `i` is published on
/// the `i`-th day of a calendar of twelve 28-day months from 2000.
fn many_items_rss(n: usize) -> Vec<u8> {
    let mut s = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><link>https://a.test/</link><description>d</description>\n");
    for i in 0..n {
        let (y, d) = (2000 + i / 336, i % 336);
        s.push_str(&format!(
            "<item><title>i{i}</title><link>https://a.test/{i}</link><pubDate>{}</pubDate></item>\n",
            rfc2822(y, d)
        ));
    }
    s.push_str("</channel></rss>\n");
    s.into_bytes()
}

fn rfc2822(year: usize, day_of_year: usize) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (m, d) = (day_of_year / 28, day_of_year % 28 + 1);
    format!("{d:02} {} {year} 00:00:00 GMT", MONTHS[m.min(11)])
}

/// Issue #11: no item cap. A feed past `MAX_FEED_ITEMS` keeps its newest
/// items and says how many it dropped, below and above 1 MiB (where the
/// items kept are trimmed while the document is read).
#[test]
fn a_feed_past_the_item_cap_keeps_its_newest_items() {
    let cap = wr_feeds::extract::MAX_FEED_ITEMS;
    for n in [cap + 700, 12_000] {
        let body = many_items_rss(n);
        assert_eq!(body.len() > 1 << 20, n == 12_000, "{} bytes", body.len());
        let f = wr_feeds::extract::feed_with_stats(&body, "https://a.test/feed.xml").unwrap();
        assert_eq!(f.entries, n);
        assert_eq!(f.items.len(), cap);
        assert_eq!(f.capped, n - cap);
        // The newest are the last ones in this document, kept in order.
        let want: Vec<String> = (n - cap..n)
            .map(|i| format!("https://a.test/{i}"))
            .collect();
        let got: Vec<&str> = f.items.iter().map(|i| i.url.as_str()).collect();
        assert_eq!(got, want, "{n} items");
    }
}

/// A large Atom feed (over 1 MiB, 6,000 entries) keeps every rule: links
/// missing and repeated are counted, and the items kept are the feed's.
#[test]
fn a_large_atom_feed_keeps_every_rule() {
    let n = 6_000;
    let mut s = String::from("<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title><id>urn:x</id><updated>2020-01-01T00:00:00Z</updated>\n");
    for i in 0..n {
        // Every fifth entry repeats an earlier link; every seventh has none.
        let link = if i % 7 == 3 {
            String::new()
        } else {
            format!("<link href=\"/e/{}\"/>", if i % 5 == 4 { i - 1 } else { i })
        };
        s.push_str(&format!(
            "<entry><title>e{i} padding padding padding padding padding padding padding padding padding padding padding padding</title><id>urn:{i}</id><updated>2020-01-01T00:00:00Z</updated>{link}</entry>\n"
        ));
    }
    s.push_str("</feed>\n");
    assert!(s.len() > 1 << 20);
    let f = wr_feeds::extract::feed_with_stats(s.as_bytes(), "https://a.test/atom.xml").unwrap();
    assert_eq!(f.entries, n);
    let no_link = (0..n).filter(|i| i % 7 == 3).count();
    let dup = (0..n)
        .filter(|i| i % 5 == 4 && i % 7 != 3 && (i - 1) % 7 != 3)
        .count();
    assert_eq!(f.skipped_no_link, no_link);
    assert_eq!(f.duplicates, dup);
    assert_eq!(f.items.len() + f.capped, n - no_link - dup);
    assert!(f
        .items
        .iter()
        .all(|i| i.url.starts_with("https://a.test/e/")));
}

/// Issue #23: the channel's own pace (RSS `ttl`, the syndication module's
/// `sy:updatePeriod` / `sy:updateFrequency`, `skipHours`, `skipDays`) is
/// read as publisher hints; an `hour` or `day` outside its list, an
/// item's `ttl` or a value that does not parse gives none.
#[test]
fn channel_hints_are_read() {
    let rss = r#"<?xml version="1.0"?>
<rss version="2.0" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">
<channel><title>t</title><link>https://a.example/</link>
<ttl> 90 </ttl>
<sy:updatePeriod>Daily</sy:updatePeriod><sy:updateFrequency>2</sy:updateFrequency>
<skipHours><hour>0</hour><hour>23</hour><hour>24</hour><hour>x</hour></skipHours>
<skipDays><day>Saturday</day><day>sunday</day><day>Funday</day></skipDays>
<hour>5</hour>
<item><title>a</title><link>https://a.example/1</link><ttl>5</ttl></item>
</channel></rss>"#;
    let f = wr_feeds::extract::read_feed(rss.as_bytes(), "https://a.example/feed", None).unwrap();
    assert_eq!(f.items.len(), 1);
    let h = f.hints;
    assert_eq!(h.ttl_min, Some(90));
    assert_eq!(h.sy_period_s, Some(86_400));
    assert_eq!(h.sy_frequency, Some(2));
    // 0, 23 and 24 (midnight again); hour 5 outside skipHours is not one.
    assert_eq!(h.skip_hours, 1 | (1 << 23));
    assert_eq!(h.skip_days, (1 << 5) | (1 << 6));
    assert_eq!((h.max_age_s, h.expires_in_s), (None, None));

    let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
<entry><title>a</title><link href="https://a.example/1"/></entry></feed>"#;
    let f = wr_feeds::extract::read_feed(atom.as_bytes(), "https://a.example/feed", None).unwrap();
    assert_eq!(f.hints, wr_core::hints::Hints::default());
}
