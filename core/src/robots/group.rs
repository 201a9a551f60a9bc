//! From directives to groups (section 9.1.2), and group selection as a
//! stream (section 9.1.3), shared by every model.
//!
//! Group boundaries follow Google's parser where the spec is silent: only
//! Allow/Disallow close a run of User-agent lines, so Crawl-delay, Sitemap
//! and unknown lines between two User-agent lines leave them in one group.

use super::agent::{match_len, product_token, AgentToken};
use super::lexer::{directive, lines, superset_cut, Directive};
use super::{index_dir_prefix, CrawlDelay, RuleKind};
use crate::constants::ROBOTS_MAX_BYTES;

/// A rule as it appears in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawRule<'a> {
    pub kind: RuleKind,
    pub line: u32,
    /// The value, or for an implied directory rule, the `/dir/` prefix.
    pub value: &'a [u8],
    /// Octets of the value before a long line was cut.
    pub cut_from: Option<usize>,
    /// Google's implied `Allow: /dir/$` for `Allow: /dir/index.html`:
    /// the pattern is `value` followed by `$`.
    pub implied_dir: bool,
}

/// What the grouper reports.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event<'a> {
    /// A new group starts at this line.
    GroupStart(#[cfg_attr(not(feature = "alloc"), allow(dead_code))] u32),
    /// The current group also applies to this agent.
    Agent(AgentToken<'a>),
    /// A rule of the current group.
    Rule(RawRule<'a>),
    /// A Crawl-delay of the current group.
    CrawlDelay(CrawlDelay),
    /// A Sitemap line (belongs to no group).
    Sitemap(#[cfg_attr(not(feature = "alloc"), allow(dead_code))] &'a [u8]),
}

/// Feeds the group events of `body` (the whole lines kept of a truncated
/// body) to `f`, then those of `tail`, the start of the line the 500 KiB
/// limit cut (see `limit`).
pub(crate) fn events<'a>(body: &'a [u8], tail: Option<&'a [u8]>, mut f: impl FnMut(Event<'a>)) {
    let mut in_group = false;
    let mut closed = false;
    let mut last_line = 0;
    for line in lines(body) {
        last_line = line.number;
        match line.directive {
            Directive::UserAgent(v) => {
                if !in_group || closed {
                    f(Event::GroupStart(line.number));
                    in_group = true;
                    closed = false;
                }
                f(Event::Agent(product_token(v)));
            }
            Directive::Allow(value) | Directive::Disallow { value, .. } if !in_group => {
                // Rules before any User-agent line belong to no group.
                let _ = value;
            }
            Directive::Allow(value) => {
                closed = true;
                f(Event::Rule(RawRule {
                    kind: RuleKind::Allow,
                    line: line.number,
                    value,
                    cut_from: None,
                    implied_dir: false,
                }));
                if let Some(n) = index_dir_prefix(value) {
                    f(Event::Rule(RawRule {
                        kind: RuleKind::Allow,
                        line: line.number,
                        value: &value[..n],
                        cut_from: None,
                        implied_dir: true,
                    }));
                }
            }
            Directive::Disallow {
                value,
                truncated_from,
            } => {
                closed = true;
                f(Event::Rule(RawRule {
                    kind: RuleKind::Disallow,
                    line: line.number,
                    value,
                    cut_from: truncated_from,
                    implied_dir: false,
                }));
            }
            Directive::CrawlDelay(v) if in_group => {
                if let Some(d) = CrawlDelay::parse(v) {
                    f(Event::CrawlDelay(d));
                }
            }
            Directive::Sitemap(v) if !v.is_empty() => f(Event::Sitemap(v)),
            _ => {}
        }
    }
    // Only a Disallow may use the cut line: its start matches every path
    // the whole value matched, and it keeps a precedence above any rule of
    // the file (its real length is unknown, but it reached the limit), so
    // it can only deny more (R2c). Anything else there is dropped: a cut
    // Allow would permit more than its author wrote.
    if let (Some(tail), true) = (tail, in_group) {
        if let Directive::Disallow { value, .. } = directive(tail) {
            f(Event::Rule(RawRule {
                kind: RuleKind::Disallow,
                line: last_line.saturating_add(1),
                value: superset_cut(value),
                cut_from: Some(ROBOTS_MAX_BYTES),
                implied_dir: false,
            }));
        }
    }
}

/// Where the selector sends the selected parts.
pub(crate) trait SelectSink<'a> {
    /// A longer named match was found: drop the named rules kept so far.
    fn reset_named(&mut self);
    /// A rule for the named set and/or the `*` set.
    fn rule(&mut self, named: bool, global: bool, rule: RawRule<'a>);
    /// A Crawl-delay for the named set and/or the `*` set.
    fn crawl_delay(&mut self, named: bool, global: bool, delay: CrawlDelay);
}

/// Streaming group selection for one product token: keeps the groups whose
/// agent is the longest match so far (merging equal ones) and the `*` groups.
pub(crate) struct Selector<'t> {
    wanted: &'t [u8],
    started: bool,
    resolved: bool,
    cur_len: Option<usize>,
    cur_global: bool,
    named: bool,
    pending_delay: Option<CrawlDelay>,
    /// Length of the longest named match so far; 0 when none.
    pub best: usize,
}

impl<'t> Selector<'t> {
    pub fn new(wanted: &'t [u8]) -> Self {
        Selector {
            wanted,
            started: false,
            resolved: false,
            cur_len: None,
            cur_global: false,
            named: false,
            pending_delay: None,
            best: 0,
        }
    }

    fn resolve<'a>(&mut self, sink: &mut impl SelectSink<'a>) {
        if self.resolved || !self.started {
            return;
        }
        self.resolved = true;
        if let Some(m) = self.cur_len {
            if m > self.best {
                sink.reset_named();
                self.best = m;
            }
        }
        self.named = self.best > 0 && self.cur_len == Some(self.best);
        if let Some(d) = self.pending_delay.take() {
            if self.named || self.cur_global {
                sink.crawl_delay(self.named, self.cur_global, d);
            }
        }
    }

    pub fn event<'a>(&mut self, ev: Event<'a>, sink: &mut impl SelectSink<'a>) {
        match ev {
            Event::GroupStart(_) => {
                self.resolve(sink);
                self.started = true;
                self.resolved = false;
                self.cur_len = None;
                self.cur_global = false;
                self.named = false;
            }
            Event::Agent(AgentToken::Global) => self.cur_global = true,
            Event::Agent(AgentToken::Named(t)) => {
                if let Some(m) = match_len(t, self.wanted) {
                    self.cur_len = Some(self.cur_len.map_or(m, |c| c.max(m)));
                }
            }
            Event::Agent(AgentToken::Empty) | Event::Sitemap(_) => {}
            Event::Rule(r) => {
                self.resolve(sink);
                if self.named || self.cur_global {
                    sink.rule(self.named, self.cur_global, r);
                }
            }
            Event::CrawlDelay(d) => {
                if self.resolved {
                    if self.named || self.cur_global {
                        sink.crawl_delay(self.named, self.cur_global, d);
                    }
                } else {
                    self.pending_delay = Some(self.pending_delay.map_or(d, |p| p.max(d)));
                }
            }
        }
    }

    /// Call once after the last event.
    pub fn finish<'a>(&mut self, sink: &mut impl SelectSink<'a>) {
        self.resolve(sink);
    }
}
