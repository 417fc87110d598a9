#!/usr/bin/env bash
# Peregrine: install and build everything the project needs on a fresh Debian bookworm
# machine (run as root). Idempotent, and quick (seconds) when everything is already there.
#
# Sections:
#   1. apt packages          (installed only when `dpkg -s` says they are missing)
#   2. Java toolchain        (JDK only if there is no javac)
#   3. Rust toolchain check  (hook: cargo must exist)
#   4. Python / pip tools    (hook for later additions)
#   5. Peer harnesses        (Maven projects resolved + packaged, C++ harnesses via make)
#   6. peregrine-aeron       (libclang/libbsd/uuid, cmake >= 3.30 from pip, sbe-all jar)
#
# Environment knobs:
#   PEREGRINE_SKIP_PEERS=1   skip section 5
#   MVN_OPTS_EXTRA="..."     extra arguments for the Maven builds
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf '[deps] %s\n' "$*" >&2; }
die() { printf '[deps] ERROR: %s\n' "$*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        log "not root and no sudo: apt installs will fail if anything is missing"; fi
fi

# ---------------------------------------------------------------------------
# 1. apt packages
# ---------------------------------------------------------------------------
APT_PACKAGES=(
    g++
    make
    pkg-config
    libquickfix-dev      # QuickFIX C++ 1.15.1 (peer harnesses)
    maven                # QuickFIX/J peer harnesses
    openssl              # TLS tests: openssl s_server / s_client against the engine
    chromium             # peregrine-engine tests/it/console.rs: the operations console in headless Chromium
    chromium-driver      # ... driven over WebDriver (chromedriver, started by the test on a free port)
    prometheus           # promtool: make test checks ops/prometheus/peregrine-rules.yml (no server started)
    etcd-server          # peregrine-ha: etcd 3.4, started by the leadership tests on free ports
    protobuf-compiler    # peregrine-ha: protoc for etcd-client's build (its gRPC protos)
    libprotobuf-dev      # peregrine-ha: protobuf's own .proto files (descriptor, struct) etcd's import
    postgresql           # peregrine-store-sql: the tests start throwaway clusters (initdb, pg_ctl) on free ports
)

apt_missing=()
is_installed() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }
# apt_install PKG...: refreshes the package lists only if the first attempt fails (empty or
# stale lists on a fresh machine).
apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y --no-install-recommends "$@" >&2 && return
    $SUDO apt-get update >&2
    $SUDO apt-get install -y --no-install-recommends "$@" >&2
}
for p in "${APT_PACKAGES[@]}"; do
    is_installed "$p" || apt_missing+=("$p")
done

# ---------------------------------------------------------------------------
# 2. Java toolchain (a JDK only when there is no javac at all)
# ---------------------------------------------------------------------------
if ! command -v javac >/dev/null 2>&1; then
    is_installed default-jdk-headless || apt_missing+=(default-jdk-headless)
fi

if [ "${#apt_missing[@]}" -gt 0 ]; then
    log "apt: installing ${apt_missing[*]}"
    apt_install "${apt_missing[@]}"
else
    log "apt: all packages present"
fi
command -v javac >/dev/null 2>&1 || die "javac still missing after installing default-jdk-headless"
command -v mvn   >/dev/null 2>&1 || die "mvn missing after installing maven"

# ---------------------------------------------------------------------------
# 3. Rust toolchain (hook). rustup is expected to be installed already.
# ---------------------------------------------------------------------------
if [ -f "$HOME/.cargo/env" ]; then
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
fi
if ! command -v cargo >/dev/null 2>&1; then
    die "cargo not found: install the Rust toolchain (rustup, https://rustup.rs) and make sure ~/.cargo/bin is on PATH"
fi
log "rust: $(cargo --version)"

# ---------------------------------------------------------------------------
# 4. Python / pip tools (hook: add pip-installed tools here, e.g. cmake)
# ---------------------------------------------------------------------------
# (none yet)

# ---------------------------------------------------------------------------
# 6. peregrine-aeron: Aeron C build (rusteron) and the SBE code generator
#    (owned by crates/peregrine-aeron; keep it idempotent and quick)
# ---------------------------------------------------------------------------
# rusteron-client / rusteron-media-driver compile Aeron's C client and media driver from
# the crate sources with bindgen (libclang) and cmake >= 3.30; Aeron's C code links
# libbsd and libuuid. Debian bookworm's cmake is 3.25, so a pip cmake (3.30 <= v < 4) is
# exposed as ~/.local/bin/cmake, which the Makefile puts first on PATH.
AERON_APT=(libclang-dev libbsd-dev uuid-dev)
aeron_missing=()
for p in "${AERON_APT[@]}"; do
    is_installed "$p" || aeron_missing+=("$p")
done
if [ "${#aeron_missing[@]}" -gt 0 ]; then
    log "aeron: apt installing ${aeron_missing[*]}"
    apt_install "${aeron_missing[@]}"
fi

CMAKE_SHIM_DIR="$HOME/.local/bin"
cmake_ok() { # cmake_ok BINARY: version in [3.30, 4)
    local v
    v="$("$1" --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')" || return 1
    [ -n "$v" ] || return 1
    set -- $v
    [ "$1" -eq 3 ] && [ "$2" -ge 30 ]
}
if [ -x "$CMAKE_SHIM_DIR/cmake" ] && cmake_ok "$CMAKE_SHIM_DIR/cmake"; then
    log "aeron: $("$CMAKE_SHIM_DIR/cmake" --version | head -n1) ($CMAKE_SHIM_DIR)"
else
    PY="$(command -v python3 || true)"
    [ -n "$PY" ] || die "python3 is needed to install cmake >= 3.30 from PyPI"
    if ! "$PY" -m pip --version >/dev/null 2>&1; then
        is_installed python3-pip || apt_install python3-pip
    fi
    # Reuse a suitable pip cmake if one is already installed; otherwise install it.
    cmake_bin() { "$PY" -c 'import cmake, os; print(os.path.join(cmake.CMAKE_BIN_DIR, "cmake"))' 2>/dev/null; }
    real="$(cmake_bin || true)"
    if [ -z "$real" ] || ! cmake_ok "$real"; then
        log "aeron: pip installing cmake>=3.30,<4 (Debian's is $(cmake --version 2>/dev/null | head -n1))"
        "$PY" -m pip install -q 'cmake>=3.30,<4' >&2 \
            || "$PY" -m pip install -q --user --break-system-packages 'cmake>=3.30,<4' >&2 \
            || die "pip install cmake failed"
        real="$(cmake_bin)" || die "pip installed cmake but python cannot locate it"
    fi
    mkdir -p "$CMAKE_SHIM_DIR"
    # A wrapper, not a symlink: pip's cmake finds its modules relative to its real path.
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$real" > "$CMAKE_SHIM_DIR/cmake"
    chmod +x "$CMAKE_SHIM_DIR/cmake"
    cmake_ok "$CMAKE_SHIM_DIR/cmake" || die "$CMAKE_SHIM_DIR/cmake is not cmake >= 3.30"
    log "aeron: $("$CMAKE_SHIM_DIR/cmake" --version | head -n1) -> $CMAKE_SHIM_DIR/cmake"
fi

# sbe-all (Real Logic's sbe-tool) for `make sbe`; the generated codecs are committed, so the
# Rust build itself never needs it.
SBE_VERSION=1.38.1
SBE_JAR="$HOME/.m2/repository/uk/co/real-logic/sbe-all/$SBE_VERSION/sbe-all-$SBE_VERSION.jar"
if [ -f "$SBE_JAR" ]; then
    log "aeron: sbe-all $SBE_VERSION present"
else
    log "aeron: resolving uk.co.real-logic:sbe-all:$SBE_VERSION into ~/.m2"
    # shellcheck disable=SC2086
    mvn -q -B -Dstyle.color=never ${MVN_OPTS_EXTRA:-} dependency:get \
        -Dartifact="uk.co.real-logic:sbe-all:$SBE_VERSION" -Dtransitive=false >&2 \
        || die "could not resolve sbe-all $SBE_VERSION"
fi

# cargo-fuzz for `make fuzz` (part of `make test`), only where a nightly toolchain is
# installed (the fuzz targets need one; without it `make fuzz` says it skipped).
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    if cargo +nightly fuzz --help >/dev/null 2>&1; then
        log "fuzz: cargo-fuzz present"
    else
        log "fuzz: installing cargo-fuzz (nightly toolchain present)"
        cargo install -q cargo-fuzz --locked >&2 || die "could not install cargo-fuzz"
    fi
else
    log "fuzz: no nightly toolchain, cargo-fuzz not installed (make fuzz will say it skipped)"
fi

# ---------------------------------------------------------------------------
# 5. Peer harnesses (peers/)
# ---------------------------------------------------------------------------
if [ "${PEREGRINE_SKIP_PEERS:-0}" != "1" ]; then
    # 5a. Maven projects: resolve every artifact and package, only when a source is newer
    #     than the packaged output (the stamp file). peers/e2e-common holds sources that
    #     both e2e harnesses compile (their poms add it with build-helper's add-source), so
    #     a change there rebuilds the poms that name it.
    for pom in "$ROOT"/peers/*/pom.xml; do
        [ -f "$pom" ] || continue
        dir="$(dirname "$pom")"
        stamp="$dir/target/.deps-stamp"
        sources=("$pom" "$dir/src")
        if grep -q 'e2e-common' "$pom"; then sources+=("$ROOT/peers/e2e-common/src"); fi
        if [ -f "$stamp" ] && [ -z "$(find "${sources[@]}" -newer "$stamp" -print -quit 2>/dev/null)" ]; then
            log "maven: $(basename "$dir") up to date"
            continue
        fi
        log "maven: building $(basename "$dir") (downloads artifacts on first run)"
        # shellcheck disable=SC2086
        (cd "$dir" && mvn -q -B -Dstyle.color=never ${MVN_OPTS_EXTRA:-} -DskipTests package >&2) || die "maven build failed in $dir"
        touch "$stamp"
    done

    # 5b. C++ harnesses: make decides what is stale.
    for mk in "$ROOT"/peers/*/Makefile; do
        [ -f "$mk" ] || continue
        dir="$(dirname "$mk")"
        log "make: $(basename "$dir")"
        make -s -C "$dir" || die "make failed in $dir"
    done
fi

# 5c. Go harnesses (peers/quickfixgo: QuickFIX/Go's file store writer for the store-import
#     test); the modules come from the Go module proxy, pinned by go.sum.
if [ "${PEREGRINE_SKIP_PEERS:-0}" != "1" ]; then
    GO_BIN="$(command -v go || true)"
    [ -n "$GO_BIN" ] || [ ! -x /usr/local/go/bin/go ] || GO_BIN=/usr/local/go/bin/go
    if [ -z "$GO_BIN" ]; then
        log "go: installing golang-go"
        apt-get install -y -q golang-go >&2 || die "could not install golang-go"
        GO_BIN="$(command -v go)" || die "go missing after installing golang-go"
    fi
    for mod in "$ROOT"/peers/*/go.mod; do
        [ -f "$mod" ] || continue
        dir="$(dirname "$mod")"
        log "go: building $(basename "$dir") with $("$GO_BIN" version)"
        (cd "$dir" && "$GO_BIN" build -o target/storewriter . >&2) || die "go build failed in $dir"
    done
fi

log "done"
