#!/usr/bin/env bash
# `make package-check` (part of `make check`, so of `make test`): every publishable crate of
# the workspace packages as crates.io would take it, in dependency order (`cargo package
# --workspace` resolves the workspace's own crates from a local overlay, so nothing is uploaded
# and the order is cargo's).
#
# What is checked, for every crate whose manifest does not say `publish = false`:
#   * the manifest rewrite: description, licence, repository, and a version on every path
#     dependency (a dev-dependency with a path only is dropped, as cargo publish drops it);
#   * the package's file list and its lock file, resolved offline against crates.io's index;
# and, for the light crates (VERIFY below: no C build, no async stack), that the packaged
# sources compile on their own (`cargo package`'s verification build), which is what catches a
# file read from outside the package (a build script's ../ path, an include_str!).
#
# What is NOT checked here: the verification build of the heavy crates (engine, session,
# store-sql, ha, aeron, replication, topology, peregrine): their dependencies' C (SQLite,
# Aeron's cmake build) and protoc would add minutes; `unit` builds the same sources in the
# workspace. Nothing is published.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CARGO="${CARGO:-cargo}"

# The light crates whose packages are built as they would be from crates.io.
VERIFY=(peregrine-agent peregrine-alloc peregrine-codec peregrine-dict peregrine-decode
        peregrine-messages peregrine-report peregrine-sbe peregrine-store)

# publish = false shows in cargo metadata as "publish": [].
mapfile -t unpublished < <("$CARGO" metadata --no-deps --format-version 1 --offline |
    python3 -c 'import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []: print(p["name"])')
exclude=()
for name in "${unpublished[@]}"; do exclude+=(--exclude "$name"); done
echo "package-check: not published: ${unpublished[*]}"

# --allow-dirty: the working tree is checked, committed or not.
"$CARGO" package --workspace "${exclude[@]}" --no-verify --offline --allow-dirty --quiet
verify=()
for name in "${VERIFY[@]}"; do verify+=(-p "$name"); done
"$CARGO" package "${verify[@]}" --offline --allow-dirty --quiet
echo "package-check: every publishable crate packaged; verified by building: ${VERIFY[*]}"
