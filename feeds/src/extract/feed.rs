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
//! * **At most [`MAX_FEED_ITEMS`] items** per feed, the newest; a large
//!   XML feed is parsed a window of entries at a time.
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
    /// Items dropped by [`MAX_FEED_ITEMS`]: the oldest ones.
    pub capped: usize,
}

/// The most items kept from one feed. A daily digest of links has no use
/// for more (the busiest real-world feeds of the corpus carry a few
/// hundred), while a feed of hundreds of thousands of tiny items would
/// cost memory and digest space for nothing. Past it the newest items are
/// kept (by publication date, then update date; undated items count as
/// oldest, document order breaking ties), and the pipeline says how many
/// were dropped.
pub const MAX_FEED_ITEMS: usize = 2_000;

/// XML feeds larger than this are parsed in windows of [`WINDOW_ITEMS`]
/// entries, so memory stays a small multiple of the body limit.
const WINDOWED_ABOVE: usize = 1 << 20;
/// Entries per window.
const WINDOW_ITEMS: usize = 500;

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
    let mut out = Dedup::default();
    let mut skipped = 0usize;
    let mut entries = 0usize;
    let windows = if body.len() > WINDOWED_ABOVE {
        item_ranges(body)
    } else {
        None
    };
    let json_windows = match (&windows, body.len() > WINDOWED_ABOVE) {
        (None, true) => json_item_windows(body),
        _ => None,
    };
    if let Some(docs) = json_windows {
        for doc in docs {
            let (n, s) = extract_entries(&doc, &base, &mut out)?;
            entries += n;
            skipped += s;
            out.keep_newest(MAX_FEED_ITEMS);
        }
        return Ok(FeedExtract {
            entries,
            skipped_no_link: skipped + out.uncanonical,
            duplicates: out.duplicates,
            capped: out.capped,
            items: out.items,
        });
    }
    match windows {
        // A large XML feed: feed-rs sees the head, a window of items and
        // the tail at a time, so its model (tens of times the bytes it
        // reads) never holds the whole feed; only the extracted items stay.
        Some(ranges) => {
            let (first, last) = (ranges[0].0, ranges[ranges.len() - 1].1);
            for window in ranges.chunks(WINDOW_ITEMS) {
                let mut doc = Vec::with_capacity(
                    first + (body.len() - last) + window.iter().map(|r| r.1 - r.0).sum::<usize>(),
                );
                doc.extend_from_slice(&body[..first]);
                for &(start, end) in window {
                    doc.extend_from_slice(&body[start..end]);
                }
                doc.extend_from_slice(&body[last..]);
                let (n, s) = extract_entries(&doc, &base, &mut out)?;
                entries += n;
                skipped += s;
                out.keep_newest(MAX_FEED_ITEMS);
            }
        }
        None => {
            let (n, s) = extract_entries(body, &base, &mut out)?;
            entries = n;
            skipped = s;
            out.keep_newest(MAX_FEED_ITEMS);
        }
    }
    Ok(FeedExtract {
        entries,
        skipped_no_link: skipped + out.uncanonical,
        duplicates: out.duplicates,
        capped: out.capped,
        items: out.items,
    })
}

/// Parses `doc` with feed-rs and adds its entries to `out`; returns the
/// entries read and those skipped for want of a link.
fn extract_entries(
    doc: &[u8],
    base: &url::Url,
    out: &mut Dedup,
) -> Result<(usize, usize), ExtractError> {
    let parser = feed_rs::parser::Builder::new()
        .base_uri(Some(base.as_str()))
        // Entries without an id get an empty one instead of a hash or a
        // random UUID: ids are ours (canonical URLs), and output must be a
        // pure function of the input.
        .id_generator(|_, _, _| String::new())
        .sanitize_content(false)
        .build();
    let parsed = parser
        .parse(doc)
        .map_err(|e| ExtractError::NotAFeed(e.to_string()))?;
    let guid_is_permalink = matches!(parsed.feed_type, FeedType::RSS0 | FeedType::RSS2);
    let mut skipped = 0usize;
    for entry in &parsed.entries {
        let Some(url) = entry_url(entry, base, guid_is_permalink) else {
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
    Ok((parsed.entries.len(), skipped))
}

/// A large JSON Feed as documents of [`WINDOW_ITEMS`] items each, with
/// every other top-level member kept: the items are sliced out of the body
/// (`RawValue`), never parsed into values, so only one window is ever a
/// model. `None` when the body is not a JSON object with an `items` array.
fn json_item_windows(body: &[u8]) -> Option<impl Iterator<Item = Vec<u8>> + '_> {
    use serde_json::value::RawValue;
    let first = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if body.get(first) != Some(&b'{') {
        return None;
    }
    let top: Vec<(String, &RawValue)> =
        serde_json::from_slice::<std::collections::BTreeMap<String, &RawValue>>(body)
            .ok()?
            .into_iter()
            .collect();
    let items_raw = top.iter().find(|(k, _)| k == "items")?.1;
    let items: Vec<&RawValue> = serde_json::from_str(items_raw.get()).ok()?;
    let mut head = String::from("{");
    for (k, v) in top.iter().filter(|(k, _)| k != "items") {
        head.push_str(&serde_json::to_string(k).ok()?);
        head.push(':');
        head.push_str(v.get());
        head.push(',');
    }
    head.push_str("\"items\":[");
    let windows: Vec<Vec<&RawValue>> = items.chunks(WINDOW_ITEMS).map(<[_]>::to_vec).collect();
    Some(windows.into_iter().map(move |w| {
        let mut doc = head.clone().into_bytes();
        for (i, item) in w.iter().enumerate() {
            if i > 0 {
                doc.push(b',');
            }
            doc.extend_from_slice(item.get().as_bytes());
        }
        doc.extend_from_slice(b"]}");
        doc
    }))
}

/// The byte ranges of an XML feed's entries (`<item>` of RSS 0.9x/1.0/2.0,
/// `<entry>` of Atom), outermost only, in order; `None` when the body is
/// not XML that reads to its end or has no entries (JSON Feed, a broken
/// document: those take the single pass, which reports the error).
fn item_ranges(body: &[u8]) -> Option<Vec<(usize, usize)>> {
    use quick_xml::events::Event;
    let first = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if body.get(first) != Some(&b'<') {
        return None;
    }
    let mut reader = quick_xml::Reader::from_reader(body);
    let mut ranges = Vec::new();
    let mut open: Option<(usize, usize)> = None; // (start, depth inside)
    let mut buf = Vec::new();
    loop {
        let before = usize::try_from(reader.buffer_position()).ok()?;
        let event = reader.read_event_into(&mut buf).ok()?;
        let after = usize::try_from(reader.buffer_position()).ok()?;
        let is_entry = |name: &[u8]| matches!(name, b"item" | b"entry");
        match event {
            Event::Start(e) => match &mut open {
                Some((_, depth)) => *depth += 1,
                None if is_entry(e.local_name().as_ref()) => open = Some((before, 0)),
                None => {}
            },
            Event::End(_) => match &mut open {
                Some((start, 0)) => {
                    ranges.push((*start, after));
                    open = None;
                }
                Some((_, depth)) => *depth -= 1,
                None => {}
            },
            Event::Empty(e) if open.is_none() && is_entry(e.local_name().as_ref()) => {
                ranges.push((before, after))
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    (!ranges.is_empty() && open.is_none()).then_some(ranges)
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
