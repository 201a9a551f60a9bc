//! Filters in front of the matcher: the octet classes a pattern's
//! segments need, and the octets a long subject holds. Each only ever says
//! "cannot match"; what it lets through is matched as before, so the
//! worst case stays the matcher's and nothing is allocated.

use super::*;

/// [`classes`] of a target, eight octets at a time.
#[inline]
pub(super) fn classes_of_target(s: &[u8]) -> u64 {
    let mut set = 0u64;
    let mut words = s.chunks_exact(8);
    for c in &mut words {
        let w = u64::from_le_bytes(c.try_into().unwrap_or_default());
        // Every octet's class at once (bit 6 of an octet is bit 5 of the
        // same octet of `w >> 1`).
        let k = w & 0x1f1f_1f1f_1f1f_1f1f | (w >> 1) & 0x2020_2020_2020_2020;
        for j in 0..8 {
            set |= 1 << (k >> (8 * j) & 63);
        }
    }
    set | classes(words.remainder())
}

/// The class of an octet in a 64-bit set: its low five bits, and whether
/// it is a letter or one of `@[\]^_` and `` `{|}~ `` (bit 6): digits and
/// punctuation apart from letters, a letter's two cases together.
#[inline(always)]
pub(super) fn class(o: u8) -> u32 {
    u32::from(o & 0x1f | (o >> 1) & 0x20)
}

/// The set of the classes of `octets` (see [`class`]).
pub(crate) fn classes(octets: &[u8]) -> u64 {
    octets.iter().fold(0u64, |set, &o| set | 1 << class(o))
}

/// [`star_need_at`] wherever the first `*` is (`0` without one): what
/// the tests hold the parse's list to.
#[cfg(test)]
pub(super) fn star_need(pattern: &[u8]) -> u64 {
    let body = match pattern.split_last() {
        Some((b'$', rest)) => rest,
        _ => pattern,
    };
    match memchr::memchr(b'*', body) {
        Some(star) => star_need_at(pattern, star),
        None => 0,
    }
}

/// The classes of the literal octets after the first `*` of a pattern,
/// at `star` (as its keys tell; a final `$` is no literal): each occurs in
/// a subject the pattern matches, so a subject lacking one of their
/// classes is not searched. `0` when nothing literal follows.
// Only the owned `Policy` keeps them; a heapless-only build has no caller.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) fn star_need_at(pattern: &[u8], star: usize) -> u64 {
    let body = match pattern.split_last() {
        Some((b'$', rest)) => rest,
        _ => pattern,
    };
    debug_assert_eq!(memchr::memchr(b'*', body), Some(star));
    classes_of_target(body.get(star..).unwrap_or_default()) & !(1 << class(b'*'))
}

/// The octets present in a long subject. Every literal octet of a pattern
/// that matches occurs in the subject (each segment does), so a pattern
/// whose segment after a `*` starts with an octet the subject lacks is
/// rejected without searching the subject: with many `*` rules and a long
/// target, those searches were the whole cost (one scan of the target per
/// rule); this is one scan in all, then one look-up per `*`. Only a
/// filter: a pattern it lets through is matched as before, so the worst
/// case stays O(path x pattern) and allocation-free.
#[derive(Clone, Copy)]
pub(super) struct ByteSet([u64; 4]);

impl ByteSet {
    /// Targets shorter than this are searched directly: the scans are cheap.
    pub(super) const MIN_SUBJECT: usize = 256;

    /// The set of a slice subject of at least [`ByteSet::MIN_SUBJECT`] octets.
    pub(super) fn of(subject: Subj<'_>) -> Option<ByteSet> {
        let Subj::Slice(s) = subject else {
            return None;
        };
        if s.len() < ByteSet::MIN_SUBJECT {
            return None;
        }
        let mut set = [0u64; 4];
        for &o in s {
            set[usize::from(o >> 6)] |= 1 << (o & 63);
        }
        Some(ByteSet(set))
    }

    pub(super) fn has(&self, o: u8) -> bool {
        self.0[usize::from(o >> 6)] >> (o & 63) & 1 != 0
    }
}

/// The first octet of every segment after a `*` of `pattern` that the
/// matcher searches for (all but an anchored last one, which it compares
/// with the end of the subject): each must occur in a subject the pattern
/// matches.
pub(super) fn after_stars(pattern: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let body = match pattern.split_last() {
        Some((b'$', rest)) => match memchr::memrchr(b'*', rest) {
            Some(last) => &rest[..last],
            None => &[],
        },
        _ => pattern,
    };
    // A long literal start is skipped at memchr speed; from the first `*`
    // on, one pass over pairs of octets (a `memchr` call per `*` cost more
    // than the look-ups on patterns dense with `*`).
    let from = memchr::memchr(b'*', body).unwrap_or(body.len());
    body[from..]
        .windows(2)
        .filter(|w| w[0] == b'*' && w[1] != b'*')
        .map(|w| w[1])
}

/// A [`ByteSet`] built the first time a pattern with a `*` asks for it.
#[derive(Clone, Copy)]
pub(super) struct LazySet {
    bytes: Option<Option<ByteSet>>,
    /// The [`classes`] of the subject's octets, once a pattern asked.
    classes: Option<u64>,
}

impl LazySet {
    pub(super) const NEW: LazySet = LazySet {
        bytes: None,
        classes: None,
    };

    /// Whether the subject (the one this set is of) holds every class of
    /// `need`. The classes of a subject are gathered the first time a rule
    /// asks, in one pass of eight octets at a time; a rule with a `*` early
    /// in it, which every key admits (`/*.pdf`, `*/calendar/*atom*`), is
    /// then passed over with one test when the target lacks one of its
    /// octets, instead of a search of the target. Only a filter: what it
    /// lets through is matched as before.
    #[inline]
    pub(super) fn has_classes(&mut self, need: u64, subject: Subj<'_>) -> bool {
        let set = *self.classes.get_or_insert_with(|| match subject {
            Subj::Slice(s) => classes_of_target(s),
            // A target too long for any copy: not worth a pass of its own.
            Subj::View(_) => u64::MAX,
        });
        need & !set == 0
    }

    /// Whether `pattern` may match `subject` (the subject this set is of):
    /// `false` only when some segment after a `*` starts with an octet
    /// the subject lacks.
    // The settled answer inlined (but in wasm32, for its size budget): it
    // is asked for every rule the keys admit.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn may_match(&mut self, pattern: &[u8], subject: Subj<'_>) -> bool {
        // A short target (nearly all) is searched directly: settled once,
        // before any look at the pattern.
        if matches!(self.bytes, Some(None)) {
            return true;
        }
        self.may_match_unsettled(pattern, subject)
    }

    /// [`LazySet::may_match`] before a short target has settled it.
    #[inline(never)]
    fn may_match_unsettled(&mut self, pattern: &[u8], subject: Subj<'_>) -> bool {
        if !matches!(subject, Subj::Slice(s) if s.len() >= ByteSet::MIN_SUBJECT) {
            self.bytes = Some(None);
            return true;
        }
        let mut firsts = after_stars(pattern).peekable();
        if firsts.peek().is_none() {
            return true;
        }
        let set = *self.bytes.get_or_insert_with(|| ByteSet::of(subject));
        match set {
            Some(set) => firsts.all(|b| set.has(b)),
            None => true,
        }
    }
}
