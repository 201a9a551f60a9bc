//! Issue #10's rows, end to end: `wr-feeds check` and a digest run deny
//! each path the spec's algorithm denies, and the publisher's server never
//! sees a request for it.

mod common;
use common::*;

/// `(host, robots.txt, denied path)`: each row of the table
/// (`wr_conformance`'s built-in cases) on a host of its own.
fn rows() -> Vec<(String, &'static str, &'static str)> {
    let rows: Vec<_> = wr_conformance::robots_cases::under_blocking_table()
        .enumerate()
        .map(|(i, c)| (format!("row{i}.test"), c.body, c.path))
        .collect();
    assert_eq!(rows.len(), 5, "the table has five rows");
    rows
}

fn start() -> (Operator, Vec<Host>) {
    let op = Operator::start(CANARY_ROBOTS);
    let hosts = rows()
        .into_iter()
        .map(|(name, robots, path)| {
            let h = Host::start(&name);
            h.route("/robots.txt", Route::ok("text/plain", robots))
                .route(
                    path,
                    Route::ok("application/rss+xml", data("feeds/rss_2.0_bbc.xml")),
                );
            h
        })
        .collect();
    (op, hosts)
}

fn assert_never_fetched(hosts: &[Host]) {
    for (h, (_, _, path)) in hosts.iter().zip(rows()) {
        let hits = h.requests_to(path);
        assert!(hits.is_empty(), "{}{path} was fetched: {hits:?}", h.name);
    }
}

#[test]
fn check_denies_every_row() {
    let (op, hosts) = start();
    let tmp = TempDir::new("under-blocking-check");
    let urls: Vec<String> = rows()
        .into_iter()
        .map(|(name, _, path)| format!("http://{name}{path}"))
        .collect();
    let mut args = vec!["check"];
    args.extend(urls.iter().map(String::as_str));
    let o = wr(&tmp.path().join("state"), &op.with(&hosts), &args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), urls.len(), "{out}");
    for (line, url) in lines.iter().zip(&urls) {
        assert!(line.starts_with(&format!("denied    {url}  (R2")), "{out}");
    }
    assert_never_fetched(&hosts);
}

#[test]
fn a_digest_run_never_fetches_a_denied_row() {
    let (op, hosts) = start();
    let tmp = TempDir::new("under-blocking-digest");
    let mut sources = String::new();
    for (i, (name, _, path)) in rows().into_iter().enumerate() {
        sources.push_str(&format!(
            "[[source]]\nname = \"Row {i}\"\nurl = \"http://{name}{path}\"\n\n"
        ));
    }
    let file = tmp.write("sources.toml", &sources);
    let o = wr(
        &tmp.path().join("state"),
        &op.with(&hosts),
        &[file.to_str().unwrap(), "--format", "json"],
    );
    let out = stdout(&o);
    let digest: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{}", stderr(&o)));
    let text = digest.to_string();
    let reported = digest["sources"].as_array().expect("sources");
    assert_eq!(reported.len(), rows().len(), "{text}");
    for (s, (name, _, path)) in reported.iter().zip(rows()) {
        assert_eq!(s["status"], "denied", "{text}");
        let reason = s["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with(&format!("robots.txt (R2): http://{name}{path} (Disallow")),
            "{reason}"
        );
        assert_eq!(s["items"].as_array().map(Vec::len), Some(0), "{text}");
    }
    assert_never_fetched(&hosts);
}

#[test]
fn the_robots_debugger_denies_every_row_and_names_the_rule() {
    let tmp = TempDir::new("under-blocking-robots");
    for (i, (name, robots, path)) in rows().into_iter().enumerate() {
        let file = tmp.write(&format!("robots-{i}.txt"), robots);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_wr-feeds"))
            .arg("robots")
            .arg(&file)
            .arg(path)
            .output()
            .expect("run wr-feeds");
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {out}");
        assert!(
            out.starts_with(&format!("disallowed {path}  (Disallow: ")),
            "{name}: {out}"
        );
    }
}
