//! Fixed-capacity robots.txt evaluation with no allocator (`heapless`).
//!
//! [`FixedPolicy`] streams a body through the same lexer, grouper and
//! selectors as the allocating model and keeps only the rules some reading
//! may select, in `RULES` slots and `BYTES` octets per set (the named set
//! and the `*` set are kept apart until the end of the file decides which
//! applies in each reading). Every [`Reading`](super::Reading) is answered,
//! as by [`Policy`](super::Policy).
//!
//! When a capacity is exceeded the policy over-blocks, never under-blocks
//! (R2c), and says so through [`FixedPolicy::overflowed`] and
//! [`Verdict::overflow`]:
//!
//! * an Allow that does not fit (every form of it that differs from the
//!   canonical one included) is dropped (dropping an Allow can only deny
//!   more);
//! * a Disallow that does not fit whole is cut to what fits, keeping the
//!   precedence of its full length: the cut pattern matches every path the
//!   full one matched, at least as strongly (when its forms differ, each is
//!   kept, cut to a share of the room);
//! * a Disallow with no slot left at all makes its set deny everything;
//! * a request target whose normalised form is longer than 1 KiB is matched
//!   on a lazy view instead of a copy: slower, never another answer.

use super::group::{events, RawRule, SelectSink, Selecting, Selection};
use super::group::{GOOGLE_GLOBAL, GOOGLE_NAMED, SPEC_GLOBAL, SPEC_NAMED};
use super::variant::Variant;
use super::{
    decide, decide_form, limit, CrawlDelay, Form, Head, Key, RuleKind, RuleSet, RuleView, Verdict,
};
use super::{IN_GOOGLE, IN_SPEC};
use crate::percent::{self, RulePlace};
use heapless::Vec;

type Span = (u32, u32);

#[derive(Debug, Clone, Copy)]
struct FixedRule {
    kind: RuleKind,
    line: u32,
    spec: Span,
    rfc: Span,
    google: Span,
    /// Candidate sets (see `group`) the rule belongs to.
    sets: u8,
    /// Cut short (long line, 500 KiB limit, or capacity); `floor` is then
    /// the longest whole form, below which it never ranks.
    cut: bool,
    floor: u32,
}

/// The three forms of a value, by reading.
fn form(which: Form, value: &[u8], out: &mut dyn FnMut(u8)) {
    match which {
        Form::Spec => percent::normalize_byte_stream(value, out),
        Form::Rfc => percent::rfc_form(value, out),
        Form::Google => percent::google_form(value, out),
    }
}

fn form_len(which: Form, value: &[u8]) -> usize {
    let mut n = 0;
    form(which, value, &mut |_| n += 1);
    n
}

/// Whether a value's form `which` is its canonical form, octet for octet.
fn same_as_canonical(which: Form, value: &[u8]) -> bool {
    let mut canonical = percent::Normalized::new(value);
    let mut agree = true;
    form(which, value, &mut |b| {
        agree &= canonical.next_byte() == Some(b)
    });
    agree && canonical.next_byte().is_none()
}

#[derive(Debug, Clone)]
struct FixedSet<const RULES: usize, const BYTES: usize> {
    rules: Vec<FixedRule, RULES>,
    arena: Vec<u8, BYTES>,
    /// Crawl-delay of each candidate set, by bit position.
    delays: [Option<CrawlDelay>; 4],
    /// Candidate sets that must deny everything (a Disallow found no slot).
    deny_all: u8,
    /// Candidate sets that lost something to a capacity.
    lossy: u8,
    /// Candidate sets with a rule whose octet a `*` may carry into a
    /// target's query (`percent::rule_place`).
    query_placed: u8,
}

impl<const RULES: usize, const BYTES: usize> FixedSet<RULES, BYTES> {
    const fn new() -> Self {
        FixedSet {
            rules: Vec::new(),
            arena: Vec::new(),
            delays: [None; 4],
            deny_all: 0,
            lossy: 0,
            query_placed: 0,
        }
    }

    /// Empties the set in place, as [`FixedSet::new`] makes it.
    fn clear(&mut self) {
        self.rules.clear();
        self.arena.clear();
        self.delays = [None; 4];
        self.deny_all = 0;
        self.lossy = 0;
        self.query_placed = 0;
    }

    fn get(&self, span: Span) -> &[u8] {
        let (s, n) = (span.0 as usize, span.1 as usize);
        self.arena.get(s..s + n).unwrap_or_default()
    }

    /// Appends up to `max` octets of form `which` of `value`.
    fn push_form(&mut self, max: usize, which: Form, value: &[u8]) -> Span {
        let start = self.arena.len();
        let mut total = 0usize;
        let arena = &mut self.arena;
        form(which, value, &mut |b| {
            if total < max {
                // Cannot fail: `max` is within the room left.
                let _ = arena.push(b);
            }
            total += 1;
        });
        (start as u32, (self.arena.len() - start) as u32)
    }

    /// Appends up to `max` octets of a Disallow form as a prefix pattern,
    /// which matches every path the full form matches.
    fn push_cut(&mut self, max: usize, which: Form, value: &[u8]) -> Span {
        let mut span = self.push_form(max, which, value);
        // A cut pattern must not stay anchored: its `$` is gone with the
        // cut, so it matches as a prefix (a superset of the original). A
        // `$` the cut leaves at the end was literal in the full value
        // (`/a$b` cut to `/a$`) and would now anchor: drop it as well, and
        // the one before it (`/a$$b` cut to `/a$$`).
        while self.get(span).last() == Some(&b'$') {
            span.1 -= 1;
        }
        self.arena.truncate(span.0 as usize + span.1 as usize);
        span
    }

    fn add(&mut self, r: RawRule<'_>, sets: u8) {
        match percent::rule_place(r.value) {
            RulePlace::Settled => {}
            // No form of a target meets such a Disallow in both its
            // places: its sets deny everything, as when there is no room
            // for one.
            RulePlace::BothSides if r.kind == RuleKind::Disallow => {
                self.deny_all |= sets;
                return;
            }
            _ => self.query_placed |= sets,
        }
        if self.rules.is_full() {
            match r.kind {
                RuleKind::Allow => self.lossy |= sets,
                RuleKind::Disallow => self.deny_all |= sets,
            }
            return;
        }
        let spec_len = form_len(Form::Spec, r.value);
        let rfc_same = same_as_canonical(Form::Rfc, r.value);
        let google_same = same_as_canonical(Form::Google, r.value);
        let rfc_len = form_len(Form::Rfc, r.value);
        let google_len = form_len(Form::Google, r.value);
        let needed = spec_len
            + if rfc_same { 0 } else { rfc_len }
            + if google_same { 0 } else { google_len };
        let room = BYTES - self.arena.len();
        let floor = spec_len
            .max(rfc_len)
            .max(google_len)
            .max(r.cut_from.unwrap_or(0));
        let (spec, rfc, google, cut) = if needed <= room {
            let spec = self.push_form(spec_len, Form::Spec, r.value);
            let rfc = if rfc_same {
                spec
            } else {
                self.push_form(rfc_len, Form::Rfc, r.value)
            };
            let google = if google_same {
                spec
            } else {
                self.push_form(google_len, Form::Google, r.value)
            };
            (spec, rfc, google, r.cut_from.is_some())
        } else {
            self.lossy |= sets;
            if r.kind == RuleKind::Allow {
                return;
            }
            // Each distinct form gets a share of the room; a cut form
            // matches more in its own reading, and ranks at `floor`.
            let extra = usize::from(!rfc_same) + usize::from(!google_same);
            let share = room / (1 + extra);
            let spec = self.push_cut(room - share * extra, Form::Spec, r.value);
            let rfc = if rfc_same {
                spec
            } else {
                self.push_cut(share, Form::Rfc, r.value)
            };
            let google = if google_same {
                spec
            } else {
                self.push_cut(share, Form::Google, r.value)
            };
            (spec, rfc, google, true)
        };
        // Cannot fail: checked `is_full` above.
        let _ = self.rules.push(FixedRule {
            kind: r.kind,
            line: r.line,
            spec,
            rfc,
            google,
            sets,
            cut,
            floor: floor as u32,
        });
    }

    /// Drops candidate set `set` (a longer named match replaced it), and
    /// the rules only it held, reclaiming their octets.
    fn drop_set(&mut self, set: u8) {
        self.delays[set.trailing_zeros() as usize & 3] = None;
        self.deny_all &= !set;
        self.lossy &= !set;
        self.query_placed &= !set;
        let mut write = 0usize;
        let mut kept = 0usize;
        for i in 0..self.rules.len() {
            let mut r = self.rules[i];
            r.sets &= !set;
            if r.sets == 0 {
                continue;
            }
            // A rule's forms sit together, in the order rules were added.
            let start = r.spec.0.min(r.rfc.0).min(r.google.0) as usize;
            let end = [r.spec, r.rfc, r.google]
                .iter()
                .map(|s| (s.0 + s.1) as usize)
                .max()
                .unwrap_or(start);
            self.arena.copy_within(start..end, write);
            let shift = |s: &mut Span| s.0 = s.0 - start as u32 + write as u32;
            shift(&mut r.spec);
            shift(&mut r.rfc);
            shift(&mut r.google);
            write += end - start;
            self.rules[kept] = r;
            kept += 1;
        }
        self.rules.truncate(kept);
        self.arena.truncate(write);
    }
}

/// The selected rules of both sets, as the evaluator sees them.
#[derive(Clone, Copy)]
struct Chosen<'s, const RULES: usize, const BYTES: usize> {
    named: &'s FixedSet<RULES, BYTES>,
    global: &'s FixedSet<RULES, BYTES>,
    sets: u8,
    spec_set: u8,
    google_set: u8,
}

impl<'s, const RULES: usize, const BYTES: usize> Chosen<'s, RULES, BYTES> {
    fn at(self, i: usize) -> Option<(&'s FixedSet<RULES, BYTES>, &'s FixedRule)> {
        let n = self.named.rules.len();
        if i < n {
            Some((self.named, &self.named.rules[i]))
        } else {
            self.global.rules.get(i - n).map(|r| (self.global, r))
        }
    }
}

/// Stack octets a percent-encoded request target may take while it is
/// matched (see `decide`): small, for targets without much stack.
const FIXED_SCRATCH: usize = 1024;

impl<'s, const RULES: usize, const BYTES: usize> RuleSet<'s> for Chosen<'s, RULES, BYTES> {
    fn len(self) -> usize {
        self.named.rules.len() + self.global.rules.len()
    }

    fn has_alt(self, which: Form) -> bool {
        let differs = |r: &FixedRule| match which {
            Form::Spec => false,
            Form::Rfc => r.rfc != r.spec,
            Form::Google => r.google != r.spec,
        };
        self.named.rules.iter().any(differs) || self.global.rules.iter().any(differs)
    }

    fn admits(self, i: usize, which: Form, head: &Head) -> bool {
        let Some((set, r)) = self.at(i) else {
            return false;
        };
        if r.sets & self.sets == 0 {
            return false;
        }
        // No key is kept per rule, so that the size of a policy stays what
        // its capacities say; the pattern's first octets are at hand anyway.
        let span = match which {
            Form::Spec => r.spec,
            Form::Rfc => r.rfc,
            Form::Google => r.google,
        };
        let pattern = set.get(span);
        (r.cut && pattern.is_empty()) || head.admits1(Key::of_pattern(pattern))
    }

    fn view(self, i: usize) -> RuleView<'s> {
        let Some((set, r)) = self.at(i) else {
            // Not reached: the evaluator asks only for i < len.
            return RuleView {
                kind: RuleKind::Disallow,
                line: 0,
                text: &[],
                spec: &[],
                rfc: &[],
                rfc_same: true,
                google: &[],
                google_same: true,
                readings: IN_SPEC | IN_GOOGLE,
                cut: true,
                floor: usize::MAX,
                literal: false,
            };
        };
        let readings = (if r.sets & self.spec_set != 0 {
            IN_SPEC
        } else {
            0
        }) | (if r.sets & self.google_set != 0 {
            IN_GOOGLE
        } else {
            0
        });
        RuleView {
            kind: r.kind,
            line: r.line,
            text: set.get(r.spec),
            spec: set.get(r.spec),
            rfc: set.get(r.rfc),
            rfc_same: r.rfc == r.spec,
            google: set.get(r.google),
            google_same: r.google == r.spec,
            readings,
            cut: r.cut,
            floor: r.floor as usize,
            literal: false,
        }
    }
}

/// The rules of one product token in fixed capacity: at most `RULES` rules
/// and `BYTES` octets of patterns for each of the named and `*` sets.
#[derive(Debug, Clone)]
pub struct FixedPolicy<const RULES: usize, const BYTES: usize> {
    named: FixedSet<RULES, BYTES>,
    global: FixedSet<RULES, BYTES>,
    spec_set: u8,
    google_set: u8,
    /// Another [`Variant`] may read the file otherwise (issue #18).
    diverged: bool,
}

const NAMED: u8 = SPEC_NAMED | GOOGLE_NAMED;
const GLOBAL: u8 = SPEC_GLOBAL | GOOGLE_GLOBAL;

struct Sink<'p, const RULES: usize, const BYTES: usize>(&'p mut FixedPolicy<RULES, BYTES>);

impl<'a, const RULES: usize, const BYTES: usize> SelectSink<'a> for Sink<'_, RULES, BYTES> {
    fn reset_named(&mut self, set: u8) {
        self.0.named.drop_set(set);
    }
    fn rule(&mut self, sets: u8, rule: RawRule<'a>) {
        // An escape RESERVED_ESCAPES decodes (`%2F`...) in a rule: that
        // reading would need a second rule set (see `Variant`).
        if percent::has_reserved_escape(rule.value) {
            self.0.diverged = true;
        }
        if sets & NAMED != 0 {
            self.0.named.add(rule, sets & NAMED);
        }
        if sets & GLOBAL != 0 {
            self.0.global.add(rule, sets & GLOBAL);
        }
    }
    fn crawl_delay(&mut self, sets: u8, delay: CrawlDelay) {
        for set in [SPEC_NAMED, SPEC_GLOBAL, GOOGLE_NAMED, GOOGLE_GLOBAL] {
            if sets & set != 0 {
                let target = if set & NAMED != 0 {
                    &mut self.0.named
                } else {
                    &mut self.0.global
                };
                let d = &mut target.delays[set.trailing_zeros() as usize & 3];
                *d = (*d).max(Some(delay));
            }
        }
    }
}

impl<const RULES: usize, const BYTES: usize> Default for FixedPolicy<RULES, BYTES> {
    fn default() -> Self {
        FixedPolicy {
            named: FixedSet::new(),
            global: FixedSet::new(),
            spec_set: SPEC_GLOBAL,
            google_set: GOOGLE_GLOBAL,
            diverged: false,
        }
    }
}

impl<const RULES: usize, const BYTES: usize> FixedPolicy<RULES, BYTES> {
    /// Parses `body` for `token`, keeping only the selected rules.
    pub fn parse(body: &[u8], token: &str) -> Self {
        let mut policy = Self::default();
        policy.parse_in_place(body, token);
        policy
    }

    /// [`FixedPolicy::parse`] into `self`, replacing what it held, with no
    /// temporary copy of the policy: for callers whose stack cannot hold a
    /// second one (the policy lives in static or caller-provided storage).
    pub fn parse_in_place(&mut self, body: &[u8], token: &str) {
        for set in [&mut self.named, &mut self.global] {
            set.clear();
        }
        self.diverged = false;
        let limited = limit(body);
        let mut selection = Selection::new(token.as_bytes());
        let (spec_set, google_set, lexed) = {
            let mut sink = Sink(self);
            let lexed = events(
                limited.head,
                limited.tail,
                Variant::BASE,
                Selecting {
                    selection: &mut selection,
                    sink: &mut sink,
                },
            );
            let (spec, google) = selection.finish(&mut sink);
            (spec, google, lexed)
        };
        self.spec_set = spec_set;
        self.google_set = google_set;
        // No room for a second set of rules: a file another reading of
        // whose text may select otherwise is over-blocked, and says so.
        self.diverged |= (lexed | selection.diverges) != 0;
    }

    fn chosen(&self) -> Chosen<'_, RULES, BYTES> {
        Chosen {
            named: &self.named,
            global: &self.global,
            sets: self.spec_set | self.google_set,
            spec_set: self.spec_set,
            google_set: self.google_set,
        }
    }

    fn flags(&self, f: impl Fn(&FixedSet<RULES, BYTES>) -> u8) -> bool {
        (f(&self.named) | f(&self.global)) & (self.spec_set | self.google_set) != 0
    }

    /// Whether a capacity was exceeded for the selected rules, so answers may
    /// over-block.
    pub fn overflowed(&self) -> bool {
        self.diverged || self.flags(|s| s.deny_all | s.lossy)
    }

    /// The selected Crawl-delay: the largest any reading selected.
    pub fn crawl_delay(&self) -> Option<CrawlDelay> {
        let of = |set: u8| {
            let s = if set & NAMED != 0 {
                &self.named
            } else {
                &self.global
            };
            s.delays[set.trailing_zeros() as usize & 3]
        };
        of(self.spec_set).max(of(self.google_set))
    }

    /// Number of rules kept for the selected sets.
    pub fn rule_count(&self) -> usize {
        let sets = self.spec_set | self.google_set;
        self.named
            .rules
            .iter()
            .chain(self.global.rules.iter())
            .filter(|r| r.sets & sets != 0)
            .count()
    }

    /// Decides `path_and_query`; see [`crate::robots::Policy::check`].
    pub fn check(&self, path_and_query: &str) -> Verdict<'_> {
        self.check_bytes(path_and_query.as_bytes())
    }

    /// [`FixedPolicy::check`] on raw octets (a request target need not be
    /// UTF-8), as [`crate::robots::Policy::check_bytes`] is for `Policy`.
    pub fn check_bytes(&self, path_and_query: &[u8]) -> Verdict<'_> {
        if self.diverged || self.flags(|s| s.deny_all) {
            return over_block(Variant::BASE);
        }
        let mut v = decide::<_, FIXED_SCRATCH>(self.chosen(), path_and_query);
        if v.allowed && self.flags(|s| s.query_placed) {
            v = self.check_as_path(path_and_query).unwrap_or(v);
        }
        if v.allowed && percent::has_reserved_escape(path_and_query) {
            v = self.check_reserved(path_and_query);
        }
        v.overflow = !v.allowed && self.flags(|s| s.lossy);
        v
    }

    /// The form of the target with its query's octets as a path holds them
    /// (`percent::query_as_path`), on the stack; one too long for it is
    /// denied, as an overflow. `None` when the query holds none of them or
    /// that reading allows it.
    fn check_as_path(&self, path_and_query: &[u8]) -> Option<Verdict<'_>> {
        let mut buf = [0u8; FIXED_SCRATCH];
        let mut changed = false;
        let n = percent::gather(&mut buf, |out| {
            changed = percent::query_as_path(path_and_query, out);
        });
        if !changed {
            return None;
        }
        let Some(n) = n else {
            return Some(over_block(Variant::BASE));
        };
        let v = decide_form(self.chosen(), &buf[..n]);
        (!v.allowed).then_some(v)
    }

    /// The target with escapes such as `%2F` read as their octets (the
    /// RESERVED_ESCAPES reading of `Variant`), decoded on the stack; one
    /// too long for it is denied, as an overflow.
    fn check_reserved(&self, path_and_query: &[u8]) -> Verdict<'_> {
        let mut buf = [0u8; FIXED_SCRATCH];
        let reserved = Variant::BASE.with(Variant::RESERVED_ESCAPES);
        let Some(n) = percent::gather(&mut buf, |out| {
            percent::decode_reserved(path_and_query, out)
        }) else {
            return over_block(reserved);
        };
        let decoded = &buf[..n];
        let v = decide::<_, FIXED_SCRATCH>(self.chosen(), decoded);
        let v = if v.allowed && self.flags(|s| s.query_placed) {
            self.check_as_path(decoded).unwrap_or(v)
        } else {
            v
        };
        Verdict {
            variant: if v.allowed { Variant::BASE } else { reserved },
            ..v
        }
    }
}

/// A denial that is a deliberate over-block: what a capacity could not
/// hold (`variant`: the reading that would have needed it).
fn over_block(variant: Variant) -> Verdict<'static> {
    Verdict {
        allowed: false,
        rule: None,
        reading: super::Reading::Spec,
        overflow: true,
        variant,
    }
}
