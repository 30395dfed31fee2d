#!/bin/bash
# measure.sh BIN TAG: peak RSS and exit status of cuplan mapf on the generated 1024² maps and brc202d.
BIN=$1; TAG=$2; D=/tmp/mapf1024; S=/work/shared/data/mapf
run() { name=$1; shift
  /usr/bin/time -v $BIN mapf "$@" --out /tmp/mapf1024/out-$TAG-$name.json 2> /tmp/mapf1024/err-$TAG-$name.txt; rc=$?
  rss=$(grep "Maximum resident" /tmp/mapf1024/err-$TAG-$name.txt | awk '{print $6}')
  wall=$(grep "Elapsed (wall" /tmp/mapf1024/err-$TAG-$name.txt | awk '{print $8}')
  echo "$TAG $name rc=$rc maxrss_kb=$rss wall=$wall $(grep -m1 '^error' /tmp/mapf1024/err-$TAG-$name.txt)"
}
run 1024-10-pp --map $D/gen-1024-10.map --scen $D/gen-1024-10.scen --agents 1000 --solver pp --time-limit 600
run 1024-10-lacam --map $D/gen-1024-10.map --scen $D/gen-1024-10.scen --agents 1000 --solver lacam --time-limit 600
run brc202d-pp --map $S/maps/brc202d.map --scen $S/scen-random/brc202d-random-1.scen --agents 1000 --solver pp --time-limit 600
run brc202d-lacam --map $S/maps/brc202d.map --scen $S/scen-random/brc202d-random-1.scen --agents 1000 --solver lacam --time-limit 600
run cross-pp-wavefront --map $D/gen-1024-0.map --scen $D/cross.scen --agents 1 --solver pp --low-level wavefront --time-limit 600
