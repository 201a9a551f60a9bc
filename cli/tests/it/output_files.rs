//! Issue #20: every command that writes a file (the digest's `-o`,
//! `export -o`, `import -o`) goes through one output module: symlinks
//! written through, devices and FIFOs refused before any work with or
//! without `--force`, permissions kept, `-` and `/dev/stdout` streamed,
//! `output = "-"` in `[settings]` the same as `-o -`. `export` and
//! `import` make no request, so most of this runs offline.

use crate::common;

use common::*;

const SOURCES: &str = "[[source]]\nname = \"Blog\"\nurl = \"http://blog.test/\"\nfeed = \"http://blog.test/rss.xml\"\n";
const OPML: &str = r#"<opml version="2.0"><body><outline text="Blog" xmlUrl="http://blog.test/rss.xml"/></body></opml>"#;

/// `export -o OUT` or `import -o OUT` with `extra` arguments.
fn write_cmd(tmp: &TempDir, cmd: &str, out: &str, extra: &[&str]) -> std::process::Output {
    let input = match cmd {
        "export" => tmp.write("sources.toml", SOURCES),
        _ => tmp.write("subs.opml", OPML),
    };
    let mut args = vec![cmd, input.to_str().unwrap(), "-o", out];
    args.extend_from_slice(extra);
    wr(&tmp.path().join("state"), &[], &args)
}

/// `export -o /dev/full --force`, as root, replaced the machine's
/// /dev/full with a file. A device is refused, `--force` or not, and
/// left a device.
#[cfg(target_os = "linux")]
#[test]
fn export_and_import_refuse_a_device_with_or_without_force() {
    use std::os::unix::fs::FileTypeExt;
    let tmp = TempDir::new("out-device");
    for cmd in ["export", "import"] {
        for extra in [&[][..], &["--force"][..]] {
            let o = write_cmd(&tmp, cmd, "/dev/null", extra);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{cmd} {extra:?}: {err}");
            assert!(
                err.contains("cannot write /dev/null") && err.contains("not a regular file"),
                "{cmd} {extra:?}: {err}"
            );
        }
    }
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(m.file_type().is_char_device());
}

/// A FIFO: refused before any work (the command would otherwise block on
/// it, or rename a regular file over it).
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_and_left_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let tmp = TempDir::new("out-fifo");
    let fifo = tmp.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let fifo_s = fifo.to_str().unwrap();
    for cmd in ["export", "import"] {
        let o = write_cmd(&tmp, cmd, fifo_s, &["--force"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.contains("not a regular file"), "{cmd}: {err}");
    }
    let m = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(m.file_type().is_fifo(), "the FIFO was replaced");
}

/// A symlink is written through: the link stays a link and its target
/// holds the new text.
#[cfg(unix)]
#[test]
fn a_symlink_is_written_through() {
    let tmp = TempDir::new("out-link");
    for cmd in ["export", "import"] {
        let target = tmp.write(&format!("real-{cmd}"), "old\n");
        let link = tmp.path().join(format!("link-{cmd}"));
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let o = write_cmd(&tmp, cmd, link.to_str().unwrap(), &["--force"]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let written = std::fs::read_to_string(&target).unwrap();
        assert!(written.contains("blog.test/rss.xml"), "{cmd}: {written}");
    }
}

/// A 0600 file stays 0600 when replaced (it became 0644).
#[cfg(unix)]
#[test]
fn the_targets_permissions_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("out-mode");
    for cmd in ["export", "import"] {
        let out = tmp.write(&format!("private-{cmd}"), "old\n");
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
        let o = write_cmd(&tmp, cmd, out.to_str().unwrap(), &["--force"]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600, "{cmd}");
        assert!(std::fs::read_to_string(&out).unwrap().contains("blog.test"));
    }
}

/// `-o -` and `-o /dev/stdout` are a stream: with standard output
/// appended to a journal (`>> journal.md`), the journal keeps what it
/// held and gains the output (renaming over /dev/stdout replaced it).
#[cfg(target_os = "linux")]
#[test]
fn dash_and_dev_stdout_stream_without_replacing() {
    let tmp = TempDir::new("out-stream");
    let src = tmp.write("sources.toml", SOURCES);
    for out in ["-", "/dev/stdout"] {
        let journal = tmp.write("journal.md", "earlier entries\n");
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(&journal)
            .unwrap();
        let o = wr_command(
            &tmp.path().join("state"),
            &[],
            &["export", src.to_str().unwrap(), "-o", out],
        )
        .current_dir(tmp.path())
        .stdout(f)
        .output()
        .unwrap();
        assert_eq!(o.status.code(), Some(0), "{out}: {}", stderr(&o));
        let text = std::fs::read_to_string(&journal).unwrap();
        assert!(text.starts_with("earlier entries\n"), "{out}: {text}");
        assert!(text.contains("blog.test/rss.xml"), "{out}: {text}");
        assert!(!tmp.path().join("-").exists(), "a file named `-`");
    }
}

/// An existing file without `--force` is refused, saying so, and kept.
#[test]
fn an_existing_file_needs_force() {
    let tmp = TempDir::new("out-exists");
    for cmd in ["export", "import"] {
        let out = tmp.write(&format!("kept-{cmd}"), "mine\n");
        let o = write_cmd(&tmp, cmd, out.to_str().unwrap(), &[]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(stderr(&o).contains("pass --force"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine\n");
    }
}

/// Issue #20: `-o` renamed a new file over the target, so its other hard
/// links kept the old contents. A target with several names is written
/// in place: every name sees the new contents.
#[cfg(unix)]
#[test]
fn hard_links_of_the_output_see_the_new_contents() {
    let tmp = TempDir::new("out-links");
    for cmd in ["export", "import"] {
        let out = tmp.write(&format!("linked-{cmd}"), "old\n");
        let other = tmp.path().join(format!("other-name-{cmd}"));
        std::fs::hard_link(&out, &other).unwrap();
        let o = write_cmd(&tmp, cmd, out.to_str().unwrap(), &["--force"]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        let text = std::fs::read_to_string(&other).unwrap();
        assert!(text.contains("blog.test"), "{cmd}: {text}");
        assert_eq!(text, std::fs::read_to_string(&out).unwrap(), "{cmd}");
    }
}
