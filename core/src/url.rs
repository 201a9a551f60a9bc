//! A borrowing splitter for absolute `http`/`https` URLs.
//!
//! The core needs only the pieces the contract talks about: scheme, host,
//! port and path+query (R2, R3a, R4, R7). Pulling in a full WHATWG parser
//! would cost `no_std`; the shell still validates user input with the `url`
//! crate before anything reaches the gate, so this splitter only has to be
//! exact on well-formed URLs and refuse (never guess) on anything else.

/// The parts of an absolute URL, borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Url<'a> {
    /// Scheme as written (`HTTP` stays `HTTP`; compare case-insensitively).
    pub scheme: &'a str,
    /// Host as written, without userinfo and port; IPv6 literals keep their brackets.
    pub host: &'a str,
    /// Explicit port, if any.
    pub port: Option<u16>,
    /// Path and query, contiguous as written: `""`, `"/a"`, `"?q"`, `"/a?q"`.
    pub path_and_query: &'a str,
    /// Fragment without `#`, if any.
    pub fragment: Option<&'a str>,
}

/// Why a string is not an absolute http(s) URL the core can reason about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum UrlError {
    /// No `scheme://` prefix.
    #[error("not an absolute URL (expected scheme://host/...)")]
    NotAbsolute,
    /// A scheme other than `http` or `https`.
    #[error("only http and https URLs are supported")]
    UnsupportedScheme,
    /// Empty host, or a host with characters no host can have.
    #[error("missing or malformed host")]
    BadHost,
    /// A port that is not a number in 0..=65535.
    #[error("malformed port")]
    BadPort,
}

impl<'a> Url<'a> {
    /// Splits `input` into its parts.
    ///
    /// ```
    /// use wr_core::url::Url;
    /// let u = Url::parse("https://Example.com:8443/a/b?q=1#frag")?;
    /// assert_eq!((u.host, u.port), ("Example.com", Some(8443)));
    /// assert_eq!(u.path_and_query, "/a/b?q=1");
    /// assert_eq!(u.fragment, Some("frag"));
    /// assert!(Url::parse("ftp://example.com/").is_err());
    /// # Ok::<(), wr_core::url::UrlError>(())
    /// ```
    pub fn parse(input: &'a str) -> Result<Url<'a>, UrlError> {
        #[cfg(test)]
        splits::count();
        let sep = input.find("://").ok_or(UrlError::NotAbsolute)?;
        let scheme = &input[..sep];
        if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
            return Err(UrlError::UnsupportedScheme);
        }
        let rest = &input[sep + 3..];
        let (before_frag, fragment) = match rest.find('#') {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let auth_end = before_frag.find(['/', '?']).unwrap_or(before_frag.len());
        let authority = &before_frag[..auth_end];
        let path_and_query = &before_frag[auth_end..];
        // Userinfo never identifies a host: drop everything up to the last '@'.
        let hostport = match authority.rfind('@') {
            Some(i) => &authority[i + 1..],
            None => authority,
        };
        let (host, port_str) = if hostport.starts_with('[') {
            let close = hostport.find(']').ok_or(UrlError::BadHost)?;
            let after = &hostport[close + 1..];
            match after.strip_prefix(':') {
                Some(p) => (&hostport[..=close], Some(p)),
                None if after.is_empty() => (&hostport[..=close], None),
                None => return Err(UrlError::BadHost),
            }
        } else {
            match hostport.rfind(':') {
                Some(i) => (&hostport[..i], Some(&hostport[i + 1..])),
                None => (hostport, None),
            }
        };
        // An unbracketed `:` left in the host means two ports (`a:b:80`).
        let stray_colon = !host.starts_with('[') && host.contains(':');
        if host.is_empty()
            || stray_colon
            || host
                .bytes()
                .any(|b| b <= b' ' || b"/\\?#@<>\"^`{|}%".contains(&b))
        {
            return Err(UrlError::BadHost);
        }
        let port = match port_str {
            None | Some("") => None,
            Some(p) => {
                if p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(UrlError::BadPort);
                }
                Some(p.parse::<u16>().map_err(|_| UrlError::BadPort)?)
            }
        };
        Ok(Url {
            scheme,
            host,
            port,
            path_and_query,
            fragment,
        })
    }

    /// Whether the scheme is `https` (case-insensitively).
    pub fn is_https(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("https")
    }

    /// The scheme's default port: 443 for https, 80 for http.
    pub fn default_port(&self) -> u16 {
        if self.is_https() {
            443
        } else {
            80
        }
    }

    /// The port a connection goes to.
    pub fn effective_port(&self) -> u16 {
        self.port.unwrap_or(self.default_port())
    }

    /// The explicit port unless it is the scheme's default.
    pub fn non_default_port(&self) -> Option<u16> {
        self.port.filter(|&p| p != self.default_port())
    }
}

/// How many URLs this thread has split (test builds only): the gate's
/// tests count the splits of one admission.
#[cfg(test)]
pub(crate) mod splits {
    extern crate std;
    use core::cell::Cell;

    std::thread_local! {
        static SPLITS: Cell<usize> = const { Cell::new(0) };
    }

    pub(crate) fn count() {
        SPLITS.with(|c| c.set(c.get() + 1));
    }

    /// The splits since the last call.
    pub(crate) fn take() -> usize {
        SPLITS.with(|c| c.replace(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_all_parts() {
        let u = Url::parse("HTTPS://user:pw@Example.COM:8443/a/b?x=1#frag").unwrap();
        assert_eq!(u.scheme, "HTTPS");
        assert_eq!(u.host, "Example.COM");
        assert_eq!(u.port, Some(8443));
        assert_eq!(u.path_and_query, "/a/b?x=1");
        assert_eq!(u.fragment, Some("frag"));
        assert_eq!(u.non_default_port(), Some(8443));
    }

    #[test]
    fn query_without_path_and_ipv6() {
        let u = Url::parse("http://[::1]:80?q").unwrap();
        assert_eq!(u.host, "[::1]");
        assert_eq!(u.port, Some(80));
        assert_eq!(u.non_default_port(), None);
        assert_eq!(u.path_and_query, "?q");
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert_eq!(Url::parse("example.com/a"), Err(UrlError::NotAbsolute));
        assert_eq!(Url::parse("ftp://x/"), Err(UrlError::UnsupportedScheme));
        assert_eq!(Url::parse("http:///a"), Err(UrlError::BadHost));
        assert_eq!(Url::parse("http://a:99999/"), Err(UrlError::BadPort));
        assert_eq!(Url::parse("http://a b/"), Err(UrlError::BadHost));
        assert_eq!(Url::parse("http://a:b:80/"), Err(UrlError::BadHost));
        assert_eq!(Url::parse("http://::?"), Err(UrlError::BadHost));
    }
}
