//! Fixed-capacity robots.txt evaluation with no allocator (`heapless`).
//!
//! [`FixedPolicy`] streams a body through the same lexer, grouper and
//! selector as the allocating model and keeps only the selected rules, in
//! `RULES` slots and `BYTES` octets per set (the named set and the `*` set
//! are kept apart until the end of the file decides which applies).
//!
//! When a capacity is exceeded the policy over-blocks, never under-blocks
//! (R2c), and says so through [`FixedPolicy::overflowed`] and
//! [`Verdict::overflow`]:
//!
//! * an Allow that does not fit (both of its forms, when its canonical and
//!   Google's forms differ) is dropped (dropping an Allow can only deny
//!   more);
//! * a Disallow that does not fit whole is cut to what fits, keeping the
//!   precedence of its full length: the cut pattern matches every path the
//!   full one matched, with the same strength (when its two forms differ,
//!   both are kept, each cut to a share of the room);
//! * a Disallow with no slot left at all makes the set deny everything.

use super::group::{events, RawRule, SelectSink, Selector};
use super::{decide, limit, CrawlDelay, Key, RuleKind, RuleSet, RuleView, Verdict};
use crate::percent;
use heapless::Vec;

#[derive(Debug, Clone, Copy)]
struct FixedRule {
    kind: RuleKind,
    line: u32,
    spec: (u32, u32),
    google: (u32, u32),
    priority: u32,
    google_priority: u32,
    match_all: bool,
}

#[derive(Debug, Clone)]
struct FixedSet<const RULES: usize, const BYTES: usize> {
    rules: Vec<FixedRule, RULES>,
    arena: Vec<u8, BYTES>,
    delay: Option<CrawlDelay>,
    deny_all: bool,
    lossy: bool,
}

impl<const RULES: usize, const BYTES: usize> FixedSet<RULES, BYTES> {
    const fn new() -> Self {
        FixedSet {
            rules: Vec::new(),
            arena: Vec::new(),
            delay: None,
            deny_all: false,
            lossy: false,
        }
    }

    fn get(&self, span: (u32, u32)) -> &[u8] {
        let (s, n) = (span.0 as usize, span.1 as usize);
        self.arena.get(s..s + n).unwrap_or_default()
    }

    /// Appends up to `max` octets produced by `f`; returns the span kept and
    /// the full length `f` produced.
    fn push_form(&mut self, max: usize, f: impl FnOnce(&mut dyn FnMut(u8))) -> ((u32, u32), usize) {
        let start = self.arena.len();
        let mut total = 0usize;
        let arena = &mut self.arena;
        f(&mut |b| {
            if total < max && arena.push(b).is_ok() {
                // kept
            }
            total += 1;
        });
        let kept = self.arena.len() - start;
        ((start as u32, kept as u32), total)
    }

    /// Appends up to `max` octets of a Disallow form as a prefix pattern,
    /// which matches every path the full form matches.
    fn push_cut(&mut self, max: usize, f: impl FnOnce(&mut dyn FnMut(u8))) -> (u32, u32) {
        let (mut span, _) = self.push_form(max, f);
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

    fn add(&mut self, r: RawRule<'_>) {
        let dollar = r.implied_dir;
        let form = |google: bool, out: &mut dyn FnMut(u8)| {
            if google {
                percent::google_form(r.value, &mut *out);
            } else {
                percent::normalize_byte_stream(r.value, &mut *out);
            }
            if dollar {
                out(b'$');
            }
        };
        let mut spec_len = 0usize;
        form(false, &mut |_| spec_len += 1);
        let mut google_len = 0usize;
        form(true, &mut |_| google_len += 1);
        let cut = r.cut_from.unwrap_or(0);
        let room = BYTES - self.arena.len();
        if self.rules.is_full() {
            match r.kind {
                RuleKind::Allow => self.lossy = true,
                RuleKind::Disallow => self.deny_all = true,
            }
            return;
        }
        let mark = self.arena.len();
        let (spec, google) = if spec_len + google_len <= room {
            let (spec, _) = self.push_form(spec_len, |o| form(false, o));
            let (google, _) = self.push_form(google_len, |o| form(true, o));
            if self.get(google) == self.get(spec) {
                self.arena.truncate(mark + spec.1 as usize);
                (spec, spec)
            } else {
                (spec, google)
            }
        } else if forms_agree(r.value) {
            self.lossy = true;
            if spec_len <= room {
                let (spec, _) = self.push_form(spec_len, |o| form(false, o));
                (spec, spec)
            } else {
                if r.kind == RuleKind::Allow {
                    return;
                }
                let spec = self.push_cut(room, |o| form(false, o));
                (spec, spec)
            }
        } else {
            // The readings differ, and each form matches paths the other
            // does not: one form standing in for both could let an Allow
            // win, or a Disallow miss, in the other reading. An Allow is
            // dropped; a Disallow keeps both forms, each cut to its share
            // of the room (a cut form matches more in its own reading).
            self.lossy = true;
            if r.kind == RuleKind::Allow {
                return;
            }
            let google_share = google_len.min(room / 2);
            let spec_share = spec_len.min(room - google_share);
            let google_share = google_len.min(room - spec_share);
            let spec = self.push_cut(spec_share, |o| form(false, o));
            let google = self.push_cut(google_share, |o| form(true, o));
            (spec, google)
        };
        let truncated = (spec.1 as usize) < spec_len;
        let rule = FixedRule {
            kind: r.kind,
            line: r.line,
            spec,
            google,
            priority: spec_len.max(cut) as u32,
            google_priority: google_len.max(cut) as u32,
            match_all: truncated && spec.1 == 0,
        };
        // Cannot fail: checked `is_full` above.
        let _ = self.rules.push(rule);
    }
}

/// Stack octets a percent-encoded request target may take while it is
/// matched (see `decide`): small, for targets without much stack.
const FIXED_SCRATCH: usize = 1024;

impl<'s, const RULES: usize, const BYTES: usize> RuleSet<'s> for &'s FixedSet<RULES, BYTES> {
    fn len(self) -> usize {
        self.rules.len()
    }

    fn admits(self, i: usize, google: bool, head: Key) -> bool {
        let Some(r) = self.rules.get(i) else {
            return false;
        };
        // No key is kept per rule, so that the size of a policy stays what
        // its capacities say; the pattern's first octets are at hand anyway.
        let form = if google { r.google } else { r.spec };
        r.match_all || Key::of_pattern(self.get(form)).admits(head)
    }

    fn view(self, i: usize) -> RuleView<'s> {
        let r = &self.rules[i];
        RuleView {
            kind: r.kind,
            line: r.line,
            text: self.get(r.spec),
            spec: self.get(r.spec),
            google: self.get(r.google),
            priority: r.priority as usize,
            google_priority: r.google_priority as usize,
            match_all: r.match_all,
        }
    }
}

/// Whether a value's canonical form and Google's form are the same octets.
fn forms_agree(value: &[u8]) -> bool {
    let mut canonical = percent::Normalized::new(value);
    let mut agree = true;
    percent::google_form(value, |b| agree &= canonical.next_byte() == Some(b));
    agree && canonical.next_byte().is_none()
}

/// The rules of one product token in fixed capacity: at most `RULES` rules
/// and `BYTES` octets of patterns for each of the named and `*` sets.
#[derive(Debug, Clone)]
pub struct FixedPolicy<const RULES: usize, const BYTES: usize> {
    named: FixedSet<RULES, BYTES>,
    global: FixedSet<RULES, BYTES>,
    use_named: bool,
}

struct Sink<'p, const RULES: usize, const BYTES: usize>(&'p mut FixedPolicy<RULES, BYTES>);

impl<'a, const RULES: usize, const BYTES: usize> SelectSink<'a> for Sink<'_, RULES, BYTES> {
    fn reset_named(&mut self) {
        self.0.named = FixedSet::new();
    }
    fn rule(&mut self, named: bool, global: bool, rule: RawRule<'a>) {
        if named {
            self.0.named.add(rule);
        }
        if global {
            self.0.global.add(rule);
        }
    }
    fn crawl_delay(&mut self, named: bool, global: bool, delay: CrawlDelay) {
        if named {
            self.0.named.delay = self.0.named.delay.max(Some(delay));
        }
        if global {
            self.0.global.delay = self.0.global.delay.max(Some(delay));
        }
    }
}

impl<const RULES: usize, const BYTES: usize> Default for FixedPolicy<RULES, BYTES> {
    fn default() -> Self {
        FixedPolicy {
            named: FixedSet::new(),
            global: FixedSet::new(),
            use_named: false,
        }
    }
}

impl<const RULES: usize, const BYTES: usize> FixedPolicy<RULES, BYTES> {
    /// Parses `body` for `token`, keeping only the selected rules.
    pub fn parse(body: &[u8], token: &str) -> Self {
        let limited = limit(body);
        let mut policy = Self::default();
        let mut selector = Selector::new(token.as_bytes());
        {
            let mut sink = Sink(&mut policy);
            events(limited.head, limited.tail, |ev| {
                selector.event(ev, &mut sink)
            });
            selector.finish(&mut sink);
        }
        policy.use_named = selector.best > 0;
        let order = |a: &FixedRule, b: &FixedRule| {
            b.priority
                .cmp(&a.priority)
                .then_with(|| (a.kind == RuleKind::Disallow).cmp(&(b.kind == RuleKind::Disallow)))
        };
        policy.named.rules.sort_unstable_by(order);
        policy.global.rules.sort_unstable_by(order);
        policy
    }

    fn set(&self) -> &FixedSet<RULES, BYTES> {
        if self.use_named {
            &self.named
        } else {
            &self.global
        }
    }

    /// Whether a capacity was exceeded for the selected rules, so answers may
    /// over-block.
    pub fn overflowed(&self) -> bool {
        let s = self.set();
        s.deny_all || s.lossy
    }

    /// The selected Crawl-delay.
    pub fn crawl_delay(&self) -> Option<CrawlDelay> {
        self.set().delay
    }

    /// Number of rules kept for the selected set.
    pub fn rule_count(&self) -> usize {
        self.set().rules.len()
    }

    /// Decides `path_and_query`; see [`crate::robots::Policy::check`].
    pub fn check(&self, path_and_query: &str) -> Verdict<'_> {
        let set = self.set();
        if set.deny_all {
            return Verdict {
                allowed: false,
                rule: None,
                overflow: true,
            };
        }
        let has_alt = set.rules.iter().any(|r| r.google != r.spec);
        let mut v = decide::<_, FIXED_SCRATCH>(set, path_and_query.as_bytes(), true, has_alt);
        v.overflow = !v.allowed && set.lossy;
        v
    }
}
