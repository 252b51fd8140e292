#!/usr/bin/env bash
# Captures testdata/chromium/busy.json.gz: a trace of Debian's headless
# chromium (apt-get install chromium) running testdata/chromium/busy.html (layout
# thrash, canvas paint, timers, animation frames, allocation and GC, fetch, a
# worker) with the categories DevTools' Performance panel records, including
# V8's sampling profiler (ProfileChunk events). It is one of the sources the
# realistic benchmark trace tiles (internal/cmd/benchrun/gentrace_real.go).
# Tests only read the committed file; chromium is not needed to run them.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cats=devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.frame
cats=$cats,toplevel,blink,blink.user_timing,cc,gpu,viz,v8,v8.execute,loading,latencyInfo,benchmark
cats=$cats,disabled-by-default-v8.cpu_profiler,disabled-by-default-devtools.timeline.stack
chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
  --trace-startup="$cats" --trace-startup-file="$work/trace.json" --trace-startup-duration=2 \
  --trace-startup-format=json --virtual-time-budget=6000 \
  "file://$PWD/chromium/busy.html" >/dev/null 2>&1 || true
gzip -9 -c "$work/trace.json" > chromium/busy.json.gz
ls -l chromium/busy.json.gz
