//! End-to-end: the built `wr-feeds` binary against loopback replicas of
//! the operator site and three publishers.

use crate::common;

use common::*;
use std::time::Duration;

const UA: &str = "Mozilla/5.0 (compatible; Walsh-Research/1.2; +https://wal.sh/bot/)";

struct Sites {
    op: Operator,
    blog: Host,
    df: Host,
    docs: Host,
    plain: Host,
}

impl Sites {
    fn start() -> Sites {
        let op = Operator::start(CANARY_ROBOTS);
        let blog = Host::start("blog.test");
        blog.route(
            "/robots.txt",
            Route::ok("text/plain", "User-agent: *\nAllow: /\n"),
        )
        .route(
            "/rss.xml",
            Route::ok("application/rss+xml", data("feeds/rss_1.0_spec_1.xml"))
                .with_validators("\"rss-v1\"", "Sat, 23 May 2026 00:00:00 GMT"),
        );
        let df = Host::start("df.test");
        // No robots.txt at all (404): everything is allowed.
        df.route(
            "/feeds/json",
            Route::ok(
                "application/feed+json",
                data("feeds/jsonfeed_example_1.json"),
            )
            .with_validators("\"df-1\"", "Sat, 23 May 2026 00:00:00 GMT"),
        );
        let docs = Host::start("docs.test");
        docs.route(
            "/robots.txt",
            Route::ok("text/plain", "User-agent: *\nDisallow:\n"),
        )
        .route(
            "/",
            Route::ok("text/html", "<!doctype html><p>not scraped</p>"),
        )
        .route(
            "/llms.txt",
            Route::ok(
                "text/plain",
                data("llms-txt/AnswerDotAI_llms-txt__nbs_llms.txt"),
            ),
        );
        let plain = Host::start("plain.test");
        plain.route(
            "/",
            Route::ok("text/html", "<!doctype html><a href=\"/x\">x</a>"),
        );
        Sites {
            op,
            blog,
            df,
            docs,
            plain,
        }
    }
    fn hosts(&self) -> Vec<&Host> {
        vec![
            &self.op.wal,
            &self.op.pypi,
            &self.blog,
            &self.df,
            &self.docs,
            &self.plain,
        ]
    }
}

const SOURCES: &str = r#"
[[source]]
name = "Blog"
url = "http://blog.test/"
feed = "http://blog.test/rss.xml"
tags = ["rss"]

[[source]]
name = "Daring Fireball"
url = "http://df.test/"
feed = "http://df.test/feeds/json"

[[source]]
name = "Docs"
url = "http://docs.test/"

[[source]]
name = "Plain HTML"
url = "http://plain.test/"
"#;

fn link_lines(md: &str, section: &str) -> Vec<String> {
    let start = md
        .find(&format!("\n## {section}\n"))
        .unwrap_or_else(|| panic!("no section {section}:\n{md}"));
    let rest = &md[start + section.len() + 5..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| l.starts_with("- ["))
        .map(str::to_string)
        .collect()
}

#[test]
fn first_run_second_run_r8_skip_and_all() {
    let s = Sites::start();
    let tmp = TempDir::new("digest");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let hosts = s.hosts();

    // First run: every item is new.
    let o = wr(&state, &hosts, &[src]);
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    assert!(md.starts_with("# Digest 20"), "{md}");
    // stderr is not a terminal here: no progress bar, no colour, one summary.
    let err = stderr(&o);
    assert!(!err.contains('\x1b') && !err.contains("[1/4]"), "{err}");
    assert!(
        err.contains("4 sources: 3 ok, 1 left out; 7 new items"),
        "{err}"
    );
    let blog = link_lines(&md, "Blog");
    assert_eq!(blog.len(), 2, "the two RSS 1.0 items with links:\n{md}");
    let df = link_lines(&md, "Daring Fireball");
    assert!(!df.is_empty(), "{md}");
    let docs = link_lines(&md, "Docs");
    assert!(
        docs.iter()
            .any(|l| l.contains("(https://llmstxt.org/index.md)")),
        "llms.txt links:\n{md}"
    );
    assert!(
        md.contains("\n## Plain HTML\n\n*left out: "),
        "an HTML-only source is left out, not scraped:\n{md}"
    );
    // R1 on every request; R2 robots.txt before the feed; llms.txt only
    // after the page was asked for as markdown.
    for h in &hosts {
        for r in h.requests() {
            assert_eq!(r.header("User-Agent"), Some(UA), "{} {}", h.name, r.target);
        }
    }
    let blog_paths: Vec<String> = s
        .blog
        .requests()
        .iter()
        .map(|r| r.path().to_string())
        .collect();
    assert_eq!(blog_paths, ["/robots.txt", "/rss.xml"]);
    let docs_reqs = s.docs.requests();
    let page = docs_reqs
        .iter()
        .find(|r| r.path() == "/")
        .expect("page asked for");
    assert!(page
        .header("Accept")
        .unwrap_or("")
        .contains("text/markdown"));
    assert_eq!(s.docs.requests_to("/llms.txt").len(), 1);

    // Second run within the hour: R8 skips every source and says so; -q
    // keeps stderr empty. A digest is a day: the rerun writes today's
    // digest again, never a poorer one (issue #12: it used to list only
    // "skipped" lines, and the first run's items never showed again).
    let o = wr(&state, &hosts, &["-q", src]);
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    assert!(
        md.contains("\n## Blog\n\n*skipped: fetched less than an hour ago"),
        "{md}"
    );
    assert_eq!(link_lines(&md, "Blog"), blog, "today's items again:\n{md}");
    assert_eq!(link_lines(&md, "Daring Fireball"), df, "{md}");
    assert_eq!(s.blog.requests_to("/rss.xml").len(), 1, "not fetched again");

    // --force: conditional requests, nothing new.
    let o = wr(&state, &hosts, &["--force", src]);
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    let feed_reqs = s.blog.requests_to("/rss.xml");
    assert_eq!(feed_reqs.len(), 2);
    assert_eq!(feed_reqs[1].header("If-None-Match"), Some("\"rss-v1\""));
    assert_eq!(
        feed_reqs[1].header("If-Modified-Since"),
        Some("Sat, 23 May 2026 00:00:00 GMT")
    );
    let df_reqs = s.df.requests_to("/feeds/json");
    assert_eq!(df_reqs[1].header("If-None-Match"), Some("\"df-1\""));
    // Nothing new on the wire (304): the day's items, each once.
    assert_eq!(link_lines(&md, "Blog"), blog, "{md}");
    assert_eq!(link_lines(&md, "Daring Fireball"), df, "{md}");

    // --all (JSON): everything currently offered, again.
    let out = tmp.path().join("digest.json");
    let o = wr(
        &state,
        &hosts,
        &[
            "--all",
            "--force",
            "--format",
            "json",
            "-o",
            out.to_str().unwrap(),
            src,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "the digest went to the file");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).unwrap()).expect("valid JSON");
    assert_eq!(v["schema"], "wr-feeds-digest/v1");
    assert_eq!(v["selection"], "all");
    let blog = &v["sources"][0];
    assert_eq!(blog["name"], "Blog");
    assert_eq!(blog["status"], "ok");
    assert_eq!(blog["method"], "feed");
    assert_eq!(blog["tags"], serde_json::json!(["rss"]));
    assert_eq!(blog["items"].as_array().unwrap().len(), 2);
    assert_eq!(v["sources"][2]["method"], "llms-txt");
    assert_eq!(v["sources"][3]["status"], "left_out");
}

#[test]
fn bad_sources_file_exits_2_and_fetches_nothing() {
    let s = Sites::start();
    let tmp = TempDir::new("bad");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Blog\"\nurl = \"http://blog.test/\"\n\n[[source]]\nname = \"Other\"\nurl = \"http://blog.test/\"\n",
    );
    let o = wr(
        &tmp.path().join("state"),
        &s.hosts(),
        &[src.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("sources.toml:7:7: duplicate URL"), "{err}");
    assert!(o.stdout.is_empty());
    for h in s.hosts() {
        assert!(h.requests().is_empty(), "{} was contacted", h.name);
    }

    let src = tmp.write(
        "typo.toml",
        "[[source]]\nname = \"Blog\"\nurl = \"http://blog.test/\"\nfed = \"http://blog.test/rss.xml\"\n",
    );
    let o = wr(
        &tmp.path().join("state"),
        &s.hosts(),
        &[src.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("typo.toml:4:1: unknown field `fed`"), "{err}");

    let src = tmp.write(
        "scheme.toml",
        "[[source]]\nname = \"F\"\nurl = \"ftp://blog.test/\"\n",
    );
    let o = wr(
        &tmp.path().join("state"),
        &s.hosts(),
        &[src.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("scheme.toml:3:7: unsupported scheme `ftp`"),
        "{}",
        stderr(&o)
    );
    for h in s.hosts() {
        assert!(h.requests().is_empty(), "{} was contacted", h.name);
    }
}

#[test]
fn a_source_that_times_out_fails_alone() {
    let s = Sites::start();
    let slow = Host::start("slow.test");
    slow.route("/robots.txt", Route::status(404)).route(
        "/feed.xml",
        Route::ok("application/rss+xml", data("feeds/rss_1.0_spec_1.xml"))
            .delayed(Duration::from_secs(8)),
    );
    let tmp = TempDir::new("timeout");
    let src = tmp.write(
        "sources.toml",
        "[settings]\ntimeout_secs = 1\n\n[[source]]\nname = \"Slow\"\nurl = \"http://slow.test/\"\nfeed = \"http://slow.test/feed.xml\"\n\n[[source]]\nname = \"Blog\"\nurl = \"http://blog.test/\"\nfeed = \"http://blog.test/rss.xml\"\n",
    );
    let mut hosts = s.hosts();
    hosts.push(&slow);
    let o = wr(&tmp.path().join("state"), &hosts, &[src.to_str().unwrap()]);
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{md}\n{}", stderr(&o));
    assert!(
        md.contains("\n## Slow\n\n*failed: ") || md.contains("\n## Slow\n\n*deferred: "),
        "{md}"
    );
    assert_eq!(
        link_lines(&md, "Blog").len(),
        2,
        "the other source still went through:\n{md}"
    );
    assert!(stderr(&o).contains("source `Slow`"), "{}", stderr(&o));
}

#[test]
fn check_answers_without_fetching_the_target() {
    let s = Sites::start();
    let tmp = TempDir::new("check");
    let state = tmp.path().join("state");
    let o = wr(
        &state,
        &s.hosts(),
        &[
            "check",
            "http://wal.test/research/bots/dogfood-disallow.md",
            "http://wal.test/research/bots/dogfood-walsh-only",
            "http://www.example.com/page",
        ],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("denied    http://wal.test/research/bots/dogfood-disallow.md"),
        "{out}"
    );
    assert!(
        lines[0].contains("Disallow: /research/bots/dogfood-disallow")
            && lines[0].contains("line 5"),
        "{out}"
    );
    assert!(lines[1].starts_with("allowed   "), "{out}");
    assert!(
        lines[1].contains("Allow: /research/bots/dogfood-walsh-only"),
        "{out}"
    );
    assert!(
        lines[2].starts_with("denied    http://www.example.com/page  (R3"),
        "{out}"
    );
    for r in s.op.wal.requests() {
        assert!(
            !r.path().starts_with("/research/"),
            "a target was fetched: {}",
            r.target
        );
    }
    let o = wr(&state, &s.hosts(), &["check", "notaurl"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn import_writes_a_sources_file_the_digest_accepts() {
    let tmp = TempDir::new("import");
    let opml = tmp.write(
        "subs.opml",
        r#"<?xml version="1.0"?><opml version="2.0"><body>
<outline text="Rust"><outline text="Blog &amp; more" xmlUrl="http://blog.test/rss.xml" htmlUrl="http://blog.test/"/></outline>
</body></opml>"#,
    );
    let out = tmp.path().join("sources.toml");
    let o = wr(
        &tmp.path().join("state"),
        &[],
        &[
            "import",
            opml.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("name = \"Blog & more\""), "{text}");
    assert!(text.contains("tags = [\"Rust\"]"), "{text}");
    // A second import refuses to overwrite.
    let o = wr(
        &tmp.path().join("state"),
        &[],
        &[
            "import",
            opml.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_any_fetch() {
    let s = Sites::start();
    let tmp = TempDir::new("output");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    // A directory where the digest file should go: refused up front, so
    // no item is recorded as seen for a digest nobody will get.
    let dir = tmp.path().join("digest.md");
    std::fs::create_dir(&dir).unwrap();
    let o = wr(&state, &s.hosts(), &["-o", dir.to_str().unwrap(), src]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("cannot write") && err.contains("digest.md"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    for h in s.hosts() {
        assert!(h.requests().is_empty(), "{} was contacted", h.name);
    }
    // No temporary file is left behind by the check.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // The next run with a usable path still lists every item as new.
    let out = tmp.path().join("digest-ok.md");
    let o = wr(&state, &s.hosts(), &["-o", out.to_str().unwrap(), src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = std::fs::read_to_string(&out).unwrap();
    assert_eq!(link_lines(&md, "Blog").len(), 2, "{md}");
}

/// Runs `wr` with standard output on /dev/full, where every write fails.
#[cfg(target_os = "linux")]
fn wr_to_full(state: &std::path::Path, hosts: &[&Host], args: &[&str]) -> std::process::Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    wr_command(state, hosts, args)
        .stdout(full)
        .output()
        .expect("run wr-feeds")
}

/// The sites, a temporary directory whose `state` has delivered one digest
/// of `SOURCES` (so that `show` and `status` have a day to write), an OPML
/// file and the sources file: what the standard-output tests run against.
fn with_a_delivered_digest(name: &str) -> (Sites, TempDir, std::path::PathBuf, std::path::PathBuf) {
    let s = Sites::start();
    let tmp = TempDir::new(name);
    let opml = tmp.write(
        "subs.opml",
        r#"<opml version="2.0"><body><outline text="B" xmlUrl="http://blog.test/rss.xml"/></body></opml>"#,
    );
    let src = tmp.write("sources.toml", SOURCES);
    let o = wr(
        &tmp.path().join("state"),
        &s.hosts(),
        &[src.to_str().unwrap()],
    );
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    (s, tmp, opml, src)
}

#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_stdout_exits_2_without_a_panic() {
    let (s, tmp, opml, src) = with_a_delivered_digest("stdout");
    let state = tmp.path().join("state");
    let runs: [&[&str]; 10] = [
        &["import", opml.to_str().unwrap()],
        &["export", src.to_str().unwrap()],
        &["check", "http://blog.test/rss.xml"],
        &["show"],
        &["status"],
        &["selftest"],
        &["selftest", "--json"],
        &["attest", "--offline-only"],
        &["robots", "/dev/null", "http://blog.test/"],
        &[src.to_str().unwrap(), "--force"],
    ];
    for args in runs {
        let o = wr_to_full(&state, &s.hosts(), args);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        // Issue #20: said in words, not a bare status 2.
        assert!(
            err.contains("cannot write") && err.contains("standard output"),
            "{args:?}: {err}"
        );
    }
}

/// Runs `wr` with standard output on a pipe whose reader is already
/// gone (`wr-feeds ... | head -c0`): every write fails with EPIPE.
fn wr_to_closed_pipe(
    state: &std::path::Path,
    hosts: &[&Host],
    args: &[&str],
) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    wr_command(state, hosts, args)
        .stdout(writer)
        .output()
        .expect("run wr-feeds")
}

/// Issue #21: a closed standard output (`wr-feeds status | head -1`) is
/// no error: nobody is left to read, and the command stops quietly with
/// status 0, as ripgrep does. (A full disk still is one: above.)
#[test]
fn a_closed_stdout_pipe_exits_0_quietly() {
    let (s, tmp, opml, src) = with_a_delivered_digest("stdout-pipe");
    let state = tmp.path().join("state");
    let runs: [&[&str]; 11] = [
        &["import", opml.to_str().unwrap()],
        &["export", src.to_str().unwrap()],
        &["check", "http://blog.test/rss.xml"],
        &["show"],
        &["status"],
        &["selftest"],
        &["attest", "--offline-only"],
        &["robots", "/dev/null", "http://blog.test/"],
        &["completions", "bash"],
        &["man"],
        &[src.to_str().unwrap(), "--force"],
    ];
    for args in runs {
        let o = wr_to_closed_pipe(&state, &s.hosts(), args);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            !err.contains("error:") && !err.contains("cannot write"),
            "{args:?}: {err}"
        );
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn a_bad_wr_operator_base_is_named_and_nothing_is_fetched() {
    let s = Sites::start();
    let tmp = TempDir::new("opbase");
    let src = tmp.write("sources.toml", SOURCES);
    // Issue #11: a base with a fragment (or path, query) used to be
    // prefix-matched, so `http://blog.test/#` made the bot fetch
    // http://blog.test/ as an "operator resource", past R3 and R2.
    for (base, args) in [
        ("ftp://wal.test", vec!["check", "http://blog.test/rss.xml"]),
        ("ftp://wal.test", vec![src.to_str().unwrap()]),
        ("ftp://wal.test", vec!["selftest"]),
        ("http://blog.test/#", vec![src.to_str().unwrap()]),
        ("http://blog.test/#", vec!["selftest"]),
        (
            "http://wal.test/mirror",
            vec!["check", "http://blog.test/rss.xml"],
        ),
    ] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_wr-feeds"));
        cmd.env_remove("WR_STATE_DIR")
            .env("NO_COLOR", "1")
            .env("WR_OPERATOR_BASE", base)
            .arg("--state-dir")
            .arg(tmp.path().join("state"));
        for h in s.hosts() {
            cmd.arg("--connect-to").arg(h.connect_to());
        }
        let o = cmd.args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("WR_OPERATOR_BASE") && err.contains(base),
            "{args:?}: {err}"
        );
        for h in s.hosts() {
            assert!(h.requests().is_empty(), "{} was contacted", h.name);
        }
    }
}

/// Nothing lost: a digest that could not be delivered (standard output
/// failing after the run) leaves its items new, and the next digest lists
/// them, even though the feed itself now answers 304 or has nothing new.
#[cfg(target_os = "linux")]
#[test]
fn items_of_an_undelivered_digest_are_listed_next_time() {
    let s = Sites::start();
    let tmp = TempDir::new("undelivered");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr_to_full(&state, &s.hosts(), &[src]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out = tmp.path().join("digest.md");
    let o = wr(
        &state,
        &s.hosts(),
        &["--force", "-o", out.to_str().unwrap(), src],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = std::fs::read_to_string(&out).unwrap();
    assert_eq!(link_lines(&md, "Blog").len(), 2, "{md}");
    // Delivered now: a third run the same day writes the day's digest
    // again, the blog's items each once (nothing new came).
    let o = wr(
        &state,
        &s.hosts(),
        &["--force", "-o", out.to_str().unwrap(), src],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let again = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        link_lines(&again, "Blog"),
        link_lines(&md, "Blog"),
        "{again}"
    );
}

/// A robots.txt for `User-agent: *` made of `group`, padded with comment
/// lines so that `line` starts `within` octets before the 500 KiB limit of
/// spec 9.1.1 (`ROBOTS_MAX_BYTES`, 512,000 octets): the limit cuts it.
fn straddling_robots(group: &str, line: &str, within: usize) -> String {
    const LIMIT: usize = 512_000;
    let start = LIMIT - within;
    let mut body = format!("User-agent: *\n{group}");
    while start - body.len() > 80 {
        body.push_str("# padding up to the 500 KiB robots.txt limit ---------------------\n");
    }
    body.push_str(&"#".repeat(start - body.len() - 1));
    body.push('\n');
    assert_eq!(body.len(), start);
    body.push_str(line);
    body.push('\n');
    assert!(body.len() > LIMIT + 1, "the line must straddle the limit");
    body
}

/// Spec 9.1.1 lets a bot cut a robots.txt over 500 KiB; the line the cut
/// falls in must then never open more than its author wrote (R2c). The
/// built binary, over loopback: (a) `Allow: /private/feed.xml-and-more...`
/// cut to `Allow: /private/feed` must not open `/private/feed.xml` under
/// `Disallow: /private`; (b) `Disallow: /blog/feed.xml` cut to `Disallow:
/// /blog/fe` must still deny `/blog/feed.xml`, though `Allow: /blog/feed`
/// is longer than what is left of it. A feed on each host that no rule
/// touches is fetched, so the denials are the rules', not a failed
/// robots.txt.
#[test]
fn a_robots_txt_cut_at_500_kib_never_opens_more_than_its_author_wrote() {
    let op = Operator::start(CANARY_ROBOTS);
    let feed = || Route::ok("application/rss+xml", data("feeds/rss_1.0_spec_1.xml"));
    let allow = Host::start("cut-allow.test");
    allow
        .route(
            "/robots.txt",
            Route::ok(
                "text/plain",
                straddling_robots(
                    "Disallow: /private\n",
                    "Allow: /private/feed.xml-and-more-of-a-rule-cut-by-the-limit",
                    "Allow: /private/feed".len(),
                ),
            ),
        )
        .route("/private/feed.xml", feed())
        .route("/open/feed.xml", feed());
    let disallow = Host::start("cut-disallow.test");
    disallow
        .route(
            "/robots.txt",
            Route::ok(
                "text/plain",
                straddling_robots(
                    "Allow: /blog/feed\n",
                    "Disallow: /blog/feed.xml",
                    "Disallow: /blog/fe".len(),
                ),
            ),
        )
        .route("/blog/feed.xml", feed())
        .route("/news.xml", feed());
    let tmp = TempDir::new("robots-cut");
    let src = tmp.write(
        "sources.toml",
        r#"
[[source]]
name = "Cut Allow"
url = "http://cut-allow.test/"
feed = "http://cut-allow.test/private/feed.xml"

[[source]]
name = "Open"
url = "http://cut-allow.test/open/"
feed = "http://cut-allow.test/open/feed.xml"

[[source]]
name = "Cut Disallow"
url = "http://cut-disallow.test/"
feed = "http://cut-disallow.test/blog/feed.xml"

[[source]]
name = "News"
url = "http://cut-disallow.test/news/"
feed = "http://cut-disallow.test/news.xml"
"#,
    );
    let hosts = [&op.wal, &op.pypi, &allow, &disallow];
    let o = wr(&tmp.path().join("state"), &hosts, &[src.to_str().unwrap()]);
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    assert!(
        md.contains("\n## Cut Allow\n\n*denied") && md.contains("Disallow: /private, line 2"),
        "{md}"
    );
    assert!(md.contains("\n## Cut Disallow\n\n*denied"), "{md}");
    assert_eq!(link_lines(&md, "Open").len(), 2, "{md}");
    // Both serve the same feed: its links are listed once, under the
    // first source (issue #23), and News says where they went.
    assert!(link_lines(&md, "News").is_empty(), "{md}");
    assert!(
        md.contains("\n## News\n\n*2 items listed under an earlier source.*\n"),
        "{md}"
    );
    for (host, target) in [(&allow, "/private/feed.xml"), (&disallow, "/blog/feed.xml")] {
        assert_eq!(host.requests_to("/robots.txt").len(), 1, "{}", host.name);
        let got = host.requests_to(target);
        assert!(
            got.is_empty(),
            "{}{target} was requested: {got:?}",
            host.name
        );
        for r in host.requests() {
            assert_eq!(
                r.header("User-Agent"),
                Some(UA),
                "{}{}",
                host.name,
                r.target
            );
        }
    }
}

/// Issue #12, where the digest goes: `-o -` is standard output (it wrote
/// a file named `-`); `-o LINK` writes through a symlink to its target (the
/// link became a regular file and the target went stale); a device node is
/// refused instead of being replaced by a file; a failed standard output
/// says so.
#[cfg(target_os = "linux")]
#[test]
fn outputs_go_where_they_are_named() {
    let s = Sites::start();
    let tmp = TempDir::new("outputs");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let dash = wr_command(&state, &s.hosts(), &[src, "--force", "-o", "-"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(stdout(&dash).contains("## Blog"), "{}", stderr(&dash));
    assert!(
        !tmp.path().join("-").exists(),
        "a file named `-` was written"
    );

    let target = tmp.write("real-digest.md", "old\n");
    let link = tmp.path().join("digest.md");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = wr(
        &state,
        &s.hosts(),
        &[src, "--force", "-o", link.to_str().unwrap()],
    );
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.contains("## Blog"), "{written}");

    let o = wr(&state, &s.hosts(), &[src, "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));

    let o = wr_to_full(&state, &s.hosts(), &[src, "--force"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot write the digest to standard output"),
        "{}",
        stderr(&o)
    );
}

/// Issue #20: the digest's `-o` keeps a 0600 file 0600 (it became 0644),
/// and `output = "-"` in `[settings]` is standard output, as `-o -` (it
/// wrote a file named `-` beside sources.toml).
#[cfg(unix)]
#[test]
fn a_private_digest_stays_private_and_settings_dash_is_stdout() {
    use std::os::unix::fs::PermissionsExt;
    let s = Sites::start();
    let tmp = TempDir::new("digest-mode");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let out = tmp.write("digest.md", "old\n");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = wr(
        &state,
        &s.hosts(),
        &[src.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&out).unwrap().contains("## Blog"));
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600);

    let src = tmp.write(
        "dash.toml",
        &format!("[settings]\noutput = \"-\"\n{SOURCES}"),
    );
    let o = wr(&state, &s.hosts(), &[src.to_str().unwrap(), "--force"]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).contains("## Blog"), "{}", stderr(&o));
    assert!(
        !tmp.path().join("-").exists(),
        "a file named `-` was written"
    );
}

/// Issue #12: `-q` (the cron line) hid failed and deferred sources, so
/// cron never mailed. They are errors, shown under `-q`.
#[test]
fn quiet_still_reports_a_failed_source() {
    let s = Sites::start();
    let tmp = TempDir::new("quiet-failure");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Gone\"\nurl = \"http://blog.test/gone\"\nfeed = \"http://blog.test/gone.xml\"\n",
    );
    let o = wr(
        &tmp.path().join("state"),
        &s.hosts(),
        &["-q", src.to_str().unwrap()],
    );
    let err = stderr(&o);
    assert!(err.contains("error: source `Gone`"), "{err}");
}

/// Issue #12: a failed blocklist refresh with a list kept in force was
/// reported twice on stderr (the pipeline's notice and the CLI's summary).
/// Moves the stored blocklist's fetch instant `by` into the past.
fn age_stored_blocklist(state: &std::path::Path, by: Duration) {
    let store = wr_feeds::store::Store::open(state).unwrap();
    let mut row = store.blocklist().unwrap().expect("a stored blocklist");
    row.fetched_at = wr_core::time::Timestamp(row.fetched_at.0 - by.as_millis() as u64);
    store.put_blocklist(&row).unwrap();
}

/// Issue #18: with `"refresh": "PT0S"` (schema-valid) `check` never
/// returned: the list went stale the instant it was adopted and was asked
/// for again, once a second, for ever. The binary now asks once, answers,
/// and a digest run within the 5-minute floor asks no more. The test
/// watches the operator's log and kills a binary that asks a twentieth
/// time, so a regression fails instead of hanging.
#[test]
fn a_zero_refresh_blocklist_is_asked_once_and_check_returns() {
    const LIST: &str = "/.well-known/walsh-research/blocklist.json";
    let s = Sites::start();
    let zero = String::from_utf8(data("operator/blocklist.json"))
        .unwrap()
        .replace("\"PT6H\"", "\"PT0S\"");
    assert!(zero.contains("PT0S"), "the fixture's refresh changed");
    s.op.wal.route(LIST, Route::ok("application/json", zero));
    let tmp = TempDir::new("pt0s");
    let state = tmp.path().join("state");
    let finish = |mut cmd: std::process::Command| {
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        loop {
            if child.try_wait().unwrap().is_some() {
                return child.wait_with_output().unwrap();
            }
            if s.op.wal.requests_to(LIST).len() >= 20 {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the blocklist was asked for 20 times: a livelock");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let o = finish(wr_command(
        &state,
        &s.hosts(),
        &[
            "check",
            "http://blog.test/rss.xml",
            "http://www.example.com/",
        ],
    ));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    assert!(
        out.starts_with("allowed   http://blog.test/rss.xml"),
        "{out}"
    );
    assert!(
        out.contains("denied    http://www.example.com/  (R3"),
        "{out}"
    );
    assert_eq!(s.op.wal.requests_to(LIST).len(), 1);
    assert!(
        s.blog.requests_to("/rss.xml").is_empty(),
        "check fetched the target"
    );

    let src = tmp.write("sources.toml", SOURCES);
    let o = finish(wr_command(&state, &s.hosts(), &[src.to_str().unwrap()]));
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(s.op.wal.requests_to(LIST).len(), 1, "within the floor");
    assert_eq!(s.blog.requests_to("/rss.xml").len(), 1, "the target went");
}

#[test]
fn a_kept_blocklist_is_reported_once() {
    let s = Sites::start();
    let quick = String::from_utf8(data("operator/blocklist.json"))
        .unwrap()
        .replace("\"PT6H\"", "\"PT1S\"");
    assert!(quick.contains("PT1S"), "the fixture's refresh changed");
    s.op.wal.route(
        "/.well-known/walsh-research/blocklist.json",
        Route::ok("application/json", quick),
    );
    let tmp = TempDir::new("kept-once");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr(&state, &s.hosts(), &[src]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    s.op.wal.route(
        "/.well-known/walsh-research/blocklist.json",
        Route::status(500),
    );
    // PT1S is read as the 5-minute floor (issue #18): age the stored list
    // past it, so the next run refreshes it.
    age_stored_blocklist(&state, Duration::from_secs(301));
    let o = wr(&state, &s.hosts(), &[src, "--force"]);
    let err = stderr(&o);
    assert_eq!(err.matches("blocklist refresh failed").count(), 1, "{err}");
    assert!(err.contains("(1 entry, R3b)"), "{err}");
}

/// Issue #12: `enabled = false` keeps a source in the file without running
/// it; `max_items` caps a source's items in a digest and says how many
/// more there were.
#[test]
fn disabled_sources_are_not_run_and_max_items_caps_the_list() {
    let s = Sites::start();
    let tmp = TempDir::new("enabled-max");
    let src = tmp.write(
        "sources.toml",
        r#"
[[source]]
name = "Blog"
url = "http://blog.test/"
feed = "http://blog.test/rss.xml"
max_items = 1

[[source]]
name = "Daring Fireball"
url = "http://df.test/"
feed = "http://df.test/feeds/json"
enabled = false
"#,
    );
    let o = wr(
        &tmp.path().join("state"),
        &s.hosts(),
        &[src.to_str().unwrap()],
    );
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    assert!(!md.contains("Daring Fireball"), "{md}");
    assert!(s.df.requests().is_empty(), "a disabled source was fetched");
    assert_eq!(link_lines(&md, "Blog").len(), 1, "{md}");
    assert!(
        md.contains("*1 more not listed \\(max\\_items = 1\\)*"),
        "{md}"
    );
    let bad = tmp.write(
        "bad.toml",
        "[[source]]\nname = \"A\"\nurl = \"http://blog.test/\"\nmax_items = 0\n",
    );
    let o = wr(
        &tmp.path().join("state"),
        &s.hosts(),
        &[bad.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.toml:4:13"), "{}", stderr(&o));
}

/// Issue #12, "after a failure the items hide": a digest that could not be
/// written (stdout on /dev/full), then an immediate rerun inside R8's hour,
/// used to say "skipped" and show none of the fetched items. The rerun now
/// lists what it owes, and a dated output path names one file per day.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_then_a_rerun_within_the_hour_lists_every_item_in_the_days_file() {
    let s = Sites::start();
    let tmp = TempDir::new("owed");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr_to_full(&state, &s.hosts(), &[src]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let pattern = tmp.path().join("digest-{date}.md");
    let o = wr(&state, &s.hosts(), &["-o", pattern.to_str().unwrap(), src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        s.blog.requests_to("/rss.xml").len(),
        1,
        "R8: not fetched again"
    );
    let written: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("digest-"))
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let name = &written[0];
    let day = &name["digest-".len()..name.len() - ".md".len()];
    assert!(
        day.len() == 10 && day.as_bytes()[4] == b'-' && day.as_bytes()[7] == b'-',
        "{name}"
    );
    let md = std::fs::read_to_string(tmp.path().join(name)).unwrap();
    assert!(md.starts_with(&format!("# Digest {day}\n")), "{md}");
    assert!(md.contains("\n## Blog\n\n*skipped: "), "{md}");
    assert_eq!(link_lines(&md, "Blog").len(), 2, "owed items:\n{md}");
    assert!(!link_lines(&md, "Daring Fireball").is_empty(), "{md}");
    // A third run the same day: the same items, each once.
    let again = tmp.path().join("again.md");
    let o = wr(&state, &s.hosts(), &["-o", again.to_str().unwrap(), src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md2 = std::fs::read_to_string(&again).unwrap();
    assert_eq!(link_lines(&md2, "Blog"), link_lines(&md, "Blog"), "{md2}");
}

/// `show` writes a day's digest again from the store, without a request:
/// the same items as the digest of that day; another day has no digest
/// (exit 1, said); a date that is not one is refused.
#[test]
fn show_writes_a_past_digest_again_without_a_request() {
    let s = Sites::start();
    let tmp = TempDir::new("show");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr(&state, &s.hosts(), &[src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    let day = md["# Digest ".len().."# Digest ".len() + 10].to_string();
    let before: usize = s.hosts().iter().map(|h| h.requests().len()).sum();

    let o = wr(&state, &s.hosts(), &["show", src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shown = stdout(&o);
    assert!(shown.starts_with(&format!("# Digest {day}\n")), "{shown}");
    for section in ["Blog", "Daring Fireball", "Docs"] {
        assert_eq!(
            link_lines(&shown, section),
            link_lines(&md, section),
            "{shown}"
        );
    }
    let o = wr(&state, &s.hosts(), &["show", src, &day, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["day"], day.as_str());
    assert_eq!(v["sources"][0]["items"].as_array().unwrap().len(), 2);

    // Issue #20: a day with no digest is said, exit 1, nothing written.
    let o = wr(&state, &s.hosts(), &["show", src, "2000-01-01"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no digest for 2000-01-01"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "");
    let o = wr(&state, &s.hosts(), &["show", src, "--since", "2000-01-01"]);
    let since = stdout(&o);
    assert!(since.starts_with("# Digest since 2000-01-01\n"), "{since}");
    assert_eq!(link_lines(&since, "Blog"), link_lines(&md, "Blog"));

    let o = wr(&state, &s.hosts(), &["show", src, "yesterday"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a date (expected YYYY-MM-DD)"),
        "{}",
        stderr(&o)
    );
    let after: usize = s.hosts().iter().map(|h| h.requests().len()).sum();
    assert_eq!(before, after, "show made a request");
}
