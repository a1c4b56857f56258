#!/usr/bin/env bash
# PDF benchmark: installs poppler-utils (pdftotext) if missing, then
#  1. whole processes pinned to one core (taskset -c ${CORE:-0}), in turns,
#     RUNS times (default 3): evidence ingest of ../shared/corpus/pdf with one
#     worker into a fresh store (worker processes, chunking, validation,
#     commits), and pdftotext over the same files one process each; each run
#     prints both rates in pages/s (the pages evidence stored) and their
#     ratio, the end the medians. OLD=/path/to/evidence adds an earlier build.
#  2. unless QUICK is set, in one go test process: end-to-end ingest with one
#     worker and with two beside pdftotext, the in-process extractor, and the
#     similarity test's figure.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v pdftotext >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq poppler-utils) >/dev/null
fi
dir=../shared/corpus/pdf
core=${CORE:-0}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/evidence" ./cmd/evidence
files=("$dir"/*.pdf)
now() { date +%s.%N; }
ingest() { # BINARY: prints "seconds pages"
  rm -f "$work/p.db"
  local t0 t1
  t0=$(now)
  taskset -c "$core" "$1" --db "$work/p.db" --json ingest --base "$dir" --workers 1 --progress-interval 0 \
    "${files[@]}" >"$work/sum.json" || [ $? -eq 3 ] # files that fail (encrypted, no text) are expected
  t1=$(now)
  node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1])); let p=0; for (const f of s.files) p+=f.pages;
    console.log(process.argv[2], p)' "$work/sum.json" "$(echo "$t1 - $t0" | bc -l)"
}
poppler() {
  local t0 t1
  t0=$(now)
  taskset -c "$core" bash -c 'for f in "$@"; do pdftotext -enc UTF-8 "$f" "'"$work"'/out.txt" 2>/dev/null || true; done' _ "${files[@]}"
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratios="" oldratios=""
for i in $(seq "$runs"); do
  read -r es pages < <(ingest "$work/evidence")
  ps=$(poppler)
  line=$(printf 'run %d, core %s: evidence %.1f pages/s, pdftotext %.1f pages/s, %.2fx' "$i" "$core" \
    "$(echo "$pages / $es" | bc -l)" "$(echo "$pages / $ps" | bc -l)" "$(echo "$ps / $es" | bc -l)")
  ratios+="$(echo "$ps / $es" | bc -l) "
  if [ -n "${OLD:-}" ]; then
    read -r os _ < <(ingest "$OLD")
    line+=$(printf '; old build %.1f pages/s, %.2fx' "$(echo "$pages / $os" | bc -l)" "$(echo "$ps / $os" | bc -l)")
    oldratios+="$(echo "$ps / $os" | bc -l) "
  fi
  echo "$line"
done
printf 'median ratio to pdftotext, one worker on one core: %.2fx' "$(echo "$ratios" | median)"
[ -n "$oldratios" ] && printf ' (old build %.2fx)' "$(echo "$oldratios" | median)"
echo
[ -n "${QUICK:-}" ] && exit 0
go test -run '^$' -bench 'PDFCorpus' -benchtime 2x -count "${COUNT:-3}" ./ingest/ | tee /tmp/pdf-bench.txt
go test -run '^$' -bench 'ExtractCorpus' -benchtime 2x -count "${COUNT:-3}" ./ingest/pdf/ | tee -a /tmp/pdf-bench.txt
go test -run 'TestSimilarityToPdftotext' -v ./ingest/pdf/ | grep -Ei 'median|mean' || true
