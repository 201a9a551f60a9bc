//! The platform robots parser, run differentially against production (R2c).
//!
//! Spec 15.1 names "the platform robots parser" as a reference. Python's
//! `urllib.robotparser` is a parser this project did not write, so it does
//! not share our readings' blind spots: where it denies a URL and
//! production allows it, either Python departs from the spec's text (and
//! the departure is listed here with the sentence it breaks) or production
//! under-blocks. The differential tests of earlier issues compared
//! production with the project's own model, which shares its readings, and
//! reported nothing while an audit found four classes of under-blocks
//! (issue #18).
//!
//! The questions are [`cases`]: real files with targets aimed at their
//! rules, and generator families for the shapes the audit found. Python's
//! answers are computed by `conformance/platform/robotparser_oracle.py`
//! and committed (`data/platform/robotparser.jsonl.gz`, see its README),
//! so the comparison runs anywhere, in-process (`wr-feeds attest`) and in
//! `cargo test`; a test re-runs Python when it is installed and fails if
//! its answers no longer equal the committed ones.
//!
//! Python's departures are recognised by what would change them, not by
//! listing cases: for every denial the oracle also asks Python with each
//! departure replaced by the spec's reading (first-match rule order by the
//! longest match, substring agents by prefixes, and so on, see
//! [`Departure`]). A denial that survives every replacement (`spec_like`
//! false) is one the spec's text denies as Python reads the file, and
//! production must deny it. A denial that some replacement lifts is a
//! departure. [`EXACT`] lists the cases no rule explains, each with its
//! reason.

pub mod cases;
pub mod diagnose;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use wr_core::robots::Policy;

pub use cases::{Input, ORIGIN};
pub use diagnose::UnderBlock;

/// The product token every case is asked for.
pub const TOKEN: &str = crate::robots_cases::TOKEN;

/// Python's answers to [`cases`], gzipped JSON Lines: the oracle's output.
pub const COMMITTED_GZ: &[u8] = include_bytes!("../../data/platform/robotparser.jsonl.gz");

/// The first line of the oracle's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// `urllib.robotparser`.
    pub oracle: String,
    /// The Python version that answered.
    pub python: String,
    /// The product token asked for.
    pub token: String,
    /// The departures the oracle knows, by name ([`Departure::name`]).
    pub departures: Vec<String>,
}

/// Python's answer for one URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PyCase {
    /// The URL asked (sent form).
    pub url: String,
    /// `RobotFileParser.can_fetch("Walsh-Research", url)`.
    pub allowed: bool,
    /// The deciding rule's line (Python's numbering: `str.splitlines`).
    #[serde(default)]
    pub line: Option<u32>,
    /// That line as Python read it (cut at 200 characters).
    #[serde(default)]
    pub text: Option<String>,
    /// The User-agent line that selected the deciding entry.
    #[serde(default)]
    pub agent_line: Option<u32>,
    /// The departures that, replaced alone by the spec's reading, lift the
    /// denial.
    #[serde(default)]
    pub departs: Vec<String>,
    /// Python's verdict with every departure replaced at once (`None` when
    /// Python allowed).
    #[serde(default)]
    pub spec_like: Option<bool>,
    /// When that still denies: the deciding rule's line, numbered as RFC
    /// 9309 (and production) end lines.
    #[serde(default)]
    pub spec_line: Option<u32>,
    /// That line's text (cut at 200 characters).
    #[serde(default)]
    pub spec_text: Option<String>,
    /// The User-agent line that selected its group.
    #[serde(default)]
    pub spec_agent_line: Option<u32>,
    /// That line's text.
    #[serde(default)]
    pub spec_agent_text: Option<String>,
}

/// One body with Python's answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answered {
    /// As in [`Input::id`].
    pub id: String,
    /// As in [`Input::family`].
    pub family: String,
    /// The body Python parsed.
    pub body: String,
    /// One answer per URL of the input, in order.
    #[serde(default)]
    pub cases: Vec<PyCase>,
    /// Set when Python's `parse` raised on this body (no verdicts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The questions: the generator families, then the in-repository slice of
/// the corpus when `slice` (its folder) is given. Files that cannot be
/// asked about are returned with the reason.
pub fn cases(slice: Option<&std::path::Path>) -> std::io::Result<(Vec<Input>, cases::LeftOut)> {
    let mut inputs = cases::generated();
    let mut skipped = Vec::new();
    if let Some(dir) = slice {
        let (real, left) = cases::real_dir(dir, "slice")?;
        inputs.extend(real);
        skipped.extend(left);
    }
    Ok((inputs, skipped))
}

/// Reads the oracle's output.
pub fn parse_answers(jsonl: &str) -> Result<(Header, Vec<Answered>), String> {
    let mut lines = jsonl
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, first) = lines.next().ok_or("the oracle's output is empty")?;
    let header: Header =
        serde_json::from_str(first).map_err(|e| format!("line 1 (the header): {e}"))?;
    for d in &header.departures {
        if Departure::from_name(d).is_none() {
            return Err(format!(
                "the oracle knows a departure `{d}` this crate does not: add it to Departure"
            ));
        }
    }
    let mut out = Vec::new();
    for (i, l) in lines {
        out.push(serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 1))?);
    }
    Ok((header, out))
}

/// The committed answers, decompressed.
pub fn committed_text() -> Result<String, String> {
    use std::io::Read;
    let mut s = String::new();
    flate2::read::GzDecoder::new(COMMITTED_GZ)
        .read_to_string(&mut s)
        .map_err(|e| format!("data/platform/robotparser.jsonl.gz: {e}"))?;
    Ok(s)
}

/// The committed answers, parsed.
pub fn committed() -> Result<(Header, Vec<Answered>), String> {
    parse_answers(&committed_text()?)
        .map_err(|e| format!("data/platform/robotparser.jsonl.gz: {e}"))
}

// ---- Python's departures from the spec's text ----------------------------

/// Where `urllib.robotparser` (Python 3.11) departs from the spec's text
/// so that it denies a URL the spec allows. Each is recognised by the
/// oracle replacing it alone by the spec's reading and Python then
/// allowing the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Departure {
    /// `str.splitlines` also ends lines at VT, FF, FS, GS, RS, NEL, LS and
    /// PS, so a value holding one loses its end to a line of its own (and
    /// an empty piece closes the group, below).
    LineBreaks,
    /// An empty line closes the entry: User-agent lines before it are
    /// dropped, rule lines after it are ignored.
    BlankLineEndsGroup,
    /// An entry applies when one of its agents is a substring of the token
    /// (`research`, `h-r`, `a`), not only equal to it or a prefix of it.
    SubstringAgent,
    /// The first entry that applies is used: no longest-match selection,
    /// no merging of entries with the same agent, and an entry that also
    /// names `*` is only ever the default.
    FirstMatchGroup,
    /// Only the first entry naming `*` is kept; later `*` groups are
    /// dropped instead of merged.
    FirstStarOnly,
    /// The first rule line that matches decides, in file order, instead of
    /// the longest (Allow on a tie).
    FirstMatchRule,
    /// `*` and `$` are literal octets (a lone `*` matches everything).
    NoWildcards,
    /// Rule values and targets are rebuilt by `urlparse`/`urlunparse`: an
    /// empty query or parameter (`/search?`, `/a;`) vanishes, and TAB, CR
    /// and LF, even escaped, are removed.
    UrlRoundTrip,
    /// Every escape is decoded as UTF-8 with replacement, so any two
    /// invalid sequences (`%FF`, `%FE`) compare equal.
    LossyDecoding,
    /// Several of the above together: no one alone lifts the denial, all
    /// of them at once do.
    Combined,
    /// A case of [`EXACT`], with the reason given there.
    Listed,
}

impl Departure {
    /// Every departure, in the oracle's order.
    pub const ALL: [Departure; 11] = [
        Departure::LineBreaks,
        Departure::BlankLineEndsGroup,
        Departure::SubstringAgent,
        Departure::FirstMatchGroup,
        Departure::FirstStarOnly,
        Departure::FirstMatchRule,
        Departure::NoWildcards,
        Departure::UrlRoundTrip,
        Departure::LossyDecoding,
        Departure::Combined,
        Departure::Listed,
    ];

    /// The oracle's name.
    pub fn name(self) -> &'static str {
        match self {
            Departure::LineBreaks => "line-breaks",
            Departure::BlankLineEndsGroup => "blank-line-ends-group",
            Departure::SubstringAgent => "substring-agent",
            Departure::FirstMatchGroup => "first-match-group",
            Departure::FirstStarOnly => "first-star-only",
            Departure::FirstMatchRule => "first-match-rule",
            Departure::NoWildcards => "no-wildcards",
            Departure::UrlRoundTrip => "url-round-trip",
            Departure::LossyDecoding => "lossy-decoding",
            Departure::Combined => "combined",
            Departure::Listed => "listed",
        }
    }

    /// The departure named `name`.
    pub fn from_name(name: &str) -> Option<Departure> {
        Departure::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The spec's sentence Python's behaviour departs from.
    pub fn rests_on(self) -> &'static str {
        match self {
            Departure::LineBreaks => "9.1: parse it per RFC 9309 (2.2: EOL = %x0A / %x0D / %x0D.0A)",
            Departure::BlankLineEndsGroup => "9.1.2: blank lines are ignored.",
            Departure::SubstringAgent => "9.1.3: U matches T when any of: U = \"*\", U = T, U is a prefix of T",
            Departure::FirstMatchGroup => "9.1.3: The non-* group whose matching U is longest wins. (15.1: the platform parser has first-match group selection rather than longest-match)",
            Departure::FirstStarOnly => "9.1.2: Records with the same User-agent value merge.",
            Departure::FirstMatchRule => "9.1.4: among matching rules, the longest value wins ... On a length tie, Allow wins.",
            Departure::NoWildcards => "9.1.4: * matches any sequence (including none); $ anchors to the end of path+query.",
            Departure::UrlRoundTrip => "9.1.4: a rule matches if path+query starts with the rule value",
            Departure::LossyDecoding => "9.1.4: Compare percent-encoding consistently (decode unreserved octets on both sides).",
            Departure::Combined => "each of the above",
            Departure::Listed => "see EXACT",
        }
    }
}

/// Cases no rule of [`Departure`] explains, by body id and URL, each with
/// its reason. Empty: every departure seen so far has a rule.
pub const EXACT: &[(&str, &str, &str)] = &[];

// ---- the differential --------------------------------------------------------

/// Production's verdicts on `urls` for `body`: the path `wr-feeds` takes
/// (`Policy::parse` with the product token; the URL in the form the bot
/// sends, `wr_feeds::pipeline::resolved`, split by `wr_core::url::Url`;
/// `Policy::check` on its path and query, as `Gate::check` does). A URL
/// production could not parse is never fetched: `false`.
pub fn production(body: &str, urls: &[String]) -> Vec<bool> {
    let policy = Policy::parse(body.as_bytes(), TOKEN);
    urls.iter()
        .map(|u| {
            let sent = wr_feeds::pipeline::resolved(u);
            match wr_core::url::Url::parse(&sent) {
                Ok(p) => policy.check(p.path_and_query).allowed,
                Err(_) => false,
            }
        })
        .collect()
}

/// How one case came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Python allows, or both deny.
    Agree,
    /// Python denies, production allows, and Python departs from the spec.
    Departure(Departure),
    /// Python denies as the spec reads the file, production allows.
    UnderBlock(UnderBlock),
}

/// A judge in production's place: a body and URLs, one "allowed" per URL.
pub type Judge<'a> = &'a dyn Fn(&str, &[String]) -> Vec<bool>;

/// The outcome of `case` (of body `id`, `body`) when `judge` (production,
/// in [`run`]) answers `we_allow`; an under-block's class is found by
/// asking `judge` again (see [`diagnose`]).
pub fn classify(id: &str, body: &str, case: &PyCase, we_allow: bool, judge: Judge<'_>) -> Outcome {
    if case.allowed || !we_allow {
        return Outcome::Agree;
    }
    if EXACT.iter().any(|(i, u, _)| *i == id && *u == case.url) {
        return Outcome::Departure(Departure::Listed);
    }
    if case.spec_like == Some(true) {
        let d = case
            .departs
            .iter()
            .find_map(|d| Departure::from_name(d))
            .unwrap_or(Departure::Combined);
        return Outcome::Departure(d);
    }
    let denies = |b: &str, u: &str| !judge(b, &[u.to_string()])[0];
    Outcome::UnderBlock(diagnose::under_block_by(body, &case.url, &denies))
}

/// An under-block: what a failure names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The body's id.
    pub id: String,
    /// Its class.
    pub class: UnderBlock,
    /// The URL production would fetch.
    pub url: String,
    /// The rule that denies it as the spec reads the file: line number
    /// (production's numbering) and text.
    pub rule: Option<(u32, String)>,
    /// The User-agent line that selected that rule's group.
    pub agent: Option<(u32, String)>,
}

/// `s` for a terminal: control characters and Unicode spaces escaped,
/// a long line cut in its middle.
pub fn visible(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let shown = |cs: &[char]| {
        let mut out = String::new();
        for &c in cs {
            if c.is_control() || (c.is_whitespace() && c != ' ') {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            } else {
                out.push(c);
            }
        }
        out
    };
    if chars.len() <= 120 {
        return shown(&chars);
    }
    format!(
        "{}…[{} chars]…{}",
        shown(&chars[..50]),
        chars.len() - 100,
        shown(&chars[chars.len() - 50..])
    )
}

/// What the differential found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Bodies asked about.
    pub bodies: usize,
    /// Bodies Python's `parse` raised on (no verdicts).
    pub python_errors: usize,
    /// URLs asked.
    pub cases: usize,
    /// URLs Python denies.
    pub python_denies: usize,
    /// URLs production denies.
    pub we_deny: usize,
    /// Python denies, production allows, explained by a departure: count
    /// and the first case (id, URL).
    pub departures: BTreeMap<Departure, (usize, String, String)>,
    /// Python denies as the spec reads the file, production allows.
    pub failures: Vec<Failure>,
}

/// Runs production against Python's answers in `answered`: what `wr-feeds
/// attest` asks for R2c.
pub fn run(answered: &[Answered]) -> Report {
    run_with(answered, &production)
}

/// [`run`] with `judge` in production's place.
pub fn run_with(answered: &[Answered], judge: Judge<'_>) -> Report {
    let mut r = Report::default();
    for a in answered {
        r.bodies += 1;
        if a.error.is_some() {
            r.python_errors += 1;
            continue;
        }
        let urls: Vec<String> = a.cases.iter().map(|c| c.url.clone()).collect();
        let ours = judge(&a.body, &urls);
        for (case, we_allow) in a.cases.iter().zip(ours) {
            r.cases += 1;
            r.python_denies += usize::from(!case.allowed);
            r.we_deny += usize::from(!we_allow);
            match classify(&a.id, &a.body, case, we_allow, judge) {
                Outcome::Agree => {}
                Outcome::Departure(d) => {
                    r.departures
                        .entry(d)
                        .or_insert_with(|| (0, a.id.clone(), case.url.clone()))
                        .0 += 1;
                }
                Outcome::UnderBlock(class) => {
                    let at = |n: Option<u32>, t: &Option<String>| {
                        n.map(|n| (n, visible(t.as_deref().unwrap_or(""))))
                    };
                    r.failures.push(Failure {
                        id: a.id.clone(),
                        class,
                        url: case.url.clone(),
                        rule: at(case.spec_line, &case.spec_text),
                        agent: at(case.spec_agent_line, &case.spec_agent_text),
                    });
                }
            }
        }
    }
    r
}

/// The under-blocks of production against `answered` (empty when R2c
/// holds against the platform parser).
pub fn failures(answered: &[Answered]) -> Vec<Failure> {
    run(answered).failures
}

impl Report {
    /// The figures, one per line.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} bodies ({} Python could not parse), {} URLs: Python denies {}, production denies {}, \
             under-blocks {}\n",
            self.bodies,
            self.python_errors,
            self.cases,
            self.python_denies,
            self.we_deny,
            self.failures.len()
        );
        for (d, (n, id, url)) in &self.departures {
            let _ = writeln!(s, "  departure {:<22} {n:>6}  e.g. {id} {url}", d.name());
        }
        s
    }

    /// Every under-block class with its count and one example.
    pub fn failure_message(&self) -> String {
        let mut by: BTreeMap<UnderBlock, Vec<&Failure>> = BTreeMap::new();
        for f in &self.failures {
            by.entry(f.class).or_default().push(f);
        }
        let mut s = format!(
            "production allows {} URLs that Python's urllib.robotparser denies as the spec reads \
             the file (R2c: never under-block):\n",
            self.failures.len()
        );
        for (class, fs) in &by {
            let f = fs[0];
            let _ = writeln!(
                s,
                "- {}: {} URLs; e.g. {} {}",
                class.name(),
                fs.len(),
                f.id,
                f.url
            );
            if let Some((n, t)) = &f.rule {
                let _ = writeln!(s, "    rule  line {n}: {t}");
            }
            if let Some((n, t)) = &f.agent {
                let _ = writeln!(s, "    agent line {n}: {t}");
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_judges_the_url_in_the_form_the_bot_sends() {
        let body = "User-agent: *\nDisallow: /a%7Bb\nDisallow: /c/d\n";
        let urls = [
            "https://example.com/a{b".to_string(),
            "https://example.com/x/../c/d#f".to_string(),
            "https://example.com/ok".to_string(),
        ];
        assert_eq!(production(body, &urls), [false, false, true]);
    }

    #[test]
    fn the_oracle_and_this_crate_know_the_same_departures() {
        let (header, _) = committed().unwrap();
        let ours: Vec<&str> = Departure::ALL
            .iter()
            .filter(|d| !matches!(d, Departure::Combined | Departure::Listed))
            .map(|d| d.name())
            .collect();
        assert_eq!(header.departures, ours);
    }

    #[test]
    fn a_judge_that_allows_everything_fails_on_every_denial_the_spec_keeps() {
        // Small bodies only: every failure is diagnosed, repairs and all.
        let (_, mut answered) = committed().unwrap();
        answered.retain(|a| a.body.len() < 2_000);
        let allow_all = |_: &str, urls: &[String]| vec![true; urls.len()];
        let r = run_with(&answered, &allow_all);
        let spec_denials = answered
            .iter()
            .flat_map(|a| &a.cases)
            .filter(|c| c.spec_like == Some(false))
            .count();
        assert!(spec_denials > 3_000, "{spec_denials}");
        assert_eq!(r.failures.len(), spec_denials);
        assert_eq!(r.we_deny, 0);
        let departed: usize = r.departures.values().map(|(n, _, _)| n).sum();
        assert_eq!(departed + spec_denials, r.python_denies);
    }

    #[test]
    fn a_judge_that_denies_everything_never_fails() {
        let (_, answered) = committed().unwrap();
        let deny_all = |_: &str, urls: &[String]| vec![false; urls.len()];
        let r = run_with(&answered, &deny_all);
        assert!(r.failures.is_empty() && r.departures.is_empty());
        assert_eq!(r.we_deny, r.cases);
    }
}
