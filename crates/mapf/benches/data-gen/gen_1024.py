# Generates a 1024x1024 map (open, or 10 % random blocked) and a MAPF scen of 1,000 agents with
# distinct random starts and goals in the largest 4-connected component. Usage:
#   python3 gen.py OUT_DIR [blocked_fraction] [seed]
import random, sys
from collections import deque
out, frac, seed = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 0.1, int(sys.argv[3]) if len(sys.argv) > 3 else 1
W = H = 1024
rng = random.Random(seed)
free = [[rng.random() >= frac for _ in range(W)] for _ in range(H)]
comp = [[-1] * W for _ in range(H)]
best, best_id, cid = 0, -1, 0
for y in range(H):
    for x in range(W):
        if free[y][x] and comp[y][x] < 0:
            q, n = deque([(x, y)]), 0
            comp[y][x] = cid
            while q:
                cx, cy = q.popleft(); n += 1
                for nx, ny in ((cx+1, cy), (cx-1, cy), (cx, cy+1), (cx, cy-1)):
                    if 0 <= nx < W and 0 <= ny < H and free[ny][nx] and comp[ny][nx] < 0:
                        comp[ny][nx] = cid; q.append((nx, ny))
            if n > best: best, best_id = n, cid
            cid += 1
name = f"gen-1024-{int(frac*100)}"
with open(f"{out}/{name}.map", "w") as f:
    f.write(f"type octile\nheight {H}\nwidth {W}\nmap\n")
    for y in range(H):
        f.write("".join("." if free[y][x] else "@" for x in range(W)) + "\n")
cells = [(x, y) for y in range(H) for x in range(W) if comp[y][x] == best_id]
pick = rng.sample(cells, 2000)
with open(f"{out}/{name}.scen", "w") as f:
    f.write("version 1\n")
    for i in range(1000):
        (sx, sy), (gx, gy) = pick[i], pick[1000 + i]
        f.write(f"0\t{name}.map\t{W}\t{H}\t{sx}\t{sy}\t{gx}\t{gy}\t{abs(sx-gx)+abs(sy-gy)}\n")
print(name, "largest component", best)
