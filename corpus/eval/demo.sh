#!/usr/bin/env bash
# make eval-demo: the release-gate loop of docs/eval.md on the sample corpus.
#
# Ingests corpus/sample into a fresh store, exports its chunks, runs the demo
# golden set through the deterministic BM25 generator (extractive: it must pass
# the gate), then through the same generator answering from memory (it must
# fail, on the probes and on support, values and abstention), gating the second
# against the first as its baseline. Needs python3 (standard library only).
set -euo pipefail
BIN=${1:-bin/evidence}
OUT=${EVAL_DEMO_DIR:-eval-demo}
HERE=$(dirname "$0") # as invoked, so that records name corpus/eval/… relative to the checkout
command -v python3 >/dev/null || { echo "eval-demo needs python3 (Debian: apt-get install python3)" >&2; exit 1; }
rm -rf "$OUT" && mkdir -p "$OUT"
DB="$OUT/eval.db"
ev() { "$BIN" --db "$DB" "$@"; }

# The golden set names documents by their file names: each is ingested with --id,
# whatever rule derives ids from paths.
for f in corpus/sample/*; do ev ingest "$f" --id "$(basename "$f")" >/dev/null; done
ev chunks > "$OUT/chunks.jsonl"
GEN="python3 $HERE/bm25_generator.py --chunks $OUT/chunks.jsonl"

echo "== extractive generator: 20 questions, 6 answers probed"
ev eval run "$HERE/golden.jsonl" --live --generator "$GEN" --probe 6 --out "$OUT/extractive.json"
echo
echo "== gate (extractive)"
ev eval gate "$OUT/extractive.json" --thresholds "$HERE/thresholds.yaml"

echo
echo "== memory generator (answers from memory, then cites)"
ev eval run "$HERE/golden.jsonl" --live --generator "$GEN --memory" --probe 6 --out "$OUT/memory.json" >/dev/null
echo "== gate (memory) against the extractive run as baseline: must fail"
set +e
ev eval gate "$OUT/memory.json" --thresholds "$HERE/thresholds.yaml" --baseline "$OUT/extractive.json"
code=$?
set -e
if [ "$code" -ne 3 ]; then
  echo "eval-demo: the memory generator's gate exited $code, want 3 (fail)" >&2
  exit 1
fi
echo
echo "== Markdown summary for CI logs: $OUT/memory.md (evidence eval report)"
ev eval report "$OUT/memory.json" "$OUT/extractive.json" --thresholds "$HERE/thresholds.yaml" --baseline "$OUT/extractive.json" > "$OUT/memory.md"
echo "== HTML report for people: $OUT/memory.html (evidence eval report --html; links to the viewer of evidence serve at 127.0.0.1:8080)"
ev eval report "$OUT/memory.json" "$OUT/extractive.json" --thresholds "$HERE/thresholds.yaml" --baseline "$OUT/extractive.json" \
  --html "$OUT/memory.html" --viewer-base http://127.0.0.1:8080 >/dev/null
echo
echo "eval-demo: the extractive generator passes the gate; the memory generator fails it (exit 3), as it should."
