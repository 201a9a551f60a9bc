//! RSS 0.9x / 1.0 / 2.0, Atom and JSON Feed extraction with feed-rs (R9's
//! first choice).
//!
//! Decisions (the spec is silent on these):
//!
//! * **Base URL.** feed-rs is given the final URL (after redirects) as its
//!   base and applies `xml:base` on top of it, element by element, for XML
//!   feeds. Whatever is still relative afterwards (JSON Feed has no base
//!   mechanism; an `xml:base` feed-rs could not apply) is resolved against
//!   the final URL with the `url` crate.
//! * **Which link.** The first link whose `rel` is absent or `alternate`
//!   (Atom's default) and that resolves to an `http(s)` URL. `self`, `edit`,
//!   `enclosure`, `replies` ... are never the item, nor are links typed
//!   `audio/*`, `video/*` or `image/*` (JSON Feed attachments), which are
//!   sub-resources (R6). For RSS 0.9x / 2.0 only, an entry with no such link
//!   falls back to its `<guid>` when that is an absolute `http(s)` URL (RSS
//!   2.0 makes a guid a permalink unless `isPermaLink="false"`, which
//!   feed-rs does not expose). Entries left without a URL are skipped and
//!   counted in [`FeedExtract::skipped_no_link`].
//! * **Ids.** The item id is the canonical URL key, never the feed's own id;
//!   feed-rs is built with a constant id generator so it never invents
//!   random or hash ids for us (deterministic output for identical input).
//! * **Dates.** `published`, else `updated`, as RFC 3339 in UTC
//!   (`2003-12-13T18:30:02Z`).
//! * **Content is never touched**: summaries and bodies stay inside
//!   feed-rs's model and are dropped with it (R6); content sanitising is
//!   switched off because we never read content.

use super::{http_url, web_only, Dedup, ExtractError, Item};
use feed_rs::model::{Entry, FeedType, Link};

/// The items of a feed and what was left out, for the run report.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FeedExtract {
    /// Items in document order, one per canonical URL.
    pub items: Vec<Item>,
    /// Entries in the feed, before anything was skipped.
    pub entries: usize,
    /// Entries without a usable `http(s)` link.
    pub skipped_no_link: usize,
    /// Entries whose canonical URL repeated an earlier entry's.
    pub duplicates: usize,
}

/// Extracts items from a feed body fetched from `final_url` (the URL after
/// redirects). See the module docs for the rules.
///
/// # Errors
///
/// [`ExtractError::BadBaseUrl`] when `final_url` is not an absolute URL,
/// [`ExtractError::NotAFeed`] when the body is not RSS, Atom or JSON Feed.
pub fn feed(body: &[u8], final_url: &str) -> Result<Vec<Item>, ExtractError> {
    feed_with_stats(body, final_url).map(|extract| extract.items)
}

/// [`feed()`] with counts of what was skipped.
///
/// # Errors
///
/// As [`feed()`].
pub fn feed_with_stats(body: &[u8], final_url: &str) -> Result<FeedExtract, ExtractError> {
    let base = url::Url::parse(final_url).map_err(|e| ExtractError::BadBaseUrl {
        url: final_url.to_owned(),
        reason: e.to_string(),
    })?;
    let parser = feed_rs::parser::Builder::new()
        .base_uri(Some(base.as_str()))
        // Entries without an id get an empty one instead of a hash or a
        // random UUID: ids are ours (canonical URLs), and output must be a
        // pure function of the input.
        .id_generator(|_, _, _| String::new())
        .sanitize_content(false)
        .build();
    let parsed = parser
        .parse(body)
        .map_err(|e| ExtractError::NotAFeed(e.to_string()))?;

    let guid_is_permalink = matches!(parsed.feed_type, FeedType::RSS0 | FeedType::RSS2);
    let mut out = Dedup::default();
    let mut skipped = 0usize;
    for entry in &parsed.entries {
        let Some(url) = entry_url(entry, &base, guid_is_permalink) else {
            skipped += 1;
            continue;
        };
        let title = entry
            .title
            .as_ref()
            .map(|t| t.content.as_str())
            .unwrap_or_default();
        // RFC 3339 has four-digit years: a date outside 0000-9999 (a feed
        // claiming year 99999) has no RFC 3339 form, so it is `null`
        // rather than "+99999-..." (issue #12).
        let published = entry
            .published
            .or(entry.updated)
            .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
            .filter(|s| s.len() == 20 && s.as_bytes()[..4].iter().all(u8::is_ascii_digit));
        out.push(&url, title, published);
    }
    Ok(FeedExtract {
        entries: parsed.entries.len(),
        skipped_no_link: skipped + out.uncanonical,
        duplicates: out.duplicates,
        items: out.items,
    })
}

/// The entry's page URL, if it has a usable one.
fn entry_url(entry: &Entry, base: &url::Url, guid_is_permalink: bool) -> Option<url::Url> {
    entry
        .links
        .iter()
        .filter(|l| is_page_link(l))
        .find_map(|l| resolve(&l.href, base))
        .or_else(|| {
            if guid_is_permalink {
                http_url(&entry.id)
            } else {
                None
            }
        })
}

/// Whether a link points at the entry itself rather than at a feed, an
/// edit endpoint or a media attachment.
fn is_page_link(link: &Link) -> bool {
    let rel_ok = link
        .rel
        .as_deref()
        .is_none_or(|rel| rel.trim().eq_ignore_ascii_case("alternate"));
    let media_ok = link.media_type.as_deref().is_none_or(|t| {
        let t = t.trim().to_ascii_lowercase();
        !(t.starts_with("audio/") || t.starts_with("video/") || t.starts_with("image/"))
    });
    rel_ok && media_ok
}

/// Resolves `href` (already `xml:base`-resolved by feed-rs when it could)
/// against `base`, keeping only `http(s)` results.
fn resolve(href: &str, base: &url::Url) -> Option<url::Url> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    web_only(base.join(href).ok()?)
}
