//! Shared inputs for the `wr-benches` benchmarks: the real-world robots.txt
//! corpus (with a built-in fallback), typical request paths, adversarial
//! inputs, and the virtual-clock scheduling simulation ([`sched`]).
//!
//! See `docs/performance.md` for what each benchmark measures and the figures.

pub mod sched;

use std::path::PathBuf;
use std::time::Duration;

/// The product token every benchmark asks about.
pub const TOKEN: &str = "Walsh-Research";

/// Measurement time per benchmark (kept short so a full `cargo bench -p
/// wr-benches` finishes in a few minutes on 2 cores).
pub const MEASURE: Duration = Duration::from_secs(2);
/// Warm-up time per benchmark.
pub const WARM_UP: Duration = Duration::from_millis(500);

/// One robots.txt file.
#[derive(Clone)]
pub struct Body {
    /// File name (the host it came from).
    pub name: String,
    /// Octets as served.
    pub bytes: Vec<u8>,
    /// Lossy UTF-8 text, prepared once outside the timed loops for
    /// `robotstxt`, whose API takes `&str` (this conversion is *not* counted
    /// in its times, which favours it slightly on non-UTF-8 files).
    pub text: String,
}

impl Body {
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Body {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Body {
            name: name.into(),
            bytes,
            text,
        }
    }

    /// Number of `Allow:`/`Disallow:` lines (rough, case-insensitive).
    pub fn rule_lines(&self) -> usize {
        self.bytes
            .split(|&b| b == b'\n')
            .filter(|l| {
                let l: Vec<u8> = l
                    .iter()
                    .skip_while(|b| b.is_ascii_whitespace())
                    .take(9)
                    .map(|b| b.to_ascii_lowercase())
                    .collect();
                l.starts_with(b"allow") || l.starts_with(b"disallow")
            })
            .count()
    }
}

/// Where the corpus is looked for: `$WR_CORPUS_DIR`, else
/// `<workspace>/../shared/corpus/robots-real-world`.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("WR_CORPUS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/corpus/robots-real-world"
        )),
    }
}

/// The corpus, sorted by file name; `None` (after printing why) when the
/// directory is absent or empty, so callers fall back to [`builtin`].
pub fn corpus() -> Option<Vec<Body>> {
    let dir = corpus_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "wr-benches: SKIPPING the real-world corpus: cannot read {} ({e}); \
                 figures are NOT comparable with the corpus' rows of docs/performance.md",
                dir.display()
            );
            return None;
        }
    };
    let mut bodies: Vec<Body> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            Some(Body::new(e.file_name().to_string_lossy(), bytes))
        })
        .collect();
    if bodies.is_empty() {
        eprintln!(
            "wr-benches: SKIPPING the real-world corpus: {} is empty",
            dir.display()
        );
        return None;
    }
    bodies.sort_by(|a, b| a.name.cmp(&b.name));
    Some(bodies)
}

/// The in-repo slice of the corpus (`benches/data/robots-slice/`, 400
/// real files chosen to keep the corpus' size distribution; see its
/// README), sorted by file name.
pub fn slice() -> Option<Vec<Body>> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data/robots-slice"));
    let mut bodies: Vec<Body> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name() != "README.md")
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            Some(Body::new(e.file_name().to_string_lossy(), bytes))
        })
        .collect();
    bodies.sort_by(|a, b| a.name.cmp(&b.name));
    (!bodies.is_empty()).then_some(bodies)
}

/// The corpus; else the in-repo slice (saying so); else the built-in
/// inputs. The flag is `true` for the full corpus only.
pub fn corpus_or_builtin() -> (Vec<Body>, bool) {
    match corpus() {
        Some(c) => (c, true),
        None => match slice() {
            Some(s) => {
                eprintln!(
                    "wr-benches: using the in-repo slice instead ({} real files, \
                     benches/data/robots-slice; figures compare with the slice's rows \
                     of docs/performance.md, not the corpus')",
                    s.len()
                );
                (s, false)
            }
            None => (builtin(), false),
        },
    }
}

/// Small built-in robots.txt files, used when the corpus is absent.
pub fn builtin() -> Vec<Body> {
    let small = "User-agent: *\nDisallow: /private/\nAllow: /private/public\nCrawl-delay: 2\n\
                 Sitemap: https://example.com/sitemap.xml\n";
    let mut medium =
        String::from("# built-in medium file\nUser-agent: Googlebot\nDisallow: /nogoogle\n\n");
    medium.push_str("User-agent: Walsh-Research\nUser-agent: *\nCrawl-delay: 1\n");
    for i in 0..200 {
        medium.push_str(&format!(
            "Disallow: /section{i}/*.php$\nAllow: /section{i}/public/\n"
        ));
    }
    let mut large = String::from("User-agent: *\n");
    for i in 0..5000 {
        large.push_str(&format!(
            "Disallow: /{}/{i}/*?sessionid=\nAllow: /{}/{i}/index.html$\n",
            ["docs", "cd", "api", "en", "search"][i % 5],
            ["docs", "cd", "api", "en", "search"][(i + 1) % 5]
        ));
    }
    vec![
        Body::new("builtin-small", small.as_bytes().to_vec()),
        Body::new("builtin-medium", medium.into_bytes()),
        Body::new("builtin-large", large.into_bytes()),
    ]
}

/// The `n` largest files by size, largest first.
pub fn largest(bodies: &[Body], n: usize) -> Vec<Body> {
    let mut v: Vec<&Body> = bodies.iter().collect();
    v.sort_by(|a, b| b.bytes.len().cmp(&a.bytes.len()).then(a.name.cmp(&b.name)));
    v.into_iter().take(n).cloned().collect()
}

/// Files at the median, 90th and 99th percentile and maximum of rule
/// count (deduplicated), labelled `p50`, `p90`, `p99`, `max`.
pub fn by_rule_percentile(bodies: &[Body]) -> Vec<(&'static str, Body)> {
    let mut v: Vec<(usize, &Body)> = bodies.iter().map(|b| (b.rule_lines(), b)).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.name.cmp(&b.1.name)));
    let n = v.len();
    let mut out: Vec<(&'static str, Body)> = Vec::new();
    for (label, idx) in [
        ("p50", n / 2),
        ("p90", n * 9 / 10),
        ("p99", n * 99 / 100),
        ("max", n - 1),
    ] {
        let b = v[idx.min(n - 1)].1;
        if !out.iter().any(|(_, o)| o.name == b.name) {
            out.push((label, b.clone()));
        }
    }
    out
}

/// Typical request targets of a feed bot: site pages, feeds, queries,
/// percent-encoded and long-ish paths.
pub const TYPICAL_PATHS: &[&str] = &[
    "/",
    "/index.html",
    "/about",
    "/feed.xml",
    "/rss",
    "/blog/feed/",
    "/sitemap.xml",
    "/blog/2024/05/17/a-reasonably-long-article-title-with-words",
    "/news/world/europe/article-12345678.html?utm_source=rss&utm_medium=feed",
    "/search?q=rust+robots&page=2",
    "/products/12345?ref=home",
    "/wp-admin/admin-ajax.php",
    "/wp-content/uploads/2023/01/image.jpg",
    "/user/login?destination=/node/1",
    "/static/js/app.3f2a1b9c.js",
    "/category/news/page/2/",
    "/tag/open-source",
    "/api/v1/items?limit=50&offset=100",
    "/de/produkte/schuhe-und-stiefel",
    "/%E6%97%A5%E6%9C%AC%E8%AA%9E/page",
];

/// [`TYPICAL_PATHS`] plus up to 20 paths built from the file's own rules
/// (wildcards and anchors stripped, a suffix added), so that some queries
/// hit rules deep in the file.
pub fn paths_for(body: &Body) -> Vec<String> {
    let mut out: Vec<String> = TYPICAL_PATHS.iter().map(|s| s.to_string()).collect();
    let rules: Vec<String> = body
        .text
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let lower = l.to_ascii_lowercase();
            let v = if lower.starts_with("disallow:") {
                &l[9..]
            } else if lower.starts_with("allow:") {
                &l[6..]
            } else {
                return None;
            };
            let v = v.split('#').next().unwrap_or("").trim();
            if !v.starts_with('/') || !v.is_ascii() {
                return None;
            }
            Some(v.replace(['*', '$'], "x"))
        })
        .collect();
    if !rules.is_empty() {
        let step = (rules.len() / 20).max(1);
        for r in rules.iter().step_by(step).take(20) {
            out.push(format!("{r}/page.html?id=7"));
        }
    }
    out
}

/// The five paths each corpus policy is asked about in the per-check mean
/// over the whole corpus (issue #24): three of [`TYPICAL_PATHS`] (the root,
/// a feed, a long path with a query) and two built from the file's own
/// rules when it has any (else two more typical ones), so that every file
/// is asked about both what a feed bot wants and what the file names.
pub fn five_paths(body: &Body) -> [String; 5] {
    let all = paths_for(body);
    let own = &all[TYPICAL_PATHS.len()..];
    let pick = |i: usize, fallback: usize| {
        own.get(i)
            .cloned()
            .unwrap_or_else(|| TYPICAL_PATHS[fallback].to_string())
    };
    [
        TYPICAL_PATHS[0].to_string(),
        TYPICAL_PATHS[3].to_string(),
        TYPICAL_PATHS[8].to_string(),
        pick(0, 13),
        // The middle one of the file's own (a second one, never the first again).
        pick(
            if own.len() >= 2 {
                own.len() / 2
            } else {
                usize::MAX
            },
            18,
        ),
    ]
}

/// One adversarial case: a robots.txt body and the path asked about.
pub struct Adversarial {
    /// Short name for the benchmark id.
    pub name: String,
    pub body: Body,
    pub path: String,
}

/// The adversarial cases at "full" size (`scale` = 1.0) or scaled down for
/// the peers (`scale` < 1.0 shrinks the star counts, path lengths and rule
/// counts proportionally).
pub fn adversarial(scale: f64) -> Vec<Adversarial> {
    let s = |n: usize| ((n as f64 * scale).round() as usize).max(1);
    let mut out = Vec::new();

    // 1. One rule of 1,000 `*` against an 8,000-byte path that (almost)
    //    matches: the classic backtracking killer.
    {
        let stars = s(1000);
        let len = s(8000);
        let mut rule = String::from("/");
        for _ in 0..stars {
            rule.push_str("*a");
        }
        rule.push_str("b$");
        let body = format!("User-agent: *\nDisallow: {rule}\n");
        let path = format!("/{}", "a".repeat(len));
        out.push(Adversarial {
            name: format!("stars{stars}_path{len}"),
            body: Body::new("adv-stars", body.into_bytes()),
            path,
        });
    }
    // 2. Many `*`-rules: 1,000 rules of 10 stars each, 8 KB path.
    {
        let rules = s(1000);
        let len = s(8000);
        let mut body = String::from("User-agent: *\n");
        for i in 0..rules {
            body.push_str(&format!("Disallow: /*a*a*a*a*a*a*a*a*a*{i}z\n"));
        }
        let path = format!("/{}", "a".repeat(len));
        out.push(Adversarial {
            name: format!("rules{rules}x10stars_path{len}"),
            body: Body::new("adv-many-stars", body.into_bytes()),
            path,
        });
    }
    // 3. Long `$` rules: 100 rules of 4 KB ending in `$`, 8 KB path sharing
    //    their prefix.
    {
        let rules = s(100);
        let rlen = s(4000);
        let len = s(8000);
        let mut body = String::from("User-agent: *\n");
        for i in 0..rules {
            body.push_str(&format!("Disallow: /{}{i}$\n", "a".repeat(rlen)));
        }
        let path = format!("/{}", "a".repeat(len));
        out.push(Adversarial {
            name: format!("rules{rules}x{rlen}B_dollar_path{len}"),
            body: Body::new("adv-dollar", body.into_bytes()),
            path,
        });
    }
    // 4. An 8 KB path against a realistic rule set.
    {
        let len = s(8000);
        let mut body = String::from("User-agent: *\n");
        for i in 0..200 {
            body.push_str(&format!("Disallow: /dir{i}/*.php$\nAllow: /dir{i}/pub*\n"));
        }
        let path = format!("/dir199/{}", "x/".repeat(len / 2));
        out.push(Adversarial {
            name: format!("typical_rules_path{len}"),
            body: Body::new("adv-long-path", body.into_bytes()),
            path,
        });
    }
    // 5. Case 2 with a path that needs percent-normalising (one escape at
    //    the end) and is over 8 KiB: the evaluator cannot match it as is.
    {
        let rules = s(1000);
        let len = s(9000);
        let mut body = String::from("User-agent: *\n");
        for i in 0..rules {
            body.push_str(&format!("Disallow: /*a*a*a*a*a*a*a*a*a*{i}z\n"));
        }
        let path = format!("/{}%41", "a".repeat(len));
        out.push(Adversarial {
            name: format!("rules{rules}x10stars_path{len}_escaped"),
            body: Body::new("adv-many-stars-escaped", body.into_bytes()),
            path,
        });
    }
    out
}

/// Prints one line that stands out in `cargo bench` output.
pub fn note(msg: &str) {
    eprintln!("wr-benches: {msg}");
}

/// Runs `f` with the panic message silenced; `None` if it panicked.
pub fn quietly<T>(f: impl FnOnce() -> T) -> Option<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    std::panic::set_hook(hook);
    r
}

/// The files `robotstxt` can read without panicking. robotstxt 0.3 panics
/// (slicing a `&str` off a char boundary, parser.rs:169) on some real files
/// with multi-byte UTF-8 near its line-length cut; those are left out of
/// its measurements and counted in the returned number.
pub fn robotstxt_readable(bodies: &[Body]) -> (Vec<Body>, usize) {
    struct Noop;
    impl robotstxt::RobotsParseHandler for Noop {
        fn handle_robots_start(&mut self) {}
        fn handle_robots_end(&mut self) {}
        fn handle_user_agent(&mut self, _: u32, _: &str) {}
        fn handle_allow(&mut self, _: u32, _: &str) {}
        fn handle_disallow(&mut self, _: u32, _: &str) {}
        fn handle_sitemap(&mut self, _: u32, _: &str) {}
        fn handle_unknown_action(&mut self, _: u32, _: &str, _: &str) {}
    }
    let mut ok = Vec::new();
    let mut bad = 0;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for b in bodies {
        let r = std::panic::catch_unwind(|| robotstxt::parse_robotstxt(&b.text, &mut Noop));
        if r.is_ok() {
            ok.push(b.clone());
        } else {
            bad += 1;
        }
    }
    std::panic::set_hook(hook);
    (ok, bad)
}

/// The median of `v` (the upper one of an even count; NaN when empty): the
/// figure of paired timings on a host whose speed moves (see
/// `benches/ab/run.sh` and the profile example's `pair-parse`).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The least a line-oriented parser does with a body: find each line's
/// end (`\n`, `\r` or CRLF), look at its first octet, and for a line that
/// may be a directive (it starts with a letter some field name starts
/// with) find whether a `#` comes before its end. Returns the lines and
/// the directive-like lines with a `#`, so that nothing is optimised away.
///
/// `floor/memchr newline count` counts line ends with one vector pass and
/// never stops at a line; every parser stops at each one and branches on
/// what it holds. This walk measures that cost, the floor under which no
/// per-line reading goes however little it keeps (issue #24's goals
/// measured against both, docs/performance.md).
pub fn line_walk(body: &[u8]) -> (usize, usize) {
    let mut rest = body;
    let (mut lines, mut comments) = (0, 0);
    while !rest.is_empty() {
        let directive_like = matches!(rest[0] | 0x20, b'u' | b'a' | b'd' | b'c' | b's');
        let end = if directive_like {
            match memchr::memchr3(b'\n', b'\r', b'#', rest) {
                Some(i) if rest[i] == b'#' => {
                    comments += 1;
                    memchr::memchr2(b'\n', b'\r', &rest[i + 1..]).map(|j| i + 1 + j)
                }
                end => end,
            }
        } else {
            memchr::memchr2(b'\n', b'\r', rest)
        };
        lines += 1;
        let Some(i) = end else { break };
        let crlf = rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n');
        rest = &rest[i + 1 + usize::from(crlf)..];
    }
    (lines, comments)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk stops where wr-core's lexer does: at every line, whatever
    /// ends it, so its time is the per-line floor of the same lines.
    #[test]
    fn the_line_walk_stops_at_every_line_the_lexer_reads() {
        let mut bodies: Vec<Vec<u8>> = builtin().into_iter().map(|b| b.bytes).collect();
        for s in [
            "",
            "\n",
            "a\r\nb\rc\n\nd",
            "Disallow: /a # note\r\n# c\rUser-agent: x #\n",
            "\r\r\n\n\r",
            "\u{feff}User-agent: *\nDisallow: /x",
        ] {
            bodies.push(s.as_bytes().to_vec());
        }
        for body in &bodies {
            let lexed = wr_core::robots::lexer::lines(body).count();
            assert_eq!(
                line_walk(body).0,
                lexed,
                "{:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn the_line_walk_finds_comments_on_directive_lines_only() {
        let body = b"Disallow: /a # c\n# only a comment\nUser-agent: x\nsitemap: y#z\r\n  # z";
        assert_eq!(line_walk(body), (5, 2));
    }
}
