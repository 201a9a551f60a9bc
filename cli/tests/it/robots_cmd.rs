//! `wr-feeds robots`, run as a user would run it.

use std::path::PathBuf;
use std::process::Command;

use crate::common::TempDir;

fn wr_feeds() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wr-feeds"))
}

/// The section 16 canaries, in a `robots.txt` of their own.
fn canaries() -> Robots {
    robots_file(
        "robots-cmd",
        "User-agent: *\nDisallow: /research/bots/dogfood-walsh-only\n\nUser-agent: Walsh-Research\n\
         Disallow: /research/bots/dogfood-disallow\nAllow: /research/bots/dogfood-allow\n\
         Allow: /research/bots/dogfood-walsh-only\nCrawl-delay: 2\n",
    )
}

/// A `robots.txt` and the directory that holds it.
struct Robots {
    _dir: TempDir,
    file: PathBuf,
}

/// A `robots.txt` of `text`, in a directory removed with it.
fn robots_file(tag: &str, text: &str) -> Robots {
    let dir = TempDir::new(tag);
    let file = dir.write("robots.txt", text);
    Robots { _dir: dir, file }
}

#[test]
fn text_verdicts_name_rule_and_line_and_exit_1_on_deny() {
    let robots = canaries();
    let out = wr_feeds()
        .args(["robots"])
        .arg(&robots.file)
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
    let robots = canaries();
    let out = wr_feeds()
        .args(["robots", "--json"])
        .arg(&robots.file)
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
    let robots = canaries();
    let out = wr_feeds()
        .args(["robots", "--agent", "OtherBot"])
        .arg(&robots.file)
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
    let robots = canaries();
    let out = wr_feeds()
        .args(["robots"])
        .arg(&robots.file)
        .arg("ftp://x.test/")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ftp://x.test/"));
}

#[test]
fn a_rule_with_escape_sequences_reaches_the_terminal_without_them() {
    let robots = robots_file(
        "robots-esc",
        "User-agent: *\nDisallow: /a\x1b]0;pwned\x07\x1b[2J\n",
    );
    let file = &robots.file;
    for json in [false, true] {
        let mut cmd = wr_feeds();
        cmd.arg("robots").arg(file).arg("/a%1B]0;pwned%07%1B[2J");
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
}

/// Issue #18: `robots` judges the URL the bot would send (the WHATWG
/// serialisation), so a rule holding `{` denies the `%7B` that goes on the
/// wire, whether the argument spells it raw or encoded, and the readings
/// of the text (NBSP, versioned agents) deny as in the digest run.
#[test]
fn judges_the_url_as_sent_and_every_reading_of_the_text() {
    let robots = robots_file(
        "robots-sent",
        "User-agent: Walsh-Research/1.2\nAllow: /\n\nUser-agent: *\n\
         Disallow: *{manageAccount}*\nDisallow:\u{a0}/library\nAllow: /\n",
    );
    let file = &robots.file;
    for url in [
        "https://www.kmart.com/x/{manageAccount}/feed.xml",
        "https://www.kmart.com/x/%7BmanageAccount%7D/feed.xml",
        "/x/{manageAccount}/feed.xml",
        "https://www.audible.com/library/titles",
    ] {
        let out = wr_feeds()
            .arg("robots")
            .arg(file)
            .arg(url)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{url}: {stdout}");
        assert!(stdout.starts_with("disallowed"), "{url}: {stdout}");
    }
    let out = wr_feeds()
        .arg("robots")
        .arg(file)
        .arg("https://www.kmart.com/x/manageAccount/feed.xml")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out);
}

/// The file's usage preferences are reported (stderr in text, `signals` in
/// JSON), and a verdict another reading of the text decided names it.
#[test]
fn signals_and_the_reading_of_the_text_are_reported() {
    let robots = robots_file(
        "robots-signals",
        "User-agent: Walsh-Research/1.2\nAllow: /\n\nUser-agent: *\n\
         Content-Signal: search=yes, ai-train=no\nDisallow: /\n",
    );
    let file = &robots.file;
    let out = wr_feeds()
        .args(["robots", "--json"])
        .arg(file)
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
        .arg(file)
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
