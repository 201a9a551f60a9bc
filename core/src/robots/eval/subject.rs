//! A request target in the form one reading compares: a slice when it
//! needed no change or could be copied (to the stack, or to the heap where
//! there is one), else a lazy view that normalises as the matcher reads.

use super::*;

/// A request target in one form: a slice when it could be copied (or
/// needed no change), else a lazy view.
#[derive(Debug, Clone, Copy)]
pub(super) enum Subj<'s> {
    Slice(&'s [u8]),
    View(percent::Normalized<'s>),
}

impl matcher::Subject for Subj<'_> {
    #[inline]
    fn strip_prefix(self, seg: &[u8]) -> Option<Self> {
        match self {
            Subj::Slice(s) => s.strip_prefix(seg).map(Subj::Slice),
            Subj::View(v) => v.strip_prefix(seg).map(Subj::View),
        }
    }
    #[inline]
    fn find_after(self, seg: &[u8]) -> Option<Self> {
        match self {
            Subj::Slice(s) => matcher::Subject::find_after(s, seg).map(Subj::Slice),
            Subj::View(v) => v.find_after(seg).map(Subj::View),
        }
    }
    #[inline]
    fn ends_with(self, seg: &[u8]) -> bool {
        match self {
            Subj::Slice(s) => s.ends_with(seg),
            Subj::View(v) => v.ends_with(seg),
        }
    }
    #[inline]
    fn is_empty(self) -> bool {
        match self {
            Subj::Slice(s) => s.is_empty(),
            Subj::View(v) => matcher::Subject::is_empty(v),
        }
    }
    #[inline]
    fn rfind_after(self, seg: &[u8]) -> Option<Self> {
        match self {
            Subj::Slice(s) => matcher::Subject::rfind_after(s, seg).map(Subj::Slice),
            Subj::View(v) => v.rfind_after(seg).map(Subj::View),
        }
    }
    #[inline]
    fn remaining(self) -> usize {
        match self {
            Subj::Slice(s) => s.len(),
            Subj::View(v) => v.remaining(),
        }
    }
}

impl Subj<'_> {
    // A slice's head is two word loads and its table, inlined where speed
    // comes first (the targets of `BLOCKS_VECTORISE`); a view's is read an
    // octet at a time, out of line.
    #[cfg_attr(
        any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
        inline(always)
    )]
    pub(super) fn head(self) -> Head {
        match self {
            Subj::Slice(s) => Head::new(
                Key::of_slice(s),
                Key::of_slice(s.get(Key::MAX..).unwrap_or_default()),
            ),
            Subj::View(v) => view_head(v),
        }
    }
}

#[inline(never)]
fn view_head(mut v: percent::Normalized<'_>) -> Head {
    Head::new(
        Key::from_octets(core::iter::from_fn(move || v.next_byte())),
        Key::from_octets(core::iter::from_fn(move || v.next_byte()).skip(Key::MAX)),
    )
}

/// Normalised subjects up to this many octets are matched from a copy on
/// the stack, where the matcher's SIMD searches apply.
pub(super) const SMALL_SUBJECT: usize = 256;

/// Hands `f` the octets of `view`: copied to the stack when they fit in
/// `SCRATCH`, to the heap when longer and `heap` allows it, else the lazy
/// view itself. Matching a view costs up to O(path x segment) per `*`
/// segment; a copy makes it linear.
pub(super) fn with_subject<T, const SCRATCH: usize>(
    view: percent::Normalized<'_>,
    bound: usize,
    heap: bool,
    f: impl FnOnce(Subj<'_>) -> T,
) -> T {
    if bound <= SMALL_SUBJECT {
        // Short enough whatever it holds: filled and measured in one pass
        // (the counting pass cost as much as the copy).
        let mut buf = [0u8; SMALL_SUBJECT];
        let mut view = view;
        let len = view.fill(&mut buf[..bound]);
        return f(Subj::Slice(&buf[..len]));
    }
    let len = matcher::Subject::remaining(view);
    if len <= SMALL_SUBJECT {
        let mut buf = [0u8; SMALL_SUBJECT];
        f(Subj::Slice(fill(view, &mut buf[..len])))
    } else if len <= SCRATCH {
        with_large_copy::<T, SCRATCH>(view, len, f)
    } else {
        // A target this long is rare and costs a pass over every rule
        // anyway: one allocation is cheaper than the view's rescans.
        #[cfg(feature = "alloc")]
        if heap {
            let mut buf = alloc::vec![0u8; len];
            return f(Subj::Slice(fill(view, &mut buf)));
        }
        let _ = heap;
        f(Subj::View(view))
    }
}

// Kept out of line so that the common, short targets do not pay for a
// large stack frame.
#[inline(never)]
pub(super) fn with_large_copy<T, const SCRATCH: usize>(
    view: percent::Normalized<'_>,
    len: usize,
    f: impl FnOnce(Subj<'_>) -> T,
) -> T {
    let mut buf = [0u8; SCRATCH];
    f(Subj::Slice(fill(view, &mut buf[..len])))
}

pub(super) fn fill<'b>(mut view: percent::Normalized<'_>, buf: &'b mut [u8]) -> &'b [u8] {
    let _ = view.fill(buf);
    buf
}
