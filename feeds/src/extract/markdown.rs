//! Markdown and `llms.txt` extraction with pulldown-cmark (R9's second and
//! third choices).
//!
//! Spec 10.4: "From any markdown body, extract items generically: inline
//! links `[text](url)` with absolute http(s) url, de-duplicated, in document
//! order; text is the title. A tool MUST NOT rely on per-site structure."
//! The rules below are generic CommonMark, never per-site.
//!
//! Decisions (the spec is silent on these):
//!
//! * **Relative links are dropped, not resolved.** The spec asks for
//!   *absolute* http(s) URLs; a relative link in served markdown (common on
//!   docs platforms) is navigation within that site, not a declared item.
//!   The `base_url` argument of [`markdown()`] is therefore not used for
//!   resolution.
//! * **Reference-style links** (`[text][ref]`, `[text][]`, `[text]`) count
//!   like inline links: the same link written differently.
//! * **Autolinks** (`<https://...>`) count, with the URL as the title: they
//!   are explicit link markup. Email autolinks are not http(s) and are
//!   dropped. **Bare URLs** in text are plain text, not links (no GFM
//!   autolink extension).
//! * **Images are never items** (`![alt](src)` is a sub-resource, R6). An
//!   image *inside* a link (`[![alt](badge.svg)](https://...)`) leaves the
//!   link an item, titled with the image's alt text. Links inside an image's
//!   alt text are not items.
//! * **Raw HTML** (`<a href=...>`) is ignored: HTML is never scraped (R9).
//! * **Front matter** is skipped only at the very start of the body (after
//!   an optional BOM): a `---` line closed by `---` or `...`, or a `+++`
//!   line closed by `+++`. pulldown-cmark's own metadata-block options are
//!   not used because they also match a `---` pair in mid-document, which
//!   would hide real links. An unclosed opener is not front matter.
//! * **Titles** are the link text with formatting removed (code spans kept
//!   as text, line breaks as spaces), cleaned by [`clean_title`]; an empty
//!   title falls back to the URL.
//! * **De-duplication** is by canonical URL; the first occurrence (and its
//!   title) wins.
//!
//! [`clean_title`]: super::clean_title

use super::{http_url, Dedup, Item};
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

/// Extracts the absolute `http(s)` links of a markdown (or `llms.txt`)
/// body, in document order, de-duplicated by canonical URL.
///
/// `_base_url` is where the body came from. It is deliberately not used to
/// resolve relative links: spec 10.4 takes only links with an *absolute*
/// http(s) URL, so relative ones are dropped (see the module docs).
pub fn markdown(body: &str, _base_url: &str) -> Vec<Item> {
    let body = skip_front_matter(body);
    let mut out = Dedup::default();
    // The link being read: its URL (None when it will be dropped) and text.
    let mut link: Option<(Option<url::Url>, String)> = None;
    // Depth of images being read; links inside an image's alt text are
    // not links of the document.
    let mut image_depth = 0usize;
    // Depth of links opened inside images (ignored, but their ends must be
    // matched to keep `link` right).
    let mut ignored_links = 0usize;

    for event in Parser::new_ext(body, Options::empty()) {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                ..
            }) => {
                if image_depth > 0 || link.is_some() {
                    ignored_links += 1;
                } else {
                    // CommonMark renderers percent-encode a backslash in
                    // a destination (`a\b` links to `a%5Cb`); the WHATWG
                    // parser would read it as `/` and send the reader to
                    // another page (issue #12).
                    let url = match link_type {
                        LinkType::Email => None,
                        _ => http_url(&dest_url.replace('\\', "%5C")),
                    };
                    link = Some((url, String::new()));
                }
            }
            Event::End(TagEnd::Link) => {
                if ignored_links > 0 {
                    ignored_links -= 1;
                } else if let Some((Some(url), text)) = link.take() {
                    out.push(&url, &text, None);
                }
            }
            Event::Start(Tag::Image { .. }) => image_depth += 1,
            Event::End(TagEnd::Image) => image_depth = image_depth.saturating_sub(1),
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, title)) = link.as_mut() {
                    title.push_str(&text);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, title)) = link.as_mut() {
                    title.push(' ');
                }
            }
            _ => {}
        }
    }
    out.items
}

/// The body without a front-matter block at its very start.
fn skip_front_matter(body: &str) -> &str {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let (first, mut rest) = split_line(body);
    let closers: &[&str] = match first.trim_end() {
        "---" => &["---", "..."],
        "+++" => &["+++"],
        _ => return body,
    };
    while !rest.is_empty() {
        let (line, next) = split_line(rest);
        if closers.contains(&line.trim_end()) {
            return next;
        }
        rest = next;
    }
    // Never closed: a thematic break or a setext underline, not front matter.
    body
}

/// Splits off the first line (without its `\n` / `\r\n`).
fn split_line(s: &str) -> (&str, &str) {
    match s.split_once('\n') {
        Some((line, rest)) => (line.strip_suffix('\r').unwrap_or(line), rest),
        None => (s, ""),
    }
}
