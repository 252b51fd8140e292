#!/usr/bin/env bash
# run.sh — builds the dashboards/ project (Observable Framework) over databases
# made from the bundled examples and screenshots every page in headless
# Chromium (/usr/bin/chromium driven by playwright-core; no browser is
# downloaded). Needs node, npm and chromium; not part of CI.
#
#   scripts/dashboards/run.sh            the bundled examples:
#     heap     testdata/leak's three snapshots in one htrace (classes, growth, leaks)
#     cpu      testdata/node/profile.cpuprofile
#     trace    testdata/chromium/trace.json.gz
#     counter  a 5 MB synthetic trace from internal/cmd/benchrun -gentrace (the
#              bundled captures hold no counter events)
#     parquet  a dataset of those and the node captures (tracestreamer export -parquet)
#
# Own databases: set TS_HEAP_DB, TS_CPU_DB, TS_TRACE_DB, TS_COUNTER_DB (a database
# or a trace each) and TS_PARQUET_DIR before running it; those set are used as
# they are. npm packages go to .cache/dashboards/node (dashboards/package.json),
# the site to .cache/dashboards/node/site/dist, screenshots to
# .cache/dashboards/shots/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache="$root/.cache/dashboards"
node_dir="$cache/node"
work="$cache/work"
mkdir -p "$node_dir" "$work"
if ! cmp -s "$root/dashboards/package.json" "$node_dir/package.json" || [ ! -d "$node_dir/node_modules/@observablehq/framework" ]; then
  cp "$root/dashboards/package.json" "$node_dir/package.json"
  (cd "$node_dir" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
(cd "$root" && go build -o bin/ ./cmd/...)
ts="$root/bin/tracestreamer"
t="$root/testdata"
if [ -z "${TS_HEAP_DB:-}" ]; then
  "$root/bin/mkhtrace" -snapshot "$t/leak/baseline.heapsnapshot.gz" -snapshot "$t/leak/target.heapsnapshot.gz" \
    -snapshot "$t/leak/final.heapsnapshot.gz" -o "$work/leak.htrace"
  "$ts" -q "$work/leak.htrace" -o "$work/heap.db"
  export TS_HEAP_DB="$work/heap.db"
fi
if [ -z "${TS_CPU_DB:-}" ]; then
  "$ts" -q "$t/node/profile.cpuprofile" -o "$work/cpu.db"
  export TS_CPU_DB="$work/cpu.db"
fi
if [ -z "${TS_TRACE_DB:-}" ]; then
  "$ts" -q "$t/chromium/trace.json.gz" -o "$work/trace.db" 2>/dev/null
  export TS_TRACE_DB="$work/trace.db"
fi
if [ -z "${TS_COUNTER_DB:-}" ]; then
  if [ ! -f "$work/synthetic.json" ]; then
    (cd "$root" && go run ./internal/cmd/benchrun -gentrace "$work/synthetic.json.tmp" -trace-mb 5 >&2)
    mv "$work/synthetic.json.tmp" "$work/synthetic.json"
  fi
  "$ts" -q "$work/synthetic.json" -o "$work/counter.db" 2>/dev/null
  export TS_COUNTER_DB="$work/counter.db"
fi
if [ -z "${TS_PARQUET_DIR:-}" ]; then
  "$root/bin/mkhtrace" -snapshot "$t/node/snapshot.heapsnapshot.gz" -cpuprofile "$t/node/profile.cpuprofile" -o "$work/arkts.htrace"
  "$ts" -q "$work/arkts.htrace" -o "$work/arkts.db"
  "$ts" -q "$t/node/trace.json" -o "$work/node-trace.db" 2>/dev/null
  "$ts" -q "$t/node/busy.json.gz" -o "$work/node-busy.db" 2>/dev/null
  rm -rf "$work/dataset"
  "$ts" export -q -parquet "$work/dataset" "$TS_HEAP_DB" "$TS_CPU_DB" "$TS_TRACE_DB" "$work/arkts.db" \
    "$work/node-trace.db" "$work/node-busy.db"
  export TS_PARQUET_DIR="$work/dataset"
fi
export TRACESTREAMER="$ts"
# Framework builds the project where node resolves its packages: a copy of
# dashboards/ beside node_modules. Its loader cache is dropped: the databases
# may have changed while the loaders did not.
site="$node_dir/site"
rm -rf "$site"
mkdir -p "$site"
cp -r "$root/dashboards/observablehq.config.js" "$root/dashboards/src" "$root/dashboards/sql" "$site/"
(cd "$site" && node "$node_dir/node_modules/@observablehq/framework/dist/bin/observable.js" build >&2)
cp "$here/shoot.mjs" "$node_dir/shoot.mjs"
rm -rf "$cache/shots"
node "$node_dir/shoot.mjs" "$site/dist" "$cache/shots"
