//! The rules of a model as the evaluator sees them: a rule's forms (one
//! per reading's comparison) and the [`RuleSet`] trait every model
//! (`Policy`, `FixedPolicy`) implements, so that one evaluator serves the
//! heap and the fixed-capacity builds alike.

use super::*;

/// The forms a rule or a target is compared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Canonical (see [`percent`]): the spec's reading.
    Spec,
    /// RFC 9309's table on top of the canonical form.
    Rfc,
    /// Google's: rules with non-ASCII encoded, targets as sent.
    Google,
}

/// One rule as the evaluator sees it, whichever model stores it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleView<'a> {
    pub kind: RuleKind,
    pub line: u32,
    pub text: &'a [u8],
    /// Canonical form (see [`percent`]).
    pub spec: &'a [u8],
    /// RFC 9309 form; `rfc_same` when it is the canonical one.
    pub rfc: &'a [u8],
    pub rfc_same: bool,
    /// Google's form; `google_same` when it is the canonical one.
    pub google: &'a [u8],
    pub google_same: bool,
    /// [`IN_SPEC`] and/or [`IN_GOOGLE`].
    pub readings: u8,
    /// A Disallow cut short (long line, the 500 KiB limit, a fixed
    /// capacity): it matches a superset of what its whole value matched, and
    /// `floor` is the length of the whole value, so that it never ranks
    /// below it.
    pub cut: bool,
    pub floor: usize,
    /// The canonical form is a literal (no `*`, no final `$`), which
    /// matches as a prefix and covers its own octets; `false` when not
    /// known (a model may leave it so: the matcher then decides).
    pub literal: bool,
}

impl RuleView<'_> {
    pub(crate) fn form(&self, form: Form) -> &[u8] {
        match form {
            Form::Spec => self.spec,
            Form::Rfc => self.rfc,
            Form::Google => self.google,
        }
    }
}

/// The rules of a model as the evaluator sees them, in the model's order.
pub(crate) trait RuleSet<'a>: Copy {
    /// Whether a request target too long for the stack copy may be copied
    /// to the heap (see [`with_subject`]); models without an allocator say
    /// no and match such a target on the lazy view.
    const HEAP_COPY: bool = false;

    /// From how many rules on the tight scan reads the second keys from a
    /// table (see [`Head::admits_with`]).
    const SECOND_TABLE_FROM: usize = usize::MAX;

    /// Number of rules.
    fn len(self) -> usize;
    /// Whether some rule's form `form` differs from its canonical form.
    fn has_alt(self, form: Form) -> bool;
    /// Whether no rule holds a `*` or a `?` in any form: each is then a
    /// literal that can only match the part of a target before its query
    /// (it has no `?` to match the target's), where a target's RFC 9309
    /// form is its canonical one, so that form need not be built.
    #[inline]
    fn query_blind(self) -> bool {
        false
    }
    /// Whether rule `i`'s pattern in `form` may match a subject starting
    /// with `head`.
    fn admits(self, i: usize, form: Form, head: &Head) -> bool;
    /// The first rule from `from` on that may match in some form, and in
    /// which forms (canonical, RFC 9309, Google): form `f` is tested with
    /// `heads[f]`, and the RFC 9309 and Google forms only when `own[f - 1]`
    /// (else they take the canonical form's answer).
    #[inline]
    fn next_admitted_forms(
        self,
        from: usize,
        heads: &[Head; 3],
        own: [bool; 2],
    ) -> Option<(usize, [bool; 3])> {
        (from..self.len()).find_map(|i| {
            let a_spec = self.admits(i, Form::Spec, &heads[0]);
            let a_rfc = if own[0] {
                self.admits(i, Form::Rfc, &heads[1])
            } else {
                a_spec
            };
            let a_google = if own[1] {
                self.admits(i, Form::Google, &heads[2])
            } else {
                a_spec
            };
            (a_spec || a_rfc || a_google).then_some((i, [a_spec, a_rfc, a_google]))
        })
    }
    /// The first rule from `from` on whose canonical form may match a
    /// subject starting with `head` (`t2`: the table of its second key,
    /// see [`RuleSet::SECOND_TABLE_FROM`]).
    #[inline]
    fn next_admitted(self, from: usize, head: &Head, _t2: Option<&[u64; 8]>) -> Option<usize> {
        (from..self.len()).find(|&i| self.admits(i, Form::Spec, head))
    }
    /// Whether the model lists the rules whose RFC 9309 or Google form
    /// differs from the canonical one (see [`RuleSet::own_form_rule`]).
    const OWN_FORM_LIST: bool = false;
    /// The `k`-th rule, in rule order, whose RFC 9309 or Google form
    /// differs from its canonical one (only when
    /// [`RuleSet::OWN_FORM_LIST`]).
    #[inline]
    fn own_form_rule(self, _k: usize) -> Option<usize> {
        None
    }
    /// The `k`-th entry, in rule order, of the model's list of rules with
    /// literal octets after a `*`: the rule's index and the [`classes`] of
    /// those octets in its canonical form (see [`LazySet::has_classes`]).
    #[inline]
    fn star_need(self, _k: usize) -> Option<(usize, u64)> {
        None
    }
    /// Rule `i`.
    fn view(self, i: usize) -> RuleView<'a>;
    /// Whether every rule is a prefix in every form (see
    /// [`super::prefixes`]): no `*`, no `$`, and no cut.
    #[inline]
    fn prefixes_only(self) -> bool {
        false
    }
    /// Rule `i`'s kind, readings and canonical form: what
    /// [`super::prefixes`] reads of a rule, without building its view.
    #[inline]
    fn prefix(self, i: usize) -> (RuleKind, u8, &'a [u8]) {
        let r = self.view(i);
        (r.kind, r.readings, r.spec)
    }
}
