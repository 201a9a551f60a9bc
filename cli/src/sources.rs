//! `sources.toml`: the list of sources a digest is made from.
//!
//! ```toml
//! [settings]                  # optional; every key optional
//! format = "markdown"         # or "json"
//! output = "digest.md"        # relative to this file's directory
//! state_dir = "state"         # relative to this file's directory
//! operator_base = "https://wal.sh"
//! timeout_secs = 30           # whole-request timeout, 1..=600
//! coordinator = "redis://10.0.0.5:6379/0"  # several machines, one budget per host
//!
//! [[source]]
//! name = "Rust Blog"          # unique
//! url = "https://blog.rust-lang.org/"
//! feed = "https://blog.rust-lang.org/feed.xml"   # optional
//! tags = ["rust", "lang"]     # optional
//! keep = ["rust"]             # optional: list only items matching one
//! drop = ["(?-i)^Ad:"]        # optional: leave out items matching any
//! ```
//!
//! An optional `[filters]` table holds `keep` and `drop` lists for every
//! source (see [`crate::filters`]).
//!
//! Every error names the file, line and column. A file with any error is
//! refused whole: nothing is fetched.

use crate::filters::{Filters, Pattern};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;
use wr_feeds::extract::{clean_message, clean_title};

/// One `[[source]]` table, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Unique name, used as the digest section heading.
    pub name: String,
    /// The source's page (fetched as markdown if no feed works, R9).
    pub url: String,
    /// A declared feed, tried first (R9).
    pub feed: Option<String>,
    /// Free-form labels, carried into the JSON digest.
    pub tags: Vec<String>,
    /// `enabled = false` keeps a source in the file without running it.
    pub enabled: bool,
    /// At most this many items of the source in a digest (the first ones
    /// in the feed's order, normally the newest).
    pub max_items: Option<usize>,
    /// The source's own `keep` / `drop` patterns.
    pub filters: Filters,
}

impl Source {
    /// The URL that identifies the source for duplicate detection: its
    /// feed when it declares one, else its page.
    pub fn identity(&self) -> &str {
        self.feed.as_deref().unwrap_or(&self.url)
    }

    /// Its key in the state store (`wr_feeds::Source::key`): the canonical
    /// identity URL, so a rename keeps its history.
    pub fn key(&self) -> String {
        self.to_pipeline().key()
    }

    /// The pipeline's view of the source.
    pub fn to_pipeline(&self) -> wr_feeds::Source {
        wr_feeds::Source {
            name: self.name.clone(),
            url: self.url.clone(),
            feed: self.feed.clone(),
        }
    }
}

/// Output format of the digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Markdown, ready to paste into notes.
    #[default]
    Markdown,
    /// JSON, schema `wr-feeds-digest/v1` (see README).
    Json,
}

/// The optional `[settings]` table, validated; paths are resolved against
/// the directory holding the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Default `--format`.
    pub format: Option<Format>,
    /// Default `--output`.
    pub output: Option<PathBuf>,
    /// Default `--state-dir`.
    pub state_dir: Option<PathBuf>,
    /// Operator base URL (the `WR_OPERATOR_BASE` environment variable wins).
    pub operator_base: Option<String>,
    /// Whole-request timeout in seconds.
    pub timeout_secs: Option<u64>,
    /// The fleet coordinator (`redis://host:port/db`; `--coordinator` and
    /// `WR_COORDINATOR` win).
    pub coordinator: Option<String>,
}

/// A loaded `sources.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourcesFile {
    /// Global settings.
    pub settings: Settings,
    /// `[filters]`: every source's.
    pub filters: Filters,
    /// Sources in file order.
    pub sources: Vec<Source>,
}

/// An error located in a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct LoadError {
    /// The file as the user named it.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: usize,
    /// 1-based column (in characters), when known.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The offending line of the file, for context.
    pub snippet: Option<String>,
}

impl LoadError {
    /// The message: `file:line:column: message`, then the offending line
    /// with a caret under the column when it is known.
    fn render(&self) -> String {
        let mut out = format!(
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        );
        if let Some(s) = &self.snippet {
            let width = self.line.to_string().len();
            // The caret sits under the column: tabs before it are kept so
            // the terminal expands them the same way on both lines.
            let pad: String = s
                .chars()
                .chain(std::iter::repeat(' '))
                .take(self.column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&format!(
                "\n{:width$} |\n{} | {}\n{:width$} | {pad}^",
                "", self.line, s, ""
            ));
        }
        out
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    settings: Option<Spanned<RawSettings>>,
    filters: Option<RawFilters>,
    #[serde(default)]
    source: Vec<Spanned<RawSource>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    format: Option<Spanned<String>>,
    output: Option<Spanned<String>>,
    state_dir: Option<Spanned<String>>,
    operator_base: Option<Spanned<String>>,
    timeout_secs: Option<Spanned<i64>>,
    coordinator: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFilters {
    keep: Option<Vec<Spanned<String>>>,
    drop: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
    name: Spanned<String>,
    url: Spanned<String>,
    feed: Option<Spanned<String>>,
    tags: Option<Vec<Spanned<String>>>,
    enabled: Option<bool>,
    max_items: Option<Spanned<i64>>,
    keep: Option<Vec<Spanned<String>>>,
    drop: Option<Vec<Spanned<String>>>,
}

/// Line and column (1-based, column in characters) of byte `offset`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..offset].chars().count() + 1;
    (line, column)
}

struct Ctx<'a> {
    file: &'a Path,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, span: Option<Range<usize>>, message: impl Into<String>) -> LoadError {
        let (line, column) = span.map_or((1, 1), |s| line_col(self.text, s.start));
        let snippet = self
            .text
            .lines()
            .nth(line - 1)
            .map(|l| l.trim_end_matches('\r').to_string());
        LoadError {
            file: self.file.to_path_buf(),
            line,
            column,
            message: message.into(),
            snippet,
        }
    }
}

/// The longest URL a source may have, in octets: RFC 9110 §4.1 asks
/// senders and recipients to support request lines of at least 8,000
/// octets, and servers commonly refuse longer ones. Past it a source
/// could only fail, so it is refused here, with its line and column.
pub const MAX_URL_LEN: usize = 8_000;

/// Validates an absolute http(s) URL as a user wrote it; returns the
/// trimmed string.
pub fn check_url(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err("empty URL".into());
    }
    // The URL is kept as written and shown in headings, errors and files:
    // a line break or an escape in it (the url crate drops tabs and line
    // breaks when parsing, so it never objected) or a bidi control would
    // reach them raw (issue #20). Refused, the message shows it cleaned.
    if let Some(c) = s.chars().find(|&c| c.is_control() || is_bidi_control(c)) {
        return Err(format!(
            "bad URL `{}`: it contains the control character U+{:04X}",
            clean_message(s),
            u32::from(c)
        ));
    }
    // From here on the messages may quote `s`: nothing in it is a control.
    if s.len() > MAX_URL_LEN {
        let start: String = s.chars().take(60).collect();
        return Err(format!(
            "URL too long ({} octets; at most {MAX_URL_LEN}): `{start}...`",
            s.len()
        ));
    }
    let parsed = url::Url::parse(s).map_err(|e| format!("bad URL `{s}`: {e}"))?;
    if parsed.scheme() != "http" && parsed.scheme() != "https" {
        return Err(format!(
            "unsupported scheme `{}` in `{s}`: only http and https URLs can be fetched",
            parsed.scheme()
        ));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("bad URL `{s}`: no host"));
    }
    if let Some(url::Host::Domain(d)) = parsed.host() {
        dns_lengths(d).map_err(|m| format!("bad URL `{s}`: {m}"))?;
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!(
            "bad URL `{s}`: credentials in URLs are not supported"
        ));
    }
    wr_core::url::Url::parse(s).map_err(|e| format!("bad URL `{s}`: {e}"))?;
    Ok(s.to_string())
}

/// RFC 1035 section 2.3.4 (and RFC 1123 2.1): a name of at most 255
/// octets on the wire, so at most 253 written (without a final dot), each
/// label 1 to 63 octets. A longer one can never resolve; a 310-octet host
/// was accepted and failed on every run (issue #20). `d` is the URL's
/// host as the url crate serialises it (IDNA applied: octets as sent).
fn dns_lengths(d: &str) -> Result<(), String> {
    let name = d.strip_suffix('.').unwrap_or(d);
    if name.len() > 253 {
        return Err(format!(
            "the host name is {} octets long; at most 253 (RFC 1035)",
            name.len()
        ));
    }
    if let Some(l) = name.split('.').find(|l| l.is_empty() || l.len() > 63) {
        return Err(format!(
            "the host name has a label of {} octets; each is 1 to 63 (RFC 1035)",
            l.len()
        ));
    }
    Ok(())
}

/// The bidi embeddings, overrides, isolates and marks `clean_title`
/// removes: invisible, and able to reorder what follows them.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// The R7 canonical key of a validated URL (duplicate detection).
pub fn canonical(url: &str) -> String {
    wr_core::canonical::canonical_url(url).unwrap_or_else(|_| url.to_string())
}

/// Reads and validates `path`.
pub fn load(path: &Path) -> Result<SourcesFile, LoadError> {
    let bytes = std::fs::read(path).map_err(|e| LoadError {
        file: path.to_path_buf(),
        line: 1,
        column: 1,
        message: format!("cannot read: {e}"),
        snippet: None,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| not_utf8(path, &e))?;
    parse(path, &text)
}

/// A file that is not UTF-8, at the line and column of its first bad byte
/// (a Latin-1 `é` on line 40 was reported at 1:1; issue #20).
fn not_utf8(path: &Path, e: &std::string::FromUtf8Error) -> LoadError {
    let bytes = e.as_bytes();
    let at = e.utf8_error().valid_up_to();
    // Everything before `at` is valid UTF-8.
    let before = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let (line, column) = line_col(before, at);
    LoadError {
        file: path.to_path_buf(),
        line,
        column,
        message: format!(
            "not UTF-8: byte 0x{:02X} at offset {at} (TOML files are UTF-8; \
             re-save it as UTF-8)",
            bytes.get(at).copied().unwrap_or(0)
        ),
        snippet: None,
    }
}

/// The key whose value holds byte `at`: the last `key =` written before
/// it, outside strings and comments, in any table, inline table or array
/// (`source = [{name = 5}]` is `name`; a dotted key gives its last part,
/// a quoted one its text).
fn key_at(text: &str, at: usize) -> Option<String> {
    #[derive(PartialEq)]
    enum In {
        Code,
        Comment,
        Basic,
        Literal,
        MultiBasic,
        MultiLiteral,
    }
    let prefix = text.get(..at)?;
    let b = prefix.as_bytes();
    let mut state = In::Code;
    let mut key: Option<String> = None;
    // Where the text that may be a key began (after the last delimiter).
    let mut candidate = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let starts = |s: &[u8]| b[i..].starts_with(s);
        match state {
            In::Code => match c {
                b'#' => state = In::Comment,
                b'\n' | b'{' | b'}' | b'[' | b']' | b',' => candidate = i + 1,
                b'"' if starts(b"\"\"\"") => {
                    state = In::MultiBasic;
                    i += 2;
                }
                b'\'' if starts(b"\'\'\'") => {
                    state = In::MultiLiteral;
                    i += 2;
                }
                b'"' => state = In::Basic,
                b'\'' => state = In::Literal,
                b'=' => {
                    let raw = prefix.get(candidate..i).unwrap_or("").trim();
                    let last = raw.rsplit('.').next().unwrap_or(raw).trim();
                    let k = last.trim_matches(|c| c == '"' || c == '\'');
                    if !k.is_empty() {
                        key = Some(k.to_string());
                    }
                    candidate = i + 1;
                }
                _ => {}
            },
            In::Comment if c == b'\n' => {
                state = In::Code;
                candidate = i + 1;
            }
            In::Basic | In::MultiBasic if c == b'\\' => i += 1,
            In::Basic if c == b'"' || c == b'\n' => state = In::Code,
            In::Literal if c == b'\'' || c == b'\n' => state = In::Code,
            In::MultiBasic if starts(b"\"\"\"") => {
                state = In::Code;
                i += 2;
            }
            In::MultiLiteral if starts(b"\'\'\'") => {
                state = In::Code;
                i += 2;
            }
            _ => {}
        }
        i += 1;
    }
    key
}

/// What a field of sources.toml holds, in words.
fn field_expects(key: &str) -> Option<&'static str> {
    Some(match key {
        "timeout_secs" => "a whole number of seconds from 1 to 600",
        "max_items" => "a whole number of 1 or more",
        "enabled" => "true or false",
        "tags" => "a list of text in quotes, like [\"rust\", \"news\"]",
        "keep" | "drop" => "a list of patterns in quotes, like [\"sponsored\", \"(?-i)^Ad:\"]",
        "filters" => "a table: `[filters]` on a line of its own, then `keep` and `drop` lists",
        "name" | "url" | "feed" | "format" | "output" | "state_dir" | "operator_base"
        | "coordinator" => "text in quotes",
        "settings" => "a table: `[settings]` on a line of its own, then `key = value` lines",
        "source" => "a list of `[[source]]` tables",
        _ => return None,
    })
}

/// serde's type errors ("invalid type: string \"ten\", expected i64") in
/// words a sources.toml author reads, naming the field and what it holds.
/// `value` is the text of the file where the wrong value starts.
fn in_words(msg: &str, key: Option<&str>, value: &str) -> String {
    let Some(rest) = msg.strip_prefix("invalid type: ") else {
        return msg.to_string();
    };
    let Some((found, expected)) = rest.rsplit_once(", expected ") else {
        return msg.to_string();
    };
    let whole = matches!(
        expected,
        "i64" | "u64" | "i32" | "u32" | "usize" | "u16" | "u8" | "an integer"
    );
    let in_serde_words = match expected {
        _ if whole => "a whole number",
        "a string" => "text in quotes",
        "a boolean" | "bool" => "true or false",
        "a sequence" => "a list in [ ]",
        e if e.starts_with("struct ") => "a table",
        other => other,
    };
    let number = |v: &str| {
        let v = v.trim_matches('`');
        v.split_once("` as ").map_or(v, |(n, _)| n).to_string()
    };
    let found_integer = found.starts_with("integer ");
    let found = if let Some(v) = found.strip_prefix("string ") {
        format!("the text {v}")
    } else if let Some(v) = found.strip_prefix("integer ") {
        format!("the number {}", number(v))
    } else if let Some(v) = found.strip_prefix("floating point ") {
        format!("the number {}", number(v))
    } else if let Some(v) = found.strip_prefix("boolean ") {
        v.trim_matches('`').to_string()
    } else if found == "sequence" {
        "a list".to_string()
    } else if found == "map" {
        if value.trim_start().starts_with('{') {
            "a table".to_string()
        } else {
            "a date or time".to_string()
        }
    } else {
        found.to_string()
    };
    // A whole number where a whole number was expected: one too large.
    let found = if found_integer && whole {
        format!("{found}, which is too large")
    } else {
        found
    };
    match key {
        // An element of `tags`, not `tags` itself.
        Some(k @ ("tags" | "keep" | "drop")) if expected == "a string" => {
            format!("each of `{k}` must be text in quotes, not {found}")
        }
        // An element of `source = [...]`, not the list.
        Some("source") if expected.starts_with("struct ") => {
            format!("each `[[source]]` must be a table with `name` and `url`, not {found}")
        }
        Some(k) => {
            let what = field_expects(k).unwrap_or(in_serde_words);
            format!("`{k}` must be {what}, not {found}")
        }
        None => format!("expected {in_serde_words}, not {found}"),
    }
}

/// Validates the text of a sources file; `path` is used in messages and to
/// resolve relative paths in `[settings]`.
pub fn parse(path: &Path, text: &str) -> Result<SourcesFile, LoadError> {
    let cx = Ctx { file: path, text };
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let msg = e.message().trim_end().to_string();
        let at = e.span().map_or(0, |sp| sp.start);
        let key = e.span().and_then(|_| key_at(text, at));
        let value = text.get(at..).unwrap_or("");
        let msg = if msg.starts_with("invalid type: ") {
            in_words(&msg, key.as_deref(), value)
        } else {
            msg.replace("`source`", "`[[source]]`")
        };
        cx.err(e.span(), msg)
    })?;
    let settings = match raw.settings {
        Some(s) => settings(&cx, s.into_inner())?,
        None => Settings::default(),
    };
    let filters = match raw.filters {
        Some(f) => compile_filters(&cx, f.keep, f.drop)?,
        None => Filters::default(),
    };
    if raw.source.is_empty() {
        return Err(cx.err(
            None,
            "no sources: add at least one [[source]] table with `name` and `url`",
        ));
    }
    let mut sources = Vec::with_capacity(raw.source.len());
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut ids: HashMap<String, (usize, String)> = HashMap::new();
    // (offset, newlines before it) of the last source table seen.
    let mut counted: (usize, usize) = (0, 0);
    for s in raw.source {
        let nl = line_from(text, s.span().start, &mut counted);
        let s = s.into_inner();
        let name = source_name(&cx, &s.name)?;
        if let Some(prev) = names.insert(name.to_lowercase(), nl) {
            return Err(cx.err(
                Some(s.name.span()),
                format!("duplicate source name `{name}` (first used on line {prev})"),
            ));
        }
        let id_span = s.feed.as_ref().map_or(s.url.span(), |f| f.span());
        let src = source(&cx, name, s)?;
        let key = canonical(src.identity());
        if let Some((prev_line, prev_name)) = ids.get(&key) {
            let what = if src.feed.is_some() { "feed" } else { "URL" };
            return Err(cx.err(
                Some(id_span),
                format!(
                    "duplicate {what} `{}`: source `{prev_name}` (line {prev_line}) already fetches it",
                    src.identity()
                ),
            ));
        }
        ids.insert(key, (nl, src.name.clone()));
        sources.push(src);
    }
    Ok(SourcesFile {
        settings,
        filters,
        sources,
    })
}

/// The line of byte `at`, counted from `counted` (offset, newlines
/// before it) of the table before, which it then becomes. Tables come in
/// file order: counting only the lines since the last one (line_col from
/// the start each time made a 10,000-source file take 17 s to check;
/// issue #12).
fn line_from(text: &str, at: usize, counted: &mut (usize, usize)) -> usize {
    let at = at.min(text.len());
    if at >= counted.0 {
        *counted = (
            at,
            counted.1
                + text.as_bytes()[counted.0..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count(),
        );
    } else {
        *counted = (at, line_col(text, at).0 - 1);
    }
    counted.1 + 1
}

/// The `[settings]` table, checked; relative paths are resolved beside
/// the sources file.
fn settings(cx: &Ctx<'_>, s: RawSettings) -> Result<Settings, LoadError> {
    let base = cx.file.parent().map(Path::to_path_buf).unwrap_or_default();
    let resolve = |p: &str| {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            base.join(p)
        }
    };
    let mut settings = Settings::default();
    if let Some(f) = s.format {
        settings.format = Some(match f.get_ref().as_str() {
            "markdown" | "md" => Format::Markdown,
            "json" => Format::Json,
            other => {
                return Err(cx.err(
                    Some(f.span()),
                    format!("unknown format `{other}`, expected `markdown` or `json`"),
                ))
            }
        });
    }
    for (field, slot, stream) in [
        (s.output, &mut settings.output, true),
        (s.state_dir, &mut settings.state_dir, false),
    ] {
        if let Some(v) = field {
            if v.get_ref().trim().is_empty() {
                return Err(cx.err(Some(v.span()), "empty path"));
            }
            // `output = "-"` is standard output, as `-o -`: not a file
            // named `-` beside sources.toml (issue #20).
            *slot = Some(if stream && v.get_ref() == "-" {
                PathBuf::from("-")
            } else {
                resolve(v.get_ref())
            });
        }
    }
    if let Some(b) = s.operator_base {
        let u = check_url(b.get_ref()).map_err(|m| cx.err(Some(b.span()), m))?;
        settings.operator_base = Some(u.trim_end_matches('/').to_string());
    }
    if let Some(t) = s.timeout_secs {
        let v = *t.get_ref();
        if !(1..=600).contains(&v) {
            return Err(cx.err(
                Some(t.span()),
                format!("timeout_secs must be between 1 and 600, not {v}"),
            ));
        }
        settings.timeout_secs = Some(v as u64);
    }
    if let Some(c) = s.coordinator {
        let v = check_coordinator(c.get_ref()).map_err(|m| cx.err(Some(c.span()), m))?;
        settings.coordinator = Some(v);
    }
    Ok(settings)
}

/// A source's name, checked and cleaned.
fn source_name(cx: &Ctx<'_>, name: &Spanned<String>) -> Result<String, LoadError> {
    let n = name.get_ref().trim();
    if n.is_empty() {
        return Err(cx.err(Some(name.span()), "empty source name"));
    }
    if n.chars().any(char::is_control) {
        return Err(cx.err(
            Some(name.span()),
            "a source name cannot contain control characters or line breaks",
        ));
    }
    // The cleaning network text gets (issue #20): a name is shown in
    // headings and errors, and U+202E or another bidi control in it
    // reordered what follows it on a terminal.
    let n = clean_title(n);
    if n.is_empty() {
        return Err(cx.err(Some(name.span()), "empty source name"));
    }
    Ok(n)
}

/// A `[[source]]` table named `name`, its URLs, tags, `max_items` and
/// filters checked.
fn source(cx: &Ctx<'_>, name: String, s: RawSource) -> Result<Source, LoadError> {
    let url = check_url(s.url.get_ref()).map_err(|m| cx.err(Some(s.url.span()), m))?;
    let feed = match &s.feed {
        Some(f) => Some(check_url(f.get_ref()).map_err(|m| cx.err(Some(f.span()), m))?),
        None => None,
    };
    let mut tags = Vec::new();
    for t in s.tags.unwrap_or_default() {
        let v = t.get_ref().trim();
        if v.is_empty() || v.chars().any(char::is_control) {
            return Err(cx.err(Some(t.span()), "a tag must be non-empty and on one line"));
        }
        let v = clean_title(v);
        if !v.is_empty() && !tags.contains(&v) {
            tags.push(v);
        }
    }
    let max_items = match &s.max_items {
        None => None,
        Some(m) => match usize::try_from(*m.get_ref()) {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(cx.err(
                    Some(m.span()),
                    "max_items must be a whole number of 1 or more",
                ))
            }
        },
    };
    Ok(Source {
        name,
        url,
        feed,
        tags,
        enabled: s.enabled.unwrap_or(true),
        max_items,
        filters: compile_filters(cx, s.keep, s.drop)?,
    })
}

/// Compiles `keep` and `drop` lists; a bad pattern is refused at its line
/// and column, with the `regex` crate's reason.
fn compile_filters(
    cx: &Ctx<'_>,
    keep: Option<Vec<Spanned<String>>>,
    drop: Option<Vec<Spanned<String>>>,
) -> Result<Filters, LoadError> {
    let compile = |list: Option<Vec<Spanned<String>>>| -> Result<Vec<Pattern>, LoadError> {
        let mut out: Vec<Pattern> = Vec::new();
        for p in list.unwrap_or_default() {
            let text = p.get_ref();
            if text.is_empty() {
                return Err(cx.err(Some(p.span()), "an empty filter pattern matches every item"));
            }
            if text.chars().any(char::is_control) {
                return Err(cx.err(
                    Some(p.span()),
                    "a filter pattern must be on one line (write `\\n` for a line break)",
                ));
            }
            let pat = Pattern::new(text).map_err(|m| cx.err(Some(p.span()), m))?;
            if !out.contains(&pat) {
                out.push(pat);
            }
        }
        Ok(out)
    };
    Ok(Filters {
        keep: compile(keep)?,
        drop: compile(drop)?,
    })
}

/// Writes `s` as a TOML basic string (quoted and escaped).
pub fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A coordinator URL as `[settings]`, `--coordinator` and
/// `WR_COORDINATOR` accept it: `redis://host:port/db` (or `unix://` for a
/// socket). The message never quotes a password.
pub fn check_coordinator(raw: &str) -> Result<String, String> {
    let shown = wr_feeds::fleet::redacted(raw);
    let u = url::Url::parse(raw).map_err(|e| {
        format!("coordinator {shown:?} is not a URL ({e}); expected redis://host:port/db")
    })?;
    match u.scheme() {
        "redis" | "unix" | "redis+unix" => Ok(raw.to_string()),
        other => Err(format!(
            "coordinator {shown:?}: scheme `{other}` is not supported; expected redis://host:port/db"
        )),
    }
}

/// Serialises sources (and no settings) as a `sources.toml` that [`parse`]
/// accepts.
pub fn to_toml(sources: &[Source], header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
    for s in sources {
        out.push_str("\n[[source]]\n");
        out.push_str(&format!("name = {}\n", toml_string(&s.name)));
        out.push_str(&format!("url = {}\n", toml_string(&s.url)));
        if let Some(f) = &s.feed {
            out.push_str(&format!("feed = {}\n", toml_string(f)));
        }
        if !s.enabled {
            out.push_str("enabled = false\n");
        }
        if let Some(n) = s.max_items {
            out.push_str(&format!("max_items = {n}\n"));
        }
        if !s.tags.is_empty() {
            let tags: Vec<String> = s.tags.iter().map(|t| toml_string(t)).collect();
            out.push_str(&format!("tags = [{}]\n", tags.join(", ")));
        }
        for (key, list) in [("keep", &s.filters.keep), ("drop", &s.filters.drop)] {
            if !list.is_empty() {
                let pats: Vec<String> = list.iter().map(|p| toml_string(&p.text)).collect();
                out.push_str(&format!("{key} = [{}]\n", pats.join(", ")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<SourcesFile, LoadError> {
        parse(Path::new("dir/sources.toml"), text)
    }

    fn at(text: &str) -> (usize, usize, String) {
        let e = p(text).expect_err("should be refused");
        (e.line, e.column, e.message)
    }

    /// Issue #20: a name went to headings and errors with U+202E (and
    /// other bidi controls) in it; a URL with a line break or an escape
    /// was accepted (the url crate drops them while parsing) and kept raw.
    #[test]
    fn names_are_cleaned_and_urls_with_controls_refused() {
        let f = p("[[source]]\nname = \"A\u{202e}B\u{2066}C\"\nurl = \"https://a.example/\"\ntags = [\"x\u{202e}y\"]\n").unwrap();
        assert_eq!(f.sources[0].name, "ABC");
        assert_eq!(f.sources[0].tags, vec!["xy".to_string()]);
        for (url, code) in [
            ("https://a.example/a\\nb", "U+000A"),
            ("https://a.example/a\\tb", "U+0009"),
            ("https://a.example/\\u001b[31m", "U+001B"),
            ("https://a.example/\\u202e", "U+202E"),
        ] {
            let (l, _, m) = at(&format!("[[source]]\nname = \"A\"\nurl = \"{url}\"\n"));
            assert_eq!(l, 3, "{url}: {m}");
            assert!(m.contains(code), "{url}: {m}");
            assert!(!m.contains('\u{1b}') && !m.contains('\u{202e}'), "{m}");
        }
    }

    /// The message is the same whether or not the error derives it: the
    /// location, the reason, and the line with a caret under the column
    /// (tabs kept so the caret lines up).
    #[test]
    fn load_errors_read_as_before() {
        let mut e = LoadError {
            file: PathBuf::from("dir/sources.toml"),
            line: 12,
            column: 4,
            message: "unknown field `nmae`".into(),
            snippet: None,
        };
        assert_eq!(e.to_string(), "dir/sources.toml:12:4: unknown field `nmae`");
        assert!(std::error::Error::source(&e).is_none());
        e.snippet = Some("\tnmae = 1".into());
        assert_eq!(
            e.to_string(),
            "dir/sources.toml:12:4: unknown field `nmae`\n   |\n12 | \tnmae = 1\n   | \t  ^"
        );
    }

    /// Issue #12: a value of the wrong type said "expected i64".
    #[test]
    fn type_errors_name_the_field_in_words() {
        let e = parse(
            Path::new("s.toml"),
            "[settings]\ntimeout_secs = \"ten\"\n[[source]]\nname = \"A\"\nurl = \"https://a/\"\n",
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "`timeout_secs` must be a whole number of seconds from 1 to 600, not the text \"ten\""
        );
        assert_eq!((e.line, e.column), (2, 16));
        let e = parse(
            Path::new("s.toml"),
            "[[source]]\nname = 5\nurl = \"https://a/\"\n",
        )
        .unwrap_err();
        assert_eq!(e.message, "`name` must be text in quotes, not the number 5");
    }

    /// Issue #12, the rest of "expected i64": every kind of wrong value
    /// names its field (inside inline tables and arrays too) and says
    /// what the field holds, at the value's line and column; no Rust type
    /// names.
    #[test]
    fn every_wrong_value_is_named_in_words() {
        let src = "[[source]]\nname = \"A\"\nurl = \"https://a/\"\n";
        for (text, (line, col), want) in [
            (
                format!("{src}max_items = \"5\"\n"),
                (4, 13),
                "`max_items` must be a whole number of 1 or more, not the text \"5\"",
            ),
            (
                format!("{src}max_items = 1.5\n"),
                (4, 13),
                "`max_items` must be a whole number of 1 or more, not the number 1.5",
            ),
            (
                format!("{src}enabled = \"yes\"\n"),
                (4, 11),
                "`enabled` must be true or false, not the text \"yes\"",
            ),
            (
                format!("{src}tags = \"x\"\n"),
                (4, 8),
                "`tags` must be a list of text in quotes, like [\"rust\", \"news\"], not the text \"x\"",
            ),
            (
                format!("{src}tags = [\"a=b\",\n  1]\n"),
                (5, 3),
                "each of `tags` must be text in quotes, not the number 1",
            ),
            (
                "source = [{name = 5, url = \"https://a/\"}]\n".to_string(),
                (1, 19),
                "`name` must be text in quotes, not the number 5",
            ),
            (
                "[[source]]\nname = [\"A\"]\nurl = \"https://a/\"\n".to_string(),
                (2, 8),
                "`name` must be text in quotes, not a list",
            ),
            (
                "[[source]]\n\"name\" = { x = 1 }\nurl = \"https://a/\"\n".to_string(),
                (2, 10),
                "`name` must be text in quotes, not a table",
            ),
            (
                format!("[settings]\ntimeout_secs = 99999999999999999999\n{src}"),
                (2, 16),
                "`timeout_secs` must be a whole number of seconds from 1 to 600, not the number 99999999999999999999, which is too large",
            ),
            (
                format!("[settings] # timeout_secs = 5\ntimeout_secs = 1979-05-27\n{src}"),
                (2, 16),
                "`timeout_secs` must be a whole number of seconds from 1 to 600, not a date or time",
            ),
            (
                format!("settings = 5\n{src}"),
                (1, 12),
                "`settings` must be a table: `[settings]` on a line of its own, then `key = value` lines, not the number 5",
            ),
            (
                "source = [5]\n".to_string(),
                (1, 11),
                "each `[[source]]` must be a table with `name` and `url`, not the number 5",
            ),
            (
                format!("settings.format = 1\n{src}"),
                (1, 19),
                "`format` must be text in quotes, not the number 1",
            ),
        ] {
            let e = parse(Path::new("s.toml"), &text).unwrap_err();
            assert_eq!(e.message, want, "{text}");
            assert!(!e.message.contains("[[[["), "{}", e.message);
            assert_eq!((e.line, e.column), (line, col), "{text}");
            assert!(!e.message.contains("i64") && !e.message.contains("Raw"), "{}", e.message);
        }
    }

    #[test]
    fn loads_sources_and_settings() {
        let f = p(r#"
[settings]
format = "json"
output = "out/digest.json"
state_dir = "/var/lib/wr"
operator_base = "https://mirror.example/"
timeout_secs = 20

[[source]]
name = "A"
url = "https://a.example/"
feed = "https://a.example/feed.xml"
tags = ["x", "y", "x"]

[[source]]
name = "B"
url = "http://b.example/blog"
"#)
        .unwrap();
        assert_eq!(f.settings.format, Some(Format::Json));
        assert_eq!(
            f.settings.output,
            Some(PathBuf::from("dir/out/digest.json"))
        );
        assert_eq!(f.settings.state_dir, Some(PathBuf::from("/var/lib/wr")));
        assert_eq!(
            f.settings.operator_base.as_deref(),
            Some("https://mirror.example")
        );
        assert_eq!(f.settings.timeout_secs, Some(20));
        assert_eq!(f.sources.len(), 2);
        assert_eq!(f.sources[0].tags, vec!["x", "y"]);
        assert_eq!(f.sources[1].feed, None);
    }

    #[test]
    fn an_overlong_url_is_refused_where_it_is_written() {
        // Issue #11: a 100 KB URL was accepted here, then failed at send
        // time, retried and held its host.
        let long = format!("https://a.example/{}", "x".repeat(100_000));
        let text = format!("[[source]]\nname = \"A\"\nurl = \"{long}\"\n");
        let (l, c, m) = at(&text);
        assert_eq!((l, c), (3, 7), "{m}");
        assert!(m.contains("URL too long") && m.contains("8000"), "{m}");
        assert!(m.len() < 300, "the message quotes only the start: {m}");
        let ok = format!("https://a.example/{}", "x".repeat(MAX_URL_LEN - 18));
        assert_eq!(check_url(&ok).map(|u| u.len()), Ok(MAX_URL_LEN));
    }

    #[test]
    fn syntax_error_has_line_and_column() {
        let (l, c, m) = at("[[source]]\nname = \"A\"\nurl = https://a/\n");
        assert_eq!((l, c), (3, 7), "{m}");
    }

    #[test]
    fn unknown_key_is_located() {
        let (l, c, m) = at("[[source]]\nname = \"A\"\nurl = \"https://a.example/\"\nfed = \"x\"\n");
        assert_eq!((l, c), (4, 1), "{m}");
        assert!(m.contains("unknown field `fed`"), "{m}");
        let (l, _, m) = at("[setings]\nformat = \"json\"\n");
        assert_eq!(l, 1, "{m}");
        assert!(m.contains("setings"), "{m}");
        assert!(m.contains("`settings`, `filters`, `[[source]]`"), "{m}");
    }

    #[test]
    fn missing_field_is_located_at_its_table() {
        let (l, _, m) = at(
            "[[source]]\nname = \"A\"\nurl = \"https://a.example/\"\n\n[[source]]\nname = \"B\"\n",
        );
        assert!(m.contains("missing field `url`"), "{m}");
        assert!(l >= 5, "line {l}: {m}");
    }

    #[test]
    fn bad_and_non_http_urls() {
        let (l, c, m) = at("[[source]]\nname = \"A\"\nurl = \"ftp://a.example/\"\n");
        assert_eq!((l, c), (3, 7));
        assert!(m.contains("unsupported scheme `ftp`"), "{m}");
        let (l, _, m) =
            at("[[source]]\nname = \"A\"\nurl = \"https://a.example/\"\nfeed = \"not a url\"\n");
        assert_eq!(l, 4);
        assert!(m.contains("bad URL"), "{m}");
        let (_, _, m) = at("[[source]]\nname = \"A\"\nurl = \"file:///etc/passwd\"\n");
        assert!(m.contains("unsupported scheme `file`"), "{m}");
    }

    #[test]
    fn duplicates_are_refused() {
        let (l, c, m) = at("[[source]]\nname = \"A\"\nurl = \"https://a.example/\"\n[[source]]\nname = \"a\"\nurl = \"https://b.example/\"\n");
        assert_eq!((l, c), (5, 8));
        assert!(m.contains("duplicate source name"), "{m}");
        // Same page, different spelling: canonical comparison (R7 key).
        let (l, _, m) = at("[[source]]\nname = \"A\"\nurl = \"https://A.example:443/x/\"\n[[source]]\nname = \"B\"\nurl = \"https://a.example/x#frag\"\n");
        assert_eq!(l, 6);
        assert!(m.contains("duplicate URL"), "{m}");
        // Two feeds of one site are two sources.
        p("[[source]]\nname = \"A\"\nurl = \"https://a.example/\"\nfeed = \"https://a.example/posts.xml\"\n[[source]]\nname = \"B\"\nurl = \"https://a.example/\"\nfeed = \"https://a.example/comments.xml\"\n").unwrap();
    }

    #[test]
    fn empty_file_and_bad_settings() {
        let (l, c, m) = at("");
        assert_eq!((l, c), (1, 1));
        assert!(m.contains("no sources"), "{m}");
        let (l, c, m) =
            at("[settings]\nformat = \"html\"\n[[source]]\nname = \"A\"\nurl = \"https://a/\"\n");
        assert_eq!((l, c), (2, 10), "{m}");
        let (l, _, m) =
            at("[settings]\ntimeout_secs = 0\n[[source]]\nname = \"A\"\nurl = \"https://a/\"\n");
        assert_eq!(l, 2, "{m}");
    }

    #[test]
    fn display_names_file_line_and_column() {
        let e = p("[[source]]\nname = \"A\"\nurl = \"gopher://x/\"\n").unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("dir/sources.toml:3:7: "), "{s}");
        assert!(s.contains("url = \"gopher://x/\""), "{s}");
    }

    #[test]
    fn caret_is_under_the_column_after_tabs() {
        let s = p("[[source]]\n\tname = \"A\"\n\turl =\t\"ftp://x/\"\n")
            .unwrap_err()
            .to_string();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[2], "3 | \turl =\t\"ftp://x/\"", "{s}");
        assert_eq!(lines[3], "  | \t     \t^", "{s}");
    }

    #[test]
    fn to_toml_round_trips_awkward_strings() {
        let sources = vec![
            Source {
                name: "Quotes \" and \\ backslash 'single' \u{e9}\u{1F600}".into(),
                url: "https://a.example/path?q=\"x\"".into(),
                feed: Some("https://a.example/feed.xml".into()),
                tags: vec!["a\"b".into(), "c d".into()],
                enabled: false,
                max_items: Some(3),
                filters: Default::default(),
            },
            Source {
                name: "[[source]]\tname".replace('\t', " "),
                url: "https://b.example/".into(),
                feed: None,
                tags: vec![],
                enabled: true,
                max_items: None,
                filters: Default::default(),
            },
        ];
        let text = to_toml(&sources, "header\nline two");
        let back = p(&text).unwrap();
        assert_eq!(back.sources, sources);
    }

    #[test]
    fn a_file_that_is_not_utf8_is_named_at_its_bad_byte() {
        let dir = std::env::temp_dir().join(format!("wr-sources-latin1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("sources.toml");
        std::fs::write(
            &f,
            b"[[source]]\nname = \"Caf\xe9\"\nurl = \"https://a.example/\"\n",
        )
        .unwrap();
        let e = load(&f).expect_err("Latin-1 is refused");
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!((e.line, e.column), (2, 12), "{}", e.message);
        assert!(e.message.contains("not UTF-8: byte 0xE9"), "{}", e.message);
    }

    #[test]
    fn host_names_keep_to_rfc_1035_lengths() {
        let label = "a".repeat(63);
        let ok = format!(
            "https://{label}.{label}.{label}.{}.example/",
            "b".repeat(53)
        );
        assert_eq!(ok.len() - "https://".len() - 1, 253);
        check_url(&ok).unwrap();
        let long = format!(
            "https://{label}.{label}.{label}.{}.example/",
            "b".repeat(54)
        );
        let m = check_url(&long).unwrap_err();
        assert!(m.contains("254 octets"), "{m}");
        let m = check_url(&format!("https://{}.example/", "a".repeat(64))).unwrap_err();
        assert!(m.contains("label of 64 octets"), "{m}");
        let m = check_url(&format!("https://{}/", "a.".repeat(155))).unwrap_err();
        assert!(m.contains("(RFC 1035)"), "{m}");
        check_url("https://a.example./").unwrap();
        check_url("https://192.0.2.1/").unwrap();
    }

    /// Issue #23: `[filters]` and a source's keep/drop are compiled, and
    /// a bad pattern is a config error at its line and column.
    #[test]
    fn filters_load_and_bad_patterns_are_located() {
        let f = p("[filters]\ndrop = [\"sponsored\", \"sponsored\"]\n[[source]]\nname = \"A\"\nurl = \"https://a/\"\nkeep = [\"rust\"]\n").unwrap();
        assert_eq!(f.filters.drop.len(), 1, "a repeated pattern is kept once");
        assert_eq!(f.filters.drop[0].text, "sponsored");
        assert_eq!(f.sources[0].filters.keep[0].text, "rust");
        assert!(f.sources[0].filters.drop.is_empty());
        let (l, c, m) = at("[filters]\ndrop = [\"ok\", \"(unclosed\"]\n[[source]]\nname = \"A\"\nurl = \"https://a/\"\n");
        assert_eq!((l, c), (2, 15), "{m}");
        assert!(m.starts_with("bad filter pattern `(unclosed`: "), "{m}");
        assert!(m.contains("unclosed group"), "{m}");
        let (l, c, m) = at("[[source]]\nname = \"A\"\nurl = \"https://a/\"\nkeep = [\"[z-a]\"]\n");
        assert_eq!((l, c), (4, 9), "{m}");
        let (l, c, m) = at("[[source]]\nname = \"A\"\nurl = \"https://a/\"\ndrop = [\"\"]\n");
        assert_eq!((l, c), (4, 9), "{m}");
        assert!(m.contains("empty filter pattern"), "{m}");
        let (l, _, m) =
            at("[filters]\nkepe = [\"x\"]\n[[source]]\nname = \"A\"\nurl = \"https://a/\"\n");
        assert_eq!(l, 2, "{m}");
        assert!(m.contains("unknown field `kepe`"), "{m}");
        let (_, _, m) = at("[[source]]\nname = \"A\"\nurl = \"https://a/\"\ndrop = [1]\n");
        assert_eq!(m, "each of `drop` must be text in quotes, not the number 1");
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("a\nb\u{e9}c", 5), (2, 3));
        assert_eq!(line_col("abc", 100), (1, 4));
    }
}
