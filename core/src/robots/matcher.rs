//! Pattern matching for Allow/Disallow values (R2b, RFC 9309 §2.2.3).
//!
//! A pattern is a sequence of literal segments separated by `*`, optionally
//! ending in `$`. Matching is a prefix match unless anchored. Because every
//! `*` can absorb any run of octets, placing each middle segment at its
//! *leftmost* occurrence after the previous one is always safe: it leaves the
//! most room for what follows. So one left-to-right pass decides a match with
//! no backtracking and no allocation — the property that keeps a hostile
//! robots.txt (thousands of `*`, kilobyte paths) from stalling the bot.
//!
//! The subject is abstracted by [`Subject`] so the same algorithm runs on a
//! plain byte slice (the common, fast case) and on a lazily normalised view
//! of a path that carries percent escapes. On a slice each segment is found
//! with SIMD searches (`memchr`, then a linear-time substring search), and
//! each search starts where the previous one matched, so a whole match takes
//! O(len(path) + len(pattern)). On a lazy view a segment search skips to the
//! next octet that could start the segment (at `memchr` speed when that
//! octet is rare), but restarts there: O(len(path) × len(pattern)) in the
//! worst case, which is why the evaluator copies normalised paths when it
//! can.

use crate::percent::Normalized;

/// A cursor over the octets being matched.
pub trait Subject: Copy {
    /// If the remaining input starts with `seg`, the cursor after it.
    fn strip_prefix(self, seg: &[u8]) -> Option<Self>;
    /// The cursor just after the leftmost occurrence of `seg`.
    fn find_after(self, seg: &[u8]) -> Option<Self>;
    /// Whether the remaining input ends with `seg` (at or after the cursor).
    fn ends_with(self, seg: &[u8]) -> bool;
    /// Whether nothing remains.
    fn is_empty(self) -> bool;
    /// The cursor just after the rightmost occurrence of `seg`.
    fn rfind_after(self, seg: &[u8]) -> Option<Self>;
    /// Octets left after the cursor.
    fn remaining(self) -> usize;
}

/// Whether `hay` starts with `needle`: short needles (most segments) are
/// compared as one or two overlapping words in line, not through a call to
/// `memcmp`.
#[inline(always)]
fn starts_with(hay: &[u8], needle: &[u8]) -> bool {
    let n = needle.len();
    let Some(h) = hay.get(..n) else {
        return false;
    };
    let word = |s: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let half = |s: &[u8], at: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_le_bytes(w)
    };
    match n {
        0 => true,
        1..=3 => h.iter().zip(needle).all(|(a, b)| a == b),
        4..=7 => half(h, 0) == half(needle, 0) && half(h, n - 4) == half(needle, n - 4),
        8..=16 => word(h, 0) == word(needle, 0) && word(h, n - 8) == word(needle, n - 8),
        _ => h == needle,
    }
}

/// The first `b` in `hay`: short haystacks (a request path) are scanned in
/// line, eight octets at a time; longer ones with `memchr`.
#[inline(always)]
pub(crate) fn find_byte(b: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() > 64 {
        return memchr::memchr(b, hay);
    }
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = hay.chunks_exact(8);
    let mut base = 0;
    for c in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w) ^ (ONES * u64::from(b));
        // Exact for the lowest zero octet.
        let z = x.wrapping_sub(ONES) & !x & HIGH;
        if z != 0 {
            return Some(base + (z.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&o| o == b)
        .map(|i| base + i)
}

impl Subject for &[u8] {
    #[inline]
    fn strip_prefix(self, seg: &[u8]) -> Option<Self> {
        starts_with(self, seg).then(|| &self[seg.len()..])
    }
    #[inline]
    fn find_after(self, seg: &[u8]) -> Option<Self> {
        let (&first, _) = match seg.split_first() {
            None => return Some(self),
            Some(split) => split,
        };
        let last_start = self.len().checked_sub(seg.len())?;
        // Most searches fail or succeed at the first candidate: a hostile
        // file's segment that is absent from the path, or a short segment
        // right after the cursor. One SIMD scan for the first octet settles
        // both without setting up a substring searcher.
        let window = &self[..=last_start];
        let mut i = find_byte(first, window)?;
        // A few more candidates before a substring searcher is set up
        // (its setup costs more than several short comparisons): a path
        // has many `/`, and most segments start with one. A bounded number
        // of tries keeps the search linear in path and segment.
        for _ in 0..4 {
            if starts_with(&self[i..], seg) {
                return Some(&self[i + seg.len()..]);
            }
            i += 1 + find_byte(first, &window[i + 1..])?;
        }
        // The first octet recurs without a match: a general search, linear
        // in path and segment (no O(path x segment) rescans), no allocation.
        let rest = &self[i..];
        let j = memchr::memmem::find(rest, seg)?;
        Some(&rest[j + seg.len()..])
    }
    #[inline]
    fn ends_with(self, seg: &[u8]) -> bool {
        self.len() >= seg.len() && starts_with(&self[self.len() - seg.len()..], seg)
    }
    #[inline]
    fn is_empty(self) -> bool {
        <[u8]>::is_empty(self)
    }
    #[inline]
    fn rfind_after(self, seg: &[u8]) -> Option<Self> {
        let j = memchr::memmem::rfind(self, seg)?;
        Some(&self[j + seg.len()..])
    }
    #[inline]
    fn remaining(self) -> usize {
        self.len()
    }
}

impl Subject for Normalized<'_> {
    fn strip_prefix(mut self, seg: &[u8]) -> Option<Self> {
        for &want in seg {
            if self.next_byte()? != want {
                return None;
            }
        }
        Some(self)
    }
    fn find_after(self, seg: &[u8]) -> Option<Self> {
        let Some(&first) = seg.first() else {
            return Some(self);
        };
        let mut start = self;
        start.skip_to_candidate(first);
        loop {
            if let Some(after) = start.strip_prefix(seg) {
                return Some(after);
            }
            start.next_byte()?;
            start.skip_to_candidate(first);
        }
    }
    fn ends_with(self, seg: &[u8]) -> bool {
        let mut len = 0usize;
        let mut probe = self;
        while probe.next_byte().is_some() {
            len += 1;
        }
        let Some(skip) = len.checked_sub(seg.len()) else {
            return false;
        };
        let mut cur = self;
        for _ in 0..skip {
            cur.next_byte();
        }
        cur.strip_prefix(seg).is_some()
    }
    fn is_empty(self) -> bool {
        Normalized::is_empty(&self)
    }
    fn rfind_after(self, seg: &[u8]) -> Option<Self> {
        // Only targets too long for any copy come here: every start is
        // tried, O(path x segment), as the module docs say.
        let mut start = self;
        let mut last = None;
        loop {
            if let Some(after) = start.strip_prefix(seg) {
                last = Some(after);
            }
            if start.next_byte().is_none() {
                return last;
            }
        }
    }
    fn remaining(self) -> usize {
        self.count()
    }
}

/// The literal segments between `*`s, as `split` would give them, found
/// with [`find_byte`]: in line, eight octets at a time, in the short
/// patterns of real files (a `memchr` call per segment was a sixth of the
/// checks of a file with twenty `*` rules), and a kilobyte-long literal
/// is skipped at SIMD speed instead of octet by octet on every query.
struct Segments<'p>(Option<&'p [u8]>);

impl<'p> Iterator for Segments<'p> {
    type Item = &'p [u8];

    #[inline]
    fn next(&mut self) -> Option<&'p [u8]> {
        let rest = self.0?;
        match find_byte(b'*', rest) {
            Some(i) => {
                self.0 = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => {
                self.0 = None;
                Some(rest)
            }
        }
    }
}

/// Whether `pattern` (a normalised rule value, possibly with `*` and a final
/// `$`) matches `subject`. The empty pattern matches everything here; the
/// caller gives it priority zero so it never decides (RFC 9309: an empty
/// rule matches nothing).
pub fn matches<S: Subject>(pattern: &[u8], subject: S) -> bool {
    let (body, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    let mut segments = Segments(Some(body));
    // Always at least one (possibly empty) segment.
    let first = segments.next().unwrap_or_default();
    let Some(mut cur) = subject.strip_prefix(first) else {
        return false;
    };
    let Some(mut seg) = segments.next() else {
        // No `*` at all: a literal prefix, or an exact match when anchored.
        return !anchored || cur.is_empty();
    };
    for next in segments {
        match cur.find_after(seg) {
            Some(after) => cur = after,
            None => return false,
        }
        seg = next;
    }
    // `seg` is the segment after the last `*`.
    if anchored {
        cur.ends_with(seg)
    } else {
        cur.find_after(seg).is_some()
    }
}

/// How many octets of `subject` a match of `pattern` covers: the fewest and
/// the most over every way its `*`s can expand, or `None` without a match.
///
/// This is what the spec's precedence counts ("an expanded * counts as the
/// characters it consumed"). Placing every segment at its leftmost
/// occurrence gives the earliest end; keeping the others leftmost and the
/// last one at its rightmost occurrence gives the latest (leftmost places
/// leave it the most room). A final `$` covers the whole subject either way,
/// and a pattern without `*` covers exactly its own octets. Linear on a
/// slice, like [`matches()`].
pub fn match_span<S: Subject>(pattern: &[u8], subject: S) -> Option<(usize, usize)> {
    let total = subject.remaining();
    let (body, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    let mut segments = Segments(Some(body));
    let first = segments.next().unwrap_or_default();
    let mut cur = subject.strip_prefix(first)?;
    let Some(mut seg) = segments.next() else {
        if anchored && !cur.is_empty() {
            return None;
        }
        let n = total - cur.remaining();
        return Some((n, n));
    };
    for next in segments {
        cur = cur.find_after(seg)?;
        seg = next;
    }
    if anchored {
        return cur.ends_with(seg).then_some((total, total));
    }
    let earliest = cur.find_after(seg)?;
    let latest = if seg.is_empty() {
        0
    } else {
        cur.rfind_after(seg).map_or(0, |c| c.remaining())
    };
    Some((total - earliest.remaining(), total - latest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(p: &str, s: &str) -> bool {
        let a = matches(p.as_bytes(), s.as_bytes());
        let b = matches(p.as_bytes(), Normalized::new(s.as_bytes()));
        assert_eq!(
            a, b,
            "slice and normalised subjects disagree on {p:?} vs {s:?}"
        );
        a
    }

    #[test]
    fn prefix_wildcard_and_anchor() {
        assert!(both("/a", "/a/b"));
        assert!(!both("/a", "/b"));
        assert!(both("/*.pdf$", "/docs/report.pdf"));
        assert!(!both("/*.pdf$", "/docs/report.pdf?x=1"));
        assert!(both("/*.pdf", "/docs/report.pdf?x=1"));
        assert!(both("/a$", "/a"));
        assert!(!both("/a$", "/ab"));
        assert!(both("*", "/anything"));
        assert!(both("/*/b*/c$", "/x/bb/yy/c"));
        assert!(!both("/*/b*/c$", "/x/bb/yy/cd"));
        assert!(both("/a*a$", "/aa"));
        assert!(!both("/a*a$", "/a"));
        assert!(both("/$", "/"));
        assert!(both("/a$b", "/a$b/c"), "a `$` before the end is literal");
    }

    fn span(p: &str, s: &str) -> Option<(usize, usize)> {
        let a = match_span(p.as_bytes(), s.as_bytes());
        let b = match_span(p.as_bytes(), Normalized::new(s.as_bytes()));
        assert_eq!(
            a, b,
            "slice and normalised subjects disagree on {p:?} vs {s:?}"
        );
        assert_eq!(a.is_some(), both(p, s), "match_span and matches disagree");
        a
    }

    #[test]
    fn spans_count_what_the_stars_consumed() {
        // Literal: exactly the pattern's octets.
        assert_eq!(span("/a/b", "/a/b/c"), Some((4, 4)));
        assert_eq!(span("/a/b$", "/a/b"), Some((4, 4)));
        assert_eq!(span("/a/b$", "/a/b/"), None);
        // The trackback row of issue #10: the Disallow covers 32 octets.
        let path = "/wp-content/uploads/x/trackback/";
        assert_eq!(span("*/trackback/", path), Some((32, 32)));
        // Several occurrences of the last segment: earliest and latest end.
        assert_eq!(span("/*b", "/abab"), Some((3, 5)));
        assert_eq!(span("/a*", "/abc"), Some((2, 4)));
        assert_eq!(span("*", "/abc"), Some((0, 4)));
        assert_eq!(span("/*x*y", "/x1y2xy3"), Some((4, 7)));
        // Anchored patterns cover everything.
        assert_eq!(span("/*.pdf$", "/d/r.pdf"), Some((8, 8)));
        assert_eq!(span("/*.pdf$", "/d/r.pdf?x"), None);
        assert_eq!(span("/*q", "/abc"), None);
    }

    #[test]
    fn segments_are_split_on_every_star() {
        extern crate std;
        use std::vec::Vec;
        for p in [
            &b""[..],
            b"*",
            b"**",
            b"/a",
            b"/a*",
            b"*/a",
            b"/a**b*",
            b"/a*b*c",
        ] {
            let want: Vec<&[u8]> = p.split(|&b| b == b'*').collect();
            let got: Vec<&[u8]> = Segments(Some(p)).collect();
            assert_eq!(got, want, "{p:?}");
        }
    }

    #[test]
    fn segment_search_edges() {
        // The first octet of a segment recurs before the real occurrence.
        assert!(both("/*aab", "/aaaaaaab"));
        assert!(!both("/*aab", "/aaaaaaaa"));
        assert!(both("/*abab$", "/abaabababab"));
        assert!(!both("/*abab$", "/abaababababa"));
        // A segment exactly as long as what is left, and one longer.
        assert!(both("/*abc", "/abc"));
        assert!(!both("/*abcd", "/abc"));
        assert!(both("/x*abc$", "/xabc"));
        // Runs of `*` are one `*`; a leading `*` needs no `/`.
        assert!(both("/a***b", "/ab"));
        assert!(both("/a**$", "/a"));
        assert!(both("**b", "/ab"));
        assert!(both("*", ""));
        assert!(!both("*x", ""));
        // Leftmost placement: the anchored tail must still fit after it.
        assert!(both("/*ab*ab$", "/abab"));
        assert!(!both("/*ab*ab$", "/aba"));
        // `$` is literal before the end, also inside a `*` segment.
        assert!(both("/*$x*y", "/a$xzy"));
        assert!(!both("/*$x*y", "/axzy"));
    }

    #[test]
    fn long_subjects_take_the_substring_search() {
        extern crate std;
        use std::vec::Vec;
        // Past 64 octets and with the segment's first octet everywhere, the
        // search goes past the first candidate; the answer must not change.
        let mut path: Vec<u8> = core::iter::once(b'/')
            .chain(core::iter::repeat_n(b'a', 300))
            .collect();
        let mut pat = Vec::from(&b"/*"[..]);
        pat.extend(core::iter::repeat_n(b'a', 40));
        pat.push(b'b');
        assert!(!matches(&pat, path.as_slice()));
        path.push(b'b');
        assert!(matches(&pat, path.as_slice()));
        pat.push(b'$');
        assert!(matches(&pat, path.as_slice()));
        path.push(b'c');
        assert!(!matches(&pat, path.as_slice()));
        // The occurrence straddles the first candidate's window.
        let mut p2: Vec<u8> = Vec::from(&b"/"[..]);
        p2.extend(core::iter::repeat_n(b"ab", 100).flatten());
        p2.extend_from_slice(b"abc");
        assert!(matches(b"/*ababc$", p2.as_slice()));
        assert!(matches(b"/*b*bc", p2.as_slice()));
        assert!(!matches(b"/*abcab", p2.as_slice()));
    }

    #[test]
    fn inline_comparisons_and_searches_agree_with_the_slices() {
        extern crate std;
        use std::vec::Vec;
        let mut x: u32 = 11;
        let mut next = |n: u32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) % n
        };
        for _ in 0..20_000 {
            let hay: Vec<u8> = (0..next(90))
                .map(|_| b"ab\0\xff"[next(4) as usize])
                .collect();
            let needle: Vec<u8> = (0..next(20))
                .map(|_| b"ab\0\xff"[next(4) as usize])
                .collect();
            assert_eq!(starts_with(&hay, &needle), hay.starts_with(&needle));
            let at = next(hay.len() as u32 + 1) as usize;
            assert!(starts_with(
                &hay[at..],
                &hay[at..(at + needle.len()).min(hay.len())]
            ));
            let b = b"ab\0\xff"[next(4) as usize];
            assert_eq!(find_byte(b, &hay), hay.iter().position(|&o| o == b));
        }
    }

    #[test]
    fn adversarial_pattern_is_linear() {
        extern crate std;
        let pattern: std::vec::Vec<u8> = core::iter::once(b'/')
            .chain(core::iter::repeat_n(b'*', 1000))
            .chain(*b"x$")
            .collect();
        let path: std::vec::Vec<u8> = core::iter::once(b'/')
            .chain(core::iter::repeat_n(b'a', 8000))
            .collect();
        assert!(!matches(&pattern, path.as_slice()));
    }
}
