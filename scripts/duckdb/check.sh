#!/usr/bin/env bash
# check.sh — exports tracestreamer databases into a Parquet dataset and checks
# it with DuckDB (npm @duckdb/node-api, pinned in package.json beside this file,
# installed once into .cache/duckdb/node): every table's row count and column
# sums equal SQLite's (check.mjs). Without arguments it converts the bundled
# fixtures into three databases — an ArkTS snapshot htrace with a CPU profile,
# a standalone CPU profile, the Chromium Trace Event capture — and the leak
# fixture's three snapshots in one htrace, and checks those. Needs node, npm and the sqlite3 command.
#   scripts/duckdb/check.sh [DB...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir="$root/.cache/duckdb/node"
mkdir -p "$dir"
if ! cmp -s "$here/package.json" "$dir/package.json" || [ ! -d "$dir/node_modules/@duckdb/node-api" ]; then
  cp "$here/package.json" "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
command -v sqlite3 >/dev/null || { echo "check.sh: needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 1; }
(cd "$root" && go build -o bin/ ./cmd/...)
ts="$root/bin/tracestreamer"
work="$root/.cache/duckdb/work"
rm -rf "$work"; mkdir -p "$work"
dbs=("$@")
if [ ${#dbs[@]} -eq 0 ]; then
  t=testdata
  "$root/bin/mkhtrace" -snapshot "$root/$t/node/snapshot.heapsnapshot.gz" -cpuprofile "$root/$t/node/profile.cpuprofile" -o "$work/arkts.htrace"
  "$ts" -q "$work/arkts.htrace" -o "$work/arkts.db"
  "$ts" -q "$root/$t/node/profile.cpuprofile" -o "$work/cpu.db"
  "$ts" -q "$root/$t/chromium/trace.json.gz" -o "$work/chromium.db"
  # The leak fixture as the ArkTS plugin would record it: three snapshots in one
  # htrace (so class comparisons too), leaks between them.
  "$root/bin/mkhtrace" -snapshot "$root/$t/leak/baseline.heapsnapshot.gz" -snapshot "$root/$t/leak/target.heapsnapshot.gz" \
    -snapshot "$root/$t/leak/final.heapsnapshot.gz" -o "$work/leak.htrace"
  "$ts" -q "$work/leak.htrace" -o "$work/leak.db"
  dbs=("$work/arkts.db" "$work/cpu.db" "$work/chromium.db" "$work/leak.db")
fi
"$ts" export -parquet "$work/dataset" "${dbs[@]}"
# ES modules resolve packages from their own folder: run a copy there.
cp "$here/check.mjs" "$dir/check.mjs"
node "$dir/check.mjs" "$work/dataset" "${dbs[@]}"
