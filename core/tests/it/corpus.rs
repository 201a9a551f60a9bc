//! Every real-world robots.txt of the shared corpus parses without panic,
//! and the two models agree on it. The corpus (4,231 files, 17 MB) is not
//! copied into the project; without it this test says so and checks nothing.

use std::path::Path;
use wr_core::robots::{Policy, Robots};

const CORPUS: &str = "../../shared/corpus/robots-real-world";

#[test]
fn real_world_corpus_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: robots.txt corpus absent at {}", dir.display());
        return;
    };
    let probes = [
        "/",
        "/admin/",
        "/search?q=x",
        "/wp-admin/admin-ajax.php",
        "/%7Euser/a.pdf",
        "/ツ",
    ];
    let mut files = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let body = std::fs::read(&path).unwrap();
        let model = Robots::parse(&body);
        for token in ["Walsh-Research", "Googlebot", "*"] {
            let direct = Policy::parse(&body, token);
            let selected = model.policy(token);
            for probe in probes {
                assert_eq!(
                    direct.check(probe).allowed,
                    selected.check(probe).allowed,
                    "{} {token} {probe}",
                    path.display()
                );
            }
        }
        files += 1;
    }
    assert!(
        files > 4000,
        "expected the whole corpus, read {files} files"
    );
}
