//! `wr-feeds robots`, run as a user would run it.

use std::process::Command;

fn wr_feeds() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wr-feeds"))
}

fn canaries() -> std::path::PathBuf {
    // One file per call: tests run in parallel threads.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("wr-robots-cmd-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("robots.txt");
    std::fs::write(
        &file,
        "User-agent: *\nDisallow: /research/bots/dogfood-walsh-only\n\nUser-agent: Walsh-Research\n\
         Disallow: /research/bots/dogfood-disallow\nAllow: /research/bots/dogfood-allow\n\
         Allow: /research/bots/dogfood-walsh-only\nCrawl-delay: 2\n",
    )
    .unwrap();
    file
}

#[test]
fn text_verdicts_name_rule_and_line_and_exit_1_on_deny() {
    let out = wr_feeds()
        .args(["robots"])
        .arg(canaries())
        .args([
            "https://wal.sh/research/bots/dogfood-disallow.md",
            "https://wal.sh/research/bots/dogfood-allow",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].starts_with("disallowed https://wal.sh/research/bots/dogfood-disallow.md"),
        "{stdout}"
    );
    assert!(
        lines[0].contains("Disallow: /research/bots/dogfood-disallow (line 5)"),
        "{stdout}"
    );
    assert!(lines[1].starts_with("allowed"), "{stdout}");
    assert!(lines[1].contains("(line 6)"), "{stdout}");
}

#[test]
fn json_lines_and_exit_0_when_all_allowed() {
    let out = wr_feeds()
        .args(["robots", "--json"])
        .arg(canaries())
        .args([
            "https://wal.sh/research/bots/dogfood-walsh-only",
            "https://wal.sh/elsewhere",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let objs: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 2);
    assert_eq!(
        objs[0]["url"],
        "https://wal.sh/research/bots/dogfood-walsh-only"
    );
    assert_eq!(objs[0]["allowed"], true);
    assert_eq!(objs[0]["rule"], "/research/bots/dogfood-walsh-only");
    assert_eq!(objs[0]["line"], 7);
    assert_eq!(objs[1]["rule"], serde_json::Value::Null);
    assert_eq!(objs[1]["line"], serde_json::Value::Null);
}

#[test]
fn another_agent_sees_the_star_group() {
    let out = wr_feeds()
        .args(["robots", "--agent", "OtherBot"])
        .arg(canaries())
        .arg("https://wal.sh/research/bots/dogfood-walsh-only")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn unreadable_file_and_bad_url_exit_2_with_a_message() {
    let out = wr_feeds()
        .args(["robots", "/nonexistent/robots.txt", "https://x.test/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/robots.txt"));
    let out = wr_feeds()
        .args(["robots"])
        .arg(canaries())
        .arg("ftp://x.test/")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ftp://x.test/"));
}

#[test]
fn a_rule_with_escape_sequences_reaches_the_terminal_without_them() {
    let dir = std::env::temp_dir().join(format!("wr-robots-esc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("robots.txt");
    std::fs::write(
        &file,
        "User-agent: *\nDisallow: /a\x1b]0;pwned\x07\x1b[2J\n",
    )
    .unwrap();
    for json in [false, true] {
        let mut cmd = wr_feeds();
        cmd.arg("robots").arg(&file).arg("/a%1B]0;pwned%07%1B[2J");
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(
            !out.stdout.iter().any(|&b| b == 0x1b || b == 0x07),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #18: `robots` judges the URL the bot would send (the WHATWG
/// serialisation), so a rule holding `{` denies the `%7B` that goes on the
/// wire, whether the argument spells it raw or encoded, and the readings
/// of the text (NBSP, versioned agents) deny as in the digest run.
#[test]
fn judges_the_url_as_sent_and_every_reading_of_the_text() {
    let dir = std::env::temp_dir().join(format!("wr-robots-sent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("robots.txt");
    std::fs::write(
        &file,
        "User-agent: Walsh-Research/1.2\nAllow: /\n\nUser-agent: *\n\
         Disallow: *{manageAccount}*\nDisallow:\u{a0}/library\nAllow: /\n",
    )
    .unwrap();
    for url in [
        "https://www.kmart.com/x/{manageAccount}/feed.xml",
        "https://www.kmart.com/x/%7BmanageAccount%7D/feed.xml",
        "/x/{manageAccount}/feed.xml",
        "https://www.audible.com/library/titles",
    ] {
        let out = wr_feeds()
            .arg("robots")
            .arg(&file)
            .arg(url)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{url}: {stdout}");
        assert!(stdout.starts_with("disallowed"), "{url}: {stdout}");
    }
    let out = wr_feeds()
        .arg("robots")
        .arg(&file)
        .arg("https://www.kmart.com/x/manageAccount/feed.xml")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out);
}

/// The file's usage preferences are reported (stderr in text, `signals` in
/// JSON), and a verdict another reading of the text decided names it.
#[test]
fn signals_and_the_reading_of_the_text_are_reported() {
    let dir = std::env::temp_dir().join(format!("wr-robots-signals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("robots.txt");
    std::fs::write(
        &file,
        "User-agent: Walsh-Research/1.2\nAllow: /\n\nUser-agent: *\n\
         Content-Signal: search=yes, ai-train=no\nDisallow: /\n",
    )
    .unwrap();
    let out = wr_feeds()
        .args(["robots", "--json"])
        .arg(&file)
        .arg("https://x.test/page")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["allowed"], false, "{stdout}");
    assert_eq!(v["variant"], serde_json::json!(["whole-agent"]), "{stdout}");
    assert_eq!(v["signals"][0]["field"], "Content-Signal", "{stdout}");
    assert_eq!(v["signals"][0]["line"], 5, "{stdout}");
    let out = wr_feeds()
        .arg("robots")
        .arg(&file)
        .arg("https://x.test/page")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stdout.contains("User-agent values read whole"), "{stdout}");
    assert!(
        stderr.contains("Content-Signal: search=yes, ai-train=no (line 5)"),
        "{stderr}"
    );
}
