# Peregrine — the two commands a user needs are `make run` and `make test`;
# both install what they need first (`make deps`, idempotent and quick).
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
# peregrine-aeron: scripts/deps.sh puts a cmake >= 3.30 (pip's) in ~/.local/bin for the Aeron C build.
export PATH := $(HOME)/.local/bin:$(PATH)
CARGO ?= cargo
# Binaries are where cargo puts them: CARGO_TARGET_DIR when set, else target/.
TARGET_DIR := $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),target)
PEREGRINE := $(TARGET_DIR)/release/peregrine
# `make test` builds once, in the test profile (our code at opt-level 1, dependencies at 2):
# every test of the workspace with the command line's `ha` feature (its tests of an acceptor
# on etcd) and the typed messages of
# every FIX version (the crates ask for FIX 4.4 only; the `peregrine` crate's prelude
# with all of them at once). Its smoke, examples and acceptance stages run the binaries
# that build made (`cargo test` builds the binaries and examples of the packages it tests:
# target/debug/peregrine-bench beside target/debug/peregrine, which `peregrine bench` runs);
# a fat-LTO release build took about 5 of its minutes. `make run` and `make bench-*` run the
# release build. clippy is given the same features, so that the build scripts' work (Aeron's
# and SQLite's C) is shared with it.
# The features other than the FIX versions': the ones `docs` builds with too, with the examples
# (whose dev-dependencies make cargo unify features as clippy's --all-targets did), so that
# rustdoc finds every dependency and build script (syn's features, Aeron's cmake) as clippy
# left them; without both, `docs` rebuilt them: 271-285 s, of which rustdoc was 41 s.
WORKSPACE_FEATURES := peregrine-cli/ha,peregrine/aeron,peregrine/ha
FIX_FEATURES := peregrine/fix40,peregrine/fix41,peregrine/fix42,peregrine/fix43,peregrine/fixt11,peregrine/fix50,peregrine/fix50sp1,peregrine/fix50sp2,peregrine-messages/fix40,peregrine-messages/fix41,peregrine-messages/fix42,peregrine-messages/fix43,peregrine-messages/fix44,peregrine-messages/fixt11,peregrine-messages/fix50,peregrine-messages/fix50sp1,peregrine-messages/fix50sp2
UNIT_FEATURES := $(WORKSPACE_FEATURES),$(FIX_FEATURES)
TEST_WORKSPACE := $(CARGO) test --workspace --features $(UNIT_FEATURES)
TEST_PEREGRINE := $(TARGET_DIR)/debug/peregrine
# The QuickFIX acceptance scripts are the repository's copy, acceptance/quickfix (the
# default of every reader); set PEREGRINE_ACCEPTANCE_DIR to run another copy.

.PHONY: all deps build test-build fuzz-smoke run test check package-check fmt clippy unit miri docs smoke examples acceptance sim sim-smoke fuzz-session bench-codec bench-typed bench-e2e bench-roundtrip bench-send bench-scale bench-gateway fuzz clean sbe monitoring

all: build

## deps: every system package, Maven artifact and peer harness the build and benchmarks need
deps:
	@bash scripts/deps.sh

# The binaries `make run`, the benchmarks and `make test` run (fat LTO makes each link minutes
# long, so the other crates' tools are built when asked: cargo build --release -p <crate>);
# `peregrine` (package peregrine-cli) with its `ha` feature (high availability on etcd;
# without it the binary needs no protoc: what `cargo install` gives), and beside it
# `peregrine-bench` (the benchmarks and the topology: Aeron's C build), which `peregrine
# bench ...` and `peregrine run` run.
build: deps
	$(CARGO) build --release -p peregrine-cli -p peregrine-bench -p peregrine-acceptance --bin peregrine --bin peregrine-bench --bin peregrine-acceptance --features peregrine-cli/ha

# The test profile's binaries, for `make test` (see TEST_WORKSPACE; nothing to do after `unit`).
test-build: deps
	$(TEST_WORKSPACE) --no-run

## run: the trading topology (BENCHMARKS.md §3): Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX acceptor)
## ⇄ Aeron IPC ⇄ Executor, 10,000 warm-up + 100,000 measured round trips; latency table, step
## breakdown, allocations per round trip, target/bench-results/topology.{json,svg}
run: build
	$(PEREGRINE) run

## test: formatting, lints, every test, a smoke run of every benchmark, the acceptance suite
test: deps check package-check docs unit monitoring miri sim-smoke fuzz-smoke smoke examples acceptance

check:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --features $(UNIT_FEATURES) -- -D warnings

## package-check: every publishable crate packages as crates.io would take it (cargo package, in
## dependency order, offline; nothing is uploaded), the light ones verified by building their
## packages; what is and is not checked: scripts/package-check.sh (from an empty target
## directory: 79 s, 50 s of CPU, on a loaded 2-core machine)
package-check:
	@CARGO="$(CARGO)" bash scripts/package-check.sh

## docs: rustdoc of the workspace with broken intra-doc links denied
docs:
	python3 scripts/check-links.py
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links" $(CARGO) doc --workspace --no-deps --quiet --examples --features $(WORKSPACE_FEATURES)

## monitoring: ops/prometheus/peregrine-rules.yml checked and unit-tested by promtool, the PromQL of
## every query in ops/grafana/peregrine.json checked (under 1 s; the metric names they use are
## checked against a real scrape by crates/peregrine-engine/tests/it/monitoring.rs in `unit`)
monitoring:
	@bash scripts/monitoring.sh

## miri: Miri over the unsafe modules when a nightly toolchain with Miri is present (says so when not)
miri:
	@bash scripts/miri.sh

unit:
	$(TEST_WORKSPACE)

# The e2e smoke includes both peers: their JVMs start fast enough (all four engines, 500 + 2,000
# round trips each, take about 10 s). The round-trip smoke runs every config with Peregrine, the
# floor and the peers that `make deps` built (500 + 2,000 round trips, fsync 20 + 100).
smoke: test-build
	$(TEST_PEREGRINE) bench codec --smoke --out target/bench-results/smoke-codec.json
	$(TEST_PEREGRINE) bench typed --smoke --out target/bench-results/smoke-typed.json
	$(TEST_PEREGRINE) bench e2e --smoke --out target/bench-results/smoke-e2e.json
	$(TEST_PEREGRINE) bench send --smoke --out target/bench-results/smoke-send.json
	$(TEST_PEREGRINE) bench roundtrip --smoke --out target/bench-results/smoke-roundtrip.json
	# Scale: streaming 1 s per store and engine, 50 sessions per acceptor (about 45 s with the peers).
	$(TEST_PEREGRINE) bench scale --smoke --out target/bench-results/smoke-scale.json
	# Gateway: 1 and 100 client sessions through each router, 1 s measured (about 20 s).
	$(TEST_PEREGRINE) bench gateway --smoke --out target/bench-results/smoke-gateway.json

## acceptance: the QuickFIX acceptance scripts over TCP against `peregrine acceptor`, both
## stores, with the test profile's binaries (scripts/acceptance.sh alone runs the release build's)
acceptance: test-build
	@PEREGRINE_PROFILE=$${PEREGRINE_PROFILE:-debug} bash scripts/acceptance.sh

## examples: examples/venue.rs against examples/client.rs over TCP with the file store, the venue
## killed (SIGKILL) mid-flow and restarted; every order must be answered exactly once. Then the
## router (examples/router.rs) between three clients and the exchange (TLS), killed five times
## (scripts/router.sh): every order answered exactly once, none taken twice by the exchange
examples: test-build
	@PEREGRINE_BUILT=1 CARGO="$(CARGO)" bash scripts/examples.sh
	@PEREGRINE_BUILT=1 CARGO="$(CARGO)" bash scripts/router.sh

bench-codec: build
	$(PEREGRINE) bench codec

bench-typed: build
	$(PEREGRINE) bench typed

## bench-e2e: BENCHMARKS.md §3, Peregrine vs QuickFIX/J vs Artio vs the transport floor (5 runs, interleaved)
bench-e2e: build
	$(PEREGRINE) bench e2e

## bench-roundtrip: BENCHMARKS.md §4, the round trip with session guarantees (balanced, optimized,
## fsync): Peregrine vs QuickFIX/J vs QuickFIX C++ vs the TCP floor, two processes each, 5 runs
bench-roundtrip: build
	$(PEREGRINE) bench roundtrip

## bench-send: BENCHMARKS.md §6, the engine's send handle (Sender): app thread → wire latency with
## busy-spin and block idle, sends/s from 1 and 4 producer threads, allocations per message (any fails)
bench-send: build
	$(PEREGRINE) bench send

## bench-scale: BENCHMARKS.md §5, scale: one session streaming one way (memory and file store; 5 runs)
## and 1,000 then 10,000 sessions on one acceptor thread (3 runs); streaming vs QuickFIX/J and QuickFIX C++,
## many sessions vs a QuickFIX/J acceptor (the issue asks for that one; no QuickFIX C++ acceptor harness)
bench-scale: build
	$(PEREGRINE) bench scale

## bench-gateway: BENCHMARKS.md §8, an order gateway: client load → router → exchange → router →
## client (three processes), Peregrine's router (examples/router.rs) against the same router on
## QuickFIX/J, 1 and 100 client sessions, 5 runs interleaved; the router's allocations per order
bench-gateway: build
	$(PEREGRINE) bench gateway

## sim: deterministic simulation of the session layer, every fault (200 seeds x 100,000 steps):
## steps/s, simulated messages/minute, the fault census, and each failing seed's shrunk trace;
## then the routing world (a router on one engine journal crashed mid-turn, torn writes):
## 400 seeds x 5,000 steps
sim:
	$(CARGO) run --release -p peregrine-sim -- --seeds 200 --steps 100000
	$(CARGO) run --release -p peregrine-sim -- --route --seeds 400 --steps 5000

## sim-smoke: a short run of the core profile (no crashes, clock jumps or garbling; the
## full profile is `make sim`, findings in crates/peregrine-sim/README.md), and 20 seeds x
## 5,000 steps of the routing world (router crashes included), part of `make test`: with the
## test profile's binary that `unit` built (about 10 s; a release build of its own took a minute)
sim-smoke: test-build
	$(TARGET_DIR)/debug/peregrine-sim --core --seeds 20 --steps 20000 --no-shrink
	$(TARGET_DIR)/debug/peregrine-sim --route --seeds 20 --steps 5000

## fuzz: the cargo-fuzz targets (decode, and session: the simulator fed fuzzer bytes), 60 s each
## (FUZZ_SECONDS), when a nightly toolchain with cargo-fuzz is present (says so when not); in `make test`
fuzz:
	@bash scripts/fuzz.sh

# `make test`'s share of fuzzing: 20 s per target.
fuzz-smoke:
	@FUZZ_SECONDS=20 bash scripts/fuzz.sh

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
