#!/usr/bin/env bash
# Whole-volume comparison: each writer writes NODES js_heap_nodes and EDGES
# js_heap_edges rows (default: the 435 MB benchmark snapshot's 5 M and 17 M)
# in its own process, ROUNDS times, interleaved (round 1: every writer, round
# 2: every writer, ...), under /usr/bin/time. One line per run: the command's
# own figures (insert, commit = COMMIT + fsync + rename, total, rows/s, peak
# RSS from getrusage), then /usr/bin/time's wall seconds, CPU seconds (user +
# system: less sensitive than wall time to other work on the machine) and peak
# RSS, and the 1-minute load average just before the run.
#
#   ./volume.sh                                   # 3 rounds of store, sql-multi, zombiezen
#   ROUNDS=5 WRITERS="store zombiezen" ./volume.sh
#   NODES=500000 EDGES=1700000 ./volume.sh        # a tenth of the volume
#   OUT=/some/dir ./volume.sh                     # where the databases are written
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-3}
WRITERS=${WRITERS:-"store sql-multi zombiezen"}
NODES=${NODES:-5000000}
EDGES=${EDGES:-17000000}
OUT=${OUT:-${TMPDIR:-/tmp}}
bin=$(mktemp -d)/volume
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/volume
printf '%-5s %-15s %10s %8s %8s %8s %10s %7s %7s | %8s %7s %7s %6s\n' round writer rows insert commit total rows/s "RSS MB" "file MB" "time s" "cpu s" "time MB" load1
for round in $(seq 1 "$ROUNDS"); do
  for w in $WRITERS; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    tf=$(mktemp)
    line=$(/usr/bin/time -o "$tf" -f '%e %M %U %S' "$bin" -w "$w" -nodes "$NODES" -edges "$EDGES" -o "$OUT/storebench-volume-$w.db")
    read -r wall kb user sys <"$tf"
    rm -f "$tf"
    printf '%-5s %s | %8s %7.2f %7.0f %6s\n' "$round" "$line" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
      "$(awk -v k="$kb" 'BEGIN { print k * 1024 / 1e6 }')" "$load"
  done
done
