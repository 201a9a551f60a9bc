//! `clean_title` (titles are untrusted terminal input) and `content_kind`
//! (the R9 decisions of the pipeline).

use wr_feeds::extract::{clean_title, content_kind, ContentKind, MAX_TITLE_CHARS};

#[test]
fn csi_sequences_are_removed_whole() {
    assert_eq!(clean_title("\x1b[31mred\x1b[0m"), "red");
    assert_eq!(clean_title("a\x1b[2Jb"), "ab");
    assert_eq!(clean_title("\x1b[1;31;4mbold\x1b[m text"), "bold text");
    // Private-mode parameters and intermediates.
    assert_eq!(clean_title("x\x1b[?1049hy"), "xy");
    assert_eq!(clean_title("x\x1b[1 qy"), "xy");
    // 8-bit CSI.
    assert_eq!(clean_title("x\u{9b}31my"), "xy");
    // A broken CSI does not swallow the rest of the title.
    assert_eq!(clean_title("x\x1b[31\u{e9}t\u{e9}"), "x\u{e9}t\u{e9}");
}

#[test]
fn osc_and_string_sequences_are_removed_whole() {
    // Set the window title, terminated by BEL.
    assert_eq!(clean_title("a\x1b]0;pwned\x07b"), "ab");
    // Write the clipboard (OSC 52), terminated by ST.
    assert_eq!(clean_title("a\x1b]52;c;ZXZpbA==\x1b\\b"), "ab");
    // Hyperlink (OSC 8) around text: the text stays, the link goes.
    assert_eq!(
        clean_title("\x1b]8;;https://evil.test/\x1b\\click\x1b]8;;\x1b\\"),
        "click"
    );
    // DCS, SOS, PM, APC and their 8-bit forms.
    assert_eq!(clean_title("a\x1bPq#0\x1b\\b"), "ab");
    assert_eq!(
        clean_title("a\x1bXsos\x1b\\b\x1b^pm\x07c\x1b_apc\x07d"),
        "abcd"
    );
    assert_eq!(clean_title("a\u{9d}0;t\u{9c}b\u{90}dcs\u{9c}c"), "abc");
    // Unterminated: a terminal would swallow the rest, so do we.
    assert_eq!(clean_title("kept\x1b]0;never terminated"), "kept");
}

#[test]
fn other_escapes_and_controls_are_removed() {
    // Charset designation (nF), save cursor (Fp), reset (Fs).
    assert_eq!(clean_title("a\x1b(Bb\x1b7c\x1bcd"), "abcd");
    // NUL, BEL, backspace, DEL, C1 IND and SS2 are dropped...
    assert_eq!(clean_title("a\0b\x07c\x08d\x7fe\u{84}f\u{8e}g"), "abcdefg");
    // ...while C1 NEL (U+0085) is a line break, so whitespace.
    assert_eq!(clean_title("a\u{85}b"), "a b");
    // Whitespace controls become spaces, then collapse.
    assert_eq!(clean_title("a\tb\nc\r\nd\x0be\x0cf"), "a b c d e f");
    // A lone ESC at the end.
    assert_eq!(clean_title("end\x1b"), "end");
}

#[test]
fn bidi_overrides_are_neutralised() {
    // The "Trojan Source" right-to-left override.
    assert_eq!(clean_title("abc\u{202e}fed"), "abcfed");
    for c in ['\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}'] {
        assert_eq!(clean_title(&format!("x{c}y")), "xy", "{:?}", c);
    }
    for c in ['\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}'] {
        assert_eq!(clean_title(&format!("x{c}y")), "xy", "{:?}", c);
    }
    // Ordinary right-to-left text is untouched.
    assert_eq!(clean_title("שלום עולם"), "שלום עולם");
}

#[test]
fn whitespace_collapses_and_trims() {
    assert_eq!(clean_title("  a \t\n b  "), "a b");
    assert_eq!(clean_title("a\u{a0}\u{2028}\u{3000}b"), "a b");
    assert_eq!(clean_title(""), "");
    assert_eq!(clean_title(" \x1b[0m \t"), "");
    assert_eq!(clean_title("Caf\u{e9} \u{1f600}"), "Caf\u{e9} \u{1f600}");
}

#[test]
fn long_titles_are_cut_with_an_ellipsis() {
    let long = "word ".repeat(1000);
    let cleaned = clean_title(&long);
    assert_eq!(cleaned.chars().count(), MAX_TITLE_CHARS);
    assert!(cleaned.ends_with("word…") || cleaned.ends_with('…'));
    let exact = "x".repeat(MAX_TITLE_CHARS);
    assert_eq!(clean_title(&exact), exact);
}

#[test]
fn cleaned_titles_never_contain_controls() {
    // Every code point below U+00A0, each in a sequence-breaking context.
    let mut s = String::new();
    for c in (0u32..0xa0).filter_map(char::from_u32) {
        s.push('a');
        s.push(c);
    }
    s.push_str("\u{202e}\u{2066}");
    let cleaned = clean_title(&s);
    assert!(
        !cleaned
            .chars()
            .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
        "{cleaned:?}"
    );
}

#[test]
fn content_kind_classifies_media_types() {
    use ContentKind::*;
    let cases = [
        (Some("application/rss+xml"), Feed),
        (Some("application/atom+xml; charset=utf-8"), Feed),
        (Some("application/feed+json"), Feed),
        (Some("application/json"), Feed),
        (Some("application/xml"), Feed),
        (Some("TEXT/XML;charset=ISO-8859-1"), Feed),
        (Some("application/rdf+xml"), Feed),
        (Some("application/x-rss+xml"), Feed),
        (Some("text/markdown"), Markdown),
        (Some("text/markdown; charset=UTF-8; variant=GFM"), Markdown),
        (Some("text/x-markdown"), Markdown),
        (Some("Text/Markdown"), Markdown),
        (Some("text/plain"), PlainText),
        (Some(" text/plain ; charset=utf-8"), PlainText),
        (Some("text/html"), Html),
        (Some("text/html; charset=utf-8"), Html),
        (Some("application/xhtml+xml"), Html),
        (Some("image/png"), Other),
        (Some("application/octet-stream"), Other),
        (Some(""), Other),
        (Some("garbage"), Other),
        (None, Other),
    ];
    for (header, want) in cases {
        assert_eq!(content_kind(header), want, "{header:?}");
    }
}

#[test]
fn messages_keep_their_start_and_their_end() {
    use wr_feeds::extract::{clean_message, MAX_MESSAGE_CHARS};
    let long = format!("http://a.test/{}: the reason \x1b[2J", "x".repeat(10_000));
    let m = clean_message(&long);
    assert_eq!(m.chars().count(), MAX_MESSAGE_CHARS);
    assert!(m.starts_with("http://a.test/xxx"), "{m}");
    assert!(m.ends_with("xxx: the reason"), "{m}");
    assert!(m.contains('…') && !m.contains('\u{1b}'));
    assert_eq!(clean_message("short \x07 one"), "short one");
}

/// `src/extract/entities.rs` is what `tools/entities.py` writes from the
/// WHATWG list (as Python ships it): checked when python3 is there.
#[test]
fn the_entity_table_is_the_generated_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(out) = std::process::Command::new("python3")
        .arg(root.join("tools/entities.py"))
        .output()
    else {
        println!("skipping: no python3 to regenerate the entity table");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = std::fs::read(root.join("src/extract/entities.rs")).unwrap();
    assert!(
        out.stdout == committed,
        "src/extract/entities.rs differs from tools/entities.py's output"
    );
}
