#!/usr/bin/env bash
# run.sh — open tracestreamer databases in a real SmartPerf-Host (headless Debian chromium)
# and report page errors, failing SQL, load times and screenshots; exit 1 on any FAIL.
#
#   scripts/smartperf/run.sh [options] DIST [DB...]
#
# DIST      a built SmartPerf-Host UI: the dist/ folder of its ide/ project, built as that
#           project's own README describes (also taken from $SMARTPERF_DIST when no DIST is
#           given). This repository carries no recipe to build it.
# DB...     databases to check (any number, e.g. for scale tests). Without any, the test
#           databases are made first (make-dbs.sh: five, f-synthetic-trace when the work
#           tree can generate it and g-rawheap when tracestreamer reads .rawheap) and checked.
#
# Options:
#   --rev REV        make the test databases with tracestreamer built from commit REV
#                    instead of the work tree (make-dbs.sh --rev)
#   --patched        check copies of the test databases with the reference's missing tables
#                    added empty (make-dbs.sh --patched; for developing the check only)
#   --no-views       only load each database (no clicks, one screenshot)
#   --timeout S      give up loading after S seconds (default 300)
#   --stall S        call loading stalled when nothing changed for S seconds (default 45)
#   --view-timeout S wait up to S seconds for a view's rows (default 15; more for big DBs)
#   --json FILE      also write the full report as JSON (default .cache/smartperf/report.json)
#   --shots DIR      screenshots go to DIR/<db name>/NN-view.png (default .cache/smartperf/shots)
#
# Needs: node and npm (the npm registry), go (for the test databases), openssl, sqlite3 (for
# --patched only) and Debian's chromium at /usr/bin/chromium
# (apt-get update && apt-get install -y chromium). Nothing is downloaded but npm packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache="$root/.cache/smartperf"

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
mk=()
chk=()
src=${SMARTPERF_DIST:-}
pos=()
json="$cache/report.json"
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage ;;
    --rev) mk+=(--rev "${2:?--rev needs a value}"); shift 2 ;;
    --patched) mk+=(--patched); shift ;;
    --no-views) chk+=(--no-views); shift ;;
    --timeout|--stall|--view-timeout|--shots) chk+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --json) json=${2:?--json needs a value}; shift 2 ;;
    -*) echo "run.sh: unknown option $1" >&2; usage ;;
    *) pos+=("$1"); shift ;;
  esac
done
# The first argument is the UI unless $SMARTPERF_DIST is set and it is a file.
if [ ${#pos[@]} -gt 0 ] && { [ -z "$src" ] || [ ! -f "${pos[0]}" ]; }; then
  src=${pos[0]}
  pos=("${pos[@]:1}")
fi
dbs=("${pos[@]}")
[ -n "$src" ] || { echo "run.sh: no built SmartPerf-Host UI given (argument or \$SMARTPERF_DIST)" >&2; usage; }
[ -f "$src/index.html" ] || { echo "run.sh: $src is not a built SmartPerf-Host UI (no index.html)" >&2; exit 2; }
dist=$(cd "$src" && pwd)

"$here/deps.sh"
if [ ${#dbs[@]} -eq 0 ]; then
  mapfile -t dbs < <("$here/make-dbs.sh" "${mk[@]}")
  [ ${#dbs[@]} -ge 5 ] || { echo "run.sh: make-dbs.sh failed" >&2; exit 1; }
elif [ ${#mk[@]} -gt 0 ]; then
  echo "run.sh: --rev/--patched only apply to the test databases (no DB arguments)" >&2
  exit 2
fi
echo "run.sh: SmartPerf-Host dist: $dist" >&2
echo "run.sh: checking ${#dbs[@]} database(s)" >&2
exec node "$here/check.mjs" --dist "$dist" --json "$json" "${chk[@]}" "${dbs[@]}"
