//! The compiled-in copies are the originals, byte for byte.

use wr_conformance::fixtures::ORIGINALS;

#[test]
fn every_copy_equals_its_original_in_the_repository() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    if !std::path::Path::new(root).join("vectors").is_dir() {
        // A packaged crate has no repository around it.
        eprintln!("skipping: the repository's vectors/ is absent at {root}");
        return;
    }
    for (path, copy) in ORIGINALS {
        let original = std::fs::read_to_string(format!("{root}/{path}"))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(
            original == *copy,
            "conformance/data differs from {path}: copy it again"
        );
    }
}
