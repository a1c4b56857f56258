#!/usr/bin/env bash
# PDF benchmark: installs poppler-utils (pdftotext) if missing, then runs, in
# one go test process, evidence's end-to-end PDF ingest of ../shared/corpus/pdf
# with one worker and with two, and pdftotext over the same files, plus the
# in-process extractor benchmark and the similarity test's figure.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v pdftotext >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq poppler-utils) >/dev/null
fi
go test -run '^$' -bench 'PDFCorpus' -benchtime 2x -count "${COUNT:-3}" ./ingest/ | tee /tmp/pdf-bench.txt
go test -run '^$' -bench 'ExtractCorpus' -benchtime 2x -count "${COUNT:-3}" ./ingest/pdf/ | tee -a /tmp/pdf-bench.txt
go test -run 'TestSimilarityToPdftotext' -v ./ingest/pdf/ | grep -Ei 'median|mean' || true
