//! Parsing and validating the operator's published JSON documents: the
//! blocklist (`walsh-research-blocklist/v1`, section 9.2) and the
//! conformance fixtures (`walsh-research-test-fixtures/v1`, section 13).
//!
//! Why it is strict:
//!
//! * **R3c (MUST).** A blocklist is adopted only after it validates against
//!   a JSON Schema *and* its `contract` major is one we know. Anything else
//!   is refused, and the caller keeps the list it already had (R3b): a
//!   broken document must never silently un-block an opt-out.
//! * **R10 (MUST).** The schema is the document's inline `schema` object;
//!   without one, the standalone `blocklist.schema.json` (fetched and cached
//!   by the pipeline) is the fallback. With neither there is no way to tell
//!   a blocklist from arbitrary JSON, so the answer is
//!   [`BlocklistDocError::NoSchema`]: fail closed for adoption.
//! * **Draft 2020-12 with formats asserted.** `updated` must really be a
//!   `date-time`, `added` a `date`, `domain` a `hostname`: format checking is
//!   switched on explicitly (2020-12 only annotates formats by default).
//!   The draft is forced to 2020-12 whatever the schema's `$schema` says.
//! * **No network from a schema.** Schemas are compiled offline: a `$ref`
//!   to any resource not inside the schema itself fails compilation with a
//!   clear error instead of fetching (every request must pass the gate, and
//!   the schema must not become a way to make the bot fetch things).
//! * **Untrusted input never panics.** JSON is parsed by `serde_json`
//!   (recursion limit 128); fields are read with typed deserialisation, never
//!   by indexing; schema compilation and validation run under
//!   `catch_unwind` as a last line of defence against a validator bug
//!   triggered by a hostile schema. Error messages quote document content
//!   only after [`crate::extract::clean_title`] has made it terminal-safe and
//!   short.
//!
//! The second half of R3c (contract major, `refresh`, domain
//! normalisation) is [`wr_core::blocklist::Blocklist::new`]'s job; this
//! module runs it after schema validation. A schema-valid `refresh` below
//! [`wr_core::constants::BLOCKLIST_REFRESH_FLOOR`] (`PT0S`) is adopted and
//! read as the floor there, not refused here: the schema allows it, and
//! refusing would keep an older list in force for want of a timing.

use jsonschema::{Draft, Validator};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use wr_core::blocklist::{BlockedDomain, Blocklist, BlocklistError};

/// At most this many schema violations are reported per document.
pub const MAX_REPORTED_ERRORS: usize = 8;

/// The contract family of the section 13 fixtures document.
pub const FIXTURES_FAMILY: &str = "walsh-research-test-fixtures";
/// The only fixtures contract major this tool knows.
pub const FIXTURES_MAJOR: u32 = 1;

/// Which schema a document was (or would have been) validated against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaSource {
    /// The document's own top-level `schema` object (the common path).
    Inline,
    /// The standalone `blocklist.schema.json` passed in by the caller.
    Fallback,
}

impl fmt::Display for SchemaSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SchemaSource::Inline => "inline schema",
            SchemaSource::Fallback => "standalone schema",
        })
    }
}

/// One schema violation: where in the document, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer (RFC 6901) into the document; empty for the root.
    pub pointer: String,
    /// The validator's message, made terminal-safe and short.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "at {at}: {}", self.message)
    }
}

/// Why a blocklist document was not adopted. Every variant means: keep the
/// previously adopted list (R3b, R3c).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlocklistDocError {
    /// The body is not JSON.
    #[error("blocklist is not valid JSON (line {line}, column {column}): {message}")]
    Json {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// `serde_json`'s reason.
        message: String,
    },
    /// No inline `schema` and no fallback schema: cannot validate, so
    /// cannot adopt (R10 MUST).
    #[error(
        "blocklist has no inline schema and no standalone schema is available: \
         cannot validate, not adopted (R10)"
    )]
    NoSchema,
    /// The schema itself is unusable: not an object, not a valid Draft
    /// 2020-12 schema, or referring to a remote resource.
    #[error("blocklist {schema} is unusable: {reason}")]
    BadSchema {
        /// Which schema (not named `source`: that would make it the
        /// error's `source()`).
        schema: SchemaSource,
        /// Why.
        reason: String,
    },
    /// The document does not validate against its schema.
    #[error("blocklist fails its {schema}: {}", violation_list(violations, *more))]
    Invalid {
        /// Which schema it was checked against.
        schema: SchemaSource,
        /// The first [`MAX_REPORTED_ERRORS`] violations.
        violations: Vec<Violation>,
        /// Whether there were more than those.
        more: bool,
    },
    /// The document passes its schema but lacks what a blocklist needs
    /// (`contract` string, `blocked` array of `{domain, added, reason}`
    /// strings): the schema was too permissive to be trusted for adoption.
    #[error("blocklist passes its schema but is not a blocklist: {0}")]
    NotABlocklist(String),
    /// Refused by [`Blocklist::new`]: unknown contract major, malformed
    /// contract, unreadable `refresh`, or a domain no host can match. The
    /// message quotes it; it is also the `source()`.
    #[error("blocklist refused: {0}")]
    Contract(#[source] BlocklistError),
}

/// The violations of [`BlocklistDocError::Invalid`], `; `-separated, with
/// "; and more" when some were left out.
fn violation_list(violations: &[Violation], more: bool) -> String {
    let mut out = violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    if more {
        out.push_str("; and more");
    }
    out
}

/// A compiled blocklist schema (Draft 2020-12, formats asserted, offline).
pub struct BlocklistSchema {
    validator: Validator,
}

impl fmt::Debug for BlocklistSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlocklistSchema").finish_non_exhaustive()
    }
}

impl BlocklistSchema {
    /// Validates `instance`, reporting violations against `source`.
    ///
    /// # Errors
    ///
    /// [`BlocklistDocError::Invalid`] with up to [`MAX_REPORTED_ERRORS`]
    /// violations.
    pub fn check(&self, instance: &Value, source: SchemaSource) -> Result<(), BlocklistDocError> {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut errors = self.validator.iter_errors(instance);
            let violations: Vec<Violation> = errors
                .by_ref()
                .take(MAX_REPORTED_ERRORS)
                .map(|e| Violation {
                    pointer: e.instance_path().as_str().to_owned(),
                    message: crate::extract::clean_title(&e.to_string()),
                })
                .collect();
            let more = errors.next().is_some();
            (violations, more)
        }));
        match outcome {
            Ok((violations, _)) if violations.is_empty() => Ok(()),
            Ok((violations, more)) => Err(BlocklistDocError::Invalid {
                schema: source,
                violations,
                more,
            }),
            Err(_) => Err(BlocklistDocError::BadSchema {
                schema: source,
                reason: "the validator failed internally on this schema".to_owned(),
            }),
        }
    }
}

/// Compiles a blocklist schema: the standalone `blocklist.schema.json`
/// (the pipeline compiles a freshly fetched copy before caching it, so a
/// broken schema never replaces a working one) or an inline one.
///
/// The schema must be a JSON object (a boolean schema such as `true` would
/// accept anything), is compiled as Draft 2020-12 whatever its `$schema`
/// says, asserts `format`, and resolves no remote or file `$ref`.
///
/// # Errors
///
/// [`BlocklistDocError::BadSchema`] with [`SchemaSource::Fallback`]; use
/// [`compile_schema_from`] to name another source.
pub fn compile_schema(schema: &Value) -> Result<BlocklistSchema, BlocklistDocError> {
    compile_schema_from(schema, SchemaSource::Fallback)
}

/// [`compile_schema`], naming where the schema came from in errors.
///
/// # Errors
///
/// [`BlocklistDocError::BadSchema`].
pub fn compile_schema_from(
    schema: &Value,
    source: SchemaSource,
) -> Result<BlocklistSchema, BlocklistDocError> {
    let bad = |reason: String| BlocklistDocError::BadSchema {
        schema: source,
        reason: crate::extract::clean_title(&reason),
    };
    if !schema.is_object() {
        return Err(bad(format!(
            "a schema must be a JSON object, found {}",
            json_type(schema)
        )));
    }
    let built = catch_unwind(AssertUnwindSafe(|| {
        jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .offline()
            .build(schema)
    }));
    match built {
        Ok(Ok(validator)) => Ok(BlocklistSchema { validator }),
        Ok(Err(e)) => Err(bad(e.to_string())),
        Err(_) => Err(bad(
            "the validator failed internally on this schema".to_owned()
        )),
    }
}

/// Parses, validates and adopts a blocklist document.
///
/// Steps, each refusing on failure: parse JSON; pick the inline `schema`
/// (else `fallback_schema`, else [`BlocklistDocError::NoSchema`]); compile
/// it ([`compile_schema`]); validate the *whole* document, `schema` key
/// included; read the fields; build the [`Blocklist`] (contract major,
/// `refresh`, domains). The returned list carries the document's `updated`.
///
/// # Errors
///
/// See [`BlocklistDocError`]; every error means "keep the previous list".
pub fn validate(
    doc: &[u8],
    fallback_schema: Option<&Value>,
) -> Result<Blocklist, BlocklistDocError> {
    validate_detailed(doc, fallback_schema).map(|(list, _)| list)
}

/// [`validate`], also saying which schema the document was validated
/// against (for the R10 log line).
///
/// # Errors
///
/// As [`validate`].
pub fn validate_detailed(
    doc: &[u8],
    fallback_schema: Option<&Value>,
) -> Result<(Blocklist, SchemaSource), BlocklistDocError> {
    let value: Value = serde_json::from_slice(doc).map_err(|e| BlocklistDocError::Json {
        line: e.line(),
        column: e.column(),
        message: json_reason(&e),
    })?;
    let (schema, source) = match value.get("schema") {
        Some(inline) => (inline, SchemaSource::Inline),
        None => match fallback_schema {
            Some(fallback) => (fallback, SchemaSource::Fallback),
            None => return Err(BlocklistDocError::NoSchema),
        },
    };
    compile_schema_from(schema, source)?.check(&value, source)?;

    let fields = BlocklistFields::deserialize(&value).map_err(|e| {
        BlocklistDocError::NotABlocklist(crate::extract::clean_title(&e.to_string()))
    })?;
    let entries = fields
        .blocked
        .into_iter()
        .map(|e| BlockedDomain::new(&e.domain, &e.added, &e.reason));
    let list = Blocklist::new(&fields.contract, fields.refresh.as_deref(), entries)
        .map_err(BlocklistDocError::Contract)?;
    Ok((
        list.with_updated(fields.updated.as_deref().unwrap_or_default()),
        source,
    ))
}

/// The fields a blocklist must have once its schema passed. Unknown fields
/// are the schema's business, not ours.
#[derive(Deserialize)]
struct BlocklistFields {
    contract: String,
    #[serde(default)]
    updated: Option<String>,
    #[serde(default)]
    refresh: Option<String>,
    blocked: Vec<EntryFields>,
}

#[derive(Deserialize)]
struct EntryFields {
    domain: String,
    #[serde(default)]
    added: String,
    #[serde(default)]
    reason: String,
}

/// `serde_json`'s message without its own " at line L column C" suffix
/// (the position is reported separately).
fn json_reason(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_owned()
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The section 13 conformance fixtures (`walsh-research-test-fixtures/v1`),
/// used by the `selftest` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFixtures {
    /// `walsh-research-test-fixtures/vN[.M]`, with N = 1.
    pub contract: String,
    /// When the fixtures last changed (verbatim).
    pub updated: String,
    /// Expected 200 and allowed by robots (`dogfood-allow`).
    pub robots_allowed_sentinel: String,
    /// Must be refused at R2 in every representation (`dogfood-disallow`).
    pub robots_disallowed: String,
    /// `*` is disallowed, our named group allows (`dogfood-walsh-only`).
    pub walsh_only_allowed: String,
    /// A robots-allowed third-party page.
    pub external_positive: String,
    /// A host on the live blocklist: any URL on it is refused at R3.
    pub operator_blocked_host: String,
    /// A live 429 endpoint, if the operator provides one (v1: `null`).
    pub flaky_429_endpoint: Option<String>,
    /// Fixtures this tool does not know yet (additive minors), verbatim.
    pub other_fixtures: BTreeMap<String, Value>,
    /// The human-readable `notes` object, string values only.
    pub notes: BTreeMap<String, String>,
}

/// Why a fixtures document was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FixturesError {
    /// The body is not JSON.
    #[error("test fixtures are not valid JSON (line {line}, column {column}): {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// `serde_json`'s reason.
        message: String,
    },
    /// A required field is missing or has the wrong type.
    #[error("test fixtures malformed: {0}")]
    Shape(String),
    /// `contract` is not `walsh-research-test-fixtures/vN[.M]`.
    #[error("test fixtures contract {0:?} is not {FIXTURES_FAMILY}/vN", FIXTURES_FAMILY = FIXTURES_FAMILY)]
    MalformedContract(String),
    /// A contract major this tool does not know.
    #[error(
        "test fixtures contract major v{0} is unknown (this tool knows v{FIXTURES_MAJOR})",
        FIXTURES_MAJOR = FIXTURES_MAJOR
    )]
    UnknownMajor(u32),
    /// A URL fixture is not an absolute http(s) URL, or the blocked host is
    /// not a bare host name.
    #[error("test fixture {field} has an unusable value {value:?}")]
    BadFixture {
        /// The fixture's key.
        field: String,
        /// Its value (terminal-safe).
        value: String,
    },
}

#[derive(Deserialize)]
struct FixturesDoc {
    contract: String,
    #[serde(default)]
    updated: String,
    fixtures: FixturesFields,
    #[serde(default)]
    notes: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct FixturesFields {
    robots_allowed_sentinel: String,
    robots_disallowed: String,
    walsh_only_allowed: String,
    external_positive: String,
    operator_blocked_host: String,
    #[serde(default)]
    flaky_429_endpoint: Option<String>,
    #[serde(flatten)]
    other: BTreeMap<String, Value>,
}

/// Parses the section 13 `test-fixtures.json`.
///
/// Decisions: the five named fixtures of v1 are required (a v1 minor can
/// only add); the four URL fixtures (and `flaky_429_endpoint` when not
/// `null`) must be absolute http(s) URLs and `operator_blocked_host` a bare
/// host name, because `selftest` feeds them to the gate; unknown fixtures
/// are kept in [`TestFixtures::other_fixtures`]; non-string notes are
/// ignored; an unknown contract major is refused, like the blocklist's.
///
/// # Errors
///
/// See [`FixturesError`].
pub fn parse_fixtures(doc: &[u8]) -> Result<TestFixtures, FixturesError> {
    let parsed: FixturesDoc = serde_json::from_slice(doc).map_err(|e| {
        if e.is_data() {
            FixturesError::Shape(crate::extract::clean_title(&e.to_string()))
        } else {
            FixturesError::Json {
                line: e.line(),
                column: e.column(),
                message: json_reason(&e),
            }
        }
    })?;
    match wr_core::blocklist::contract_major(&parsed.contract, FIXTURES_FAMILY) {
        None => {
            return Err(FixturesError::MalformedContract(
                crate::extract::clean_title(&parsed.contract),
            ))
        }
        Some(FIXTURES_MAJOR) => {}
        Some(n) => return Err(FixturesError::UnknownMajor(n)),
    }
    let f = parsed.fixtures;
    let urls = [
        ("robots_allowed_sentinel", &f.robots_allowed_sentinel),
        ("robots_disallowed", &f.robots_disallowed),
        ("walsh_only_allowed", &f.walsh_only_allowed),
        ("external_positive", &f.external_positive),
    ];
    let flaky = f
        .flaky_429_endpoint
        .as_ref()
        .map(|v| ("flaky_429_endpoint", v));
    for (field, value) in urls.into_iter().chain(flaky) {
        if !is_http_url(value) {
            return Err(bad_fixture(field, value));
        }
    }
    if !is_bare_host(&f.operator_blocked_host) {
        return Err(bad_fixture(
            "operator_blocked_host",
            &f.operator_blocked_host,
        ));
    }
    Ok(TestFixtures {
        contract: parsed.contract,
        updated: parsed.updated,
        robots_allowed_sentinel: f.robots_allowed_sentinel,
        robots_disallowed: f.robots_disallowed,
        walsh_only_allowed: f.walsh_only_allowed,
        external_positive: f.external_positive,
        operator_blocked_host: f.operator_blocked_host,
        flaky_429_endpoint: f.flaky_429_endpoint,
        other_fixtures: f.other,
        notes: parsed
            .notes
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some((k, s)),
                _ => None,
            })
            .collect(),
    })
}

fn bad_fixture(field: &str, value: &str) -> FixturesError {
    FixturesError::BadFixture {
        field: field.to_owned(),
        value: crate::extract::clean_title(value),
    }
}

fn is_http_url(s: &str) -> bool {
    url::Url::parse(s).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
    })
}

/// A host name as a URL would carry it: parses as the host of
/// `https://<s>/` and nothing else (no port, path, userinfo).
fn is_bare_host(s: &str) -> bool {
    !s.is_empty()
        && !s.contains(['/', ':', '@', '?', '#', ' '])
        && url::Url::parse(&format!("https://{s}/"))
            .is_ok_and(|u| u.host_str().is_some_and(|h| h.eq_ignore_ascii_case(s)))
}
