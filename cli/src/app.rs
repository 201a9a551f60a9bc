//! The commands that use the pipeline: the digest, `check`, `selftest`
//! and `attest`.

use crate::digest::{self, Digest, DigestItem, SourceReport, Status};
use crate::sources::{self, Format, Settings};
use crate::ui::Ui;
use crate::{CheckArgs, Common, RunArgs};
use crate::{CliError, CmdResult};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use wr_core::constants::{SPEC_VERSION, TEST_FIXTURES_PATH, UA_TOKEN};
use wr_core::robots::Policy;
use wr_core::time::Timestamp;
use wr_feeds::store::DigestSource;
use wr_feeds::{
    BlocklistState, CheckReport, Config, ConnectTo, FetchError, Pipeline, RunOptions, SourceStatus,
};

pub(crate) fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The git commit the binary was built from (R13 `sha`), if known.
fn build_sha() -> Option<&'static str> {
    option_env!("WR_GIT_SHA").filter(|s| !s.is_empty())
}

/// Builds the pipeline configuration: flags, then the environment, then
/// `[settings]`, then defaults.
pub(crate) fn config(common: &Common, settings: &Settings) -> Result<Config, String> {
    let dir = match (&common.state_dir, &settings.state_dir) {
        (Some(d), _) if !d.as_os_str().is_empty() => d.clone(),
        (_, Some(d)) => d.clone(),
        _ => wr_feeds::config::default_state_dir().map_err(|e| e.to_string())?,
    };
    let mut cfg = Config::new(dir);
    let env_base = std::env::var("WR_OPERATOR_BASE")
        .ok()
        .filter(|v| !v.is_empty());
    if let Some(base) = env_base.as_deref() {
        cfg.set_operator_base(base)
            .map_err(|e| format!("WR_OPERATOR_BASE: {e}"))?;
    } else if let Some(base) = settings.operator_base.as_deref() {
        cfg.set_operator_base(base)
            .map_err(|e| format!("`operator_base` in [settings]: {e}"))?;
    }
    for c in &common.connect_to {
        cfg.connect_to
            .push(c.parse::<ConnectTo>().map_err(|e| e.to_string())?);
    }
    if let Some(t) = settings.timeout_secs {
        cfg.timeouts.request = Duration::from_secs(t);
    }
    if let (Some(id), Some(sha)) = (cfg.identity.as_mut(), build_sha()) {
        if std::env::var("GITHUB_SHA").map_or(true, |s| s.is_empty()) {
            id.sha = sha.to_string();
        }
    }
    Ok(cfg)
}

fn open(cfg: Config, ui: &Ui) -> Option<Pipeline> {
    let dir = cfg.state_dir.clone();
    let patience = cfg.lock_wait.as_secs() / 60;
    let mut on_wait = |lock: &std::path::Path| {
        ui.warn(&format!(
            "another wr-feeds run is using {} ({}); waiting for it to finish (up to {patience} min)",
            dir.display(),
            lock.display()
        ))
    };
    match Pipeline::open_waiting(cfg, &mut on_wait) {
        Ok(p) => Some(p),
        Err(e) => {
            ui.error(&format!("cannot open the state in {}: {e}", dir.display()));
            None
        }
    }
}

fn domains(n: usize) -> String {
    if n == 1 {
        "1 domain".to_string()
    } else {
        format!("{n} domains")
    }
}

fn report_blocklist(ui: &Ui, state: &BlocklistState) {
    match state {
        // Not quiet: the pipeline's own notice has said it already.
        BlocklistState::Fallback { reason } if ui.quiet => ui.error(&format!(
            "the operator blocklist could not be fetched and none was ever adopted ({reason}): \
             no out-of-band opt-out is known yet (R3b fail-open)"
        )),
        // The pipeline's notice has said it (a warning, hidden by -q):
        // saying it here too printed it twice (issue #12).
        BlocklistState::Retained { .. } => {}
        BlocklistState::Unavailable { reason } if ui.quiet => ui.error(&format!(
            "the operator blocklist could not be obtained and no usable copy exists ({reason}): \
             targets were deferred, not fetched without it (R3)"
        )),
        BlocklistState::Fresh { entries } | BlocklistState::Cached { entries } => {
            ui.detail(1, &format!("operator blocklist: {}", domains(*entries)))
        }
        BlocklistState::Unavailable { .. } => {}
        BlocklistState::Fallback { .. } | BlocklistState::Unknown => {}
    }
}

/// A source's section of the digest, with every item `r` holds (cut to
/// its `max_items` by [`SourceReport::capped`]).
fn to_report(src: &sources::Source, r: &wr_feeds::SourceReport) -> SourceReport {
    let (status, reason) = match &r.status {
        SourceStatus::Ok { not_modified } => (
            Status::Ok,
            not_modified.then(|| "not modified since the last run (304)".to_string()),
        ),
        SourceStatus::Skipped { last_run } => (
            Status::Skipped,
            Some(format!(
                "fetched less than an hour ago ({}), R8; --force fetches it anyway",
                digest::rfc3339((*last_run / 1000) as i64)
            )),
        ),
        s @ (SourceStatus::DeniedBlocklist { .. } | SourceStatus::DeniedRobots { .. }) => {
            (Status::Denied, Some(strip_label(&s.to_string())))
        }
        SourceStatus::Deferred { reason, .. } => (Status::Deferred, Some(reason.clone())),
        SourceStatus::LeftOut { reason } => (Status::LeftOut, Some(reason.clone())),
        SourceStatus::Failed { reason } => (Status::Failed, Some(reason.clone())),
    };
    SourceReport {
        name: src.name.clone(),
        url: src.url.clone(),
        tags: src.tags.clone(),
        status,
        reason,
        method: r.method.map(|m| m.as_str().to_string()),
        items: r
            .items
            .iter()
            .map(|i| DigestItem {
                title: i.title.clone(),
                url: i.url.clone(),
                published: i.published.clone(),
            })
            .collect(),
        not_listed: 0,
    }
}

/// `denied by robots.txt (R2): ...` -> `robots.txt (R2): ...`.
fn strip_label(s: &str) -> String {
    s.strip_prefix("denied by ").unwrap_or(s).to_string()
}

/// The default command: run the sources, write the digest.
pub fn run_digest(args: &RunArgs, common: &Common) -> CmdResult {
    let mut ui = Ui::new(common.quiet, common.verbose);
    let Some(path) = &args.sources else {
        ui.error("no sources file given\n\nUsage: wr-feeds [OPTIONS] <SOURCES>\n\nFor more information, try '--help'.");
        return Err(CliError::Printed);
    };
    let file = match sources::load(path) {
        Ok(f) => f,
        Err(e) => {
            return Err(CliError::msg(e.to_string()));
        }
    };
    let format = args.format.or(file.settings.format).unwrap_or_default();
    // `-o -` is standard output, as for every other tool.
    // A digest is a day (the local date, in its title): a rerun on the
    // same day writes that day's digest again, with anything new added.
    let now = now_secs();
    let day = digest::day(now);
    let output: Option<PathBuf> = args
        .output
        .clone()
        .or(file.settings.output.clone())
        .filter(|o| o.as_os_str() != "-")
        .map(|o| digest::dated(&o, &day));
    // A symlink is written through to its target: replacing the link with
    // a regular file would leave the file it points at (the notes folder's
    // real digest, say) stale for ever.
    let output = match output.map(|o| digest::resolve_output(&o).map_err(|e| (o, e))) {
        None => None,
        Some(Ok(o)) => Some(o),
        Some(Err((o, e))) => {
            return Err(CliError::msg(format!("cannot write {}: {e}", o.display())));
        }
    };
    if let Some(out) = &output {
        let dir = out.parent().filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) {
            return Err(CliError::msg(format!(
                "cannot write {}: its directory does not exist",
                out.display()
            )));
        }
        if let Err(e) = digest::check_writable(out) {
            return Err(CliError::msg(format!(
                "cannot write {}: {e}",
                out.display()
            )));
        }
    }
    let cfg = match config(common, &file.settings) {
        Ok(c) => c,
        Err(e) => {
            return Err(CliError::msg(e));
        }
    };
    ui.detail(
        1,
        &format!(
            "{} sources from {}; state in {}; operator {}",
            file.sources.len(),
            path.display(),
            cfg.state_dir.display(),
            cfg.operator_base
        ),
    );
    let Some(mut pipeline) = open(cfg, &ui) else {
        return Err(CliError::Printed);
    };
    // `enabled = false`: kept in the file, not run, not listed.
    let active: Vec<&sources::Source> = file.sources.iter().filter(|s| s.enabled).collect();
    let srcs: Vec<wr_feeds::Source> = active.iter().map(|s| s.to_pipeline()).collect();
    ui.start_progress(srcs.len() as u64);
    let opts = RunOptions {
        force: args.force,
        all: args.all,
    };
    let result = pipeline.run(&srcs, opts, &mut ui);
    ui.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            return Err(CliError::msg(format!("the run could not complete: {e}")));
        }
    };
    report_blocklist(&ui, &report.blocklist);
    // The day's digest so far: the items earlier digests of today
    // delivered come first, in the order they were delivered, then this
    // run's, each once. A rerun never writes a poorer digest, whatever R8
    // or a 304 says of the source now.
    let today = digest::parse_day(&day).ok().map(|d| digest::days(d, d));
    let mut day_sources = report.sources.clone();
    if !args.all {
        for r in &mut day_sources {
            let Some(today) = &today else { break };
            match pipeline.store().day_items(&r.key, today) {
                Ok(mut earlier) if !earlier.is_empty() => {
                    let listed: std::collections::HashSet<String> =
                        earlier.iter().map(|e| e.id.clone()).collect();
                    r.items.retain(|i| !listed.contains(&i.id));
                    earlier.append(&mut r.items);
                    r.items = earlier;
                }
                Ok(_) => {}
                Err(e) => ui.warn(&format!(
                    "today's earlier items of `{}` could not be read ({e}); this digest lists \
                     only this run's",
                    r.name
                )),
            }
        }
    }
    // Each section whole, as the store keeps it for `show`, then cut to
    // the source's max_items.
    let whole: Vec<SourceReport> = active
        .iter()
        .copied()
        .zip(&day_sources)
        .map(|(s, r)| to_report(s, r))
        .collect();
    let heads: Vec<DigestSource> = whole
        .iter()
        .zip(&day_sources)
        .zip(&active)
        .map(|((w, r), s)| DigestSource {
            source: r.key.clone(),
            name: w.name.clone(),
            url: w.url.clone(),
            tags: w.tags.clone(),
            status: w.status.as_str().to_string(),
            reason: w.reason.clone(),
            method: w.method.clone(),
            max_items: s.max_items.and_then(|n| u64::try_from(n).ok()),
            written_at: Timestamp(0),
        })
        .collect();
    let reports: Vec<SourceReport> = whole
        .into_iter()
        .zip(&active)
        .map(|(w, s)| w.capped(s.max_items))
        .collect();
    for r in &reports {
        // With -v every outcome was printed as it happened.
        // A failed or deferred source is an error: `-q` (cron) must show
        // it, or nobody hears of it.
        if r.status.is_problem() && ui.verbose == 0 {
            ui.error(&format!(
                "source `{}` ({}): {}: {}",
                r.name,
                r.url,
                r.status.as_str(),
                r.reason.as_deref().unwrap_or("")
            ));
        }
    }
    let d = Digest::new(now, &day, args.all, reports);
    let text = match format {
        Format::Markdown => d.to_markdown(),
        Format::Json => d.to_json(),
    };
    match &output {
        Some(out) => {
            if let Err(e) = digest::write_atomic(out, text.as_bytes()) {
                return Err(CliError::msg(format!(
                    "cannot write {}: {e}; this run's new items stay pending and the next \
                     digest lists them",
                    out.display()
                )));
            }
        }
        None => {
            use std::io::Write;
            let mut so = std::io::stdout().lock();
            if let Err(e) = so.write_all(text.as_bytes()).and_then(|_| so.flush()) {
                return Err(CliError::msg(format!(
                    "cannot write the digest to standard output: {e}; this run's new items \
                     stay pending and the next digest lists them"
                )));
            }
        }
    }
    // The digest is delivered: only now do its items stop being new, and
    // belong to today's digest. An `--all` digest is not the day's: its
    // sections are not kept for `show`.
    let delivered = report
        .sources
        .iter()
        .flat_map(|s| s.items.iter().map(move |i| (s.key.as_str(), i.id.as_str())));
    let at = Timestamp(u64::try_from(now).unwrap_or(0).saturating_mul(1000));
    let heads = (!args.all).then_some(heads.as_slice());
    if let Err(e) = pipeline.store().record_digest(&day, at, delivered, heads) {
        ui.warn(&format!(
            "the digest was written but its items could not be marked as reported ({e}); \
             the next digest lists them again"
        ));
    }
    let count = |st: Status| d.sources.iter().filter(|s| s.status == st).count();
    let items: usize = d.sources.iter().map(|s| s.items.len()).sum();
    let mut parts = vec![format!("{} ok", count(Status::Ok))];
    for st in [
        Status::Skipped,
        Status::Denied,
        Status::Deferred,
        Status::LeftOut,
        Status::Failed,
    ] {
        let n = count(st);
        if n > 0 {
            parts.push(format!("{n} {}", st.as_str().replace('_', " ")));
        }
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    ui.info(&format!(
        "{}: {}; {items} {} {}; {}{}",
        plural(d.sources.len(), "source", "sources"),
        parts.join(", "),
        if args.all { "listed" } else { "new" },
        if items == 1 { "item" } else { "items" },
        plural(report.requests as usize, "request", "requests"),
        output
            .as_ref()
            .map(|o| format!("; digest written to {}", o.display()))
            .unwrap_or_default()
    ));
    Ok(ExitCode::from(d.exit_code()))
}

/// `wr-feeds check URL...`.
pub fn run_check(args: &CheckArgs, common: &Common) -> CmdResult {
    let mut ui = Ui::new(common.quiet, common.verbose);
    let mut bad = false;
    for u in &args.urls {
        if let Err(e) = sources::check_url(u) {
            ui.error(&e);
            bad = true;
        }
    }
    if bad {
        return Err(CliError::Printed);
    }
    let cfg = match config(common, &Settings::default()) {
        Ok(c) => c,
        Err(e) => {
            return Err(CliError::msg(e));
        }
    };
    let Some(mut p) = open(cfg, &ui) else {
        return Err(CliError::Printed);
    };
    let mut code = 0u8;
    for u in &args.urls {
        let u = u.trim();
        let report = match p.check(u, &mut ui) {
            Ok(r) => r,
            Err(e) => {
                ui.error(&format!("{u}: {e}"));
                code = 2;
                continue;
            }
        };
        let line = if args.json {
            serde_json::to_string(&report).unwrap_or_default()
        } else {
            check_line(&report)
        };
        if !matches!(report, CheckReport::Allowed { .. }) {
            code = code.max(if matches!(report, CheckReport::Invalid { .. }) {
                2
            } else {
                1
            });
        }
        if !crate::ui::print_out(&format!("{line}\n")) {
            return Err(CliError::Printed);
        }
    }
    Ok(ExitCode::from(code))
}

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// One line of `check` output.
pub fn check_line(r: &CheckReport) -> String {
    match r {
        CheckReport::Allowed {
            url,
            wait_ms,
            spacing_ms,
            rule,
            line,
        } => {
            let rule = match (rule, line) {
                (Some(r), Some(l)) => format!("robots.txt {r} (line {l})"),
                (Some(r), None) => format!("robots.txt {r}"),
                _ => "no robots.txt rule matched".to_string(),
            };
            format!(
                "allowed   {url}  (R3 not listed; R2 {rule}; R4 wait {}, spacing {})",
                secs(*wait_ms),
                secs(*spacing_ms)
            )
        }
        CheckReport::DeniedBlocklist {
            url,
            domain,
            reason,
        } => format!("denied    {url}  (R3 operator blocklist: {domain} is listed: {reason})"),
        CheckReport::DeniedRobots { url, rule, line } => {
            format!("denied    {url}  (R2 robots.txt {rule}, line {line})")
        }
        CheckReport::Deferred { url, reason } => format!("deferred  {url}  ({reason})"),
        CheckReport::Invalid { url, reason } => format!("invalid   {url}  ({reason})"),
    }
}

// ---- selftest ----------------------------------------------------------

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
    out_failed: bool,
}

impl Tally<'_> {
    fn add(&mut self, requirement: &str, check: &str, outcome: Outcome, detail: String) {
        if !self.json && !self.out_failed {
            let word = outcome.as_str().to_ascii_uppercase();
            self.out_failed = !crate::ui::print_out(&format!(
                "{}  {requirement:<4} {check}: {detail}\n",
                self.ui.verdict(&word)
            ));
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

/// `wr-feeds selftest`.
pub fn run_selftest(args: &crate::SelftestArgs, common: &Common) -> CmdResult {
    let mut ui = Ui::new(common.quiet, common.verbose);
    let cfg = match config(common, &Settings::default()) {
        Ok(c) => c,
        Err(e) => {
            return Err(CliError::msg(e));
        }
    };
    let base = cfg.operator_base.clone();
    let state_dir = cfg.state_dir.clone();
    let r13 = cfg
        .identity
        .as_ref()
        .map(|i| [i.implementation.clone(), i.sha.clone(), i.spec.clone()]);
    let Some(mut p) = open(cfg, &ui) else {
        return Err(CliError::Printed);
    };
    if let Some([i, s, v]) = &r13 {
        ui.info(&format!(
            "self-test against {base} (R13 tags on operator URLs: impl={i} sha={s} spec={v})"
        ));
    }
    let mut t = Tally {
        ui: &Ui::new(common.quiet, common.verbose),
        list: Vec::new(),
        json: args.json,
        out_failed: false,
    };
    const ACCEPT: Option<&str> = Some("text/markdown");

    // Section 13: the fixtures index.
    let fixtures = match operator_json(&mut p, TEST_FIXTURES_PATH, &mut ui) {
        Ok(v) => {
            let contract = v["contract"].as_str().unwrap_or("");
            let major =
                wr_core::blocklist::contract_major(contract, "walsh-research-test-fixtures");
            t.pass_fail(
                "13",
                "fixtures index",
                major == Some(1),
                format!("{base}{TEST_FIXTURES_PATH}: contract `{contract}` (expected walsh-research-test-fixtures/v1)"),
            );
            (major == Some(1)).then(|| v["fixtures"].clone())
        }
        Err(e) => {
            t.pass_fail(
                "13",
                "fixtures index",
                false,
                format!("{base}{TEST_FIXTURES_PATH}: {e}"),
            );
            None
        }
    };
    let fx = |k: &str| {
        fixtures
            .as_ref()
            .and_then(|f| f[k].as_str())
            .map(str::to_string)
    };
    let missing = |t: &mut Tally, req: &str, k: &str| {
        t.pass_fail(req, k, false, "not in the fixtures index".to_string())
    };

    let fetched_ok = |r: &Result<wr_feeds::Fetched, FetchError>| matches!(r, Ok(f) if (200..300).contains(&f.status) || f.status == 304);
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
        match fx(key) {
            Some(u) => {
                let r = gated(&mut p, &u, ACCEPT, &mut ui);
                let ok = fetched_ok(&r);
                t.pass_fail(
                    req,
                    key,
                    ok,
                    format!("{u}: expected {what}; {}", describe_fetch(&r)),
                );
            }
            None => missing(&mut t, req, key),
        }
    }
    match fx("robots_disallowed") {
        Some(u) => {
            for rep in [u.clone(), format!("{u}.html"), format!("{u}.md")] {
                let before = ui.requests.len();
                let r = gated(&mut p, &rep, ACCEPT, &mut ui);
                let sent = ui.requests[before..].iter().any(|x| x == &rep);
                let ok = matches!(r, Err(FetchError::DeniedRobots { .. })) && !sent;
                t.pass_fail(
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
        None => missing(&mut t, "R2", "robots_disallowed"),
    }
    match fx("external_positive") {
        Some(u) => {
            let r = gated(&mut p, &u, ACCEPT, &mut ui);
            let detail = format!("{u}: expected fetched (200); {}", describe_fetch(&r));
            match &r {
                _ if fetched_ok(&r) => t.add("R2", "external_positive", Outcome::Pass, detail),
                Err(FetchError::Failed { .. } | FetchError::Deferred { .. }) => t.add(
                    "R2",
                    "external_positive",
                    Outcome::Skip,
                    format!("{detail} (unreachable from here: not verified)"),
                ),
                _ => t.add("R2", "external_positive", Outcome::Fail, detail),
            }
        }
        None => missing(&mut t, "R2", "external_positive"),
    }
    match fx("operator_blocked_host") {
        Some(h) => {
            let u = format!("https://{h}/");
            let r = gated(&mut p, &u, ACCEPT, &mut ui);
            let host = h.to_ascii_lowercase();
            let contacted = ui.requests.iter().any(|x| {
                let xh = host_of(x);
                xh == host || xh.ends_with(&format!(".{host}"))
            });
            let ok = matches!(r, Err(FetchError::DeniedBlocklist { .. })) && !contacted;
            t.pass_fail(
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
        None => missing(&mut t, "R3", "operator_blocked_host"),
    }

    // Section 16: the three canaries, from the operator's live robots.txt.
    let robots_url = format!("{base}/robots.txt");
    let robots = p
        .fetch_operator("/robots.txt", Some("text/plain"), &mut ui)
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
        let path = format!("/research/bots/{canary}");
        let url = format!("{base}{path}");
        let Some(body) = &body else {
            t.pass_fail(
                "16",
                canary,
                false,
                format!("{robots_url}: {}", describe_fetch(&robots)),
            );
            continue;
        };
        let walsh = Policy::parse(body, UA_TOKEN);
        let star = Policy::parse(body, "SomeOtherBot");
        let (w, s) = (walsh.check(&path), star.check(&path));
        let gate = p.check(&url, &mut ui);
        let gate_allowed = matches!(gate, Ok(CheckReport::Allowed { .. }));
        let ok = w.allowed == walsh_allowed
            && s.allowed == star_allowed
            && gate_allowed == walsh_allowed;
        let word = |a: bool| if a { "allowed" } else { "disallowed" };
        let rule = |v: &wr_core::robots::Verdict<'_>| {
            v.rule.map(|r| format!(" by {r}")).unwrap_or_default()
        };
        t.pass_fail(
            "16",
            canary,
            ok,
            format!(
                "{path}: expected `*` {}, Walsh-Research {}; robots.txt says `*` {}{}, Walsh-Research {}{}; the gate {}",
                word(star_allowed),
                word(walsh_allowed),
                word(s.allowed),
                rule(&s),
                word(w.allowed),
                rule(&w),
                match &gate {
                    Ok(c) => check_line(c).split_whitespace().next().unwrap_or("").to_string(),
                    Err(e) => format!("failed: {e}"),
                }
            ),
        );
    }

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
        expectations: t.list,
    };
    let text = serde_json::to_string_pretty(&record).unwrap_or_default();
    let out_failed = t.out_failed;
    let printed = !out_failed
        && if args.json {
            crate::ui::print_out(&format!("{text}\n"))
        } else {
            crate::ui::print_out(&format!(
                "{n_pass} passed, {n_fail} failed, {n_skip} skipped\n"
            ))
        };
    if let Err(e) = digest::write_atomic(&state_dir.join(SELFTEST_FILE), text.as_bytes()) {
        ui.warn(&format!(
            "cannot record the self-test in {}: {e}",
            state_dir.display()
        ));
    }
    if !printed {
        return Err(CliError::Printed);
    }
    Ok(ExitCode::from(if passed { 0 } else { 1 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_lines_name_gate_rule_and_wait() {
        let l = check_line(&CheckReport::DeniedRobots {
            url: "https://a/x".into(),
            rule: "Disallow: /x".into(),
            line: 4,
        });
        assert_eq!(
            l,
            "denied    https://a/x  (R2 robots.txt Disallow: /x, line 4)"
        );
        let l = check_line(&CheckReport::Allowed {
            url: "https://a/y".into(),
            wait_ms: 1500,
            spacing_ms: 2000,
            rule: None,
            line: None,
        });
        assert!(l.starts_with("allowed   https://a/y"), "{l}");
        assert!(l.contains("wait 1.5 s, spacing 2.0 s"), "{l}");
    }
}
