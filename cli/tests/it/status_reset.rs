//! `wr-feeds status` and `wr-feeds reset` on a real state directory.

use crate::common;

use common::*;
use wr_core::time::Timestamp;
use wr_feeds::store::HoldCause;

const SOURCES: &str = r#"
[[source]]
name = "Broken"
url = "http://broken.test/"
feed = "http://broken.test/gone.xml"
"#;

#[test]
fn status_shows_streaks_and_holds_and_reset_lifts_them() {
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let broken = Host::start("broken.test");
    broken
        .route("/robots.txt", Route::status(404))
        .route("/gone.xml", Route::status(404));
    let hosts = [&op.wal, &op.pypi, &broken];
    let tmp = TempDir::new("status");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    for _ in 0..2 {
        let o = wr(&state, &hosts, &["--force", "-q", src]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    }
    // A hold of our own (the cool-down after retries ran out), written as
    // a run would; a server's Retry-After is kept (see below). Half an
    // hour: a hold of ours beyond the cool-down is clamped (issue #20).
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let far = Timestamp::from_secs(now_s + 1800);
    let far_text = chrono::DateTime::from_timestamp((now_s + 1800) as i64, 0)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    wr_feeds::store::Store::open(&state)
        .unwrap()
        .hold("held.test", far, HoldCause::Cooldown)
        .unwrap();
    let before = broken.requests().len();

    let o = wr(&state, &hosts, &["status", src, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["sources"][0]["name"], "Broken");
    assert_eq!(v["sources"][0]["outcome"], "failed");
    assert_eq!(v["sources"][0]["error_streak"], 2);
    assert_eq!(v["held_hosts"][0]["host"], "held.test");
    assert_eq!(v["held_hosts"][0]["held_until"], far_text.as_str());
    assert!(v["blocklist"]["entries"].as_u64().is_some(), "{v}");
    let table = stdout(&wr(&state, &hosts, &["status", src]));
    assert!(table.contains("2 failed in a row"), "{table}");
    assert!(
        table.contains("`wr-feeds reset held.test` lifts it"),
        "{table}"
    );

    let o = wr(
        &state,
        &hosts,
        &["reset", "held.test", "Broken", "--sources", src],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.contains(&format!(
            "lifted the hold on host held.test (it was held until {far_text})"
        )),
        "{said}"
    );
    assert!(said.contains("source `Broken`"), "{said}");
    let v: serde_json::Value =
        serde_json::from_slice(&wr(&state, &hosts, &["status", src, "--json"]).stdout).unwrap();
    assert_eq!(v["held_hosts"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["sources"][0]["error_streak"], 0);
    assert!(v["sources"][0]["last_run"].is_null(), "{v}");

    let o = wr(&state, &hosts, &["reset", "nobody.test"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing to reset"), "{}", stderr(&o));
    assert_eq!(
        broken.requests().len(),
        before,
        "status and reset made a request"
    );
}

/// `export` writes OPML a feed reader (and `import`) reads back; `import`
/// reads a windows-1252 file by its declaration.
#[test]
fn export_and_import_round_trip_through_the_binary() {
    let tmp = TempDir::new("opml");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"Café & co\"\nurl = \"https://a.test/\"\nfeed = \"https://a.test/feed.xml\"\ntags = [\"food\"]\n\
         [[source]]\nname = \"Docs\"\nurl = \"https://docs.test/\"\n",
    );
    let opml = tmp.path().join("subs.opml");
    let o = wr(
        &state,
        &[],
        &[
            "export",
            src.to_str().unwrap(),
            "-o",
            opml.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let xml = std::fs::read_to_string(&opml).unwrap();
    assert!(xml.contains("text=\"Café &amp; co\""), "{xml}");
    let o = wr(&state, &[], &["import", opml.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let toml = stdout(&o);
    assert!(toml.contains("name = \"Café & co\""), "{toml}");
    assert!(
        toml.contains("feed = \"https://a.test/feed.xml\""),
        "{toml}"
    );
    // Issue #20: a source without a feed survives the round trip (it was
    // dropped without a word), and export says feed readers skip it.
    assert!(
        toml.contains("name = \"Docs\"\nurl = \"https://docs.test/\"\n"),
        "{toml}"
    );
    let o = wr(&state, &[], &["export", src.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("1 source without a feed written as `link` outline"),
        "{}",
        stderr(&o)
    );

    // The same list saved by an old reader in windows-1252.
    let latin: Vec<u8> = xml
        .replace("UTF-8", "windows-1252")
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("Latin-1 text"))
        .collect();
    let old = tmp.path().join("old.opml");
    std::fs::write(&old, &latin).unwrap();
    let o = wr(&state, &[], &["import", old.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("name = \"Café & co\""),
        "{}",
        stdout(&o)
    );
}

/// Issue #12: renaming a source reset its R8 hour and listed every item
/// as new again, because history was keyed by name. It is keyed by the
/// canonical URL now: the renamed source is still within its hour.
#[test]
fn renaming_a_source_keeps_its_hour_and_its_items() {
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let blog = Host::start("blog.test");
    blog.route("/robots.txt", Route::status(404)).route(
        "/rss.xml",
        Route::ok("application/rss+xml", data("feeds/rss_1.0_spec_1.xml")),
    );
    let hosts = [&op.wal, &op.pypi, &blog];
    let tmp = TempDir::new("rename");
    let state = tmp.path().join("state");
    let entry = |name: &str| {
        format!("[[source]]\nname = \"{name}\"\nurl = \"http://blog.test/\"\nfeed = \"http://blog.test/rss.xml\"\n")
    };
    let src = tmp.write("sources.toml", &entry("Blog"));
    let o = wr(&state, &hosts, &[src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let src = tmp.write("sources.toml", &entry("My blog"));
    let o = wr(&state, &hosts, &[src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.contains("## My blog\n\n*skipped: fetched less than an hour ago"),
        "{md}"
    );
    assert_eq!(
        blog.requests_to("/rss.xml").len(),
        1,
        "R8 kept across the rename"
    );
    let v: serde_json::Value = serde_json::from_slice(
        &wr(&state, &hosts, &["status", src.to_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(v["sources"][0]["name"], "My blog");
    assert_eq!(v["sources"][0]["items_seen"], 2, "{v}");
}

/// Runs `args` and returns its output and how long it took (the test
/// fails if it takes a minute: a command that waits for a run).
fn timed(
    state: &std::path::Path,
    hosts: &[&Host],
    args: &[&str],
) -> (std::process::Output, std::time::Duration) {
    let started = std::time::Instant::now();
    let o = wr(state, hosts, args);
    (o, started.elapsed())
}

/// `status` reads while a run holds the run lock and is inside a write
/// transaction (no waiting for either); `show` too. `reset` lifts what it
/// names while a run holds the lock, saying the run in progress keeps
/// what it knows. Neither creates a state directory that is not there.
#[test]
fn status_reads_while_a_run_writes_and_nothing_is_created() {
    let tmp = TempDir::new("status-locked");
    let nowhere = tmp.path().join("no-such-state");
    let o = wr(&nowhere, &[], &["status"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("(no state here"), "{}", stdout(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&wr(&nowhere, &[], &["status", "--json"]).stdout).unwrap();
    assert_eq!(v["exists"], false, "{v}");
    let o = wr(&nowhere, &[], &["reset", "example.com"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("nothing to reset: no state in"),
        "{}",
        stderr(&o)
    );
    assert!(
        !nowhere.exists(),
        "status or reset created the state directory"
    );

    let op = Operator::start("User-agent: *\nAllow: /\n");
    let broken = Host::start("broken.test");
    broken.route("/gone.xml", Route::status(404));
    let hosts = [&op.wal, &op.pypi, &broken];
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr(&state, &hosts, &["-q", src]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let far = Timestamp(4_102_444_800_000); // 2100-01-01
    let mut store = wr_feeds::store::Store::open(&state).unwrap();
    store.hold("held.test", far, HoldCause::Cooldown).unwrap();

    // A run: the lock, and a write transaction open on the store.
    let lock =
        wr_feeds::lock::RunLock::acquire(&state, wr_feeds::lock::LockWait::NONE, &mut |_, _| {})
            .expect("the run lock");
    let (status, show) = store
        .reserve_slot("held.test", |_| {
            let status = timed(&state, &hosts, &["status", src, "--json"]);
            let show = timed(&state, &hosts, &["show", src]);
            ((status, show), None)
        })
        .unwrap();
    for (what, (o, took)) in [("status", status), ("show", show)] {
        assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
        assert!(
            took < std::time::Duration::from_secs(10),
            "{what} waited {took:?}"
        );
    }
    let (o, _) = timed(&state, &hosts, &["status", src, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["sources"][0]["outcome"], "failed", "{v}");
    assert_eq!(v["held_hosts"][0]["cooldown"], true, "{v}");

    let (o, took) = timed(&state, &hosts, &["reset", "held.test"]);
    assert!(
        took < std::time::Duration::from_secs(10),
        "reset waited {took:?}"
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "lifted the hold on host held.test (it was held until 2100-01-01T00:00:00Z)\n"
    );
    assert!(
        stderr(&o).contains("a run is in progress"),
        "{}",
        stderr(&o)
    );
    drop(lock);
}

/// `reset` names a source by its name in any case (with --sources), or by
/// its URL, and says exactly what it forgot; a second reset has nothing
/// left to do.
#[test]
fn reset_names_sources_by_name_or_url_and_says_what_it_forgot() {
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let broken = Host::start("broken.test");
    broken.route("/gone.xml", Route::status(404));
    let hosts = [&op.wal, &op.pypi, &broken];
    let tmp = TempDir::new("reset-names");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr(&state, &hosts, &["-q", src]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = wr(&state, &hosts, &["reset", "BROKEN", "--sources", src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.starts_with("source `BROKEN`: forgot its last run (")
            && said.ends_with(
                ", failed) and its 1 failed run in a row; the next run fetches it (R8's hour lifted)\n"
            ),
        "{said}"
    );
    let o = wr(&state, &hosts, &["reset", "Broken", "--sources", src]);
    assert_eq!(o.status.code(), Some(1), "nothing left: {}", stdout(&o));
    assert!(
        stderr(&o).contains("Broken: nothing to reset"),
        "{}",
        stderr(&o)
    );
    // Run again (the hour is lifted), then reset by the feed's URL.
    let o = wr(&state, &hosts, &["-q", src]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(broken.requests_to("/gone.xml").len(), 2, "fetched again");
    let o = wr(&state, &hosts, &["reset", "http://BROKEN.test/gone.xml"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("and its 1 failed run in a row"),
        "{}",
        stdout(&o)
    );
}

/// OPML in the encodings feed readers write (issue #12: all but UTF-8
/// was refused): UTF-16 with a byte order mark, UTF-16 without one,
/// Shift_JIS by its declaration. `export-opml` (the same as `export`)
/// writes to standard output with `-o -`, and a disabled source comes back
/// disabled.
#[test]
fn opml_in_any_declared_encoding_and_export_to_stdout() {
    let tmp = TempDir::new("opml-encodings");
    let state = tmp.path().join("state");
    let doc = |enc: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"{enc}\"?>\n<opml version=\"2.0\"><body>\
             <outline text=\"Blog 日本語\" xmlUrl=\"https://a.test/feed.xml\"/></body></opml>\n"
        )
    };
    let mut utf16_bom = vec![0xFF, 0xFE];
    utf16_bom.extend(doc("UTF-16").encode_utf16().flat_map(u16::to_le_bytes));
    let utf16_plain: Vec<u8> = doc("UTF-16")
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let sjis_doc = doc("Shift_JIS");
    let (sjis, _, unmappable) = encoding_rs::SHIFT_JIS.encode(&sjis_doc);
    assert!(!unmappable);
    for (name, bytes) in [
        ("bom.opml", utf16_bom),
        ("plain16.opml", utf16_plain),
        ("sjis.opml", sjis.into_owned()),
    ] {
        let path = tmp.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let o = wr(&state, &[], &["import", path.to_str().unwrap(), "-o", "-"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("name = \"Blog 日本語\""),
            "{name}: {}",
            stdout(&o)
        );
    }
    assert!(
        !tmp.path().join("-").exists(),
        "a file named `-` was written"
    );

    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"On <hold> & \\\"off\\\"\"\nurl = \"https://b.test/?a=1&b=2\"\nfeed = \"https://b.test/feed.xml\"\nenabled = false\n",
    );
    let o = wr(
        &state,
        &[],
        &["export-opml", src.to_str().unwrap(), "-o", "-"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let xml = stdout(&o);
    assert!(
        xml.contains("text=\"On &lt;hold&gt; &amp; &quot;off&quot;\"")
            && xml.contains("htmlUrl=\"https://b.test/?a=1&amp;b=2\"")
            && xml.contains("isComment=\"true\""),
        "{xml}"
    );
    let opml = tmp.write("out.opml", &xml);
    let o = wr(&state, &[], &["import", opml.to_str().unwrap()]);
    let toml = stdout(&o);
    assert!(
        toml.contains("On <hold> & ") && toml.contains("\"off\""),
        "{toml}"
    );
    assert!(toml.contains("enabled = false"), "{toml}");
}

/// Issue #12: "expected i64". A value of the wrong type in sources.toml
/// names the field and what it holds, in words, at its line and column.
#[test]
fn a_wrong_value_in_sources_toml_is_named_in_words() {
    let tmp = TempDir::new("wrong-type");
    let src = tmp.write(
        "s.toml",
        "[[source]]\nname = \"A\"\nurl = \"https://a.test/\"\nmax_items = \"5\"\n",
    );
    let o = wr(&tmp.path().join("state"), &[], &[src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(
            "s.toml:4:13: `max_items` must be a whole number of 1 or more, not the text \"5\""
        ),
        "{err}"
    );
    assert!(!err.contains("i64"), "{err}");
}

/// Issue #18 (R5: "wait at least that long"): after a 429 with
/// `Retry-After: 3600`, `reset HOST` used to lift the hold and `status`
/// suggested it, so the next run asked again a second later. The hold is
/// now kept and `reset` says why, naming the host and the instant;
/// `status` says `--force` is needed; only `reset --force` lifts it, and
/// says so.
#[test]
fn reset_keeps_a_servers_retry_after_unless_forced() {
    const RA_SOURCES: &str = r#"
[[source]]
name = "Limited"
url = "http://limited.test/"
feed = "http://limited.test/feed.xml"
"#;
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let limited = Host::start("limited.test");
    limited
        .route("/robots.txt", Route::status(404))
        .route("/feed.xml", Route::status(429).retry_after("3600"));
    let hosts = [&op.wal, &op.pypi, &limited];
    let tmp = TempDir::new("retry-after");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", RA_SOURCES);
    let src = src.to_str().unwrap();
    let feed_requests = || limited.requests_to("/feed.xml").len();

    // Run 1: one request, answered 429 + Retry-After 3600: deferred, held.
    let o = wr(&state, &hosts, &["--force", "-q", src]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(feed_requests(), 1);

    let v: serde_json::Value =
        serde_json::from_slice(&wr(&state, &hosts, &["status", src, "--json"]).stdout).unwrap();
    let line = &v["held_hosts"][0];
    assert_eq!(line["host"], "limited.test", "{v}");
    assert_eq!(line["reason"], "the server's Retry-After (R5)", "{v}");
    assert_eq!(line["retry_after_until"], line["held_until"], "{v}");
    let held_until = line["held_until"].as_str().unwrap().to_string();
    let table = stdout(&wr(&state, &hosts, &["status", src]));
    assert!(
        !table.contains("`wr-feeds reset limited.test` lifts it"),
        "status suggests a reset that is refused: {table}"
    );
    assert!(
        table.contains("`wr-feeds reset --force limited.test` lifts it"),
        "{table}"
    );

    // `reset` refuses, naming the host, the instant and R5.
    let o = wr(&state, &hosts, &["reset", "limited.test"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "kept the hold on host limited.test until {held_until}"
        )) && err.contains("Retry-After")
            && err.contains("R5")
            && err.contains("--force"),
        "{err}"
    );
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));

    // The next run does not ask before the server's hour is over.
    let o = wr(&state, &hosts, &["--force", "-q", src]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(feed_requests(), 1, "asked again despite Retry-After: 3600");

    // `--force` lifts it, and says what it overrode.
    let o = wr(&state, &hosts, &["reset", "--force", "limited.test"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.contains("lifted the hold on host limited.test")
            && said.contains(&format!(
                "including the server's Retry-After until {held_until}"
            ))
            && said.contains("--force"),
        "{said}"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&wr(&state, &hosts, &["status", src, "--json"]).stdout).unwrap();
    assert_eq!(v["held_hosts"].as_array().unwrap().len(), 0, "{v}");
    let o = wr(&state, &hosts, &["--force", "-q", src]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(feed_requests(), 2);
}

/// Issue #20: a hold of ours stored beyond any hold we set (a clock that
/// was ahead) is shown as the next run will treat it, clamped, with the
/// stored instant beside it.
#[test]
fn status_shows_a_clamped_hold_and_what_was_stored() {
    let tmp = TempDir::new("status-clamp");
    let state = tmp.path().join("state");
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let stored = now_s + 30 * 86_400;
    wr_feeds::store::Store::open(&state)
        .unwrap()
        .hold(
            "skewed.test",
            Timestamp::from_secs(stored),
            HoldCause::Cooldown,
        )
        .unwrap();
    let o = wr(&state, &[], &["status", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let h = &v["held_hosts"][0];
    assert_eq!(h["host"], "skewed.test", "{v}");
    let longest = wr_feeds::store::HostRow::LONGEST_OWN_HOLD.as_secs();
    assert!(h["held_for_s"].as_u64().unwrap() <= longest + 1, "{v}");
    let stored_text = chrono::DateTime::from_timestamp(stored as i64, 0)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    assert_eq!(h["clamped_from"], stored_text.as_str(), "{v}");
    let table = stdout(&wr(&state, &[], &["status"]));
    assert!(
        table.contains(&format!("stored as until {stored_text}")),
        "{table}"
    );
}

/// A directory made unwritable for as long as the guard lives. The
/// sessions that run these tests are root, which writes anywhere a mode
/// forbids: as root the directory is made immutable (`chattr +i`, which
/// needs CAP_LINUX_IMMUTABLE and a file system that has the attribute),
/// otherwise its mode is 0555. `None` when neither makes it unwritable.
#[cfg(unix)]
struct Unwritable {
    dir: std::path::PathBuf,
    chattr: bool,
}

#[cfg(unix)]
impl Unwritable {
    fn make(dir: &std::path::Path) -> Option<Unwritable> {
        use std::os::unix::fs::PermissionsExt;
        let chattr = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !chattr {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).ok()?;
        }
        let guard = Unwritable {
            dir: dir.to_path_buf(),
            chattr,
        };
        let probe = dir.join("probe");
        if std::fs::File::create(&probe).is_ok() {
            let _ = std::fs::remove_file(&probe);
            return None;
        }
        Some(guard)
    }
}

#[cfg(unix)]
impl Drop for Unwritable {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.chattr {
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(&self.dir)
                .status();
        } else {
            let _ = std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o755));
        }
    }
}

/// Issue #20: `status` and `show` only read, yet failed with SQLite's
/// "unable to open database file" on a state directory that cannot be
/// written. The case: a run stopped before it ended left its
/// write-ahead log (`-wal`) and no `-shm`, and the directory is read-only
/// (a read-only mount, a full disk, another user's directory): SQLite
/// cannot create the `-shm` a WAL reader needs. Both now read the store
/// in SQLite's immutable mode and say so. Proves it on a directory that
/// truly refuses writes (see [`Unwritable`]); skipped, saying so, where
/// none can be made (the forced-path test in feeds/src/store/tests.rs still
/// covers the open).
#[cfg(unix)]
#[test]
fn status_and_show_read_a_state_directory_that_cannot_be_written() {
    let tmp = TempDir::new("status-readonly");
    let state = tmp.path().join("state");
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let broken = Host::start("broken.test");
    broken.route("/gone.xml", Route::status(404));
    let src = tmp.write("sources.toml", SOURCES);
    let src = src.to_str().unwrap();
    let o = wr(&state, &[&op.wal, &op.pypi, &broken], &["-q", src]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // A run stopped half-way: its store never closed (so its `-wal`
    // stays), its `-shm` gone.
    let store = wr_feeds::store::Store::open(&state).unwrap();
    store
        .hold(
            "late.test",
            Timestamp(4_102_444_800_000),
            HoldCause::Cooldown,
        )
        .unwrap();
    std::mem::forget(store);
    let db = state.join("wr-feeds.sqlite3");
    assert!(db.with_extension("sqlite3-wal").exists());
    std::fs::remove_file(db.with_extension("sqlite3-shm")).unwrap();
    let Some(guard) = Unwritable::make(&state) else {
        eprintln!(
            "SKIPPED status_and_show_read_a_state_directory_that_cannot_be_written: this \
             machine cannot make a directory unwritable to this user (root without chattr +i)"
        );
        return;
    };
    let status = wr(&state, &[], &["status", src]);
    let show = wr(&state, &[], &["show", src]);
    drop(guard);
    for (what, o) in [("status", &status), ("show", &show)] {
        let err = stderr(o);
        assert_eq!(o.status.code(), Some(0), "{what}: {err}");
        assert!(!err.contains("unable to open"), "{what}: {err}");
        assert!(err.contains("immutable mode"), "{what}: {err}");
    }
    assert!(
        stdout(&status).contains("Broken  last run"),
        "{}",
        stdout(&status)
    );
    assert!(stdout(&show).contains("## Broken"), "{}", stdout(&show));
}

/// Issue #20: a server's `Retry-After` had no cap: ten years silenced the
/// host for good. A real 429 asking for ten years holds the host for 30
/// days from the run (R5's "at least that long" is kept for every value
/// under the cap), and `status` shows the cap and what was asked; the
/// next run still sends nothing.
#[test]
fn an_absurd_retry_after_is_capped_and_status_says_so() {
    const RA_SOURCES: &str = r#"
[[source]]
name = "Decade"
url = "http://decade.test/"
feed = "http://decade.test/feed.xml"
"#;
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let decade = Host::start("decade.test");
    decade
        .route("/robots.txt", Route::status(404))
        .route("/feed.xml", Route::status(429).retry_after("315360000"));
    let hosts = [&op.wal, &op.pypi, &decade];
    let tmp = TempDir::new("retry-after-cap");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", RA_SOURCES);
    let src = src.to_str().unwrap();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let o = wr(&state, &hosts, &["--force", "-q", src]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(decade.requests_to("/feed.xml").len(), 1);

    let v: serde_json::Value =
        serde_json::from_slice(&wr(&state, &hosts, &["status", src, "--json"]).stdout).unwrap();
    let line = &v["held_hosts"][0];
    assert_eq!(line["host"], "decade.test", "{v}");
    assert_eq!(line["reason"], "the server's Retry-After (R5)", "{v}");
    let secs = |k: &str| {
        chrono::DateTime::parse_from_rfc3339(line[k].as_str().unwrap_or_else(|| panic!("{k}: {v}")))
            .unwrap()
            .timestamp()
    };
    let month = 30 * 86_400;
    assert!(
        (before + month..=before + month + 120).contains(&secs("held_until")),
        "held 30 days from the run: {v}"
    );
    assert_eq!(line["retry_after_until"], line["held_until"], "{v}");
    assert!(
        secs("retry_after_asked") >= before + 315_360_000,
        "what the server asked is kept: {v}"
    );
    assert!(line.get("clamped_from").is_none(), "{v}");
    let table = stdout(&wr(&state, &hosts, &["status", src]));
    assert!(
        table.contains("the server's Retry-After asked until")
            && table.contains("capped at 30 days"),
        "{table}"
    );
    // Capped, not lifted: the next run sends nothing.
    let o = wr(&state, &hosts, &["--force", "-q", src]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(decade.requests_to("/feed.xml").len(), 1);
}

/// README: `status` shows each source's "items seen and items not yet in
/// a delivered digest", lists every source the store knows by its
/// canonical URL when no sources file is given, and gives "the adopted
/// blocklist's age and whether it is due for refresh".
#[test]
fn status_counts_undelivered_items_and_says_when_the_blocklist_is_due() {
    let op = Operator::start("User-agent: *\nAllow: /\n");
    let broken = Host::start("broken.test");
    broken.route("/gone.xml", Route::status(404));
    let hosts = [&op.wal, &op.pypi, &broken];
    let tmp = TempDir::new("status-pending");
    let state = tmp.path().join("state");
    let src = tmp.write("sources.toml", SOURCES);
    let o = wr(&state, &hosts, &["-q", src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // Two items a run recorded and no digest delivered (a killed run).
    let key = "http://broken.test/gone.xml";
    let item = |t: &str| wr_feeds::extract::Item {
        title: t.into(),
        url: format!("http://broken.test/{t}"),
        published: None,
        id: format!("http://broken.test/{t}"),
    };
    let mut store = wr_feeds::store::Store::open(&state).unwrap();
    store
        .record_items(
            key,
            "feed",
            key,
            &[item("a"), item("b")],
            Timestamp::from_secs(1_700_000_000),
        )
        .unwrap();
    let mut row = store.blocklist().unwrap().expect("an adopted blocklist");
    let fresh = wr(&state, &[], &["status", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&fresh.stdout).unwrap();
    assert_eq!(v["blocklist"]["stale"], false, "{v}");
    row.fetched_at = Timestamp(row.fetched_at.0 - 7 * 3_600_000);
    store.put_blocklist(&row).unwrap();
    drop(store);

    let v: serde_json::Value =
        serde_json::from_slice(&wr(&state, &[], &["status", "--json"]).stdout).unwrap();
    let line = &v["sources"][0];
    assert_eq!(line["name"], key, "by its canonical URL: {v}");
    assert_eq!(line["key"], key, "{v}");
    assert_eq!(line["items_seen"], 2, "{v}");
    assert_eq!(line["items_pending"], 2, "{v}");
    assert_eq!(v["blocklist"]["stale"], true, "{v}");
    assert!(v["blocklist"]["age_s"].as_u64().unwrap() >= 7 * 3600, "{v}");
    let table = stdout(&wr(&state, &[], &["status"]));
    assert!(
        table.contains("2 items seen, 2 not in a digest yet"),
        "{table}"
    );
    assert!(
        table.contains("due: the next run fetches it again"),
        "{table}"
    );
}
