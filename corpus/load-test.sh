#!/usr/bin/env bash
# Load test of `evidence serve` on loopback with wrk (Debian's package):
# single-chunk resolves and 10-claim verifications, each scenario bounded
# in time, reporting requests/s, p50/p99 latency and errors.
#
#   corpus/load-test.sh            # 10 s a scenario
#   DURATION=30s corpus/load-test.sh
#
# It builds bin/evidence, ingests corpus/sample and ../shared/corpus/text
# (when present) into a temporary store, starts `evidence serve` on
# 127.0.0.1, warms it up, drives it, and stops it. Scenarios:
#   - at full speed (-t2 -c8): the most the 2 cores give, wrk included;
#   - held near 2,000 requests/s: 23 connections that each pause 10 ms
#     after a response (wrk has no rate flag; wrk2 is not in Debian);
#   - verifications with traces stored (the default: one fsync'd write each).
# Traffic goes to 127.0.0.1 only; the server is stopped when the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
PORT=${PORT:-18765}
ADDR=127.0.0.1:$PORT
URL=http://$ADDR

for tool in wrk jq curl; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "== installing $tool (apt-get)"
    apt-get update -qq >/dev/null && apt-get install -y -qq "$tool" >/dev/null
  fi
done

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== build"
go build -o bin/evidence ./cmd/evidence
ev() { bin/evidence --db "$work/e.db" "$@"; }

echo "== ingest"
sources=(corpus/sample)
if [ -d ../shared/corpus/text ]; then sources+=(../shared/corpus/text); fi
ev ingest "${sources[@]}" --url https://docs.example/ >/dev/null
ev chunks >"$work/chunks.jsonl"
jq -r .chunk_id "$work/chunks.jsonl" >"$work/ids.txt"
echo "$(wc -l <"$work/ids.txt") chunks from ${sources[*]}"

# A 10-claim answer: each claim quotes the first 80 code points of one chunk
# of a different document or part of one, every citation retrieved.
jq -s '[.[] | select(.text | length > 120)] | [range(0; 10) as $i | .[($i * (length / 10 | floor))]] |
  {request_id: "load", retrieved: [.[].chunk_id],
   claims: [to_entries[] | {claim_id: "c\(.key)", text: .value.text[0:80],
     evidence: [{chunk_id: .value.chunk_id, quote: .value.text[0:80]}]}]}' \
  "$work/chunks.jsonl" >"$work/verify.json"

# start_server [SERVE_FLAGS...]: serve the store on $ADDR until stop_server.
start_server() {
  echo "== serve on $ADDR $*"
  bin/evidence --db "$work/e.db" serve --addr "$ADDR" "$@" 2>"$work/serve.log" &
  server_pid=$!
  for _ in $(seq 50); do curl -fs "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fs "$URL/healthz" >/dev/null || { cat "$work/serve.log"; exit 1; }
}
stop_server() {
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
}
start_server
disposition=$(curl -fs -X POST -H 'Content-Type: application/json' --data-binary @"$work/verify.json" "$URL/v1/verify?trace=false" | jq -r .disposition)
echo "prepared 10-claim verification: disposition $disposition"

export EVIDENCE_IDS=$work/ids.txt EVIDENCE_VERIFY_BODY=$work/verify.json
# Warm-up, not counted: the first resolve of an HTML chunk computes its
# text fragment (a search of the whole document, up to a few ms) and the
# first of a Markdown version its heading anchors; both are cached, since
# versions never change. Steady state is what the scenarios measure.
echo "== warm-up (3 s resolves, 2 s verifications; not counted)"
wrk -t2 -c8 -d3s -s corpus/load-resolve.lua "$URL" >/dev/null
wrk -t2 -c8 -d2s -s corpus/load-verify.lua "$URL" >/dev/null
summary=()
# run NAME PAUSE_MS THREADS CONNECTIONS SCRIPT [VERIFY_PATH]
run() {
  local name=$1 pause=$2 threads=$3 conns=$4 script=$5 path=${6:-/v1/verify?trace=false}
  echo
  echo "== $name: wrk -t$threads -c$conns -d$DURATION --latency -s $script (pause ${pause} ms)"
  local out
  out=$(EVIDENCE_PAUSE_MS=$pause EVIDENCE_VERIFY_PATH=$path wrk -t"$threads" -c"$conns" -d"$DURATION" --latency -s "$script" "$URL")
  echo "$out"
  local rps p50 p99 non2xx sock
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")
  sock=$(awk '/Socket errors:/ {print $0}' <<<"$out")
  summary+=("$(printf '%-44s %10s req/s   p50 %-9s p99 %-9s errors: %s%s' "$name" "$rps" "$p50" "$p99" "${non2xx:-0} non-2xx" "${sock:+, $sock}")")
}
run "resolve, full speed"                  0  2 8  corpus/load-resolve.lua
run "resolve, held near 2,000/s"           10 2 23 corpus/load-resolve.lua
run "verify 10 claims, full speed"         0  2 8  corpus/load-verify.lua
run "verify 10 claims, held near 2,000/s"  10 2 23 corpus/load-verify.lua
run "verify 10 claims + stored trace"      0  2 8  corpus/load-verify.lua "/v1/verify"
stop_server
# Traces written behind the responses, many per fsync.
start_server --trace-writes async
wrk -t2 -c8 -d2s -s corpus/load-verify.lua "$URL" >/dev/null
run "verify + trace (async), held near 2,000/s" 10 2 23 corpus/load-verify.lua "/v1/verify"
run "verify + trace (async), full speed"        0  2 8  corpus/load-verify.lua "/v1/verify"
written=$(curl -fs "$URL/metrics" | awk '/^evidence_traces_total\{outcome="written"\}/ {print $2}')
failed=$(curl -fs "$URL/metrics" | awk '/^evidence_traces_total\{outcome="failed"\}/ {print $2}')
summary+=("async traces: ${written:-0} written, ${failed:-0} failed (more are queued at this instant)")

echo
echo "== summary ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs; wrk shares the cores)"
printf '%s\n' "${summary[@]}"
