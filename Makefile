# baton — the two commands a newcomer needs are `make run` and `make test`.
GO        ?= go
PKGS      ?= ./...
OUT       ?= out
BENCHOUT  ?= bench/latest.txt
# bench: samples per benchmark (benchstat wants at least 6), time per
# sample, and the whole-sweep benchmark's trials (the default protocol's).
BENCHCOUNT  ?= 6
BENCHTIME   ?= 0.3s
SWEEPCOUNT  ?= 6
SWEEPTRIALS ?= 20
# bench: pairs of 1- and 2-worker sweeps behind the speed-up figure
SPEEDUPPAIRS ?= 8
STATICCHECK_VERSION ?= v0.8.2
# The commit the binary is built from, and whether tracked files differ
# from it, stamped into baton (the manifest, the report and baton version
# name it): go run stamps nothing, and go build's -buildvcs does not work
# in a git worktree.
VCS_REVISION := $(shell git rev-parse HEAD 2>/dev/null)
VCS_MODIFIED := $(shell if [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then echo true; else echo false; fi)
LDFLAGS      ?= -X github.com/baton-lab/baton/internal/version.revision=$(VCS_REVISION) -X github.com/baton-lab/baton/internal/version.modified=$(VCS_MODIFIED)

.PHONY: all run test test-short test-browser bench lint build cover tidy clean

all: lint test build

## run: the default experiment; the report lands in a new folder under out/
## (out/<protocol>-<seed>-<hash>, then -2, -3, … on later runs)
run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/baton run --out $(OUT)

## test: the whole test suite, with the race detector where cgo has a C
## compiler (the race detector needs one); without, the same tests without it.
## Under the race detector the selection-against-full-execution check runs a
## slice of each mission's scenarios, so it runs once more at full size
## without it (about 10 s).
FULLSIZE := ^TestSelectionMatchesFullExecution$$
test:
	@if [ "$$($(GO) env CGO_ENABLED)" = "1" ] && command -v "$$($(GO) env CC)" >/dev/null 2>&1; then \
		echo "$(GO) test -race -count=1 $(PKGS)"; $(GO) test -race -count=1 $(PKGS) && \
		{ echo "$(GO) test -count=1 -run '$(FULLSIZE)' ./experiment"; $(GO) test -count=1 -run '$(FULLSIZE)' ./experiment; }; \
	else \
		echo "no C compiler for cgo: running the tests without -race"; $(GO) test -count=1 $(PKGS); \
	fi

test-short:
	$(GO) test -short $(PKGS)

## test-browser: the browser test of report.html alone (headless Chromium:
## apt-get install chromium), keeping its screenshots in $(SHOTS)
SHOTS ?= out/screenshots
test-browser:
	@mkdir -p $(SHOTS)
	BATON_BROWSER_REQUIRED=1 BATON_SCREENSHOTS=$(abspath $(SHOTS)) $(GO) test -count=1 -v ./browser

## bench: every benchmark, benchstat-friendly, written to $(BENCHOUT)
## (about five minutes); the whole-sweep benchmark runs the default
## protocol at workers 1 and 2, and the speed-up benchmark the median ratio
## of $(SPEEDUPPAIRS) back-to-back pairs. Compare two files with benchstat old.txt new.txt.
bench:
	@mkdir -p $(dir $(BENCHOUT))
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkSweep' -benchmem -count $(BENCHCOUNT) -benchtime $(BENCHTIME) $(PKGS) > $(BENCHOUT).tmp
	$(GO) test -run '^$$' -bench '^BenchmarkSweep$$' -benchmem -count $(SWEEPCOUNT) -benchtime 1x ./experiment -sweep.trials $(SWEEPTRIALS) >> $(BENCHOUT).tmp
	$(GO) test -run '^$$' -bench '^BenchmarkSweepSpeedup$$' -benchtime $(SPEEDUPPAIRS)x ./experiment -sweep.trials $(SWEEPTRIALS) >> $(BENCHOUT).tmp
	@mv $(BENCHOUT).tmp $(BENCHOUT)
	@grep -E '^(Benchmark|goos|goarch|pkg|cpu)' $(BENCHOUT)

## lint: go vet, gofmt and staticcheck
lint:
	$(GO) vet $(PKGS)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) $(PKGS)

## build: the baton binary in bin/
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/baton ./cmd/baton

## cover: test coverage, summary on stdout, HTML in cover.html
cover:
	$(GO) test -coverprofile=cover.out $(PKGS)
	$(GO) tool cover -func=cover.out | tail -n 1
	$(GO) tool cover -html=cover.out -o cover.html

## tidy: fail when go.mod or go.sum are not tidy
tidy:
	$(GO) mod tidy -diff

clean:
	rm -rf bin cover.out cover.html
