//! The digest: Markdown for notes, or JSON (`wr-feeds-digest/v1`).
//!
//! Both renderings come from one [`Digest`] value, so they never disagree.

use serde::Serialize;
use std::path::Path;

pub(crate) mod assemble;

/// The schema name carried in every JSON digest.
pub const SCHEMA: &str = "wr-feeds-digest/v1";

/// The reason of a source whose server answered 304 (the presenter's).
pub use wr_feeds::words::NOT_MODIFIED;

/// What happened to a source in this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Fetched (or answered 304); `items` holds what is new (or everything
    /// with `--all`).
    Ok,
    /// R8: fetched less than an hour ago; not fetched again (`--force`
    /// overrides).
    Skipped,
    /// Refused by the operator blocklist (R3) or robots.txt (R2).
    Denied,
    /// Could not be tried in this run (robots.txt unreachable, host
    /// cooling down after errors, a Retry-After beyond this run).
    Deferred,
    /// R9: no feed, no markdown, no llms.txt; HTML is never scraped.
    LeftOut,
    /// An error: HTTP status, timeout, unreadable feed, too large.
    Failed,
}

impl Status {
    /// The word used in both renderings.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Denied => "denied",
            Status::Deferred => "deferred",
            Status::LeftOut => "left_out",
            Status::Failed => "failed",
        }
    }

    /// Whether this status makes the run exit with status 1.
    pub fn is_problem(self) -> bool {
        matches!(self, Status::Failed | Status::Deferred)
    }

    /// The status [`Status::as_str`] names (as the store keeps it).
    pub fn from_word(word: &str) -> Option<Status> {
        [
            Status::Ok,
            Status::Skipped,
            Status::Denied,
            Status::Deferred,
            Status::LeftOut,
            Status::Failed,
        ]
        .into_iter()
        .find(|s| s.as_str() == word)
    }
}

/// One link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DigestItem {
    /// Cleaned title (may be empty: the URL is shown instead).
    pub title: String,
    /// Absolute http(s) URL.
    pub url: String,
    /// RFC 3339 publication date, when the source gave one.
    pub published: Option<String>,
    /// The other sources of the digest that carry this link (the same R7
    /// canonical key), in file order: the item is listed once, under the
    /// first ([`list_once`]).
    pub also_in: Vec<String>,
}

/// A fetched or stored item as the digest lists it, before
/// [`list_once`] says where else it appears.
impl From<&wr_feeds::Item> for DigestItem {
    fn from(i: &wr_feeds::Item) -> DigestItem {
        DigestItem {
            title: i.title.clone(),
            url: i.url.clone(),
            published: i.published.clone(),
            also_in: Vec::new(),
        }
    }
}

/// One source's section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceReport {
    /// Name from sources.toml.
    pub name: String,
    /// Page URL from sources.toml.
    pub url: String,
    /// Tags from sources.toml.
    pub tags: Vec<String>,
    /// Outcome.
    pub status: Status,
    /// Why, for anything but a plain `ok`: for an `ok` source, a 304, a
    /// feed read after repairs or one with zero entries.
    pub reason: Option<String>,
    /// How the items were obtained: `feed`, `markdown` or `llms-txt`.
    pub method: Option<String>,
    /// Items (new ones, or all with `--all`).
    pub items: Vec<DigestItem>,
    /// Items left out by the source's `max_items` (said in `reason`).
    #[serde(skip)]
    pub not_listed: usize,
    /// What each filter (`[filters]`, the source's `keep` / `drop`) left
    /// out of this section.
    pub filtered: Vec<crate::filters::FilterCount>,
    /// Items of this source listed under an earlier one ([`list_once`]).
    #[serde(skip)]
    pub listed_elsewhere: usize,
    /// The usage preferences (`Content-Signal`, `Content-Usage`,
    /// `License`) of the robots.txt of the origin the source was read
    /// from: what its publisher asks of uses this bot does not make.
    pub signals: Vec<wr_feeds::SignalReport>,
}

/// What `reason` says of items a source's `max_items` left out.
pub fn not_listed_note(not_listed: usize, max_items: usize) -> String {
    format!("{not_listed} more not listed (max_items = {max_items})")
}

impl SourceReport {
    /// The section with at most `max_items` of its items (the first ones),
    /// `reason` saying how many more there were. The digest and `show`
    /// both cut here, so they list the same items.
    pub fn capped(mut self, max_items: Option<usize>) -> SourceReport {
        let shown = max_items.unwrap_or(usize::MAX);
        let left = self.items.len().saturating_sub(shown);
        if left > 0 {
            self.items.truncate(shown);
            let note = not_listed_note(left, shown);
            self.reason = Some(match self.reason.take() {
                None => note,
                Some(r) => format!("{r}; {note}"),
            });
        }
        self.not_listed = left;
        self
    }
}

/// A whole digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Digest {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// When the digest was made: RFC 3339, UTC, seconds.
    pub generated: String,
    /// The day the digest is (`YYYY-MM-DD`, the local date: see [`day`]),
    /// or `since YYYY-MM-DD` for `show --since`.
    pub day: String,
    /// `new` (items first seen since the previous digest) or `all`.
    pub selection: &'static str,
    /// Sources in sources.toml order.
    pub sources: Vec<SourceReport>,
}

impl Digest {
    /// The digest of `day` ([`day`] of the instant, normally), generated at
    /// `unix_secs`.
    pub fn new(unix_secs: i64, day: &str, all: bool, sources: Vec<SourceReport>) -> Digest {
        Digest {
            schema: SCHEMA,
            generated: rfc3339(unix_secs),
            day: day.to_string(),
            selection: if all { "all" } else { "new" },
            sources,
        }
    }

    /// A digest written again from the store (`show`): `title` is its day,
    /// or `since DAY`.
    pub fn titled(title: &str, unix_secs: i64, sources: Vec<SourceReport>) -> Digest {
        Digest {
            schema: SCHEMA,
            generated: rfc3339(unix_secs),
            day: title.to_string(),
            selection: "new",
            sources,
        }
    }

    /// Exit status: 1 if any source failed or was deferred, else 0.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.sources.iter().any(|s| s.status.is_problem()))
    }

    /// The JSON rendering (one document, trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_string());
        s.push('\n');
        s
    }

    /// The Markdown rendering.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("# Digest {}\n", self.day));
        for s in &self.sources {
            out.push_str(&format!("\n## {}\n\n", escape_inline(&s.name)));
            // What the section says before its items, one italic
            // paragraph each, blank lines between.
            let mut notes: Vec<String> = Vec::new();
            if s.status != Status::Ok {
                let reason = s.reason.as_deref().unwrap_or("no reason given");
                notes.push(format!(
                    "{}: {}",
                    s.status.as_str().replace('_', " "),
                    escape_inline(reason)
                ));
            } else if let Some(more) = s
                .reason
                .as_deref()
                .filter(|r| s.not_listed > 0 || *r != NOT_MODIFIED)
            {
                // Items cut by the source's max_items, a feed read after
                // repairs or listing nothing: say so.
                notes.push(escape_inline(more));
            }
            let dropped: Vec<String> = s
                .filtered
                .iter()
                .filter(|f| f.dropped > 0)
                .map(|f| escape_inline(&f.describe()))
                .collect();
            if !dropped.is_empty() {
                let n: usize = s.filtered.iter().map(|f| f.dropped).sum();
                notes.push(format!("Filtered out {n}: {}", dropped.join("; ")));
            }
            if s.listed_elsewhere > 0 {
                notes.push(format!(
                    "{} listed under an earlier source.",
                    plural(s.listed_elsewhere, "item", "items")
                ));
            }
            if s.items.is_empty() && s.status == Status::Ok {
                notes.push(
                    if self.selection == "all" {
                        "No items offered."
                    } else {
                        "No new items."
                    }
                    .to_string(),
                );
            }
            let notes: Vec<String> = notes.into_iter().map(|n| format!("*{n}*\n")).collect();
            out.push_str(&notes.join("\n"));
            if !s.items.is_empty() {
                if !notes.is_empty() {
                    out.push('\n');
                }
                for item in &s.items {
                    out.push_str(&item_line(item));
                    out.push('\n');
                }
            }
        }
        out
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One item, one listing: an item whose link (by its R7 canonical key)
/// an earlier section already lists, in file order, is taken out of its
/// section and that section's name is added to the first's `also_in`
/// (a link twice in one section is listed once). So a digest of
/// overlapping feeds lists each link once, under the first source that
/// has it. Run after filters and `max_items`, so an item never
/// disappears because a section that would have listed it did not.
pub fn list_once(sections: &mut [SourceReport]) {
    use std::collections::HashMap;
    // canonical key -> (section, index in its items)
    let mut first: HashMap<String, (usize, usize)> = HashMap::new();
    for s in 0..sections.len() {
        let items = std::mem::take(&mut sections[s].items);
        // `first` points into `kept` for this section's own items; they
        // are put back before the next section looks.
        let mut kept = Vec::with_capacity(items.len());
        for item in items {
            let key = crate::sources::canonical(&item.url);
            match first.get(&key) {
                Some(&(fs, fi)) => {
                    if fs != s {
                        let name = sections[s].name.clone();
                        let also = &mut sections[fs].items[fi].also_in;
                        if !also.contains(&name) {
                            also.push(name);
                        }
                        sections[s].listed_elsewhere += 1;
                    }
                }
                None => {
                    first.insert(key, (s, kept.len()));
                    kept.push(item);
                }
            }
        }
        sections[s].items = kept;
    }
}

/// One `- [title](url)` line; a URL that is not http(s) is shown as text,
/// never as a link. An item other sources carry too says so after it.
pub fn item_line(item: &DigestItem) -> String {
    let line = link_line(item);
    if item.also_in.is_empty() {
        return line;
    }
    let names: Vec<String> = item.also_in.iter().map(|n| escape_inline(n)).collect();
    format!("{line} (also in {})", names.join(", "))
}

fn link_line(item: &DigestItem) -> String {
    let title = if item.title.trim().is_empty() {
        &item.url
    } else {
        &item.title
    };
    let lower = item.url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return format!("- {} ({})", escape_inline(title), escape_inline(&item.url));
    }
    format!(
        "- [{}]({})",
        escape_inline(title),
        link_destination(&item.url)
    )
}

/// Escapes text so that it renders literally inside a Markdown paragraph,
/// heading or link text: every ASCII punctuation character that Markdown
/// (CommonMark + GFM) gives a meaning to is backslash-escaped, and line
/// breaks and other control characters become spaces.
pub fn escape_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '<' | '>' | '#' | '!' | '&' | '|'
            | '~' | '{' | '}' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => out.push(' '),
            c => out.push(c),
        }
    }
    // A heading must not end in `#`s (closing sequence) and no line may be
    // read as a list or block quote: the escaping above covers `#`, and the
    // text never starts a line on its own.
    out
}

/// A link destination that cannot end the link early: characters that
/// would (space, control characters, `<`, `>`, `\`, `"`, backtick) are
/// percent-encoded, and a URL with parentheses is wrapped in `<...>`.
pub fn link_destination(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            ' ' | '<' | '>' | '\\' | '"' | '`' => out.push_str(&format!("%{:02X}", c as u32)),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    if out.contains('(') || out.contains(')') {
        format!("<{out}>")
    } else {
        out
    }
}

/// The digest day of `unix_secs`: its date where the user is, from `TZ`
/// (a zone name or a POSIX rule), else `/etc/localtime`, else UTC;
/// `YYYY-MM-DD`, the date in the digest's title. A morning digest and its
/// reruns are one day wherever the user lives (a UTC day would split a
/// 07:00 digest in Tokyo from its 09:30 rerun).
pub fn day(unix_secs: i64) -> String {
    use chrono::TimeZone;
    match chrono::Local.timestamp_opt(unix_secs, 0).single() {
        Some(t) => t.date_naive().format("%Y-%m-%d").to_string(),
        None => rfc3339(unix_secs)[..10].to_string(),
    }
}

/// The day of the wr-feeds digest `bytes` holds (what `-o` is about to
/// replace): the day in the Markdown title (`# Digest YYYY-MM-DD`) or the
/// JSON `day`. `None` for anything else: no digest of ours, or an
/// `--all` or `since` one.
pub fn day_held(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let day = match text.strip_prefix("# Digest ") {
        Some(rest) => rest.lines().next()?.trim_end().to_string(),
        None => {
            let v: serde_json::Value = serde_json::from_str(text).ok()?;
            if v["schema"] != SCHEMA {
                return None;
            }
            v["day"].as_str()?.to_string()
        }
    };
    parse_day(&day).ok().map(|_| day)
}

/// Where `-o`'s earlier day is kept: `path` with `-DAY` before its
/// extension (`digest.md` -> `digest-2026-11-25.md`), the name
/// `-o digest-{date}.md` would have given it.
pub fn kept_name(path: &Path, day: &str) -> std::path::PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{day}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{day}"),
    };
    path.with_file_name(name)
}

/// `s` as a digest day: exactly `YYYY-MM-DD`, and a date that exists.
pub fn parse_day(s: &str) -> Result<chrono::NaiveDate, String> {
    let b = s.as_bytes();
    let shaped = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    let bad = || format!("{s:?} is not a date (expected YYYY-MM-DD)");
    if !shaped {
        return Err(bad());
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| bad())
}

/// The instant local day `d` begins, in Unix ms. A midnight a daylight
/// saving change skips begins the day at the first local time that
/// exists.
fn day_start_ms(d: chrono::NaiveDate) -> u64 {
    use chrono::TimeZone;
    let midnight = d.and_time(chrono::NaiveTime::MIN);
    let start = (0..=96).find_map(|quarter| {
        let t = midnight + chrono::Duration::minutes(15 * quarter);
        chrono::Local.from_local_datetime(&t).earliest()
    });
    let ms = start.map_or_else(
        || midnight.and_utc().timestamp_millis(),
        |t| t.timestamp_millis(),
    );
    u64::try_from(ms).unwrap_or(0)
}

/// The digest days `first..=last` for the store: their dates and the
/// instants they span, so items reported before days were recorded are
/// placed by the local day they were first seen.
pub fn days(
    first: chrono::NaiveDate,
    last: chrono::NaiveDate,
    today: chrono::NaiveDate,
) -> wr_feeds::store::Days {
    let after = last.succ_opt().unwrap_or(last);
    wr_feeds::store::Days {
        first: first.format("%Y-%m-%d").to_string(),
        last: last.format("%Y-%m-%d").to_string(),
        start: wr_core::time::Timestamp(day_start_ms(first)),
        end: wr_core::time::Timestamp(day_start_ms(after)),
        today: today.format("%Y-%m-%d").to_string(),
    }
}

/// `path` with every `{date}` replaced by `day`: `digest-{date}.md` names
/// one file per day.
pub fn dated(path: &Path, day: &str) -> std::path::PathBuf {
    match path.to_str() {
        Some(p) if p.contains("{date}") => p.replace("{date}", day).into(),
        _ => path.to_path_buf(),
    }
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (the presenter's instants).
pub use wr_feeds::words::rfc3339;

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};

    fn item(title: &str, url: &str) -> DigestItem {
        DigestItem {
            title: title.into(),
            url: url.into(),
            published: None,
            also_in: Vec::new(),
        }
    }

    fn report(name: &str, status: Status, items: Vec<DigestItem>) -> SourceReport {
        SourceReport {
            name: name.into(),
            url: "https://a.example/".into(),
            tags: vec![],
            status,
            reason: (status != Status::Ok).then(|| "because [x](y) *z*".to_string()),
            method: Some("feed".into()),
            items,
            not_listed: 0,
            filtered: Vec::new(),
            listed_elsewhere: 0,
            signals: Vec::new(),
        }
    }

    /// (link text, destination) of every link pulldown-cmark finds.
    pub(super) fn links(md: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut cur: Option<(String, String)> = None;
        for ev in Parser::new(md) {
            match ev {
                Event::Start(Tag::Link { dest_url, .. }) => {
                    cur = Some((String::new(), dest_url.to_string()))
                }
                Event::Text(t) | Event::Code(t) => {
                    if let Some(c) = cur.as_mut() {
                        c.0.push_str(&t)
                    }
                }
                Event::End(TagEnd::Link) => out.extend(cur.take()),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn hostile_titles_and_urls_stay_one_link_each() {
        let nasty = [
            ("a](https://evil.example/) [b", "https://a.example/1"),
            (
                "*bold* _em_ `code` <script>x</script>",
                "https://a.example/2",
            ),
            ("line\nbreak\r\n# heading\n- list", "https://a.example/3"),
            ("back\\slash \\] & &amp; ![img](x)", "https://a.example/4"),
            (
                "parens",
                "https://en.wikipedia.org/wiki/Rust_(programming_language)",
            ),
            ("space", "https://a.example/with space/>\"x\""),
            ("unbalanced", "https://a.example/a)b(c"),
            ("", "https://a.example/untitled"),
        ];
        let items: Vec<DigestItem> = nasty.iter().map(|(t, u)| item(t, u)).collect();
        let d = Digest::new(0, "1970-01-01", false, vec![report("S", Status::Ok, items)]);
        let md = d.to_markdown();
        let found = links(&md);
        assert_eq!(found.len(), nasty.len(), "{md}");
        for ((t, u), (ft, fu)) in nasty.iter().zip(&found) {
            let want_title = if t.is_empty() {
                u.to_string()
            } else {
                t.replace(['\n', '\r'], " ")
            };
            assert_eq!(ft, &want_title, "{md}");
            let want_url = u
                .replace(' ', "%20")
                .replace('>', "%3E")
                .replace('"', "%22");
            assert_eq!(fu, &want_url, "{md}");
        }
    }

    #[test]
    fn markdown_layout() {
        let d = Digest::new(
            1_779_580_800, // 2026-05-24T00:00:00Z
            "2026-05-24",
            false,
            vec![
                report(
                    "Blog (main)",
                    Status::Ok,
                    vec![item("Hello", "https://a.example/h")],
                ),
                report("Quiet", Status::Ok, vec![]),
                report("Refused", Status::Denied, vec![]),
            ],
        );
        let md = d.to_markdown();
        assert!(md.starts_with("# Digest 2026-05-24\n"), "{md}");
        assert!(
            md.contains("\n## Blog \\(main\\)\n\n- [Hello](https://a.example/h)\n"),
            "{md}"
        );
        assert!(md.contains("\n## Quiet\n\n*No new items.*\n"), "{md}");
        assert!(
            md.contains("\n## Refused\n\n*denied: because \\[x\\]\\(y\\) \\*z\\**\n"),
            "{md}"
        );
        assert!(
            links(&md).len() == 1,
            "the reason must not become a link: {md}"
        );
        assert_eq!(d.exit_code(), 0);
    }

    /// Issue #23: a link two sources carry (by its R7 canonical key) is
    /// listed once, under the first, naming the others.
    #[test]
    fn one_link_is_listed_once_under_the_first_source() {
        let mut sections = vec![
            report(
                "A",
                Status::Ok,
                vec![
                    item("One", "https://x.example/1"),
                    item("Two", "https://x.example/2"),
                ],
            ),
            report(
                "B",
                Status::Ok,
                vec![
                    item("One again", "HTTPS://X.example:443/1#comments"),
                    item("Three", "https://x.example/3"),
                    item("Three twice", "https://x.example/3"),
                ],
            ),
            report("C", Status::Ok, vec![item("One", "https://x.example/1")]),
        ];
        list_once(&mut sections);
        let urls = |s: &SourceReport| s.items.iter().map(|i| i.url.clone()).collect::<Vec<_>>();
        assert_eq!(
            urls(&sections[0]),
            ["https://x.example/1", "https://x.example/2"]
        );
        assert_eq!(urls(&sections[1]), ["https://x.example/3"]);
        assert!(sections[2].items.is_empty());
        assert_eq!(sections[0].items[0].also_in, ["B", "C"]);
        assert!(sections[0].items[1].also_in.is_empty());
        assert_eq!(
            (sections[1].listed_elsewhere, sections[2].listed_elsewhere),
            (1, 1)
        );
        let d = Digest::new(0, "1970-01-01", false, sections);
        let md = d.to_markdown();
        assert!(
            md.contains("- [One](https://x.example/1) (also in B, C)\n"),
            "{md}"
        );
        assert!(
            md.contains("\n## C\n\n*1 item listed under an earlier source.*\n"),
            "{md}"
        );
        assert_eq!(links(&md).len(), 3, "{md}");
        let v: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
        assert_eq!(
            v["sources"][0]["items"][0]["also_in"],
            serde_json::json!(["B", "C"])
        );
        assert_eq!(
            v["sources"][0]["items"][1]["also_in"],
            serde_json::json!([])
        );
    }

    #[test]
    fn non_http_urls_are_never_links() {
        let line = item_line(&item("x", "javascript:alert(1)"));
        assert!(links(&line).is_empty(), "{line}");
    }

    #[test]
    fn json_schema_fields() {
        let d = Digest::new(
            0,
            "1970-01-01",
            true,
            vec![
                report("A", Status::LeftOut, vec![]),
                report("B", Status::Failed, vec![]),
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
        assert_eq!(v["schema"], "wr-feeds-digest/v1");
        assert_eq!(v["generated"], "1970-01-01T00:00:00Z");
        assert_eq!(v["selection"], "all");
        assert_eq!(v["sources"][0]["status"], "left_out");
        assert_eq!(v["sources"][1]["status"], "failed");
        assert_eq!(v["sources"][0]["items"], serde_json::json!([]));
        for k in ["name", "url", "tags", "status", "reason", "method", "items"] {
            assert!(v["sources"][0].get(k).is_some(), "missing {k}");
        }
        assert_eq!(d.exit_code(), 1);
    }

    #[test]
    fn digest_days_are_checked_dates() {
        assert_eq!(
            parse_day("2028-02-29").map(|d| d.to_string()),
            Ok("2028-02-29".to_string())
        );
        for bad in [
            "2026-02-30",
            "2026-1-24",
            "20261124",
            "2026/11/24",
            "yesterday",
            "2026-11-24x",
            "+2026-11-2",
            "",
        ] {
            assert_eq!(
                parse_day(bad),
                Err(format!("{bad:?} is not a date (expected YYYY-MM-DD)")),
                "{bad}"
            );
        }
        let d = parse_day("2026-11-24").unwrap();
        let span = days(d, d, d);
        assert_eq!(
            (span.first.as_str(), span.last.as_str()),
            ("2026-11-24", "2026-11-24")
        );
        // A day is 23 to 25 hours long wherever the test runs.
        let len = span.end.0 - span.start.0;
        assert!((23 * 3_600_000..=25 * 3_600_000).contains(&len), "{len}");
        assert_eq!(day((span.start.0 / 1000) as i64), "2026-11-24");
        assert_eq!(day((span.end.0 / 1000) as i64 - 1), "2026-11-24");
        assert_eq!(day((span.end.0 / 1000) as i64), "2026-11-25");
    }

    #[test]
    fn a_report_is_capped_with_a_note() {
        let items = vec![
            item("a", "https://a/1"),
            item("b", "https://a/2"),
            item("c", "https://a/3"),
        ];
        let r = report("S", Status::Ok, items.clone()).capped(Some(2));
        assert_eq!(r.items, items[..2]);
        assert_eq!(
            r.reason.as_deref(),
            Some("1 more not listed (max_items = 2)")
        );
        let r = report("S", Status::Skipped, items.clone()).capped(Some(5));
        assert_eq!(r.items.len(), 3);
        assert_eq!(r.not_listed, 0);
    }

    #[test]
    fn dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_779_580_800 + 3_723), "2026-05-24T01:02:03Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use pulldown_cmark::{Event, Parser, Tag};

    fn title_chars() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                proptest::char::range('a', 'z'),
                proptest::sample::select(
                    "[]()*_\\`<>#!&|~{}$-+=.:;\"' \t\n\r\u{0}\u{85}\u{2028}é😀"
                        .chars()
                        .collect::<Vec<_>>()
                ),
                any::<char>(),
            ],
            0..40,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        /// Whatever the title and path, a digest line is exactly one link
        /// whose text is the title (line breaks and control characters as
        /// spaces) and whose destination is the URL (with the characters
        /// that cannot appear in a destination percent-encoded).
        #[test]
        fn any_title_and_url_stay_one_exact_link(title in title_chars(), path in "[ -~]{0,30}") {
            let url = format!("https://a.example/{path}");
            let line = item_line(&DigestItem { title: title.clone(), url: url.clone(), published: None, also_in: vec![] });
            let links = super::tests::links(&format!("# Digest\n\n## S\n\n{line}\n"));
            prop_assert_eq!(links.len(), 1, "{}", line);
            let want_title = if title.trim().is_empty() {
                url.clone()
            } else {
                title
                    .chars()
                    .map(|c| if c.is_control() || c == '\u{2028}' || c == '\u{2029}' { ' ' } else { c })
                    .collect()
            };
            prop_assert_eq!(&links[0].0, &want_title, "{}", line);
            let want_url: String = url
                .chars()
                .map(|c| match c {
                    ' ' | '<' | '>' | '\\' | '"' | '`' => format!("%{:02X}", c as u32),
                    c => c.to_string(),
                })
                .collect();
            prop_assert_eq!(&links[0].1, &want_url, "{}", line);
        }

        /// A source name can never open a second heading or a link.
        #[test]
        fn any_name_is_one_heading(name in title_chars()) {
            let d = Digest::new(0, "1970-01-01", false, vec![SourceReport {
                name: name.clone(), url: "https://a/".into(), tags: vec![], status: Status::Ok,
                reason: None, method: None, items: vec![], not_listed: 0, filtered: vec![], listed_elsewhere: 0, signals: vec![],
            }]);
            let md = d.to_markdown();
            let headings = Parser::new(&md)
                .filter(|e| matches!(e, Event::Start(Tag::Heading { .. })))
                .count();
            prop_assert_eq!(headings, 2, "{}", md);
            prop_assert!(super::tests::links(&md).is_empty(), "{}", md);
        }

        /// Arbitrary text never panics the sources.toml or OPML readers.
        #[test]
        fn readers_never_panic(text in "\\PC{0,200}") {
            let _ = crate::sources::parse(std::path::Path::new("s.toml"), &text);
            let _ = crate::opml::import(&text);
            let _ = crate::opml::import(&format!("<opml><body><outline {text}/></body></opml>"));
        }
    }
}
