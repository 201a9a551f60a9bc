//! A target URL parsed once, in the forms the pre-request gate asks for.
//!
//! The spec's "target" is "a single URL the tool has been explicitly
//! configured to fetch"; every gate (R3, R2, R4) reads a different part
//! of it: the host as written (R3, the blocklist's domain match), the
//! origin (R2, whose robots.txt), the path and query (R2, the rules) and
//! the host key (R4, the throttle). Splitting the URL and building those
//! keys at every gate, as the gate once did with `&str` URLs, parsed each
//! admission two or three times; a [`Target`] is split and keyed once and
//! then handed to every gate, and to every step of a fetch that asks again.
//!
//! [`ToTarget`] lets the gate take either a [`Target`] (nothing parsed) or
//! a URL as text (parsed once, at the door).

use crate::gate::{HostKey, Origin};
use crate::url::{Url, UrlError};
use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use core::ops::Range;

/// A URL split and keyed once: the URL as given, its origin (with its host
/// key) and the offsets of the parts the gate reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    url: String,
    origin: Origin,
    /// The host as written (no userinfo, no port), in `url`.
    host: Range<usize>,
    /// The path and query, contiguous as written, in `url`.
    path_and_query: Range<usize>,
    has_fragment: bool,
}

impl Target {
    /// Splits `url` (see [`Url::parse`]) and builds its keys.
    ///
    /// ```
    /// use wr_core::target::Target;
    /// let t = Target::parse("https://Example.COM.:443/a?b#c")?;
    /// assert_eq!(t.origin().as_str(), "https://example.com:443");
    /// assert_eq!(t.host_key().as_str(), "example.com");
    /// assert_eq!(t.path_and_query(), "/a?b");
    /// assert_eq!(t.robots_url(), "https://example.com/robots.txt");
    /// # Ok::<(), wr_core::url::UrlError>(())
    /// ```
    pub fn parse(url: &str) -> Result<Target, UrlError> {
        let parsed = Url::parse(url)?;
        Ok(Target::of(url, &parsed))
    }

    /// The target of `url`, already split as `parsed`.
    fn of(url: &str, parsed: &Url<'_>) -> Target {
        // Every part of `parsed` is a slice of `url`: its offset is where it
        // starts in memory less where `url` starts.
        let span = |part: &str| {
            let start = part.as_ptr() as usize - url.as_ptr() as usize;
            start..start + part.len()
        };
        Target {
            url: url.to_string(),
            origin: Origin::of(parsed),
            host: span(parsed.host),
            path_and_query: span(parsed.path_and_query),
            has_fragment: parsed.fragment.is_some(),
        }
    }

    /// The URL as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `scheme://host:port`, whose robots.txt answers for this target (R2).
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The throttle key (R4).
    pub fn host_key(&self) -> &HostKey {
        self.origin.host()
    }

    /// The host as written, without userinfo and port (R3 matches it
    /// against the blocklist's domains, which normalises it).
    pub fn host(&self) -> &str {
        &self.url[self.host.clone()]
    }

    /// The path and query as written (`""`, `"/a"`, `"?q"`, `"/a?q"`): what
    /// robots.txt rules are matched against (R2).
    pub fn path_and_query(&self) -> &str {
        &self.url[self.path_and_query.clone()]
    }

    /// Whether the URL has a fragment (`#...`).
    pub fn has_fragment(&self) -> bool {
        self.has_fragment
    }

    /// Where this target's robots.txt lives: the origin's scheme and host
    /// key, then `/robots.txt` (the port only when not the default).
    pub fn robots_url(&self) -> String {
        let origin = self.origin.as_str();
        let scheme = origin.split("://").next().unwrap_or(origin);
        alloc::format!("{scheme}://{}/robots.txt", self.host_key())
    }
}

/// What the gate can be asked about: a [`Target`] as it is, or a URL as
/// text, parsed into one at the door (once per question).
pub trait ToTarget {
    /// The target, borrowed when there is one already.
    fn to_target(&self) -> Result<Cow<'_, Target>, UrlError>;
}

impl ToTarget for Target {
    fn to_target(&self) -> Result<Cow<'_, Target>, UrlError> {
        Ok(Cow::Borrowed(self))
    }
}

impl ToTarget for str {
    fn to_target(&self) -> Result<Cow<'_, Target>, UrlError> {
        Target::parse(self).map(Cow::Owned)
    }
}

impl ToTarget for String {
    fn to_target(&self) -> Result<Cow<'_, Target>, UrlError> {
        self.as_str().to_target()
    }
}

impl<T: ToTarget + ?Sized> ToTarget for &T {
    fn to_target(&self) -> Result<Cow<'_, Target>, UrlError> {
        (**self).to_target()
    }
}
