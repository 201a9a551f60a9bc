//! The committed C header is what cbindgen makes of the current source.
//!
//! `WR_EMBED_BLESS=1 cargo test -p wr-core-embed --test header` rewrites
//! `include/wr_core_embed.h` instead of failing.

mod common;

use std::path::Path;

const HEADER: &str = "include/wr_core_embed.h";

fn generate() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml"))
        .unwrap_or_else(|e| panic!("{dir}/cbindgen.toml: {e}"));
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen could not read {dir}/src: {e}"));
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("cbindgen writes UTF-8")
}

#[test]
fn committed_header_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(HEADER);
    let fresh = generate();
    if std::env::var_os("WR_EMBED_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != fresh {
        let line = committed
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(fresh.lines().count()))
            + 1;
        panic!(
            "{} is out of date (first difference at line {line}); regenerate it with\n  \
             WR_EMBED_BLESS=1 cargo test -p wr-core-embed --test header\nand commit it",
            path.display()
        );
    }
}

/// The functions the header declares: the name before `(` on each line
/// outside comments and preprocessor lines.
fn declared(header: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_comment = false;
    for line in header.lines() {
        let t = line.trim_start();
        if in_comment || t.starts_with("/*") {
            in_comment = !t.contains("*/");
            continue;
        }
        if t.starts_with('#') || t.starts_with("//") {
            continue;
        }
        if let Some(open) = t.find('(') {
            let head = &t[..open];
            let name = head.rsplit([' ', '*']).next().unwrap_or_default();
            if !name.is_empty() && !head.starts_with("typedef") {
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    names
}

#[test]
fn header_declares_exactly_the_exports() {
    let exported = common::exported();
    assert!(exported.len() >= 15, "found only {exported:?}");
    assert_eq!(declared(&generate()), exported);
}
