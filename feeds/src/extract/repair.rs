//! What a lenient reading forgave, for the run report and `status`.
//!
//! A feed with a bare `&` in a link, an HTML entity such as `&nbsp;`, a
//! control character or an encoding declaration its bytes contradict is
//! not well-formed, yet every reader shows its items. We read it as they
//! do and say so: each kind of repair is noted once, at its first place
//! (line and column of the decoded text), so the operator can tell the
//! feed's author exactly where to look.

/// The repairs one document needed, first occurrence of each kind.
#[derive(Debug, Default)]
pub(super) struct Repairs {
    notes: Vec<Note>,
}

#[derive(Debug)]
struct Note {
    kind: &'static str,
    what: String,
    count: usize,
}

/// At most this many kinds are listed; a document needing more is listed
/// by its first ones (the count of the rest is given).
const MAX_KINDS: usize = 8;

impl Repairs {
    /// Notes a repair of `kind` described by `what` (a short phrase naming
    /// the place), unless one of this kind was noted already (then it is
    /// only counted). `what` is only built for the first one.
    pub(super) fn note(&mut self, kind: &'static str, what: impl FnOnce() -> String) {
        if let Some(n) = self.notes.iter_mut().find(|n| n.kind == kind) {
            n.count += 1;
            return;
        }
        self.notes.push(Note {
            kind,
            what: what(),
            count: 1,
        });
    }

    /// One line per kind: `what`, and how many more of the kind followed.
    pub(super) fn into_lines(self) -> Vec<String> {
        let kinds = self.notes.len();
        let mut lines: Vec<String> = self
            .notes
            .into_iter()
            .take(MAX_KINDS)
            .map(|n| match n.count {
                1 => n.what,
                c => format!("{} (and {} more)", n.what, c - 1),
            })
            .collect();
        if kinds > MAX_KINDS {
            lines.push(format!("{} other kinds", kinds - MAX_KINDS));
        }
        lines
    }
}

/// Line and column (both from 1, the column in characters) of byte
/// `offset` of `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// `line L, column C` of byte `offset` of `text`.
pub(super) fn at(text: &str, offset: usize) -> String {
    let (line, column) = line_column(text, offset);
    format!("line {line}, column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_lines_and_character_columns() {
        let text = "ab\ncé&d";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, text.find('&').unwrap()), (2, 3));
        assert_eq!(line_column(text, 999), (2, 5));
    }

    #[test]
    fn each_kind_once_with_a_count() {
        let mut r = Repairs::default();
        r.note("amp", || "a bare '&' at line 1, column 2".into());
        r.note("amp", || unreachable!());
        r.note("entity", || "HTML entity &nbsp;".into());
        assert_eq!(
            r.into_lines(),
            [
                "a bare '&' at line 1, column 2 (and 1 more)",
                "HTML entity &nbsp;"
            ]
        );
    }
}
