//! RSS 0.90, 0.91-0.94, 1.0 and 2.0, and Atom 0.3 and 1.0, read as one
//! stream of XML events: only what R6 lets us keep (a title, a link, a
//! date per entry) is ever copied out of the document.
//!
//! Why a reader of our own over `quick-xml` rather than a feed model:
//!
//! * **Every format a reader reads.** Feed readers (Universal Feed Parser
//!   first among them) treat the namespaces RSS and Atom have worn over
//!   the years as one vocabulary: none, `http://backend.userland.com/rss2`,
//!   `http://blogs.law.harvard.edu/tech/rss`, RSS 1.0's and RSS 0.90's,
//!   Atom 0.3's `http://purl.org/atom/ns#` (and its drafts') and Atom
//!   1.0's. So do we: an `item` or `entry` in any of them is an entry,
//!   whatever the root, and `dc:title` or `media:title` stand in for a
//!   missing title. Element names are matched without regard to case, as
//!   readers do.
//! * **Titles as text, by what the source says they are** (see
//!   [`TitleKind`]): the decision needs the element's `type` and `mode`
//!   and its raw children, which a model flattens away.
//! * **Recovery as readers do.** The events are read leniently (a bare
//!   `&` is text, end tags need not match, HTML's named entities are
//!   known), and every departure from well-formed XML is noted in
//!   [`Repairs`] where it happens: the items are those a second, lenient
//!   reading would give, and the report says the document needed one.
//!   What cannot be read at all (an unclosed comment, a document cut
//!   before its first entry) is an error naming its line and column.
//! * **Bounded memory.** Nothing is kept per entry but its item, handed
//!   to the caller as soon as the entry ends, so a 10 MiB feed of tiny
//!   items costs its items, not a model of the document.

use super::html;
use super::repair::{at, Repairs};
use super::{date, http_url, web_only, Entry, ExtractError};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;

/// What the document was.
pub(super) struct Read {
    /// `RSS 2.0`, `Atom 0.3`...
    pub(super) format: &'static str,
    /// Entries read whole.
    pub(super) entries: usize,
    /// The publisher's pace, from the channel's `ttl`, `sy:updatePeriod`,
    /// `sy:updateFrequency`, `skipHours` and `skipDays` (issue #23).
    pub(super) hints: wr_core::hints::Hints,
}

/// The most text kept of one element (a title, a link, a date): a title
/// is cut at 300 characters anyway ([`super::MAX_TITLE_CHARS`]), and a
/// document of one 10 MiB "title" must cost no more than any other.
const CAPTURE_MAX: usize = 64 * 1024;

/// Appends as much of `s` to `dst` as [`CAPTURE_MAX`] allows.
fn push_bounded(dst: &mut String, s: &str) {
    let room = CAPTURE_MAX.saturating_sub(dst.len());
    if s.len() <= room {
        dst.push_str(s);
        return;
    }
    let mut cut = room;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    dst.push_str(&s[..cut]);
}

/// Elements nested deeper than this end the reading (with a repair
/// noted): no feed nests so deep, and the namespace resolver counts
/// levels in 16 bits.
const MAX_DEPTH: usize = 512;

/// The vocabularies an element can belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    /// RSS of any version, or no namespace.
    Rss,
    /// Atom 1.0.
    Atom10,
    /// Atom 0.3 and the drafts before it (Echo, Pie).
    Atom03,
    /// Dublin Core elements and terms.
    Dc,
    /// Media RSS.
    Media,
    /// RDF (the root of RSS 0.90 and 1.0).
    Rdf,
    /// RSS 0.90's own namespace.
    Rss090,
    /// The RSS 1.0 syndication module (`sy:updatePeriod`...).
    Sy,
    /// Anything else.
    Other,
}

impl Ns {
    fn of(resolved: &ResolveResult<'_>) -> Ns {
        let uri: &[u8] = match resolved {
            ResolveResult::Bound(ns) => ns.as_ref(),
            ResolveResult::Unbound => return Ns::Rss,
            // An undeclared prefix: the usual ones are read as what
            // they always name.
            ResolveResult::Unknown(prefix) => {
                return match prefix.as_slice() {
                    b"dc" | b"dcterms" => Ns::Dc,
                    b"media" => Ns::Media,
                    b"atom" => Ns::Atom10,
                    b"rdf" => Ns::Rdf,
                    b"sy" => Ns::Sy,
                    _ => Ns::Other,
                }
            }
        };
        let uri = uri.trim_ascii();
        match uri {
            b""
            | b"http://backend.userland.com/rss"
            | b"http://backend.userland.com/rss2"
            | b"http://blogs.law.harvard.edu/tech/rss"
            | b"http://purl.org/rss/1.0/"
            | b"http://purl.org/rss/1.0/modules/rss091#" => Ns::Rss,
            b"http://my.netscape.com/rdf/simple/0.9/" => Ns::Rss090,
            b"http://www.w3.org/2005/Atom" => Ns::Atom10,
            b"http://purl.org/atom/ns#"
            | b"http://purl.org/echo/"
            | b"http://purl.org/pie/"
            | b"http://example.com/newformat#"
            | b"http://example.com/necho"
            | b"uri/of/echo/namespace#" => Ns::Atom03,
            b"http://purl.org/dc/elements/1.1/"
            | b"http://purl.org/dc/elements/1.0/"
            | b"http://purl.org/dc/terms/" => Ns::Dc,
            b"http://search.yahoo.com/mrss/" | b"http://search.yahoo.com/mrss" => Ns::Media,
            b"http://www.w3.org/1999/02/22-rdf-syntax-ns#" => Ns::Rdf,
            b"http://purl.org/rss/1.0/modules/syndication/"
            | b"http://purl.org/rss/1.0/modules/syndication" => Ns::Sy,
            _ => Ns::Other,
        }
    }

    /// RSS's and Atom's own elements (title, link, item, entry...).
    fn is_feed(self) -> bool {
        matches!(self, Ns::Rss | Ns::Rss090 | Ns::Atom10 | Ns::Atom03)
    }
}

/// How a title's content is to be read.
///
/// * Atom 1.0 says so with `type`: `text` (the default), `html` (escaped
///   HTML) or `xhtml` (inline XHTML, whose `div` wrapper is markup, not
///   text). The MIME forms (`text/html`...) are read alike.
/// * Atom 0.3 says it with a MIME `type` (default `text/plain`) and a
///   `mode`: `escaped`, `base64` (decoded first), or `xml` (inline
///   markup).
/// * RSS titles are plain text by the letter of the specifications and
///   HTML by convention: they are read as HTML when they look like it
///   ([`html::looks_like_html`]: an end tag or a character reference,
///   only HTML's elements and entities), so `It&amp;#8217;s` reads "It’s"
///   while `Vec<T>` stays `Vec<T>`. So are `dc:title` and `media:title`
///   unless they carry a `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TitleKind {
    Text,
    Html,
    Xhtml,
    Guess,
}

/// What a captured element's text becomes.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    /// The entry's title (`title`, `dc:title`).
    Title,
    /// `media:title`: the title when there is no other.
    MediaTitle,
    /// A link's text (RSS `<link>`): resolved against `base`.
    Link {
        base: url::Url,
    },
    /// An RSS `guid` that is a permalink, or an Atom `id`, read against
    /// `base` when it is a relative path.
    Permalink {
        base: url::Url,
    },
    Published,
    Updated,
    /// A channel element that tells the publisher's pace.
    Hint(HintField),
}

/// The channel elements read as publisher hints (issue #23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HintField {
    /// RSS `<ttl>`: minutes.
    Ttl,
    /// `sy:updatePeriod`.
    Period,
    /// `sy:updateFrequency`.
    Frequency,
    /// `<skipHours><hour>`.
    Hour,
    /// `<skipDays><day>`.
    Day,
}

/// The text of an element being read.
struct Capture {
    /// Depth of the element.
    depth: usize,
    target: Target,
    kind: TitleKind,
    base64: bool,
    /// Its text nodes, decoded.
    text: String,
    /// Its text as HTML source: the text nodes and the child tags (titles
    /// read as HTML only).
    markup: String,
    /// Depth of a `script` or `style` element being skipped (XHTML).
    skip: Option<usize>,
}

impl Capture {
    fn wants_markup(&self) -> bool {
        matches!(self.target, Target::Title | Target::MediaTitle)
            && matches!(self.kind, TitleKind::Html | TitleKind::Guess)
    }

    fn push(&mut self, s: &str) {
        if self.skip.is_some() {
            return;
        }
        push_bounded(&mut self.text, s);
        if self.wants_markup() {
            push_bounded(&mut self.markup, s);
        }
    }

    fn push_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.push(c.encode_utf8(&mut buf));
    }

    /// A child element opens (`depth` is its own).
    fn open(&mut self, local: &str, depth: usize) {
        if self.skip.is_some() {
            return;
        }
        if self.kind == TitleKind::Xhtml && (local == "script" || local == "style") {
            self.skip = Some(depth);
            return;
        }
        if local == "br" || local == "p" || local == "div" || local == "li" {
            push_bounded(&mut self.text, " ");
        }
        if self.wants_markup() {
            push_bounded(&mut self.markup, &format!("<{local}>"));
        }
    }

    /// A child element closes (`depth` was its own).
    fn close(&mut self, local: &str, depth: usize) {
        if self.skip == Some(depth) {
            self.skip = None;
            return;
        }
        if self.skip.is_some() {
            return;
        }
        if self.wants_markup() {
            push_bounded(&mut self.markup, &format!("</{local}>"));
        }
    }

    /// The title as text.
    fn title(self) -> String {
        let mut out = String::new();
        if self.base64 {
            let decoded = base64(&self.text);
            let decoded = String::from_utf8_lossy(&decoded);
            match self.kind {
                TitleKind::Html | TitleKind::Xhtml => html::html_to_text(&decoded, &mut out),
                TitleKind::Guess if html::looks_like_html(&decoded) => {
                    html::html_to_text(&decoded, &mut out)
                }
                _ => out.push_str(&decoded),
            }
        } else {
            match self.kind {
                TitleKind::Html => html::html_to_text(&self.markup, &mut out),
                TitleKind::Guess if html::looks_like_html(&self.markup) => {
                    html::html_to_text(&self.markup, &mut out)
                }
                _ => out = self.text,
            }
        }
        // A C1 control in a title is a windows-1252 character read as ISO
        // 8859-1: readers show the character (`’` for U+0092).
        if out.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)) {
            out = out.chars().map(html::cp1252_c1).collect();
        }
        out
    }
}

/// Standard base64 (Atom 0.3 `mode="base64"`): whitespace skipped,
/// anything else outside the alphabet ends the data.
fn base64(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            c if c.is_ascii_whitespace() => continue,
            _ => break,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// An entry being read.
struct EntryState {
    depth: usize,
    title: Option<String>,
    media_title: Option<String>,
    /// The best alternate link so far: rank 0 for an HTML (or untyped)
    /// page, 1 for any other non-media type.
    link: Option<(u8, url::Url)>,
    /// The first permalink `guid` or absolute `id`.
    permalink: Option<url::Url>,
    published: Option<String>,
    updated: Option<String>,
}

impl EntryState {
    fn new(depth: usize) -> EntryState {
        EntryState {
            depth,
            title: None,
            media_title: None,
            link: None,
            permalink: None,
            published: None,
            updated: None,
        }
    }

    /// Considers a link (`rel` and `type` as given).
    /// Whether the entry has what `target` would capture (a first title,
    /// an alternate link...): the first one stands.
    fn has(&self, target: &Target) -> bool {
        match target {
            Target::Title => self.title.is_some(),
            Target::MediaTitle => self.media_title.is_some(),
            Target::Link { .. } => self.link.as_ref().is_some_and(|(r, _)| *r == 0),
            Target::Permalink { .. } => self.permalink.is_some(),
            Target::Published => self.published.is_some(),
            Target::Updated => self.updated.is_some(),
            Target::Hint(_) => true,
        }
    }

    fn offer(&mut self, href: &str, rel: Option<&str>, kind: Option<&str>, base: &url::Url) {
        let rel = rel.map(str::trim).unwrap_or("alternate");
        if !rel.eq_ignore_ascii_case("alternate") {
            return;
        }
        let kind = kind.map(|k| k.trim().to_ascii_lowercase());
        let rank = match kind.as_deref() {
            None | Some("" | "text/html" | "application/xhtml+xml" | "html") => 0,
            // Attachments are sub-resources, never the item (R6).
            Some(k)
                if k.starts_with("audio/")
                    || k.starts_with("video/")
                    || k.starts_with("image/") =>
            {
                return
            }
            Some(_) => 1,
        };
        if self.link.as_ref().is_some_and(|(r, _)| *r <= rank) {
            return;
        }
        let href = href.trim();
        if href.is_empty() {
            return;
        }
        if let Some(url) = base.join(href).ok().and_then(web_only) {
            self.link = Some((rank, url));
        }
    }

    fn finish(self) -> Entry {
        Entry {
            title: self.title.or(self.media_title).unwrap_or_default(),
            link: self.link.map(|(_, u)| u).or(self.permalink),
            published: self.published.or(self.updated),
        }
    }
}

/// The document's root, as far as it decides the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Rss,
    Rdf,
    Atom,
}

struct Reader<'t, 'f> {
    text: &'t str,
    repairs: &'f mut Repairs,
    sink: &'f mut dyn FnMut(Entry),
    /// Names of the open elements, back to back, and where each ends.
    names: Vec<u8>,
    ends: Vec<usize>,
    /// `xml:base` in effect: (depth it was set at, base).
    bases: Vec<(usize, url::Url)>,
    root: Option<Root>,
    format: &'static str,
    entry: Option<EntryState>,
    capture: Option<Capture>,
    entries: usize,
    /// `<!ENTITY>`s of the internal DTD subset.
    entities: Vec<(String, String)>,
    /// The DTD has an external part, which may declare any entity.
    external_dtd: bool,
    /// Where the event being handled starts.
    pos: usize,
    hints: wr_core::hints::Hints,
}

/// Notes the first control character of `text` (XML allows none; the
/// lenient reading goes on).
fn note_controls(text: &str, repairs: &mut Repairs) {
    if let Some(i) = text
        .bytes()
        .position(|b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
    {
        repairs.note("control", || {
            format!("a control character (XML allows none) at {}", at(text, i))
        });
    }
}

/// What an element inside an entry captures, if anything (`child`: a
/// direct child of the entry). A link whose URL is in its attributes is
/// offered to the entry at once, and captures nothing.
fn entry_target<'v>(
    entry: &mut EntryState,
    ns: Ns,
    local: &str,
    child: bool,
    base: &url::Url,
    attr: &dyn Fn(&str) -> Option<&'v str>,
) -> Option<Target> {
    match (ns, local) {
        (n, "title") if child && n.is_feed() => Some(Target::Title),
        (Ns::Dc, "title") if child => Some(Target::Title),
        (Ns::Media, "title") => Some(Target::MediaTitle),
        (n, "link") if child && n.is_feed() => {
            let href = attr("href").or_else(|| attr("url")).or_else(|| attr("uri"));
            match href {
                Some(h) => {
                    entry.offer(h, attr("rel"), attr("type"), base);
                    None
                }
                None if attr("rel").is_none_or(|r| r.trim().eq_ignore_ascii_case("alternate")) => {
                    Some(Target::Link { base: base.clone() })
                }
                None => None,
            }
        }
        (n, "guid" | "id") if child && n.is_feed() => {
            let permalink =
                attr("ispermalink").is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
            permalink.then(|| Target::Permalink { base: base.clone() })
        }
        (n, "pubdate" | "published" | "issued") if child && n.is_feed() => Some(Target::Published),
        (Ns::Dc, "issued" | "created") if child => Some(Target::Published),
        (n, "updated" | "modified") if child && n.is_feed() => Some(Target::Updated),
        (Ns::Dc, "date" | "modified") if child => Some(Target::Updated),
        _ => None,
    }
}

/// Reads `text` (a document starting with `<`), handing each entry to
/// `sink` as it ends. Links resolve against `xml:base` over `base`.
pub(super) fn read(
    text: &str,
    base: &url::Url,
    repairs: &mut Repairs,
    sink: &mut dyn FnMut(Entry),
) -> Result<Read, ExtractError> {
    note_controls(text, repairs);
    let mut r = Reader {
        text,
        repairs,
        sink,
        names: Vec::new(),
        ends: Vec::new(),
        bases: vec![(0, base.clone())],
        root: None,
        format: "XML",
        entry: None,
        capture: None,
        entries: 0,
        entities: Vec::new(),
        external_dtd: false,
        pos: 0,
        hints: wr_core::hints::Hints::default(),
    };
    let mut reader = quick_xml::NsReader::from_str(text);
    let config = reader.config_mut();
    // The lenient reading; `Reader` notes what a strict one refuses.
    config.allow_dangling_amp = true;
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.expand_empty_elements = false;
    let mut fatal: Option<(usize, String)> = None;
    loop {
        r.pos = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        match reader.read_resolved_event() {
            Ok((ns, Event::Start(e))) => {
                let ns = Ns::of(&ns);
                if let Err(stop) = r.start(ns, &e)? {
                    fatal = Some(stop);
                    break;
                }
            }
            Ok((ns, Event::Empty(e))) => {
                let ns = Ns::of(&ns);
                if let Err(stop) = r.start(ns, &e)? {
                    fatal = Some(stop);
                    break;
                }
                r.close_top();
                // quick-xml pops the scope it opened on the next read.
            }
            Ok((_, Event::End(e))) => {
                r.end(e.name().as_ref());
                // The resolver pops one scope on the next read, whatever
                // this end tag closed: leave it one above our depth.
                let level = u16::try_from(r.depth() + 1).unwrap_or(u16::MAX);
                reader.resolver_mut().set_level(level);
            }
            Ok((_, Event::Text(t))) => r.text_event(&String::from_utf8_lossy(t.as_ref())),
            Ok((_, Event::CData(t))) => r.push_text(&String::from_utf8_lossy(t.as_ref())),
            Ok((_, Event::GeneralRef(g))) => {
                let name = String::from_utf8_lossy(g.as_ref()).into_owned();
                let char_ref = g.is_char_ref().then(|| g.resolve_char_ref());
                r.reference(&name, char_ref);
            }
            Ok((_, Event::DocType(d))) => r.doctype(&String::from_utf8_lossy(d.as_ref())),
            Ok((_, Event::Decl(_))) if r.pos > 0 => r.late_decl(),
            Ok((_, Event::Comment(c))) => r.comment(c.as_ref()),
            Ok((_, Event::Eof)) => break,
            Ok(_) => {}
            Err(e) => {
                let p = usize::try_from(reader.error_position()).unwrap_or(r.pos);
                fatal = Some((p, e.to_string()));
                break;
            }
        }
    }
    r.finish(fatal)
}

impl Reader<'_, '_> {
    /// Text: a bare `&` in it is noted (the lenient reading keeps it).
    fn text_event(&mut self, s: &str) {
        if s.contains('&') {
            let i = self.pos + s.find('&').unwrap_or(0);
            let text = self.text;
            self.repairs.note("amp", || {
                format!("a bare '&' read as text at {}", at(text, i))
            });
        }
        self.push_text(s);
    }

    /// An XML declaration past the start: noted.
    fn late_decl(&mut self) {
        let (p, t) = (self.pos, self.text);
        self.repairs.note("decl", || {
            format!(
                "the XML declaration is not at the start, but at {}",
                at(t, p)
            )
        });
    }

    /// A comment: `--` inside it is noted.
    fn comment(&mut self, c: &[u8]) {
        if c.windows(2).any(|w| w == b"--") {
            let (p, t) = (self.pos, self.text);
            self.repairs.note("comment", || {
                format!("'--' inside a comment (XML forbids it) at {}", at(t, p))
            });
        }
    }

    fn depth(&self) -> usize {
        self.ends.len()
    }

    fn base(&self) -> &url::Url {
        top(&self.bases)
    }

    fn name_at(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.names[start..self.ends[i]]
    }

    /// An element opens. The outer `Err` is an extraction error (not a
    /// feed); the inner one stops the reading where it is.
    #[allow(clippy::type_complexity)]
    fn start(
        &mut self,
        ns: Ns,
        e: &BytesStart<'_>,
    ) -> Result<Result<(), (usize, String)>, ExtractError> {
        if self.depth() >= MAX_DEPTH {
            return Ok(Err((
                self.pos,
                format!("elements are nested deeper than {MAX_DEPTH}"),
            )));
        }
        self.names.extend_from_slice(e.name().as_ref());
        self.ends.push(self.names.len());
        let depth = self.depth();
        let mut buf = [0u8; LOCAL_MAX];
        let local = lowercase_local(e.local_name().as_ref(), &mut buf);
        // Most feed elements carry no attribute: nothing to read then.
        let attrs = if e.attributes_raw().trim_ascii().is_empty() {
            Vec::new()
        } else {
            self.attributes(e)
        };
        let attr = |name: &str| {
            attrs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        // CDF's `base`, which readers take for `xml:base` wherever it is.
        if let Some(b) = attr("xml:base").or_else(|| attr("base")) {
            if let Ok(u) = self.base().join(b.trim()) {
                self.bases.push((depth, u));
            }
        }
        if depth == 1 {
            self.root(ns, local, attr("version"))?;
            if self.root == Some(Root::Atom) && local == "entry" {
                // An Atom entry document.
                self.entry = Some(EntryState::new(depth));
            }
            return Ok(Ok(()));
        }
        if ns == Ns::Rss090 {
            self.format = "RSS 0.90";
        }
        if let Some(c) = &mut self.capture {
            c.open(local, depth);
            return Ok(Ok(()));
        }
        let Some(entry) = &mut self.entry else {
            self.outside_entry(ns, local, depth, attr("href"));
            return Ok(Ok(()));
        };
        let child = depth == entry.depth + 1;
        let atom_context = match ns {
            Ns::Atom10 | Ns::Atom03 => true,
            Ns::Rss | Ns::Dc | Ns::Media => self.root == Some(Root::Atom),
            _ => false,
        };
        let target = entry_target(entry, ns, local, child, top(&self.bases), &attr);
        let Some(target) = target.filter(|t| !entry.has(t)) else {
            return Ok(Ok(()));
        };
        let (kind, base64) = title_kind(attr("type"), attr("mode"), atom_context);
        self.capture = Some(Capture {
            depth,
            target,
            kind,
            base64,
            text: String::new(),
            markup: String::new(),
            skip: None,
        });
        Ok(Ok(()))
    }

    /// An element outside any entry: a publisher's hint to capture, or an
    /// entry that opens (CDF and some RSS 0.9x give its page as `href`).
    fn outside_entry(&mut self, ns: Ns, local: &str, depth: usize, href: Option<&str>) {
        if let Some(field) = self.hint_field(ns, local, depth) {
            self.capture = Some(Capture {
                depth,
                target: Target::Hint(field),
                kind: TitleKind::Text,
                base64: false,
                text: String::new(),
                markup: String::new(),
                skip: None,
            });
            return;
        }
        if ns.is_feed() && (local == "item" || local == "entry") {
            let mut entry = EntryState::new(depth);
            if let Some(href) = href {
                entry.offer(href, None, None, self.base());
            }
            self.entry = Some(entry);
        }
    }

    /// Decides the format from the root element.
    fn root(&mut self, ns: Ns, local: &str, version: Option<&str>) -> Result<(), ExtractError> {
        let (root, format) = match (local, ns) {
            ("rss", _) => (
                Root::Rss,
                match version.map(str::trim) {
                    Some("0.91") => "RSS 0.91",
                    Some("0.92") => "RSS 0.92",
                    Some("0.93") => "RSS 0.93",
                    Some("0.94") => "RSS 0.94",
                    _ => "RSS 2.0",
                },
            ),
            ("channel", Ns::Rss) => (Root::Rss, "RSS 0.9x"),
            ("rdf", Ns::Rdf) | ("rdf", Ns::Other) => (Root::Rdf, "RSS 1.0"),
            ("feed" | "entry", Ns::Atom10) => (Root::Atom, "Atom 1.0"),
            ("feed" | "entry", Ns::Atom03) => (Root::Atom, "Atom 0.3"),
            ("feed" | "entry", Ns::Rss) => (Root::Atom, "Atom"),
            _ => {
                let shown = local.chars().take(40).collect::<String>();
                return Err(ExtractError::NotAFeed(format!(
                    "the root element <{shown}> is not RSS, RDF or Atom"
                )));
            }
        };
        self.root = Some(root);
        self.format = format;
        Ok(())
    }

    /// The attributes of `e` with lowercase-insensitive keys and values
    /// unescaped leniently.
    fn attributes(&mut self, e: &BytesStart<'_>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for a in e.html_attributes().with_checks(false).flatten() {
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            if !matches!(
                key.to_ascii_lowercase().as_str(),
                "href"
                    | "url"
                    | "uri"
                    | "rel"
                    | "type"
                    | "mode"
                    | "xml:base"
                    | "base"
                    | "ispermalink"
                    | "version"
            ) {
                continue;
            }
            let raw = String::from_utf8_lossy(&a.value).into_owned();
            let value = self.unescape(&raw);
            out.push((key, value));
        }
        out
    }

    /// An attribute value's references decoded, as the text's are.
    fn unescape(&mut self, raw: &str) -> String {
        if !raw.contains('&') {
            return raw.to_string();
        }
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(i) = rest.find('&') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let end = after
                .find(|c: char| c == ';' || c == '&' || c.is_whitespace() || c == '<')
                .filter(|&e| after.as_bytes()[e] == b';');
            match end {
                Some(e) if e > 0 => {
                    let name = &after[..e];
                    let decoded = if let Some(num) = name.strip_prefix('#') {
                        let v = match num.strip_prefix(['x', 'X']) {
                            Some(hex) => u32::from_str_radix(hex, 16).ok(),
                            None => num.parse().ok(),
                        };
                        v.and_then(char::from_u32).map(String::from)
                    } else {
                        self.entity(name)
                    };
                    match decoded {
                        Some(d) => out.push_str(&d),
                        None => {
                            out.push('&');
                            out.push_str(name);
                            out.push(';');
                        }
                    }
                    rest = &after[e + 1..];
                }
                _ => {
                    let p = self.pos;
                    let text = self.text;
                    self.repairs.note("amp", || {
                        format!("a bare '&' read as text at {}", at(text, p))
                    });
                    out.push('&');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The text of the named entity `name`: XML's five, the DTD's, else
    /// HTML's (a repair unless an external DTD may declare it). An
    /// unknown one is kept as written (also a repair).
    fn entity(&mut self, name: &str) -> Option<String> {
        let predefined = match name {
            "lt" => Some("<"),
            "gt" => Some(">"),
            "amp" => Some("&"),
            "apos" => Some("'"),
            "quot" => Some("\""),
            _ => None,
        };
        if let Some(p) = predefined {
            return Some(p.to_string());
        }
        if let Some((_, v)) = self.entities.iter().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        let (p, text) = (self.pos, self.text);
        let shown: String = name.chars().take(40).collect();
        match html::named(&format!("{name};")) {
            Some(v) => {
                if !self.external_dtd {
                    self.repairs.note("html-entity", || {
                        format!(
                            "HTML entity &{shown}; (XML defines only five) at {}",
                            at(text, p)
                        )
                    });
                }
                Some(v.to_string())
            }
            None => {
                self.repairs.note("entity", || {
                    format!("undefined entity &{shown}; kept as text at {}", at(text, p))
                });
                None
            }
        }
    }

    /// A general or character reference in content.
    fn reference(&mut self, name: &str, char_ref: Option<Result<Option<char>, quick_xml::Error>>) {
        let text = match char_ref {
            Some(Ok(Some(c))) => c.to_string(),
            Some(_) => {
                let (p, t) = (self.pos, self.text);
                let shown: String = name.chars().take(20).collect();
                // `&#X41;` is HTML's, not XML's (lowercase `x` only).
                match html::reference(&format!("{name};")) {
                    Some((html::Ref::Char(c), _)) => {
                        self.repairs.note("charref", || {
                            format!(
                                "character reference &{shown}; (HTML's form, not XML's) at {}",
                                at(t, p)
                            )
                        });
                        c.to_string()
                    }
                    _ => {
                        self.repairs.note("charref", || {
                            format!("invalid character reference &{shown}; at {}", at(t, p))
                        });
                        '\u{fffd}'.to_string()
                    }
                }
            }
            None => match self.entity(name) {
                Some(v) => v,
                None => format!("&{name};"),
            },
        };
        if let Some(c) = &mut self.capture {
            if text.chars().count() == 1 {
                c.push_char(text.chars().next().unwrap_or('\u{fffd}'));
            } else {
                c.push(&text);
            }
        }
    }

    fn push_text(&mut self, s: &str) {
        if let Some(c) = &mut self.capture {
            c.push(s);
        }
    }

    /// Reads the `<!ENTITY name "value">` declarations of the internal
    /// subset (general entities only, never expanded recursively).
    fn doctype(&mut self, d: &str) {
        let head = d.split('[').next().unwrap_or_default();
        self.external_dtd = head.contains("PUBLIC") || head.contains("SYSTEM");
        let mut rest = d;
        while let Some(i) = rest.find("<!ENTITY") {
            rest = &rest[i + 8..];
            let mut words = rest.trim_start();
            if words.starts_with('%') {
                continue;
            }
            let name_len = words
                .find(|c: char| c.is_whitespace())
                .unwrap_or(words.len());
            let name = words[..name_len].to_string();
            words = words[name_len..].trim_start();
            let Some(quote) = words.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
                continue;
            };
            let Some(close) = words[1..].find(quote) else {
                break;
            };
            let raw = words[1..=close].to_string();
            let value = self.unescape(&raw);
            if self.entities.len() < 1000 {
                self.entities.push((name, value));
            }
        }
    }

    /// An end tag. A mismatched one closes the elements it skips over (as
    /// HTML does); one that matches nothing open is ignored.
    fn end(&mut self, name: &[u8]) {
        let depth = self.depth();
        let Some(i) = (0..depth).rev().find(|&i| self.name_at(i) == name) else {
            let (p, t) = (self.pos, self.text);
            let shown = String::from_utf8_lossy(name)
                .chars()
                .take(40)
                .collect::<String>();
            self.repairs.note("end-tag", || {
                format!("an end tag </{shown}> with no start tag at {}", at(t, p))
            });
            return;
        };
        if i + 1 != depth {
            let (p, t) = (self.pos, self.text);
            let open = String::from_utf8_lossy(self.name_at(depth - 1))
                .chars()
                .take(40)
                .collect::<String>();
            let shown = String::from_utf8_lossy(name)
                .chars()
                .take(40)
                .collect::<String>();
            self.repairs.note("end-tag", || {
                format!("an end tag </{shown}> closes <{open}> at {}", at(t, p))
            });
        }
        while self.depth() > i {
            self.close_top();
        }
    }

    /// Closes the innermost open element.
    fn close_top(&mut self) {
        let depth = self.depth();
        if depth == 0 {
            return;
        }
        let mut buf = [0u8; LOCAL_MAX];
        let local = {
            let name = self.name_at(depth - 1);
            lowercase_local(name.rsplit(|&b| b == b':').next().unwrap_or(name), &mut buf)
        };
        self.ends.pop();
        self.names.truncate(self.ends.last().copied().unwrap_or(0));
        while self.bases.len() > 1 && self.bases[self.bases.len() - 1].0 >= depth {
            self.bases.pop();
        }
        if let Some(c) = &mut self.capture {
            if c.depth != depth {
                c.close(local, depth);
                return;
            }
        }
        if let Some(c) = self.capture.take() {
            self.captured(c);
            return;
        }
        if self.entry.as_ref().is_some_and(|e| e.depth == depth) {
            if let Some(e) = self.entry.take() {
                self.entries += 1;
                (self.sink)(e.finish());
            }
        }
    }

    /// The publisher hint an element outside any entry carries: RSS's
    /// `ttl`, `sy:updatePeriod` / `sy:updateFrequency` anywhere in the
    /// channel, and an `hour` or `day` directly inside `skipHours` or
    /// `skipDays`.
    fn hint_field(&self, ns: Ns, local: &str, depth: usize) -> Option<HintField> {
        let parent = || {
            let name = self.name_at(depth.checked_sub(2)?);
            let mut buf = [0u8; LOCAL_MAX];
            let p = lowercase_local(name.rsplit(|&b| b == b':').next().unwrap_or(name), &mut buf);
            Some(p.to_string())
        };
        match (ns, local) {
            (Ns::Rss, "ttl") => Some(HintField::Ttl),
            (Ns::Sy, "updateperiod") => Some(HintField::Period),
            (Ns::Sy, "updatefrequency") => Some(HintField::Frequency),
            (Ns::Rss, "hour") if parent().as_deref() == Some("skiphours") => Some(HintField::Hour),
            (Ns::Rss, "day") if parent().as_deref() == Some("skipdays") => Some(HintField::Day),
            _ => None,
        }
    }

    /// A hint element's text, read leniently: what does not parse gives no
    /// hint (never an error: a hint only ever delays a fetch).
    fn hint(&mut self, field: HintField, text: &str) {
        use wr_core::hints::{skip_day, sy_period};
        let text = text.trim();
        let number = || text.parse::<u64>().ok();
        let h = &mut self.hints;
        match field {
            HintField::Ttl => h.ttl_min = h.ttl_min.or(number()),
            HintField::Period => h.sy_period_s = h.sy_period_s.or(sy_period(text)),
            HintField::Frequency => h.sy_frequency = h.sy_frequency.or(number()),
            HintField::Hour => {
                // RSS 2.0: 0-23; some feeds write 24 for midnight.
                if let Some(hour) = number().filter(|&n| n <= 24) {
                    h.skip_hours |= 1 << (hour % 24);
                }
            }
            HintField::Day => h.skip_days |= skip_day(text).unwrap_or(0),
        }
    }

    /// A captured element ended: its text goes where it belongs.
    fn captured(&mut self, c: Capture) {
        if let Target::Hint(field) = c.target {
            self.hint(field, &c.text);
            return;
        }
        let Some(entry) = &mut self.entry else {
            return;
        };
        match c.target.clone() {
            Target::Title => {
                let t = c.title();
                // An empty title does not hide a later one.
                if !t.trim().is_empty() {
                    entry.title = Some(t);
                }
            }
            Target::MediaTitle => {
                let t = c.title();
                if !t.trim().is_empty() {
                    entry.media_title = Some(t);
                }
            }
            Target::Link { base } => {
                // `?a=1&amp;b=2` escaped twice is a query with an `&`
                // (Universal Feed Parser repairs it the same way).
                let href = c.text.trim().replace("&amp;", "&");
                entry.offer(&href, None, None, &base);
            }
            Target::Permalink { base } => {
                entry.permalink = permalink(&c.text, &base);
            }
            Target::Published => entry.published = date::rfc3339(&c.text),
            Target::Updated => entry.updated = date::rfc3339(&c.text),
            Target::Hint(_) => {}
        }
    }

    fn finish(self, fatal: Option<(usize, String)>) -> Result<Read, ExtractError> {
        if self.root.is_none() {
            return Err(match fatal {
                Some((p, reason)) => unreadable(self.text, p, &reason),
                None => ExtractError::NotAFeed("no root element".into()),
            });
        }
        let cut = match fatal {
            Some((p, reason)) => Some((p, reason)),
            None if self.depth() > 0 => {
                let open = String::from_utf8_lossy(self.name_at(self.depth() - 1))
                    .chars()
                    .take(40)
                    .collect::<String>();
                Some((
                    self.text.len(),
                    format!("the document ends inside <{open}>"),
                ))
            }
            None => None,
        };
        if let Some((p, reason)) = cut {
            if self.entries == 0 {
                return Err(unreadable(self.text, p, &reason));
            }
            let text = self.text;
            self.repairs.note("cut", || {
                format!(
                    "{reason} at {}: the entries before it are kept",
                    at(text, p)
                )
            });
        }
        Ok(Read {
            format: self.format,
            entries: self.entries,
            hints: self.hints,
        })
    }
}

/// The page a permalink `guid` or an `id` names: an absolute `http(s)`
/// URL, or a relative path (`/2024/post`, `posts/1`) read against `base`
/// as readers do. A bare name (`1`, `post-17`, `urn:...`, `tag:...`) names
/// no page.
fn permalink(text: &str, base: &url::Url) -> Option<url::Url> {
    let t = text.trim();
    if let Some(u) = http_url(t) {
        return Some(u);
    }
    let relative = url::Url::parse(t) == Err(url::ParseError::RelativeUrlWithoutBase);
    if !relative || !t.contains('/') || t.contains(char::is_whitespace) {
        return None;
    }
    base.join(t).ok().and_then(web_only)
}

/// Local names longer than this are no element we read.
const LOCAL_MAX: usize = 32;

/// `local` in ASCII lowercase, in `buf`; `""` when it is longer than
/// [`LOCAL_MAX`] or not UTF-8 (no element we read).
fn lowercase_local<'b>(local: &[u8], buf: &'b mut [u8; LOCAL_MAX]) -> &'b str {
    if local.len() > LOCAL_MAX {
        return "";
    }
    let out = &mut buf[..local.len()];
    out.copy_from_slice(local);
    out.make_ascii_lowercase();
    std::str::from_utf8(out).unwrap_or("")
}

/// The base in effect: the last of `bases` (the first, the final URL, is
/// never popped).
fn top(bases: &[(usize, url::Url)]) -> &url::Url {
    &bases[bases.len() - 1].1
}

fn unreadable(text: &str, p: usize, reason: &str) -> ExtractError {
    let (line, column) = super::repair::line_column(text, p);
    ExtractError::Unreadable {
        line,
        column,
        reason: reason.to_string(),
    }
}

/// How a title element says its content is to be read, and whether it is
/// base64 first (see [`TitleKind`]).
fn title_kind(kind: Option<&str>, mode: Option<&str>, atom: bool) -> (TitleKind, bool) {
    let mode = mode.map(|m| m.trim().to_ascii_lowercase());
    let kind = kind.map(|k| k.trim().to_ascii_lowercase());
    let escaped = mode.as_deref() == Some("escaped");
    // Atom's rule for content (RFC 4287 section 4.1.3.3), which readers
    // apply to every text construct: a MIME type that is neither text
    // nor XML means base64.
    let binary = atom
        && kind.as_deref().is_some_and(|k| {
            k.contains('/')
                && !k.starts_with("text/")
                && !k.ends_with("/xml")
                && !k.ends_with("+xml")
        });
    let base64 = mode.as_deref() == Some("base64") || binary;
    let kind = match kind.as_deref() {
        Some("html" | "text/html") => TitleKind::Html,
        // Atom 0.3 escaped XHTML is HTML source like any other.
        Some("xhtml" | "application/xhtml+xml") if escaped || base64 => TitleKind::Html,
        Some("xhtml" | "application/xhtml+xml") => TitleKind::Xhtml,
        Some("text" | "text/plain" | "plain") => TitleKind::Text,
        None | Some("") if !atom => TitleKind::Guess,
        _ => TitleKind::Text,
    };
    (kind, base64)
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_decodes() {
        assert_eq!(base64("PGI+Qm9sZDwvYj4="), b"<b>Bold</b>");
        assert_eq!(base64("SGVs\nbG8="), b"Hello");
    }
}
