//! Keys: a pattern's first literal octets packed in an integer, and a
//! subject's [`Head`] table of them. A key comparison rejects nearly every
//! rule of a large file before the matcher or the arena is touched.

/// The first literal octets of a pattern (up to 7, before any `*` and a
/// final `$`) and their count in the top octet; or the same of a subject.
/// A pattern can only match a subject that starts with its key, so one
/// integer comparison rejects almost every rule of a large file before the
/// matcher (and the arena) is touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(u64);

impl Key {
    pub(crate) const MAX: usize = 7;

    pub(crate) fn from_octets(octets: impl Iterator<Item = u8>) -> Key {
        let mut k = 0u64;
        let mut n = 0u64;
        for b in octets.take(Key::MAX) {
            k |= u64::from(b) << (8 * n);
            n += 1;
        }
        Key(k | n << 56)
    }

    /// How many octets the key holds.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline]
    pub(crate) fn len(self) -> usize {
        (self.0 >> 56) as usize
    }

    /// The key of the first octets of `s` (up to 7).
    #[inline]
    pub(crate) fn of_slice(s: &[u8]) -> Key {
        // One word load when there are 8 octets (most targets).
        if let Some(c) = s.first_chunk::<8>() {
            return Key(u64::from_le_bytes(*c) & 0x00ff_ffff_ffff_ffff | 7 << 56);
        }
        let s = &s[..s.len().min(Key::MAX)];
        let mut k = 0u64;
        for (i, &b) in s.iter().enumerate() {
            k |= u64::from(b) << (8 * i);
        }
        Key(k | (s.len() as u64) << 56)
    }

    /// The key of a pattern as the matcher reads it.
    pub(crate) fn of_pattern(pattern: &[u8]) -> Key {
        let body = match pattern.split_last() {
            Some((b'$', rest)) => rest,
            _ => pattern,
        };
        // The first 7 octets as one word; the literal part ends at the
        // first `*` among them, found with the zero-octet trick on the
        // word XOR `*`s (exact for the lowest zero octet).
        let n = body.len().min(Key::MAX);
        // A direct 8-octet load when there are 8 (no copy through memory,
        // which would stall the load); the 8th octet is masked off below.
        let w = match body.first_chunk::<8>() {
            Some(c) => u64::from_le_bytes(*c),
            None => {
                let mut w = 0u64;
                for (i, &b) in body.iter().enumerate() {
                    w |= u64::from(b) << (8 * i);
                }
                w
            }
        };
        let x = w ^ 0x2a2a_2a2a_2a2a_2a2a;
        let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
        let star = (zero.trailing_zeros() / 8) as usize;
        let len = n.min(star);
        let mask = (1u64 << (8 * len)) - 1;
        Key(w & mask | (len as u64) << 56)
    }

    /// The second key of a pattern: octets 7 to 13 of its literal part
    /// (before any `*` and a final `$`), empty when that part is shorter.
    /// Many rules of a large file share their first 7 octets
    /// (`/html/A12345_01/`): the second key still tells them apart. The
    /// parse computes it with the first in [`Key::pair_of_pattern`]; this
    /// plain reading of it is what the tests hold that one to.
    #[cfg(test)]
    pub(crate) fn of_pattern_tail(pattern: &[u8]) -> Key {
        let body = match pattern.split_last() {
            Some((b'$', rest)) => rest,
            _ => pattern,
        };
        let Some(tail) = body.get(Key::MAX..) else {
            return Key::of_slice(&[]);
        };
        if body[..Key::MAX].contains(&b'*') {
            return Key::of_slice(&[]);
        }
        let tail = &tail[..tail.len().min(Key::MAX)];
        match tail.iter().position(|&b| b == b'*') {
            Some(i) => Key::of_slice(&tail[..i]),
            None => Key::of_slice(tail),
        }
    }

    /// [`Key::of_pattern`] and [`Key::of_pattern_tail`] at once, from two
    /// word loads: the parse computes both for every rule it keeps.
    // Only the owned `Policy` keeps two keys per rule; a heapless-only
    // build has no caller.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[cfg_attr(
        any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
        inline(always)
    )]
    pub(crate) fn pair_of_pattern(pattern: &[u8]) -> (Key, Key) {
        Key::pair_of_prefix(pattern, pattern.len())
    }

    /// [`Key::pair_of_pattern`] of `octets[..len]`, whose words may be
    /// loaded from the octets after it: a key keeps only the octets
    /// before its length, and a `*` is looked for among them only (the
    /// lowest is found, and lengths are cut to the pattern's). The parse
    /// has a value's octets in a window of the body (see
    /// `model::push_value`), and a word load there replaces an octet loop
    /// for the short values that most rules have.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[cfg_attr(
        any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
        inline(always)
    )]
    pub(crate) fn pair_of_prefix(octets: &[u8], len: usize) -> (Key, Key) {
        let len = len.min(octets.len());
        // The pattern's octets the keys may hold: a final `$` is none.
        let n = match len.checked_sub(1).map(|i| octets[i]) {
            Some(b'$') => len - 1,
            _ => len,
        }
        .min(2 * Key::MAX);
        let load = |at: usize| -> u64 {
            match octets.get(at..).and_then(|s| s.first_chunk::<8>()) {
                Some(c) => u64::from_le_bytes(*c),
                None => {
                    let mut w = 0u64;
                    for (i, &b) in octets.iter().skip(at).take(8).enumerate() {
                        w |= u64::from(b) << (8 * i);
                    }
                    w
                }
            }
        };
        // The first `*` of a word (8 when none), with the zero-octet trick
        // on the word XOR `*`s (exact for the lowest zero octet).
        let star = |w: u64| {
            let x = w ^ 0x2a2a_2a2a_2a2a_2a2a;
            let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
            (zero.trailing_zeros() / 8) as usize
        };
        let key = |w: u64, len: usize| {
            let mask = (1u64 << (8 * len)) - 1;
            Key(w & mask | (len as u64) << 56)
        };
        let w1 = load(0);
        let s1 = star(w1);
        if s1 < Key::MAX || n <= Key::MAX {
            // The literal part ends within the first key: no second one.
            return (key(w1, s1.min(n).min(Key::MAX)), key(0, 0));
        }
        let w2 = load(Key::MAX);
        let len2 = star(w2).min(n - Key::MAX).min(Key::MAX);
        (key(w1, Key::MAX), key(w2, len2))
    }

    /// Whether a pattern with this key may match a subject whose first
    /// octets are `head` (a necessary condition, never a sufficient one).
    /// The scans read it from the subject's [`Head`] table; this plain
    /// reading of it is what the tests hold that one to.
    #[cfg(test)]
    pub(crate) fn admits(self, head: Key) -> bool {
        let n = self.0 >> 56;
        let mask = (1u64 << (8 * n)) - 1;
        n <= head.0 >> 56 && (self.0 ^ head.0) & mask == 0
    }
}

/// The keys of a subject: of its first 7 octets, and of the 7 after them,
/// with, for each, the one key of every length that it admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head {
    pub k1: Key,
    pub k2: Key,
    /// `t1[n]`: the key of `n` octets that [`Key::admits`] `k1` (the
    /// subject's first `n` octets), or `u64::MAX`, which is no key, when
    /// `k1` holds fewer than `n`. A rule's key is then admitted when it
    /// equals the entry of its length: one load and one comparison per
    /// rule in the scans, instead of a mask built from the key's length.
    t1: [u64; 8],
}

impl Head {
    pub(crate) fn new(k1: Key, k2: Key) -> Head {
        Head {
            k1,
            k2,
            t1: Head::table(k1),
        }
    }

    /// For each key length, the key of that length that `head` admits
    /// (see [`Head::t1`]).
    #[inline]
    pub(crate) fn table(head: Key) -> [u64; 8] {
        let n = head.0 >> 56;
        core::array::from_fn(|len| {
            let len = len as u64;
            if len <= n {
                head.0 & ((1u64 << (8 * len)) - 1) | len << 56
            } else {
                u64::MAX
            }
        })
    }

    /// [`Key::admits`] of this subject's first key, from the table.
    #[inline(always)]
    pub(crate) fn admits1(&self, k1: Key) -> bool {
        self.t1[(k1.0 >> 56) as usize & 7] == k1.0
    }

    /// Whether a pattern with keys `k1` and `k2` (see
    /// [`Key::of_pattern_tail`]) may match this subject.
    // Only the owned `Policy` keeps two keys per rule; a heapless-only
    // build has no caller.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn admits(&self, k1: Key, k2: Key) -> bool {
        // The second key is read only for rules the first admits: a mask
        // from its length costs less there than a second table per query
        // (see [`Head::admits_with`] for large files).
        self.admits1(k1) && {
            let n = k2.0 >> 56;
            let mask = (1u64 << (8 * n)) - 1;
            n <= self.k2.0 >> 56 && (k2.0 ^ self.k2.0) & mask == 0
        }
    }

    /// [`Head::admits`] with `t2`, the [`Head::table`] of `k2`: in a large
    /// file many rules share their first 7 octets, and the table, built
    /// once per query, costs less than a mask per such rule.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn admits_with(&self, t2: &[u64; 8], k1: Key, k2: Key) -> bool {
        self.admits1(k1) && t2[(k2.0 >> 56) as usize & 7] == k2.0
    }
}
