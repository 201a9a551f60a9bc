//! The adopted operator blocklist (R3), after the shell has parsed and
//! schema-validated the JSON document.
//!
//! Section 9.2 splits adoption in two: the document must pass its JSON
//! Schema (R3c, R10; done by the shell with a real JSON Schema validator),
//! and its `contract` major must be one we know. This module owns the
//! second half and everything after: the contract check, reading `refresh`,
//! normalising the listed domains, and answering "is this host blocked?"
//! with the first matching entry, so a denial can name the entry (R3).
//!
//! Choices where the spec is silent:
//!
//! * **Contract**: `walsh-research-blocklist/vN`, N = 1 being the only
//!   major this crate knows. A minor (`/v1.2`) is accepted and ignored: per
//!   section 4 minors are additive, and "reject an unknown major" is the
//!   rule. Anything else (another family, `V1`, `v1.x`, spaces) is refused.
//! * **Refresh**: absent means [`BLOCKLIST_REFRESH_DEFAULT`] (`PT6H`,
//!   section 6). Present but unreadable by [`crate::duration`] (including
//!   calendar units such as `P1M`) refuses the document: R3 says the timing
//!   "is dictated by the data", so a value we cannot honour is a document
//!   we do not understand, and R3c's answer to that is to keep the previous
//!   list. A refresh shorter than [`BLOCKLIST_REFRESH_FLOOR`] (five
//!   minutes; `PT0S` is schema-valid) is read as the floor: taken as
//!   written, zero made the list stale the instant it was adopted, and
//!   R12's block-on-refresh then asked for it before every request, a
//!   livelock (issue #18). [`Blocklist::refresh_as_written`] keeps the
//!   document's value for reports.
//! * **Domains** are stored lower-case, without port, IPv6 brackets or a
//!   trailing dots ([`crate::domain::normalize_host`]). An entry that is empty
//!   after that, or that could never equal a URL host (whitespace, `/`,
//!   `?`, `#`, `@`, `*`, a leading dot, an empty label) refuses the whole
//!   document: such an entry would silently protect nobody, and refusing
//!   makes the operator's mistake visible while the previous list stays in
//!   force.
//! * `updated`, `added` and `reason` are informational and kept verbatim.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::time::Duration;

use crate::constants::{BLOCKLIST_REFRESH_DEFAULT, BLOCKLIST_REFRESH_FLOOR};
use crate::domain::{host_matches_domain, normalize_host};
use crate::duration::{parse_duration, DurationError};

/// The contract family of the blocklist document.
pub const BLOCKLIST_FAMILY: &str = "walsh-research-blocklist";
/// The only contract major this crate implements.
pub const BLOCKLIST_MAJOR: u32 = 1;

/// One opt-out entry of `blocked[]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedDomain {
    /// Registered domain, normalised (lower case, no port or trailing dots).
    pub domain: String,
    /// Date added (informational).
    pub added: String,
    /// Reason (informational).
    pub reason: String,
}

impl BlockedDomain {
    /// An entry as the document writes it; [`Blocklist::new`] normalises it.
    pub fn new(domain: &str, added: &str, reason: &str) -> Self {
        BlockedDomain {
            domain: domain.to_string(),
            added: added.to_string(),
            reason: reason.to_string(),
        }
    }
}

/// Why a (schema-valid) blocklist document is not adopted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlocklistError {
    /// `contract` is not `walsh-research-blocklist/vN[.M]`.
    #[error("blocklist contract {0:?} is not {BLOCKLIST_FAMILY}/vN", BLOCKLIST_FAMILY = BLOCKLIST_FAMILY)]
    MalformedContract(String),
    /// The contract major is not one this crate knows (R3c).
    #[error("blocklist contract major v{0} is unknown (this tool knows v{BLOCKLIST_MAJOR})", BLOCKLIST_MAJOR = BLOCKLIST_MAJOR)]
    UnknownMajor(u32),
    /// `refresh` is not a duration this crate can honour.
    #[error("blocklist refresh: {0}")]
    BadRefresh(#[source] DurationError),
    /// `blocked[index].domain` is empty after normalisation.
    #[error("blocklist entry {index} has an empty domain")]
    EmptyDomain {
        /// Position in `blocked[]`.
        index: usize,
    },
    /// `blocked[index].domain` can never equal a URL host.
    #[error("blocklist entry {index} has a domain no host can match: {domain:?}")]
    InvalidDomain {
        /// Position in `blocked[]`.
        index: usize,
        /// The domain as written.
        domain: String,
    },
}

/// The major version of a `family/vN` or `family/vN.M` contract string, or
/// `None` when `contract` is not of that family or shape.
///
/// Works for every data contract of section 4 (`walsh-research-blocklist`,
/// `walsh-research-test-fixtures`, `walsh-research-attestation`) and for the
/// spec version (`walsh-research-compliance/v1.3`). The family is compared
/// exactly; N and M are ASCII digits.
///
/// ```
/// use wr_core::blocklist::contract_major;
/// let family = "walsh-research-blocklist";
/// assert_eq!(contract_major("walsh-research-blocklist/v1.4", family), Some(1));
/// assert_eq!(contract_major("walsh-research-blocklist/1", family), None);
/// ```
pub fn contract_major(contract: &str, family: &str) -> Option<u32> {
    let version = contract.strip_prefix(family)?.strip_prefix("/v")?;
    let (major, minor) = match version.split_once('.') {
        Some((major, minor)) => (major, Some(minor)),
        None => (version, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(major) || minor.is_some_and(|m| !all_digits(m)) {
        return None;
    }
    major.parse().ok()
}

/// Whether a domain as written, and once normalised, could ever equal a
/// host `Url::parse` accepts. The raw form is checked first so that a URL
/// (`https://example.com/`) is not mistaken for host `https` and port `//…`.
fn plausible_domain(raw: &str, normalised: &str) -> bool {
    !raw.bytes()
        .any(|b| b <= b' ' || b == 0x7f || b"/\\?#@<>\"^`{|}%*".contains(&b))
        && !normalised.starts_with('.')
        && !normalised.contains("..")
}

/// The blocklist in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocklist {
    entries: Vec<BlockedDomain>,
    refresh: Duration,
    refresh_as_written: Duration,
    contract: String,
    updated: String,
}

impl Blocklist {
    /// Adopts a schema-valid document's fields: checks the contract major
    /// (R3c), reads `refresh` (default `PT6H`) and normalises the domains.
    pub fn new(
        contract: &str,
        refresh: Option<&str>,
        entries: impl IntoIterator<Item = BlockedDomain>,
    ) -> Result<Blocklist, BlocklistError> {
        match contract_major(contract, BLOCKLIST_FAMILY) {
            None => return Err(BlocklistError::MalformedContract(contract.to_string())),
            Some(BLOCKLIST_MAJOR) => {}
            Some(n) => return Err(BlocklistError::UnknownMajor(n)),
        }
        let refresh_as_written = match refresh {
            None => BLOCKLIST_REFRESH_DEFAULT,
            Some(r) => parse_duration(r).map_err(BlocklistError::BadRefresh)?,
        };
        let entries = entries
            .into_iter()
            .enumerate()
            .map(|(index, mut e)| {
                let domain = normalize_host(&e.domain).to_ascii_lowercase();
                if domain.is_empty() {
                    return Err(BlocklistError::EmptyDomain { index });
                }
                if !plausible_domain(&e.domain, &domain) {
                    return Err(BlocklistError::InvalidDomain {
                        index,
                        domain: e.domain,
                    });
                }
                e.domain = domain;
                Ok(e)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Blocklist {
            entries,
            refresh: refresh_as_written.max(BLOCKLIST_REFRESH_FLOOR),
            refresh_as_written,
            contract: contract.to_string(),
            updated: String::new(),
        })
    }

    /// Records the document's `updated` timestamp (informational, verbatim).
    pub fn with_updated(mut self, updated: &str) -> Self {
        self.updated = updated.to_string();
        self
    }

    /// The list with `refresh` as its document's `refresh` (before the
    /// floor): a list read back from a store, which keeps the duration as
    /// a number rather than as the document's ISO 8601 text.
    pub fn with_refresh(mut self, refresh: Duration) -> Self {
        self.refresh_as_written = refresh;
        self.refresh = refresh.max(BLOCKLIST_REFRESH_FLOOR);
        self
    }

    /// The list used when the very first fetch fails (R3b): it blocks
    /// nothing ("fail open: nothing is protected yet"). Its contract and
    /// `updated` are empty, marking it as not coming from a document.
    pub fn empty() -> Blocklist {
        Blocklist {
            entries: Vec::new(),
            refresh: BLOCKLIST_REFRESH_DEFAULT,
            refresh_as_written: BLOCKLIST_REFRESH_DEFAULT,
            contract: String::new(),
            updated: String::new(),
        }
    }

    /// The first listed entry that blocks `host` (R3a), if any. `host` may
    /// carry a port and any letter case.
    ///
    /// ```
    /// use wr_core::blocklist::{BlockedDomain, Blocklist};
    /// let list = Blocklist::new(
    ///     "walsh-research-blocklist/v1",
    ///     Some("PT6H"),
    ///     [BlockedDomain::new("Example.org", "2026-01-01", "opted out")],
    /// )?;
    /// // R3a: the domain and every subdomain, case-insensitively.
    /// assert_eq!(list.blocked_by("www.example.ORG").map(|d| d.domain.as_str()), Some("example.org"));
    /// assert!(list.blocked_by("example.org.evil.test").is_none());
    /// assert!(list.blocked_by("notexample.org").is_none());
    /// # Ok::<(), wr_core::blocklist::BlocklistError>(())
    /// ```
    pub fn blocked_by(&self, host: &str) -> Option<&BlockedDomain> {
        self.entries
            .iter()
            .find(|e| host_matches_domain(host, &e.domain))
    }

    /// The entries, in document order, domains normalised.
    pub fn entries(&self) -> &[BlockedDomain] {
        &self.entries
    }

    /// How long this list stays fresh (R3: the document's `refresh`, at
    /// least [`BLOCKLIST_REFRESH_FLOOR`]).
    pub fn refresh(&self) -> Duration {
        self.refresh
    }

    /// The document's `refresh` as it wrote it (the default when absent),
    /// before the floor.
    pub fn refresh_as_written(&self) -> Duration {
        self.refresh_as_written
    }

    /// Whether the document's `refresh` was shorter than the floor and is
    /// read as [`BLOCKLIST_REFRESH_FLOOR`].
    pub fn refresh_was_floored(&self) -> bool {
        self.refresh_as_written < BLOCKLIST_REFRESH_FLOOR
    }

    /// The document's `contract` (empty for [`Blocklist::empty`]).
    pub fn contract(&self) -> &str {
        &self.contract
    }

    /// The document's `updated` (empty unless set with [`Blocklist::with_updated`]).
    pub fn updated(&self) -> &str {
        &self.updated
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list blocks nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// A list read back from a store takes its refresh as a duration, the
    /// floor applied as to a document's.
    #[test]
    fn a_stored_refresh_is_a_duration_under_the_same_floor() {
        let list = || Blocklist::new("walsh-research-blocklist/v1", None, []).unwrap();
        let two_hours = Duration::from_secs(7200);
        let l = list().with_refresh(two_hours);
        assert_eq!(
            (l.refresh(), l.refresh_as_written()),
            (two_hours, two_hours)
        );
        let short = Duration::from_secs(60);
        let l = list().with_refresh(short);
        assert_eq!(l.refresh(), BLOCKLIST_REFRESH_FLOOR);
        assert_eq!(l.refresh_as_written(), short);
        assert!(l.refresh_was_floored());
    }

    fn one(domain: &str) -> Vec<BlockedDomain> {
        vec![BlockedDomain::new(domain, "2026-05-23", "email opt-out")]
    }

    #[test]
    fn the_spec_example_document() {
        let list = Blocklist::new(
            "walsh-research-blocklist/v1",
            Some("PT6H"),
            one("example.com"),
        )
        .unwrap()
        .with_updated("2026-05-23T00:00:00Z");
        assert_eq!(list.refresh(), Duration::from_secs(21_600));
        assert_eq!(list.contract(), "walsh-research-blocklist/v1");
        assert_eq!(list.updated(), "2026-05-23T00:00:00Z");
        assert_eq!(list.len(), 1);
        let hit = list.blocked_by("www.example.com:8443").unwrap();
        assert_eq!(hit.domain, "example.com");
        assert_eq!(hit.reason, "email opt-out");
        assert!(list.blocked_by("notexample.com").is_none());
    }

    #[test]
    fn section_12_3_vectors() {
        let list = Blocklist::new("walsh-research-blocklist/v1", None, one("example.com")).unwrap();
        for (host, blocked) in [
            ("example.com", true),
            ("www.example.com", true),
            ("a.b.example.com", true),
            ("EXAMPLE.COM", true),
            ("notexample.com", false),
            ("example.com.evil.test", false),
            ("example.org", false),
        ] {
            assert_eq!(list.blocked_by(host).is_some(), blocked, "{host}");
        }
    }

    #[test]
    fn first_listed_match_wins() {
        let list = Blocklist::new(
            "walsh-research-blocklist/v1",
            None,
            vec![
                BlockedDomain::new("www.example.com", "", "first"),
                BlockedDomain::new("example.com", "", "second"),
            ],
        )
        .unwrap();
        assert_eq!(
            list.blocked_by("a.www.example.com").unwrap().reason,
            "first"
        );
        assert_eq!(list.blocked_by("example.com").unwrap().reason, "second");
    }

    #[test]
    fn refresh_defaults_and_errors() {
        let c = "walsh-research-blocklist/v1";
        assert_eq!(
            Blocklist::new(c, None, []).unwrap().refresh(),
            BLOCKLIST_REFRESH_DEFAULT
        );
        assert_eq!(
            Blocklist::new(c, Some("P1D"), []).unwrap().refresh(),
            Duration::from_secs(86_400)
        );
        // Issue #11: a schema-valid P1M used to refuse the whole document.
        assert_eq!(
            Blocklist::new(c, Some("P1M"), []).unwrap().refresh(),
            Duration::from_secs(28 * 86_400)
        );
        assert_eq!(
            Blocklist::new(c, Some("6h"), []),
            Err(BlocklistError::BadRefresh(DurationError::MissingP))
        );
    }

    /// Issue #18: `PT0S` is schema-valid, and taken as written it made the
    /// list stale the instant it was adopted. A refresh under the floor is
    /// read as the floor; one at or above it, as written.
    #[test]
    fn a_refresh_under_the_floor_is_read_as_the_floor() {
        let c = "walsh-research-blocklist/v1";
        let floor = BLOCKLIST_REFRESH_FLOOR;
        assert!(floor >= crate::constants::MIN_REQUEST_INTERVAL);
        for (written, ms) in [
            ("PT0S", 0),
            ("P0D", 0),
            ("PT1S", 1_000),
            ("PT0.5S", 500),
            ("PT4M59S", 299_000),
        ] {
            let list = Blocklist::new(c, Some(written), []).unwrap();
            assert_eq!(list.refresh(), floor, "{written}");
            assert_eq!(
                list.refresh_as_written(),
                Duration::from_millis(ms),
                "{written}"
            );
            assert!(list.refresh_was_floored(), "{written}");
        }
        for (written, secs) in [("PT5M", 300), ("PT5M1S", 301), ("PT6H", 21_600)] {
            let list = Blocklist::new(c, Some(written), []).unwrap();
            assert_eq!(list.refresh(), Duration::from_secs(secs), "{written}");
            assert!(!list.refresh_was_floored(), "{written}");
        }
        assert!(!Blocklist::new(c, None, []).unwrap().refresh_was_floored());
    }

    #[test]
    fn contract_major_is_checked() {
        assert!(Blocklist::new("walsh-research-blocklist/v1.3", None, []).is_ok());
        assert_eq!(
            Blocklist::new("walsh-research-blocklist/v2", None, []),
            Err(BlocklistError::UnknownMajor(2))
        );
        assert_eq!(
            Blocklist::new("walsh-research-blocklist/v0", None, []),
            Err(BlocklistError::UnknownMajor(0))
        );
        for bad in [
            "",
            "walsh-research-blocklist",
            "walsh-research-blocklist/1",
            "walsh-research-blocklist/V1",
            "walsh-research-blocklist/v1.x",
            "walsh-research-blocklist/v1.",
            "walsh-research-blocklist/v",
            "walsh-research-blocklist/v1 ",
            "walsh-research-blocklist/v99999999999",
            "walsh-research-test-fixtures/v1",
            "Walsh-Research-Blocklist/v1",
        ] {
            assert_eq!(
                Blocklist::new(bad, None, []),
                Err(BlocklistError::MalformedContract(bad.to_string())),
                "{bad}"
            );
        }
    }

    #[test]
    fn contract_major_for_other_families() {
        assert_eq!(
            contract_major(
                "walsh-research-test-fixtures/v1",
                "walsh-research-test-fixtures"
            ),
            Some(1)
        );
        assert_eq!(
            contract_major(
                "walsh-research-compliance/v1.3",
                "walsh-research-compliance"
            ),
            Some(1)
        );
        assert_eq!(
            contract_major(
                "walsh-research-attestation/v12",
                "walsh-research-attestation"
            ),
            Some(12)
        );
        assert_eq!(
            contract_major("walsh-research-attestation/v1", "walsh-research"),
            None
        );
        assert_eq!(contract_major("x/v+1", "x"), None);
    }

    #[test]
    fn domains_are_normalised() {
        let list = Blocklist::new(
            "walsh-research-blocklist/v1",
            None,
            vec![
                BlockedDomain::new("Example.COM.", "", ""),
                BlockedDomain::new("shop.test:8080", "", ""),
                BlockedDomain::new("[2001:DB8::1]", "", ""),
            ],
        )
        .unwrap();
        let domains: Vec<&str> = list.entries().iter().map(|e| e.domain.as_str()).collect();
        assert_eq!(domains, ["example.com", "shop.test", "2001:db8::1"]);
        assert!(list.blocked_by("WWW.example.com").is_some());
        assert!(list.blocked_by("shop.test").is_some());
        assert!(list.blocked_by("[2001:db8::1]").is_some());
    }

    #[test]
    fn unusable_domains_refuse_the_document() {
        let c = "walsh-research-blocklist/v1";
        for (d, err) in [
            ("", BlocklistError::EmptyDomain { index: 0 }),
            (".", BlocklistError::EmptyDomain { index: 0 }),
            (":80", BlocklistError::EmptyDomain { index: 0 }),
        ] {
            assert_eq!(Blocklist::new(c, None, one(d)), Err(err), "{d:?}");
        }
        for d in [
            "https://example.com/",
            "example .com",
            "*.example.com",
            ".example.com",
            "a..example.com",
            "user@example.com",
        ] {
            assert_eq!(
                Blocklist::new(c, None, one(d)),
                Err(BlocklistError::InvalidDomain {
                    index: 0,
                    domain: d.to_string()
                }),
                "{d:?}"
            );
        }
        let mut entries = one("ok.test");
        entries.push(BlockedDomain::new(" ", "", ""));
        assert!(matches!(
            Blocklist::new(c, None, entries),
            Err(BlocklistError::InvalidDomain { index: 1, .. })
        ));
    }

    #[test]
    fn empty_list_blocks_nothing() {
        let list = Blocklist::empty();
        assert!(list.is_empty());
        assert!(list.blocked_by("example.com").is_none());
        assert!(list.blocked_by("").is_none());
        assert_eq!(list.refresh(), BLOCKLIST_REFRESH_DEFAULT);
        assert_eq!(list.contract(), "");
    }

    #[test]
    fn errors_say_what_was_wrong() {
        use alloc::string::ToString;
        assert!(BlocklistError::UnknownMajor(2).to_string().contains("v2"));
        assert!(BlocklistError::BadRefresh(DurationError::MissingP)
            .to_string()
            .contains("'P'"));
    }
}

#[cfg(test)]
mod error_chain {
    use super::*;
    use core::error::Error;

    /// A refused refresh says why in its own words and hands the duration
    /// parser's error on as its source, for callers that walk the chain.
    #[test]
    fn a_bad_refresh_keeps_the_duration_error_as_its_source() {
        let e = Blocklist::new("walsh-research-blocklist/v1", Some("six hours"), [])
            .expect_err("not an ISO-8601 duration");
        assert!(e.to_string().starts_with("blocklist refresh: "), "{e}");
        let source = e.source().expect("a source");
        assert_eq!(source.to_string(), "an ISO-8601 duration starts with 'P'");
    }
}
