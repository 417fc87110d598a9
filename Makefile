# Peregrine — the two commands a user needs are `make run` and `make test`;
# both install what they need first (`make deps`, idempotent and quick).
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
# peregrine-aeron: scripts/deps.sh puts a cmake >= 3.30 (pip's) in ~/.local/bin for the Aeron C build.
export PATH := $(HOME)/.local/bin:$(PATH)
CARGO ?= cargo
PEREGRINE := target/release/peregrine
SHARED ?= $(abspath ../shared)
export PEREGRINE_SHARED := $(SHARED)
export PEREGRINE_ACCEPTANCE_DIR ?= $(SHARED)/quickfix-acceptance

.PHONY: all deps build run test check fmt clippy unit smoke acceptance bench-codec bench-typed fuzz clean sbe

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
	$(CARGO) test --workspace

smoke: build
	$(PEREGRINE) bench codec --smoke --out target/bench-results/smoke-codec.json
	$(PEREGRINE) bench typed --smoke --out target/bench-results/smoke-typed.json

acceptance: build
	@bash scripts/acceptance.sh

bench-codec: build
	$(PEREGRINE) bench codec

bench-typed: build
	$(PEREGRINE) bench typed

## fuzz: the cargo-fuzz decoder target (needs the nightly toolchain; not run in CI)
fuzz:
	cd fuzz && $(CARGO) +nightly fuzz run decode -- -max_total_time=60

## sbe: regenerate crates/peregrine-sbe/src/generated from crates/peregrine-aeron/sbe/orders.xml
SBE_VERSION := 1.38.1
SBE_JAR := $(HOME)/.m2/repository/uk/co/real-logic/sbe-all/$(SBE_VERSION)/sbe-all-$(SBE_VERSION).jar
SBE_SCHEMA := crates/peregrine-aeron/sbe/orders.xml
SBE_OUT := crates/peregrine-sbe/src/generated
sbe:
	@test -f $(SBE_JAR) || bash scripts/deps.sh
	rm -rf target/sbe-gen && mkdir -p target/sbe-gen
	java -Dsbe.output.dir=target/sbe-gen -Dsbe.target.language=Rust \
	     -Dsbe.validation.stop.on.error=true -Dsbe.validation.warnings.fatal=true \
	     -jar $(SBE_JAR) $(SBE_SCHEMA)
	rm -rf $(SBE_OUT) && mkdir -p $(SBE_OUT)
	cp target/sbe-gen/peregrine_sbe/src/*.rs $(SBE_OUT)/
	rustfmt --edition 2021 $(SBE_OUT)/lib.rs

clean:
	$(CARGO) clean
