//! From lines to groups (section 9.1.2), and group selection as a stream
//! (section 9.1.3), shared by every model.
//!
//! Two selectors run side by side over one stream of lines, because the
//! readings group the same file differently:
//!
//! * the spec's: only lines of its grammar count, and "A User-agent line
//!   appearing after a rule line starts a new group", a rule line being
//!   Allow, Disallow or Crawl-delay; a User-agent value selects the group
//!   when it is `*`, our token, or a prefix of it;
//! * Google's: its tolerant reading of every line, where only Allow and
//!   Disallow close a run of User-agent lines (Crawl-delay, Sitemap and
//!   unknown lines leave it open), and a value is cut at its first
//!   character that is not a letter, `-` or `_` and must then equal our
//!   token.
//!
//! Each rule is reported once, tagged with the candidate sets (named or `*`,
//! in each reading) it belongs to; the end of the file decides which set
//! each reading uses. A line only Google's tolerance understands never adds
//! an Allow (a misspelt Allow must not allow), though it still closes a run
//! in Google's grouping as Google's parser would.

use super::agent::{agent_token, divergence, google_match, spec_match_len, AgentToken};
use super::lexer::{lines_in, read, superset_cut, Directive};
use super::variant::Variant;
use super::{CrawlDelay, RuleKind};
use crate::constants::ROBOTS_MAX_BYTES;
use crate::percent;

/// A rule as it appears in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawRule<'a> {
    pub kind: RuleKind,
    pub line: u32,
    /// The value.
    pub value: &'a [u8],
    /// Octets of the value before a long line was cut.
    pub cut_from: Option<usize>,
}

/// What one line contributes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event<'a> {
    /// A User-agent line.
    Agent {
        token: AgentToken<'a>,
        /// The value as written (trimmed), for the selector's test of
        /// whether another [`Variant`] would read it otherwise.
        value: &'a [u8],
        #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
        line: u32,
        /// Read the same by the spec's grammar (see `lexer::Line::strict`).
        strict: bool,
    },
    /// An Allow or Disallow line.
    Rule { rule: RawRule<'a>, strict: bool },
    /// A Crawl-delay line; `delay` is `None` when its value is not a number
    /// (the line still closes a run of User-agent lines in the spec's
    /// grouping).
    CrawlDelay {
        delay: Option<CrawlDelay>,
        strict: bool,
    },
    /// A Sitemap line (belongs to no group).
    Sitemap(#[cfg_attr(not(feature = "alloc"), allow(dead_code))] &'a [u8]),
}

/// What takes the events of a file: a closure of [`Event`]s, or a
/// [`Selecting`].
pub(crate) trait EventSink<'a> {
    /// What one line contributes.
    fn event(&mut self, ev: Event<'a>);

    /// An Allow or Disallow line, nearly every line that counts: given
    /// apart, so that a receiver can take it without an [`Event`] in
    /// memory (see [`Selection::rule`]).
    #[inline(always)]
    fn rule(&mut self, rule: RawRule<'a>, strict: bool) {
        self.event(Event::Rule { rule, strict });
    }
}

impl<'a, F: FnMut(Event<'a>)> EventSink<'a> for F {
    #[inline(always)]
    fn event(&mut self, ev: Event<'a>) {
        self(ev)
    }
}

/// A [`Selection`] that sends what it selects to `sink`: how both
/// policies read a file.
pub(crate) struct Selecting<'s, 't, S> {
    pub selection: &'s mut Selection<'t>,
    pub sink: &'s mut S,
}

impl<'a, S: SelectSink<'a>> EventSink<'a> for Selecting<'_, '_, S> {
    #[inline(always)]
    fn event(&mut self, ev: Event<'a>) {
        self.selection.event(ev, self.sink);
    }

    #[inline(always)]
    fn rule(&mut self, rule: RawRule<'a>, strict: bool) {
        self.selection.rule(rule, strict, self.sink);
    }
}

/// Feeds the events of `body` (the whole lines kept of a truncated body),
/// as `variant` reads it, to `f`, then those of `tail`, the start of the
/// line the 500 KiB limit cut (see `limit`). Returns the options under
/// which some line may read otherwise (see `Lines::diverges`), with
/// `Variant::ESCAPED_VALUE` for a Crawl-delay value that holds an escape (agent values are the
/// selection's to note, see `agent::divergence`).
pub(crate) fn events<'a>(
    body: &'a [u8],
    tail: Option<&'a [u8]>,
    variant: Variant,
    mut f: impl EventSink<'a>,
) -> u8 {
    let mut last_line = 0;
    let mut unquoted = 0;
    let mut lines = lines_in(body, variant);
    for line in &mut lines {
        last_line = line.number;
        let strict = line.strict;
        match line.directive {
            Directive::UserAgent(v) => f.event(Event::Agent {
                token: agent_token(v, variant),
                value: v,
                line: line.number,
                strict,
            }),
            Directive::Allow(value) => f.rule(
                RawRule {
                    kind: RuleKind::Allow,
                    line: line.number,
                    value,
                    cut_from: None,
                },
                strict,
            ),
            Directive::Disallow {
                value,
                truncated_from,
            } => f.rule(
                RawRule {
                    kind: RuleKind::Disallow,
                    line: line.number,
                    value,
                    cut_from: truncated_from,
                },
                strict,
            ),
            Directive::CrawlDelay(v) => {
                // Python unquotes the value first: `%31%30` is 10 to it.
                if percent::has_printable_escape(v) {
                    unquoted = Variant::ESCAPED_VALUE;
                }
                f.event(Event::CrawlDelay {
                    delay: CrawlDelay::parse(v),
                    strict,
                })
            }
            Directive::Sitemap(v) if !v.is_empty() => f.event(Event::Sitemap(v)),
            _ => {}
        }
    }
    // Only a Disallow may use the cut line: its start matches every path
    // the whole value matched, and it keeps a precedence above any rule of
    // the file (its real length is unknown, but it reached the limit), so
    // it can only deny more (R2c). Anything else there is dropped: a cut
    // Allow would permit more than its author wrote.
    if let Some(tail) = tail {
        if let (Directive::Disallow { value, .. }, strict) = read(tail) {
            f.rule(
                RawRule {
                    kind: RuleKind::Disallow,
                    line: last_line.saturating_add(1),
                    value: superset_cut(value),
                    cut_from: Some(ROBOTS_MAX_BYTES),
                },
                strict,
            );
        }
    }
    lines.diverges() | unquoted
}

/// Candidate set: groups naming our token in the spec's selection.
pub(crate) const SPEC_NAMED: u8 = 1;
/// Candidate set: `*` groups in the spec's grouping.
pub(crate) const SPEC_GLOBAL: u8 = 2;
/// Candidate set: groups naming our token in Google's selection.
pub(crate) const GOOGLE_NAMED: u8 = 4;
/// Candidate set: `*` groups in Google's grouping.
pub(crate) const GOOGLE_GLOBAL: u8 = 8;

/// Where the selectors send the selected parts.
pub(crate) trait SelectSink<'a> {
    /// A longer named match was found in one reading: drop candidate set
    /// `set` ([`SPEC_NAMED`] or [`GOOGLE_NAMED`]) kept so far.
    fn reset_named(&mut self, set: u8);
    /// A rule of the candidate sets `sets` (a non-empty mask).
    fn rule(&mut self, sets: u8, rule: RawRule<'a>);
    /// A Crawl-delay of the candidate sets `sets`.
    fn crawl_delay(&mut self, sets: u8, delay: CrawlDelay);
}

/// Streaming grouping and selection for one product token in one reading.
struct Selector<'t> {
    wanted: &'t [u8],
    google: bool,
    started: bool,
    closed: bool,
    resolved: bool,
    cur_len: Option<usize>,
    cur_global: bool,
    named: bool,
    pending_delay: Option<CrawlDelay>,
    /// Length of the longest named match so far; 0 when none.
    best: usize,
}

impl<'t> Selector<'t> {
    fn new(wanted: &'t [u8], google: bool) -> Self {
        Selector {
            wanted,
            google,
            started: false,
            closed: false,
            resolved: false,
            cur_len: None,
            cur_global: false,
            named: false,
            pending_delay: None,
            best: 0,
        }
    }

    fn named_set(&self) -> u8 {
        if self.google {
            GOOGLE_NAMED
        } else {
            SPEC_NAMED
        }
    }

    /// The candidate sets the current group feeds.
    fn sets(&self) -> u8 {
        let (named, global) = if self.google {
            (GOOGLE_NAMED, GOOGLE_GLOBAL)
        } else {
            (SPEC_NAMED, SPEC_GLOBAL)
        };
        (if self.named { named } else { 0 }) | (if self.cur_global { global } else { 0 })
    }

    fn resolve<'a>(&mut self, sink: &mut impl SelectSink<'a>) {
        if self.resolved || !self.started {
            return;
        }
        self.resolved = true;
        if let Some(m) = self.cur_len {
            if m > self.best {
                sink.reset_named(self.named_set());
                self.best = m;
            }
        }
        self.named = self.best > 0 && self.cur_len == Some(self.best);
        if let Some(d) = self.pending_delay.take() {
            let sets = self.sets();
            if sets != 0 {
                sink.crawl_delay(sets, d);
            }
        }
    }

    fn agent<'a>(&mut self, token: AgentToken<'_>, sink: &mut impl SelectSink<'a>) {
        if !self.started || self.closed {
            self.resolve(sink);
            self.started = true;
            self.closed = false;
            self.resolved = false;
            self.cur_len = None;
            self.cur_global = false;
            self.named = false;
        }
        match token {
            AgentToken::Global => self.cur_global = true,
            AgentToken::Named(t) => {
                let m = if self.google {
                    google_match(t, self.wanted).then_some(self.wanted.len())
                } else if t.is_empty() {
                    // Only `Variant::EMPTY_AGENT` names the empty value:
                    // the shortest prefix of every token.
                    Some(0)
                } else {
                    spec_match_len(t, self.wanted)
                };
                // Lengths are kept one more than the match's, so that an
                // empty name still counts as a match (`best` 0 is none).
                if let Some(m) = m.map(|m| m + 1) {
                    self.cur_len = Some(self.cur_len.map_or(m, |c| c.max(m)));
                }
            }
            AgentToken::Empty => {}
        }
    }

    /// A rule line: closes the run of User-agent lines; returns the sets
    /// its rule belongs to (none before the first User-agent line).
    fn rule<'a>(&mut self, sink: &mut impl SelectSink<'a>) -> u8 {
        if !self.started {
            return 0;
        }
        self.closed = true;
        self.resolve(sink);
        self.sets()
    }

    fn crawl_delay<'a>(&mut self, delay: Option<CrawlDelay>, sink: &mut impl SelectSink<'a>) {
        if !self.started {
            return;
        }
        if !self.google {
            // "A group is one or more consecutive User-agent lines followed
            // by the rule lines (Allow, Disallow, Crawl-delay)".
            self.closed = true;
            self.resolve(sink);
        }
        let Some(d) = delay else { return };
        if self.resolved {
            let sets = self.sets();
            if sets != 0 {
                sink.crawl_delay(sets, d);
            }
        } else {
            self.pending_delay = Some(self.pending_delay.map_or(d, |p| p.max(d)));
        }
    }
}

/// Both readings' selection over one stream of events.
pub(crate) struct Selection<'t> {
    spec: Selector<'t>,
    google: Selector<'t>,
    /// The [`Variant`] options under which some `User-agent` value
    /// selects otherwise (see `agent::divergence`).
    pub diverges: u8,
    /// The sets of the last strict rule line, while nothing else came
    /// since: both selectors are then closed and resolved, and the next
    /// strict rule line belongs to the same sets.
    strict_rule_sets: Option<u8>,
}

impl<'t> Selection<'t> {
    pub fn new(wanted: &'t [u8]) -> Self {
        Selection {
            spec: Selector::new(wanted, false),
            google: Selector::new(wanted, true),
            diverges: 0,
            strict_rule_sets: None,
        }
    }

    #[inline]
    pub fn event<'a>(&mut self, ev: Event<'a>, sink: &mut impl SelectSink<'a>) {
        if let Event::Rule { rule, strict } = ev {
            return self.rule(rule, strict, sink);
        }
        self.strict_rule_sets = None;
        self.other_event(ev, sink);
    }

    /// An Allow or Disallow line ([`Event::Rule`]). The event is built in
    /// memory only on the rare path that needs it: built before the test,
    /// as a closure's argument, it cost eight stores at every rule line.
    #[inline]
    pub fn rule<'a>(&mut self, rule: RawRule<'a>, strict: bool, sink: &mut impl SelectSink<'a>) {
        if strict {
            // The run of rule lines of a group: one test per line.
            let sets = match self.strict_rule_sets {
                Some(sets) => sets,
                None => {
                    let sets = self.spec.rule(sink) | self.google.rule(sink);
                    self.strict_rule_sets = Some(sets);
                    sets
                }
            };
            if sets != 0 {
                sink.rule(sets, rule);
            }
            return;
        }
        self.strict_rule_sets = None;
        self.other_event(Event::Rule { rule, strict }, sink);
    }

    // Out of line: the run of strict rule lines above is nearly every
    // event, and keeping `event` small lets the models' line loops take
    // it in line.
    #[inline(never)]
    fn other_event<'a>(&mut self, ev: Event<'a>, sink: &mut impl SelectSink<'a>) {
        match ev {
            Event::Agent {
                token,
                value,
                strict,
                ..
            } => {
                // Every reading looks: a line only it reads as an agent
                // may need another option (see `Policy::add_variants`).
                self.diverges |= divergence(value, self.spec.wanted);
                if strict {
                    self.spec.agent(token, sink);
                }
                self.google.agent(token, sink);
            }
            Event::Rule { rule, strict } => {
                let mut sets = 0;
                if strict {
                    sets |= self.spec.rule(sink);
                }
                let google = self.google.rule(sink);
                if strict || rule.kind == RuleKind::Disallow {
                    sets |= google;
                }
                if sets != 0 {
                    sink.rule(sets, rule);
                }
            }
            Event::CrawlDelay { delay, strict } => {
                if strict {
                    self.spec.crawl_delay(delay, sink);
                }
                self.google.crawl_delay(delay, sink);
            }
            Event::Sitemap(_) => {}
        }
    }

    /// Call once after the last event; returns the candidate set each
    /// reading uses: ([`SPEC_NAMED`] or [`SPEC_GLOBAL`], [`GOOGLE_NAMED`] or
    /// [`GOOGLE_GLOBAL`]).
    pub fn finish<'a>(&mut self, sink: &mut impl SelectSink<'a>) -> (u8, u8) {
        self.spec.resolve(sink);
        self.google.resolve(sink);
        (
            if self.spec.best > 0 {
                SPEC_NAMED
            } else {
                SPEC_GLOBAL
            },
            if self.google.best > 0 {
                GOOGLE_NAMED
            } else {
                GOOGLE_GLOBAL
            },
        )
    }

    /// Whether Google's selection found a group naming the token.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub fn google_named(&self) -> bool {
        self.google.best > 0
    }

    /// Whether the spec's selection found a group naming the token.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub fn spec_named(&self) -> bool {
        self.spec.best > 0
    }
}
