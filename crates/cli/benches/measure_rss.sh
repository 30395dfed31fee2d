#!/usr/bin/env bash
# Peak resident memory of `cuplan batch` on the largest Moving AI scenario files and of
# `cuplan solve` on a sparse 16,384 x 8,192 map (BENCHMARKS.md, "Batch and solve memory").
# Usage: crates/cli/benches/measure_rss.sh [BIN] [DATA]   (defaults: target/release/cuplan,
# ../shared/data/grid). Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail
bin=${1:-target/release/cuplan}
data=${2:-../shared/data/grid}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

peak() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "%M %e" -o "$work/time" "$@" >"$work/summary" 2>"$work/err" || true
  read -r kib secs <"$work/time"
  printf '%-44s %6d MB %7.2f s  %s\n' "$label" $((kib / 1000)) "$secs" \
    "$(grep -o '"solved":[0-9]*' "$work/summary" || head -c 120 "$work/err")"
}

for m in street/NewYork_0_1024 maze/maze512-1-0; do
  for limit in "" 256MiB; do
    peak "batch $(basename $m) ${limit:-default}" "$bin" batch --map "$data/$m.map" \
      --scen "$data/$m.map.scen" --threads 2 --out "$work/out.jsonl" ${limit:+--memory-limit $limit}
  done
done

# 16,384 x 8,192 cells, all blocked but a 63 x 63 room; 100 queries inside the room.
python3 - "$work" <<'PY'
import random, sys
w, h, d = 16384, 8192, sys.argv[1]
random.seed(1)
with open(f"{d}/sparse.map", "w") as f:
    f.write(f"type octile\nheight {h}\nwidth {w}\nmap\n")
    room = "@" * 8000 + "." * 63 + "@" * (w - 8063) + "\n"
    for y in range(h):
        f.write(room if 4000 <= y < 4063 else "@" * w + "\n")
with open(f"{d}/sparse.map.scen", "w") as f:
    f.write("version 1\n")
    for _ in range(100):
        sx, sy, gx, gy = (random.randrange(8000, 8063), random.randrange(4000, 4063),
                          random.randrange(8000, 8063), random.randrange(4000, 4063))
        f.write(f"0\tsparse.map\t{w}\t{h}\t{sx}\t{sy}\t{gx}\t{gy}\t0\n")
PY
for algo in jps-bit astar jps-bitprunepre; do
  peak "solve sparse-16384x8192 $algo" "$bin" solve --map "$work/sparse.map" \
    --scen "$work/sparse.map.scen" --algo $algo --threads 2 --out "$work/out.jsonl"
done
