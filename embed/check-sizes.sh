#!/usr/bin/env bash
# Builds the embedded artefacts of wr-core-embed with the `embed` profiles
# (fat LTO, one codegen unit, panic=abort, stripped; opt-level "s", and "z"
# for the wasm module) and fails if one is over its budget. Run by .ci/run; see docs/performance.md,
# "Embedded sizes".
#
#   wasm   wr_core_embed.wasm for wasm32-unknown-unknown, feature standalone
#          (both APIs, talc), profile embed-wasm: size of the file.
#   thumb  examples/size_probe.rs for thumbv7em-none-eabihf, no allocator
#          (parse + check + Crawl-delay + domain check into caller
#          storage): .text + .rodata of the linked program.
#
# The artefacts go to <target dir>/tmp/wr-core-embed, where tests/it/wasm.rs
# and tests/c_abi.rs build them too, so the tests find them fresh.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BUDGET=$((80 * 1024))
THUMB_BUDGET=$((40 * 1024))

target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$PWD/$target_dir ;; esac
export CARGO_TARGET_DIR=$target_dir/tmp/wr-core-embed
manifest=$PWD/embed/Cargo.toml

for t in wasm32-unknown-unknown thumbv7em-none-eabihf; do
  if ! rustup target list --installed 2>/dev/null | grep -qx "$t"; then
    echo "the $t target is missing: rustup target add $t" >&2
    exit 1
  fi
done

# The same arguments as tests/it/wasm.rs (so the test reuses this build).
cargo rustc -p wr-core-embed --lib --crate-type cdylib --target wasm32-unknown-unknown \
  --profile embed-wasm --features standalone --manifest-path "$manifest"
cargo build -p wr-core-embed --example size_probe --target thumbv7em-none-eabihf \
  --profile embed --no-default-features --features size-probe --manifest-path "$manifest"

wasm=$CARGO_TARGET_DIR/wasm32-unknown-unknown/embed-wasm/wr_core_embed.wasm
probe=$CARGO_TARGET_DIR/thumbv7em-none-eabihf/embed/examples/size_probe

size_tool=
for tool in llvm-size rust-size size; do
  if command -v "$tool" >/dev/null 2>&1; then size_tool=$tool; break; fi
done
if [ -z "$size_tool" ]; then
  echo "no size tool: install binutils (size) or llvm (llvm-size)" >&2
  exit 1
fi

wasm_bytes=$(wc -c < "$wasm")
# `size -A`: one line per section, name then size.
section() { "$size_tool" -A "$probe" | awk -v s="$1" '$1 == s { print $2; f = 1 } END { if (!f) print 0 }'; }
text=$(section .text)
rodata=$(section .rodata)
thumb_bytes=$((text + rodata))
if [ "$text" -eq 0 ]; then
  echo "no .text in $probe: the size probe linked nothing" >&2
  exit 1
fi

status=0
report() { # name bytes budget detail
  local verdict=ok
  if [ "$2" -gt "$3" ]; then verdict="OVER BUDGET"; status=1; fi
  awk -v n="$1" -v b="$2" -v m="$3" -v v="$verdict" -v d="$4" 'BEGIN {
    printf "%-6s %7d bytes (%5.1f KiB), budget %d KiB: %s; %s\n", n, b, b / 1024, m / 1024, v, d }' 
}
report wasm "$wasm_bytes" "$WASM_BUDGET" "file size of $wasm"
report thumb "$thumb_bytes" "$THUMB_BUDGET" ".text $text + .rodata $rodata ($size_tool -A)"
exit $status
