//! `wr-feeds completions SHELL` and `wr-feeds man` (issue #23): generated
//! from the flags the binary takes, written to standard output.

use std::process::{Command, Output};

fn wr_feeds(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wr-feeds"))
        .args(args)
        .output()
        .expect("wr-feeds runs")
}

#[test]
fn completions_name_every_subcommand_and_global_flag() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = wr_feeds(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {:?}", out);
        let script = String::from_utf8(out.stdout).expect("UTF-8 script");
        for word in ["wr-feeds", "status", "reset", "check", "man", "coordinator"] {
            assert!(script.contains(word), "{shell}: no {word:?} in the script");
        }
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = wr_feeds(&["completions", "cmd.exe"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cmd.exe") && err.contains("bash"), "{err}");
}

#[test]
fn the_manual_page_is_roff_with_every_subcommand() {
    let out = wr_feeds(&["man"]);
    assert!(out.status.success(), "{out:?}");
    let page = String::from_utf8(out.stdout).expect("UTF-8 page");
    assert!(
        page.starts_with(".ie") || page.contains("\n.TH "),
        "{}",
        &page[..200.min(page.len())]
    );
    assert!(page.contains(".TH wr-feeds 1"), "no title line");
    for sub in [
        "robots",
        "import",
        "export",
        "status",
        "reset",
        "completions",
    ] {
        assert!(page.contains(sub), "no {sub:?} in the page");
    }
}

#[test]
fn a_closed_standard_output_is_said_in_words() {
    // /dev/full takes nothing: the script cannot be written.
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("SKIP: no /dev/full here");
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_wr-feeds"))
        .args(["completions", "bash"])
        .stdout(full)
        .output()
        .expect("wr-feeds runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot write the completion script"), "{err}");
}
