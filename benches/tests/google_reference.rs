//! Google's reference robots.txt parser, run differentially against the
//! production path (R2c; issue #18: "references we did not write").
//!
//! Google's reading is one of the readings every verdict must satisfy
//! (docs/conformance.md, "The strictest reading wins"): whatever Google's
//! parser denies, production must deny. The reference here is the
//! `robotstxt` crate, a port of google/robotstxt written by others, and
//! already a peer of the benchmarks. It is asked the platform
//! differential's questions (`wr_conformance::platform::cases`): the
//! in-repository slice of the corpus, the generator families from the
//! committed seed and one more, and the full corpus when it is beside the
//! project. Each URL is the one the bot sends.
//!
//! The port's matcher loses candidates after a `*`, and its parser
//! misreads what follows a long line of multi-octet characters:
//! `wr_conformance::google` says how each is met. A body the port cannot
//! read as Google does is counted, never silently passed, and asked again
//! with its Unicode spaces as tabs (`ascii_twins`), so that the padded
//! lines still meet Google's line limit.

use wr_conformance::google;
use wr_conformance::platform::{self, cases, Input};

use std::path::{Path, PathBuf};

const TOKEN: &str = "Walsh-Research";

#[derive(Default)]
struct Report {
    asked: usize,
    google_denies: usize,
    we_deny: usize,
    /// Bodies the port cannot read as Google does, or panicked on: (id,
    /// URLs not asked).
    not_asked: Vec<(String, usize)>,
    /// (id, URL): Google denies, production allows.
    under_blocks: Vec<(String, String)>,
}

impl Report {
    fn summary(&self, what: &str) -> String {
        format!(
            "{what}: {} URLs asked, Google's reference denies {}, production {}; {} under-blocks; \
             {} bodies not asked, the port misreading them ({} URLs)",
            self.asked,
            self.google_denies,
            self.we_deny,
            self.under_blocks.len(),
            self.not_asked.len(),
            self.not_asked.iter().map(|(_, n)| n).sum::<usize>(),
        )
    }
}

/// The port's panics are expected (see the module docs) and counted;
/// their messages would bury the report. Any other panic (a failed
/// assertion) is reported as usual.
fn quiet_port_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let usual = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_port = info
                .location()
                .is_some_and(|l| l.file().contains("robotstxt"));
            if !in_port {
                usual(info);
            }
        }));
    });
}

fn judge(inputs: &[Input]) -> Report {
    quiet_port_panics();
    let mut r = Report::default();
    for i in inputs {
        let ours = platform::production(&i.body, &i.urls);
        let mut google = Vec::with_capacity(i.urls.len());
        for url in &i.urls {
            match google::allows(&i.body, TOKEN, url) {
                Some(g) => google.push(g),
                None => break,
            }
        }
        if google.len() < i.urls.len() {
            r.not_asked.push((i.id.clone(), i.urls.len()));
            continue;
        }
        for ((url, g), we_allow) in i.urls.iter().zip(google).zip(ours) {
            r.asked += 1;
            r.google_denies += usize::from(!g);
            r.we_deny += usize::from(!we_allow);
            if !g && we_allow {
                r.under_blocks.push((i.id.clone(), url.clone()));
            }
        }
    }
    r
}

/// For each input the port cannot read as Google does (a long line of
/// Unicode spaces, mostly the padding family's), its twin with each of
/// those spaces a tab, when the port can read that one: Google's line
/// limit is then asked about after all, on a body both sides read.
fn ascii_twins(inputs: &[Input]) -> Vec<Input> {
    inputs
        .iter()
        .filter(|i| !google::port_reads_lines_as_google(&i.body))
        .filter_map(|i| {
            let body: String = i
                .body
                .chars()
                .map(|c| {
                    if !c.is_ascii() && c.is_whitespace() {
                        '\t'
                    } else {
                        c
                    }
                })
                .collect();
            google::port_reads_lines_as_google(&body).then(|| Input {
                id: format!("{}/tabs", i.id),
                family: i.family.clone(),
                body,
                urls: i.urls.clone(),
            })
        })
        .collect()
}

fn assert_no_under_block(what: &str, r: &Report, at_least: usize) {
    eprintln!("{}", r.summary(what));
    assert!(
        r.asked >= at_least,
        "{what}: only {} URLs could be asked",
        r.asked
    );
    let shown: Vec<String> = r
        .under_blocks
        .iter()
        .take(10)
        .map(|(id, url)| format!("  {id} {url}"))
        .collect();
    assert!(
        r.under_blocks.is_empty(),
        "{}: Google's reference denies, production allows:\n{}",
        r.summary(what),
        shown.join("\n")
    );
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn production_denies_every_url_googles_reference_denies() {
    let (mut inputs, _) = cases::real_dir(&root().join("benches/data/robots-slice"), "slice")
        .expect("benches/data/robots-slice");
    inputs.extend(cases::generated());
    inputs.extend(cases::generated_with(19, 100));
    let twins = ascii_twins(&inputs);
    inputs.extend(twins);
    let r = judge(&inputs);
    assert_no_under_block("slice and generated families", &r, 25_000);
}

#[test]
fn production_denies_every_url_googles_reference_denies_on_the_full_corpus() {
    let elsewhere = "the slice is asked in production_denies_every_url_googles_reference_denies";
    let Some((inputs, _)) = cases::full_corpus(&root(), elsewhere) else {
        return;
    };
    let r = judge(&inputs);
    assert_no_under_block("the full corpus", &r, 50_000);
}
