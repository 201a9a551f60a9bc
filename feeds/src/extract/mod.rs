//! Turning fetched bytes into links and titles, and nothing else.
//!
//! Why this module looks the way it does:
//!
//! * **R6 (metadata only).** The bot keeps a title, a URL, a date and a
//!   stable id per item. Summaries, content, enclosures and images are never
//!   copied out of the parser, so no page content outlives this call.
//! * **R9 (structured formats, never scrape HTML).** There are exactly two
//!   extractors: [`feed()`] for RSS 0.90-2.0, Atom 0.3 and 1.0 and JSON
//!   Feed 1.0 and 1.1, and
//!   [`markdown()`] for content-negotiated markdown and `llms.txt`. There is
//!   no HTML extractor at all; [`content_kind`] classifies a response so the
//!   pipeline can refuse HTML instead of scraping it.
//! * **R7 (canonical-URL de-duplication).** Every [`Item::id`] is the
//!   section 10.2 canonical key of the item's URL
//!   ([`wr_core::canonical::canonical_url`]), so ids are deterministic across
//!   runs and formats, and each extractor de-duplicates on it (first
//!   occurrence wins, document order kept).
//! * **Only `http(s)` leaves.** `javascript:`, `data:`, `mailto:`, `file:`
//!   and every other scheme are dropped here, so nothing downstream has to
//!   remember to check.
//! * **Titles are text, as a reader shows them.** A feed says what its
//!   titles are (Atom's `type`, RSS's HTML by convention); they are read
//!   as that, markup dropped and references decoded once ([`feed()`]'s
//!   docs), then cleaned by the one rule every title passes.
//! * **Titles are untrusted terminal input.** [`clean_title`] strips control
//!   characters, terminal escape sequences and bidi overrides before a title
//!   is stored or printed.

pub(crate) mod date;
mod decode;
mod entities;
mod feed;
mod html;
mod json;
mod markdown;
mod repair;
mod title;
mod xml;

pub use feed::{
    feed, feed_entries, feed_with_stats, read_feed, FeedEntries, FeedEntry, FeedExtract,
    MAX_FEED_ITEMS,
};
pub use markdown::markdown;
pub use title::{clean_message, clean_title, MAX_MESSAGE_CHARS, MAX_TITLE_CHARS};

/// One item (the extractor's output; its own module, [`crate::item`]).
pub use crate::item::Item;

/// Why a body could not be turned into items.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// The body is not RSS, Atom or JSON Feed (the reason attached): R9
    /// goes on to its next stage.
    #[error("not a feed: {0}")]
    NotAFeed(String),
    /// The body is a feed that cannot be read even leniently (an unclosed
    /// comment, a document cut before its first entry, broken JSON).
    #[error("unreadable feed at line {line}, column {column}: {reason}")]
    Unreadable {
        /// Line of the text (from 1).
        line: usize,
        /// Column, in characters (from 1).
        column: usize,
        /// What is wrong there.
        reason: String,
    },
    /// The URL the body was fetched from is not an absolute URL, so relative
    /// links could not be resolved against it.
    #[error("cannot resolve links against {url:?}: {reason}")]
    BadBaseUrl {
        /// The URL as given.
        url: String,
        /// The `url` crate's reason.
        reason: String,
    },
}

pub use wr_core::fetch::{content_kind, ContentKind};

/// One entry as a format's reader hands it on.
struct Entry {
    /// The title as text, before [`clean_title`]; empty when the entry has
    /// none.
    title: String,
    /// The entry's page.
    link: Option<url::Url>,
    /// RFC 3339 UTC: published, else updated.
    published: Option<String>,
}

/// Parses `raw` as an absolute `http`/`https` URL with a host.
///
/// Every other scheme (`javascript:`, `data:`, `mailto:`, `file:`, `ftp:`
/// ...) yields `None`: only web links ever leave this module.
fn http_url(raw: &str) -> Option<url::Url> {
    let parsed = url::Url::parse(raw.trim()).ok()?;
    web_only(parsed)
}

/// Keeps `url` only when it is `http`/`https` with a non-empty host, and
/// drops any userinfo: credentials in a link must not reach the store or
/// the terminal (the canonical key drops them too).
fn web_only(mut url: url::Url) -> Option<url::Url> {
    match url.scheme() {
        "http" | "https" if url.host_str().is_some_and(|h| !h.is_empty()) => {
            // Both only fail for URLs that cannot have a host, excluded above.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            Some(url)
        }
        _ => None,
    }
}

/// Collects items in document order, keeping the first item per canonical
/// URL (R7).
#[derive(Default)]
struct Dedup {
    seen: std::collections::HashSet<String>,
    items: Vec<Item>,
    duplicates: usize,
    uncanonical: usize,
    /// Items dropped by a cap ([`Dedup::keep_newest`]).
    capped: usize,
}

impl Dedup {
    /// Keeps the `cap` newest items (dated before undated, later dates
    /// first, document order breaking ties), in document order.
    fn keep_newest(&mut self, cap: usize) {
        if self.items.len() <= cap {
            return;
        }
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        // RFC 3339 UTC strings compare as their instants.
        order.sort_by(|&a, &b| {
            let (pa, pb) = (&self.items[a].published, &self.items[b].published);
            pb.is_some()
                .cmp(&pa.is_some())
                .then_with(|| pb.cmp(pa))
                .then(a.cmp(&b))
        });
        let mut keep = vec![false; self.items.len()];
        for &i in &order[..cap] {
            keep[i] = true;
        }
        self.capped += self.items.len() - cap;
        let mut k = keep.into_iter();
        self.items.retain(|_| k.next().unwrap_or(false));
    }

    /// Adds an item for `url` unless its canonical key was seen already.
    /// `title` is cleaned here; an empty cleaned title falls back to the URL.
    fn push(&mut self, url: &url::Url, title: &str, published: Option<String>) {
        let url = url.as_str();
        let Ok(id) = wr_core::canonical::canonical_url(url) else {
            // A URL the section 10.2 canonicaliser refuses has no stable key;
            // keeping it would break de-duplication across runs.
            self.uncanonical += 1;
            return;
        };
        if !self.seen.insert(id.clone()) {
            self.duplicates += 1;
            return;
        }
        let mut title = clean_title(title);
        if title.is_empty() {
            title = clean_title(url);
        }
        self.items.push(Item {
            title,
            url: url.to_owned(),
            published,
            id,
        });
    }
}
