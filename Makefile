# creator — build, test and check.
#
#   make demo    build and run a job on the bundled sample document
#   make test    vet, run all tests and every benchmark once (the CI entry point, see .ci/run)
#   make lint    go vet, gofmt and staticcheck
#   make fuzz    run each fuzz target briefly
#   make quality the built-in model on every corpus document with a gold list: the scoreboard
#   make bench   run the benchmarks
#   make bench-parallel  NIST SP 800-53r3 with --parallel 0, 1, 4, 8 against a slow server
#   make stress  kill a job 100 times at random and resume it; 3 queue workers killed 10 times over 30 documents (shared folder, then a bucket); longer fuzzing
#   make bench-queue  documents per minute with 1, 2 and 4 queue workers against a slow server
#   make bench-objectstore  a job on local disk and on an S3-protocol bucket 20 ms a request away
#   make bench-smoke  every benchmark once, small (make test runs it)
#   make bench-extract  creator extract against pdftotext on NIST SP 800-53r3, paired runs
#   make bench-huge  the phases of documents at the limits, each in a process of its own: peak memory
#   make faults  NIST SP 800-63B through 2 × 20 draws of 15% model faults
#   make screenshot  the README's picture of the review page

GO        ?= go
BIN       := $(CURDIR)/bin
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
FUZZTIME  ?= 50000x
SAMPLE    := testdata/sample/retention-policy.pdf
STATICCHECK_VERSION := v0.8.2
# The packages with concurrency: PDF pages read at once, the agent loop and
# context management, the model client, the workspace and its tools, the
# requirement store and the review server.
RACE_PKGS := ./internal/job/... ./internal/fakellm/... ./internal/document/... ./workspace/... ./planner/... ./tools/... ./compaction/... ./internal/index/... ./internal/tokens/... ./internal/agent/... ./internal/llm/... ./internal/transcript/... ./internal/atomicfile/... ./internal/jobrun/... ./internal/progress/... ./internal/review/... ./internal/reqstore/... ./internal/queue/... ./internal/app/... ./internal/batch/... ./internal/jsonl/... ./internal/remote/...

.PHONY: all build demo test quality corpus race lint fuzz bench bench-smoke bench-parallel bench-queue bench-objectstore bench-extract bench-huge stress faults pdftotext postgresql chromium screenshot sample-pdf bad-docs clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/creator ./cmd/creator

# The README's first command: a real job on the project's own sample, in
# the default workspace (./workspace here, or $$CREATOR_WORKSPACE), so that
# `bin/creator list` and `status` show it afterwards.
demo: build
	@out=$$($(BIN)/creator run $(SAMPLE)) && \
		echo "requirements: $$out" && echo && head -n 30 "$$(dirname $$out)/summary.md"

# The publish tests start their own PostgreSQL server from the system's
# postgresql package; the review page is tested in the system's Chromium.
test: postgresql chromium corpus
	$(GO) vet ./...
	$(GO) test ./...
	@$(MAKE) --no-print-directory race
	@$(MAKE) --no-print-directory bench-smoke

# Every benchmark of the project once and small (CREATOR_BENCH_SMOKE=1;
# each benchmark's comment says what it shrinks and which of its goals it
# then reports rather than holds), so that none breaks unnoticed; make
# test runs it.
bench-smoke: postgresql corpus
	CREATOR_BENCH_SMOKE=1 $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 20m ./...

# The scoreboard: the built-in model on every document of ../shared/corpus
# that has a gold list — requirements, strict recall and precision,
# source_id, quote defects, time — each held to its floor (make test runs
# it too; this prints the board).
quality: corpus
	@log=$$(mktemp); $(GO) test -count=1 ./cmd/creator -run '^TestQuality$$' -v >$$log 2>&1; rc=$$?; \
		sed -n -e 's/^        //' -e '/^|/p' -e '/^\* /p' $$log; grep -E '^\s+quality_test.go:[0-9]+: .*(below its floor|defect|margin|markup)|^(FAIL|ok)' $$log; rm -f $$log; exit $$rc

# The tests of real documents read ../shared/corpus in place; without it
# they are skipped, and this says so once (CREATOR_REQUIRE_CORPUS=1, which
# .ci/run sets, makes them fail instead).
corpus:
	@[ -d ../shared/corpus ] || echo "note: ../shared/corpus is missing: the tests on real documents (corpus recall/precision, extraction fidelity, kills and faults on GoBD, the benchmarks) are skipped$${CREATOR_REQUIRE_CORPUS:+, and fail because CREATOR_REQUIRE_CORPUS is set}"

# The race detector needs cgo and a C compiler; without one it is skipped, not failed.
race:
	@if command -v $$($(GO) env CC) >/dev/null 2>&1 && [ "$$($(GO) env CGO_ENABLED)" = 1 ]; then \
		echo "$(GO) test -race $(RACE_PKGS)"; \
		$(GO) test -race $(RACE_PKGS) && \
		$(GO) test -race ./cmd/creator -run '^(TestParallelJobs|TestProgress.*)$$'; \
	else \
		echo "skipping go test -race: no C compiler for cgo"; \
	fi

lint: $(BIN)/staticcheck
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(BIN)/staticcheck ./...

$(BIN)/staticcheck:
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# Count-based fuzz limits: duration-based ones hit a coordinator race in Go 1.26
# (go.dev/issue/75804) that reports "context deadline exceeded" without a crasher.
# A short minimisation time keeps the fuzzer from stalling for minutes while it
# shrinks each new input (go.dev/issue/51484).
fuzz:
	$(GO) test ./workspace/ -run '^$$' -fuzz '^FuzzResolve$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./internal/document/ -run '^$$' -fuzz '^FuzzExtractPDF$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./internal/document/ -run '^$$' -fuzz '^FuzzChunk$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./tools/ -run '^$$' -fuzz '^FuzzToolArguments$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./internal/toolcall/ -run '^$$' -fuzz '^FuzzFromText$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./internal/toolcall/ -run '^$$' -fuzz '^FuzzArguments$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s

# The extraction benchmark runs next to pdftotext (poppler-utils, installed
# here from the system's packages) and reports the ratio of the median
# times and the peak memory; medians need more runs than the default.
bench: pdftotext
	$(GO) test -run '^$$' -bench . -skip '^(BenchmarkExtractPDF|BenchmarkParallelNIST80053|BenchmarkQueueWorkers|BenchmarkHuge)$$' -benchmem ./...
	$(GO) test ./internal/document/ -run '^$$' -bench '^BenchmarkExtractPDF$$' -benchtime 21x

# Whole jobs on NIST SP 800-53r3 (from ../shared/corpus) with --parallel 0,
# 1, 4 and 8, the built-in model served over HTTP by a server with 8 slots
# that holds each request 50 ms + 0.02 ms per prompt token: wall time,
# requests, peak, total and effective prompt tokens, speed-up (about 5
# minutes on 2 cores; CREATOR_BENCH_LATENCY_SCALE=0.1 waits a tenth).
bench-parallel:
	$(GO) test ./cmd/creator -run '^$$' -bench '^BenchmarkParallelNIST80053$$' -benchtime 1x -timeout 30m

# creator worker processes (1, 2, 4) on one PostgreSQL queue of 16 small
# documents, the built-in model served over HTTP by a server with 32 slots
# (50 ms + 0.02 ms per prompt token): documents per minute and speed-up;
# fails unless 4 workers reach 3 times one worker's throughput.
bench-queue: postgresql
	$(GO) test ./cmd/creator -run '^$$' -bench '^BenchmarkQueueWorkers$$' -benchtime 1x -timeout 60m

# The built-in job on NIST SP 800-63B on local disk and with its workspace
# on an S3-protocol bucket (in-process, 20 ms added to every request;
# CREATOR_BENCH_LATENCY_MS=N for another): both times, their ratio and the
# requests to the store.
bench-objectstore:
	$(GO) test ./internal/app -run '^$$' -bench '^BenchmarkObjectStore$$' -benchtime 3x -timeout 30m

# The whole of creator extract (a process, the text written with -o)
# against pdftotext on NIST SP 800-53r3 (from ../shared/corpus;
# EXTRACT_PDF=path for another): 7 runs paired, creator then pdftotext,
# the median time of each and their ratio.
EXTRACT_PDF  ?= ../shared/corpus/NIST.SP.800-53r3.pdf
EXTRACT_RUNS ?= 7
bench-extract: build pdftotext
	@d=$$(mktemp -d); for i in $$(seq $(EXTRACT_RUNS)); do \
		s=$$(date +%s%N); $(BIN)/creator extract $(EXTRACT_PDF) -o $$d/creator.txt 2>/dev/null || exit 1; m=$$(date +%s%N); \
		pdftotext $(EXTRACT_PDF) $$d/pdftotext.txt || exit 1; e=$$(date +%s%N); \
		echo "$$(( (m-s)/1000000 )) $$(( (e-m)/1000000 ))"; \
	done >$$d/times; \
	a=$$(cut -d' ' -f1 $$d/times | sort -n | sed -n "$$(( ($(EXTRACT_RUNS)+1)/2 ))p"); \
	b=$$(cut -d' ' -f2 $$d/times | sort -n | sed -n "$$(( ($(EXTRACT_RUNS)+1)/2 ))p"); \
	rm -rf $$d; \
	echo "$$(basename $(EXTRACT_PDF)): creator extract $$a ms, pdftotext $$b ms (medians of $(EXTRACT_RUNS) paired runs), ratio $$(awk "BEGIN { printf \"%.2f\", $$a / $$b }")"

# The phases of documents at the limits, each in a process of its own: peak
# resident memory and time, and a failure for a phase over 1 GB. At the
# --max-text limit: 32 MB of Markdown and of text, a PDF of 28 MB of text,
# the Markdown written as one line; at the limits of lines and pages: a
# DOCX of a million one-letter paragraphs, a PDF of 100,000 pages; over
# them, refused: a DOCX of 7.3 million paragraphs, a PDF of 800,000 pages.
bench-huge:
	$(GO) test ./internal/index -run '^$$' -bench '^BenchmarkHuge$$' -benchtime 1x -timeout 90m

pdftotext:
	@command -v pdftotext >/dev/null 2>&1 || { \
		echo "installing poppler-utils (pdftotext) for the extraction benchmark"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get install -y -q poppler-utils >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null 2>&1 && $$SUDO apt-get install -y -q poppler-utils >/dev/null 2>&1; } || \
		echo "could not install pdftotext: the benchmark runs without the comparison"; }

postgresql:
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		echo "installing postgresql for the publish tests"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get install -y -q postgresql >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null 2>&1 && $$SUDO apt-get install -y -q postgresql >/dev/null 2>&1; } || \
		echo "could not install postgresql: the publish tests are skipped"; }

chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
		echo "installing chromium for the review page's browser test"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get install -y -q chromium >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null 2>&1 && $$SUDO apt-get install -y -q chromium >/dev/null 2>&1; } || \
		echo "could not install chromium: the browser test is skipped"; }

# The README's picture of the review page, taken by its browser test.
screenshot: chromium
	$(GO) test -count=1 ./cmd/creator -run '^TestReviewInBrowser$$' -review-screenshot $(CURDIR)/docs/review.png

# A job on GoBD killed with SIGKILL 100 times at random moments and resumed
# each time, and 100 times during its sub-agents' fan-out (--parallel 8);
# prints how many jobs ended with the output of an uninterrupted run.
# (make test does 10 and 5 kills.) Then 3 queue workers on PostgreSQL
# killed 10 times at random and restarted over 30 documents (make test: 12
# documents, 5 kills). Also longer fuzzing.
STRESS_KILLS ?= 100
STRESS_QUEUE_DOCS ?= 30
STRESS_QUEUE_KILLS ?= 10
stress: postgresql
	@log=$$(mktemp); CREATOR_STRESS_KILLS=$(STRESS_KILLS) $(GO) test -count=1 -timeout 60m ./cmd/creator \
		-run '^TestKillAtRandomMoments(DuringFanOut)?$$' -v >$$log 2>&1; rc=$$?; \
		grep -E '^[0-9]+ kills over|seed|differs|FAIL' $$log; rm -f $$log; exit $$rc
	@log=$$(mktemp); CREATOR_STRESS_QUEUE_DOCS=$(STRESS_QUEUE_DOCS) CREATOR_STRESS_QUEUE_KILLS=$(STRESS_QUEUE_KILLS) $(GO) test -count=1 -timeout 30m ./cmd/creator \
		-run '^TestQueueKilledWorkers(OnABucket)?$$' -v >$$log 2>&1; rc=$$?; \
		grep -E '^[0-9]+ kills of|seed|differs|FAIL' $$log; rm -f $$log; exit $$rc
	@$(MAKE) --no-print-directory fuzz FUZZTIME=100000x

# NIST SP 800-63B (from ../shared/corpus) through 20 draws of 15% faults of
# every kind, and 20 of four kinds (429, 500, broken arguments, unknown
# tool); prints how many jobs completed with the clean run's requirements
# and how long it took. (make test does a small standard.)
faults:
	@log=$$(mktemp); CREATOR_FAULT_SEEDS_DOC=800-63b $(GO) test -count=1 -timeout 60m ./cmd/creator \
		-run '^TestFaultSeedsLong$$' -v >$$log 2>&1; rc=$$?; \
		grep -E 'jobs completed|exit [1-9]|requirements;|FAIL|no .* fault' $$log; rm -f $$log; exit $$rc

# The hostile-document corpus is generated by the project.
bad-docs:
	$(GO) run ./internal/badfiles/mkbad testdata/bad

# The sample PDF is typeset from its Markdown source by the project itself.
sample-pdf:
	$(GO) run ./internal/pdfwrite/mksample testdata/sample/retention-policy.md testdata/sample/retention-policy.pdf
	$(GO) run ./internal/pdfwrite/mkchecklist testdata/shapes/verification-checklist.md testdata/shapes/verification-checklist.pdf
	$(GO) run ./internal/pdfwrite/mkcatalog testdata/shapes/catalog-rev4.txt testdata/shapes/catalog-rev4.pdf

clean:
	rm -rf $(BIN)
