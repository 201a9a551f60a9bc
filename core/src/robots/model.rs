//! The allocating models: [`Robots`] (every group) and [`Policy`] (the rules
//! selected for one product token).

use super::agent::AgentToken;
use super::group::{events, Event, RawRule, SelectSink, Selector};
use super::{decide, limit, CrawlDelay, Key, Limited, RuleKind, RuleSet, RuleView, Verdict};
use crate::constants::UA_TOKEN;
use crate::percent;
use alloc::vec::Vec;

/// Offset and length into an arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Span(u32, u32);

impl Span {
    fn get(self, arena: &[u8]) -> &[u8] {
        let (s, n) = (self.0 as usize, self.1 as usize);
        arena.get(s..s + n).unwrap_or_default()
    }
}

fn push(arena: &mut Vec<u8>, bytes: &[u8]) -> Span {
    let start = arena.len();
    arena.extend_from_slice(bytes);
    Span(start as u32, bytes.len() as u32)
}

#[derive(Debug, Clone, Copy)]
struct StoredRule {
    kind: RuleKind,
    line: u32,
    text: Span,
    spec: Span,
    google: Span,
    priority: u32,
    google_priority: u32,
}

/// The rules that apply to one product token, ready to answer queries.
///
/// Rules are kept sorted by precedence (longest first, Allow before Disallow
/// on equal length), so the first matching rule decides and a query costs
/// no allocation (unless its target needs percent-normalising and is over
/// 8 KiB once normalised: that one is copied to the heap to be matched in
/// linear time).
#[derive(Debug, Clone, Default)]
pub struct Policy {
    arena: Vec<u8>,
    rules: Vec<StoredRule>,
    /// [`Key`] of each rule's canonical form, in rule order: scanned on
    /// every query, so kept apart from the rules for cache density.
    keys: Vec<Key>,
    /// Keys of Google's forms; empty when every form equals the canonical
    /// one (`has_alt` false), the keys above serving both readings.
    google_keys: Vec<Key>,
    crawl_delay: Option<CrawlDelay>,
    has_alt: bool,
    selected: Selected,
    truncated: bool,
}

/// Which group(s) a [`Policy`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selected {
    /// Groups naming the token (or a prefix of it), merged.
    Named,
    /// The `*` groups, merged.
    Global,
    /// No group applies: everything is allowed.
    #[default]
    None,
}

/// One candidate set of rules. Rules stay borrowed from the body until the
/// end of the file decides which set applies: the discarded set (and every
/// named set a longer match replaced) never costs a copy.
#[derive(Default)]
struct SetBuilder<'a> {
    rules: Vec<RawRule<'a>>,
    delay: Option<CrawlDelay>,
}

#[derive(Default)]
struct PolicyBuilder<'a> {
    named: SetBuilder<'a>,
    global: SetBuilder<'a>,
}

/// Whether every form of a value is the value itself: canonical form and
/// Google's form only ever change `%` escapes and octets outside 0x21..=0x7E.
fn is_plain(value: &[u8]) -> bool {
    // Fixed-size chunks folded without an early exit vectorise; the
    // early exit per chunk keeps long non-plain values cheap too.
    value.chunks(16).all(|c| {
        c.iter().fold(true, |ok, &b| {
            ok & (b != b'%') & (b.wrapping_sub(0x21) < 0x5e)
        })
    })
}

/// Appends the three forms of `r` to `arena`; also says whether Google's
/// form differs from the canonical one.
fn store(arena: &mut Vec<u8>, r: &RawRule<'_>) -> (StoredRule, bool) {
    let dollar = r.implied_dir.then_some(b'$');
    let cut = r.cut_from.unwrap_or(0) as u32;
    let (text, spec, google, alt) = if is_plain(r.value) {
        let text = push(arena, r.value);
        arena.extend(dollar);
        let one = Span(text.0, text.1 + u32::from(r.implied_dir));
        (one, one, one, false)
    } else {
        let text = push(arena, r.value);
        arena.extend(dollar);
        let text = Span(text.0, text.1 + u32::from(r.implied_dir));
        let spec_start = arena.len();
        percent::normalize_byte_stream(r.value, |b| arena.push(b));
        arena.extend(dollar);
        let spec = Span(spec_start as u32, (arena.len() - spec_start) as u32);
        let google_start = arena.len();
        percent::google_form(r.value, |b| arena.push(b));
        arena.extend(dollar);
        let google = Span(google_start as u32, (arena.len() - google_start) as u32);
        if google.get(arena) == spec.get(arena) {
            arena.truncate(google_start);
            (text, spec, spec, false)
        } else {
            (text, spec, google, true)
        }
    };
    let rule = StoredRule {
        kind: r.kind,
        line: r.line,
        text,
        spec,
        google,
        priority: spec.1.max(cut),
        google_priority: google.1.max(cut),
    };
    (rule, alt)
}

impl PolicyBuilder<'_> {
    fn finish(self, best: usize, truncated: bool) -> Policy {
        let (set, selected) = if best > 0 {
            (self.named, Selected::Named)
        } else if !self.global.rules.is_empty() || self.global.delay.is_some() {
            (self.global, Selected::Global)
        } else {
            (SetBuilder::default(), Selected::None)
        };
        // Plain values (nearly all) take exactly their length plus an
        // implied `$`: one allocation, usually the final one.
        let plain_len: usize = set.rules.iter().map(|r| r.value.len() + 1).sum();
        let mut arena = Vec::with_capacity(plain_len);
        let mut has_alt = false;
        let mut rules: Vec<StoredRule> = set
            .rules
            .iter()
            .map(|r| {
                let (rule, alt) = store(&mut arena, r);
                has_alt |= alt;
                rule
            })
            .collect();
        // Stable: among equal rules the first in the file reports.
        rules.sort_by(|a, b| {
            b.priority
                .cmp(&a.priority)
                .then_with(|| (a.kind == RuleKind::Disallow).cmp(&(b.kind == RuleKind::Disallow)))
        });
        let keys = rules
            .iter()
            .map(|r| Key::of_pattern(r.spec.get(&arena)))
            .collect();
        let google_keys = if has_alt {
            rules
                .iter()
                .map(|r| Key::of_pattern(r.google.get(&arena)))
                .collect()
        } else {
            Vec::new()
        };
        arena.shrink_to_fit();
        Policy {
            arena,
            rules,
            keys,
            google_keys,
            crawl_delay: set.delay,
            has_alt,
            selected,
            truncated,
        }
    }
}

impl<'a> SelectSink<'a> for PolicyBuilder<'a> {
    fn reset_named(&mut self) {
        self.named.rules.clear();
        self.named.delay = None;
    }

    fn rule(&mut self, named: bool, global: bool, rule: RawRule<'a>) {
        if named {
            self.named.rules.push(rule);
        }
        if global {
            self.global.rules.push(rule);
        }
    }

    fn crawl_delay(&mut self, named: bool, global: bool, delay: CrawlDelay) {
        // Several Crawl-delays for one token (merged groups): the longest
        // is the one that cannot be too fast for any of their authors.
        if named {
            self.named.delay = self.named.delay.max(Some(delay));
        }
        if global {
            self.global.delay = self.global.delay.max(Some(delay));
        }
    }
}

impl Policy {
    /// Parses `body` keeping only what applies to `token` (section 9.1.3).
    /// Never fails; bodies over 500 KiB are cut (section 9.1.1).
    pub fn parse(body: &[u8], token: &str) -> Policy {
        let Limited {
            head,
            tail,
            truncated,
        } = limit(body);
        let mut builder = PolicyBuilder::default();
        let mut selector = Selector::new(token.as_bytes());
        events(head, tail, |ev| selector.event(ev, &mut builder));
        selector.finish(&mut builder);
        builder.finish(selector.best, truncated)
    }

    /// A policy with no rules: everything allowed (robots.txt answered 4xx).
    pub fn allow_all() -> Policy {
        Policy::default()
    }

    /// Decides whether `path_and_query` (as in a request target: `/a?b`;
    /// empty means `/`) may be fetched.
    pub fn check(&self, path_and_query: &str) -> Verdict<'_> {
        self.check_bytes(path_and_query.as_bytes())
    }

    /// [`Policy::check`] on raw octets.
    pub fn check_bytes(&self, path_and_query: &[u8]) -> Verdict<'_> {
        decide::<_, POLICY_SCRATCH>(self, path_and_query, true, self.has_alt)
    }

    /// The selected group's Crawl-delay (R2d), the largest if groups merged.
    pub fn crawl_delay(&self) -> Option<CrawlDelay> {
        self.crawl_delay
    }

    /// Which group(s) applied.
    pub fn selected(&self) -> Selected {
        self.selected
    }

    /// The kept rules in precedence order (as written, with line numbers).
    pub fn rules(&self) -> impl Iterator<Item = super::MatchedRule<'_>> + '_ {
        self.rules.iter().map(|r| super::MatchedRule {
            kind: r.kind,
            pattern: r.text.get(&self.arena),
            line: r.line,
        })
    }

    /// Number of rules kept.
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }

    /// Whether the body was longer than 500 KiB and cut.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Heap bytes held by this policy (for capacity planning and benches).
    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity()
            + self.rules.capacity() * core::mem::size_of::<StoredRule>()
            + (self.keys.capacity() + self.google_keys.capacity()) * core::mem::size_of::<Key>()
    }
}

/// Stack octets a request target that needs percent-normalising may take
/// while it is matched (see `decide`); only a longer target costs an
/// allocation.
const POLICY_SCRATCH: usize = 8192;

impl<'a> RuleSet<'a> for &'a Policy {
    const HEAP_COPY: bool = true;

    #[inline]
    fn len(self) -> usize {
        self.rules.len()
    }

    #[inline]
    fn admits(self, i: usize, google: bool, head: Key) -> bool {
        let keys = if google && self.has_alt {
            &self.google_keys
        } else {
            &self.keys
        };
        keys.get(i).is_some_and(|k| k.admits(head))
    }

    #[inline]
    fn view(self, i: usize) -> RuleView<'a> {
        let r = &self.rules[i];
        let arena = &self.arena[..];
        RuleView {
            kind: r.kind,
            line: r.line,
            text: r.text.get(arena),
            spec: r.spec.get(arena),
            google: r.google.get(arena),
            priority: r.priority as usize,
            google_priority: r.google_priority as usize,
            match_all: false,
        }
    }
}

/// One group of a parsed robots.txt.
#[derive(Debug, Clone, Copy)]
pub struct Group<'a> {
    robots: &'a Robots,
    index: usize,
}

#[derive(Debug, Clone)]
struct GroupRec {
    line: u32,
    agents: core::ops::Range<u32>,
    rules: core::ops::Range<u32>,
    crawl_delay: Option<CrawlDelay>,
}

#[derive(Debug, Clone, Copy)]
enum AgentRec {
    Global,
    Named(Span),
    Empty,
}

#[derive(Debug, Clone, Copy)]
struct RuleRec {
    kind: RuleKind,
    line: u32,
    value: Span,
    cut_from: Option<u32>,
    implied_dir: bool,
}

/// A whole robots.txt: every group and every Sitemap line, for inspection
/// and for evaluating any product token (see [`Robots::policy`]).
#[derive(Debug, Clone, Default)]
pub struct Robots {
    arena: Vec<u8>,
    groups: Vec<GroupRec>,
    agents: Vec<AgentRec>,
    rules: Vec<RuleRec>,
    sitemaps: Vec<Span>,
    truncated: bool,
}

impl Robots {
    /// Parses `body`. Never fails; bodies over 500 KiB are cut.
    pub fn parse(body: &[u8]) -> Robots {
        let Limited {
            head,
            tail,
            truncated,
        } = limit(body);
        let mut r = Robots {
            truncated,
            ..Robots::default()
        };
        events(head, tail, |ev| match ev {
            Event::GroupStart(line) => {
                let a = r.agents.len() as u32;
                let n = r.rules.len() as u32;
                r.groups.push(GroupRec {
                    line,
                    agents: a..a,
                    rules: n..n,
                    crawl_delay: None,
                });
            }
            Event::Agent(t) => {
                let rec = match t {
                    AgentToken::Global => AgentRec::Global,
                    AgentToken::Named(t) => AgentRec::Named(push(&mut r.arena, t)),
                    AgentToken::Empty => AgentRec::Empty,
                };
                r.agents.push(rec);
                if let Some(g) = r.groups.last_mut() {
                    g.agents.end = r.agents.len() as u32;
                }
            }
            Event::Rule(rule) => {
                let value = push(&mut r.arena, rule.value);
                r.rules.push(RuleRec {
                    kind: rule.kind,
                    line: rule.line,
                    value,
                    cut_from: rule.cut_from.map(|n| n as u32),
                    implied_dir: rule.implied_dir,
                });
                if let Some(g) = r.groups.last_mut() {
                    g.rules.end = r.rules.len() as u32;
                }
            }
            Event::CrawlDelay(d) => {
                if let Some(g) = r.groups.last_mut() {
                    g.crawl_delay = g.crawl_delay.max(Some(d));
                }
            }
            Event::Sitemap(s) => {
                let span = push(&mut r.arena, s);
                r.sitemaps.push(span);
            }
        });
        r
    }

    /// The rules for `token` (section 9.1.3), as [`Policy::parse`] would
    /// select them.
    pub fn policy(&self, token: &str) -> Policy {
        let mut builder = PolicyBuilder::default();
        let mut selector = Selector::new(token.as_bytes());
        for g in &self.groups {
            selector.event(Event::GroupStart(g.line), &mut builder);
            for a in &self.agents[g.agents.start as usize..g.agents.end as usize] {
                let t = match *a {
                    AgentRec::Global => AgentToken::Global,
                    AgentRec::Named(s) => AgentToken::Named(s.get(&self.arena)),
                    AgentRec::Empty => AgentToken::Empty,
                };
                selector.event(Event::Agent(t), &mut builder);
            }
            if let Some(d) = g.crawl_delay {
                selector.event(Event::CrawlDelay(d), &mut builder);
            }
            for r in &self.rules[g.rules.start as usize..g.rules.end as usize] {
                let raw = RawRule {
                    kind: r.kind,
                    line: r.line,
                    value: r.value.get(&self.arena),
                    cut_from: r.cut_from.map(|n| n as usize),
                    implied_dir: r.implied_dir,
                };
                selector.event(Event::Rule(raw), &mut builder);
            }
        }
        selector.finish(&mut builder);
        builder.finish(selector.best, self.truncated)
    }

    /// Convenience: select for `token`, then decide `path_and_query`.
    /// Allocates the selection; keep a [`Policy`] to answer many queries.
    pub fn is_allowed(&self, token: &str, path_and_query: &str) -> bool {
        self.policy(token).check(path_and_query).allowed
    }

    /// The Walsh-Research policy.
    pub fn walsh_research(&self) -> Policy {
        self.policy(UA_TOKEN)
    }

    /// Sitemap URLs, in file order.
    pub fn sitemaps(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.sitemaps.iter().map(|s| s.get(&self.arena))
    }

    /// The groups, in file order.
    pub fn groups(&self) -> impl Iterator<Item = Group<'_>> + '_ {
        (0..self.groups.len()).map(|index| Group {
            robots: self,
            index,
        })
    }

    /// Whether the body was longer than 500 KiB and cut.
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

impl<'a> Group<'a> {
    fn rec(&self) -> &'a GroupRec {
        &self.robots.groups[self.index]
    }

    /// Line of the group's first User-agent line.
    pub fn line(&self) -> u32 {
        self.rec().line
    }

    /// The product tokens the group names (`*` for the global group).
    pub fn agents(&self) -> impl Iterator<Item = AgentToken<'a>> + 'a {
        let robots = self.robots;
        let r = self.rec().agents.clone();
        robots.agents[r.start as usize..r.end as usize]
            .iter()
            .map(move |a| match *a {
                AgentRec::Global => AgentToken::Global,
                AgentRec::Named(s) => AgentToken::Named(s.get(&robots.arena)),
                AgentRec::Empty => AgentToken::Empty,
            })
    }

    /// Number of Allow/Disallow rules (including implied directory rules).
    pub fn rule_count(&self) -> usize {
        self.rec().rules.len()
    }

    /// The group's Crawl-delay.
    pub fn crawl_delay(&self) -> Option<CrawlDelay> {
        self.rec().crawl_delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    #[test]
    fn plain_is_exactly_the_octets_no_form_changes() {
        for b in 0..=255u8 {
            let want = b != b'%' && (0x21..=0x7e).contains(&b);
            // Also past the first 16-octet chunk.
            let mut long = Vec::from(&b"/0123456789abcdefghij"[..]);
            long.push(b);
            assert_eq!(is_plain(&[b]), want, "{b:#x}");
            assert_eq!(is_plain(&long), want, "{b:#x}");
            let mut spec = Vec::new();
            percent::normalize_byte_stream(&[b], |o| spec.push(o));
            let mut google = Vec::new();
            percent::google_form(&[b], |o| google.push(o));
            if want {
                assert_eq!((&spec[..], &google[..]), (&[b][..], &[b][..]), "{b:#x}");
            }
        }
    }

    #[test]
    fn every_value_form_survives_storage() {
        let body = "User-agent: *\nDisallow: /a b\nDisallow: /t%7e\nAllow: /é\nDisallow: /x\x7f\nAllow: /d/index.html\nDisallow: /p*q$\n";
        let p = Policy::parse(body.as_bytes(), "Walsh-Research");
        let mut written: Vec<&[u8]> = p.rules().map(|r| r.pattern).collect();
        written.sort();
        let mut want: Vec<&[u8]> = [
            &b"/a b"[..],
            b"/t%7e",
            "/é".as_bytes(),
            b"/x\x7f",
            b"/d/index.html",
            b"/d/$",
            b"/p*q$",
        ]
        .to_vec();
        want.sort();
        assert_eq!(written, want);
        assert!(
            p.has_alt,
            "`/é` and `/t%7e` read differently in Google's form"
        );
        for (path, allowed) in [
            ("/a b", false),
            ("/a%20b", false),
            ("/t~", false),
            ("/t%7E", false),
            ("/%C3%A9", true),
            ("/x%7F", false),
            ("/d/", true),
            ("/pzq", false),
            ("/pzqz", true),
        ] {
            assert_eq!(p.check(path).allowed, allowed, "{path}");
        }
    }
}
