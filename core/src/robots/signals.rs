//! Usage-preference lines of a robots.txt: `Content-Signal`
//! (draft-romm-aipref-contentsignals; Cloudflare's managed robots.txt),
//! `Content-Usage` (draft-ietf-aipref-attach) and `License` (RSL).
//!
//! They are reported, never obeyed as access rules: spec section 19 defers
//! Content-Signal ("binds only a pipeline that performs the named use"),
//! and this bot extracts links and titles only. So the grouping and the
//! rules never see them: to the lexer they are unknown lines, which close
//! no group, refuse no file and change no access (other parsers broke on
//! them: a linter scored such files invalid, a framework module stripped
//! the lines). This module reads them apart, for `wr-feeds robots` and
//! `check` to show what a publisher asked.

use super::lexer::trim_unicode;

/// Which usage-preference field a line carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalField {
    /// `Content-Signal:`
    ContentSignal,
    /// `Content-Usage:`
    ContentUsage,
    /// `License:`
    License,
}

impl SignalField {
    /// The field name as robots.txt writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            SignalField::ContentSignal => "Content-Signal",
            SignalField::ContentUsage => "Content-Usage",
            SignalField::License => "License",
        }
    }
}

/// One usage-preference line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signal<'a> {
    /// 1-based line number in the body.
    pub line: u32,
    /// Which field.
    pub field: SignalField,
    /// The value, trimmed, comment removed; octets as written (untrusted).
    pub value: &'a [u8],
}

/// The usage-preference lines of `body`, in file order (field names
/// compared without letter case, white space trimmed as Unicode knows it).
pub fn signals(body: &[u8]) -> impl Iterator<Item = Signal<'_>> {
    let mut rest = super::lexer::skip_bom(body);
    let mut number = 0u32;
    // The same line ends as the lexer's (CR, LF, CRLF): numbers agree.
    core::iter::from_fn(move || loop {
        if rest.is_empty() {
            return None;
        }
        number = number.saturating_add(1);
        let end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
        let line = &rest[..end];
        let skip = match rest.get(end..end + 2) {
            Some(b"\r\n") => 2,
            Some(_) | None if end < rest.len() => 1,
            _ => 0,
        };
        rest = &rest[end + skip..];
        let line = match memchr::memchr(b'#', line) {
            Some(i) => &line[..i],
            None => line,
        };
        let Some(colon) = memchr::memchr(b':', line) else {
            continue;
        };
        let name = trim_unicode(&line[..colon]);
        let field = if name.eq_ignore_ascii_case(b"content-signal") {
            SignalField::ContentSignal
        } else if name.eq_ignore_ascii_case(b"content-usage") {
            SignalField::ContentUsage
        } else if name.eq_ignore_ascii_case(b"license") {
            SignalField::License
        } else {
            continue;
        };
        return Some(Signal {
            line: number,
            field,
            value: trim_unicode(&line[colon + 1..]),
        });
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots::lexer::lines;
    extern crate std;
    use std::vec::Vec;

    #[test]
    fn the_three_fields_with_their_lines() {
        let body = b"User-agent: *\r\ncontent-signal: search=yes, ai-train=no # why\n\
            Allow: /\rContent-Usage: /x train-ai=n\nLICENSE : https://e.test/l.xml\nLicensed: no\n";
        let got: Vec<_> = signals(body).map(|s| (s.line, s.field, s.value)).collect();
        assert_eq!(
            got,
            [
                (
                    2,
                    SignalField::ContentSignal,
                    &b"search=yes, ai-train=no"[..]
                ),
                (4, SignalField::ContentUsage, &b"/x train-ai=n"[..]),
                (5, SignalField::License, &b"https://e.test/l.xml"[..]),
            ]
        );
        // The lexer numbers the lines the same.
        let numbers: Vec<u32> = lines(body).map(|l| l.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    }
}
