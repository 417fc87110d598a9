# Peregrine — the two commands a user needs are `make run` and `make test`;
# both install what they need first (`make deps`, idempotent and quick).
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
CARGO ?= cargo
PEREGRINE := target/release/peregrine
SHARED ?= $(abspath ../shared)
export PEREGRINE_SHARED := $(SHARED)
export PEREGRINE_ACCEPTANCE_DIR ?= $(SHARED)/quickfix-acceptance

.PHONY: all deps build run test check fmt clippy unit smoke acceptance bench-codec bench-typed fuzz clean

all: build

## deps: every system package, Maven artifact and peer harness the build and benchmarks need
deps:
	@bash scripts/deps.sh

build: deps
	$(CARGO) build --release --workspace

## run: until the trading topology lands, the codec benchmark with its peers
run: build
	$(PEREGRINE) bench codec

## test: formatting, lints, every test, a smoke run of every benchmark, the acceptance suite
test: deps check unit smoke acceptance

check:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

unit:
	$(CARGO) test --workspace --release

smoke: build
	$(PEREGRINE) bench codec --smoke --out target/bench-results/smoke-codec.json

acceptance: build
	@bash scripts/acceptance.sh

bench-codec: build
	$(PEREGRINE) bench codec

## fuzz: the cargo-fuzz decoder target (needs the nightly toolchain; not run in CI)
fuzz:
	cd fuzz && $(CARGO) +nightly fuzz run decode -- -max_total_time=60

clean:
	$(CARGO) clean
