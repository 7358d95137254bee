# creator — build, test and check.
#
#   make demo    build and run a job on the bundled sample document
#   make test    vet and run all tests (the CI entry point, see .ci/run)
#   make lint    go vet, gofmt and staticcheck
#   make fuzz    run each fuzz target briefly
#   make bench   run the benchmarks

GO        ?= go
BIN       := $(CURDIR)/bin
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
FUZZTIME  ?= 50000x
SAMPLE    := testdata/sample/retention-policy.pdf
STATICCHECK_VERSION := v0.8.2
# The packages with concurrency: the agent loop and context management, the
# model client, the workspace and its tools.
RACE_PKGS := ./workspace/... ./planner/... ./tools/... ./compaction/... ./internal/index/... ./internal/agent/... ./internal/llm/... ./internal/transcript/... ./internal/atomicfile/...

.PHONY: all build demo test race lint fuzz bench pdftotext sample-pdf clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/creator ./cmd/creator

# The README's first command: a real job on the project's own sample.
demo: build
	@out=$$($(BIN)/creator run --workspace $(CURDIR)/jobs $(SAMPLE)) && \
		echo "requirements: $$out" && echo && head -n 30 "$$(dirname $$out)/summary.md"

test:
	$(GO) vet ./...
	$(GO) test ./...
	@$(MAKE) --no-print-directory race

# The race detector needs cgo and a C compiler; without one it is skipped, not failed.
race:
	@if command -v $$($(GO) env CC) >/dev/null 2>&1 && [ "$$($(GO) env CGO_ENABLED)" = 1 ]; then \
		echo "$(GO) test -race $(RACE_PKGS)"; \
		$(GO) test -race $(RACE_PKGS); \
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
fuzz:
	$(GO) test ./workspace/ -run '^$$' -fuzz '^FuzzResolve$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/document/ -run '^$$' -fuzz '^FuzzExtractPDF$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/document/ -run '^$$' -fuzz '^FuzzChunk$$' -fuzztime $(FUZZTIME)

# The extraction benchmark runs next to pdftotext (poppler-utils, installed
# here from the system's packages) and reports the time ratio and peak memory.
bench: pdftotext
	$(GO) test -run '^$$' -bench . -benchmem ./...

pdftotext:
	@command -v pdftotext >/dev/null 2>&1 || { \
		echo "installing poppler-utils (pdftotext) for the extraction benchmark"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get install -y -q poppler-utils >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null 2>&1 && $$SUDO apt-get install -y -q poppler-utils >/dev/null 2>&1; } || \
		echo "could not install pdftotext: the benchmark runs without the comparison"; }

# The sample PDF is typeset from its Markdown source by the project itself.
sample-pdf:
	$(GO) run ./internal/pdfwrite/mksample testdata/sample/retention-policy.md testdata/sample/retention-policy.pdf

clean:
	rm -rf $(BIN)
