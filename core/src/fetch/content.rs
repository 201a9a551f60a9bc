//! What a `Content-Type` says a body is: which extractor R9 hands it to.
//! A decision, not parsing, so it lives with the machines (no sniffing:
//! the bot never guesses from the body).

use alloc::string::String;

/// What a response's `Content-Type` says the body is, for the R9 decisions
/// of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentKind {
    /// RSS, Atom or JSON Feed (or generic XML / JSON that may be one):
    /// parse as a feed.
    Feed,
    /// Any type containing `markdown` (`text/markdown`, `text/x-markdown`):
    /// parse as markdown.
    Markdown,
    /// `text/plain`: acceptable as markdown for `/llms.txt` only.
    PlainText,
    /// `text/html` or `application/xhtml+xml`: never scraped (R9 MUST NOT).
    Html,
    /// Anything else, or no `Content-Type` at all.
    Other,
}

/// Classifies a `Content-Type` header value.
///
/// Case-insensitive; parameters (`; charset=utf-8`) are ignored. Decisions:
///
/// * anything whose media type contains `markdown` is [`ContentKind::Markdown`]
///   (spec 10.4: "the Content-Type contains `markdown`"), checked first;
/// * `application/rss+xml`, `application/atom+xml`, `application/rdf+xml`
///   (and their `x-` variants), `application/feed+json`, `application/xml`,
///   `text/xml` and `application/json` are [`ContentKind::Feed`]. Generic XML
///   and JSON are included because feeds are commonly served that way (the
///   JSON Feed spec allows `application/json`); a body that turns out not to
///   be a feed fails cleanly in the driver's feed parser;
/// * `text/plain` is [`ContentKind::PlainText`];
/// * `text/html` and `application/xhtml+xml` are [`ContentKind::Html`];
/// * a missing or unrecognised type is [`ContentKind::Other`]: the pipeline
///   does not guess from the body (no sniffing), it leaves the source out.
pub fn content_kind(content_type: Option<&str>) -> ContentKind {
    let Some(value) = content_type else {
        return ContentKind::Other;
    };
    let essence: String = value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if essence.contains("markdown") {
        return ContentKind::Markdown;
    }
    match essence.as_str() {
        "application/rss+xml"
        | "application/x-rss+xml"
        | "application/atom+xml"
        | "application/x-atom+xml"
        | "application/rdf+xml"
        | "application/feed+json"
        | "application/xml"
        | "text/xml"
        | "application/json" => ContentKind::Feed,
        "text/plain" => ContentKind::PlainText,
        "text/html" | "application/xhtml+xml" => ContentKind::Html,
        _ => ContentKind::Other,
    }
}
