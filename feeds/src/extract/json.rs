//! JSON Feed 1.0 and 1.1, read as a stream: each item is handed on as
//! soon as it is parsed, and only its `url` (else `external_url`, else an
//! `http(s)` `id`), `title` (plain text by the specification) and dates are
//! ever kept, so a 10 MiB feed of tiny items costs its items.
//!
//! A JSON object is a JSON Feed when its `version` is a
//! `https://jsonfeed.org/version/` URL (or the `http` form early feeds
//! used); anything else is "not a feed". Values of an unexpected type (a
//! numeric `id`, a `null` title) are read as absent, not as an error: one
//! odd item must not lose the feed.

use super::{date, http_url, web_only, Entry, ExtractError};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// What the document was: its format and the number of items read.
pub(super) fn read(
    body: &[u8],
    base: &url::Url,
    sink: &mut dyn FnMut(Entry),
) -> Result<(&'static str, usize), ExtractError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let top = Top { base, sink };
    let (version, entries) = match top.deserialize(&mut de).and_then(|r| de.end().map(|()| r)) {
        Ok(r) => r,
        Err(e) if e.is_data() => {
            return Err(ExtractError::NotAFeed(
                "JSON, but not an object with a JSON Feed version".into(),
            ))
        }
        Err(e) => {
            return Err(ExtractError::Unreadable {
                line: e.line(),
                column: e.column(),
                reason: format!("invalid JSON: {}", strip_position(&e.to_string())),
            })
        }
    };
    match version.as_deref().map(str::trim) {
        Some(v) if v.starts_with("https://jsonfeed.org/version/1.1") => {
            Ok(("JSON Feed 1.1", entries))
        }
        Some(v)
            if v.starts_with("https://jsonfeed.org/version/")
                || v.starts_with("http://jsonfeed.org/version/") =>
        {
            Ok(("JSON Feed 1.0", entries))
        }
        _ => Err(ExtractError::NotAFeed(
            "JSON, but no JSON Feed version (https://jsonfeed.org/version/1.1)".into(),
        )),
    }
}

/// serde_json's message without its " at line L column C", which the
/// error carries as numbers.
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

/// The top-level object: its `version`, and its `items` streamed.
struct Top<'b, 's> {
    base: &'b url::Url,
    sink: &'s mut dyn FnMut(Entry),
}

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = (Option<String>, usize);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = (Option<String>, usize);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Feed object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut version, mut entries) = (None, 0);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "version" => version = map.next_value::<Lenient>()?.0,
                "items" => {
                    entries += map.next_value_seed(Items {
                        base: self.base,
                        sink: &mut *self.sink,
                    })?
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((version, entries))
    }
}

/// The `items` array, each item handed to the sink as it is read.
struct Items<'b, 's> {
    base: &'b url::Url,
    sink: &'s mut dyn FnMut(Entry),
}

impl<'de> DeserializeSeed<'de> for Items<'_, '_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items<'_, '_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of items")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0;
        while let Some(item) = seq.next_element::<Item>()? {
            n += 1;
            (self.sink)(item.entry(self.base));
        }
        Ok(n)
    }
    // `"items": null` or any other non-array: no items.
    fn visit_unit<E>(self) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(0)
    }
    fn visit_str<E>(self, _: &str) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_bool<E>(self, _: bool) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_i64<E>(self, _: i64) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_u64<E>(self, _: u64) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_f64<E>(self, _: f64) -> Result<usize, E> {
        Ok(0)
    }
}

/// The fields of an item we keep; every other is skipped unread.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Item {
    url: Lenient,
    external_url: Lenient,
    id: Lenient,
    title: Lenient,
    date_published: Lenient,
    date_modified: Lenient,
}

impl Item {
    fn entry(self, base: &url::Url) -> Entry {
        let resolve = |s: Option<String>| {
            s.map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .and_then(|s| base.join(&s).ok())
                .and_then(web_only)
        };
        Entry {
            title: self.title.0.unwrap_or_default(),
            link: resolve(self.url.0)
                .or_else(|| resolve(self.external_url.0))
                .or_else(|| self.id.0.as_deref().and_then(http_url)),
            published: self
                .date_published
                .0
                .as_deref()
                .and_then(date::rfc3339)
                .or_else(|| self.date_modified.0.as_deref().and_then(date::rfc3339)),
        }
    }
}

/// A string, or a number read as one; anything else is absent.
#[derive(Default)]
struct Lenient(Option<String>);

impl<'de> serde::Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lenient;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, v: &str) -> Result<Lenient, E> {
                Ok(Lenient(Some(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Lenient, E> {
                Ok(Lenient(Some(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Lenient, E> {
                Ok(Lenient(Some(v.to_string())))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Lenient, E> {
                Ok(Lenient(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Lenient, E> {
                Ok(Lenient(None))
            }
            fn visit_unit<E>(self) -> Result<Lenient, E> {
                Ok(Lenient(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lenient, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lenient, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Lenient(None))
            }
        }
        d.deserialize_any(V)
    }
}
