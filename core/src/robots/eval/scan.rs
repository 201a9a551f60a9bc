//! One pass over a request target before any rule is read: whether it is
//! its own form in every reading (most are), and whether it has a query.

use super::*;

/// What one pass over a request target finds: whether it is plain (its own
/// form in every reading, so `decide` judges it as it is) and whether it
/// holds a `?`. Half the targets of a feed bot carry a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scan {
    /// No `%`, no octet outside 0x21..=0x7A, and none of `"` `'` `` ` ``
    /// `<` `>`: a superset of what a form may change (the octets a sent
    /// URL never carries raw, see [`percent::never_raw`], and the ones
    /// encoded everywhere), taking `|` and `~` along because `{|}~` and DEL
    /// are one test that way; they are rare in paths and only cost the
    /// slower path.
    pub plain: bool,
    /// A `?` somewhere.
    pub query: bool,
}

impl Scan {
    /// Sixteen octets at a time, each block folded without an early exit
    /// so that it vectorises (the last block overlaps the one before it; a
    /// target of 8 to 15 octets is its first eight and its last eight, a
    /// shorter one is padded).
    // Inlined where it vectorises: called, its two flags cost a tenth of
    // the p50 check in time (docs/performance.md, "Issue #18, fourth
    // pass").
    #[cfg_attr(
        any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
        inline(always)
    )]
    pub(crate) fn of(t: &[u8]) -> Scan {
        // Every block is 16 octets; were one not, zeros would count it
        // not plain, which costs the slower path and nothing else.
        fn block(t: &[u8]) -> &[u8; 16] {
            t.try_into().unwrap_or(&[0; 16])
        }
        // Two reductions of lanes to one flag each (a movemask apiece).
        #[inline(always)]
        fn fold(block: &[u8; 16]) -> (bool, bool) {
            let (mut other, mut query) = (false, false);
            for &b in block {
                other |= !is_plain(b);
                query |= b == b'?';
            }
            (other, query)
        }
        if !crate::BLOCKS_VECTORISE {
            return Scan {
                plain: t.iter().all(|&b| is_plain(b)),
                query: t.contains(&b'?'),
            };
        }
        let or = |(a, b): (bool, bool), (c, d): (bool, bool)| (a | c, b | d);
        let (other, query) = match t.len() {
            0..=15 => {
                // A plain octet pads a short one; its octets are copied in
                // two pieces of a fixed size that overlap (an octet copied
                // twice is tested twice), never by a call to `memcpy`.
                let mut b = [b'/'; 16];
                let n = t.len();
                if n >= 8 {
                    b[..8].copy_from_slice(&t[..8]);
                    b[8..].copy_from_slice(&t[n - 8..]);
                } else if n >= 4 {
                    b[..4].copy_from_slice(&t[..4]);
                    b[4..8].copy_from_slice(&t[n - 4..]);
                } else if n > 0 {
                    (b[0], b[1], b[2]) = (t[0], t[n / 2], t[n - 1]);
                }
                fold(&b)
            }
            // Most targets: one or two blocks, no loop (a loop without an
            // exit is vectorised across blocks, an octet at a time).
            16..=32 => or(fold(block(&t[..16])), fold(block(&t[t.len() - 16..]))),
            _ => {
                let mut any = (false, false);
                let mut blocks = t.chunks_exact(16);
                for b in &mut blocks {
                    any = or(any, fold(block(b)));
                    if any.0 {
                        // Only a plain target's `?` is wanted exactly.
                        return Scan {
                            plain: false,
                            query: memchr::memchr(b'?', t).is_some(),
                        };
                    }
                }
                if !blocks.remainder().is_empty() {
                    any = or(any, fold(block(&t[t.len() - 16..])));
                }
                any
            }
        };
        Scan {
            plain: !other,
            query,
        }
    }
}

/// Whether `b` may be in a plain target (see [`Scan::plain`]).
#[inline(always)]
pub(super) fn is_plain(b: u8) -> bool {
    // Bitwise, not `&&`: branches would not vectorise. `%` or `'` (| 2 is
    // `'`), `<` or `>` (| 2 is `>`) are one test each.
    (b.wrapping_sub(0x21) < 0x5a) & (b | 2 != b'\'') & (b | 2 != b'>') & (b != b'"') & (b != b'`')
}

/// [`percent::rfc_differs`], with the `?` found in line (a target is short).
#[inline]
pub(super) fn rfc_differs(t: &[u8]) -> bool {
    match matcher::find_byte(b'?', t) {
        Some(q) => t[q + 1..].iter().any(|&b| percent::is_gen_delim(b)),
        None => false,
    }
}
