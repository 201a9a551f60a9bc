//! Blocklist host matching (R3a), without allocating.
//!
//! R3: "host `H` is blocked by domain `D` iff `H = D` or `H` ends with
//! `"." + D`", matched case-insensitively with the port stripped, so
//! `example.com` blocks `www.example.com` but not `notexample.com` or
//! `example.com.evil.test` (section 12.3). The label boundary (the `.`) is
//! what keeps the suffix test from over- or under-matching.
//!
//! Choices where the spec is silent:
//!
//! * The same normalisation is applied to both sides: a port is stripped
//!   (`host:8080`, `[v6]:8080`), IPv6 brackets are removed (`[::1]` and
//!   `::1` are the same host; a bare IPv6 address keeps its colons), and
//!   every trailing dot is ignored ([`strip_trailing_dots`]). Stripping a
//!   port from the *domain* too means a
//!   listed `example.com:8080` blocks every port of `example.com`: an opt-out
//!   names a site, and over-blocking is the safe direction for an opt-out.
//! * An empty domain (also `.`) never matches: it would otherwise block
//!   everything, which no operator means by an empty entry.
//! * Case folding is ASCII only. Internationalised names must reach this
//!   function in one form on both sides; the shell's URL parser produces
//!   A-labels (`xn--...`), so the blocklist should list A-labels too.

/// `host` without any trailing dot: the one spelling of a host that every
/// host comparison of the bot uses (R3's blocklist match, R4's throttle
/// key, RFC 9309's robots.txt origin, the operator's section 5 origin).
///
/// `example.com.` is the fully-qualified spelling of `example.com`, and a
/// resolver that accepts `example.com..` reaches the same server. Stripping
/// one dot made `example.com..` a different host for R3 (not blocked) than
/// for R4 and robots.txt (the same host): a host that is the same for one
/// comparison is the same for all, and for R3 the wider reading is the one
/// that blocks more, for R4 the one that spaces more (issue #18).
///
/// ```
/// use wr_core::domain::strip_trailing_dots;
/// assert_eq!(strip_trailing_dots("example.com.."), "example.com");
/// assert_eq!(strip_trailing_dots("..."), "");
/// ```
pub fn strip_trailing_dots(host: &str) -> &str {
    host.trim_end_matches('.')
}

/// `host` without its port, IPv6 brackets and trailing dots.
///
/// `Example.COM.:8080` → `Example.COM`, `a.test..` → `a.test`,
/// `[::1]:443` → `::1`, `::1` → `::1`.
pub fn normalize_host(host: &str) -> &str {
    let bare = if let Some(inner) = host.strip_prefix('[') {
        // `[v6]` or `[v6]:port`; without a `]` it is not a bracketed literal.
        match inner.find(']') {
            Some(close) => inner.get(..close).unwrap_or(inner),
            None => host,
        }
    } else {
        match host.split_once(':') {
            // Exactly one colon is a port; more is a bare IPv6 address.
            Some((h, port)) if !port.contains(':') => h,
            _ => host,
        }
    };
    strip_trailing_dots(bare)
}

/// Whether `host` is `domain` or a subdomain of it (R3a): case-insensitive,
/// ports and trailing dots ignored on both sides; an empty domain never
/// matches.
///
/// ```
/// use wr_core::domain::host_matches_domain;
/// assert!(host_matches_domain("news.Example.com.:8443", "example.com"));
/// assert!(!host_matches_domain("badexample.com", "example.com"));
/// assert!(!host_matches_domain("example.com", ""));
/// ```
pub fn host_matches_domain(host: &str, domain: &str) -> bool {
    let h = normalize_host(host).as_bytes();
    let d = normalize_host(domain).as_bytes();
    if d.is_empty() {
        return false;
    }
    match h.len().checked_sub(d.len()) {
        Some(0) => h.eq_ignore_ascii_case(d),
        Some(boundary) => {
            // `boundary >= 1` here, so `boundary - 1` is in range.
            h.get(boundary - 1) == Some(&b'.')
                && h.get(boundary..)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(d))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_12_3_vectors() {
        for (host, blocked) in [
            ("example.com", true),
            ("www.example.com", true),
            ("a.b.example.com", true),
            ("EXAMPLE.COM", true),
            ("notexample.com", false),
            ("example.com.evil.test", false),
            ("example.org", false),
        ] {
            assert_eq!(host_matches_domain(host, "example.com"), blocked, "{host}");
        }
    }

    #[test]
    fn ports_and_trailing_dots_are_ignored() {
        assert!(host_matches_domain("www.example.com:8080", "example.com"));
        assert!(host_matches_domain("example.com.", "example.com"));
        assert!(host_matches_domain("www.example.com.:443", "EXAMPLE.com."));
        assert!(host_matches_domain("example.com", "example.com:8080"));
        assert!(!host_matches_domain("notexample.com:80", "example.com"));
    }

    /// Issue #18: every trailing dot, as R4's throttle key and the robots.txt
    /// origin strip them; `example.com..` was not blocked while it shared
    /// `example.com`'s throttle key and robots.txt.
    #[test]
    fn every_trailing_dot_is_ignored_on_both_sides() {
        for host in [
            "example.com..",
            "example.com...",
            "www.example.com..:8080",
            "WWW.EXAMPLE.COM...:443",
        ] {
            assert!(host_matches_domain(host, "example.com"), "{host}");
        }
        assert!(host_matches_domain("example.com", "example.com.."));
        assert!(host_matches_domain("a.example.com.", "example.com..:80"));
        assert!(!host_matches_domain("notexample.com..", "example.com"));
        assert!(!host_matches_domain(
            "example.com..evil.test",
            "example.com"
        ));
        // Dots alone are no domain and no host.
        assert!(!host_matches_domain("...", "..."));
        assert!(!host_matches_domain("example.com", "..:80"));
    }

    #[test]
    fn ip_literals() {
        assert!(host_matches_domain("[::1]", "::1"));
        assert!(host_matches_domain("[::1]:8080", "[::1]"));
        assert!(host_matches_domain("::1", "::1"));
        assert!(!host_matches_domain("[::1]", "1"));
        assert!(host_matches_domain("192.0.2.1:80", "192.0.2.1"));
        assert!(!host_matches_domain("192.0.2.10", "192.0.2.1"));
    }

    #[test]
    fn empty_domain_never_matches() {
        for host in ["", ".", "example.com", "a.b"] {
            assert!(!host_matches_domain(host, ""), "{host}");
            assert!(!host_matches_domain(host, "."), "{host}");
        }
        assert!(!host_matches_domain("", "example.com"));
        assert!(!host_matches_domain(".example.com", "..example.com"));
    }

    #[test]
    fn non_ascii_never_panics() {
        assert!(!host_matches_domain("ü.example.co", "xample.com"));
        assert!(host_matches_domain("ü.example.com", "example.com"));
        assert!(!host_matches_domain("éxample.com", "xample.com"));
        assert!(host_matches_domain("Bücher.de", "bücher.de"));
        assert!(!host_matches_domain("BÜCHER.de", "bücher.de"));
    }

    #[test]
    fn normalisation() {
        assert_eq!(normalize_host("Example.COM.:8080"), "Example.COM");
        assert_eq!(normalize_host("[::1]:443"), "::1");
        assert_eq!(normalize_host("[::1"), "[::1");
        assert_eq!(normalize_host("::1"), "::1");
        assert_eq!(normalize_host("a:"), "a");
        assert_eq!(normalize_host("."), "");
        assert_eq!(normalize_host(".."), "");
        assert_eq!(normalize_host("a.test..:8080"), "a.test");
    }
}
