//! The section 14 self-check harness behind `wr-feeds attest` (feature
//! `harness`): every requirement checked against the production code, not
//! against a description of it.
//!
//! It lives here, not in the CLI, because it is test equipment: the
//! product's modules should read as the product, and the harness's
//! fixtures, models and loopback replica belong together, packaged with
//! the crate that holds them (`cargo package` sees only this package's
//! files). The CLI's `attest` command only runs it and prints the result.
//!
//! * [`checks`]: offline checks of R1-R12 (the production robots.txt
//!   parser held against [`crate::robots_model`], the gate, the backoff,
//!   blocklist documents against their schema...).
//! * [`replica`]: the end-to-end half, the real `wr_feeds` pipeline run
//!   against a loopback replica of an operator site and four publishers.
//! * [`vectors`]: the spec's section 12 and 16 vectors, run in-process.
//! * [`platform`]: what R2a and R2c are held to beyond this project's own
//!   model: the platform robots parser's verdicts and generator families.
//!
//! The feature pulls `wr-feeds` (and with it HTTP, TLS and SQLite), so
//! the crates whose tests only need the models and the fault server do
//! not build it.

pub mod checks;
pub mod platform;
pub mod replica;
pub mod vectors;

/// The section 6 User-Agent, as the spec text writes it.
pub const SPEC_USER_AGENT: &str =
    "Mozilla/5.0 (compatible; Walsh-Research/1.2; +https://wal.sh/bot/)";

/// A requirement of the contract, as section 14's attestation names it.
/// The harness keys its checks by these, not by strings, so a typo is a
/// compile error rather than a requirement silently left unchecked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum Requirement {
    R1,
    R2,
    R2a,
    R2b,
    R2c,
    R2d,
    R3,
    R3a,
    R3b,
    R3c,
    R4,
    R5,
    R6,
    R7,
    R8,
    R9,
    R10,
    R11,
    R12,
    R13,
}

impl Requirement {
    /// Every requirement, in the spec's order.
    pub const ALL: [Requirement; 20] = {
        use Requirement::*;
        [
            R1, R2, R2a, R2b, R2c, R2d, R3, R3a, R3b, R3c, R4, R5, R6, R7, R8, R9, R10, R11, R12,
            R13,
        ]
    };

    /// Its name in the spec and in the attestation (`R2a`).
    pub fn as_str(self) -> &'static str {
        use Requirement::*;
        match self {
            R1 => "R1",
            R2 => "R2",
            R2a => "R2a",
            R2b => "R2b",
            R2c => "R2c",
            R2d => "R2d",
            R3 => "R3",
            R3a => "R3a",
            R3b => "R3b",
            R3c => "R3c",
            R4 => "R4",
            R5 => "R5",
            R6 => "R6",
            R7 => "R7",
            R8 => "R8",
            R9 => "R9",
            R10 => "R10",
            R11 => "R11",
            R12 => "R12",
            R13 => "R13",
        }
    }
}

impl core::fmt::Display for Requirement {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// As its name: the attestation's JSON keys its checks by requirement.
impl serde::Serialize for Requirement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Requirement;

    #[test]
    fn requirement_names_are_distinct_and_in_order() {
        let names: Vec<&str> = Requirement::ALL.iter().map(|r| r.as_str()).collect();
        let mut sorted = Requirement::ALL.to_vec();
        sorted.sort();
        assert_eq!(sorted, Requirement::ALL, "ALL is in declaration order");
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(unique.len(), 20);
        assert_eq!(Requirement::R2a.to_string(), "R2a");
    }
}
