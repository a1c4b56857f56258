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
cpu() { tail -n 1 "$work/cpu" | awk '{print $1 + $2}'; } # after "Command exited with non-zero status"
ingest() { # BINARY: prints "seconds pages cpu-seconds"
  rm -f "$work/p.db"
  local t0 t1
  t0=$(now)
  /usr/bin/time -f '%U %S' -o "$work/cpu" taskset -c "$core" "$1" --db "$work/p.db" --json ingest --base "$dir" \
    --workers 1 --progress-interval 0 "${files[@]}" >"$work/sum.json" || [ $? -eq 3 ] # some fail (encrypted, no text)
  t1=$(now)
  node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1])); let p=0; for (const f of s.files) p+=f.pages;
    console.log(process.argv[2], p, process.argv[3])' "$work/sum.json" "$(echo "$t1 - $t0" | bc -l)" "$(cpu)"
}
poppler() { # prints "seconds cpu-seconds"
  local t0 t1
  t0=$(now)
  /usr/bin/time -f '%U %S' -o "$work/cpu" taskset -c "$core" \
    bash -c 'for f in "$@"; do pdftotext -enc UTF-8 "$f" "'"$work"'/out.txt" 2>/dev/null || true; done' _ "${files[@]}"
  t1=$(now)
  echo "$(echo "$t1 - $t0" | bc -l) $(cpu)"
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# The wall-clock ratio is the target; on a shared machine the CPU-time
# ratio (user + system seconds of each pinned process tree) drifts less.
ratios="" cpuratios="" oldratios="" oldcpuratios=""
for i in $(seq "$runs"); do
  read -r es pages ec < <(ingest "$work/evidence")
  read -r ps pc < <(poppler)
  line=$(printf 'run %d, core %s: evidence %.1f pages/s (%.1fs CPU), pdftotext %.1f pages/s (%.1fs CPU), %.2fx wall, %.2fx CPU' \
    "$i" "$core" "$(echo "$pages / $es" | bc -l)" "$ec" "$(echo "$pages / $ps" | bc -l)" "$pc" "$(echo "$ps / $es" | bc -l)" "$(echo "$pc / $ec" | bc -l)")
  ratios+="$(echo "$ps / $es" | bc -l) "
  cpuratios+="$(echo "$pc / $ec" | bc -l) "
  if [ -n "${OLD:-}" ]; then
    read -r os _ oc < <(ingest "$OLD")
    line+=$(printf '; old build %.1f pages/s (%.1fs CPU), %.2fx wall, %.2fx CPU' "$(echo "$pages / $os" | bc -l)" "$oc" \
      "$(echo "$ps / $os" | bc -l)" "$(echo "$pc / $oc" | bc -l)")
    oldratios+="$(echo "$ps / $os" | bc -l) "
    oldcpuratios+="$(echo "$pc / $oc" | bc -l) "
  fi
  echo "$line"
done
printf 'median ratio to pdftotext, one worker on one core: %.2fx wall, %.2fx CPU' "$(echo "$ratios" | median)" "$(echo "$cpuratios" | median)"
[ -n "$oldratios" ] && printf ' (old build %.2fx wall, %.2fx CPU)' "$(echo "$oldratios" | median)" "$(echo "$oldcpuratios" | median)"
echo
[ -n "${QUICK:-}" ] && exit 0
go test -run '^$' -bench 'PDFCorpus' -benchtime 2x -count "${COUNT:-3}" ./ingest/ | tee /tmp/pdf-bench.txt
go test -run '^$' -bench 'ExtractCorpus' -benchtime 2x -count "${COUNT:-3}" ./ingest/pdf/ | tee -a /tmp/pdf-bench.txt
go test -run 'TestSimilarityToPdftotext' -v ./ingest/pdf/ | grep -Ei 'median|mean' || true
