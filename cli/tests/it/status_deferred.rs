//! Issue #23: deferred sources are counted in `status`, and after a run
//! where every source was deferred, `status` says none has run yet.

use crate::common;

use common::*;

#[test]
fn status_counts_deferrals_and_says_none_has_run_yet() {
    let op = Operator::start(CANARY_ROBOTS);
    // robots.txt unreachable (5xx): R2 defers every source of the host.
    let down = Host::start("down.test");
    down.route("/robots.txt", Route::status(503));
    let hosts = op.with(std::slice::from_ref(&down));
    let tmp = TempDir::new("status-deferred");
    let state = tmp.path().join("state");
    let src = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"One\"\nurl = \"http://down.test/one\"\n\
         [[source]]\nname = \"Two\"\nurl = \"http://down.test/two\"\n",
    );
    let src = src.to_str().unwrap();

    let o = wr(&state, &hosts, &["-q", src]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("*deferred: "), "{}", stdout(&o));
    for args in [vec!["status", src], vec!["status"]] {
        let out = stdout(&wr(&state, &hosts, &args));
        assert!(
            out.contains("(none has run yet: 2 deferred at their last attempt, see below)"),
            "{args:?}: {out}"
        );
        assert!(
            out.contains("deferred once since its last run, last at 20"),
            "{out}"
        );
    }

    wr(&state, &hosts, &["-q", src]);
    let v: serde_json::Value =
        serde_json::from_slice(&wr(&state, &hosts, &["status", "--json", src]).stdout).unwrap();
    assert_eq!(v["deferred"], 2, "{v:#}");
    assert_eq!(v["sources"][0]["deferred_runs"], 2, "{v:#}");
    assert!(v["sources"][0]["last_run"].is_null(), "{v:#}");
    assert!(
        v["sources"][0]["deferred_reason"]
            .as_str()
            .unwrap()
            .contains("robots.txt"),
        "{v:#}"
    );

    // Once it runs, the count is gone.
    down.route("/robots.txt", Route::status(404));
    down.route(
        "/one",
        Route::ok("text/markdown", "[a](http://down.test/a)"),
    );
    down.route(
        "/two",
        Route::ok("text/markdown", "[b](http://down.test/b)"),
    );
    let o = wr(&state, &hosts, &["-q", src]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&wr(&state, &hosts, &["status", src]));
    assert!(
        !out.contains("none has run yet") && !out.contains("since its last run"),
        "{out}"
    );
}
