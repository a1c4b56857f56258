#!/usr/bin/env bash
# Read throughput of one and of two `evidence serve` replicas on one
# PostgreSQL database, measured open-loop with corpus/loadgen (requests at a
# constant arrival rate; latency from when each was due). For each setup it
# finds the capacity: the most goodput (2xx a second) over rising offered
# rates, 3 s a step, until goodput falls below 90% of the rate offered or p99
# passes 50 ms. With two replicas the rate is split evenly between two
# generators, one a replica, and their goodputs add up. Prints both
# capacities, their ratio, and p50/p99 at a fixed rate on each setup.
#
# The requests are GET /v1/chunks/{id} of random chunk ids of corpus/sample
# (and ../shared/corpus/text when present): resolve with its deep link.
# Everything runs on this machine: the database, the replicas and the
# generators share its cores, so on a small machine the ratio says what the
# cores allow, not what replicas on machines of their own would give.
#
# PostgreSQL is started for the run from Debian's postgresql package (a
# temporary directory, a Unix socket, fsync off: only reads are measured),
# as the postgres user when run as root, and stopped by its pid at the end.
#
# Usage: [EVIDENCE=bin] [RATE=1000] [SERVE_FLAGS=...] corpus/pg-replicas.sh
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-18865}
fixed=${RATE:-1000}
work=$(mktemp -d)
chmod 755 "$work"
pgbin=$(dirname "$(readlink -f "$(command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl | tail -1)")")
as=()
if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); chown postgres "$work"; fi
pg=
servers=()
cleanup() {
  for p in "${servers[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [ -n "$pg" ]; then kill -INT "$pg" 2>/dev/null || true; while kill -0 "$pg" 2>/dev/null; do sleep 0.1; done; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${EVIDENCE:-}" ]; then cp "$EVIDENCE" "$work/evidence"; else go build -o "$work/evidence" ./cmd/evidence; fi
go build -o "$work/loadgen" ./corpus/loadgen

"${as[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
  -o "-c listen_addresses='' -k $work -p 5432 -c fsync=off -c max_connections=100" start >/dev/null
pg=$(head -1 "$work/pg/postmaster.pid")
"${as[@]}" "$pgbin/createdb" -h "$work" -p 5432 -U postgres e
dsn="postgres://postgres@/e?host=$work"
ev() { "$work/evidence" --db "$dsn" "$@"; }
ev migrate >/dev/null
sources=(corpus/sample)
if [ -d ../shared/corpus/text ]; then sources+=(../shared/corpus/text); fi
ev ingest "${sources[@]}" --base .. --url https://docs.example/ >/dev/null
ev chunks | jq -r .chunk_id >"$work/ids.txt"
echo "$(wc -l <"$work/ids.txt") chunks from ${sources[*]}; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

for i in 0 1; do
  # shellcheck disable=SC2086
  "$work/evidence" --db "$dsn" serve --addr "127.0.0.1:$((port + i))" ${SERVE_FLAGS:-} 2>>"$work/serve.log" &
  servers+=($!) # the server's own pid (not a subshell's), which cleanup stops
done
for i in 0 1; do
  for _ in $(seq 50); do curl -fs "http://127.0.0.1:$((port + i))/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fs "http://127.0.0.1:$((port + i))/healthz" >/dev/null || { cat "$work/serve.log"; exit 1; }
done

# load N RATE DURATION: N generators at RATE/N each, one a replica, at
# once; prints "goodput p50 p99" (goodput summed, p50 and p99 the worse).
load() {
  local n=$1 rate=$2 dur=$3 i gens=()
  for ((i = 0; i < n; i++)); do
    "$work/loadgen" -json -rate $((rate / n)) -duration "$dur" -ids "$work/ids.txt" "http://127.0.0.1:$((port + i))" >"$work/lg$i.json" &
    gens+=($!)
  done
  wait "${gens[@]}"
  jq -s -r '[(map(.goodput_per_s) | add | floor), (map(.p50_ms) | max), (map(.p99_ms) | max)] | @tsv' \
    $(for ((i = 0; i < n; i++)); do echo "$work/lg$i.json"; done)
}

echo "== warm-up (not counted)"
load 2 2000 3s >/dev/null

declare -A cap
for n in 1 2; do
  echo "== $n replica(s): capacity"
  best=0 rate=1000
  while [ "$rate" -le 64000 ]; do
    read -r good p50 p99 < <(load "$n" "$rate" 3s)
    echo "   at $rate/s: goodput $good/s, p50 $p50 ms, p99 $p99 ms"
    [ "$good" -gt "$best" ] && best=$good
    if [ "$good" -lt $((rate * 9 / 10)) ] || awk -v p="$p99" 'BEGIN { exit !(p > 50) }'; then break; fi
    rate=$((rate * 3 / 2))
    sleep 1
  done
  cap[$n]=$best
  read -r good p50 p99 < <(load "$n" "$fixed" 5s)
  echo "   at $fixed/s for 5 s: goodput $good/s, p50 $p50 ms, p99 $p99 ms"
done
echo "== capacity: 1 replica ${cap[1]}/s, 2 replicas ${cap[2]}/s, ratio $(echo "scale=2; ${cap[2]} / ${cap[1]}" | bc) ($(nproc) cores shared by the database, the replicas and the generators; load average $(cut -d' ' -f1-3 /proc/loadavg))"
