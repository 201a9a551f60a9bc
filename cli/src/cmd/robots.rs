//! `wr-feeds robots`: the offline robots.txt debugger.

use crate::{CliError, CmdResult};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use wr_core::constants::UA_TOKEN;
use wr_core::robots::{Policy, Reading, Selected};
use wr_core::url::Url;
use wr_feeds::extract::clean_message;
use wr_feeds::words::Words;

/// Arguments of `wr-feeds robots`.
#[derive(clap::Args)]
pub struct Args {
    /// Product token whose group is selected (spec 9.1.3).
    #[arg(long, default_value = UA_TOKEN, value_name = "TOKEN")]
    agent: String,
    /// One JSON object per URL per line instead of text.
    #[arg(long)]
    json: bool,
    /// The robots.txt file to evaluate (`-` reads standard input).
    #[arg(value_name = "ROBOTS_FILE")]
    file: PathBuf,
    /// URLs (or paths starting with `/`) to evaluate.
    #[arg(value_name = "URL", required = true)]
    urls: Vec<String>,
}

fn read_body(path: &PathBuf) -> std::io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf)?;
        Ok(buf)
    } else {
        std::fs::read(path)
    }
}

/// The path+query a URL asks for, in the form the bot would send it (the
/// WHATWG serialisation the digest run and `check` judge: `{` in a path
/// goes out as `%7B`, `/./a` as `/a`), or why it cannot be evaluated. A
/// bare path is read as one on an http origin.
fn target(arg: &str) -> Result<String, String> {
    let absolute = if arg.starts_with('/') {
        url::Url::parse("http://robots.invalid/")
            .and_then(|base| base.join(arg))
            .map(|u| u.to_string())
            .map_err(|e| format!("{arg}: {e}"))?
    } else {
        arg.to_string()
    };
    let sent = wr_feeds::pipeline::resolved(&absolute);
    Url::parse(&sent)
        .map(|u| u.path_and_query.to_string())
        .map_err(|e| format!("{arg}: {e}"))
}

/// Runs the command; see the exit statuses in `--help`.
pub fn run(args: &Args) -> CmdResult {
    let body = read_body(&args.file).map_err(|source| CliError::Read {
        path: args.file.clone(),
        source,
    })?;
    let targets: Vec<String> = args
        .urls
        .iter()
        .map(|u| target(u))
        .collect::<Result<_, String>>()
        .map_err(CliError::Usage)?;
    let policy = Policy::parse(&body, &args.agent);
    // The file's usage preferences (Content-Signal, Content-Usage,
    // License), reported beside the verdicts, never part of them.
    let signals = wr_feeds::SignalReport::of_body(&body);
    if !args.json {
        say_group(args, &policy, &signals);
    }
    let mut out = std::io::stdout().lock();
    let mut any_denied = false;
    for (url, path) in args.urls.iter().zip(&targets) {
        let v = policy.check(path);
        any_denied |= !v.allowed;
        let line = if args.json {
            json_line(url, &v, &signals)
        } else {
            text_line(url, &v)
        };
        writeln!(out, "{line}").map_err(crate::ui::stdout_error)?;
    }
    Ok(ExitCode::from(u8::from(any_denied)))
}

/// On stderr: the group the agent's rules come from (and Google's, when
/// it reads other groups), the crawl delay, the usage preferences.
fn say_group(args: &Args, policy: &Policy, signals: &[wr_feeds::SignalReport]) {
    let name = |s: Selected| match s {
        Selected::Named => "its named group",
        Selected::Global => "the '*' group",
        Selected::None => "no group",
    };
    let spec = policy.selected();
    let google = policy.selected_in(Reading::Google);
    // Every reading must allow a path (docs/conformance.md); say so
    // when Google's tolerant reading selects other groups.
    let group = if spec == google {
        name(spec).to_string()
    } else {
        format!(
            "{} ({}: {})",
            name(spec),
            wr_feeds::words::reading(Reading::Google),
            name(google)
        )
    };
    let delay = policy
        .crawl_delay()
        .map(|d| format!(", Crawl-delay {} s", d.0.as_secs_f64()))
        .unwrap_or_default();
    eprintln!(
        "{}: {} uses {group}{delay}",
        args.file.display(),
        args.agent
    );
    for s in signals {
        eprintln!(
            "{}: {s} (reported, not an access rule)",
            args.file.display()
        );
    }
}

/// One URL's verdict as JSON.
fn json_line(
    url: &str,
    v: &wr_core::robots::Verdict<'_>,
    signals: &[wr_feeds::SignalReport],
) -> String {
    // A robots.txt is untrusted text: no control character of it
    // reaches the terminal or the JSON.
    let rule = v
        .rule
        .map(|r| clean_message(&String::from_utf8_lossy(r.pattern)));
    serde_json::json!({
        "url": url,
        "allowed": v.allowed,
        "kind": v.rule.map(|r| r.kind.as_str()),
        "rule": rule,
        "line": v.rule.map(|r| r.line),
        "reading": v.rule.map(|_| v.reading.key()),
        "variant": v.variant.keys().collect::<Vec<_>>(),
        "signals": signals,
    })
    .to_string()
}

/// One URL's verdict as a line of text: the rule that decided, and the
/// reading and variant when they are not the spec's plain one.
fn text_line(url: &str, v: &wr_core::robots::Verdict<'_>) -> String {
    let verdict = if v.allowed {
        "allowed   "
    } else {
        "disallowed"
    };
    match v.rule {
        Some(r) if v.reading != Reading::Spec || !v.variant.is_base() => format!(
            "{verdict} {url}  ({} in {}{})",
            clean_message(&Words(&r).to_string()),
            wr_feeds::words::reading(v.reading),
            if v.variant.is_base() {
                String::new()
            } else {
                format!(", {}", Words(&v.variant))
            }
        ),
        Some(r) => format!(
            "{verdict} {url}  ({})",
            clean_message(&Words(&r).to_string())
        ),
        None => format!("{verdict} {url}  (no rule matched)"),
    }
}
