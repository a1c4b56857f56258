# evidence: make targets a newcomer can guess.
GO      ?= go
BIN     := bin/evidence
DEMO_DB := demo.db
PKGS    := ./...

.PHONY: all build test clients-test faults race lint fuzz bench demo eval-demo run clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/evidence

## test: unit, golden, CLI and script tests (uses ../shared/corpus when present), then faults and clients-test
test:
	$(GO) test -count=1 $(PKGS)
	@$(MAKE) --no-print-directory faults
	@$(MAKE) --no-print-directory clients-test

## faults: the fault campaign (faults/): kill -9 of ingest, rebuild, delete and serve at random points,
## each followed by audit and acknowledged-write checks, and disk full on a tmpfs (skipped where it cannot
## be mounted); prints a table. FAULT_KILLS=1000 for the long run (some 20 minutes), FAULT_SEED=N to
## replay one, EVIDENCE_BIN=path to test another build (before-and-after figures).
FAULT_KILLS   ?= 50
FAULT_TIMEOUT ?= 30m
faults:
	EVIDENCE_FAULTS=1 EVIDENCE_FAULT_KILLS=$(FAULT_KILLS) $(if $(FAULT_SEED),EVIDENCE_FAULT_SEED=$(FAULT_SEED)) \
	  $(GO) test -count=1 -v -timeout=$(FAULT_TIMEOUT) ./faults/

## clients-test: the Python and TypeScript clients and docs/examples against a real `evidence serve`.
## Needs python3 (Python) and node with npm (TypeScript: npm ci installs the pinned typescript once);
## each part without its tools prints a SKIP line, unless CLIENTS_REQUIRED=1 (CI), where that fails.
clients-test: build
	@if command -v python3 >/dev/null 2>&1; then \
	  echo "== clients/python (python3 -m unittest)"; \
	  (cd clients/python && EVIDENCE_BIN=$(CURDIR)/$(BIN) python3 -m unittest) || exit 1; \
	  echo "== docs/examples"; docs/examples/run.sh $(BIN) || exit 1; \
	elif [ "$(CLIENTS_REQUIRED)" = 1 ]; then echo "FAIL: python3 not found: clients/python and docs/examples cannot run" >&2; exit 1; \
	else echo "SKIP: clients/python and docs/examples: python3 not found"; fi
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  echo "== clients/typescript (tsc, node --test)"; \
	  cd clients/typescript && { [ -x node_modules/.bin/tsc ] || npm ci --no-audit --no-fund --loglevel=error; } && \
	  EVIDENCE_BIN=$(CURDIR)/$(BIN) npm test --silent || exit 1; \
	elif [ "$(CLIENTS_REQUIRED)" = 1 ]; then echo "FAIL: node or npm not found: clients/typescript cannot run" >&2; exit 1; \
	else echo "SKIP: clients/typescript: node or npm not found"; fi

## race: the packages with concurrency (store caches, server, trace queue) under the race detector
race:
	$(GO) test -count=1 -race ./store/ ./resolve/... ./verify/ ./verify/eval/ ./server/ ./cmd/evidence/

## lint: gofmt, go vet and staticcheck (pinned in go.mod's tool block)
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)
	@# Unix-only calls stay behind build tags: the other systems must build.
	GOOS=windows $(GO) build -o /dev/null ./...
	GOOS=darwin $(GO) build -o /dev/null ./...
	GOOS=freebsd $(GO) build -o /dev/null ./...

## fuzz: a short run of every fuzz target (FUZZTIME=30s to go longer)
FUZZTIME ?= 15s
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) $$pkg; \
	  done; done

## bench: Go benchmarks; BENCHCOUNT=6 and benchstat for comparisons
BENCHCOUNT ?= 1
BENCHTIME  ?= 1s
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=$(BENCHCOUNT) -benchtime=$(BENCHTIME) $(PKGS) | tee bench.txt
	$(GO) tool benchstat bench.txt

## demo: build, ingest the sample corpus into demo.db, summarize and resolve a chunk
demo: build
	@rm -f $(DEMO_DB)
	$(BIN) --db $(DEMO_DB) ingest corpus/sample
	$(BIN) --db $(DEMO_DB) docs
	@echo; echo "== resolve the first chunk of the expense policy"
	$(BIN) --db $(DEMO_DB) resolve $$($(BIN) --db $(DEMO_DB) chunks corpus/sample/expense-policy.md | head -1 | sed 's/.*"chunk_id":"\([^"]*\)".*/\1/')
	@echo; $(BIN) --db $(DEMO_DB) audit

## eval-demo: the release gate on the sample corpus (docs/eval.md); needs python3
eval-demo: build
	corpus/eval/demo.sh $(BIN)

run: demo

clean:
	rm -rf bin $(DEMO_DB) bench.txt eval-demo
