//! Readings of a file's text that the spec's words leave open, beyond the
//! three readings every rule is weighed in (issue #18).
//!
//! [`Reading`](super::Reading) covers how rules are weighed and compared.
//! A [`Variant`] covers how the file itself is read: which characters are
//! the "surrounding whitespace" 9.1.2 trims, whether a `User-agent` value
//! is the whole value (9.1.3 read literally: "U = T or U is a prefix of
//! T") or its product token, whether Google's 16,663-octet line limit
//! applies, whether escapes such as `%2F` and `%3D` name `/` and `=` (as
//! Python's parser, the platform parser of spec 15.1, reads them; RFC 9309
//! and RFC 3986 keep them apart), whether an empty `User-agent` value
//! is a prefix of every token, and whether a byte-order mark at the start
//! is skipped (Google) or is a character of the first line (RFC 9309's
//! grammar has none; Python's parser keeps it). Each option is a faithful reading, so a
//! path is allowed only if the file read in each combination of the
//! options allows it.
//!
//! Nearly every file reads the same in all of them: each reading notes
//! which options could change some line (`Lines::diverges`, the
//! selector's agent test), and only those combinations are read. A [`Policy`]
//! keeps the readings that gave other rules; `FixedPolicy`, which has no
//! room for a second set, over-blocks such a file and says so.
//!
//! [`Policy`]: super::Policy

/// A combination of reading options (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Variant(u8);

impl Variant {
    /// The base reading: ASCII blanks trimmed, the product token of a
    /// `User-agent` value, no line limit.
    pub const BASE: Variant = Variant(0);
    /// Every white space character Unicode knows (and 0x1C-0x1F, as
    /// Python's `str.strip`) is trimmed around field names and values, and
    /// ends a product token.
    pub const UNICODE_SPACE: u8 = 1;
    /// A `User-agent` value is read whole, not cut at `/` or a blank.
    pub const WHOLE_AGENT: u8 = 2;
    /// Lines are cut at 16,663 octets, as Google's parser cuts them.
    pub const LINE_LIMIT: u8 = 4;
    /// Escapes of printable ASCII octets (`%2F`, `%3F`, `%3D`...) are read
    /// as the octets, in rules and in the target (Python's parser unquotes
    /// before it compares); in a `User-agent` or `Crawl-delay` value,
    /// every escape of a printable octet, unreserved ones too (Python
    /// unquotes each value before it reads it: `Walsh%2DResearch` names
    /// us there).
    pub const RESERVED_ESCAPES: u8 = 8;
    /// An empty `User-agent` value is a name, and the shortest prefix of
    /// every token (9.1.3 read literally: "U is a prefix of T"; Python's
    /// parser applies it too).
    pub const EMPTY_AGENT: u8 = 16;
    /// A UTF-8 byte-order mark (or a prefix of one) at the start is kept
    /// as octets of the first line, which is then no directive: RFC 9309's
    /// grammar has no mark, and Python's parser reads `\u{feff}User-agent`
    /// as an unknown field. The base reading skips it, as Google's does.
    pub const BOM_KEPT: u8 = 32;
    /// Every option.
    pub const ALL: u8 = 63;
    /// Not an option, but a finding carried beside them: some
    /// `User-agent` or `Crawl-delay` value holds an escape of a printable
    /// octet (`Walsh%2DResearch`), so [`Variant::RESERVED_ESCAPES`] reads
    /// the file's values unquoted too (`Policy::add_variants`). A file
    /// without one is read in that option without the search for them.
    pub(crate) const UNQUOTED_VALUES: u8 = 64;
    /// What an escaped `User-agent` or `Crawl-delay` value asks of the
    /// file's readings (`agent::divergence`, `group::events`): the option
    /// that reads escapes, and the finding that it unquotes values.
    pub(crate) const ESCAPED_VALUE: u8 = Variant::RESERVED_ESCAPES | Variant::UNQUOTED_VALUES;

    /// This combination with the options `bits` added.
    pub const fn with(self, bits: u8) -> Variant {
        Variant(self.0 | (bits & Variant::ALL))
    }

    /// The combination of exactly `bits`.
    pub const fn of(bits: u8) -> Variant {
        Variant(bits & Variant::ALL)
    }

    /// The options, as bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether no option is set.
    pub const fn is_base(self) -> bool {
        self.0 == 0
    }

    /// See [`Variant::UNICODE_SPACE`].
    pub const fn unicode_space(self) -> bool {
        self.0 & Variant::UNICODE_SPACE != 0
    }

    /// See [`Variant::WHOLE_AGENT`].
    pub const fn whole_agent(self) -> bool {
        self.0 & Variant::WHOLE_AGENT != 0
    }

    /// See [`Variant::LINE_LIMIT`].
    pub const fn line_limit(self) -> bool {
        self.0 & Variant::LINE_LIMIT != 0
    }

    /// See [`Variant::RESERVED_ESCAPES`].
    pub const fn reserved_escapes(self) -> bool {
        self.0 & Variant::RESERVED_ESCAPES != 0
    }

    /// See [`Variant::EMPTY_AGENT`].
    pub const fn empty_agent(self) -> bool {
        self.0 & Variant::EMPTY_AGENT != 0
    }

    /// See [`Variant::BOM_KEPT`].
    pub const fn bom_kept(self) -> bool {
        self.0 & Variant::BOM_KEPT != 0
    }

    /// Stable keys for machine-readable output, one per option set; none
    /// for the base reading.
    pub fn keys(self) -> impl Iterator<Item = &'static str> {
        OPTIONS
            .into_iter()
            .filter(move |(bit, _)| self.0 & bit != 0)
            .map(|(_, key)| key)
    }
}

/// Each option: its bit and its key (`Variant::keys`).
const OPTIONS: [(u8, &str); 6] = [
    (Variant::UNICODE_SPACE, "unicode-space"),
    (Variant::WHOLE_AGENT, "whole-agent"),
    (Variant::LINE_LIMIT, "line-limit"),
    (Variant::RESERVED_ESCAPES, "reserved-escapes"),
    (Variant::EMPTY_AGENT, "empty-agent"),
    (Variant::BOM_KEPT, "bom-kept"),
];
