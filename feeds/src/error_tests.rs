//! The crate's error types: their messages (read by users and tests) and
//! the `source()` chains that keep the underlying error reachable.

use crate::blocklist_doc::{BlocklistDocError, FixturesError, SchemaSource, Violation};
use crate::config::ConfigError;
use crate::extract::ExtractError;
use crate::http::HttpError;
use crate::lock::LockError;
use crate::pipeline::PipelineError;
use crate::report::FetchError;
use std::path::PathBuf;
use std::time::Duration;
use wr_core::blocklist::BlocklistError;

fn lock_path() -> PathBuf {
    PathBuf::from("/state/lock")
}

#[test]
fn messages_are_unchanged() {
    let io = std::io::Error::other("permission denied");
    let cases: Vec<(String, &str)> = vec![
        (
            LockError::Io {
                path: lock_path(),
                source: io,
            }
            .to_string(),
            "cannot lock /state/lock: permission denied",
        ),
        (
            LockError::Busy {
                path: lock_path(),
                waited: Duration::from_secs(90),
            }
            .to_string(),
            // Issue #20: a run now waits while the holder makes progress,
            // so running out of patience says it was the most it waits.
            "another wr-feeds run still holds /state/lock after 90 s of waiting, the most a run \
             waits; try again when it has finished",
        ),
        (
            LockError::Stalled {
                path: lock_path(),
                waited: Duration::from_secs(700),
                silent: Duration::from_secs(600),
            }
            .to_string(),
            "another wr-feeds run holds /state/lock but has made no progress for 600 s (waited \
             700 s in all): it may be stuck, or an older wr-feeds; try again when it has finished",
        ),
        (
            PipelineError::Lock(LockError::Busy {
                path: lock_path(),
                waited: Duration::from_secs(2),
            })
            .to_string(),
            "another wr-feeds run still holds /state/lock after 2 s of waiting, the most a run \
             waits; try again when it has finished",
        ),
        (
            PipelineError::Http("no TLS roots".into()).to_string(),
            "HTTP client: no TLS roots",
        ),
        (
            BlocklistDocError::NoSchema.to_string(),
            "blocklist has no inline schema and no standalone schema is available: \
             cannot validate, not adopted (R10)",
        ),
        (
            BlocklistDocError::Json {
                line: 3,
                column: 7,
                message: "expected value".into(),
            }
            .to_string(),
            "blocklist is not valid JSON (line 3, column 7): expected value",
        ),
        (
            BlocklistDocError::Invalid {
                schema: SchemaSource::Inline,
                violations: vec![
                    Violation {
                        pointer: String::new(),
                        message: "\"blocked\" is a required property".into(),
                    },
                    Violation {
                        pointer: "/updated".into(),
                        message: "not a date-time".into(),
                    },
                ],
                more: true,
            }
            .to_string(),
            "blocklist fails its inline schema: at /: \"blocked\" is a required property; \
             at /updated: not a date-time; and more",
        ),
        (
            BlocklistDocError::BadSchema {
                schema: SchemaSource::Fallback,
                reason: "not an object".into(),
            }
            .to_string(),
            "blocklist standalone schema is unusable: not an object",
        ),
        (
            BlocklistDocError::Contract(BlocklistError::UnknownMajor(2)).to_string(),
            "blocklist refused: blocklist contract major v2 is unknown (this tool knows v1)",
        ),
        (
            FixturesError::MalformedContract("fixtures/1".into()).to_string(),
            "test fixtures contract \"fixtures/1\" is not walsh-research-test-fixtures/vN",
        ),
        (
            FixturesError::UnknownMajor(3).to_string(),
            "test fixtures contract major v3 is unknown (this tool knows v1)",
        ),
        (
            FixturesError::BadFixture {
                field: "external_positive".into(),
                value: "ftp://x".into(),
            }
            .to_string(),
            "test fixture external_positive has an unusable value \"ftp://x\"",
        ),
        (
            ExtractError::NotAFeed("unexpected tag".into()).to_string(),
            "not a feed: unexpected tag",
        ),
        (
            ExtractError::BadBaseUrl {
                url: "feed.xml".into(),
                reason: "relative URL without a base".into(),
            }
            .to_string(),
            "cannot resolve links against \"feed.xml\": relative URL without a base",
        ),
        (
            HttpError::TooLarge {
                url: "https://a.test/feed".into(),
                limit: 10,
            }
            .to_string(),
            "https://a.test/feed: too large (more than 10 bytes)",
        ),
        (
            HttpError::NotPermitted {
                url: "https://a.test/feed".into(),
            }
            .to_string(),
            "https://a.test/feed: no gate permit for this URL",
        ),
        (
            FetchError::DeniedRobots {
                url: "https://a.test/x".into(),
                rule: "Disallow: /x".into(),
                line: 3,
            }
            .to_string(),
            "https://a.test/x: denied by robots.txt (R2): Disallow: /x (line 3)",
        ),
        (
            FetchError::DeniedBlocklist {
                url: "https://b.test/".into(),
                domain: "b.test".into(),
            }
            .to_string(),
            "https://b.test/: denied by the operator blocklist (R3): b.test",
        ),
        (
            FetchError::Deferred {
                url: "https://a.test/".into(),
                reason: "robots.txt unreachable".into(),
            }
            .to_string(),
            "https://a.test/: deferred: robots.txt unreachable",
        ),
        (
            FetchError::Invalid {
                url: "a b".into(),
                reason: "relative URL".into(),
            }
            .to_string(),
            "a b: invalid URL: relative URL",
        ),
        (
            FetchError::Failed {
                url: "https://a.test/".into(),
                reason: "connection refused".into(),
            }
            .to_string(),
            "https://a.test/: connection refused",
        ),
        (
            ConfigError::ConnectTo {
                value: "a:1".into(),
                reason: "expected HOST1:PORT1:HOST2:PORT2".into(),
            }
            .to_string(),
            "bad --connect-to \"a:1\": expected HOST1:PORT1:HOST2:PORT2",
        ),
        (
            ConfigError::OperatorBase {
                value: "wal.sh".into(),
                reason: "not a URL".into(),
            }
            .to_string(),
            "bad operator base URL \"wal.sh\": not a URL",
        ),
        (
            ConfigError::NoStateDir.to_string(),
            "no state directory: set WR_STATE_DIR (or --state-dir), XDG_STATE_HOME or HOME",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

#[test]
fn store_messages_are_unchanged() {
    // A file where the state directory should be: the directory cannot
    // be created (an io::Error).
    let tmp = std::env::temp_dir().join(format!("wr-feeds-errtest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let file = tmp.join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let e = crate::store::Store::open(&file).unwrap_err();
    let msg = e.to_string();
    let prefix = format!(
        "state store {}: cannot create the state directory: ",
        file.display()
    );
    assert!(msg.starts_with(&prefix), "{msg}");

    // A directory where the database file should be: SQLite cannot open it.
    let dir = tmp.join("state");
    std::fs::create_dir_all(dir.join(crate::config::DB_FILE)).unwrap();
    let e = crate::store::Store::open(&dir).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "state store {}: unable to open database file: {}",
            dir.join(crate::config::DB_FILE).display(),
            dir.join(crate::config::DB_FILE).display()
        )
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The text of `e`'s `source()`, which must be there.
fn source_text(e: &dyn std::error::Error) -> String {
    e.source().expect("a source()").to_string()
}

#[test]
fn wrapping_errors_keep_the_wrapped_one_as_source() {
    let e = LockError::Io {
        path: lock_path(),
        source: std::io::Error::other("permission denied"),
    };
    assert_eq!(source_text(&e), "permission denied");
    let busy = LockError::Busy {
        path: lock_path(),
        waited: Duration::from_secs(1),
    };
    assert!(std::error::Error::source(&busy).is_none());

    // The pipeline's error is the lock's (same message), which is its source.
    let e = PipelineError::from(e);
    assert_eq!(
        source_text(&e),
        "cannot lock /state/lock: permission denied"
    );
    assert_eq!(e.to_string(), "cannot lock /state/lock: permission denied");
    assert!(std::error::Error::source(&PipelineError::Http("x".into())).is_none());

    // wr-core's error stays reachable below the blocklist's refusal.
    let e = BlocklistDocError::Contract(BlocklistError::UnknownMajor(2));
    let inner = std::error::Error::source(&e).expect("a source()");
    assert!(matches!(
        inner.downcast_ref::<BlocklistError>(),
        Some(BlocklistError::UnknownMajor(2))
    ));
    // Errors that only ever held words have no source to offer.
    assert!(std::error::Error::source(&BlocklistDocError::NoSchema).is_none());
    assert!(std::error::Error::source(&FixturesError::UnknownMajor(3)).is_none());
    assert!(std::error::Error::source(&ConfigError::NoStateDir).is_none());

    // A transport failure keeps the I/O error it came from.
    let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
    let e = HttpError::Transport {
        url: "https://a.test/".into(),
        reason: format!("reading the body: {io}"),
        timed_out: false,
        source: Box::new(io),
    };
    assert_eq!(
        e.to_string(),
        "https://a.test/: reading the body: connection refused"
    );
    let inner = std::error::Error::source(&e).expect("a source()");
    assert_eq!(
        inner
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind),
        Some(std::io::ErrorKind::ConnectionRefused)
    );
}

#[test]
fn store_errors_keep_the_sqlite_or_io_error_as_source() {
    let tmp = std::env::temp_dir().join(format!("wr-feeds-errsrc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let file = tmp.join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let e = crate::store::Store::open(&file).unwrap_err();
    let inner = std::error::Error::source(&e).expect("a source()");
    assert!(
        inner.downcast_ref::<std::io::Error>().is_some(),
        "{inner:?}"
    );
    assert!(e.to_string().ends_with(&inner.to_string()), "{e}");

    let dir = tmp.join("state");
    std::fs::create_dir_all(dir.join(crate::config::DB_FILE)).unwrap();
    let e = crate::store::Store::open(&dir).unwrap_err();
    let inner = std::error::Error::source(&e).expect("a source()");
    assert!(
        inner.downcast_ref::<rusqlite::Error>().is_some(),
        "{inner:?}"
    );
    // Through the pipeline's error too: the store error, then SQLite's.
    let e = PipelineError::from(e);
    let store = std::error::Error::source(&e).expect("the store error");
    assert!(store.downcast_ref::<crate::store::StoreError>().is_some());
    assert!(store.source().is_some());
    let _ = std::fs::remove_dir_all(&tmp);
}
