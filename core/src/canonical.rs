//! The canonical URL key for de-duplication (R7, section 10.2).
//!
//! R7 asks that results be de-duplicated by one key, built exactly so:
//! lower-case scheme and host; drop the scheme's default port (80/443);
//! remove the fragment; an empty path becomes `/`, otherwise a single
//! trailing `/` is stripped (never reducing `/` to empty); the query string
//! is kept verbatim. Canonical string: `scheme://host[:port]path[?query]`.
//! Section 12.4 has the vectors. The key is written to any `fmt::Write`, so
//! it needs no allocator; [`canonical_url`] is the owned convenience.
//!
//! Choices where the spec is silent:
//!
//! * Userinfo is dropped: it never identifies a different resource, and a
//!   key must not carry credentials into logs or a database.
//! * Exactly one trailing `/` is stripped, as written: `/a//` becomes `/a/`.
//!   So the key is not idempotent for paths ending in `//` (a second pass
//!   would strip again); every other key maps to itself.
//! * A present but empty query (`/a?`) keeps its `?`: "verbatim" means the
//!   query is not interpreted, and `/a?` and `/a` are different URLs.
//! * Nothing else is normalised: no percent-encoding case folding or
//!   decoding, no dot-segment removal, no trailing-dot removal in the host,
//!   and non-ASCII host characters are left as they are (the shell hands
//!   the core punycode hosts). Only ASCII letters are lower-cased.
//! * Parsing is [`crate::url::Url`]'s: only absolute http(s) URLs have a
//!   key; anything else is an error rather than a guess.

use core::fmt;

use crate::url::{Url, UrlError};

/// Why no canonical key could be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// The input is not an absolute http(s) URL.
    #[error("cannot canonicalise URL: {0}")]
    Url(#[source] UrlError),
    /// The output writer failed.
    #[error("writing the canonical URL failed")]
    Write,
}

impl From<UrlError> for CanonicalError {
    fn from(e: UrlError) -> Self {
        CanonicalError::Url(e)
    }
}

impl From<fmt::Error> for CanonicalError {
    fn from(_: fmt::Error) -> Self {
        CanonicalError::Write
    }
}

/// Writes `s` with ASCII letters lower-cased, in as few writes as possible.
fn write_lower(out: &mut impl fmt::Write, s: &str) -> fmt::Result {
    let mut rest = s;
    while let Some(i) = rest.find(|c: char| c.is_ascii_uppercase()) {
        let (head, tail) = rest.split_at(i);
        out.write_str(head)?;
        let mut chars = tail.chars();
        if let Some(c) = chars.next() {
            out.write_char(c.to_ascii_lowercase())?;
        }
        rest = chars.as_str();
    }
    out.write_str(rest)
}

/// Writes the R7 canonical key of `url` to `out`.
pub fn write_canonical(url: &str, out: &mut impl fmt::Write) -> Result<(), CanonicalError> {
    let u = Url::parse(url)?;
    // `Url::parse` splits the port at the last ':', so `http://a:b:80/`
    // yields host `a:b`. No reg-name or IPv4 host has a ':', and such a key
    // would not parse back to itself, so it is refused here.
    if !u.host.starts_with('[') && u.host.contains(':') {
        return Err(CanonicalError::Url(UrlError::BadHost));
    }
    out.write_str(if u.is_https() { "https://" } else { "http://" })?;
    write_lower(out, u.host)?;
    if let Some(port) = u.non_default_port() {
        write!(out, ":{port}")?;
    }
    let (path, query) = match u.path_and_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (u.path_and_query, None),
    };
    let path = match path {
        "" => "/",
        "/" => "/",
        p => p.strip_suffix('/').unwrap_or(p),
    };
    out.write_str(path)?;
    if let Some(q) = query {
        out.write_char('?')?;
        out.write_str(q)?;
    }
    Ok(())
}

/// The R7 canonical key of `url`, owned.
///
/// ```
/// use wr_core::canonical::canonical_url;
/// // Scheme and host in lower case, default port and fragment dropped.
/// let a = canonical_url("HTTPS://Example.COM:443/a?b=1#top")?;
/// let b = canonical_url("https://example.com/a?b=1")?;
/// assert_eq!(a, b);
/// # Ok::<(), wr_core::canonical::CanonicalError>(())
/// ```
#[cfg(feature = "alloc")]
pub fn canonical_url(url: &str) -> Result<alloc::string::String, CanonicalError> {
    let mut s = alloc::string::String::with_capacity(url.len() + 1);
    write_canonical(url, &mut s)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::string::String;

    fn key(url: &str) -> Result<String, CanonicalError> {
        let mut s = String::new();
        write_canonical(url, &mut s).map(|()| s)
    }

    #[test]
    fn section_12_4_vectors() {
        for (input, want) in [
            ("HTTP://Example.com/Path/", "http://example.com/Path"),
            ("https://x.test:443/a#frag", "https://x.test/a"),
            ("http://x.test:80/", "http://x.test/"),
            ("https://x.test", "https://x.test/"),
            ("https://x.test/a/?q=1#f", "https://x.test/a?q=1"),
            ("https://x.test/a?b=2&a=1", "https://x.test/a?b=2&a=1"),
        ] {
            assert_eq!(key(input).as_deref(), Ok(want), "{input}");
        }
    }

    #[test]
    fn ports() {
        assert_eq!(key("http://x.test:443/").unwrap(), "http://x.test:443/");
        assert_eq!(key("https://x.test:80/").unwrap(), "https://x.test:80/");
        assert_eq!(key("https://x.test:0443/").unwrap(), "https://x.test/");
        assert_eq!(key("http://x.test:/a").unwrap(), "http://x.test/a");
        assert_eq!(key("HTTP://[::1]:8080/").unwrap(), "http://[::1]:8080/");
        assert_eq!(key("http://[FE80::1]:80").unwrap(), "http://[fe80::1]/");
    }

    #[test]
    fn paths_and_queries() {
        assert_eq!(key("https://x.test/").unwrap(), "https://x.test/");
        assert_eq!(key("https://x.test/a//").unwrap(), "https://x.test/a/");
        assert_eq!(key("https://x.test//").unwrap(), "https://x.test/");
        assert_eq!(key("https://x.test?q").unwrap(), "https://x.test/?q");
        assert_eq!(key("https://x.test/?q").unwrap(), "https://x.test/?q");
        assert_eq!(key("https://x.test/a?").unwrap(), "https://x.test/a?");
        assert_eq!(
            key("https://x.test/a/?x=/&y=/").unwrap(),
            "https://x.test/a?x=/&y=/"
        );
        assert_eq!(
            key("https://x.test/A%2f/?Q=%2F").unwrap(),
            "https://x.test/A%2f?Q=%2F"
        );
        assert_eq!(key("https://x.test#").unwrap(), "https://x.test/");
        assert_eq!(key("https://x.test/a?q#f?g").unwrap(), "https://x.test/a?q");
    }

    #[test]
    fn userinfo_is_dropped_and_host_lowercased() {
        assert_eq!(key("https://User:Pw@X.Test/a").unwrap(), "https://x.test/a");
        assert_eq!(key("https://X.TEST./").unwrap(), "https://x.test./");
        assert_eq!(key("https://BÜCHER.de/").unwrap(), "https://bÜcher.de/");
    }

    #[test]
    fn refuses_non_http_urls() {
        assert_eq!(
            key("ftp://x.test/"),
            Err(CanonicalError::Url(UrlError::UnsupportedScheme))
        );
        assert_eq!(
            key("x.test/a"),
            Err(CanonicalError::Url(UrlError::NotAbsolute))
        );
        for bad in ["https:///a", "http://::?", "http://a:b:80/"] {
            assert_eq!(
                key(bad),
                Err(CanonicalError::Url(UrlError::BadHost)),
                "{bad}"
            );
        }
    }

    #[test]
    fn writer_failure_is_reported() {
        struct Full;
        impl fmt::Write for Full {
            fn write_str(&mut self, _: &str) -> fmt::Result {
                Err(fmt::Error)
            }
        }
        assert_eq!(
            write_canonical("https://x.test/", &mut Full),
            Err(CanonicalError::Write)
        );
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn owned_form_matches() {
        assert_eq!(
            canonical_url("HTTP://Example.com/Path/").as_deref(),
            Ok("http://example.com/Path")
        );
    }
}
