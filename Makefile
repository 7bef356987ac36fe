# kisa: `make run` starts everything locally, `make test` runs the tests.
# Both first run scripts/services.sh, which finds or starts PostgreSQL,
# Redis, MinIO and Chromium and writes $(ENV_FILE); variables you set win.
SHELL := /bin/bash
.DEFAULT_GOAL := help
GO ?= go
ENV_FILE := .data/services.env
WITH_ENV := source ./$(ENV_FILE) &&

# Fuzz targets, one "package:FuzzName" a line; `make fuzz` runs each for
# FUZZCOUNT inputs, `make test` for FUZZCOUNT_SHORT after the tests. The
# budgets are counts, never durations: Go 1.26's fuzz coordinator can fail
# a target that found nothing with "context deadline exceeded" when a
# -fuzztime duration ends (golang/go#75804, fixed in Go 1.27); a count
# takes no deadline.
FUZZ_TARGETS := \
	./api:FuzzOverviewRequest \
	./api:FuzzAuthorization \
	./worker/serp:FuzzExtract \
	./worker/serp:FuzzExtractAIMode \
	./worker/serp:FuzzExtractWeb \
	./worker/assistants:FuzzReadChatGPT \
	./worker/assistants:FuzzReadPerplexity \
	./worker/assistants:FuzzReadGemini \
	./worker/assistants:FuzzReadCopilot
FUZZCOUNT ?= 200000x
FUZZCOUNT_SHORT ?= 3000x
# run-fuzz runs every target for the count of inputs given as $(1).
run-fuzz = for t in $(FUZZ_TARGETS); do \
	$(GO) test -run '^$$' -fuzz "^$${t\#\#*:}\$$" -fuzztime $(1) "$${t%%:*}" || exit 1; done

.PHONY: help build services run test openapi-check fuzz soak bench bench-go memory lint clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z][a-z-]*:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/kisa, bin/serpfixture (the offline search engine) and bin/kisa-bench
	$(GO) build -o bin/kisa ./cmd/kisa
	$(GO) build -o bin/serpfixture ./cmd/serpfixture
	$(GO) build -o bin/kisa-bench ./cmd/kisa-bench

services: ## find or start Postgres, Redis, MinIO, Chromium; write .data/services.env
	@bash scripts/services.sh

run: services build ## migrate, make a demo key, run serpfixture + worker + web (and the dashboard) on :8080
	@$(WITH_ENV) bash scripts/run.sh

test: services openapi-check ## go vet, go test -race against the local services, then each fuzz target for FUZZCOUNT_SHORT inputs
	$(WITH_ENV) $(GO) vet ./... && $(GO) test -race -count=1 -timeout 30m ./... && $(call run-fuzz,$(FUZZCOUNT_SHORT))

openapi-check: ## lint api/openapi.yaml (Spectral, Redocly) and compile an oapi-codegen client of it
	@bash scripts/openapi-check.sh

fuzz: services ## run each fuzz target for FUZZCOUNT inputs (default 200000x); failures land in testdata/fuzz
	$(WITH_ENV) $(call run-fuzz,$(FUZZCOUNT))

soak: services ## SIGKILL a worker mid-job 100 times (TestKillLoop; KISA_SOAK_KILLS to change)
	$(WITH_ENV) KISA_SOAK_KILLS=$${KISA_SOAK_KILLS:-100} $(GO) test -count=1 -timeout 30m -run '^TestKillLoop$$' -v ./cmd/kisa

bench: services build ## side-by-side suite against baselines (BENCH_QUICK=1: small counts); writes bench/results/
	@$(WITH_ENV) bin/kisa-bench

bench-go: services ## the go test benchmarks (api, worker/browser)
	$(WITH_ENV) $(GO) test -run '^$$' -bench . -benchmem ./...

memory: services build ## measure a worker's memory (PSS, with Chromium) at 1, 2 and 4 tabs under load
	$(WITH_ENV) $(GO) run ./cmd/memprobe --bin bin/kisa --tabs 1,2,4

lint: ## gofmt check and go vet
	@files=$$(gofmt -l .); \
	if [ -n "$$files" ]; then echo "gofmt needed:"; echo "$$files"; exit 1; fi
	$(GO) vet ./...

clean: ## remove build and coverage output (keeps .data: local database, secrets)
	rm -rf bin/ coverage.out coverage.html
