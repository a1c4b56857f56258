#!/usr/bin/env bash
# Markdown ingest against its peer, whole processes side by side: evidence
# ingest of a generated 30 MB Markdown corpus into a fresh store
# (--chunk-size 1000 --overlap 150, with 2 workers and with 1) and LangChain
# JS's MarkdownTextSplitter merely splitting the same files
# (langchain-split-md.mjs), run after run, in turns. Each run prints the
# wall-clock times, MB/s, the ratio to the peer's time of the same run and
# the fsyncs ingest reports, and the CPU seconds (user + system) of each
# process, which drift less than wall time on a shared machine; the end
# prints medians.
#
# Usage: [RUNS=5] [MB=30] [OLD=/path/to/old/evidence] corpus/langchain-split-bench.sh
# OLD, an earlier build, runs in the same turns, for old-vs-new ratios.
# The corpus is written once to $CORPUS (default /tmp/evidence-md-${MB}mb).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
runs=${RUNS:-5}
mb=${MB:-30}
src=${CORPUS:-${TMPDIR:-/tmp}/evidence-md-${mb}mb}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/evidence" ./cmd/evidence
if [ ! -f "$src/.done" ]; then
  rm -rf "$src"
  go run corpus/langchain-split-gen.go "$src" "$mb" >&2
  touch "$src/.done"
fi
if [ ! -d "$here/.npm/node_modules/@langchain/textsplitters" ]; then
  npm install --silent --no-save --prefix "$here/.npm" @langchain/textsplitters@1.0.2 @langchain/core@1 >&2
fi
files=("$src"/*.md)
bytes=$(cat "${files[@]}" | wc -c)
echo "corpus: ${#files[@]} files, $bytes bytes in $src; $runs runs" >&2

now() { date +%s.%N; }
# ingest NAME BINARY WORKERS: one fresh-store ingest; prints "seconds fsyncs cpu-seconds".
ingest() {
  rm -f "$work/e.db"
  local t0 t1
  t0=$(now)
  /usr/bin/time -f '%U %S' -o "$work/cpu" "$2" --db "$work/e.db" --json ingest --base "$src" \
    --chunk-size 1000 --overlap 150 --workers "$3" --progress-interval 0 "$src" >"$work/$1.json"
  t1=$(now)
  node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1]));
    if (s.ingested !== Number(process.argv[2])) { console.error("ingested", s.ingested); process.exit(1); }
    const [u, sys] = require("fs").readFileSync(process.argv[4], "utf8").trim().split(" ").map(Number);
    console.log(process.argv[3], s.fsyncs ?? "?", (u + sys).toFixed(2))' \
    "$work/$1.json" "${#files[@]}" "$(echo "$t1 - $t0" | bc -l)" "$work/cpu"
}
peer() { # prints "seconds cpu-seconds"
  local t0 t1
  t0=$(now)
  LANGCHAIN_NPM_DIR="$here/.npm" /usr/bin/time -f '%U %S' -o "$work/cpu" node "$here/langchain-split-md.mjs" "${files[@]}" >/dev/null
  t1=$(now)
  echo "$(echo "$t1 - $t0" | bc -l) $(awk '{print $1 + $2}' "$work/cpu")"
}

kinds=(new2 new1)
[ -n "${OLD:-}" ] && kinds+=(old2 old1)
declare -A times fsyncs ratios cpus cpuratios
for i in $(seq "$runs"); do
  read -r p pc < <(peer)
  times[peer]+="$p "
  cpus[peer]+="$pc "
  line=$(printf 'run %d: peer %.2fs %.1f MB/s %ss CPU' "$i" "$p" "$(echo "$bytes / 1000000 / $p" | bc -l)" "$pc")
  for k in "${kinds[@]}"; do
    bin="$work/evidence"
    [ "${k:0:3}" = old ] && bin=$OLD
    read -r s f c < <(ingest "$k" "$bin" "${k:3}")
    times[$k]+="$s "
    cpus[$k]+="$c "
    cpuratios[$k]+="$(echo "$pc / $c" | bc -l) "
    fsyncs[$k]+="$f "
    ratios[$k]+="$(echo "$p / $s" | bc -l) "
    line+=$(printf '; %s %.2fs %.1f MB/s %.2fx peer %s fsyncs %ss CPU' "$k" "$s" "$(echo "$bytes / 1000000 / $s" | bc -l)" "$(echo "$p / $s" | bc -l)" "$f" "$c")
  done
  echo "$line"
  # alternate the order of the evidence builds from run to run
  kinds=("${kinds[@]:1}" "${kinds[0]}")
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
pm=$(echo "${times[peer]}" | median)
printf 'median: peer %.2fs %.1f MB/s, %ss CPU\n' "$pm" "$(echo "$bytes / 1000000 / $pm" | bc -l)" "$(echo "${cpus[peer]}" | median)"
for k in $(printf '%s\n' "${!fsyncs[@]}" | sort); do
  m=$(echo "${times[$k]}" | median)
  printf 'median: %s %.2fs %.1f MB/s, %.2fx the peer (median of the runs\x27 ratios), %s fsyncs, %ss CPU, %.2fx the peer\x27s CPU\n' "$k" "$m" \
    "$(echo "$bytes / 1000000 / $m" | bc -l)" "$(echo "${ratios[$k]}" | median)" "$(echo "${fsyncs[$k]}" | median)" \
    "$(echo "${cpus[$k]}" | median)" "$(echo "${cpuratios[$k]}" | median)"
done
