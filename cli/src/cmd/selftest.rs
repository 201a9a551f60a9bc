//! `wr-feeds selftest`: the live section 13 fixtures against the
//! operator's site, through the production pipeline; its record is what
//! `attest` reads.

use crate::cmd::check::check_line;
use crate::cmd::setup::{config, now_secs, open};
use crate::digest;
use crate::sources::Settings;
use crate::ui::Ui;
use crate::{CliError, CmdResult, Common};
use serde::{Deserialize, Serialize};
use std::process::ExitCode;
use wr_core::constants::{SPEC_VERSION, TEST_FIXTURES_PATH, UA_TOKEN};
use wr_core::robots::Policy;
use wr_feeds::extract::clean_message;
use wr_feeds::{CheckReport, FetchError, Pipeline};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Print the recorded result as JSON instead of one line per expectation.
    #[arg(long)]
    pub(crate) json: bool,
}

/// What became of one expectation of the self-test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Verified.
    Pass,
    /// Verified wrong.
    Fail,
    /// Not verified (counts as not passed).
    Skip,
}

impl Outcome {
    /// `pass`, `fail` or `skip`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Skip => "skip",
        }
    }
}

/// One expectation of the self-test.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Expectation {
    /// Requirement(s) exercised, e.g. `R2`.
    pub requirement: String,
    /// Fixture or canary name.
    pub check: String,
    /// `pass`, `fail` or `skip` (not verified: counts as not passed).
    pub outcome: Outcome,
    /// What was expected and what happened.
    pub detail: String,
}

/// A recorded self-test (`<state dir>/selftest.json`), read by `attest`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SelftestRecord {
    /// RFC 3339.
    pub generated: String,
    /// Unix seconds.
    pub generated_unix: i64,
    /// `wr-feeds` version.
    pub tool_version: String,
    /// Spec targeted.
    pub spec: String,
    /// Operator base the fixtures came from.
    pub operator_base: String,
    /// R13 tags sent (`impl`, `sha`, `spec`), if any.
    pub r13: Option<[String; 3]>,
    /// Every expectation passed.
    pub passed: bool,
    /// The expectations.
    pub expectations: Vec<Expectation>,
}

/// Where the self-test record lives.
pub const SELFTEST_FILE: &str = "selftest.json";

struct Tally<'a> {
    ui: &'a Ui,
    list: Vec<Expectation>,
    json: bool,
    /// Standard output could not be written (e.g. a closed pipe).
    out_failed: Option<CliError>,
}

impl Tally<'_> {
    fn add(&mut self, requirement: &str, check: &str, outcome: Outcome, detail: String) {
        if !self.json && self.out_failed.is_none() {
            let word = outcome.as_str().to_ascii_uppercase();
            if let Err(e) = crate::ui::print_out(&format!(
                "{}  {requirement:<4} {check}: {detail}\n",
                self.ui.verdict(&word)
            )) {
                self.out_failed = Some(e);
            }
        }
        self.list.push(Expectation {
            requirement: requirement.into(),
            check: check.into(),
            outcome,
            detail,
        });
    }
    fn pass_fail(&mut self, requirement: &str, check: &str, ok: bool, detail: String) {
        self.add(
            requirement,
            check,
            if ok { Outcome::Pass } else { Outcome::Fail },
            detail,
        );
    }
}

/// One gated GET; a state-store failure is reported as a failed fetch.
fn gated(
    p: &mut Pipeline,
    url: &str,
    accept: Option<&'static str>,
    ui: &mut Ui,
) -> Result<wr_feeds::Fetched, FetchError> {
    p.fetch_gated(url, accept, ui).unwrap_or_else(|e| {
        Err(FetchError::Failed {
            url: url.to_string(),
            reason: e.to_string(),
        })
    })
}

/// A section 5 operator document, parsed as JSON.
fn operator_json(p: &mut Pipeline, path: &str, ui: &mut Ui) -> Result<serde_json::Value, String> {
    let f = p
        .fetch_operator(path, Some("application/json"), ui)
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    if !(200..300).contains(&f.status) {
        return Err(format!("{}: HTTP {}", f.final_url, f.status));
    }
    serde_json::from_slice(&f.body).map_err(|e| format!("{}: not JSON: {e}", f.final_url))
}

fn describe_fetch(r: &Result<wr_feeds::Fetched, FetchError>) -> String {
    match r {
        Ok(f) => format!("answered {}", f.status),
        Err(e) => e.to_string(),
    }
}

fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(|h| h.to_ascii_lowercase()))
        .unwrap_or_default()
}

/// What the steps share: the pipeline, the requests seen, the tally,
/// and the fixtures index once read.
struct Session<'a> {
    p: Pipeline,
    ui: Ui,
    t: Tally<'a>,
    base: String,
    fixtures: Option<serde_json::Value>,
}

/// The `Accept` every fixture is asked with.
const ACCEPT: Option<&str> = Some("text/markdown");

/// The self-test's steps, in the order their expectations are listed:
/// section 13's fixtures, then section 16's canaries.
const STEPS: &[fn(&mut Session<'_>)] = &[
    fixtures_index,
    allowed_fixtures,
    robots_disallowed,
    external_positive,
    operator_blocked_host,
    canaries,
];

impl Session<'_> {
    /// The fixture `k` of the index, if the index was read and has it.
    fn fx(&self, k: &str) -> Option<String> {
        self.fixtures
            .as_ref()
            .and_then(|f| f[k].as_str())
            .map(str::to_string)
    }

    /// `k` is not in the fixtures index: a failed expectation.
    fn missing(&mut self, req: &str, k: &str) {
        self.t
            .pass_fail(req, k, false, "not in the fixtures index".to_string())
    }

    fn gated(&mut self, url: &str) -> Result<wr_feeds::Fetched, FetchError> {
        gated(&mut self.p, url, ACCEPT, &mut self.ui)
    }
}

fn fetched_ok(r: &Result<wr_feeds::Fetched, FetchError>) -> bool {
    matches!(r, Ok(f) if (200..300).contains(&f.status) || f.status == 304)
}

/// Section 13: the fixtures index.
fn fixtures_index(s: &mut Session<'_>) {
    let base = &s.base;
    s.fixtures = match operator_json(&mut s.p, TEST_FIXTURES_PATH, &mut s.ui) {
        Ok(v) => {
            let contract = v["contract"].as_str().unwrap_or("");
            let major =
                wr_core::blocklist::contract_major(contract, "walsh-research-test-fixtures");
            s.t.pass_fail(
                "13",
                "fixtures index",
                major == Some(1),
                format!("{base}{TEST_FIXTURES_PATH}: contract `{contract}` (expected walsh-research-test-fixtures/v1)"),
            );
            (major == Some(1)).then(|| v["fixtures"].clone())
        }
        Err(e) => {
            s.t.pass_fail(
                "13",
                "fixtures index",
                false,
                format!("{base}{TEST_FIXTURES_PATH}: {e}"),
            );
            None
        }
    };
}

/// R2, R2a: the fixtures robots.txt allows the bot.
fn allowed_fixtures(s: &mut Session<'_>) {
    for (key, req, what) in [
        (
            "robots_allowed_sentinel",
            "R2",
            "fetched (200), allowed by robots.txt",
        ),
        (
            "walsh_only_allowed",
            "R2a",
            "fetched (200): `*` is disallowed, the Walsh-Research group allows",
        ),
    ] {
        match s.fx(key) {
            Some(u) => {
                let r = s.gated(&u);
                let ok = fetched_ok(&r);
                s.t.pass_fail(
                    req,
                    key,
                    ok,
                    format!("{u}: expected {what}; {}", describe_fetch(&r)),
                );
            }
            None => s.missing(req, key),
        }
    }
}

/// R2: a disallowed fixture, in every representation, is refused without
/// a request.
fn robots_disallowed(s: &mut Session<'_>) {
    let Some(u) = s.fx("robots_disallowed") else {
        return s.missing("R2", "robots_disallowed");
    };
    for rep in [u.clone(), format!("{u}.html"), format!("{u}.md")] {
        let before = s.ui.requests.len();
        let r = s.gated(&rep);
        let sent = s.ui.requests[before..].iter().any(|x| x == &rep);
        let ok = matches!(r, Err(FetchError::DeniedRobots { .. })) && !sent;
        s.t.pass_fail(
            "R2",
            "robots_disallowed",
            ok,
            format!(
                "{rep}: expected refused at R2 without a request; {}",
                describe_fetch(&r)
            ),
        );
    }
}

/// R2: an external site that allows the bot (skipped when unreachable
/// from here).
fn external_positive(s: &mut Session<'_>) {
    let Some(u) = s.fx("external_positive") else {
        return s.missing("R2", "external_positive");
    };
    let r = s.gated(&u);
    let detail = format!("{u}: expected fetched (200); {}", describe_fetch(&r));
    match &r {
        _ if fetched_ok(&r) => s.t.add("R2", "external_positive", Outcome::Pass, detail),
        Err(FetchError::Failed { .. } | FetchError::Deferred { .. }) => s.t.add(
            "R2",
            "external_positive",
            Outcome::Skip,
            format!("{detail} (unreachable from here: not verified)"),
        ),
        _ => s.t.add("R2", "external_positive", Outcome::Fail, detail),
    }
}

/// R3: the operator's blocked host is refused, and never contacted.
fn operator_blocked_host(s: &mut Session<'_>) {
    let Some(h) = s.fx("operator_blocked_host") else {
        return s.missing("R3", "operator_blocked_host");
    };
    let u = format!("https://{h}/");
    let r = s.gated(&u);
    // The one host rule of every comparison (R3a, trailing dots
    // and ports ignored): any spelling of the host counts.
    let contacted =
        s.ui.requests
            .iter()
            .any(|x| wr_core::domain::host_matches_domain(&host_of(x), &h));
    let ok = matches!(r, Err(FetchError::DeniedBlocklist { .. })) && !contacted;
    s.t.pass_fail(
        "R3",
        "operator_blocked_host",
        ok,
        format!(
            "{u}: expected refused at R3 with no request to {h}; {}{}",
            describe_fetch(&r),
            if contacted {
                " (but a request was sent to it)"
            } else {
                ""
            }
        ),
    );
}

/// Section 16: the three canaries, from the operator's live robots.txt.
fn canaries(s: &mut Session<'_>) {
    let robots_url = format!("{}/robots.txt", s.base);
    let robots =
        s.p.fetch_operator("/robots.txt", Some("text/plain"), &mut s.ui)
            .unwrap_or_else(|e| {
                Err(FetchError::Failed {
                    url: robots_url.clone(),
                    reason: e.to_string(),
                })
            });
    let body = match &robots {
        Ok(f) if (200..300).contains(&f.status) => Some(f.body.clone()),
        _ => None,
    };
    for (canary, walsh_allowed, star_allowed) in [
        ("dogfood-disallow", false, true),
        ("dogfood-allow", true, true),
        ("dogfood-walsh-only", true, false),
    ] {
        let detail = match &body {
            Some(body) => canary_detail(s, body, canary, walsh_allowed, star_allowed),
            None => (false, format!("{robots_url}: {}", describe_fetch(&robots))),
        };
        s.t.pass_fail("16", canary, detail.0, detail.1);
    }
}

/// One canary: what robots.txt says for `*` and for the bot, and what the
/// gate answers, against what the canary expects.
fn canary_detail(
    s: &mut Session<'_>,
    body: &[u8],
    canary: &str,
    walsh_allowed: bool,
    star_allowed: bool,
) -> (bool, String) {
    let path = format!("/research/bots/{canary}");
    let url = format!("{}{path}", s.base);
    let walsh = Policy::parse(body, UA_TOKEN);
    let star = Policy::parse(body, "SomeOtherBot");
    let (w, st) = (walsh.check(&path), star.check(&path));
    let gate = s.p.check(&url, &mut s.ui);
    let gate_allowed = matches!(gate, Ok(CheckReport::Allowed { .. }));
    let ok =
        w.allowed == walsh_allowed && st.allowed == star_allowed && gate_allowed == walsh_allowed;
    let word = |a: bool| if a { "allowed" } else { "disallowed" };
    let rule = |v: &wr_core::robots::Verdict<'_>| {
        v.rule
            .map(|r| format!(" by {}", wr_feeds::words::Words(&r)))
            .unwrap_or_default()
    };
    (
        ok,
        format!(
            "{path}: expected `*` {}, Walsh-Research {}; robots.txt says `*` {}{}, Walsh-Research {}{}; the gate {}",
            word(star_allowed),
            word(walsh_allowed),
            word(st.allowed),
            rule(&st),
            word(w.allowed),
            rule(&w),
            match &gate {
                Ok(c) => check_line(c).split_whitespace().next().unwrap_or("").to_string(),
                Err(e) => format!("failed: {e}"),
            }
        ),
    )
}

/// `wr-feeds selftest`.
pub fn run(args: &Args, common: &Common) -> CmdResult {
    let ui = Ui::new(common.quiet, common.verbose);
    let cfg = match config(common, &Settings::default()) {
        Ok(c) => c,
        Err(e) => return Err(CliError::Config(e)),
    };
    let base = cfg.operator_base.clone();
    let state_dir = cfg.state_dir.clone();
    let r13 = cfg
        .identity
        .as_ref()
        .map(|i| [i.implementation.clone(), i.sha.clone(), i.spec.clone()]);
    let Some(p) = open(cfg, &ui) else {
        return Err(CliError::Printed);
    };
    if let Some([i, s, v]) = &r13 {
        ui.info(&format!(
            "self-test against {base} (R13 tags on operator URLs: impl={i} sha={s} spec={v})"
        ));
    }
    let tally_ui = Ui::new(common.quiet, common.verbose);
    let mut s = Session {
        p,
        ui,
        t: Tally {
            ui: &tally_ui,
            list: Vec::new(),
            json: args.json,
            out_failed: None,
        },
        base,
        fixtures: None,
    };
    for step in STEPS {
        step(&mut s);
    }
    finish(s, args, r13, &state_dir)
}

/// The tally's end: the record kept for `attest`, the summary (or the
/// record) on standard output, and the hosts the self-test left held.
fn finish(
    s: Session<'_>,
    args: &Args,
    r13: Option<[String; 3]>,
    state_dir: &std::path::Path,
) -> CmdResult {
    let Session {
        p, ui, mut t, base, ..
    } = s;
    let passed = t.list.iter().all(|e| e.outcome == Outcome::Pass);
    let count = |o: Outcome| t.list.iter().filter(|e| e.outcome == o).count();
    let (n_pass, n_fail, n_skip) = (
        count(Outcome::Pass),
        count(Outcome::Fail),
        count(Outcome::Skip),
    );
    let now = now_secs();
    let record = SelftestRecord {
        generated: digest::rfc3339(now),
        generated_unix: now,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        spec: SPEC_VERSION.to_string(),
        operator_base: base,
        r13,
        passed,
        expectations: std::mem::take(&mut t.list),
    };
    let text = serde_json::to_string_pretty(&record).unwrap_or_default();
    let printed = match t.out_failed.take() {
        Some(e) => Err(e),
        None if args.json => crate::ui::print_out(&format!("{text}\n")),
        None => crate::ui::print_out(&format!(
            "{n_pass} passed, {n_fail} failed, {n_skip} skipped\n"
        )),
    };
    if let Err(e) = crate::output::write_atomic(&state_dir.join(SELFTEST_FILE), text.as_bytes()) {
        ui.warn(&format!(
            "cannot record the self-test in {}: {e}",
            state_dir.display()
        ));
    }
    warn_held(&p, &ui);
    printed?;
    Ok(ExitCode::from(if passed { 0 } else { 1 }))
}

/// A self-test that could not reach the operator leaves its host held
/// (R5's cool-down after retries): every digest's blocklist fetch is then
/// deferred for the hour. Say so, and how to lift it (issue #20).
fn warn_held(p: &Pipeline, ui: &Ui) {
    let now_ms = crate::cmd::status::now().0;
    match crate::cmd::status::held_hosts(p.store(), now_ms) {
        Ok(held) => {
            for h in held {
                ui.warn(&format!(
                    "{} is held until {} (in {}; {}): every request to it, the digest's \
                     included, is deferred until then; {}",
                    clean_message(&h.host),
                    h.held_until,
                    crate::cmd::status::span(h.held_for_s),
                    h.reason,
                    h.reset
                ));
            }
        }
        Err(e) => ui.warn(&format!(
            "cannot read which hosts this self-test left held: {e}"
        )),
    }
}
