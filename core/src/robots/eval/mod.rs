//! The evaluator: a request target judged against a model's rules in every
//! [`Reading`] at once, allowed only if each allows (R2c).
//!
//! `decide` scans the target once ([`Scan`]) and hands the plain ones
//! (nearly all) straight to `evaluate`; the others get their forms first
//! ([`subject`]). `evaluate` walks the rules the keys admit ([`keys`]), lets
//! the filters ([`filter`]) pass over rules that cannot match, and weighs
//! each match in the readings it belongs to.

mod filter;
mod keys;
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

fn span(
    r: &RuleView<'_>,
    subject: Subj<'_>,
    set: &mut LazySet,
    need: u64,
) -> Option<(usize, usize)> {
    if r.spec.is_empty() {
        return r.cut.then_some((0, 0));
    }
    if need != 0 && !set.has_classes(need, subject) {
        return None;
    }
    if !set.may_match(r.spec, subject) {
        return None;
    }
    matcher::match_span(r.spec, subject)
}

/// Evaluates every reading over `rules`. `rfc` and `google` are `None`
/// when the target's form is its canonical one.
fn evaluate<'a, R: RuleSet<'a>>(
    rules: R,
    canon: Subj<'_>,
    rfc: Option<Subj<'_>>,
    google: Option<Subj<'_>>,
) -> Verdict<'a> {
    let canon_head = &canon.head();
    // The second key's table for the tight scan of a large file.
    let t2 = (rules.len() >= R::SECOND_TABLE_FROM).then(|| Head::table(canon_head.k2));
    let canon_len = matcher::Subject::remaining(canon);
    let mut canon_set = LazySet::NEW;
    let mut rfc_set = LazySet::NEW;
    let mut google_set = LazySet::NEW;
    // When neither the target nor any rule changes in a form, that form's
    // keys and matches are the canonical ones.
    let rfc_keys = rfc.is_some() || rules.has_alt(Form::Rfc);
    let google_keys = google.is_some() || rules.has_alt(Form::Google);
    let mut best: [Option<Best>; 3] = [None; 3];
    // With one form for every rule and the target, only the canonical
    // keys are scanned, in one tight loop.
    let one_form = !rfc_keys && !google_keys;
    // A target that is its own form in every reading, with some rule
    // whose form differs: the canonical keys are scanned in the tight
    // loop, and the few listed rules with forms of their own are weighed
    // in every form at their place in rule order.
    let listed = R::OWN_FORM_LIST && !one_form && rfc.is_none() && google.is_none();
    // The three forms' heads, for the scan of every form's keys.
    let heads = (!one_form && !listed).then(|| {
        [
            *canon_head,
            rfc.map_or(*canon_head, Subj::head),
            google.map_or(*canon_head, Subj::head),
        ]
    });
    // The next rule with literal octets after a `*` (see
    // [`RuleSet::star_need`]), a cursor in rule order.
    let mut need_k = 0;
    let mut need_next = rules.star_need(0);
    let mut own_k = 0;
    let mut own_next = if listed { rules.own_form_rule(0) } else { None };
    // The next rule from `next` on that the canonical keys admit, once
    // known (`Some(None)`: none is left).
    let mut admitted: Option<Option<usize>> = None;
    let mut next = 0;
    while next < rules.len() {
        let (i, a_spec, a_rfc, a_google) = if listed {
            let c = match admitted {
                Some(Some(c)) if c >= next => Some(c),
                Some(None) => None,
                _ => {
                    let c = rules.next_admitted(next, canon_head, t2.as_ref());
                    admitted = Some(c);
                    c
                }
            };
            match (c, own_next) {
                (None, None) => break,
                (Some(c), None) => (c, true, true, true),
                (Some(c), Some(o)) if c < o => (c, true, true, true),
                (_, Some(o)) => {
                    own_k += 1;
                    own_next = rules.own_form_rule(own_k);
                    let a_spec = rules.admits(o, Form::Spec, canon_head);
                    let a_rfc = if rfc_keys {
                        rules.admits(o, Form::Rfc, canon_head)
                    } else {
                        a_spec
                    };
                    let a_google = if google_keys {
                        rules.admits(o, Form::Google, canon_head)
                    } else {
                        a_spec
                    };
                    if !(a_spec || a_rfc || a_google) {
                        next = o + 1;
                        continue;
                    }
                    (o, a_spec, a_rfc, a_google)
                }
            }
        } else if one_form {
            match rules.next_admitted(next, canon_head, t2.as_ref()) {
                Some(i) => (i, true, true, true),
                None => break,
            }
        } else if let Some(heads) = &heads {
            match rules.next_admitted_forms(next, heads, [rfc_keys, google_keys]) {
                Some((i, [a_spec, a_rfc, a_google])) => (i, a_spec, a_rfc, a_google),
                None => break,
            }
        } else {
            break;
        };
        next = i + 1;
        let need = loop {
            match need_next {
                Some((j, _)) if j < i => {
                    need_k += 1;
                    need_next = rules.star_need(need_k);
                }
                Some((j, need)) if j == i => break need,
                _ => break 0,
            }
        };
        let r = rules.view(i);
        let floor = |n: usize| if r.cut { n.max(r.floor) } else { n };
        let spec_span = if a_spec && (r.readings & IN_SPEC != 0 || r.google_same) {
            span(&r, canon, &mut canon_set, need)
        } else {
            None
        };
        if r.readings & IN_SPEC != 0 {
            if let Some(s) = spec_span {
                consider(&mut best[0], spec_priority(&r, s, canon_len), i, r.kind);
            }
            let rfc_hit = match rfc {
                None if r.rfc_same => spec_span.is_some(),
                _ => {
                    let set = if rfc.is_some() {
                        &mut rfc_set
                    } else {
                        &mut canon_set
                    };
                    let need = if r.rfc_same { need } else { 0 };
                    a_rfc && hit(&r, Form::Rfc, rfc.unwrap_or(canon), set, need)
                }
            };
            if rfc_hit {
                consider(&mut best[1], floor(r.rfc.len()), i, r.kind);
            }
        }
        if r.readings & IN_GOOGLE != 0 {
            let google_hit = match google {
                None if r.google_same => spec_span.is_some(),
                _ => {
                    let set = if google.is_some() {
                        &mut google_set
                    } else {
                        &mut canon_set
                    };
                    let need = if r.google_same { need } else { 0 };
                    a_google && hit(&r, Form::Google, google.unwrap_or(canon), set, need)
                }
            };
            if google_hit {
                consider(&mut best[2], floor(r.google.len()), i, r.kind);
            }
        }
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
        return evaluate(rules, Subj::Slice(t), None, None);
    }
    let canonical = rooted && plain;
    let rfc_differs = query && rfc_differs(t);
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
