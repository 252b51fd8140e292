#!/usr/bin/env bash
# deps.sh — install the check's node packages (package.json beside this file: playwright-core,
# sql.js 1.6.2) into .cache/smartperf/node, once, and check that Debian's chromium is there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir="$root/.cache/smartperf/node"
mkdir -p "$dir"
if ! cmp -s "$here/package.json" "$dir/package.json" || [ ! -d "$dir/node_modules/playwright-core" ] \
   || [ ! -f "$dir/node_modules/sql.js/dist/sql-wasm.wasm" ]; then
  cp "$here/package.json" "$dir/package.json"
  echo "deps: npm install in $dir" >&2
  # playwright-core never downloads browsers; the check uses Debian's /usr/bin/chromium.
  (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error >&2)
fi
if [ ! -x /usr/bin/chromium ]; then
  echo "deps: /usr/bin/chromium is missing; install Debian's chromium as root:" >&2
  echo "        apt-get update && apt-get install -y chromium" >&2
  exit 1
fi
