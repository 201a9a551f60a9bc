//! The evaluator of a file whose rules are all prefixes, for a target that
//! is its own form in every reading: over half the corpus' files, judged
//! without the walk's machinery.
//!
//! A form with no `*` and no `$` matches a target that starts with it, and
//! covers its own octets: the spec's precedence (the octets a Disallow
//! covers, the fewest an Allow covers), RFC 9309's and Google's (the
//! length of the form) are all its length. So no span, filter or star need
//! is needed, and a rule is read as three octet strings at most: nearly
//! every rule has one form in every reading, and is read as its canonical
//! form alone, from the keys' scan; the few with a form of their own (the
//! model lists them, see [`RuleSet::own_form_rule`]) are read whole when
//! a form's key admits the target, each form against the target.
//!
//! The walk and this path give the same verdict for every file that
//! qualifies and every target (`prefix_files_judge_as_the_walk_does`).

use super::*;

/// [`evaluate_own`] of a model whose rules are all prefixes
/// ([`RuleSet::prefixes_only`]).
// In line: its caller is one branch away, and most of a check's time here
// was set-up and calls (docs/performance.md, "Issue #24, prefix files").
#[inline(always)]
pub(super) fn evaluate<'a, R: RuleSet<'a>>(rules: R, t: &[u8]) -> Verdict<'a> {
    let head = Subj::Slice(t).head();
    let t2 = (rules.len() >= R::SECOND_TABLE_FROM).then(|| Head::table(head.k2));
    // The best match of each reading: the spec's, RFC 9309's, Google's.
    let mut best: [Option<Best>; 3] = [None; 3];
    let next = |from: usize| rules.next_admitted(from, &head, t2.as_ref());
    // A rule with one form in every reading: RFC 9309's best is the
    // spec's, but for the rules with forms of their own.
    let own = rules.own_form_rule(0);
    let plain = |best: &mut [Option<Best>; 3], i: usize| {
        let (kind, readings, form) = rules.prefix(i);
        if matches(form, t) {
            let n = form.len();
            if readings & IN_SPEC != 0 {
                consider(&mut best[0], n, i, kind);
                if own.is_some() {
                    consider(&mut best[1], n, i, kind);
                }
            }
            if readings & IN_GOOGLE != 0 {
                consider(&mut best[2], n, i, kind);
            }
        }
    };
    let mut admitted = next(0);
    if own.is_none() {
        // Nearly every file.
        while let Some(i) = admitted {
            plain(&mut best, i);
            admitted = next(i + 1);
        }
        best[1] = best[0];
    } else {
        let (mut own, mut own_k) = (own, 0);
        loop {
            // Rule order, as the walk weighs: among equals the first
            // reports.
            if let Some(a) = admitted.filter(|&a| own.is_none_or(|o| a < o)) {
                plain(&mut best, a);
                admitted = next(a + 1);
                continue;
            }
            let Some(o) = own else { break };
            // Each form's key first: most targets pass it by.
            let admits = |form| rules.admits(o, form, &head);
            if admits(Form::Spec) || admits(Form::Rfc) || admits(Form::Google) {
                weigh_own(&mut best, &rules.view(o), o, t);
            }
            own_k += 1;
            own = rules.own_form_rule(own_k);
            if admitted == Some(o) {
                admitted = next(o + 1);
            }
        }
    }
    // As the walk reports (the end of `evaluate_forms`): the first reading
    // that denies, else the spec's allowing rule. A copy: one function for
    // both cost the wasm32 module, which has only the walk, 78 octets of
    // the last 930 under its budget.
    for (reading, b) in Reading::ALL.into_iter().zip(best) {
        if let Some(b) = b.filter(|b| b.kind == RuleKind::Disallow) {
            return verdict(Some(rules.view(b.rule)), reading);
        }
    }
    verdict(best[0].map(|b| rules.view(b.rule)), Reading::Spec)
}

/// Whether prefix `form` matches `t`. An empty value matches nothing
/// (9.1.4); only a cut one would, and a file with a cut rule does not come
/// here.
#[inline(always)]
fn matches(form: &[u8], t: &[u8]) -> bool {
    !form.is_empty() && t.starts_with(form)
}

/// Rule `r` (index `i`), with a form of its own in some reading, weighed in
/// each reading it belongs to.
#[inline(never)]
fn weigh_own(best: &mut [Option<Best>; 3], r: &RuleView<'_>, i: usize, t: &[u8]) {
    if r.readings & IN_SPEC != 0 {
        if matches(r.spec, t) {
            consider(&mut best[0], r.spec.len(), i, r.kind);
        }
        if matches(r.rfc, t) {
            consider(&mut best[1], r.rfc.len(), i, r.kind);
        }
    }
    if r.readings & IN_GOOGLE != 0 && matches(r.google, t) {
        consider(&mut best[2], r.google.len(), i, r.kind);
    }
}
