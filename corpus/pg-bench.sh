#!/usr/bin/env bash
# Ingest into bbolt and into PostgreSQL, same inputs, in one run: whole
# evidence processes over a generated Markdown corpus (--chunk-size 1000
# --overlap 150), each into a fresh store: a bbolt file with 2 workers, a
# PostgreSQL database with 2 workers, and two ingest processes at once
# (1 worker each, each half of the files) into one database. Prints the
# MB/s of each (the processes' own figure; for the pair, all bytes over the
# wall time of both) and the PostgreSQL share of the bbolt rate.
#
# PostgreSQL is started for the run from Debian's postgresql package
# (initdb into a temporary directory, a Unix socket there, as the postgres
# user when run as root) and stopped by its pid at the end. FSYNC=off runs
# it without fsync (as the tests do); the default keeps fsync on, as bbolt.
#
# EVIDENCE=path runs that build of evidence instead of building this tree
# (to compare two builds, run the script for each in turn).
#
# Usage: [RUNS=3] [MB=10] [FSYNC=on|off] [EVIDENCE=bin] corpus/pg-bench.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
runs=${RUNS:-3}
mb=${MB:-10}
fsync=${FSYNC:-on}
src=${CORPUS:-${TMPDIR:-/tmp}/evidence-md-${mb}mb}
work=$(mktemp -d)
chmod 755 "$work"
pgbin=$(dirname "$(readlink -f "$(command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl | tail -1)")")
as=()
if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); chown postgres "$work"; fi
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ -n "${EVIDENCE:-}" ]; then cp "$EVIDENCE" "$work/evidence"; else go build -o "$work/evidence" ./cmd/evidence; fi
if [ ! -f "$src/.done" ]; then
  rm -rf "$src"
  go run corpus/langchain-split-gen.go "$src" "$mb" >&2
  touch "$src/.done"
fi
files=("$src"/*.md)
half=$(( ${#files[@]} / 2 ))
mkdir -p "$work/a" "$work/b"
for i in "${!files[@]}"; do
  if [ "$i" -lt "$half" ]; then cp "${files[$i]}" "$work/a/"; else cp "${files[$i]}" "$work/b/"; fi
done
bytes=$(cat "${files[@]}" | wc -c)
echo "corpus: ${#files[@]} files, $bytes bytes; $runs runs; PostgreSQL fsync=$fsync" >&2

"${as[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
  -o "-c listen_addresses='' -k $work -p 5432 -c fsync=$fsync -c max_connections=100" start >/dev/null
pid=$(head -1 "$work/pg/postmaster.pid")
dsn() { echo "postgres://postgres@/$1?host=$work"; }
newdb() { "${as[@]}" "$pgbin/createdb" -h "$work" -p 5432 -U postgres "$1"; "$work/evidence" --db "$(dsn "$1")" migrate >/dev/null; }
mbps() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%.1f" % s["mb_per_s"])' "$1"; }
now() { date +%s.%N; }

for run in $(seq "$runs"); do
  rm -f "$work/e.db"
  "$work/evidence" --db "$work/e.db" --json ingest --base "$src" --chunk-size 1000 --overlap 150 --workers 2 --progress-interval 0 "$src" >"$work/bolt.json"
  newdb "r$run"
  "$work/evidence" --db "$(dsn "r$run")" --json ingest --base "$src" --chunk-size 1000 --overlap 150 --workers 2 --progress-interval 0 "$src" >"$work/pg.json"
  newdb "p$run"
  t0=$(now)
  for part in a b; do
    "$work/evidence" --db "$(dsn "p$run")" --json ingest --base "$work/$part" --chunk-size 1000 --overlap 150 --workers 1 --progress-interval 0 "$work/$part" >"$work/pair-$part.json" &
  done
  wait
  t1=$(now)
  "$work/evidence" --db "$(dsn "p$run")" audit >/dev/null
  b=$(mbps "$work/bolt.json"); p=$(mbps "$work/pg.json")
  pair=$(echo "$bytes / 1000000 / ($t1 - $t0)" | bc -l)
  printf 'run %d: bbolt 2 workers %s MB/s; PostgreSQL 2 workers %s MB/s (%.0f%%); 2 processes into one database %.1f MB/s (%.0f%%)\n' \
    "$run" "$b" "$p" "$(echo "100 * $p / $b" | bc -l)" "$pair" "$(echo "100 * $pair / $b" | bc -l)"
done
