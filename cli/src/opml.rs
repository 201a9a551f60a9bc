//! `wr-feeds import`: an OPML subscription list to `sources.toml`.
//!
//! Every `<outline>` with an `xmlUrl`, at any depth, becomes a source:
//! `name` from `title` (else `text`, else the feed's host), `feed` from
//! `xmlUrl`, `url` from `htmlUrl` when it is an http(s) URL (else the
//! feed URL itself, with a warning when an `htmlUrl` was given), `tags` from the enclosing folders (outlines without
//! `xmlUrl`) and the `category` attribute (comma-separated, `/`-paths).
//! Names are made unique (`Name (2)`); a feed listed twice is kept once;
//! outlines whose URLs are not http(s) are skipped with a warning; a
//! commented outline (`isComment="true"`, and all under it) becomes a
//! source with `enabled = false`. A `type="link"` outline with a `url`
//! and no `xmlUrl` (how `export` writes a page-only source) becomes a
//! source without a feed. The file is read in the encoding it
//! declares ([`decode`]); `export` writes the reverse, UTF-8.

use crate::sources::{canonical, check_url, Source};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quick_xml::XmlVersion;
use std::collections::{HashMap, HashSet};

/// The result of an import.
#[derive(Debug, Default)]
pub struct Import {
    /// Sources in document order.
    pub sources: Vec<Source>,
    /// One line per outline skipped or changed.
    pub warnings: Vec<String>,
}

fn attrs(reader: &Reader<&[u8]>, e: &BytesStart<'_>) -> Result<HashMap<String, String>, String> {
    let mut out = HashMap::new();
    for a in e.attributes() {
        let a = a.map_err(|err| format!("malformed attribute: {err}"))?;
        let key = String::from_utf8_lossy(a.key.local_name().as_ref()).to_string();
        let value = a
            .decoded_and_normalized_value(XmlVersion::Implicit1_0, reader.decoder())
            .map_err(|err| format!("bad attribute `{key}`: {err}"))?;
        out.insert(key, value.into_owned());
    }
    Ok(out)
}

/// The http(s) URL a `feed:` URL stands for: `feed://host/x` is
/// `http://host/x`, `feed:https://host/x` is `https://host/x` (the
/// convention feed readers register; issue #12: such outlines were
/// dropped as "unsupported scheme").
fn unfeed(raw: &str) -> String {
    let t = raw.trim();
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("feed:http://") || lower.starts_with("feed:https://") {
        t[5..].to_string()
    } else if lower.starts_with("feed://") {
        format!("http://{}", &t[7..])
    } else {
        t.to_string()
    }
}

/// An OPML file's text from its bytes, in the encoding it declares: a byte
/// order mark (UTF-8, UTF-16LE/BE) first; else UTF-16 recognised by how
/// `<?` is written (XML 1.0, appendix F); else the XML declaration's
/// `encoding` (windows-1252, ISO-8859-1, Shift_JIS, ... any WHATWG label);
/// else UTF-8 (issue #12: anything but UTF-8 was refused). A declaration
/// readable as ASCII cannot be in UTF-16, so one that says UTF-16 is read
/// as UTF-8 (as browsers do). Malformed bytes are an error naming the
/// encoding, never replaced silently.
pub fn decode(bytes: &[u8]) -> Result<String, String> {
    let (encoding, body) = match encoding_rs::Encoding::for_bom(bytes) {
        Some((enc, bom)) => (enc, &bytes[bom..]),
        None if bytes.starts_with(&[b'<', 0, b'?', 0]) => (encoding_rs::UTF_16LE, bytes),
        None if bytes.starts_with(&[0, b'<', 0, b'?']) => (encoding_rs::UTF_16BE, bytes),
        None => {
            let declared = declared_encoding(bytes);
            let enc = match declared.as_deref() {
                Some(label) => encoding_rs::Encoding::for_label(label.as_bytes())
                    .ok_or_else(|| format!("unknown encoding `{label}` in the XML declaration"))?
                    .output_encoding(),
                None => encoding_rs::UTF_8,
            };
            (enc, bytes)
        }
    };
    encoding
        .decode_without_bom_handling_and_without_replacement(body)
        .map(|text| text.into_owned())
        .ok_or_else(|| format!("not valid {} text", encoding.name()))
}

/// The `encoding` of the XML declaration at the start of `bytes`, read as
/// ASCII (every encoding a declaration can be in without a BOM keeps ASCII
/// as ASCII).
fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(256)];
    let head: String = head.iter().map(|&b| b as char).collect();
    let decl = head.strip_prefix("<?xml")?;
    let decl = &decl[..decl.find("?>")?];
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].trim().to_string())
}

/// `s` escaped for an XML attribute value; control characters and the
/// noncharacters U+FFFE and U+FFFF (which XML 1.0 cannot carry, or which
/// would become spaces) are dropped.
fn attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// `wr-feeds export`: the sources as an OPML 2.0 subscription list, UTF-8.
/// A source with a feed is an `rss` outline (`xmlUrl` the feed, `htmlUrl`
/// the page); one without is a `link` outline with the page as `url` and
/// `htmlUrl` (feed readers ignore those, `import` skips them). The tags
/// are the `category`, comma-separated (a `/` or `,` inside a tag, which
/// OPML reads as a separator, becomes a space). A source with
/// `enabled = false` is a commented outline (`isComment="true"`), which
/// `import` reads back as disabled.
pub fn export(sources: &[Source], title: &str) -> String {
    let mut out =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n");
    out.push_str(&format!(
        "  <head>\n    <title>{}</title>\n  </head>\n  <body>\n",
        attr(title)
    ));
    for s in sources {
        let tags: Vec<String> = s
            .tags
            .iter()
            .map(|t| t.replace(['/', ','], " ").trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        let mut extra = String::new();
        if !tags.is_empty() {
            extra.push_str(&format!(" category=\"{}\"", attr(&tags.join(","))));
        }
        if !s.enabled {
            extra.push_str(" isComment=\"true\"");
        }
        match &s.feed {
            Some(feed) => out.push_str(&format!(
                "    <outline type=\"rss\" text=\"{n}\" title=\"{n}\" xmlUrl=\"{}\" htmlUrl=\"{}\"{extra}/>\n",
                attr(feed),
                attr(&s.url),
                n = attr(&s.name),
            )),
            None => out.push_str(&format!(
                "    <outline type=\"link\" text=\"{n}\" title=\"{n}\" url=\"{u}\" htmlUrl=\"{u}\"{extra}/>\n",
                n = attr(&s.name),
                u = attr(&s.url),
            )),
        }
    }
    out.push_str("  </body>\n</opml>\n");
    out
}

/// An attribute as a name or tag: the cleaning network text gets
/// (controls, escapes and bidi controls removed, whitespace collapsed;
/// issue #20: U+202E in an imported name reached headings and errors).
fn clean(s: &str) -> String {
    wr_feeds::extract::clean_title(s)
}

/// Line numbers of increasing offsets, counted from the last one asked:
/// counting from the start for every outline made an import of 40,000
/// outlines take 30 s (issue #20).
#[derive(Default)]
struct Lines {
    at: usize,
    line: usize,
}

impl Lines {
    /// The 1-based line of byte `pos` of `text`.
    fn line(&mut self, text: &str, pos: usize) -> usize {
        let pos = pos.min(text.len());
        if pos < self.at || self.line == 0 {
            (self.at, self.line) = (0, 1);
        }
        self.line += text.as_bytes()[self.at..pos]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.at = pos;
        self.line
    }
}

/// A feed outline's feed and page, or a link outline's page: `None`
/// (said in `warnings`) when a URL is not a usable http(s) one or the
/// source is already listed (`seen`: one key space with the feeds, as
/// sources.toml's duplicate check has: a source is its feed, else its
/// page).
fn locate(
    a: &HashMap<String, String>,
    xml_url: Option<&String>,
    page: Option<&String>,
    line: usize,
    seen: &mut HashSet<String>,
    warnings: &mut Vec<String>,
) -> Option<(Option<String>, String)> {
    match (xml_url, page) {
        (Some(xml_url), _) => {
            let feed = match check_url(&unfeed(xml_url)) {
                Ok(u) => u,
                Err(m) => {
                    warnings.push(format!("line {line}: skipped outline: xmlUrl: {m}"));
                    return None;
                }
            };
            if !seen.insert(canonical(&feed)) {
                warnings.push(format!("line {line}: skipped duplicate feed {feed}"));
                return None;
            }
            let url = match a.get("htmlUrl").or_else(|| a.get("htmlurl")) {
                Some(h) if !h.trim().is_empty() => match check_url(h) {
                    Ok(u) => u,
                    Err(m) => {
                        warnings.push(format!(
                            "line {line}: htmlUrl ignored ({m}); the source's url is its feed"
                        ));
                        feed.clone()
                    }
                },
                _ => feed.clone(),
            };
            Some((Some(feed), url))
        }
        (None, Some(page)) => {
            let url = match check_url(page) {
                Ok(u) => u,
                Err(m) => {
                    warnings.push(format!("line {line}: skipped link outline: url: {m}"));
                    return None;
                }
            };
            if !seen.insert(canonical(&url)) {
                warnings.push(format!("line {line}: skipped duplicate page {url}"));
                return None;
            }
            Some((None, url))
        }
        (None, None) => None,
    }
}

/// A source's tags: the folders it is in, then its `category` (split at
/// `,` and `/`), each once.
fn tags_of(stack: &[(Option<String>, bool)], a: &HashMap<String, String>) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    let mut add = |t: &str| {
        let t = clean(t);
        if !t.is_empty() && !tags.contains(&t) {
            tags.push(t);
        }
    };
    for (folder, _) in stack {
        if let Some(folder) = folder {
            add(folder);
        }
    }
    if let Some(cat) = a.get("category") {
        for c in cat.split(',') {
            for part in c.split('/') {
                add(part);
            }
        }
    }
    tags
}

/// `base`, or `base (n)` with the first `n` from 2 not taken (case
/// ignored); `next_suffix` remembers where to start per base (issue #20:
/// 40,000 outlines named alike tried every `(n)` from 2 each time).
fn unique_name(
    base: &str,
    names: &mut HashSet<String>,
    next_suffix: &mut HashMap<String, usize>,
) -> String {
    let mut name = base.to_string();
    if !names.insert(name.to_lowercase()) {
        let n = next_suffix.entry(base.to_lowercase()).or_insert(2);
        loop {
            name = format!("{base} ({n})");
            *n += 1;
            if names.insert(name.to_lowercase()) {
                break;
            }
        }
    }
    name
}

/// Parses an OPML document.
pub fn import(text: &str) -> Result<Import, String> {
    let mut reader = Reader::from_str(text);
    let mut st = Outlines::default();
    let mut lines = Lines::default();
    let mut saw_opml = false;
    // Elements open at this point (name, line): a document cut short (an
    // interrupted download or copy) must not import as a shorter list.
    let mut open: Vec<(String, usize)> = Vec::new();
    loop {
        let pos = reader.buffer_position();
        let ev = reader.read_event().map_err(|e| {
            let (line, col) = crate::sources::line_col(text, pos as usize);
            format!("{line}:{col}: malformed XML: {e}")
        })?;
        let (e, empty) = match &ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                open.pop();
                if e.local_name().as_ref() == b"outline" {
                    st.stack.pop();
                }
                continue;
            }
            Event::Eof => {
                if let Some((name, line)) = open.last() {
                    let (l, c) = crate::sources::line_col(text, text.len());
                    return Err(format!(
                        "{l}:{c}: malformed XML: the document ends before <{name}> \
                         (opened on line {line}) is closed; is the file complete?"
                    ));
                }
                break;
            }
            _ => continue,
        };
        let line = lines.line(text, pos as usize);
        let local = e.local_name();
        let tag = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        if open.is_empty() {
            if saw_opml {
                return Err(format!(
                    "line {line}: malformed XML: a second root element <{tag}> after </opml>"
                ));
            }
            if local.as_ref() != b"opml" {
                return Err(format!(
                    "not an OPML document (the root element is <{tag}>, not <opml>)"
                ));
            }
            saw_opml = true;
        }
        if !empty {
            open.push((tag, line));
        }
        if local.as_ref() == b"outline" {
            let a = attrs(&reader, e).map_err(|m| format!("line {line}: {m}"))?;
            st.outline(&a, empty, line);
        }
    }
    if !saw_opml {
        return Err("not an OPML document (no <opml> element)".into());
    }
    Ok(st.out)
}

/// What the import has seen of the outlines so far, and made of them.
#[derive(Default)]
struct Outlines {
    out: Import,
    /// Folder names of the open outlines (None for a feed outline), and
    /// whether each is commented out (`isComment="true"`, which OPML 2.0
    /// extends to everything under it).
    stack: Vec<(Option<String>, bool)>,
    names: HashSet<String>,
    /// The next suffix to try per duplicated name: 40,000 outlines named
    /// alike tried every `(n)` from 2 each time (issue #20, quadratic).
    next_suffix: HashMap<String, usize>,
    feeds: HashSet<String>,
}

impl Outlines {
    /// An `<outline>` on `line` with attributes `a`: a folder, or a source.
    fn outline(&mut self, a: &HashMap<String, String>, empty: bool, line: usize) {
        let label = a
            .get("title")
            .map(|s| clean(s))
            .filter(|s| !s.is_empty())
            .or_else(|| a.get("text").map(|s| clean(s)).filter(|s| !s.is_empty()));
        let commented = self.stack.last().is_some_and(|(_, c)| *c)
            || a.get("isComment")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let xml_url = a.get("xmlUrl").or_else(|| a.get("xmlurl"));
        // A page-only source, as `export` writes it (issue #20: the round
        // trip the README promises dropped them): `type="link"` with its
        // page as `url`, no xmlUrl.
        let page = a
            .get("type")
            .filter(|t| t.trim().eq_ignore_ascii_case("link"))
            .and(a.get("url"))
            .filter(|u| !u.trim().is_empty());
        if xml_url.is_none() && page.is_none() {
            if !empty {
                self.stack.push((label, commented));
            }
            return;
        }
        if !empty {
            self.stack.push((None, commented));
        }
        let warnings = &mut self.out.warnings;
        let Some((feed, url)) = locate(a, xml_url, page, line, &mut self.feeds, warnings) else {
            return;
        };
        let identity = feed.clone().unwrap_or_else(|| url.clone());
        let tags = tags_of(&self.stack, a);
        let base = label.unwrap_or_else(|| {
            url::Url::parse(&identity)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_else(|| identity.clone())
        });
        let name = unique_name(&base, &mut self.names, &mut self.next_suffix);
        if name != base {
            self.out.warnings.push(format!(
                "line {line}: renamed duplicate name `{base}` to `{name}`"
            ));
        }
        self.out.sources.push(Source {
            name,
            url,
            feed,
            tags,
            enabled: !commented,
            max_items: None,
            filters: Default::default(),
        });
    }
}

#[cfg(test)]
mod encoding_and_export {
    use super::*;

    const DOC: &str = "<opml version=\"2.0\"><body><outline text=\"Café Müller\" xmlUrl=\"https://a.test/f.xml\"/></body></opml>";

    /// Issue #12: OPML in windows-1252 or UTF-16 was refused.
    #[test]
    fn declared_and_bom_encodings_are_decoded() {
        let latin = format!("<?xml version=\"1.0\" encoding=\"windows-1252\"?>{DOC}");
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&latin);
        assert!(std::str::from_utf8(&bytes).is_err(), "really not UTF-8");
        let text = decode(&bytes).unwrap();
        assert_eq!(import(&text).unwrap().sources[0].name, "Café Müller");

        let mut utf16 = vec![0xFF, 0xFE];
        for u in format!("<?xml version=\"1.0\" encoding=\"UTF-16\"?>{DOC}").encode_utf16() {
            utf16.extend_from_slice(&u.to_le_bytes());
        }
        let text = decode(&utf16).unwrap();
        assert_eq!(import(&text).unwrap().sources[0].name, "Café Müller");

        // UTF-16 with no byte order mark (XML 1.0 appendix F), both ways.
        let decl = format!("<?xml version=\"1.0\" encoding=\"UTF-16\"?>{DOC}");
        let le: Vec<u8> = decl.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = decl.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for bytes in [le, be] {
            let text = decode(&bytes).unwrap();
            assert_eq!(import(&text).unwrap().sources[0].name, "Café Müller");
        }
        // A UTF-16 (or UTF-16BE) declaration in a file that is plainly
        // ASCII-compatible: it is UTF-8, whatever it says.
        let liar = format!("<?xml version=\"1.0\" encoding=\"utf-16be\"?>{DOC}");
        assert_eq!(
            import(&decode(liar.as_bytes()).unwrap()).unwrap().sources[0].name,
            "Café Müller"
        );
        // Shift_JIS, by its declaration.
        let jp = "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><opml><body><outline text=\"日本語のブログ\" xmlUrl=\"https://jp.test/rss\"/></body></opml>";
        let (sjis, _, bad) = encoding_rs::SHIFT_JIS.encode(jp);
        assert!(!bad);
        assert_eq!(
            import(&decode(&sjis).unwrap()).unwrap().sources[0].name,
            "日本語のブログ"
        );
        let unknown = b"<?xml version=\"1.0\" encoding=\"klingon\"?><opml/>";
        assert_eq!(
            decode(unknown).unwrap_err(),
            "unknown encoding `klingon` in the XML declaration"
        );
        assert_eq!(
            decode(b"<opml>\xff</opml>").unwrap_err(),
            "not valid UTF-8 text"
        );
    }

    #[test]
    fn an_export_imports_back_to_the_same_feeds() {
        let sources = vec![
            Source {
                name: "A & \"B\" <c>".into(),
                url: "https://a.test/?x=1&y=2".into(),
                feed: Some("https://a.test/feed.xml".into()),
                tags: vec!["rust".into(), "news".into()],
                enabled: true,
                max_items: None,
                filters: Default::default(),
            },
            Source {
                name: "Page only".into(),
                url: "https://b.test/".into(),
                feed: None,
                tags: Vec::new(),
                enabled: true,
                max_items: None,
                filters: Default::default(),
            },
        ];
        let mut sources = sources;
        sources.push(Source {
            name: "Off \u{fffe}for now\u{7}".into(),
            url: "https://c.test/".into(),
            feed: Some("https://c.test/atom.xml?a=1&b='2'".into()),
            tags: vec!["a/b".into(), "c,d".into()],
            enabled: false,
            max_items: None,
            filters: Default::default(),
        });
        let xml = export(&sources, "my\u{1b}[2J sources");
        assert!(!xml.contains('\u{1b}'), "{xml}");
        assert!(!xml.contains('\u{fffe}') && !xml.contains('\u{7}'), "{xml}");
        let back = import(&xml).unwrap();
        // Issue #20: the page-only source comes back, as a `link` outline.
        assert_eq!(back.sources.len(), 3, "{xml}");
        assert_eq!(back.sources[1].name, "Page only");
        assert_eq!(back.sources[1].url, "https://b.test/");
        assert_eq!(back.sources[1].feed, None);
        assert_eq!(back.sources[0].name, sources[0].name);
        assert_eq!(back.sources[0].url, sources[0].url);
        assert_eq!(back.sources[0].feed, sources[0].feed);
        assert_eq!(back.sources[0].tags, sources[0].tags);
        assert!(back.sources[0].enabled);
        assert!(xml.contains("url=\"https://b.test/\""), "{xml}");
        assert_eq!(back.sources[2].name, "Off for now");
        assert_eq!(back.sources[2].feed, sources[2].feed);
        assert_eq!(back.sources[2].tags, ["a b", "c d"]);
        assert!(!back.sources[2].enabled, "{xml}");
    }
}

#[cfg(test)]
mod tests {
    /// README: "Every value is escaped for XML (`& < > " '`), and the
    /// characters XML 1.0 cannot carry (control characters, U+FFFE,
    /// U+FFFF) are dropped."
    #[test]
    fn export_values_are_escaped_and_what_xml_cannot_carry_dropped() {
        assert_eq!(
            super::attr("a&b<c>d\"e'f\u{1}\u{7f}\u{fffe}\u{ffff}\tg"),
            "a&amp;b&lt;c&gt;d&quot;e&apos;fg"
        );
    }

    use super::*;
    use crate::sources::{parse, to_toml};
    use std::path::Path;

    const OPML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>Subs</title></head>
  <body>
    <outline text="Tech">
      <outline text="Rust &amp; &quot;friends&quot;" title="Rust &amp; &quot;friends&quot;" type="rss"
               xmlUrl="https://blog.rust-lang.org/feed.xml" htmlUrl="https://blog.rust-lang.org/"/>
      <outline text="Deeper">
        <outline text="Same Name" xmlUrl="https://a.example/feed" category="/News/World,Misc"/>
        <outline text="Same Name" xmlUrl="https://b.example/feed" htmlUrl="javascript:alert(1)"/>
      </outline>
    </outline>
    <outline xmlUrl="https://c.example/atom.xml"/>
    <outline text="dup" xmlUrl="https://A.example:443/feed#x"/>
    <outline text="gopher" xmlUrl="gopher://old.example/"/>
    <outline text="Multi
line	title" xmlUrl="https://d.example/rss"></outline>
  </body>
</opml>"#;

    #[test]
    fn feed_scheme_urls_are_imported_as_http() {
        let imp = import(
            r#"<opml version="2.0"><body>
<outline text="A" xmlUrl="feed://a.example/rss"/>
<outline text="B" xmlUrl="feed:https://b.example/atom"/>
<outline text="C" xmlUrl="FEED://c.example/x"/>
</body></opml>"#,
        )
        .unwrap();
        let feeds: Vec<_> = imp.sources.iter().map(|s| s.feed.as_deref()).collect();
        assert_eq!(
            feeds,
            [
                Some("http://a.example/rss"),
                Some("https://b.example/atom"),
                Some("http://c.example/x")
            ],
            "{:?}",
            imp.warnings
        );
    }

    /// OPML 2.0: a commented outline, and everything under it, is kept
    /// but not run.
    #[test]
    fn commented_outlines_are_imported_disabled() {
        let imp = import(
            r#"<opml version="2.0"><body>
<outline text="Old" isComment="true">
  <outline text="A" xmlUrl="https://a.example/rss"/>
</outline>
<outline text="B" xmlUrl="https://b.example/rss" isComment="TRUE"/>
<outline text="C" xmlUrl="https://c.example/rss" isComment="false"/>
</body></opml>"#,
        )
        .unwrap();
        let enabled: Vec<bool> = imp.sources.iter().map(|s| s.enabled).collect();
        assert_eq!(enabled, [false, false, true]);
        assert_eq!(imp.sources[0].tags, ["Old"]);
    }

    #[test]
    fn nested_outlines_become_sources() {
        let imp = import(OPML).unwrap();
        let names: Vec<&str> = imp.sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Rust & \"friends\"",
                "Same Name",
                "Same Name (2)",
                "c.example",
                "Multi line title"
            ]
        );
        let rust = &imp.sources[0];
        assert_eq!(rust.url, "https://blog.rust-lang.org/");
        assert_eq!(
            rust.feed.as_deref(),
            Some("https://blog.rust-lang.org/feed.xml")
        );
        assert_eq!(rust.tags, ["Tech"]);
        assert_eq!(
            imp.sources[1].tags,
            ["Tech", "Deeper", "News", "World", "Misc"]
        );
        // A non-http htmlUrl falls back to the feed.
        assert_eq!(imp.sources[2].url, "https://b.example/feed");
        assert_eq!(imp.warnings.len(), 4, "{:?}", imp.warnings);
        assert!(imp.warnings.iter().any(|w| w.contains("duplicate feed")));
        assert!(imp.warnings.iter().any(|w| w.contains("gopher")));
        assert!(
            imp.warnings
                .iter()
                .any(|w| w.starts_with("line 10: htmlUrl ignored") && w.contains("javascript")),
            "{:?}",
            imp.warnings
        );
    }

    #[test]
    fn import_then_load_round_trips() {
        let imp = import(OPML).unwrap();
        let text = to_toml(&imp.sources, "imported");
        let loaded = parse(Path::new("sources.toml"), &text).unwrap();
        assert_eq!(loaded.sources, imp.sources);
    }

    #[test]
    fn refuses_what_is_not_opml() {
        assert!(import("<rss><channel/></rss>").is_err());
        let e = import("<opml><body><outline text=\"x\" xmlUrl=\"https://a/\"></body></opml>");
        assert!(e.is_err(), "mismatched tags are an error");
    }

    #[test]
    fn refuses_documents_that_are_not_well_formed() {
        // Cut short: the feeds read so far must not become a shorter list.
        let cut = "<?xml version=\"1.0\"?>\n<opml version=\"2.0\"><body>\n<outline text=\"A\" xmlUrl=\"https://a.example/feed\"/>\n<outline text=\"Folder\">\n";
        let e = import(cut).unwrap_err();
        assert!(e.contains("<outline> (opened on line 4)"), "{e}");
        assert!(e.starts_with("5:1: malformed XML"), "{e}");
        let e =
            import("<opml><body><outline text=\"A\" xmlUrl=\"https://a.example/\"/>").unwrap_err();
        assert!(e.contains("<body>"), "{e}");
        // A second root, or a root that is not <opml>.
        let e = import("<opml><body/></opml>\n<opml><body><outline text=\"A\" xmlUrl=\"https://a.example/\"/></body></opml>").unwrap_err();
        assert!(e.starts_with("line 2: "), "{e}");
        let e = import("<feeds><opml/><outline text=\"A\" xmlUrl=\"https://a.example/\"/></feeds>")
            .unwrap_err();
        assert!(e.contains("root element is <feeds>"), "{e}");
        // A duplicated attribute is an XML error, not a choice between two titles.
        let e = import("<opml><body><outline text=\"x\" text=\"y\" xmlUrl=\"https://a.example/\"/></body></opml>")
            .unwrap_err();
        assert!(e.starts_with("line 1: "), "{e}");
        // Comments, processing instructions and a doctype around the root are fine.
        let ok = import("\u{feff}<?xml version=\"1.0\"?>\n<!-- x -->\n<opml version=\"1.0\"><body><outline text=\"A\" xmlUrl=\"https://a.example/\"/></body></opml>\n<!-- end -->\n").unwrap();
        assert_eq!(ok.sources.len(), 1);
    }

    /// Issue #20: names made unique by a suffix counter per name (the
    /// same names as trying every suffix from 2), and lines counted
    /// incrementally (the same lines as counting from the start).
    #[test]
    fn duplicate_names_and_lines_as_before() {
        let imp = import(
            "<opml version=\"2.0\"><body>\n\
             <outline text=\"A\" xmlUrl=\"https://a.example/1\"/>\n\
             <outline text=\"A\" xmlUrl=\"https://a.example/2\"/>\n\
             <outline text=\"A (2)\" xmlUrl=\"https://a.example/3\"/>\n\
             <outline text=\"a\" xmlUrl=\"https://a.example/4\"/>\n\
             </body></opml>",
        )
        .unwrap();
        let names: Vec<&str> = imp.sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["A", "A (2)", "A (2) (2)", "a (3)"]);
        assert!(
            imp.warnings[0].starts_with("line 3: renamed duplicate name `A`"),
            "{:?}",
            imp.warnings
        );
        assert!(imp.warnings[2].starts_with("line 5:"), "{:?}", imp.warnings);
    }

    /// Issue #20: an imported name kept U+202E and other controls, and an
    /// xmlUrl with a line break was imported and printed raw.
    #[test]
    fn imported_names_are_cleaned_and_control_urls_refused() {
        let imp = import(
            "<opml version=\"2.0\"><body>\
             <outline text=\"evil\u{202e}txt.exe\u{1b}[31m red\" xmlUrl=\"https://a.example/f.xml\"/>\
             <outline text=\"B\" xmlUrl=\"https://b.example/f&#10;.xml\"/>\
             </body></opml>",
        )
        .unwrap();
        assert_eq!(imp.sources.len(), 1, "{:?}", imp.sources);
        assert_eq!(imp.sources[0].name, "eviltxt.exe red");
        let w = imp.warnings.join("\n");
        assert!(w.contains("U+000A"), "{w}");
        assert!(!imp.warnings.iter().any(|w| w.contains('\n')), "{w}");
    }
}
