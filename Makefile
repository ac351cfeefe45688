# baton — the two commands a newcomer needs are `make run` and `make test`.
GO        ?= go
PKGS      ?= ./...
OUT       ?= out
BENCHOUT  ?= bench/latest.txt
STATICCHECK_VERSION ?= v0.8.2

.PHONY: all run test test-short bench lint build cover tidy clean

all: lint test build

## run: the default experiment; the report lands in a new folder under out/
run:
	$(GO) run ./cmd/baton run --out $(OUT)

## test: the whole test suite, with the race detector
test:
	$(GO) test -race -count=1 $(PKGS)

test-short:
	$(GO) test -short $(PKGS)

## bench: every benchmark, benchstat-friendly, written to $(BENCHOUT)
bench:
	@mkdir -p $(dir $(BENCHOUT))
	$(GO) test -run '^$$' -bench . -benchmem -count 5 $(PKGS) | tee $(BENCHOUT)

## lint: go vet, gofmt and staticcheck
lint:
	$(GO) vet $(PKGS)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) $(PKGS)

## build: the baton binary in bin/
build:
	$(GO) build -o bin/baton ./cmd/baton

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
