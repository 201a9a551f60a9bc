//! Pattern matching for Allow/Disallow values (R2b, RFC 9309 §2.2.3).
//!
//! A pattern is a sequence of literal segments separated by `*`, optionally
//! ending in `$`. Matching is a prefix match unless anchored. Because every
//! `*` can absorb any run of octets, placing each middle segment at its
//! *leftmost* occurrence after the previous one is always safe: it leaves the
//! most room for what follows. So one left-to-right pass decides a match with
//! no backtracking, no allocation and worst-case time
//! O(len(path) × len(pattern)) — the property that keeps a hostile
//! robots.txt (thousands of `*`, kilobyte paths) from stalling the bot.
//!
//! The subject is abstracted by [`Subject`] so the same algorithm runs on a
//! plain byte slice (the common, fast case) and on a lazily normalised view
//! of a path that carries percent escapes.

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
}

impl Subject for &[u8] {
    #[inline]
    fn strip_prefix(self, seg: &[u8]) -> Option<Self> {
        <[u8]>::strip_prefix(self, seg)
    }
    #[inline]
    fn find_after(self, seg: &[u8]) -> Option<Self> {
        if seg.is_empty() {
            return Some(self);
        }
        let first = seg[0];
        let last_start = self.len().checked_sub(seg.len())?;
        let mut i = 0;
        while i <= last_start {
            // Skip quickly to candidates: the first octet must agree.
            match self[i..=last_start].iter().position(|&b| b == first) {
                None => return None,
                Some(off) => i += off,
            }
            if &self[i..i + seg.len()] == seg {
                return Some(&self[i + seg.len()..]);
            }
            i += 1;
        }
        None
    }
    #[inline]
    fn ends_with(self, seg: &[u8]) -> bool {
        <[u8]>::ends_with(self, seg)
    }
    #[inline]
    fn is_empty(self) -> bool {
        <[u8]>::is_empty(self)
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
        let mut start = self;
        loop {
            if let Some(after) = start.strip_prefix(seg) {
                return Some(after);
            }
            start.next_byte()?;
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
    let mut segments = body.split(|&b| b == b'*');
    // `split` always yields at least one (possibly empty) segment.
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
