//! Markdown / llms.txt extraction (R9, spec 10.4): absolute http(s) links
//! only, document order, de-duplicated, front matter skipped, images
//! excluded, titles cleaned.

use std::path::Path;
use wr_feeds::extract::{markdown, Item};

const BASE: &str = "https://docs.example.test/page";

fn data(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/llms-txt")
        .join(name);
    match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => panic!("reading {}: {e}", path.display()),
    }
}

fn pairs(items: &[Item]) -> Vec<(&str, &str)> {
    items
        .iter()
        .map(|i| (i.title.as_str(), i.url.as_str()))
        .collect()
}

#[test]
fn llms_txt_site_file_has_three_links_in_order() {
    let items = markdown(
        &data("AnswerDotAI_llms-txt__nbs_llms.txt"),
        "https://llmstxt.org/llms.txt",
    );
    assert_eq!(
        pairs(&items),
        [
            ("llms.txt proposal", "https://llmstxt.org/index.md"),
            ("Python library docs", "https://llmstxt.org/intro.html.md"),
            ("ed demo", "https://llmstxt.org/ed-commonmark.md"),
        ]
    );
    assert!(items.iter().all(|i| i.published.is_none()));
    assert_eq!(items[0].id, "https://llmstxt.org/index.md");
}

#[test]
fn llms_sample_has_five_links_including_one_without_notes() {
    let items = markdown(&data("AnswerDotAI_llms-txt__nbs_llms-sample.txt"), BASE);
    assert_eq!(items.len(), 5);
    assert_eq!(
        pairs(&items)[2],
        (
            "Starlette quick guide",
            "https://gist.githubusercontent.com/jph00/e91192e9bdc1640f5421ce3c904f2efb/raw/61a2774912414029edaf1a55b506f0e283b93c46/starlette-quick.md"
        )
    );
    assert_eq!(
        pairs(&items)[4].0,
        "Starlette full documentation",
        "the Optional section is still links"
    );
}

#[test]
fn miden_has_49_links_with_links_before_the_first_h2() {
    let items = markdown(&data("0xMiden_docs__static_llms.txt"), BASE);
    assert_eq!(items.len(), 49);
    assert_eq!(pairs(&items)[0], ("Docs home", "https://docs.miden.xyz/"));
    assert_eq!(
        pairs(&items)[4],
        ("GitHub organization", "https://github.com/0xMiden")
    );
    // Same title, different URLs: both kept.
    assert_eq!(items.iter().filter(|i| i.title == "Accounts").count(), 2);
}

#[test]
fn agentflow_has_34_links_and_ignores_bare_urls() {
    let text = data("10xHub_agentflow-docs__static_llms.txt");
    let items = markdown(&text, BASE);
    assert_eq!(items.len(), 34);
    // The Contact section's bare URLs are text, not links.
    assert!(text.contains("- Website: https://10xscale.ai"));
    assert!(!items.iter().any(|i| i.url == "https://10xscale.ai/"));
}

#[test]
fn relative_and_non_http_links_are_dropped() {
    let md = "\
[rel](/docs/a) [dot](./b.md) [proto-rel](//cdn.test/x) [frag](#top)
[js](javascript:alert(1)) [data](data:text/html,hi) [mail](mailto:a@b.test)
[ftp](ftp://files.test/f) [file](file:///etc/passwd) <a@b.test>
[ok](https://ok.test/a)
";
    let items = markdown(md, BASE);
    assert_eq!(pairs(&items), [("ok", "https://ok.test/a")]);
}

#[test]
fn duplicates_by_canonical_url_keep_the_first() {
    let md = "\
[first](https://Example.test/a/) [second](https://example.test/a#frag)
[third](https://example.test:443/a) [other](https://example.test/a?q=1)
[again](https://example.test/a?q=1)
";
    let items = markdown(md, BASE);
    assert_eq!(
        pairs(&items),
        [
            ("first", "https://example.test/a/"),
            ("other", "https://example.test/a?q=1"),
        ]
    );
    assert_eq!(items[0].id, "https://example.test/a");
}

#[test]
fn front_matter_is_skipped_only_at_the_start() {
    let yaml = "---\ntitle: x\nhome: \"[fm](https://fm.test/)\"\n---\n[a](https://a.test/)\n";
    assert_eq!(pairs(&markdown(yaml, BASE)), [("a", "https://a.test/")]);
    let yaml_dots = "---\nk: [fm](https://fm.test/)\n...\n[a](https://a.test/)\n";
    assert_eq!(
        pairs(&markdown(yaml_dots, BASE)),
        [("a", "https://a.test/")]
    );
    let toml = "+++\nlink = \"[fm](https://fm.test/)\"\n+++\r\n[a](https://a.test/)\n";
    assert_eq!(pairs(&markdown(toml, BASE)), [("a", "https://a.test/")]);
    let bom = "\u{feff}---\nk: [fm](https://fm.test/)\n---\n[a](https://a.test/)\n";
    assert_eq!(pairs(&markdown(bom, BASE)), [("a", "https://a.test/")]);

    // Thematic breaks in mid-document do not hide links.
    let mid =
        "[a](https://a.test/)\n\n---\n\n[b](https://b.test/)\n\n---\n\n[c](https://c.test/)\n";
    assert_eq!(markdown(mid, BASE).len(), 3);
    // An unclosed opener is not front matter.
    let unclosed = "---\n[a](https://a.test/)\n";
    assert_eq!(markdown(unclosed, BASE).len(), 1);
}

#[test]
fn images_are_not_items_but_image_links_are() {
    let md = "\
![logo](https://img.test/logo.png)
[![build badge](https://img.test/badge.svg)](https://ci.test/build)
[![](https://img.test/empty.png)](https://ci.test/noalt)
[see ![icon](https://img.test/i.png) here](https://site.test/x)
";
    let items = markdown(md, BASE);
    assert_eq!(
        pairs(&items),
        [
            ("build badge", "https://ci.test/build"),
            ("https://ci.test/noalt", "https://ci.test/noalt"),
            ("see icon here", "https://site.test/x"),
        ]
    );
}

#[test]
fn autolinks_count_with_the_url_as_title_and_reference_links_count() {
    let md = "\
See <https://auto.test/path> and https://bare.test/ in text.

[ref link][r] and [collapsed][] and [shortcut].

[r]: https://ref.test/r
[collapsed]: https://ref.test/c
[shortcut]: https://ref.test/s
[unused]: https://ref.test/unused
";
    let items = markdown(md, BASE);
    assert_eq!(
        pairs(&items),
        [
            ("https://auto.test/path", "https://auto.test/path"),
            ("ref link", "https://ref.test/r"),
            ("collapsed", "https://ref.test/c"),
            ("shortcut", "https://ref.test/s"),
        ]
    );
}

#[test]
fn titles_are_plain_cleaned_text() {
    let md = "\
[**bold** and `code`\nacross lines](https://t.test/1)
[\u{9b}31mred\u{9b}0m\u{7}\u{202e}](https://t.test/2)
[](https://t.test/3)
<a href=\"https://html.test/\">raw html is ignored</a>
";
    let items = markdown(md, BASE);
    assert_eq!(
        pairs(&items),
        [
            ("bold and code across lines", "https://t.test/1"),
            // pulldown-cmark passes controls through as text; cleaning
            // removes whole escape sequences, BEL and bidi overrides.
            ("red", "https://t.test/2"),
            ("https://t.test/3", "https://t.test/3"),
        ]
    );
}

#[test]
fn urls_are_normalised_and_ids_are_canonical() {
    let md = "[x](<HTTPS://Docs.Example.TEST:443/a b/>)";
    let items = markdown(md, BASE);
    assert_eq!(pairs(&items), [("x", "https://docs.example.test/a%20b/")]);
    assert_eq!(items[0].id, "https://docs.example.test/a%20b");

    // Credentials never leave; IDN hosts become punycode; IPv6 is kept.
    let md = "[u](https://user:secret@h.test/a) [idn](https://b\u{fc}cher.example/x) [v6](http://[::1]:8080/a)";
    assert_eq!(
        pairs(&markdown(md, BASE)),
        [
            ("u", "https://h.test/a"),
            ("idn", "https://xn--bcher-kva.example/x"),
            ("v6", "http://[::1]:8080/a"),
        ]
    );
}

#[test]
fn hostile_markdown_does_not_panic() {
    let nested = "[".repeat(50_000) + &"](https://x.test/)".repeat(50_000);
    let _ = markdown(&nested, BASE);
    let images = "![".repeat(20_000) + "x" + &"](https://x.test/i.png)".repeat(20_000);
    assert!(markdown(&images, BASE).is_empty());
    let _ = markdown("---", BASE);
    let _ = markdown("+++\n+++", BASE);
    let _ = markdown("\u{0}\u{1b}[[[]]](()", BASE);
}

#[test]
fn a_backslash_in_a_destination_is_kept_as_commonmark_renderers_keep_it() {
    // Issue #12: `a\b` became `a/b` (the WHATWG reading of a backslash),
    // sending the reader to another page and merging it with a real `a/b`.
    let items = markdown(
        "[x](https://example.test/a\\b) and [y](https://example.test/a/b)",
        BASE,
    );
    assert_eq!(
        pairs(&items),
        [
            ("x", "https://example.test/a%5Cb"),
            ("y", "https://example.test/a/b")
        ]
    );
}
