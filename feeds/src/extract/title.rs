//! Title cleaning: a fetched title is untrusted input that will be printed
//! to a terminal and stored.
//!
//! A feed can put `ESC ] 52 ; c ; ... BEL` (write the clipboard),
//! `ESC [ 2 J` (clear the screen), a C1 `CSI`, or a right-to-left override
//! (U+202E, the "Trojan Source" trick) into a title. None of that may reach
//! the operator's terminal, so [`clean_title`] removes whole escape
//! sequences (not just the `ESC` byte, which would leave `[31m` behind),
//! every other control character, and bidi embedding / override / isolate
//! controls. R6 also asks us to keep metadata, not content, so a title is
//! capped at [`MAX_TITLE_CHARS`].

/// Longest title kept, in characters (after cleaning). A longer "title" is
/// content rather than metadata (R6); it is cut and ends with `…`.
pub const MAX_TITLE_CHARS: usize = 300;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
/// 8-bit String Terminator.
const ST8: char = '\u{9c}';

/// Returns `s` made safe for a terminal and a one-line listing.
///
/// * Terminal escape sequences are removed whole: CSI (`ESC [` ... final
///   byte 0x40-0x7E, and 8-bit `U+009B`), OSC / DCS / SOS / PM / APC strings
///   (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _` and their 8-bit forms) up
///   to `BEL` or `ST` (or the end of the string when unterminated), and
///   two-byte / `nF` escapes (`ESC (B`, `ESC 7`, `ESC c`, ...).
/// * Every other C0 and C1 control character and `DEL` is removed; tab,
///   line feed, vertical tab, form feed and carriage return become spaces.
/// * Bidi embeddings, overrides and isolates (U+202A-U+202E,
///   U+2066-U+2069) and the directional marks (U+200E, U+200F, U+061C) are
///   removed, so a title cannot reorder what follows it.
/// * Runs of whitespace (any Unicode whitespace) collapse into one space,
///   and the result is trimmed.
/// * The result is cut to [`MAX_TITLE_CHARS`] characters (the last one then
///   being `…`).
///
/// ```
/// use wr_feeds::extract::clean_title;
/// assert_eq!(clean_title("\x1b[31mred\x1b[0m"), "red");
/// assert_eq!(clean_title("  a \t\n b  "), "a b");
/// ```
pub fn clean_title(s: &str) -> String {
    clean_text(s, MAX_TITLE_CHARS)
}

/// Longest message kept by [`clean_message`], in characters.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// [`clean_title`]'s cleaning for any text that came from the network and
/// is about to reach a terminal, a file or JSON in a message: an error a
/// parser quoted from a feed, a reason naming a URL a server sent. Cut at
/// [`MAX_MESSAGE_CHARS`] in the middle, so that both the start (usually
/// the URL) and the end (usually why) survive a 100 KB URL.
///
/// ```
/// use wr_feeds::extract::clean_message;
/// assert_eq!(clean_message("bad \x1b]0;pwned\x07title"), "bad title");
/// ```
pub fn clean_message(s: &str) -> String {
    let all = clean_text(s, usize::MAX);
    let n = all.chars().count();
    if n <= MAX_MESSAGE_CHARS {
        return all;
    }
    let half = MAX_MESSAGE_CHARS / 2;
    let head: String = all.chars().take(half).collect();
    let tail: String = all
        .chars()
        .skip(n - (MAX_MESSAGE_CHARS - half - 1))
        .collect();
    format!("{head}…{tail}")
}

/// The cleaning of [`clean_title`], cut at `max_chars` characters.
fn clean_text(s: &str, max_chars: usize) -> String {
    let mut out = Title {
        max: max_chars.max(1),
        ..Title::default()
    };
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // nF escape: intermediates 0x20-0x2F, then a final 0x30-0x7E.
                Some('\u{20}'..='\u{2f}') => {
                    while chars
                        .next_if(|c| matches!(c, '\u{20}'..='\u{2f}'))
                        .is_some()
                    {}
                    chars.next_if(|c| matches!(c, '\u{30}'..='\u{7e}'));
                }
                // Fp / Fe / Fs: a single final byte.
                Some('\u{30}'..='\u{7e}') | None => {}
                // ESC followed by something that cannot end a sequence: drop
                // the ESC and treat the character normally.
                Some(other) => out.push(other),
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            _ => out.push(c),
        }
        if out.chars > out.max {
            break;
        }
    }
    out.finish()
}

/// The cleaned title under construction.
#[derive(Default)]
struct Title {
    text: String,
    /// Characters in `text`.
    chars: usize,
    /// Whitespace seen since the last visible character.
    space: bool,
    /// Characters kept at most.
    max: usize,
}

impl Title {
    /// Appends one character that is not part of an escape sequence.
    fn push(&mut self, c: char) {
        if c.is_whitespace() {
            self.space = true;
            return;
        }
        if c.is_control() || is_bidi_control(c) {
            return;
        }
        if self.space && self.chars > 0 {
            self.text.push(' ');
            self.chars += 1;
        }
        self.space = false;
        self.text.push(c);
        self.chars += 1;
    }

    /// The text, cut to `max` characters with a trailing `…` if longer.
    fn finish(self) -> String {
        if self.chars <= self.max {
            return self.text;
        }
        let mut cut: String = self.text.chars().take(self.max - 1).collect();
        cut.truncate(cut.trim_end().len());
        cut.push('…');
        cut
    }
}

/// Skips the rest of a CSI sequence: parameter bytes 0x30-0x3F,
/// intermediate bytes 0x20-0x2F, then one final byte 0x40-0x7E. Stops early
/// (without consuming) at any character outside those ranges, so a broken
/// sequence cannot swallow the rest of the title.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars
        .next_if(|c| matches!(c, '\u{20}'..='\u{3f}'))
        .is_some()
    {}
    chars.next_if(|c| matches!(c, '\u{40}'..='\u{7e}'));
}

/// Skips an OSC / DCS / SOS / PM / APC string up to and including its
/// terminator (`BEL`, `ESC \` or 8-bit `ST`), or to the end when it is never
/// terminated: a terminal would swallow that text too.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            BEL | ST8 => return,
            ESC if chars.next_if_eq(&'\\').is_some() => return,
            _ => {}
        }
    }
}

/// Bidi embedding, override and isolate controls.
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
    )
}
