#!/usr/bin/env bash
# The p50 check (or p90, p99, max, mean: every corpus policy; or parse) of wr-core at BASE_REV against this
# working tree, timed in one process (see main.rs for why).
#
#   benches/ab/run.sh BASE_REV [LABEL] [ROUNDS]
#
# It checks BASE_REV out in a temporary worktree, writes a project that
# depends on both trees' wr-core (the base's version renamed, since Cargo
# keeps one package per name and version) and on wr-benches (the corpus and
# its paths, as the criterion benches pick them), and runs it in release.
# The base must have `robots::Policy::parse` and `check` and the `heapless`
# feature, which both trees are built with, as wr-feeds-cli builds wr-core:
# a feature moves the code layout, and with it a check by some 7 %.
set -euo pipefail
base_rev=${1:?usage: benches/ab/run.sh BASE_REV [p50|p90|p99|max|mean|parse] [ROUNDS]}
shift
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/wr-ab.XXXXXX")
cleanup() {
    git -C "$repo" worktree remove --force "$work/base" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
git -C "$repo" worktree add --quiet --detach "$work/base" "$base_rev"
sed -i 's/^version\.workspace = true/version = "0.0.0"/' "$work/base/core/Cargo.toml"
mkdir -p "$work/ab/src"
cp "$repo/benches/ab/main.rs" "$work/ab/src/main.rs"
# The workspace's lock pins the crates both trees use.
cp "$repo/Cargo.lock" "$work/ab/Cargo.lock"
cat > "$work/ab/Cargo.toml" <<TOML
[package]
name = "wr-ab"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
wr_base = { package = "wr-core", path = "$work/base/core", features = ["heapless"] }
wr_head = { package = "wr-core", path = "$repo/core", features = ["heapless"] }
wr-benches = { path = "$repo/benches" }

[workspace]
TOML
# The repository's target directory: its release build of wr-benches'
# dependencies is reused.
CARGO_TARGET_DIR="$repo/target" cargo run --quiet --release --offline \
    --manifest-path "$work/ab/Cargo.toml" -- "$@"
