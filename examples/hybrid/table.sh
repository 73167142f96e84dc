#!/usr/bin/env bash
# Runs examples/hybrid/compare.json and prints the comparison table of docs/hybrid.md:
# per setup, the mean and p95 wait of the batch (Slurm-side classes) and service classes,
# what lending did, and the GPU-hours of work lost to requeues. Usage: table.sh FLOORSIM [OUT_DIR]
set -euo pipefail
FS="$1"
if [ -n "${2:-}" ]; then OUT="$2"; else T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; OUT="$T/sweep"; fi
"$FS" sweep "$(dirname "$0")/compare.json" --out "$OUT" -q
python3 - "$OUT/results.jsonl" <<'PY'
import json, sys
batch, services = ("sim", "training"), ("inference", "notebook")
def waits(m, classes):
    w = []
    for c in classes:
        k = m["classes"][c]
        w.append((k["jobs"], k["wait_s"]["mean"], k["wait_s"]["p95"]))
    n = sum(j for j, _, _ in w)
    return sum(j * mean for j, mean, _ in w) / n, max(p for _, _, p in w)
print("| setup | batch mean wait (s) | batch p95 wait (s) | services mean wait (s) | services p95 wait (s) | lent node-h | reclaims | reclaim requeues | lost GPU-h |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    s, m = r["axes"]["setup"], r["metrics"]
    if s["type"] == "hybrid":
        name = "hybrid, static split" if s["lending"] is None else f"hybrid, lending ({s['lending']['reclaim']})"
    else:
        name = f"{s['type']} for everything"
    h = m["scheduler_report"].get("hybrid", {})
    bm, bp = waits(m, batch)
    sm, sp = waits(m, services)
    lost = sum(k["lost_gpu_s"] for k in m["classes"].values()) / 3600
    lent = f"{h['lent_node_s'] / 3600:.1f}" if h else "-"
    print(f"| {name} | {bm:.0f} | {bp:.0f} | {sm:.0f} | {sp:.0f} | {lent} | {h.get('reclaims', '-')} | {h.get('reclaim_preemptions', '-')} | {lost:.1f} |")
PY
