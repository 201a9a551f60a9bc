//! The normative constants of section 6, in one place.

use core::time::Duration;

/// R1: the exact User-Agent sent on every request.
pub const USER_AGENT: &str = "Mozilla/5.0 (compatible; Walsh-Research/1.2; +https://wal.sh/bot/)";
/// R1, R2: the product token used for robots.txt group selection.
pub const UA_TOKEN: &str = "Walsh-Research";
/// The spec version this implementation targets (section 4).
pub const SPEC_VERSION: &str = "walsh-research-compliance/v1.3";
/// R2: robots.txt cache lifetime.
pub const ROBOTS_TTL: Duration = Duration::from_secs(86_400);
/// R3: blocklist refresh when the document does not say.
pub const BLOCKLIST_REFRESH_DEFAULT: Duration = Duration::from_secs(21_600);
/// R3: the shortest blocklist `refresh` this tool honours; a shorter one
/// (`PT0S` is schema-valid) is read as this. Not a section 6 constant: the
/// spec is silent on a refresh too short to honour. Zero livelocked every
/// run (the list went stale the instant it was adopted, so R12's
/// block-on-refresh asked for it again before every request: one GET a
/// second, no target ever fetched; issue #18). Five minutes is 300 times
/// R4's spacing, so the operator host is asked for its list at most twelve
/// times an hour, yet an opt-out is never held back more than five minutes
/// longer than the operator asked: 72 times fresher than the spec's own
/// default (`PT6H`) and three times fresher than after a failed refresh
/// ([`crate::gate::REFRESH_RETRY`], 15 minutes). See docs/conformance.md,
/// "Blocklist".
pub const BLOCKLIST_REFRESH_FLOOR: Duration = Duration::from_secs(300);
/// R3, R12: the most requests for the blocklist one run makes (successful
/// or not). With [`BLOCKLIST_REFRESH_FLOOR`] a run shorter than an hour
/// never reaches it, so R12's block-on-refresh holds in full there; it
/// bounds what no floor can, a clock that jumps ahead again and again.
/// Past it the list in force stays in force (R3b) until a later run.
pub const BLOCKLIST_REQUESTS_PER_RUN: u32 = 12;
/// R10: lifetime of the standalone blocklist schema.
pub const SCHEMA_TTL: Duration = Duration::from_secs(604_800);
/// R4: minimum spacing between two requests to one host.
pub const MIN_REQUEST_INTERVAL: Duration = Duration::from_secs(1);
/// R5: retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 5;
/// R5: base of the exponential backoff.
pub const DEFAULT_BACKOFF_BASE: Duration = Duration::from_secs(1);
/// R5: no computed backoff delay exceeds this.
pub const BACKOFF_CAP: Duration = Duration::from_secs(60);
/// R5: the longest hold a server's `Retry-After` may set, from when it
/// is recorded. R5 says "wait at least that long" and bounds nothing, so
/// this caps only what no rate limit means: a month is longer than any
/// maintenance window or quota period; a server that wants the bot gone
/// for good says so in robots.txt or through the operator blocklist (R3),
/// which hold for ever. Without it a `Retry-After` of ten years (or an
/// HTTP-date from a server whose clock is decades ahead) silenced a host
/// for good (issue #20). See [`crate::retry_after::cap_hold`].
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(30 * 86_400);
/// R5 (section 7 diagram): how long a host is left alone after retries run out.
pub const FAILURE_COOLDOWN: Duration = Duration::from_secs(3_600);
/// Section 9.1.1: robots.txt bodies are truncated to this many bytes.
pub const ROBOTS_MAX_BYTES: usize = 500 * 1024;
/// Section 5: operator resources.
pub const OPERATOR_BASE: &str = "https://wal.sh";
/// Section 5: path of the blocklist under the operator base.
pub const BLOCKLIST_PATH: &str = "/.well-known/walsh-research/blocklist.json";
/// Section 5: path of the standalone blocklist schema.
pub const BLOCKLIST_SCHEMA_PATH: &str = "/.well-known/walsh-research/blocklist.schema.json";
/// Section 5: path of the live fixtures index.
pub const TEST_FIXTURES_PATH: &str = "/.well-known/walsh-research/test-fixtures.json";
