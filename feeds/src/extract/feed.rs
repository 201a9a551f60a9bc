//! RSS 0.90-2.0, Atom 0.3 and 1.0 and JSON Feed 1.0 and 1.1 into items
//! (R9's first choice): what a feed reader would list, as links and
//! titles.
//!
//! Decisions (the spec is silent on these; docs/conformance.md,
//! "Extraction", gives the reasons and what Universal Feed Parser does):
//!
//! * **Bytes to text** ([`super::decode`]): byte order mark, HTTP
//!   `charset`, XML declaration, UTF-8, windows-1252, each passed over when
//!   the bytes contradict it, the repair said.
//! * **Every format a reader reads** ([`super::xml`], [`super::json`]):
//!   the namespaces RSS and Atom have worn are one vocabulary; an XML root
//!   that is none of `rss`, `rdf:RDF`, `feed`, `entry` (or a bare
//!   `channel`) is "not a feed", so R9 goes on to its next stage.
//! * **Titles as text**, by what the source says they are (Atom `type` and
//!   `mode`; RSS titles read as HTML when they look like it; JSON Feed
//!   plain), then [`super::clean_title`]: one rule wherever a title comes
//!   from.
//! * **Which link.** The first `alternate` (or rel-less) link to an HTML
//!   page (untyped, `text/html`, `application/xhtml+xml`), else the first
//!   other alternate that is not audio, video or an image (R6: attachments
//!   are sub-resources), else a permalink `guid` (never one with
//!   `isPermaLink="false"`) or an Atom `id` that is an absolute `http(s)`
//!   URL; for JSON Feed `url`, else `external_url`, else an `http(s)` `id`.
//!   Links resolve against `xml:base` over the final URL (after
//!   redirects). Entries left without an `http(s)` link are skipped and
//!   counted in [`FeedExtract::skipped_no_link`].
//! * **Recovery as readers do**: an ill-formed document is read leniently
//!   and [`FeedExtract::repairs`] says what was forgiven, where; what
//!   cannot be read names its line and column
//!   ([`ExtractError::Unreadable`]).
//! * **Ids.** The item id is the canonical URL key, never the feed's own
//!   id: output is a pure function of the input.
//! * **Dates.** Published, else updated, as RFC 3339 in UTC
//!   ([`super::date`]).
//! * **At most [`MAX_FEED_ITEMS`] items** per feed, the newest. The
//!   document is read as a stream and entries become items as they end, so
//!   memory is the body, its text when it is not UTF-8, and the items.
//! * **Content is never touched**: summaries, bodies and enclosures are
//!   passed over unread (R6).

use super::repair::Repairs;
use super::{decode, json, xml, Dedup, Entry, ExtractError, Item};

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
    /// What the document was read as: `RSS 2.0`, `Atom 0.3`, `JSON Feed
    /// 1.1`...
    pub format: &'static str,
    /// What had to be repaired to read it (empty for a well-formed feed),
    /// one line per kind with its first place; untrusted text (it quotes
    /// the document), cleaned by the caller before it is shown.
    pub repairs: Vec<String>,
    /// The publisher's pace from the feed's own elements (RSS `ttl`,
    /// `sy:updatePeriod` / `sy:updateFrequency`, `skipHours`,
    /// `skipDays`); the header fields are left empty (issue #23).
    pub hints: wr_core::hints::Hints,
}

/// One entry of a feed as read, before entries become items (no
/// de-duplication, no skipping, no cap): what [`feed_entries`] lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntry {
    /// The title as text, cleaned ([`super::clean_title`]); empty when the
    /// entry has none.
    pub title: String,
    /// The entry's `http(s)` link, if it has one.
    pub link: Option<String>,
    /// RFC 3339 UTC: published, else updated.
    pub published: Option<String>,
}

/// Every entry of a feed, as [`feed_entries`] read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntries {
    /// As [`FeedExtract::format`].
    pub format: &'static str,
    /// In document order.
    pub entries: Vec<FeedEntry>,
    /// As [`FeedExtract::repairs`].
    pub repairs: Vec<String>,
}

/// The most items kept from one feed. A daily digest of links has no use
/// for more (the busiest real-world feeds of the corpus carry a few
/// hundred), while a feed of hundreds of thousands of tiny items would
/// cost memory and digest space for nothing. Past it the newest items are
/// kept (by publication date, then update date; undated items count as
/// oldest, document order breaking ties), and the pipeline says how many
/// were dropped.
pub const MAX_FEED_ITEMS: usize = 2_000;

/// Extracts items from a feed body fetched from `final_url` (the URL after
/// redirects). See the module docs for the rules.
///
/// # Errors
///
/// [`ExtractError::BadBaseUrl`] when `final_url` is not an absolute URL,
/// [`ExtractError::NotAFeed`] when the body is not RSS, Atom or JSON Feed,
/// [`ExtractError::Unreadable`] when it is one that cannot be read.
pub fn feed(body: &[u8], final_url: &str) -> Result<Vec<Item>, ExtractError> {
    feed_with_stats(body, final_url).map(|extract| extract.items)
}

/// [`feed()`] with counts of what was skipped.
///
/// # Errors
///
/// As [`feed()`].
pub fn feed_with_stats(body: &[u8], final_url: &str) -> Result<FeedExtract, ExtractError> {
    read_feed(body, final_url, None)
}

/// [`feed_with_stats`] for a response whose `Content-Type` was
/// `content_type`: its `charset` is the HTTP claim of the encoding.
///
/// # Errors
///
/// As [`feed()`].
pub fn read_feed(
    body: &[u8],
    final_url: &str,
    content_type: Option<&str>,
) -> Result<FeedExtract, ExtractError> {
    let mut out = Dedup::default();
    let mut skipped = 0usize;
    let (format, entries, repairs, hints) =
        read(body, final_url, content_type, &mut |e: Entry| {
            let Some(link) = e.link else {
                skipped += 1;
                return;
            };
            out.push(&link, &e.title, e.published);
            // Trimmed as it grows, so memory stays at twice the cap.
            if out.items.len() >= 2 * MAX_FEED_ITEMS {
                out.keep_newest(MAX_FEED_ITEMS);
            }
        })?;
    out.keep_newest(MAX_FEED_ITEMS);
    Ok(FeedExtract {
        entries,
        skipped_no_link: skipped + out.uncanonical,
        duplicates: out.duplicates,
        capped: out.capped,
        items: out.items,
        format,
        repairs,
        hints,
    })
}

/// Every entry of a feed, its title as text and its link, in document
/// order: the reading [`read_feed`] makes items of, for tests held to a
/// reference reader and for diagnostics. Unlike [`read_feed`] it keeps
/// every entry, so its memory grows with the feed.
///
/// # Errors
///
/// As [`feed()`].
pub fn feed_entries(
    body: &[u8],
    final_url: &str,
    content_type: Option<&str>,
) -> Result<FeedEntries, ExtractError> {
    let mut entries = Vec::new();
    let (format, _, repairs, _) = read(body, final_url, content_type, &mut |e: Entry| {
        entries.push(FeedEntry {
            title: super::clean_title(&e.title),
            link: e.link.map(String::from),
            published: e.published,
        })
    })?;
    Ok(FeedEntries {
        format,
        entries,
        repairs,
    })
}

/// Reads the document, handing each entry to `sink`: its format, its
/// number of entries and the repairs it needed.
fn read(
    body: &[u8],
    final_url: &str,
    content_type: Option<&str>,
    sink: &mut dyn FnMut(Entry),
) -> Result<(&'static str, usize, Vec<String>, wr_core::hints::Hints), ExtractError> {
    let base = url::Url::parse(final_url).map_err(|e| ExtractError::BadBaseUrl {
        url: final_url.to_owned(),
        reason: e.to_string(),
    })?;
    let mut repairs = Repairs::default();
    let text = decode::decode(body, content_type.and_then(decode::charset), &mut repairs);
    // Positions are the whole text's, leading space included.
    let first = text
        .trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .as_bytes()
        .first();
    let (format, entries, hints) = match first {
        Some(b'<') => {
            let r = xml::read(&text, &base, &mut repairs, sink)?;
            (r.format, r.entries, r.hints)
        }
        Some(b'{') => {
            let (format, entries) = json::read(text.as_bytes(), &base, sink)?;
            (format, entries, wr_core::hints::Hints::default())
        }
        Some(_) => {
            return Err(ExtractError::NotAFeed(
                "neither XML nor JSON: RSS, Atom and JSON Feed start with '<' or '{'".into(),
            ))
        }
        None => return Err(ExtractError::NotAFeed("the body is empty".into())),
    };
    Ok((format, entries, repairs.into_lines(), hints))
}
