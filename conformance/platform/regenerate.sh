#!/usr/bin/env bash
# Regenerates conformance/data/platform/robotparser.jsonl.gz: the platform
# differential's questions (written by wr_conformance::platform) answered
# by Python's urllib.robotparser (robotparser_oracle.py). Run from any
# directory; needs cargo and python3 (3.11 made the committed file).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cargo run -q -p wr-conformance --features platform --example platform_cases >"$tmp"
python3 conformance/platform/robotparser_oracle.py "$tmp" \
  | gzip -n -9 >conformance/data/platform/robotparser.jsonl.gz
echo "wrote conformance/data/platform/robotparser.jsonl.gz ($(wc -c <conformance/data/platform/robotparser.jsonl.gz) octets)"
