//! The data the self-check harness compiles in: the spec's vectors and the
//! operator fixtures, as files of this package (`data/`), so the harness
//! packages and publishes with it. `tests/it/fixtures.rs` holds each copy to
//! its original in the repository.

/// Section 12.1: group selection.
pub const ROBOTS_SELECTION: &str = include_str!("../data/vectors/robots-selection.json");
/// Section 12.2: path matching.
pub const ROBOTS_MATCHING: &str = include_str!("../data/vectors/robots-matching.json");
/// Section 16: the canaries.
pub const CANARIES: &str = include_str!("../data/vectors/canaries.json");
/// Section 12.3: blocklist domain matching.
pub const BLOCKLIST_DOMAINS: &str = include_str!("../data/vectors/blocklist-domains.json");
/// R3a's port and trailing-dot cases (this project's; section 12.3 has
/// none).
pub const BLOCKLIST_HOSTS: &str = include_str!("../data/vectors/blocklist-hosts.json");
/// Section 12.4: canonical URLs.
pub const CANONICAL_URLS: &str = include_str!("../data/vectors/canonical-urls.json");
/// Section 12.5: Retry-After.
pub const RETRY_AFTER: &str = include_str!("../data/vectors/retry-after.json");
/// Section 12.6: ISO-8601 durations.
pub const DURATIONS: &str = include_str!("../data/vectors/durations.json");

/// The operator's blocklist as published (inline schema, lists
/// `example.com`).
pub const BLOCKLIST_DOC: &str = include_str!("../data/operator/blocklist.json");
/// The standalone `blocklist.schema.json`.
pub const BLOCKLIST_SCHEMA: &str = include_str!("../data/operator/blocklist.schema.json");

/// Every compiled-in file with the path of its original, relative to the
/// repository root.
pub const ORIGINALS: &[(&str, &str)] = &[
    ("vectors/robots-selection.json", ROBOTS_SELECTION),
    ("vectors/robots-matching.json", ROBOTS_MATCHING),
    ("vectors/canaries.json", CANARIES),
    ("vectors/blocklist-domains.json", BLOCKLIST_DOMAINS),
    ("vectors/blocklist-hosts.json", BLOCKLIST_HOSTS),
    ("vectors/canonical-urls.json", CANONICAL_URLS),
    ("vectors/retry-after.json", RETRY_AFTER),
    ("vectors/durations.json", DURATIONS),
    ("feeds/tests/data/operator/blocklist.json", BLOCKLIST_DOC),
    (
        "feeds/tests/data/operator/blocklist.schema.json",
        BLOCKLIST_SCHEMA,
    ),
];
