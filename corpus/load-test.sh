#!/usr/bin/env bash
# Open-loop load test of `evidence serve` on loopback with corpus/loadgen
# (requests at a constant arrival rate, latency measured from when each was
# due: a closed loop such as wrk's hides queueing). Each scenario prints the
# offered rate, the achieved goodput, p50/p99/p99.9 of the admitted requests
# (every answer but 503), the 503s, timeouts, and the server's RSS during the
# run and 30 s after.
#
#   corpus/load-test.sh                      # 10 s a scenario
#   DURATION=30s corpus/load-test.sh
#   BIN=/tmp/old/evidence corpus/load-test.sh   # another build of the server
#   SERVE_FLAGS='--max-in-flight 32' corpus/load-test.sh
#   SCENARIOS='rate overload' corpus/load-test.sh   # some of: rate overload stall async
#   CAPACITY_RESOLVE=9000 CAPACITY_VERIFY=6000 corpus/load-test.sh   # skip the capacity search
#   SERVE_LOG=/tmp/serve.log GODEBUG=gctrace=1 corpus/load-test.sh   # keep the servers' stderr
#   SLOW_PROBE=30ms SCENARIOS=stall corpus/load-test.sh   # print each health probe slower than 30 ms
#             with where its time went (connect, request written, first byte)
#   SERVER_CPUS=0 LOADGEN_CPUS=1 corpus/load-test.sh   # pin each to its own core (taskset), so that
#             the load generator does not take the server's CPU: on 2 cores it uses as much as the server
#   CONNS=64 corpus/load-test.sh   # the client's pool of keep-alive connections (default 256); CONNS=0
#             opens a connection for every request outstanding (net/http's client, the model before)
#
# It builds bin/evidence (unless BIN is set) and corpus/loadgen, ingests
# corpus/sample and ../shared/corpus/text (when present) into a temporary
# store, starts `evidence serve` on 127.0.0.1, warms it up (not counted),
# and runs:
#   rate:     resolves of random chunk ids and a 10-claim verification, each
#             at 2,000 requests/s (target: p99 < 2 ms);
#   overload: the capacity (the most goodput over rising rates, 3 s a step),
#             then twice that (targets: admitted p99 < 50 ms, goodput >= 90%
#             of capacity, RSS < 300 MiB and back near idle 30 s after);
#   stall:    2,000 connections that never read: half send a request for the
#             largest text and never read the answer, half never finish
#             their headers; /healthz probed 10 times a second on new
#             connections, on the admin listener (--admin-addr, where probes
#             belong), then on the API's listener (targets: RSS < 300 MiB,
#             health < 50 ms, no probe lost); each run prints the probes'
#             p50/p99/p99.9/max and how many were lost (no 200 within 2 s);
#   async:    verifications with their trace stored behind the response
#             (--trace-writes async) at 2,000/s.
# The generator shares the machine's cores with the server. Traffic goes to
# 127.0.0.1 only; the server is stopped when the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
AFTER=${AFTER:-30s}
PORT=${PORT:-18765}
SCENARIOS=${SCENARIOS:-rate overload stall async}
STALL=${STALL:-2000}
ADDR=127.0.0.1:$PORT
URL=http://$ADDR

for tool in jq curl; do
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
if [ -z "${BIN:-}" ]; then go build -o bin/evidence ./cmd/evidence; BIN=bin/evidence; fi
go build -o "$work/loadgen" ./corpus/loadgen
ev() { "$BIN" --db "$work/e.db" "$@"; }

echo "== ingest"
sources=(corpus/sample)
if [ -d ../shared/corpus/text ]; then sources+=(../shared/corpus/text); fi
ev ingest "${sources[@]}" --base .. --url https://docs.example/ >/dev/null
ev chunks >"$work/chunks.jsonl"
jq -r .chunk_id "$work/chunks.jsonl" >"$work/ids.txt"
echo "$(wc -l <"$work/ids.txt") chunks from ${sources[*]}"
# The largest version's whole text: what a stalled reader asks for.
big=$(jq -s -r 'group_by(.document_version) | map({v: .[0].document_version, n: (map(.text | length) | add)}) | max_by(.n) | .v' "$work/chunks.jsonl")

# A 10-claim answer: each claim quotes the first 80 code points of one chunk
# of a different document or part of one, every citation retrieved.
jq -s '[.[] | select(.text | length > 120)] | [range(0; 10) as $i | .[($i * (length / 10 | floor))]] |
  {request_id: "load", retrieved: [.[].chunk_id],
   claims: [to_entries[] | {claim_id: "c\(.key)", text: .value.text[0:80],
     evidence: [{chunk_id: .value.chunk_id, quote: .value.text[0:80]}]}]}' \
  "$work/chunks.jsonl" >"$work/verify.json"

# start_server [SERVE_FLAGS...]: serve the store on $ADDR until stop_server.
start_server() {
  echo "== serve on $ADDR ${SERVE_FLAGS:-} $*"
  # shellcheck disable=SC2086
  ${SERVER_CPUS:+taskset -c "$SERVER_CPUS"} "$BIN" --db "$work/e.db" serve --addr "$ADDR" ${SERVE_FLAGS:-} "$@" 2>>"${SERVE_LOG:-$work/serve.log}" &
  server_pid=$!
  for _ in $(seq 50); do curl -fs "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fs "$URL/healthz" >/dev/null || { cat "$work/serve.log"; exit 1; }
}
stop_server() {
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
}
lg() { ${LOADGEN_CPUS:+taskset -c "$LOADGEN_CPUS"} "$work/loadgen" -pid "$server_pid" -conns "${CONNS:-256}" ${SLOW_PROBE:+-slow-probe "$SLOW_PROBE"} "$@" "$URL"; }
resolve=(-ids "$work/ids.txt")
verify=(-body "$work/verify.json" -path "/v1/verify?trace=false")

start_server
disposition=$(curl -fs -X POST -H 'Content-Type: application/json' --data-binary @"$work/verify.json" "$URL/v1/verify?trace=false" | jq -r .disposition)
echo "prepared 10-claim verification: disposition $disposition"
# Warm-up, not counted: the first resolve of an HTML chunk computes its text
# fragment and the first of a Markdown version its heading anchors; both are
# cached, since versions never change. Steady state is what is measured.
echo "== warm-up (not counted)"
lg -rate 2000 -duration 3s "${resolve[@]}" >/dev/null
lg -rate 2000 -duration 2s "${verify[@]}" >/dev/null

summary=()
# run NAME LOADGEN_ARGS...: one scenario, printed and kept for the summary.
run() {
  local name=$1; shift
  echo
  echo "== $name: loadgen $*"
  local out
  out=$(lg -name "$name" "$@")
  echo "$out"
  summary+=("$out")
  last=$out
}

# capacity NAME ARGS...: the most goodput over rising rates, 3 s a step,
# until goodput falls below 90% of the rate offered or p99 passes 50 ms.
capacity() {
  local name=$1; shift
  local best=0 rate=1000 out good p99
  while [ "$rate" -le 64000 ]; do
    out=$(lg -json -rate "$rate" -duration 3s "$@")
    good=$(jq -r '.goodput_per_s | floor' <<<"$out")
    p99=$(jq -r .p99_ms <<<"$out")
    echo "   $name at $rate/s: goodput $good/s, p99 $p99 ms, 503s $(jq -r .status_503 <<<"$out")" >&2
    [ "$good" -gt "$best" ] && best=$good
    if [ "$good" -lt $((rate * 9 / 10)) ] || jq -e '.p99_ms > 50' <<<"$out" >/dev/null; then break; fi
    rate=$((rate * 3 / 2))
    sleep 1
  done
  echo "$best"
}

for scenario in $SCENARIOS; do
  case $scenario in
  rate)
    run "resolve at 2,000/s" -rate 2000 -duration "$DURATION" "${resolve[@]}"
    run "verify 10 claims at 2,000/s" -rate 2000 -duration "$DURATION" "${verify[@]}"
    ;;
  overload)
    for what in resolve verify; do
      if [ "$what" = resolve ]; then args=("${resolve[@]}"); else args=("${verify[@]}"); fi
      echo
      echo "== $what: capacity"
      cap_var=CAPACITY_${what^^}
      if [ -n "${!cap_var:-}" ]; then cap=${!cap_var}; else cap=$(capacity "$what" "${args[@]}"); fi
      summary+=("$what capacity: $cap/s (most goodput over rising rates, 3 s each)")
      echo "$what capacity: $cap/s"
      sleep 2
      run "$what at 2x capacity ($((cap * 2))/s)" -rate $((cap * 2)) -duration "$DURATION" -health -after "$AFTER" "${args[@]}"
      good=$(sed -E 's/.* goodput ([0-9]+).*/\1/' <<<"$last")
      summary+=("   goodput / capacity: $((good * 100 / (cap > 0 ? cap : 1)))%")
    done
    ;;
  stall)
    stop_server
    admin=127.0.0.1:$((PORT + 1))
    start_server --admin-addr "$admin"
    run "$STALL stalled, probes on --admin-addr" -stall "$STALL" -duration "$DURATION" -path "/v1/versions/$big/text" -health-url "http://$admin/healthz" -after "$AFTER"
    sleep 2
    run "$STALL stalled, probes on the API's" -stall "$STALL" -duration "$DURATION" -path "/v1/versions/$big/text" -after "$AFTER"
    stop_server
    start_server
    ;;
  async)
    stop_server
    start_server --trace-writes async
    lg -rate 2000 -duration 2s -body "$work/verify.json" -path /v1/verify >/dev/null
    run "verify + trace (async) at 2,000/s" -rate 2000 -duration "$DURATION" -body "$work/verify.json" -path /v1/verify
    ;;
  *) echo "unknown scenario $scenario (want rate, overload, stall, async)" >&2; exit 2 ;;
  esac
done
shed=$(curl -fs "$URL/metrics" | awk '/^evidence_http_shed_total/ {n += $2} END {print n + 0}')
summary+=("server: $shed requests shed (evidence_http_shed_total, this server run)")

echo
echo "== summary ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs; the generator shares the cores)"
printf '%s\n' "${summary[@]}"
