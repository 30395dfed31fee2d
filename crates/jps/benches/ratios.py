#!/usr/bin/env python3
"""Summarise `cargo bench -p cuplan-jps --bench families`: µs/query per map and algorithm,
speed-up over the pathfinding peer, and the geometric mean of each ratio per family.
Usage: ratios.py <criterion dir, e.g. target/criterion>"""
import json, math, os, sys
from collections import defaultdict

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
rows = defaultdict(dict)  # (family, map) -> algo -> µs/query
for fam in sorted(os.listdir(root)):
    fdir = os.path.join(root, fam)
    if not os.path.isdir(fdir) or fam == "report":
        continue
    # criterion flattens "family/map" into "family_map"
    for algo in sorted(os.listdir(fdir)):
        est = os.path.join(fdir, algo, "new", "estimates.json")
        bench = os.path.join(fdir, algo, "new", "benchmark.json")
        if not os.path.exists(est):
            continue
        e = json.load(open(est))
        b = json.load(open(bench))
        n = b.get("throughput", {}).get("Elements", 1) if b.get("throughput") else 1
        rows[(b["group_id"], )][algo] = e["mean"]["point_estimate"] / 1000.0 / n
algos = ["pathfinding", "astar", "jps", "jps-bit", "jps-bitprune", "jps-bitpre", "jps-bitprunepre"]
print("| map | " + " | ".join(a + " µs" for a in algos) + " | " + " | ".join(a + " ×" for a in algos[1:]) + " |")
fam_ratios = defaultdict(lambda: defaultdict(list))
other = []
for (group,), r in sorted(rows.items()):
    base = r.get("pathfinding")
    if base is None:
        other.append((group, r))
        continue
    cells = [f"{r[a]:.1f}" if a in r else "-" for a in algos]
    ratios = []
    for a in algos[1:]:
        if base and a in r:
            ratios.append(f"{base / r[a]:.1f}")
            fam_ratios[group.split("/")[0]][a].append(base / r[a])
        else:
            ratios.append("-")
    print(f"| {group} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
print()
print("| family | " + " | ".join(a + " × (geomean)" for a in algos[1:]) + " |")
for fam, d in sorted(fam_ratios.items()):
    g = [f"{math.exp(sum(map(math.log, d[a])) / len(d[a])):.1f}" if d.get(a) else "-" for a in algos[1:]]
    print(f"| {fam} | " + " | ".join(g) + " |")
print()
print("| group | function | µs per iteration (batch: per query) |")
for group, r in other:
    for algo, us in sorted(r.items()):
        print(f"| {group} | {algo} | {us:.1f} |")
