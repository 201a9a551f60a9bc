//! Issue #19, point by point: every title as a reader sees it, from every
//! feed a reader can read, an ill-formed feed read as readers read it (and
//! said to be), and no silent emptiness.

use wr_feeds::extract::{feed_entries, read_feed, ExtractError, FeedExtract};

const BASE: &str = "https://pub.test/feed";

fn read(doc: &str) -> FeedExtract {
    read_feed(doc.as_bytes(), BASE, None).unwrap_or_else(|e| panic!("{e}\n{doc}"))
}

/// (title, url) of each item.
fn pairs(f: &FeedExtract) -> Vec<(String, String)> {
    f.items
        .iter()
        .map(|i| (i.title.clone(), i.url.clone()))
        .collect()
}

fn one(title: &str, url: &str) -> Vec<(String, String)> {
    vec![(title.to_string(), url.to_string())]
}

fn atom_entry(title: &str) -> String {
    format!(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title><entry>{title}\
         <link href=\"/e\"/><id>urn:e</id></entry></feed>"
    )
}

#[test]
fn atom_titles_are_read_by_their_type() {
    for (title, want) in [
        (
            "<title type=\"html\">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more</title>",
            "Bold & more",
        ),
        (
            "<title type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">An <em>XHTML</em> &lt;title&gt;</div></title>",
            "An XHTML <title>",
        ),
        // Text is text: its `<b>` is shown, not read.
        ("<title type=\"text\">a &lt;b&gt; c</title>", "a <b> c"),
        ("<title>AT&amp;T</title>", "AT&T"),
        ("<title type=\"html\"><![CDATA[It&#8217;s <i>x</i>]]></title>", "It\u{2019}s x"),
        (
            "<title type=\"html\">a&lt;script&gt;alert(1)&lt;/script&gt;b</title>",
            "ab",
        ),
    ] {
        assert_eq!(
            pairs(&read(&atom_entry(title))),
            one(want, "https://pub.test/e"),
            "{title}"
        );
    }
}

#[test]
fn rss_titles_are_html_when_they_look_like_it() {
    let rss = |title: &str| {
        format!(
            "<rss version=\"2.0\"><channel><title>t</title><item><title>{title}</title>\
             <link>https://pub.test/i</link></item></channel></rss>"
        )
    };
    for (title, want) in [
        // WordPress escapes its entities once more than it should.
        ("It&amp;#8217;s", "It\u{2019}s"),
        ("&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more", "Bold & more"),
        // Not HTML: no end tag, no reference, or not HTML's element.
        ("Vec&lt;T&gt; in Rust", "Vec<T> in Rust"),
        ("&lt;foo&gt;x&lt;/foo&gt;", "<foo>x</foo>"),
        ("Fish &amp; chips", "Fish & chips"),
        ("<![CDATA[<em>CDATA</em> title]]>", "CDATA title"),
    ] {
        assert_eq!(
            pairs(&read(&rss(title))),
            one(want, "https://pub.test/i"),
            "{title}"
        );
    }
}

#[test]
fn atom_0_3_titles_by_mode() {
    let atom03 = |title: &str| {
        format!(
            "<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\"><entry>{title}\
             <link rel=\"alternate\" type=\"text/html\" href=\"https://pub.test/a\"/></entry></feed>"
        )
    };
    for (title, want) in [
        (
            "<title mode=\"escaped\" type=\"text/html\">&lt;b&gt;x&lt;/b&gt; &amp;amp; y</title>",
            "x & y",
        ),
        (
            "<title mode=\"base64\" type=\"text/html\">PGI+Qm9sZDwvYj4gJmFtcDsgbW9yZQ==</title>",
            "Bold & more",
        ),
        ("<title mode=\"base64\">PGI+eDwvYj4=</title>", "<b>x</b>"),
        (
            "<title mode=\"xml\" type=\"application/xhtml+xml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">in <b>line</b></div></title>",
            "in line",
        ),
        ("<title>plain</title>", "plain"),
    ] {
        let f = read(&atom03(title));
        assert_eq!(f.format, "Atom 0.3");
        assert_eq!(pairs(&f), one(want, "https://pub.test/a"), "{title}");
    }
}

#[test]
fn every_format_a_reader_reads_has_its_entries() {
    for (doc, format) in [
        (
            "<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\"><entry><title>e</title>\
             <link rel=\"alternate\" type=\"text/html\" href=\"https://pub.test/e\"/></entry></feed>",
            "Atom 0.3",
        ),
        (
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
             xmlns=\"http://my.netscape.com/rdf/simple/0.9/\"><channel><title>c</title>\
             <link>https://pub.test/</link></channel><item><title>e</title>\
             <link>https://pub.test/e</link></item></rdf:RDF>",
            "RSS 0.90",
        ),
        (
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
             xmlns=\"http://purl.org/rss/1.0/\"><channel rdf:about=\"x\"><title>c</title></channel>\
             <item rdf:about=\"https://pub.test/e\"><title>e</title>\
             <link>https://pub.test/e</link></item></rdf:RDF>",
            "RSS 1.0",
        ),
        (
            "<rss version=\"2.0\" xmlns=\"http://backend.userland.com/rss2\"><channel><title>c</title>\
             <item><title>e</title><link>https://pub.test/e</link></item></channel></rss>",
            "RSS 2.0",
        ),
        (
            "<rss version=\"0.91\"><channel><title>c</title>\
             <item><title>e</title><link>https://pub.test/e</link></item></channel></rss>",
            "RSS 0.91",
        ),
        (
            "<rss version=\"0.94\" xmlns=\"http://blogs.law.harvard.edu/tech/rss\"><channel>\
             <item><title>e</title><link>https://pub.test/e</link></item></channel></rss>",
            "RSS 0.94",
        ),
        (
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>e</title>\
             <link href=\"https://pub.test/e\"/></entry></feed>",
            "Atom 1.0",
        ),
        (
            "{\"version\":\"https://jsonfeed.org/version/1\",\"items\":[{\"id\":\"1\",\
             \"url\":\"https://pub.test/e\",\"title\":\"e\"}]}",
            "JSON Feed 1.0",
        ),
        (
            "{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":\"1\",\
             \"url\":\"https://pub.test/e\",\"title\":\"e\"}]}",
            "JSON Feed 1.1",
        ),
    ] {
        let f = read(doc);
        assert_eq!(f.format, format, "{doc}");
        assert_eq!(f.entries, 1, "{doc}");
        assert_eq!(pairs(&f), one("e", "https://pub.test/e"), "{doc}");
        assert!(f.repairs.is_empty(), "{:?}", f.repairs);
    }
}

#[test]
fn a_json_feed_title_is_plain_text() {
    let f = read(
        "{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":1,\
         \"url\":\"https://pub.test/e\",\"title\":\"a &amp; <b>\"}]}",
    );
    assert_eq!(pairs(&f), one("a &amp; <b>", "https://pub.test/e"));
}

#[test]
fn a_guid_that_is_not_a_permalink_is_never_a_link() {
    let f = read(
        "<rss version=\"2.0\"><channel>\
         <item><title>not</title><guid isPermaLink=\"false\">https://pub.test/guid</guid></item>\
         <item><title>yes</title><guid>https://pub.test/perma</guid></item>\
         <item><title>link wins</title><guid>https://pub.test/g</guid><link>https://pub.test/l</link></item>\
         </channel></rss>",
    );
    assert_eq!(
        pairs(&f),
        [
            ("yes".to_string(), "https://pub.test/perma".to_string()),
            ("link wins".to_string(), "https://pub.test/l".to_string()),
        ]
    );
    assert_eq!(f.skipped_no_link, 1);
}

#[test]
fn an_atom_entrys_http_id_is_its_fallback_link() {
    let f = read(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\">\
         <entry><title>by id</title><id>https://pub.test/by-id</id></entry>\
         <entry><title>urn</title><id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id></entry>\
         <entry><title>self only</title><id>tag:pub.test,2026:1</id><link rel=\"self\" href=\"/s\"/></entry>\
         <entry><title>alternate wins</title><id>https://pub.test/id</id><link href=\"/alt\"/></entry>\
         </feed>",
    );
    assert_eq!(
        pairs(&f),
        [
            ("by id".to_string(), "https://pub.test/by-id".to_string()),
            (
                "alternate wins".to_string(),
                "https://pub.test/alt".to_string()
            ),
        ]
    );
    assert_eq!(f.skipped_no_link, 2);
}

#[test]
fn ill_formed_feeds_are_read_and_said_to_need_repairs() {
    let rss = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>t</title>\n\
               <item><title>Caf&eacute;&nbsp;open</title><link>https://pub.test/?a=1&b=2</link></item>\n\
               <item><title>ctl\u{1}x</title><link>https://pub.test/2</link></item>\n\
               </channel></rss>";
    let f = read(rss);
    assert_eq!(
        pairs(&f),
        [
            (
                "Café open".to_string(),
                "https://pub.test/?a=1&b=2".to_string()
            ),
            ("ctlx".to_string(), "https://pub.test/2".to_string()),
        ]
    );
    assert_eq!(
        f.repairs,
        [
            "a control character (XML allows none) at line 4, column 17",
            "HTML entity &eacute; (XML defines only five) at line 3, column 17 (and 1 more)",
            "a bare '&' read as text at line 3, column 70",
        ]
    );
    // Mismatched end tags close what they skip over.
    let f = read(
        "<rss version=\"2.0\"><channel><item><title>a <b>b</title><link>https://pub.test/x</link></item></channel></rss>",
    );
    assert_eq!(pairs(&f), one("a b", "https://pub.test/x"));
    assert_eq!(f.repairs.len(), 1, "{:?}", f.repairs);
    assert!(
        f.repairs[0].starts_with("an end tag </title> closes <b>"),
        "{:?}",
        f.repairs
    );
}

#[test]
fn an_encoding_declaration_the_bytes_or_http_contradict_is_repaired() {
    // Declared UTF-8, written in windows-1252.
    let mut body = b"<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel>\
<item><title>caf\xe9 \x93quoted\x94</title><link>https://pub.test/e</link></item></channel></rss>"
        .to_vec();
    let f = read_feed(&body, BASE, None).unwrap();
    assert_eq!(pairs(&f), one("café “quoted”", "https://pub.test/e"));
    assert_eq!(
        f.repairs,
        ["the document says UTF-8, but the bytes are not: read as windows-1252"]
    );
    // Declared ISO 8859-1, served as UTF-8 and written in UTF-8: HTTP wins.
    body = "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?><rss version=\"2.0\"><channel>\
<item><title>café</title><link>https://pub.test/e</link></item></channel></rss>"
        .as_bytes()
        .to_vec();
    let f = read_feed(&body, BASE, Some("application/rss+xml; charset=utf-8")).unwrap();
    assert_eq!(pairs(&f), one("café", "https://pub.test/e"));
    assert_eq!(
        f.repairs,
        ["the document declares windows-1252, the HTTP charset says UTF-8: read as UTF-8"]
    );
    // Without the HTTP charset the declaration is believed.
    let f = read_feed(&body, BASE, Some("application/rss+xml")).unwrap();
    assert_eq!(pairs(&f), one("cafÃ©", "https://pub.test/e"));
    assert!(f.repairs.is_empty());
}

#[test]
fn what_cannot_be_read_names_its_line_and_column() {
    for (doc, line, column) in [
        ("<rss version=\"2.0\">\n<channel>\n<title>t</title>", 3, 17),
        (
            "<rss version=\"2.0\">\n<channel><!-- never closed\n<item/>",
            2,
            10,
        ),
        (
            "{\"version\": \"https://jsonfeed.org/version/1.1\",\n \"items\": [",
            2,
            11,
        ),
    ] {
        match read_feed(doc.as_bytes(), BASE, None) {
            Err(ExtractError::Unreadable {
                line: l, column: c, ..
            }) => assert_eq!((l, c), (line, column), "{doc}"),
            other => panic!("{doc}: {other:?}"),
        }
    }
    // A document cut after its first entry keeps it, and says so.
    let f = read("<rss version=\"2.0\"><channel><item><title>kept</title><link>https://pub.test/k</link></item>\n<item><title>cut");
    assert_eq!(pairs(&f), one("kept", "https://pub.test/k"));
    assert_eq!(
        f.repairs,
        ["the document ends inside <title> at line 2, column 17: the entries before it are kept"]
    );
}

#[test]
fn an_xml_root_that_is_no_feed_is_not_a_feed() {
    for doc in [
        "<html><body><item><title>x</title></item></body></html>",
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"/>",
        "<feed xmlns=\"http://example.com/not-atom\"><entry/></feed>",
        "<!-- only a comment -->",
        "not xml",
        "{\"items\": []}",
    ] {
        match read_feed(doc.as_bytes(), BASE, None) {
            Err(ExtractError::NotAFeed(_)) => {}
            other => panic!("{doc}: {other:?}"),
        }
    }
}

#[test]
fn a_feed_with_no_entries_says_so() {
    let f = read("<rss version=\"2.0\"><channel><title>empty</title></channel></rss>");
    assert_eq!((f.entries, f.items.len(), f.format), (0, 0, "RSS 2.0"));
}

#[test]
fn entries_list_every_entry_before_items_are_made() {
    let e = feed_entries(
        b"<rss version=\"2.0\"><channel>\
          <item><title>a</title><link>https://pub.test/1</link></item>\
          <item><title>no link</title></item>\
          <item><title>again</title><link>https://pub.test/1</link></item>\
          </channel></rss>",
        BASE,
        None,
    )
    .unwrap();
    let got: Vec<(&str, Option<&str>)> = e
        .entries
        .iter()
        .map(|x| (x.title.as_str(), x.link.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("a", Some("https://pub.test/1")),
            ("no link", None),
            ("again", Some("https://pub.test/1")),
        ]
    );
}
