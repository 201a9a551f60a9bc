//! From a feed's bytes to text: which encoding, and what to say when the
//! document's own claim is wrong.
//!
//! The order is RFC 7303's (section 3 and appendix F of XML 1.0): a byte
//! order mark decides; else the HTTP `charset` parameter; else the XML
//! declaration's `encoding`; else UTF-8 (UTF-16 and UTF-32 are recognised
//! without a mark by the `<?` they begin with). A claim that the bytes
//! contradict (a declared ISO 8859-1 over a UTF-8 multi-byte sequence is
//! fine, a declared UTF-8 over a lone 0xE9 is not) is passed over for the
//! next: the declaration, UTF-8, then windows-1252, which reads every
//! byte. That is what feed readers do (Universal Feed Parser tries the
//! same list), and it is a repair: the report names the claim and what
//! the bytes were read as. So is a declaration the HTTP `charset`
//! contradicts, though HTTP wins.
//!
//! Labels are WHATWG's (the `encoding_rs` crate): `latin1` and
//! `iso-8859-1` are windows-1252, as in every browser. `us-ascii` alone
//! is held to its seven bits, so that a UTF-8 feed declared ASCII is not
//! read as windows-1252. UTF-32, which the Encoding Standard leaves out,
//! is decoded here.

use super::repair::Repairs;
use encoding_rs::Encoding;
use std::borrow::Cow;

/// An encoding a document may be read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Enc {
    Whatwg(&'static Encoding),
    /// US-ASCII, held to seven bits.
    Ascii,
    Utf32Le,
    Utf32Be,
}

impl Enc {
    fn from_label(label: &str) -> Option<Enc> {
        let l = label.trim().to_ascii_lowercase();
        match l.as_str() {
            "us-ascii" | "ascii" | "ansi_x3.4-1968" | "iso646-us" => Some(Enc::Ascii),
            "utf-32" | "utf32" | "ucs-4" | "iso-10646-ucs-4" | "csucs4" | "utf-32be" => {
                Some(Enc::Utf32Be)
            }
            "utf-32le" => Some(Enc::Utf32Le),
            "ucs-2" | "iso-10646-ucs-2" | "csunicode" => Some(Enc::Whatwg(encoding_rs::UTF_16BE)),
            _ => Encoding::for_label_no_replacement(l.as_bytes()).map(Enc::Whatwg),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Enc::Whatwg(e) => e.name(),
            Enc::Ascii => "US-ASCII",
            Enc::Utf32Le => "UTF-32LE",
            Enc::Utf32Be => "UTF-32BE",
        }
    }

    /// Whether `<` is one byte 0x3C, as in the declaration sniffed.
    fn ascii_compatible(self) -> bool {
        match self {
            Enc::Whatwg(e) => e.is_ascii_compatible(),
            Enc::Ascii => true,
            Enc::Utf32Le | Enc::Utf32Be => false,
        }
    }

    /// `bytes` decoded, or `None` when they are not in this encoding.
    fn decode(self, bytes: &[u8]) -> Option<Cow<'_, str>> {
        match self {
            Enc::Whatwg(e) => e.decode_without_bom_handling_and_without_replacement(bytes),
            Enc::Ascii => bytes
                .is_ascii()
                .then(|| Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default())),
            Enc::Utf32Le | Enc::Utf32Be => {
                if !bytes.len().is_multiple_of(4) {
                    return None;
                }
                bytes
                    .chunks_exact(4)
                    .map(|c| {
                        let q = [c[0], c[1], c[2], c[3]];
                        char::from_u32(if self == Enc::Utf32Le {
                            u32::from_le_bytes(q)
                        } else {
                            u32::from_be_bytes(q)
                        })
                    })
                    .collect::<Option<String>>()
                    .map(Cow::Owned)
            }
        }
    }
}

/// The text of `body`, read as described in the module docs, with what
/// had to be repaired noted. `http_charset` is the `charset` parameter of
/// the response's `Content-Type`, if any.
pub(super) fn decode<'a>(
    body: &'a [u8],
    http_charset: Option<&str>,
    repairs: &mut Repairs,
) -> Cow<'a, str> {
    let (bom, rest) = bom(body);
    if let Some(enc) = bom {
        if let Some(text) = enc.decode(rest) {
            return text;
        }
    }
    let sniffed = sniff(rest);
    let declared_label = declared(rest, sniffed);
    let declared = declared_label.as_deref().and_then(Enc::from_label);
    if let (Some(label), None) = (&declared_label, declared) {
        repairs.note("encoding", || {
            format!("the declared encoding {label:?} is unknown")
        });
    }
    let http = http_charset.and_then(Enc::from_label);
    let claim = http.or(declared);
    if let Some(wide) = sniffed {
        // The `<?` decided UTF-16 or UTF-32 and its byte order; a claim of
        // an ASCII-compatible encoding is wrong on its face.
        if let Some(text) = wide.decode(rest) {
            if let Some(c) = claim.filter(|c| c.ascii_compatible()) {
                repairs.note("encoding", || contradicted(c, http == Some(c), wide));
            }
            return text;
        }
    }
    let candidates = [
        http,
        declared,
        Some(Enc::Whatwg(encoding_rs::UTF_8)),
        Some(Enc::Whatwg(encoding_rs::WINDOWS_1252)),
    ];
    let mut tried: Vec<Enc> = Vec::new();
    // A claim of UTF-16 or UTF-32 over a document whose `<` is one byte is
    // passed over like any other the bytes contradict.
    for enc in candidates
        .into_iter()
        .flatten()
        .filter(|e| e.ascii_compatible())
    {
        if tried.contains(&enc) {
            continue;
        }
        tried.push(enc);
        let Some(text) = enc.decode(rest) else {
            continue;
        };
        match (claim, declared) {
            (Some(c), _) if c != enc => {
                repairs.note("encoding", || contradicted(c, http == Some(c), enc))
            }
            (Some(h), Some(d)) if h != d => repairs.note("encoding", || {
                format!(
                    "the document declares {}, the HTTP charset says {}: read as {}",
                    d.name(),
                    h.name(),
                    h.name()
                )
            }),
            (None, _) if enc != Enc::Whatwg(encoding_rs::UTF_8) => repairs.note("encoding", || {
                format!(
                    "no encoding is declared and the bytes are not UTF-8: read as {}",
                    enc.name()
                )
            }),
            _ => {}
        }
        return text;
    }
    // windows-1252 reads every byte sequence, so this is not reached.
    String::from_utf8_lossy(rest)
}

/// What to say of a claim (`c`, made by HTTP or by the document) that
/// the bytes contradict.
fn contradicted(c: Enc, by_http: bool, read_as: Enc) -> String {
    let who = if by_http {
        "the HTTP charset"
    } else {
        "the document"
    };
    format!(
        "{who} says {}, but the bytes are not: read as {}",
        c.name(),
        read_as.name()
    )
}

/// The encoding a byte order mark names, and the bytes after it.
fn bom(body: &[u8]) -> (Option<Enc>, &[u8]) {
    match body {
        [0xEF, 0xBB, 0xBF, rest @ ..] => (Some(Enc::Whatwg(encoding_rs::UTF_8)), rest),
        [0x00, 0x00, 0xFE, 0xFF, rest @ ..] => (Some(Enc::Utf32Be), rest),
        [0xFF, 0xFE, 0x00, 0x00, rest @ ..] => (Some(Enc::Utf32Le), rest),
        [0xFE, 0xFF, rest @ ..] => (Some(Enc::Whatwg(encoding_rs::UTF_16BE)), rest),
        [0xFF, 0xFE, rest @ ..] => (Some(Enc::Whatwg(encoding_rs::UTF_16LE)), rest),
        _ => (None, body),
    }
}

/// UTF-16 or UTF-32 without a mark, from the `<` or `<?` they start with
/// (XML 1.0 appendix F).
fn sniff(body: &[u8]) -> Option<Enc> {
    match body {
        [0x00, 0x00, 0x00, 0x3C, ..] => Some(Enc::Utf32Be),
        [0x3C, 0x00, 0x00, 0x00, ..] => Some(Enc::Utf32Le),
        [0x00, 0x3C, 0x00, 0x3F, ..] => Some(Enc::Whatwg(encoding_rs::UTF_16BE)),
        [0x3C, 0x00, 0x3F, 0x00, ..] => Some(Enc::Whatwg(encoding_rs::UTF_16LE)),
        _ => None,
    }
}

/// The `encoding` of the XML declaration, if the document starts with one.
fn declared(body: &[u8], sniffed: Option<Enc>) -> Option<String> {
    // The declaration is ASCII: read its first 512 characters' worth.
    let head: Vec<u8> = match sniffed {
        Some(enc) => {
            let width = if matches!(enc, Enc::Utf32Le | Enc::Utf32Be) {
                4
            } else {
                2
            };
            let take = body.len().min(2048) / width * width;
            enc.decode(&body[..take])
                .map(|t| t.into_owned().into_bytes())
                .unwrap_or_default()
        }
        None => body.iter().take(512).copied().collect(),
    };
    let head = head.strip_prefix(b"<?xml")?;
    let end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start();
    let quote = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let value = &rest[1..];
    let close = value.find(quote)?;
    Some(value[..close].to_string())
}

/// The `charset` parameter of a `Content-Type` value.
pub(super) fn charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\''))
            .filter(|v| !v.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &[u8], http: Option<&str>) -> (String, Vec<String>) {
        let mut r = Repairs::default();
        let text = decode(body, http, &mut r).into_owned();
        (text, r.into_lines())
    }

    #[test]
    fn the_claims_in_order() {
        let latin1 = b"<?xml version='1.0' encoding='iso-8859-1'?><a>\xe9</a>";
        assert_eq!(
            read(latin1, None),
            (
                "<?xml version='1.0' encoding='iso-8859-1'?><a>é</a>".into(),
                vec![]
            )
        );
        let utf8 = "<?xml version='1.0' encoding='utf-8'?><a>é</a>".as_bytes();
        assert_eq!(read(utf8, None).1, Vec::<String>::new());
        // HTTP wins over the declaration, and the disagreement is said.
        let (text, notes) = read(utf8, Some("windows-1252"));
        assert!(text.contains("Ã©"), "{text}");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("the HTTP charset says windows-1252"),
            "{notes:?}"
        );
    }

    #[test]
    fn a_claim_the_bytes_contradict_is_passed_over() {
        let (text, notes) = read(b"<?xml version='1.0' encoding='utf-8'?><a>\xe9</a>", None);
        assert!(text.ends_with("<a>é</a>"), "{text}");
        assert!(
            notes[0]
                .contains("the document says UTF-8, but the bytes are not: read as windows-1252"),
            "{notes:?}"
        );
        let (text, notes) = read(
            "<?xml version='1.0' encoding='us-ascii'?><a>é</a>".as_bytes(),
            None,
        );
        assert!(text.ends_with("<a>é</a>"), "{text}");
        assert!(notes[0].contains("read as UTF-8"), "{notes:?}");
        let (text, notes) = read(b"<a>\xe9</a>", None);
        assert_eq!(text, "<a>é</a>");
        assert!(notes[0].contains("not UTF-8"), "{notes:?}");
    }

    #[test]
    fn marks_and_wide_encodings() {
        let mut utf16 = vec![0xFF, 0xFE];
        for u in "<a>é</a>".encode_utf16() {
            utf16.extend_from_slice(&u.to_le_bytes());
        }
        assert_eq!(
            read(&utf16, Some("iso-8859-1")),
            ("<a>é</a>".into(), vec![])
        );
        let mut utf32 = Vec::new();
        for c in "<?xml version='1.0' encoding='utf-32'?><a>é</a>".chars() {
            utf32.extend_from_slice(&(c as u32).to_be_bytes());
        }
        assert!(read(&utf32, None).0.ends_with("<a>é</a>"));
        // A UTF-8 document that claims UTF-16.
        let (text, notes) = read(b"<?xml version='1.0' encoding='utf-16'?><a/>", None);
        assert_eq!(text, "<?xml version='1.0' encoding='utf-16'?><a/>");
        assert!(notes.is_empty() || notes[0].contains("UTF-16"), "{notes:?}");
    }

    #[test]
    fn charset_parameters() {
        assert_eq!(charset("text/xml; charset=\"UTF-8\""), Some("UTF-8"));
        assert_eq!(
            charset("application/rss+xml;Charset=latin1 "),
            Some("latin1")
        );
        assert_eq!(charset("text/xml"), None);
        assert_eq!(charset("text/xml; charset="), None);
    }
}
