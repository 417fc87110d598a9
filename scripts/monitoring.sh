#!/usr/bin/env bash
# `make monitoring` (part of `make test`): the Prometheus rules and the Grafana dashboard in ops/
# are valid. promtool (Debian's prometheus package, `make deps`) checks the rules, runs their unit
# tests (which alert fires on which series), and checks the PromQL of every dashboard query (each
# written into a throwaway rule file, Grafana's variables replaced). That every metric name they use
# is one the engine exports is tested against a real scrape: crates/peregrine-engine/tests/it/monitoring.rs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v promtool >/dev/null || { echo "promtool missing: run make deps" >&2; exit 1; }
cd "$ROOT/ops/prometheus"
promtool check rules peregrine-rules.yml
promtool test rules peregrine-rules.test.yml
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$ROOT/ops/grafana/peregrine.json" "$tmp/dashboard-rules.yml" <<'PY'
import json, sys
dash = json.load(open(sys.argv[1]))
exprs = []
def walk(panels):
    for p in panels:
        walk(p.get("panels", []))
        for t in p.get("targets", []):
            exprs.append((p["title"], t["expr"]))
walk(dash["panels"])
if not exprs:
    sys.exit("no queries in the dashboard")
subst = {"$__rate_interval": "5m", "$instance": ".*", "$session": ".*"}
with open(sys.argv[2], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, (title, e) in enumerate(exprs):
        for k, v in subst.items():
            e = e.replace(k, v)
        if "$" in e:
            sys.exit(f"panel {title!r}: an unknown variable in {e}")
        out.write(f"      - record: dashboard_query_{i}\n        expr: {json.dumps(e)}\n")
print(f"dashboard: {len(exprs)} queries")
PY
promtool check rules "$tmp/dashboard-rules.yml"
