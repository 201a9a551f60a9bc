//! Issue #12: every string that came from the network goes through one
//! function before a terminal, a file or JSON sees it. Whatever the input
//! (escape sequences, C0 and C1 controls, bidi overrides, line and
//! paragraph separators, any Unicode), nothing that can steer a terminal or
//! reorder text comes out, and the length is bounded.

use proptest::prelude::*;
use wr_feeds::extract::{clean_message, MAX_MESSAGE_CHARS};

/// Characters that move a cursor, retitle a window, or reorder text.
fn dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn hostile() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("\x1b]0;pwned\x07".to_string()),
            Just("\x1b[2J\x1b[H".to_string()),
            Just("\u{9b}31m".to_string()),
            Just("\u{202E}gnp.exe".to_string()),
            Just("\r\n\t\u{2028}".to_string()),
            "[ -~]{0,12}",
            any::<char>().prop_map(String::from),
        ],
        0..60,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn nothing_that_steers_a_terminal_comes_out(s in hostile()) {
        let out = clean_message(&s);
        prop_assert!(!out.chars().any(dangerous), "{:?} -> {:?}", s, out);
        prop_assert!(out.chars().count() <= MAX_MESSAGE_CHARS, "{} chars", out.chars().count());
        // Idempotent: cleaning clean text changes nothing.
        prop_assert_eq!(clean_message(&out), out);
    }

    #[test]
    fn a_long_message_keeps_its_start_and_its_end(head in "[a-z]{20}", tail in "[a-z]{20}", n in 3000usize..20000) {
        let s = format!("{head}{}{tail}", "x".repeat(n));
        let out = clean_message(&s);
        prop_assert!(out.starts_with(&head) && out.ends_with(&tail));
        prop_assert!(out.chars().count() <= MAX_MESSAGE_CHARS);
    }
}

#[test]
fn each_steering_character_is_removed() {
    for c in [
        '\x1b', '\x07', '\u{9b}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}', '\u{2028}',
        '\u{2029}', '\u{200E}', '\u{200F}', '\u{061C}',
    ] {
        let out = clean_message(&format!("a{c}b"));
        assert!(!out.contains(c), "{:?} kept in {out:?}", c);
    }
}
