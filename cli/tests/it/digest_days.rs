//! Issue #12, "a digest is a day": the built binary against loopback
//! publishers. A rerun the same day writes that day's digest again with
//! anything new added, never a poorer one; a digest that could not be
//! written, or a run killed half-way, loses nothing; `show` writes a day's
//! digest again exactly as it was written; `{date}` names the day; the
//! day is the user's local date.

use crate::common;

use common::*;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// An RSS 2.0 feed of `items` (title, path on blog.test).
fn rss(items: &[&str]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Blog</title>\
         <link>http://blog.test/</link><description>d</description>",
    );
    for t in items {
        s.push_str(&format!(
            "<item><title>Post {t}</title><link>http://blog.test/{t}</link></item>"
        ));
    }
    s.push_str("</channel></rss>");
    s
}

struct Sites {
    op: Operator,
    blog: Host,
    plain: Host,
    slow: Host,
}

impl Sites {
    fn start() -> Sites {
        let op = Operator::start("User-agent: *\nAllow: /\n");
        let blog = Host::start("blog.test");
        blog.route(
            "/rss.xml",
            Route::ok("application/rss+xml", rss(&["a", "b"])),
        );
        // HTML only: left out (R9), with a reason line in the digest.
        let plain = Host::start("plain.test");
        plain.route("/", Route::ok("text/html", "<!doctype html><p>x</p>"));
        let slow = Host::start("slow.test");
        slow.route("/feed.xml", Route::ok("application/rss+xml", slow_feed()));
        Sites {
            op,
            blog,
            plain,
            slow,
        }
    }
    fn hosts(&self) -> Vec<&Host> {
        vec![
            &self.op.wal,
            &self.op.pypi,
            &self.blog,
            &self.plain,
            &self.slow,
        ]
    }
    /// The slow source answers after `d`.
    fn slow_by(&self, d: Duration) {
        self.slow.route(
            "/feed.xml",
            Route::ok("application/rss+xml", slow_feed()).delayed(d),
        );
    }
}

fn slow_feed() -> String {
    "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Slow</title>\
     <item><title>Slow one</title><link>http://slow.test/one</link></item></channel></rss>"
        .to_string()
}

const SOURCES: &str = r#"
[[source]]
name = "Blog"
url = "http://blog.test/"
feed = "http://blog.test/rss.xml"
tags = ["rss"]

[[source]]
name = "Plain"
url = "http://plain.test/"

[[source]]
name = "Slow"
url = "http://slow.test/"
feed = "http://slow.test/feed.xml"
"#;

/// The `- [...](...)` lines of a section.
fn links(md: &str, section: &str) -> Vec<String> {
    let Some(start) = md.find(&format!("\n## {section}\n")) else {
        panic!("no section {section}:\n{md}")
    };
    let rest = &md[start + section.len() + 5..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| l.starts_with("- ["))
        .map(str::to_string)
        .collect()
}

fn blog_link(t: &str) -> String {
    format!("- [Post {t}](http://blog.test/{t})")
}

/// The digest's day, from its title.
fn title_day(md: &str) -> String {
    let day = md
        .strip_prefix("# Digest ")
        .and_then(|r| r.get(..10))
        .unwrap_or_else(|| panic!("no title:\n{md}"));
    day.to_string()
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(o), stderr(o));
}

fn spawn(state: &std::path::Path, hosts: &[&Host], args: &[&str]) -> Child {
    wr_command(state, hosts, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wr-feeds")
}

/// Waits until `cond` holds (or panics after 60 s).
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let started = Instant::now();
    while !cond() {
        assert!(started.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn blog_key() -> String {
    wr_feeds::Source {
        name: "Blog".into(),
        url: "http://blog.test/".into(),
        feed: Some("http://blog.test/rss.xml".into()),
    }
    .key()
}

/// A rerun the same day: the first run's items stay, new ones are added
/// after them, nothing is listed twice, and a rerun R8 skips still lists
/// the day's items under the source (issue #12: it wrote only "skipped"
/// lines over the morning's digest).
#[test]
fn a_rerun_the_same_day_keeps_the_days_items_and_adds_the_new_ones() {
    let s = Sites::start();
    let tmp = TempDir::new("rerun");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let out = tmp.path().join("digest.md");
    let out = out.to_str().unwrap();
    let o = wr(&state, &s.hosts(), &["-o", out, src]);
    ok(&o);
    let first = std::fs::read_to_string(out).unwrap();
    assert_eq!(links(&first, "Blog"), [blog_link("a"), blog_link("b")]);

    // A new post, fetched (--force): the morning's two, then the new one.
    s.blog.route(
        "/rss.xml",
        Route::ok("application/rss+xml", rss(&["c", "a", "b"])),
    );
    let o = wr(&state, &s.hosts(), &["--force", "-o", out, src]);
    ok(&o);
    let second = std::fs::read_to_string(out).unwrap();
    assert_eq!(title_day(&second), title_day(&first));
    assert_eq!(
        links(&second, "Blog"),
        [blog_link("a"), blog_link("b"), blog_link("c")],
        "{second}"
    );
    assert_eq!(links(&second, "Slow"), links(&first, "Slow"), "{second}");
    // Issue #20: the summary counts this run's new items (one), not the
    // day's items the digest lists again.
    assert!(stderr(&o).contains("; 1 new item;"), "{}", stderr(&o));

    // Within the hour, not fetched: "skipped", and the day's items all
    // the same, each once.
    let o = wr(&state, &s.hosts(), &["-o", out, src]);
    ok(&o);
    let third = std::fs::read_to_string(out).unwrap();
    assert!(
        third.contains("\n## Blog\n\n*skipped: fetched less than an hour ago"),
        "{third}"
    );
    assert_eq!(links(&third, "Blog"), links(&second, "Blog"), "{third}");
    assert_eq!(links(&third, "Slow"), links(&first, "Slow"), "{third}");
    assert!(stderr(&o).contains("; 0 new items;"), "{}", stderr(&o));
    assert_eq!(s.blog.requests_to("/rss.xml").len(), 2);
}

/// A digest whose `-o` file cannot be written after the run (its
/// directory went away while the run was fetching) says so, exits 2, and
/// the next run, inside R8's hour, lists every item it fetched.
#[test]
fn a_failed_output_write_then_a_rerun_lists_every_item() {
    let s = Sites::start();
    s.slow_by(Duration::from_secs(2));
    let tmp = TempDir::new("failed-write");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let dir = tmp.path().join("notes");
    std::fs::create_dir(&dir).unwrap();
    let out = dir.join("digest.md");
    let out = out.to_str().unwrap();
    let child = spawn(&state, &s.hosts(), &["-o", out, src]);
    // The output was checked before anything was fetched; now it goes.
    wait_for("the slow feed is asked for", || {
        !s.slow.requests_to("/feed.xml").is_empty()
    });
    std::fs::remove_dir_all(&dir).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("cannot write") && err.contains("stay pending"),
        "{err}"
    );

    std::fs::create_dir(&dir).unwrap();
    let o = wr(&state, &s.hosts(), &["-o", out, src]);
    ok(&o);
    assert_eq!(
        s.blog.requests_to("/rss.xml").len(),
        1,
        "R8: not fetched again"
    );
    let md = std::fs::read_to_string(out).unwrap();
    assert!(md.contains("\n## Blog\n\n*skipped: "), "{md}");
    assert_eq!(links(&md, "Blog"), [blog_link("a"), blog_link("b")], "{md}");
    assert_eq!(links(&md, "Slow").len(), 1, "{md}");
}

/// A run killed (SIGKILL) after it stored a source's items, while it waits
/// for another: the next run, inside R8's hour, lists them; then they are
/// the day's, and `show` lists them too.
#[test]
fn a_run_killed_half_way_loses_nothing() {
    let s = Sites::start();
    s.slow_by(Duration::from_secs(60));
    let tmp = TempDir::new("killed");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let mut child = spawn(&state, &s.hosts(), &[src]);
    let key = blog_key();
    wait_for("the blog's items are stored and its run recorded", || {
        if !state.join("wr-feeds.sqlite3").exists() {
            return false;
        }
        let Ok(store) = wr_feeds::store::Store::open(&state) else {
            return false;
        };
        store.items_seen(&key).is_ok_and(|n| n == 2)
            && store.source(&key).is_ok_and(|r| r.last_run.is_some())
    });
    wait_for("the slow feed is asked for", || {
        !s.slow.requests_to("/feed.xml").is_empty()
    });
    child.kill().unwrap();
    let killed = child.wait_with_output().unwrap();
    assert!(killed.stdout.is_empty(), "no digest was written");

    s.slow_by(Duration::ZERO);
    let o = wr(&state, &s.hosts(), &[src]);
    ok(&o);
    let md = stdout(&o);
    assert!(md.contains("\n## Blog\n\n*skipped: "), "{md}");
    assert_eq!(links(&md, "Blog"), [blog_link("a"), blog_link("b")], "{md}");
    assert_eq!(links(&md, "Slow"), ["- [Slow one](http://slow.test/one)"]);
    assert_eq!(s.blog.requests_to("/rss.xml").len(), 1);
    let o = wr(&state, &s.hosts(), &["show", src]);
    ok(&o);
    assert_eq!(stdout(&o), md);
}

/// `show` writes a day's digest again, byte for byte: the sections with
/// their outcome lines (skipped, left out, with reasons), the items in the order they
/// were delivered, a source's `max_items` cut with its note; from the
/// sources file, or, without one, from the store alone; Markdown and
/// JSON (its `generated` instant too). No request is made.
#[test]
fn show_writes_the_days_digest_again_as_it_was_written() {
    let s = Sites::start();
    let tmp = TempDir::new("show-equal");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        &SOURCES.replace("tags = [\"rss\"]", "tags = [\"rss\"]\nmax_items = 2"),
    );
    let src = src.to_str().unwrap();
    let o = wr(&state, &s.hosts(), &[src]);
    ok(&o);
    s.blog.route(
        "/rss.xml",
        Route::ok("application/rss+xml", rss(&["c", "a", "b"])),
    );
    // A rerun within the hour: skipped sources, the day's items, the cut.
    let out = tmp.path().join("digest.md");
    let o = wr(&state, &s.hosts(), &["-o", out.to_str().unwrap(), src]);
    ok(&o);
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("\n## Blog\n\n*skipped: "), "{written}");
    let day = title_day(&written);
    let before: usize = s.hosts().iter().map(|h| h.requests().len()).sum();

    for args in [
        vec!["show", src],
        vec!["show", src, day.as_str()],
        vec!["show"],
        vec!["show", day.as_str()],
    ] {
        let o = wr(&state, &s.hosts(), &args);
        ok(&o);
        assert_eq!(stdout(&o), written, "{args:?}");
    }

    // --force fetches the new post: the cut keeps the first two of the
    // day and says one more was not listed.
    let json = tmp.path().join("digest.json");
    let o = wr(
        &state,
        &s.hosts(),
        &[
            "--force",
            "--format",
            "json",
            "-o",
            json.to_str().unwrap(),
            src,
        ],
    );
    ok(&o);
    let written = std::fs::read_to_string(&json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(v["sources"][0]["items"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(
        v["sources"][0]["reason"], "1 more not listed (max_items = 2)",
        "{v}"
    );
    assert_eq!(v["sources"][1]["status"], "left_out", "{v}");
    let fetched: usize = s.hosts().iter().map(|h| h.requests().len()).sum();
    for args in [
        vec!["show", src, "--format", "json"],
        vec!["show", "--format", "json"],
    ] {
        let o = wr(&state, &s.hosts(), &args);
        ok(&o);
        assert_eq!(stdout(&o), written, "{args:?}");
    }
    let after: usize = s.hosts().iter().map(|h| h.requests().len()).sum();
    assert!(fetched > before, "the --force run fetched");
    assert_eq!(after, fetched, "show made a request");
}

/// `--since DATE` gathers every item of the days from DATE to today;
/// another day has none; dates that are not dates, or are still to come,
/// are refused; a state directory with no store is named, not created.
#[test]
fn since_gathers_the_days_and_bad_dates_are_refused() {
    let s = Sites::start();
    let tmp = TempDir::new("since");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr(&state, &s.hosts(), &[src]);
    ok(&o);
    let md = stdout(&o);
    let o = wr(&state, &s.hosts(), &["show", src, "--since", "2000-01-01"]);
    ok(&o);
    let since = stdout(&o);
    assert!(since.starts_with("# Digest since 2000-01-01\n"), "{since}");
    assert_eq!(links(&since, "Blog"), links(&md, "Blog"));
    assert_eq!(links(&since, "Slow"), links(&md, "Slow"));
    // Issue #20: a day with no digest is said (exit 1), not written as an
    // empty digest with exit 0.
    let o = wr(&state, &s.hosts(), &["show", "2000-01-01"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "no digest is written");
    assert!(
        stderr(&o).contains("no digest for 2000-01-01"),
        "{}",
        stderr(&o)
    );
    for (args, says) in [
        // Issue #20: a lone DATE with --since was silently ignored.
        (
            vec!["show", "2000-01-01", "--since", "2000-01-01"],
            "cannot be used together",
        ),
        (
            vec!["show", src, "2000-01-01", "--since", "2000-01-01"],
            "cannot be used with",
        ),
        (
            vec!["show", src, "2026-02-30"],
            "not a date (expected YYYY-MM-DD)",
        ),
        (vec!["show", "--since", "yesterday"], "not a date"),
        (vec!["show", "2999-01-01"], "is after today"),
    ] {
        let o = wr(&state, &s.hosts(), &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let nowhere = tmp.path().join("no-such-state");
    let o = wr(&nowhere, &[], &["show"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("nothing to show: no state in"),
        "{}",
        stderr(&o)
    );
    assert!(!nowhere.exists(), "show created a state directory");
}

/// The date `hours` from UTC now: what a digest made in a zone that far
/// ahead of UTC is titled.
fn date_at_offset(hours: i64) -> String {
    let now = chrono::Utc::now() + chrono::Duration::hours(hours);
    now.format("%Y-%m-%d").to_string()
}

/// The day is the user's local date, from TZ: 14 hours ahead of UTC and
/// 12 behind are always different dates, and at least one of them is not
/// UTC's. `-o digest-{date}.md` names the day's file, and `show` in the
/// same zone finds the day.
#[test]
fn the_day_is_the_local_date_and_names_the_dated_file() {
    let s = Sites::start();
    let tmp = TempDir::new("local-day");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Blog\"\nurl = \"http://blog.test/\"\nfeed = \"http://blog.test/rss.xml\"\n",
    );
    let src = src.to_str().unwrap();
    let mut days = Vec::new();
    for (tz, hours) in [("<+14>-14", 14), ("<-12>12", -12)] {
        let state = tmp.path().join(format!("state{hours}"));
        let pattern = tmp.path().join(format!("digest{hours}-{{date}}.md"));
        let before = date_at_offset(hours);
        let o = wr_command(&state, &s.hosts(), &["-o", pattern.to_str().unwrap(), src])
            .env("TZ", tz)
            .output()
            .unwrap();
        ok(&o);
        let after = date_at_offset(hours);
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(&format!("digest{hours}-")))
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let day = names[0][format!("digest{hours}-").len()..names[0].len() - 3].to_string();
        assert!(
            day == before || day == after,
            "TZ={tz}: {day}, expected {before}"
        );
        let md = std::fs::read_to_string(tmp.path().join(&names[0])).unwrap();
        assert_eq!(title_day(&md), day);
        let o = wr_command(&state, &s.hosts(), &["show", src, "--format", "json"])
            .env("TZ", tz)
            .output()
            .unwrap();
        ok(&o);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["day"], day.as_str());
        assert_eq!(v["sources"][0]["items"].as_array().unwrap().len(), 2);
        days.push(day);
    }
    assert_ne!(days[0], days[1]);
}

/// A store an older wr-feeds wrote: this morning's items were delivered
/// and marked reported, with no day (days were not recorded yet), and
/// the source ran minutes ago. The first run of this version, inside R8's
/// hour, still lists them as today's (they were first seen today), and
/// `show` finds them: an upgrade never writes a poorer digest.
#[test]
fn a_store_from_before_days_keeps_todays_items_in_the_rerun() {
    let s = Sites::start();
    let tmp = TempDir::new("before-days");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Blog\"\nurl = \"http://blog.test/\"\nfeed = \"http://blog.test/rss.xml\"\n",
    );
    let src = src.to_str().unwrap();
    // Minutes ago, but today where the user is: in the first minutes after
    // midnight, five minutes ago was yesterday, whose items today's digest
    // rightly leaves out (this test failed so at 00:02).
    use chrono::TimeZone;
    let now = chrono::Local::now();
    let now_ms = u64::try_from(now.timestamp_millis()).unwrap();
    let midnight_ms = now
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .and_then(|t| chrono::Local.from_local_datetime(&t).earliest())
        .map_or(0, |t| u64::try_from(t.timestamp_millis()).unwrap());
    let at = wr_core::time::Timestamp((now_ms - 5 * 60 * 1000).max(midnight_ms));
    let items: Vec<wr_feeds::Item> = ["a", "b"]
        .iter()
        .map(|t| wr_feeds::Item {
            title: format!("Post {t}"),
            url: format!("http://blog.test/{t}"),
            published: None,
            id: format!("http://blog.test/{t}"),
        })
        .collect();
    let key = blog_key();
    let mut store = wr_feeds::store::Store::open(&state).unwrap();
    store
        .record_items(&key, "feed", "http://blog.test/rss.xml", &items, at)
        .unwrap();
    store.record_run(&key, at, "ok").unwrap();
    // What an older binary did once its digest was written: no day.
    store
        .mark_reported(items.iter().map(|i| (key.as_str(), i.id.as_str())))
        .unwrap();
    drop(store);

    let o = wr(&state, &s.hosts(), &[src]);
    ok(&o);
    let md = stdout(&o);
    assert!(md.contains("\n## Blog\n\n*skipped: "), "{md}");
    assert_eq!(links(&md, "Blog"), [blog_link("a"), blog_link("b")], "{md}");
    assert!(s.blog.requests().is_empty(), "R8: not fetched");
    let o = wr(&state, &s.hosts(), &["show", src]);
    ok(&o);
    assert_eq!(stdout(&o), md);
}

/// Issue #20: digest days read from the store are clamped like every
/// other stored instant. An item reported by a digest whose clock was
/// three days ahead carried a day after today: `show` (which refuses a
/// day to come) and a rerun's "earlier today" never listed it, and once
/// that day came it would have been listed as the day's again. It now
/// reads as today's, `show` lists it, and the next run writes its day
/// back as today.
#[test]
fn a_digest_day_stored_ahead_of_the_clock_reads_as_today() {
    let s = Sites::start();
    let tmp = TempDir::new("day-ahead");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let out = tmp.path().join("digest.md");
    let out = out.to_str().unwrap();
    ok(&wr(&state, &s.hosts(), &["-o", out, src]));
    let today = title_day(&std::fs::read_to_string(out).unwrap());
    let ahead = (chrono::NaiveDate::parse_from_str(&today, "%Y-%m-%d").unwrap()
        + chrono::Days::new(3))
    .format("%Y-%m-%d")
    .to_string();
    // A digest made with a clock three days ahead reported "Post z".
    let z = wr_feeds::extract::Item {
        title: "Post z".into(),
        url: "http://blog.test/z".into(),
        published: None,
        id: "http://blog.test/z".into(),
    };
    let key = blog_key();
    let mut store = wr_feeds::store::Store::open(&state).unwrap();
    let at = wr_core::time::Timestamp::from_secs(4_102_444_800);
    store
        .record_items(
            &key,
            "feed",
            "http://blog.test/rss.xml",
            std::slice::from_ref(&z),
            at,
        )
        .unwrap();
    store
        .mark_reported_on([(key.as_str(), z.id.as_str())], &ahead)
        .unwrap();
    drop(store);

    let o = wr(&state, &[], &["show", src]);
    ok(&o);
    assert_eq!(
        links(&stdout(&o), "Blog"),
        [blog_link("a"), blog_link("b"), blog_link("z")],
        "{}",
        stdout(&o)
    );
    // A rerun (R8 skips the feed) lists it among today's, and writes its
    // day back: read with no clamp, the store says today.
    ok(&wr(&state, &s.hosts(), &["-o", out, src]));
    let rerun = std::fs::read_to_string(out).unwrap();
    assert!(links(&rerun, "Blog").contains(&blog_link("z")), "{rerun}");
    let store = wr_feeds::store::Store::open(&state).unwrap();
    let d = chrono::NaiveDate::parse_from_str(&ahead, "%Y-%m-%d").unwrap();
    let far = wr_feeds::store::Days {
        first: ahead.clone(),
        last: ahead.clone(),
        start: wr_core::time::Timestamp(0),
        end: wr_core::time::Timestamp(0),
        today: d.format("%Y-%m-%d").to_string(),
    };
    assert!(
        store.day_items(&key, &far).unwrap().is_empty(),
        "still stored as {ahead}"
    );
}

/// The day of a digest in either format.
fn digest_day(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => v["day"].as_str().unwrap().to_string(),
        Err(_) => title_day(text),
    }
}

/// Issue #20: the first run after local midnight replaced a plain
/// `-o digest.md` (no `{date}`), which held yesterday's digest, with
/// today's: a whole day of items gone from the file. That digest is now
/// kept beside it as `digest-YESTERDAY.md` (the name `{date}` would give
/// it) before today's is written, byte for byte and saying so; a rerun the
/// same day keeps nothing more; a kept name taken by something else is
/// refused before anything is fetched, leaving both files as they were.
#[test]
fn a_plain_output_after_midnight_keeps_the_earlier_day() {
    let s = Sites::start();
    let tmp = TempDir::new("midnight");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    for (ext, fmt) in [("md", "markdown"), ("json", "json")] {
        let out = tmp.path().join(format!("digest.{ext}"));
        let out_s = out.to_str().unwrap();
        ok(&wr(
            &state,
            &s.hosts(),
            &["--format", fmt, "-o", out_s, src],
        ));
        let written = std::fs::read_to_string(&out).unwrap();
        let today = digest_day(&written);
        let yesterday = (chrono::NaiveDate::parse_from_str(&today, "%Y-%m-%d").unwrap()
            - chrono::Days::new(1))
        .format("%Y-%m-%d")
        .to_string();
        // As the file stood when yesterday's digest was written.
        let held = match fmt {
            "json" => {
                let mut v: serde_json::Value = serde_json::from_str(&written).unwrap();
                v["day"] = yesterday.clone().into();
                serde_json::to_string_pretty(&v).unwrap()
            }
            _ => written.replacen(&today, &yesterday, 1),
        };
        std::fs::write(&out, &held).unwrap();

        let o = wr(&state, &s.hosts(), &["--format", fmt, "-o", out_s, src]);
        ok(&o);
        let kept = tmp.path().join(format!("digest-{yesterday}.{ext}"));
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), held, "{fmt}");
        assert!(
            stderr(&o).contains(&format!("held the digest of {yesterday}: kept as")),
            "{fmt}: {}",
            stderr(&o)
        );
        let now = std::fs::read_to_string(&out).unwrap();
        assert_eq!(digest_day(&now), today, "{fmt}: {now}");

        // A rerun the same day rewrites today's and keeps nothing more.
        ok(&wr(
            &state,
            &s.hosts(),
            &["--format", fmt, "-o", out_s, src],
        ));
        let names = std::fs::read_dir(tmp.path()).unwrap().count();
        ok(&wr(
            &state,
            &s.hosts(),
            &["--format", fmt, "-o", out_s, src],
        ));
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), names);

        // The kept name taken by another file: refused, nothing fetched,
        // nothing changed.
        std::fs::write(&out, &held).unwrap();
        std::fs::write(&kept, "my own notes\n").unwrap();
        let asked = s.blog.requests().len();
        let o = wr(
            &state,
            &s.hosts(),
            &["--force", "--format", fmt, "-o", out_s, src],
        );
        assert_eq!(o.status.code(), Some(2), "{fmt}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("holds something else") && stderr(&o).contains("{date}"),
            "{fmt}: {}",
            stderr(&o)
        );
        assert_eq!(s.blog.requests().len(), asked, "{fmt}: fetched anyway");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), held);
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "my own notes\n");
    }
}
