//! Why production allows a URL the platform parser denies as the spec
//! reads the file: the class of an under-block.
//!
//! A class is named by the repair that makes production deny: the body
//! (or the URL) rewritten so that one shape of issue #18 is gone, and
//! production asked again. Padding collapsed, Unicode spaces made ASCII,
//! an odd User-agent value renamed to what the spec's literal reading
//! makes of it, template octets written escaped, reserved escapes written
//! raw. The first repair after which production denies is the class; so
//! a class says what production misreads, not merely what the file
//! contains.

use super::cases::{sent, ORIGIN};
use super::production;

/// The class of an under-block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnderBlock {
    /// Production denies once runs of padding in lines longer than 16,663
    /// octets are collapsed.
    LongLine,
    /// ... once Unicode whitespace (NBSP, EN SPACE, U+3000, VT, FF, NEL...)
    /// is replaced by ASCII spaces.
    UnicodeWhitespace,
    /// ... once an empty User-agent value is written as a prefix of the
    /// token: 9.1.3 read literally ("U is a prefix of T") makes `""` match
    /// every token, and Python applies it.
    EmptyAgent,
    /// ... once a `* x` User-agent value is renamed (the literal reading:
    /// not `*`, not a prefix of the token).
    StarAgent,
    /// ... once a value such as `Walsh-Research/1.2` or `Walsh-Research
    /// 1.2` is renamed (the literal reading: the whole value is U, which is
    /// not a prefix of the token).
    AgentCut,
    /// ... once the octets a sent URL never carries raw (`{` `}` `"` `<`
    /// `>` `` ` `` space, `'` in a query) are written escaped in the rules.
    TemplateOctets,
    /// ... once `%2F` and `%3F` are written `/` and `?` (URL and rules).
    SlashQueryEscape,
    /// ... once the other reserved escapes (`%3D` `%26` `%3A`...) are
    /// written raw.
    ReservedEscape,
    /// ... only once all of the above are repaired at once.
    Several,
    /// No repair makes production deny.
    Other,
}

impl UnderBlock {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            UnderBlock::LongLine => "long line (padding over 16,663 octets)",
            UnderBlock::UnicodeWhitespace => "Unicode whitespace",
            UnderBlock::EmptyAgent => "empty User-agent value",
            UnderBlock::StarAgent => "`* x` User-agent value",
            UnderBlock::AgentCut => "User-agent value cut at `/` or space",
            UnderBlock::TemplateOctets => "template octets in a rule",
            UnderBlock::SlashQueryEscape => "%2F / %3F against / and ?",
            UnderBlock::ReservedEscape => "other reserved escape against its octet",
            UnderBlock::Several => "several of the above at once",
            UnderBlock::Other => "other",
        }
    }

    /// The repairs, in the order they are tried.
    const REPAIRS: [UnderBlock; 8] = [
        UnderBlock::LongLine,
        UnderBlock::UnicodeWhitespace,
        UnderBlock::EmptyAgent,
        UnderBlock::StarAgent,
        UnderBlock::AgentCut,
        UnderBlock::TemplateOctets,
        UnderBlock::SlashQueryEscape,
        UnderBlock::ReservedEscape,
    ];
}

/// Production's line limit, past which issue #18 saw directives lost.
pub const LINE_LIMIT: usize = 16_663;

/// The class of the under-block of `url` on `body` (production allows it).
pub fn under_block(body: &str, url: &str) -> UnderBlock {
    under_block_by(body, url, &|b, u| !production(b, &[u.to_string()])[0])
}

/// [`under_block`] with `denies` (body, URL) in production's place.
pub fn under_block_by(body: &str, url: &str, denies: &dyn Fn(&str, &str) -> bool) -> UnderBlock {
    for class in UnderBlock::REPAIRS {
        let (b, u) = repair(class, body, url);
        if denies(&b, &u) {
            return class;
        }
    }
    let (mut b, mut u) = (body.to_string(), url.to_string());
    for class in UnderBlock::REPAIRS {
        (b, u) = repair(class, &b, &u);
    }
    if denies(&b, &u) {
        UnderBlock::Several
    } else {
        UnderBlock::Other
    }
}

/// `body` and `url` with the shape of `class` repaired.
pub fn repair(class: UnderBlock, body: &str, url: &str) -> (String, String) {
    let lines = |f: &dyn Fn(&str) -> Option<String>| map_lines(body, f);
    match class {
        UnderBlock::LongLine => (
            lines(&|l| (l.len() > LINE_LIMIT).then(|| collapse_padding(l))),
            url.into(),
        ),
        UnderBlock::UnicodeWhitespace => (lines(&trim_spaces), url.into()),
        UnderBlock::EmptyAgent => (
            lines(&|l| {
                agent_value(l)
                    .filter(|v| v.is_empty())
                    .map(|_| "User-agent: w".into())
            }),
            url.into(),
        ),
        UnderBlock::StarAgent => (
            lines(&|l| {
                agent_value(l)
                    .filter(|v| v.starts_with('*') && v.len() > 1)
                    .map(|_| "User-agent: other-bot".into())
            }),
            url.into(),
        ),
        UnderBlock::AgentCut => (
            lines(&|l| {
                agent_value(l)
                    .filter(|v| cut_agent(&v.to_lowercase()))
                    .map(|_| "User-agent: other-bot".into())
            }),
            url.into(),
        ),
        UnderBlock::TemplateOctets => (
            lines(&|l| with_value(l, &escape_template_octets)),
            url.into(),
        ),
        UnderBlock::SlashQueryEscape => {
            let raw = |s: &str| unescape(s, b"/?");
            (
                lines(&|l| with_value(l, &raw)),
                sent(&raw(url)).unwrap_or_else(|| url.into()),
            )
        }
        UnderBlock::ReservedEscape => {
            // `#` stays escaped: raw, it would start a comment or a
            // fragment; `'` too: in a query it is a template octet.
            let raw = |s: &str| unescape(s, b":[]@!$&()*+,;=");
            (
                lines(&|l| with_value(l, &raw)),
                sent(&raw(url)).unwrap_or_else(|| url.into()),
            )
        }
        UnderBlock::Several | UnderBlock::Other => (body.into(), url.into()),
    }
}

/// Whitespace other than ASCII space and tab: what a reader that trims
/// only ASCII leaves in place.
fn odd_space(c: char) -> bool {
    c.is_whitespace() && !matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// A `field: value` line with the whitespace around its field name and
/// value (Unicode `White_Space`, not only ASCII) trimmed, so that a
/// reader trimming only ASCII reads it as the spec does; whitespace inside
/// the value stays.
fn trim_spaces(line: &str) -> Option<String> {
    let (code, comment) = match line.find('#') {
        Some(i) => line.split_at(i),
        None => (line, ""),
    };
    let (name, value) = code.split_once(':')?;
    let trimmed = format!("{}: {}{comment}", name.trim(), value.trim());
    let odd = |s: &str| s.chars().any(odd_space);
    let lead = &value[..value.len() - value.trim_start().len()];
    let tail = &value[value.trim_end().len()..];
    (odd(name) || odd(lead) || odd(tail)).then_some(trimmed)
}

/// `body` with each line (ends kept) replaced where `f` says.
fn map_lines(body: &str, f: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while !rest.is_empty() {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let line = &rest[..end];
        out.push_str(&f(line).unwrap_or_else(|| line.to_string()));
        let brk = if rest[end..].starts_with("\r\n") {
            2
        } else {
            usize::from(end < rest.len())
        };
        out.push_str(&rest[end..end + brk]);
        rest = &rest[end + brk..];
    }
    out
}

/// Runs of 16 or more whitespace characters become one space.
fn collapse_padding(line: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    for c in line.chars() {
        if c.is_whitespace() {
            run.push(c);
            continue;
        }
        out.push_str(if run.chars().count() >= 16 { " " } else { &run });
        run.clear();
        out.push(c);
    }
    out.push_str(if run.chars().count() >= 16 { " " } else { &run });
    out
}

/// The field name (lowercased, trimmed) and value (trimmed, comment cut)
/// of a `field: value` line.
fn field(line: &str) -> Option<(String, &str)> {
    let line = line.split('#').next().unwrap_or("");
    let (name, value) = line.split_once(':')?;
    Some((name.trim().to_lowercase(), value.trim()))
}

fn agent_value(line: &str) -> Option<&str> {
    field(line)
        .filter(|(n, _)| n == "user-agent")
        .map(|(_, v)| v)
}

/// Where the value of an Allow or Disallow line is (byte range, trimmed,
/// comment cut).
fn rule_value(line: &str) -> Option<std::ops::Range<usize>> {
    let (name, _) = field(line)?;
    if name != "allow" && name != "disallow" {
        return None;
    }
    let code = line.split('#').next().unwrap_or("");
    let colon = code.find(':')?;
    let after = &code[colon + 1..];
    let start = colon + 1 + (after.len() - after.trim_start().len());
    let end = colon + 1 + after.trim_end().len();
    Some(start..end.max(start))
}

/// A rule line with its value (only) rewritten by `f`; `None` when it is
/// no rule line or `f` changes nothing.
fn with_value(line: &str, f: &dyn Fn(&str) -> String) -> Option<String> {
    let r = rule_value(line)?;
    let v = f(&line[r.clone()]);
    (v != line[r.clone()]).then(|| format!("{}{v}{}", &line[..r.start], &line[r.end..]))
}

fn token_prefix(u: &str) -> bool {
    !u.is_empty() && "walsh-research".starts_with(u)
}

/// A value that is no prefix of the token but whose part before the first
/// `/` or whitespace is.
fn cut_agent(v: &str) -> bool {
    !token_prefix(v)
        && v.split(|c: char| c == '/' || c.is_whitespace())
            .next()
            .is_some_and(token_prefix)
}

/// Whether the WHATWG serialiser never leaves `b` raw in a path
/// (`in_query` false) or a query of an `https` URL. Asked of the `url`
/// crate itself, once.
pub fn never_raw(b: u8, in_query: bool) -> bool {
    use std::sync::OnceLock;
    static SETS: OnceLock<[[bool; 128]; 2]> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        let mut sets = [[false; 128]; 2];
        // Controls are always escaped (TAB, LF and CR are removed).
        for c in (0u8..0x20).chain([0x7f]) {
            sets[0][usize::from(c)] = true;
            sets[1][usize::from(c)] = true;
        }
        for c in 0x20u8..0x7f {
            let ch = c as char;
            // Delimiters and the escape octet, not octets the serialiser
            // re-encodes.
            if "#%?/\\".contains(ch) {
                continue;
            }
            let kept = |u: &str, want: &str, query: bool| {
                url::Url::parse(u).is_ok_and(|u| {
                    if query {
                        u.query() == Some(want)
                    } else {
                        u.path() == want
                    }
                })
            };
            let path = format!("{ORIGIN}/a{ch}b");
            let query = format!("{ORIGIN}/?x{ch}y");
            sets[0][usize::from(c)] = !kept(&path, &format!("/a{ch}b"), false);
            sets[1][usize::from(c)] = !kept(&query, &format!("x{ch}y"), true);
        }
        sets
    });
    b < 0x80 && sets[usize::from(in_query)][usize::from(b)]
}

/// A rule value with the octets a sent URL never carries raw written
/// escaped, as the sent URL carries them.
fn escape_template_octets(v: &str) -> String {
    let q = v.find('?').unwrap_or(v.len());
    let mut out = String::new();
    for (i, c) in v.char_indices() {
        if c.is_ascii() && never_raw(c as u8, i > q) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// `s` with the escapes of `octets` (either hex case) written raw.
fn unescape(s: &str, octets: &[u8]) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 3 <= b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(o) = hex.filter(|o| octets.contains(o)) {
                out.push(o);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serialiser_escapes_template_octets_and_leaves_the_rest() {
        for b in *b"{}\"<>` " {
            assert!(never_raw(b, false), "{}", b as char);
        }
        assert!(never_raw(b'\'', true));
        assert!(!never_raw(b'\'', false));
        for b in *b"azAZ09-._~!$&()*+,;=:@" {
            assert!(!never_raw(b, false), "{}", b as char);
        }
    }

    #[test]
    fn each_repair_removes_its_shape() {
        let pad = " ".repeat(17_000);
        let (b, _) = repair(UnderBlock::LongLine, &format!("Disallow:{pad}/x\n"), "");
        assert_eq!(b, "Disallow: /x\n");
        let (b, _) = repair(
            UnderBlock::UnicodeWhitespace,
            "\u{3000}Disallow\u{85}:\u{a0}/x\u{2002}y\u{2002}\r\nUser-agent: *\u{a0}#c\n",
            "",
        );
        assert_eq!(b, "Disallow: /x\u{2002}y\r\nUser-agent: *#c\n");
        let (b, _) = repair(
            UnderBlock::StarAgent,
            "User-agent: * Googlebot\nUser-agent: *\n",
            "",
        );
        assert_eq!(b, "User-agent: other-bot\nUser-agent: *\n");
        let (b, _) = repair(UnderBlock::AgentCut, "user-agent: Walsh-Research/1.2\n", "");
        assert_eq!(b, "User-agent: other-bot\n");
        let (b, _) = repair(UnderBlock::AgentCut, "User-agent: Walsh\n", "");
        assert_eq!(b, "User-agent: Walsh\n");
        let (b, _) = repair(UnderBlock::EmptyAgent, "User-agent:  # none\n", "");
        assert_eq!(b, "User-agent: w\n");
        let (b, _) = repair(UnderBlock::TemplateOctets, "Disallow: /{0}/?q='\n", "");
        assert_eq!(b, "Disallow: /%7B0%7D/?q=%27\n");
        let (b, u) = repair(
            UnderBlock::SlashQueryEscape,
            "Allow: /a%2fb\n",
            "https://example.com/a%2Fb%3Fc%3D",
        );
        assert_eq!(
            (b.as_str(), u.as_str()),
            ("Allow: /a/b\n", "https://example.com/a/b?c%3D")
        );
        let (_, u) = repair(
            UnderBlock::ReservedEscape,
            "",
            "https://example.com/?q%3Dx%23y",
        );
        assert_eq!(u, "https://example.com/?q=x%23y");
    }

    #[test]
    fn the_class_is_the_first_repair_after_which_the_judge_denies() {
        let body = format!("User-agent: *\nDisallow:{}/{{0}}/\n", " ".repeat(17_000));
        let url = "https://example.com/%7B0%7D/";
        let escaped = |b: &str, _: &str| b.contains("%7B");
        let short = |b: &str, _: &str| b.len() < 100;
        let both = |b: &str, _: &str| b.len() < 100 && b.contains("%7B");
        let never = |_: &str, _: &str| false;
        let slash = |_: &str, u: &str| u.contains("/a/b");
        assert_eq!(
            under_block_by(&body, url, &escaped),
            UnderBlock::TemplateOctets
        );
        assert_eq!(under_block_by(&body, url, &short), UnderBlock::LongLine);
        assert_eq!(under_block_by(&body, url, &both), UnderBlock::Several);
        assert_eq!(under_block_by(&body, url, &never), UnderBlock::Other);
        let url = "https://example.com/a%2Fb";
        assert_eq!(
            under_block_by("Disallow: /a/b\n", url, &slash),
            UnderBlock::SlashQueryEscape
        );
    }
}
