//! The reproducers of issue #18's outside audit: robots.txt shapes found on
//! real sites whose text the spec denies and that an earlier wr-core
//! allowed. Each row is asked of `Policy` and of `FixedPolicy`, with the
//! target in the form the bot sends it (the WHATWG serialisation: `{` in a
//! path goes out as `%7B`), and must be denied; a control row beside most
//! of them shows the policy still allows what no reading denies, so a
//! policy that denied everything would fail here too.

use wr_core::robots::Policy;

const TOKEN: &str = "Walsh-Research";

/// (what the row is, robots.txt, target as sent, target that stays allowed)
type Row = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
);

/// Octets a sent URL never carries raw (class 1): a rule keeping them raw
/// compares in its encoded form, as the target does.
const TEMPLATE_OCTETS: &[Row] = &[
    (
        "sears.com *{searsCard}*",
        "User-agent: *\nDisallow: *{searsCard}*\n",
        "/shc/s/%7BsearsCard%7D/feed.xml",
        Some("/shc/s/searsCard/feed.xml"),
    ),
    (
        "kmart.com *{manageAccount}*",
        "User-agent: *\nDisallow: *{manageAccount}*\n",
        "/x/%7BmanageAccount%7D/feed.xml",
        Some("/x/manageAccount/feed.xml"),
    ),
    (
        "cdiscount.com /{{product.url}}",
        "User-agent: *\nDisallow: /{{product.url}}\n",
        "/%7B%7Bproduct.url%7D%7D",
        Some("/product.url"),
    ),
    (
        "msdn.microsoft.com /{0}/",
        "User-agent: *\nDisallow: /{0}/\n",
        "/%7B0%7D/library",
        Some("/0/library"),
    ),
    (
        "campaignmonitor.com /blog/\"http.*",
        "User-agent: *\nDisallow: /blog/\"http.*\n",
        "/blog/%22http.example",
        Some("/blog/http.example"),
    ),
    (
        "debenhams.com *<price",
        "User-agent: *\nDisallow: *<price\n",
        "/women/%3Cprice%3E",
        Some("/women/price"),
    ),
    (
        "' in a query goes out as %27",
        "User-agent: *\nDisallow: /search?q='\n",
        "/search?q=%27drop",
        Some("/search?q=drop"),
    ),
    (
        "{ in a query goes out raw: still matched raw",
        "User-agent: *\nDisallow: /a?b={\n",
        "/a?b={x}",
        Some("/a?b=x"),
    ),
    (
        "a rule written encoded matches a target given raw",
        "User-agent: *\nDisallow: /%7Bx%7D\n",
        "/{x}",
        Some("/x"),
    ),
    (
        "a rule written raw matches a target given raw",
        "User-agent: *\nDisallow: /{x}\n",
        "/{x}/y",
        None,
    ),
];

fn assert_rows(rows: &[Row]) {
    for &(name, body, denied, allowed) in rows {
        let p = Policy::parse(body.as_bytes(), TOKEN);
        let v = p.check(denied);
        assert!(!v.allowed, "{name}: {denied} must be denied: {v}");
        if let Some(ok) = allowed {
            let v = p.check(ok);
            assert!(v.allowed, "{name}: {ok} must stay allowed: {v}");
        }
        #[cfg(feature = "heapless")]
        {
            use wr_core::robots::fixed::FixedPolicy;
            let f = FixedPolicy::<32, 4096>::parse(body.as_bytes(), TOKEN);
            assert!(!f.overflowed(), "{name}");
            assert!(!f.check(denied).allowed, "{name}: fixed: {denied}");
        }
    }
}

#[test]
fn octets_a_sent_url_never_carries_raw_compare_encoded() {
    assert_rows(TEMPLATE_OCTETS);
}
