//! HTML as a reader shows it: the text of a title its source says (Atom
//! `type="html"`, Atom 0.3 `mode="escaped"`) or, for RSS, suggests is
//! HTML.
//!
//! A digest line is plain text, so markup is read, not kept: tags are
//! dropped (the content of `script` and `style` with them, and `br` and
//! the block elements leave a space), comments vanish, and character
//! references are decoded once, HTML's named ones included
//! ([`super::entities`]). What is left is the text a browser would show,
//! before [`super::clean_title`] makes it safe for a terminal.
//!
//! The rules follow the WHATWG HTML tokenizer where it matters for text
//! (a `<` that does not start a tag is text; numeric references to
//! U+0080-U+009F mean windows-1252's characters; the legacy names
//! without `;` are still read), and Python's `html.unescape`, which
//! implements the same standard, for the longest-prefix reading of a
//! name.

use super::entities::{ENTITIES, LONGEST};

/// The text of the named reference `name` (without its `&`, with its `;`
/// when it has one), if HTML defines it.
pub(super) fn named(name: &str) -> Option<&'static str> {
    ENTITIES
        .binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes()))
        .ok()
        .map(|i| ENTITIES[i].1)
}

/// Windows-1252's characters for 0x80-0x9F, where ISO 8859-1 has C1
/// controls: HTML reads `&#146;` as `’`, and so do feed readers (a feed
/// written in windows-1252 but declared ISO 8859-1 says `’` as U+0092).
/// `None` for the five octets windows-1252 leaves undefined.
const CP1252_C1: [Option<char>; 32] = [
    Some('\u{20ac}'),
    None,
    Some('\u{201a}'),
    Some('\u{0192}'),
    Some('\u{201e}'),
    Some('\u{2026}'),
    Some('\u{2020}'),
    Some('\u{2021}'),
    Some('\u{02c6}'),
    Some('\u{2030}'),
    Some('\u{0160}'),
    Some('\u{2039}'),
    Some('\u{0152}'),
    None,
    Some('\u{017d}'),
    None,
    None,
    Some('\u{2018}'),
    Some('\u{2019}'),
    Some('\u{201c}'),
    Some('\u{201d}'),
    Some('\u{2022}'),
    Some('\u{2013}'),
    Some('\u{2014}'),
    Some('\u{02dc}'),
    Some('\u{2122}'),
    Some('\u{0161}'),
    Some('\u{203a}'),
    Some('\u{0153}'),
    None,
    Some('\u{017e}'),
    Some('\u{0178}'),
];

/// `c`, or windows-1252's character when `c` is a C1 control it defines.
pub(super) fn cp1252_c1(c: char) -> char {
    match c {
        '\u{80}'..='\u{9f}' => CP1252_C1[c as usize - 0x80].unwrap_or(c),
        c => c,
    }
}

/// The character a numeric reference to `value` stands for in HTML: NUL,
/// surrogates and values past U+10FFFF are U+FFFD, and 0x80-0x9F are
/// windows-1252's characters.
pub(super) fn numeric(value: u32) -> char {
    match value {
        0 => '\u{fffd}',
        v => char::from_u32(v).map_or('\u{fffd}', cp1252_c1),
    }
}

/// What a reference decodes to.
pub(super) enum Ref {
    /// A numeric reference.
    Char(char),
    /// A named one.
    Str(&'static str),
}

/// Reads the character reference that starts right after an `&`: its
/// text, and how many bytes of `rest` it used. `None` when `rest` does not
/// start a reference HTML knows (the `&` is then text).
pub(super) fn reference(rest: &str) -> Option<(Ref, usize)> {
    let b = rest.as_bytes();
    if b.first() == Some(&b'#') {
        let hex = matches!(b.get(1), Some(b'x' | b'X'));
        let start = if hex { 2 } else { 1 };
        let mut value: u32 = 0;
        let mut end = start;
        while let Some(&c) = b.get(end) {
            let digit = match c {
                b'0'..=b'9' => u32::from(c - b'0'),
                b'a'..=b'f' if hex => u32::from(c - b'a' + 10),
                b'A'..=b'F' if hex => u32::from(c - b'A' + 10),
                _ => break,
            };
            // Past U+10FFFF the value no longer matters: it is U+FFFD.
            value = (value * if hex { 16 } else { 10 } + digit).min(0x11_0000);
            end += 1;
        }
        if end == start {
            return None;
        }
        if b.get(end) == Some(&b';') {
            end += 1;
        }
        return Some((Ref::Char(numeric(value)), end));
    }
    let run = b
        .iter()
        .take(LONGEST)
        .take_while(|&&c| {
            !matches!(
                c,
                b'\t' | b'\n' | b'\x0c' | b' ' | b'<' | b'&' | b'#' | b';'
            )
        })
        .count();
    if b.get(run) == Some(&b';') && rest.is_char_boundary(run + 1) {
        if let Some(text) = named(&rest[..=run]) {
            return Some((Ref::Str(text), run + 1));
        }
    }
    // The legacy names HTML reads without a `;` (`&amp`, `&copy`...),
    // longest first: `&copyright` is `©right`.
    (2..=run)
        .rev()
        .filter(|&k| rest.is_char_boundary(k))
        .find_map(|k| named(&rest[..k]).map(|text| (Ref::Str(text), k)))
}

/// Appends `s` with its character references decoded (HTML's rules).
pub(super) fn decode_references(s: &str, out: &mut String) {
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match reference(after) {
            Some((r, used)) => {
                push_ref(out, r);
                rest = &after[used..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

fn push_ref(out: &mut String, r: Ref) {
    match r {
        Ref::Char(c) => out.push(c),
        Ref::Str(s) => out.push_str(s),
    }
}

/// Elements whose end a reader sees as a break between words: a title's
/// `a<br>b` reads "a b", not "ab".
fn breaks_words(name: &str) -> bool {
    matches!(
        name,
        "br" | "p"
            | "div"
            | "li"
            | "ul"
            | "ol"
            | "dl"
            | "dt"
            | "dd"
            | "tr"
            | "td"
            | "th"
            | "table"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "hr"
            | "blockquote"
            | "pre"
            | "section"
            | "article"
            | "header"
            | "footer"
            | "figure"
            | "figcaption"
    )
}

/// Appends the text HTML source `s` shows: tags and comments dropped,
/// `script` and `style` with their content, references decoded.
pub(super) fn html_to_text(s: &str, out: &mut String) {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(off) = s[i..].find('<') {
        decode_references(&s[i..i + off], out);
        let lt = i + off;
        let next = b.get(lt + 1).copied();
        i = match next {
            Some(c) if c.is_ascii_alphabetic() => start_tag(s, lt, out),
            Some(b'/') if b.get(lt + 2).is_some_and(u8::is_ascii_alphabetic) => {
                let (name, end) = tag_name(s, lt + 2);
                if breaks_words(&name) {
                    out.push(' ');
                }
                tag_end(b, end)
            }
            Some(b'!') if s[lt..].starts_with("<!--") => {
                s[lt + 4..].find("-->").map_or(b.len(), |e| lt + 4 + e + 3)
            }
            // Bogus comments: `<!DOCTYPE ...>`, `<?...>`, `</ ...>`.
            Some(b'!' | b'?' | b'/') => s[lt..].find('>').map_or(b.len(), |e| lt + e + 1),
            // A `<` that starts no tag ("a < b") is text.
            _ => {
                out.push('<');
                lt + 1
            }
        };
    }
    decode_references(&s[i..], out);
}

/// The lowercase name of a tag whose name starts at `at`, and where it
/// ends.
fn tag_name(s: &str, at: usize) -> (String, usize) {
    let len = s[at..]
        .bytes()
        .take_while(|c| !(c.is_ascii_whitespace() || matches!(c, b'/' | b'>')))
        .count();
    (s[at..at + len].to_ascii_lowercase(), at + len)
}

/// The position after the `>` that ends the tag whose attributes start at
/// `at` (quoted values may hold `>`); the end of the source when the tag
/// never ends (HTML drops such a tag).
fn tag_end(b: &[u8], mut at: usize) -> usize {
    let mut quote = None;
    while let Some(&c) = b.get(at) {
        match (quote, c) {
            (None, b'>') => return at + 1,
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        at += 1;
    }
    b.len()
}

/// Reads the start tag at `lt`; returns where text resumes.
fn start_tag(s: &str, lt: usize, out: &mut String) -> usize {
    let b = s.as_bytes();
    let (name, after_name) = tag_name(s, lt + 1);
    let end = tag_end(b, after_name);
    if breaks_words(&name) {
        out.push(' ');
    }
    if name == "script" || name == "style" {
        // Raw text: everything up to the matching end tag is content.
        return match end_tag(&b[end..], name.as_bytes()) {
            Some(e) => tag_end(b, end + e + 2 + name.len()),
            None => b.len(),
        };
    }
    end
}

/// Where `</name` (any case) first starts in `hay`: one pass, no copy, so
/// a title of many `<script>`s costs its length, not its square.
fn end_tag(hay: &[u8], name: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = hay[from..].iter().position(|&c| c == b'<') {
        let at = from + i;
        if hay.get(at + 1) == Some(&b'/')
            && hay
                .get(at + 2..at + 2 + name.len())
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// HTML's elements, current and obsolete: a tag naming anything else
/// (`<T>`, `<foo>`) is not markup but text, as far as
/// [`looks_like_html`] is concerned.
const HTML_ELEMENTS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "bdi",
    "bdo",
    "big",
    "blink",
    "blockquote",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "em",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "i",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "main",
    "map",
    "mark",
    "marquee",
    "menu",
    "meter",
    "nav",
    "nobr",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "section",
    "select",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
];

/// Whether text that is nominally plain (an RSS title) is in fact HTML,
/// as readers have guessed for two decades: it must hold an end tag or a
/// character reference, every tag must name an HTML element and every
/// named reference must be one HTML defines. A title such as
/// `Vec<T> in Rust` or `Use <b> for bold` stays text; `It&#8217;s` and
/// `<b>Bold</b>` are HTML.
pub(super) fn looks_like_html(s: &str) -> bool {
    let b = s.as_bytes();
    let word = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    let word_len = |at: usize| {
        b.get(at..)
            .map_or(0, |r| r.iter().take_while(|c| word(c)).count())
    };
    let mut evidence = false;
    for (at, &c) in b.iter().enumerate() {
        match c {
            b'<' => {
                let close = b.get(at + 1) == Some(&b'/');
                let start = at + 1 + usize::from(close);
                let n = word_len(start);
                if n == 0 {
                    continue;
                }
                let name = s[start..start + n].to_ascii_lowercase();
                if !HTML_ELEMENTS.contains(&name.as_str()) {
                    return false;
                }
                evidence |= close && b.get(start + n) == Some(&b'>');
            }
            b'&' => {
                let numeric = b.get(at + 1) == Some(&b'#');
                let start = at + 1 + usize::from(numeric);
                let n = word_len(start);
                if n == 0 || b.get(start + n) != Some(&b';') {
                    continue;
                }
                if !numeric && named(&s[start..=start + n]).is_none() {
                    return false;
                }
                evidence = true;
            }
            _ => {}
        }
    }
    evidence
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        let mut out = String::new();
        html_to_text(s, &mut out);
        out
    }

    #[test]
    fn markup_is_read_not_kept() {
        assert_eq!(text("<b>Bold</b> &amp; more"), "Bold & more");
        assert_eq!(text("It&#8217;s &nbsp;ok"), "It\u{2019}s \u{a0}ok");
        assert_eq!(text("a<br>b<br/>c"), "a b c");
        assert_eq!(text("x<script>alert('<b>')</script>y"), "xy");
        assert_eq!(text("x<style type=\"a>b\">p{}</style>y"), "xy");
        assert_eq!(text("x<SCRIPT>a</b></ScRiPt >y<script>never closed"), "xy");
        assert_eq!(text("a <!-- c --> b"), "a  b");
        assert_eq!(text("a < b and c<3"), "a < b and c<3");
        assert_eq!(text("<a href=\"x>y\">link</a>"), "link");
        assert_eq!(
            text("&#146;&#x2603;&#0;&#xD800;&#99999999;"),
            "\u{2019}\u{2603}\u{fffd}\u{fffd}\u{fffd}"
        );
    }

    #[test]
    fn references_follow_html() {
        let d = |s: &str| {
            let mut out = String::new();
            decode_references(s, &mut out);
            out
        };
        assert_eq!(d("&amp;&lt;&gt;&quot;&apos;"), "&<>\"'");
        assert_eq!(d("&copy 2024 &copyright"), "\u{a9} 2024 \u{a9}right");
        assert_eq!(d("&notit; &notin;"), "\u{ac}it; \u{2209}");
        assert_eq!(d("AT&T & &unknown; &#;"), "AT&T & &unknown; &#;");
        assert_eq!(d("&#38;amp;"), "&amp;");
    }

    #[test]
    fn only_html_looks_like_html() {
        assert!(looks_like_html("<b>Bold</b>"));
        assert!(looks_like_html("It&#8217;s"));
        assert!(looks_like_html("Fish &amp; chips"));
        assert!(!looks_like_html("Vec<T> in Rust"));
        assert!(!looks_like_html("Use <b> for bold"));
        assert!(!looks_like_html("<foo>x</foo>"));
        assert!(!looks_like_html("AT&T"));
        assert!(!looks_like_html("&bogus; entity"));
        assert!(!looks_like_html("plain"));
    }

    #[test]
    fn the_entity_table_is_whole_and_sorted() {
        // The WHATWG list: 2,231 names, 106 of them the legacy forms
        // without a `;`.
        assert_eq!(ENTITIES.len(), 2_231);
        assert_eq!(
            ENTITIES.iter().filter(|(n, _)| !n.ends_with(';')).count(),
            106
        );
        assert!(ENTITIES
            .windows(2)
            .all(|w| w[0].0.as_bytes() < w[1].0.as_bytes()));
        assert_eq!(
            LONGEST,
            ENTITIES.iter().map(|(n, _)| n.len()).max().unwrap_or(0)
        );
        assert_eq!(named("nbsp;"), Some("\u{a0}"));
        assert_eq!(named("NotNestedGreaterGreater;"), Some("\u{2aa2}\u{338}"));
        assert_eq!(named("nbsp"), Some("\u{a0}"));
        assert_eq!(named("zwnj"), None);
    }

    #[test]
    fn c1_controls_are_windows_1252() {
        assert_eq!(cp1252_c1('\u{92}'), '\u{2019}');
        assert_eq!(cp1252_c1('\u{81}'), '\u{81}');
        assert_eq!(cp1252_c1('a'), 'a');
    }
}
