//! Filters: `[filters]` (every source) and a source's own `keep` / `drop`,
//! lists of regular expressions tried on each item's title and URL.
//!
//! Why regular expressions, and why the `regex` crate: readers of feed
//! trackers ask for "drop anything with `sponsored` in the title" and "only
//! `/rust/` URLs" in one syntax; `regex` matches in time linear in the text
//! whatever the pattern (no backtracking, so a pattern from a config file
//! cannot hang a run on a hostile title), and is already built for the
//! JSON Schema validator.
//!
//! Patterns are case-insensitive unless they say otherwise (`(?-i)`): a
//! title's capitals are the publisher's style, not its meaning.
//!
//! The rules, in this order, for each item of a source:
//! 1. the global `drop` patterns, then the source's: the first that matches
//!    the title or the URL drops the item, and is counted;
//! 2. the global `keep` list, then the source's: a list that is not empty
//!    and none of whose patterns matches drops the item; the list is
//!    counted as one filter.
//!
//! Filters choose what a digest lists, not what is fetched or remembered:
//! every item is still recorded (and marked delivered), so a later change
//! of filters never brings back old items as new.

use serde::Serialize;

/// The largest compiled pattern accepted (the `regex` crate's own limit is
/// 10 MiB; a digest's filter needs far less, and a bigger one is a typo
/// such as `\w{1000}{1000}`).
const SIZE_LIMIT: usize = 1 << 20;

/// One compiled pattern and the text the user wrote.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// As written in sources.toml.
    pub text: String,
    re: regex::Regex,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.text == other.text
    }
}

impl Eq for Pattern {}

impl Pattern {
    /// Compiles `text`, case-insensitive; the error is one line, in words.
    pub fn new(text: &str) -> Result<Pattern, String> {
        let re = regex::RegexBuilder::new(text)
            .case_insensitive(true)
            .size_limit(SIZE_LIMIT)
            .build()
            .map_err(|e| {
                let why = match &e {
                    // The syntax error's last line says what is wrong; the
                    // lines above it repeat the pattern with a caret.
                    regex::Error::Syntax(s) => s
                        .lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or(s)
                        .trim()
                        .trim_start_matches("error: ")
                        .to_string(),
                    regex::Error::CompiledTooBig(_) => {
                        format!("it compiles to more than {SIZE_LIMIT} bytes")
                    }
                    other => other.to_string(),
                };
                format!("bad filter pattern `{text}`: {why}")
            })?;
        Ok(Pattern {
            text: text.to_string(),
            re,
        })
    }

    /// Whether the pattern occurs in the title or in the URL.
    pub fn matches(&self, title: &str, url: &str) -> bool {
        self.re.is_match(title) || self.re.is_match(url)
    }
}

/// One level of filters: `[filters]`, or a source's `keep` / `drop`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// An item must match one of these (when there are any).
    pub keep: Vec<Pattern>,
    /// An item matching any of these is left out.
    pub drop: Vec<Pattern>,
}

/// Where a filter was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// `[filters]`.
    Global,
    /// The source's own `keep` / `drop`.
    Source,
}

/// What one filter did to one source's items in a digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FilterCount {
    /// `drop` (one pattern) or `keep` (a whole list).
    pub filter: &'static str,
    /// Where it is written.
    pub scope: Scope,
    /// The pattern; for `keep`, the list's patterns.
    pub patterns: Vec<String>,
    /// Items it left out of the digest.
    pub dropped: usize,
}

impl FilterCount {
    /// `drop /sponsored/ ([filters]): 2`, for the Markdown digest.
    pub fn describe(&self) -> String {
        let pats: Vec<String> = self.patterns.iter().map(|p| format!("/{p}/")).collect();
        let what = match self.filter {
            "keep" => format!("keep {}", pats.join(" or ")),
            _ => format!("drop {}", pats.join(" ")),
        };
        let scope = match self.scope {
            Scope::Global => "[filters]",
            Scope::Source => "this source",
        };
        format!("{what} ({scope}): {}", self.dropped)
    }
}

/// Splits `items` into those the filters keep (returned, in order) and the
/// count of each filter, given the global level then the source's.
pub fn apply<T>(
    items: Vec<T>,
    levels: [(&Filters, Scope); 2],
    title_url: impl Fn(&T) -> (&str, &str),
) -> (Vec<T>, Vec<FilterCount>) {
    let mut counts: Vec<FilterCount> = Vec::new();
    // (level, is_keep, pattern index or list) -> slot in `counts`, in the
    // order the rules are tried.
    let mut rules: Vec<(usize, Option<usize>)> = Vec::new();
    for (l, (f, scope)) in levels.iter().enumerate() {
        for (i, p) in f.drop.iter().enumerate() {
            counts.push(FilterCount {
                filter: "drop",
                scope: *scope,
                patterns: vec![p.text.clone()],
                dropped: 0,
            });
            rules.push((l, Some(i)));
        }
    }
    for (l, (f, scope)) in levels.iter().enumerate() {
        if !f.keep.is_empty() {
            counts.push(FilterCount {
                filter: "keep",
                scope: *scope,
                patterns: f.keep.iter().map(|p| p.text.clone()).collect(),
                dropped: 0,
            });
            rules.push((l, None));
        }
    }
    if rules.is_empty() {
        return (items, counts);
    }
    let mut kept = Vec::with_capacity(items.len());
    for item in items {
        let (title, url) = title_url(&item);
        let dropped_by = rules.iter().position(|&(l, rule)| {
            let f = levels[l].0;
            match rule {
                Some(i) => f.drop[i].matches(title, url),
                None => !f.keep.iter().any(|p| p.matches(title, url)),
            }
        });
        match dropped_by {
            Some(slot) => counts[slot].dropped += 1,
            None => kept.push(item),
        }
    }
    (kept, counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(keep: &[&str], drop: &[&str]) -> Filters {
        Filters {
            keep: keep.iter().map(|p| Pattern::new(p).unwrap()).collect(),
            drop: drop.iter().map(|p| Pattern::new(p).unwrap()).collect(),
        }
    }

    fn run(global: &Filters, own: &Filters, items: &[(&str, &str)]) -> (Vec<String>, Vec<usize>) {
        let items: Vec<(String, String)> = items
            .iter()
            .map(|(t, u)| (t.to_string(), u.to_string()))
            .collect();
        let (kept, counts) = apply(
            items,
            [(global, Scope::Global), (own, Scope::Source)],
            |(t, u)| (t.as_str(), u.as_str()),
        );
        (
            kept.into_iter().map(|(t, _)| t).collect(),
            counts.iter().map(|c| c.dropped).collect(),
        )
    }

    #[test]
    fn drop_then_keep_on_title_and_url_case_insensitive() {
        let items = [
            ("Sponsored: buy", "https://a.example/1"),
            ("Rust 2.0", "https://a.example/2"),
            ("Go news", "https://a.example/rust/3"),
            ("Python", "https://a.example/4"),
            ("RUST podcast", "https://a.example/5"),
        ];
        let global = f(&[], &["sponsored"]);
        let own = f(&["rust"], &["podcast"]);
        let (kept, counts) = run(&global, &own, &items);
        assert_eq!(kept, ["Rust 2.0", "Go news"]);
        // drop /sponsored/ (global), drop /podcast/ (source), keep (source).
        assert_eq!(counts, [1, 1, 1]);
    }

    #[test]
    fn case_sensitivity_can_be_asked_for() {
        let own = f(&[], &["(?-i)^AD:"]);
        let (kept, counts) = run(
            &Filters::default(),
            &own,
            &[("AD: x", "https://a/1"), ("ad: lower", "https://a/2")],
        );
        assert_eq!(kept, ["ad: lower"]);
        assert_eq!(counts, [1]);
    }

    #[test]
    fn no_filters_keep_everything() {
        let (kept, counts) = run(
            &Filters::default(),
            &Filters::default(),
            &[("a", "https://a/1")],
        );
        assert_eq!(kept, ["a"]);
        assert!(counts.is_empty());
    }

    #[test]
    fn a_bad_pattern_says_why_in_one_line() {
        let e = Pattern::new("(unclosed").unwrap_err();
        assert!(e.starts_with("bad filter pattern `(unclosed`: "), "{e}");
        assert!(e.contains("unclosed group"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = Pattern::new("\\w{1000}{1000}").unwrap_err();
        assert!(e.contains("bad filter pattern"), "{e}");
    }
}
