//! The evaluator: a request target judged against a model's rules in every
//! [`Reading`] at once, allowed only if each allows (R2c).
//!
//! `decide` scans the target once ([`Scan`]) and hands the ones that are
//! their own form in every reading (nearly all: plain, or already in the
//! canonical form, and with no query delimiter that RFC 9309's form would
//! encode, or a file whose rules could not reach it) straight to
//! `evaluate_own`; the others get their forms first ([`subject`]).
//! `evaluate` walks the rules the keys admit ([`keys`]), lets the filters
//! ([`filter`]) pass over rules that cannot match, and weighs each match
//! in the readings it belongs to.

mod filter;
mod keys;
mod prefixes;
mod rules;
mod scan;
mod subject;
#[cfg(test)]
mod tests;

#[cfg(feature = "alloc")]
pub(crate) use filter::star_need_at;
pub(crate) use keys::{Head, Key};
pub(crate) use rules::{Form, RuleSet, RuleView};
pub(crate) use scan::Scan;

use filter::LazySet;
use scan::rfc_differs;
use subject::{with_subject, Subj};

use super::variant::Variant;
use super::{matcher, MatchedRule, Reading, RuleKind, Verdict, IN_GOOGLE, IN_SPEC};
use crate::percent;

/// The best match of one reading so far: the rule's index, not its view,
/// so that keeping and comparing it copies three words.
#[derive(Clone, Copy)]
struct Best {
    priority: usize,
    rule: usize,
    kind: RuleKind,
}

fn consider(best: &mut Option<Best>, priority: usize, rule: usize, kind: RuleKind) {
    let better = match best {
        None => true,
        // "On a length tie, Allow wins"; among equals the first reports.
        Some(b) => {
            priority > b.priority
                || (priority == b.priority
                    && kind == RuleKind::Allow
                    && b.kind == RuleKind::Disallow)
        }
    };
    if better {
        *best = Some(Best {
            priority,
            rule,
            kind,
        });
    }
}

/// The precedence of a matching rule in the spec's reading: the octets its
/// match covers, the most for a Disallow and the fewest for an Allow (the
/// strict reading of "an expanded * counts as the characters it consumed").
/// A cut Disallow may have covered anything up to the whole target.
fn spec_priority(r: &RuleView<'_>, span: (usize, usize), target_len: usize) -> usize {
    match r.kind {
        RuleKind::Allow => span.0,
        RuleKind::Disallow if r.cut => span.1.max(r.floor).max(target_len),
        RuleKind::Disallow => span.1,
    }
}

/// Whether `r` in `form` matches `subject`: an empty pattern matches
/// nothing (9.1.4), unless it is what a cut left of a Disallow, which then
/// matches everything.
/// `need`: the [`classes`] the subject must hold for `r`'s pattern in
/// `form` to match it (`0`: none known).
fn hit(r: &RuleView<'_>, form: Form, subject: Subj<'_>, set: &mut LazySet, need: u64) -> bool {
    let p = r.form(form);
    if p.is_empty() {
        return r.cut;
    }
    (need == 0 || set.has_classes(need, subject))
        && set.may_match(p, subject)
        && matcher::matches(p, subject)
}

// Inlined (but in wasm32, for its size budget): most calls end at a
// filter, and the call cost as much as the filter.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn span(
    r: &RuleView<'_>,
    subject: Subj<'_>,
    set: &mut LazySet,
    need: u64,
) -> Option<(usize, usize)> {
    if r.spec.is_empty() {
        return r.cut.then_some((0, 0));
    }
    if r.literal {
        // A prefix, which covers its own octets: no segments to find.
        let n = r.spec.len();
        return matcher::Subject::strip_prefix(subject, r.spec).map(|_| (n, n));
    }
    if need != 0 && !set.has_classes(need, subject) {
        return None;
    }
    if !set.may_match(r.spec, subject) {
        return None;
    }
    matcher::match_span(r.spec, subject)
}

/// A request target in each reading's form (`None`: the canonical one),
/// with the filters each form has gathered so far.
struct Forms<'s> {
    canon: Subj<'s>,
    rfc: Option<Subj<'s>>,
    google: Option<Subj<'s>>,
    canon_len: usize,
    canon_set: LazySet,
    rfc_set: LazySet,
    google_set: LazySet,
}

/// How the walk finds the rules a target's keys admit.
#[derive(Clone, Copy)]
enum Keys<'h> {
    /// One form for every rule and the target: only the canonical keys
    /// are scanned, in one tight loop.
    One,
    /// A target that is its own form in every reading, with some rule
    /// whose form differs: the canonical keys are scanned in the tight
    /// loop, and the few listed rules with forms of their own are weighed
    /// in every form at their place in rule order.
    Listed,
    /// Every form's keys, against the three forms' heads (built by the
    /// caller: moved into the walk, they were copied).
    Every(&'h [Head; 3]),
}

/// The walk over the rules a target's keys admit, in rule order: which
/// rule comes next, and in which forms its key admits the target.
struct Walk<'h> {
    keys: Keys<'h>,
    canon_head: &'h Head,
    /// The second key's table for the tight scan of a large file.
    t2: Option<[u64; 8]>,
    /// Whether the RFC 9309 and Google forms need keys of their own: not
    /// when neither the target nor any rule changes in that form.
    rfc_keys: bool,
    google_keys: bool,
    /// The next listed rule with a form of its own, a cursor.
    own_k: usize,
    own_next: Option<usize>,
    /// The next rule from `next` on that the canonical keys admit, once
    /// known (`Some(None)`: none is left).
    admitted: Option<Option<usize>>,
    /// The next rule with literal octets after a `*` (see
    /// [`RuleSet::star_need`]), a cursor.
    need_k: usize,
    need_next: Option<(usize, u64)>,
    next: usize,
}

impl<'h> Walk<'h> {
    // Always inlined (but in wasm32, for its size budget), as everything
    // the loop calls: the walk's state then stays in registers.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn new<'a, R: RuleSet<'a>>(
        rules: R,
        canon_head: &'h Head,
        forms: &Forms<'_>,
        heads: &'h mut Option<[Head; 3]>,
    ) -> Walk<'h> {
        let rfc_keys = forms.rfc.is_some() || rules.has_alt(Form::Rfc);
        let google_keys = forms.google.is_some() || rules.has_alt(Form::Google);
        let keys = if !rfc_keys && !google_keys {
            Keys::One
        } else if R::OWN_FORM_LIST && forms.rfc.is_none() && forms.google.is_none() {
            Keys::Listed
        } else {
            Keys::Every(heads.insert([
                *canon_head,
                forms.rfc.map_or(*canon_head, Subj::head),
                forms.google.map_or(*canon_head, Subj::head),
            ]))
        };
        Walk {
            own_next: match keys {
                Keys::Listed => rules.own_form_rule(0),
                _ => None,
            },
            keys,
            canon_head,
            t2: (rules.len() >= R::SECOND_TABLE_FROM).then(|| Head::table(canon_head.k2)),
            rfc_keys,
            google_keys,
            own_k: 0,
            admitted: None,
            need_k: 0,
            need_next: rules.star_need(0),
            next: 0,
        }
    }

    /// The next rule some form's key admits, and in which forms (spec,
    /// RFC 9309, Google).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn next_rule<'a, R: RuleSet<'a>>(&mut self, rules: R) -> Option<(usize, [bool; 3])> {
        let found = match self.keys {
            Keys::Listed => self.next_listed(rules),
            Keys::One => rules
                .next_admitted(self.next, self.canon_head, self.t2.as_ref())
                .map(|i| (i, [true; 3])),
            Keys::Every(heads) => {
                rules.next_admitted_forms(self.next, heads, [self.rfc_keys, self.google_keys])
            }
        };
        if let Some((i, _)) = found {
            self.next = i + 1;
        }
        found
    }

    /// [`Walk::next_rule`] when the canonical keys are scanned and the
    /// rules with forms of their own are listed apart.
    #[cfg_attr(
        any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
        inline(always)
    )]
    fn next_listed<'a, R: RuleSet<'a>>(&mut self, rules: R) -> Option<(usize, [bool; 3])> {
        while self.next < rules.len() {
            let c = match self.admitted {
                Some(Some(c)) if c >= self.next => Some(c),
                Some(None) => None,
                _ => {
                    let c = rules.next_admitted(self.next, self.canon_head, self.t2.as_ref());
                    self.admitted = Some(c);
                    c
                }
            };
            let o = match (c, self.own_next) {
                (None, None) => return None,
                (Some(c), None) => return Some((c, [true; 3])),
                (Some(c), Some(o)) if c < o => return Some((c, [true; 3])),
                (_, Some(o)) => o,
            };
            self.own_k += 1;
            self.own_next = rules.own_form_rule(self.own_k);
            let head = self.canon_head;
            let a_spec = rules.admits(o, Form::Spec, head);
            let a_rfc = if self.rfc_keys {
                rules.admits(o, Form::Rfc, head)
            } else {
                a_spec
            };
            let a_google = if self.google_keys {
                rules.admits(o, Form::Google, head)
            } else {
                a_spec
            };
            if a_spec || a_rfc || a_google {
                return Some((o, [a_spec, a_rfc, a_google]));
            }
            self.next = o + 1;
        }
        None
    }

    /// The classes rule `i`'s octets after a `*` need (`0`: none known).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn need<'a, R: RuleSet<'a>>(&mut self, rules: R, i: usize) -> u64 {
        loop {
            match self.need_next {
                Some((j, _)) if j < i => {
                    self.need_k += 1;
                    self.need_next = rules.star_need(self.need_k);
                }
                Some((j, need)) if j == i => return need,
                _ => return 0,
            }
        }
    }
}

/// Evaluates every reading over `rules`. `rfc` and `google` are `None`
/// when the target's form is its canonical one.
fn evaluate<'a, R: RuleSet<'a>>(
    rules: R,
    canon: Subj<'_>,
    rfc: Option<Subj<'_>>,
    google: Option<Subj<'_>>,
) -> Verdict<'a> {
    evaluate_forms(rules, canon, rfc, google)
}

/// [`evaluate`] of a target that is its own form in every reading (nearly
/// every target). Its octets come in two registers, where the three forms
/// of [`evaluate`] come through memory: written by the caller a field at a
/// time, they were read back in 16-octet loads, which the processor cannot
/// forward from narrower stores (a stall at every check; see
/// docs/performance.md, "Issue #18, fourth pass"). The evaluator is then
/// compiled twice; where size comes first (wasm32, thumbv7em: the targets
/// without [`crate::BLOCKS_VECTORISE`]) it is one call instead.
fn evaluate_own<'a, R: RuleSet<'a>>(rules: R, t: &[u8]) -> Verdict<'a> {
    if crate::BLOCKS_VECTORISE {
        if rules.prefixes_only() {
            return prefixes::evaluate(rules, t);
        }
        evaluate_forms(rules, Subj::Slice(t), None, None)
    } else {
        evaluate(rules, Subj::Slice(t), None, None)
    }
}

#[cfg_attr(
    any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"),
    inline(always)
)]
fn evaluate_forms<'a, R: RuleSet<'a>>(
    rules: R,
    canon: Subj<'_>,
    rfc: Option<Subj<'_>>,
    google: Option<Subj<'_>>,
) -> Verdict<'a> {
    let canon_head = &canon.head();
    let mut forms = Forms {
        canon,
        rfc,
        google,
        canon_len: matcher::Subject::remaining(canon),
        canon_set: LazySet::NEW,
        rfc_set: LazySet::NEW,
        google_set: LazySet::NEW,
    };
    let mut heads = None;
    let mut walk = Walk::new(rules, canon_head, &forms, &mut heads);
    let mut best: [Option<Best>; 3] = [None; 3];
    while walk.next < rules.len() {
        let Some((i, admits)) = walk.next_rule(rules) else {
            break;
        };
        let need = walk.need(rules, i);
        weigh(&mut best, &rules.view(i), i, admits, need, &mut forms);
    }
    for (reading, b) in Reading::ALL.into_iter().zip(best) {
        if let Some(b) = b {
            if b.kind == RuleKind::Disallow {
                return verdict(Some(rules.view(b.rule)), reading);
            }
        }
    }
    verdict(best[0].map(|b| rules.view(b.rule)), Reading::Spec)
}

/// Weighs rule `r` (index `i`) in every reading it belongs to, in the
/// forms whose keys admit the target (`admits`: spec, RFC 9309, Google).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn weigh(
    best: &mut [Option<Best>; 3],
    r: &RuleView<'_>,
    i: usize,
    [a_spec, a_rfc, a_google]: [bool; 3],
    need: u64,
    f: &mut Forms<'_>,
) {
    let floor = |n: usize| if r.cut { n.max(r.floor) } else { n };
    let spec_span = if a_spec && (r.readings & IN_SPEC != 0 || r.google_same) {
        span(r, f.canon, &mut f.canon_set, need)
    } else {
        None
    };
    if r.readings & IN_SPEC != 0 {
        if let Some(s) = spec_span {
            consider(&mut best[0], spec_priority(r, s, f.canon_len), i, r.kind);
        }
        let rfc_hit = match f.rfc {
            None if r.rfc_same => spec_span.is_some(),
            _ => {
                let set = if f.rfc.is_some() {
                    &mut f.rfc_set
                } else {
                    &mut f.canon_set
                };
                let need = if r.rfc_same { need } else { 0 };
                a_rfc && hit(r, Form::Rfc, f.rfc.unwrap_or(f.canon), set, need)
            }
        };
        if rfc_hit {
            consider(&mut best[1], floor(r.rfc.len()), i, r.kind);
        }
    }
    if r.readings & IN_GOOGLE != 0 {
        let google_hit = match f.google {
            None if r.google_same => spec_span.is_some(),
            _ => {
                let set = if f.google.is_some() {
                    &mut f.google_set
                } else {
                    &mut f.canon_set
                };
                let need = if r.google_same { need } else { 0 };
                a_google && hit(r, Form::Google, f.google.unwrap_or(f.canon), set, need)
            }
        };
        if google_hit {
            consider(&mut best[2], floor(r.google.len()), i, r.kind);
        }
    }
}

fn verdict(rule: Option<RuleView<'_>>, reading: Reading) -> Verdict<'_> {
    Verdict {
        allowed: !matches!(rule, Some(r) if r.kind == RuleKind::Disallow),
        rule: rule.map(|r| MatchedRule {
            kind: r.kind,
            pattern: r.text,
            line: r.line,
        }),
        reading,
        overflow: false,
        variant: Variant::BASE,
    }
}

/// Decides `path_and_query` against `rules` in every [`Reading`]: allowed
/// only if each allows. `SCRATCH`: the most stack a request target that
/// needs normalising may take (see [`with_subject`]).
pub(crate) fn decide<'a, R: RuleSet<'a>, const SCRATCH: usize>(
    rules: R,
    path_and_query: &[u8],
) -> Verdict<'a> {
    decide_scanned::<R, SCRATCH>(rules, path_and_query, Scan::of(path_and_query))
}

/// Decides a target given as a form already (one that is no raw target's
/// own form, such as `percent::query_as_path`'s), matched as it is in
/// every reading.
pub(crate) fn decide_form<'a, R: RuleSet<'a>>(rules: R, form: &[u8]) -> Verdict<'a> {
    // Not through `evaluate_own`: a third caller changed how the compiler
    // laid out that hot function (22 more instructions a check, callgrind).
    evaluate(rules, Subj::Slice(form), None, None)
}

/// [`decide`], with the target's [`Scan`] made by the caller, who may need
/// it too (whether a variant can read the target otherwise).
pub(crate) fn decide_scanned<'a, R: RuleSet<'a>, const SCRATCH: usize>(
    rules: R,
    path_and_query: &[u8],
    scan: Scan,
) -> Verdict<'a> {
    let t = path_and_query;
    let rooted = t.first() == Some(&b'/');
    // Nearly every target: rooted, no escape, no query, nothing to
    // encode. It is then its own form in every reading.
    let Scan { plain, query } = scan;
    debug_assert!(!plain || !percent::has_special(t) || query);
    if rooted && plain && !query {
        return evaluate_own(rules, t);
    }
    let canonical = rooted && plain;
    let rfc_differs = query && !rules.query_blind() && rfc_differs(t);
    // A rooted target whose canonical form is itself (escapes in upper-case
    // hex, as WHATWG serialisers write them; `~`) is its own form in every
    // reading too: Google's is the target as sent, and RFC 9309's differs
    // only by a query's raw delimiters.
    if rooted && !rfc_differs && (plain || percent::is_own_canonical(t)) {
        return evaluate_own(rules, t);
    }
    let heap = R::HEAP_COPY;
    // Every form of `t` holds at most three octets per octet of `t` (an
    // encoded one), and a leading `/`.
    let bound = t.len().saturating_mul(3).saturating_add(1);
    let with_rfc = |canon: Subj<'_>| {
        let with_google = |rfc: Option<Subj<'_>>| {
            if canonical {
                evaluate(rules, canon, rfc, None)
            } else if rooted {
                evaluate(rules, canon, rfc, Some(Subj::Slice(t)))
            } else {
                with_subject::<_, SCRATCH>(
                    percent::Normalized::with_leading_slash(t, true),
                    bound,
                    heap,
                    |g| evaluate(rules, canon, rfc, Some(g)),
                )
            }
        };
        if !rfc_differs {
            with_google(None)
        } else {
            let view = if rooted {
                percent::Normalized::rfc(t)
            } else {
                percent::Normalized::rfc_with_leading_slash(t)
            };
            with_subject::<_, SCRATCH>(view, bound, heap, |r| with_google(Some(r)))
        }
    };
    if canonical {
        with_rfc(Subj::Slice(t))
    } else {
        let view = if rooted {
            percent::Normalized::new(t)
        } else {
            percent::Normalized::with_leading_slash(t, false)
        };
        with_subject::<_, SCRATCH>(view, bound, heap, with_rfc)
    }
}
