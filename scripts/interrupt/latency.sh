#!/usr/bin/env bash
# Measures how long tracestreamer takes to exit after SIGINT during an import:
# N runs of BIN on INPUT, each interrupted at a random time in [MIN, MAX]
# seconds after its start; prints, per run, the time of the signal, the time
# from the signal to the exit, the exit status and what was left behind (the
# output folder and the private TMPDIR must be empty), then the median and
# the maximum latency. A run that ends before its signal is skipped.
#
#   scripts/interrupt/latency.sh BIN INPUT [N] [MIN] [MAX]
#
# Example (a 1.5 GB real-mix trace):
#   go run ./internal/cmd/benchrun -gentrace-real .cache/lat/real1500.json -trace-mb 1500
#   go build -o .cache/lat/ts ./cmd/tracestreamer
#   scripts/interrupt/latency.sh .cache/lat/ts .cache/lat/real1500.json 20 1 40
set -euo pipefail
bin=$(realpath "$1") input=$(realpath "$2") n=${3:-20} lo=${4:-1} hi=${5:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lat=()
for ((i = 1; i <= n; i++)); do
	rm -rf "$work/out" "$work/tmp"
	mkdir -p "$work/out" "$work/tmp"
	at=$(awk -v lo="$lo" -v hi="$hi" -v s="$RANDOM$i" 'BEGIN { srand(s); printf "%.2f", lo + rand() * (hi - lo) }')
	TMPDIR="$work/tmp" "$bin" -q "$input" -o "$work/out/out.db" 2>"$work/stderr" &
	pid=$!
	sleep "$at"
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid" || true
		echo "run $i: finished before ${at}s; skipped"
		continue
	fi
	t0=$(date +%s.%N)
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	t1=$(date +%s.%N)
	left=$(find "$work/out" "$work/tmp" -mindepth 1 | wc -l)
	l=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	lat+=("$l")
	printf 'run %2d: signal at %6.2f s, exit after %s s, status %d, %d files left\n' "$i" "$at" "$l" "$rc" "$left"
done
printf '%s\n' "${lat[@]}" | sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%d runs: median %.3f s, max %.3f s\n", NR, (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[NR] }'
