#!/usr/bin/env bash
# Runs the example pipelines against a fresh `evidence serve` on loopback, as CI does (make clients-test):
#   docs/examples/run.sh [BIN]     BIN: the evidence binary (default bin/evidence; built when absent)
# Each example ingests corpus/sample, verifies an answer and prints a signed viewer link; this script
# then opens every printed link without a token and fails unless the viewer shows the cited span.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-bin/evidence}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/evidence

dir=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
"$BIN" --db "$dir/examples.db" serve --addr "127.0.0.1:$port" --public-url "$url" \
  --viewer-key "$dir/viewer.key" 2>"$dir/serve.log" &
pid=$!
for _ in $(seq 100); do
  grep -q "serving http" "$dir/serve.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$dir/serve.log" >&2; exit 1; }
  sleep 0.1
done

for ex in langchain_pipeline.py llamaindex_pipeline.py; do
  echo "== docs/examples/$ex"
  python3 "docs/examples/$ex" --server "$url" | tee "$dir/out"
  links=$(grep -o "viewer: $url/view/[^ ]*" "$dir/out" | sed 's/^viewer: //')
  [ -n "$links" ] || { echo "FAIL: $ex printed no signed viewer link under $url" >&2; exit 1; }
  for link in $links; do
    case "$link" in *sig=*expires=*|*expires=*sig=*) ;; *) echo "FAIL: $link is not signed" >&2; exit 1 ;; esac
    page=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$link") || { echo "FAIL: $link did not open without a token" >&2; exit 1; }
    grep -q 'id="cited"' <<<"$page" || { echo "FAIL: $link shows no cited span" >&2; exit 1; }
  done
  echo "ok: $ex (its viewer links open without a token)"
done
