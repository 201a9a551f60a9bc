//! References we did not write, for R2a and R2c in `wr-feeds attest`
//! (issue #18): the platform robots parser's verdicts ([`crate::platform`],
//! Python's `urllib.robotparser`, spec 15.1) on the in-repository slice of
//! the corpus and on the generator families of the shapes an audit found.
//!
//! The reference model ([`crate::robots_model`]) was written here from the
//! spec's text; production and model share their readings, so a reading
//! both get wrong is invisible to every check that holds one against the
//! other. An outside audit found four such classes (octets a sent URL never
//! carries raw, Unicode whitespace, User-agent values cut at `/`, long
//! lines) while the model checks passed. So `attest` claims R2a and R2c
//! only when two more checks pass in-process, on the committed answers
//! ([`crate::platform::committed`]):
//!
//! * **the platform-parser differential**: production, on each URL in the
//!   form the bot sends, must deny every URL Python denies as the spec
//!   reads the file; a denial that one of Python's departures from the
//!   spec's text explains ([`crate::platform::Departure`]) is counted, not
//!   failed (R2c permits over-blocking, never under-blocking);
//! * **the generator families**: the same, on the generated bodies only,
//!   and there must be some: a differential on real files alone would not
//!   show that the audit's shapes were asked about.

use super::checks::Check;
use crate::platform::{self, Answered, Judge, Report};
use std::collections::BTreeMap;

/// The id prefix of the generated bodies (`gen/<family>/<n>`).
const GENERATED: &str = "gen/";

fn is_generated(id: &str) -> bool {
    id.starts_with(GENERATED)
}

/// The under-blocks of `report` among the bodies `keep` selects, shown.
fn under_blocks(report: &Report, keep: impl Fn(&str) -> bool) -> Vec<String> {
    report
        .failures
        .iter()
        .filter(|f| keep(&f.id))
        .map(|f| format!("{} {} ({:?})", f.id, platform::visible(&f.url), f.class))
        .collect()
}

fn departures(report: &Report) -> String {
    let taken: Vec<String> = report
        .departures
        .iter()
        .map(|(d, (n, _, _))| format!("{} {n}", d.name()))
        .collect();
    if taken.is_empty() {
        "none".to_string()
    } else {
        taken.join(", ")
    }
}

/// The two checks R2a and R2c need beyond the model, on `answered` (the
/// platform parser's answers) with `judge` in production's place
/// ([`crate::platform::production`] for the attestation): the differential
/// on every body, and on the generated families alone. Each fails on an
/// under-block, and when it had nothing to run on.
pub fn outside_checks(python: &str, answered: &[Answered], judge: Judge<'_>) -> Vec<Check> {
    let report = platform::run_with(answered, judge);
    let generated: Vec<&Answered> = answered.iter().filter(|a| is_generated(&a.id)).collect();
    let mut families: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for a in &generated {
        let f = families.entry(a.family.as_str()).or_default();
        f.0 += 1;
        f.1 += a.cases.len();
    }
    let show = |mut v: Vec<String>| {
        let n = v.len();
        v.truncate(5);
        format!("{n} under-blocks, e.g. {}", v.join("; "))
    };

    let what = format!(
        "wr-core's Policy on each URL as the bot sends it, against Python's urllib.robotparser \
         ({python}; answers committed in conformance/data/platform/robotparser.jsonl.gz): \
         {} bodies ({} generated, the rest the corpus slice), {} URLs, Python denies {}, \
         production denies {}",
        report.bodies,
        generated.len(),
        report.cases,
        report.python_denies,
        report.we_deny
    );
    let all = under_blocks(&report, |_| true);
    let differential = if report.cases == 0 {
        Check::new(
            "platform-parser differential",
            false,
            format!("{what}: no URL to ask about"),
        )
    } else if all.is_empty() {
        Check::new(
            "platform-parser differential",
            true,
            format!(
                "{what}: every URL Python denies as the spec reads the file is denied; \
                 departures of Python's from the spec's text taken: {}",
                departures(&report)
            ),
        )
    } else {
        Check::new(
            "platform-parser differential",
            false,
            format!("{what}: {}", show(all)),
        )
    };

    let names: Vec<String> = families
        .iter()
        .map(|(f, (bodies, urls))| format!("{f} ({bodies} bodies, {urls} URLs)"))
        .collect();
    let gen_under = under_blocks(&report, is_generated);
    let families_check = if families.is_empty() {
        Check::new(
            "generator families",
            false,
            "no generated body among the platform parser's answers: the shapes of issue #18 \
             were not asked about"
                .to_string(),
        )
    } else if gen_under.is_empty() {
        Check::new(
            "generator families",
            true,
            format!(
                "{} families ({}) of seeded bodies, each URL Python denies as the spec reads \
                 the file denied by production",
                families.len(),
                names.join("; ")
            ),
        )
    } else {
        Check::new(
            "generator families",
            false,
            format!(
                "{} families ({}): {}",
                families.len(),
                names.join("; "),
                show(gen_under)
            ),
        )
    };
    vec![differential, families_check]
}

/// [`outside_checks`] on the committed answers, against production; a
/// failing check when they cannot be read. Computed once per process: the
/// answers are compiled in and production does not change while it runs.
pub fn compiled_outside_checks() -> Vec<Check> {
    static ONCE: std::sync::OnceLock<Vec<Check>> = std::sync::OnceLock::new();
    ONCE.get_or_init(run_compiled).clone()
}

fn run_compiled() -> Vec<Check> {
    match platform::committed() {
        Ok((header, answered)) => outside_checks(
            &format!("{} {}", header.oracle, header.python),
            &answered,
            &platform::production,
        ),
        Err(e) => ["platform-parser differential", "generator families"]
            .iter()
            .map(|name| Check::new(name, false, format!("the committed answers: {e}")))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::PyCase;

    fn case(url: &str, allowed: bool) -> PyCase {
        PyCase {
            url: url.to_string(),
            allowed,
            line: None,
            text: None,
            agent_line: None,
            departs: Vec::new(),
            spec_like: (!allowed).then_some(false),
            spec_line: None,
            spec_text: None,
            spec_agent_line: None,
            spec_agent_text: None,
        }
    }

    fn body(id: &str, family: &str, cases: Vec<PyCase>) -> Answered {
        Answered {
            id: id.to_string(),
            family: family.to_string(),
            body: "User-agent: *\nDisallow: /private\n".to_string(),
            cases,
            error: None,
        }
    }

    fn answered() -> Vec<Answered> {
        vec![
            body(
                "slice/a.test",
                "slice",
                vec![case("https://example.com/private", false)],
            ),
            body(
                "gen/padding/0",
                "padding",
                vec![
                    case("https://example.com/private/x", false),
                    case("https://example.com/open", true),
                ],
            ),
        ]
    }

    #[test]
    fn production_passes_and_says_what_it_covered() {
        let checks = outside_checks("test", &answered(), &platform::production);
        for c in &checks {
            assert!(c.passed, "{}: {}", c.name, c.detail);
        }
        assert!(checks[0].detail.contains("3 URLs"), "{}", checks[0].detail);
        assert!(
            checks[1].detail.contains("padding (1 bodies, 2 URLs)"),
            "{}",
            checks[1].detail
        );
    }

    #[test]
    fn a_judge_that_allows_what_python_denies_fails_both() {
        let allow_all = |_: &str, urls: &[String]| vec![true; urls.len()];
        let checks = outside_checks("test", &answered(), &allow_all);
        assert!(!checks[0].passed && checks[0].detail.contains("2 under-blocks"));
        assert!(!checks[1].passed && checks[1].detail.contains("gen/padding/0"));
        assert!(
            !checks[1].detail.contains("slice/a.test"),
            "{}",
            checks[1].detail
        );
        // Over-blocking is permitted.
        let deny_all = |_: &str, urls: &[String]| vec![false; urls.len()];
        assert!(outside_checks("test", &answered(), &deny_all)
            .iter()
            .all(|c| c.passed));
    }

    #[test]
    fn nothing_to_run_on_is_no_proof() {
        let none = outside_checks("test", &[], &platform::production);
        assert!(none.iter().all(|c| !c.passed), "{none:?}");
        let slice_only: Vec<Answered> = answered().into_iter().take(1).collect();
        let checks = outside_checks("test", &slice_only, &platform::production);
        assert!(checks[0].passed, "{}", checks[0].detail);
        assert!(!checks[1].passed, "{}", checks[1].detail);
    }
}
