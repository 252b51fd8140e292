#!/usr/bin/env bash
# make-dbs.sh [--rev REV] [--patched] — build tracestreamer (bin/, from the work tree) and
# convert the test inputs into .cache/smartperf/dbs/*.db (five, and the optional sixth
# and seventh when they can be made):
#   a-arkts-snapshots.db  htrace: two heap snapshots of one node process + a CPU profile
#                         (captured once with capture-two.cjs into .cache/smartperf/capture;
#                         without node: testdata/node/snapshot.heapsnapshot.gz twice)
#   b-arkts-timeline.db   htrace: testdata/node/timeline.heaptimeline.gz (allocation tracking)
#   c-standalone.db       testdata/node/snapshot.heapsnapshot.gz + profile.cpuprofile, no htrace
#   d-chromium-trace.db   testdata/chromium/trace.json.gz (Trace Event JSON from Chromium)
#   e-node-trace.db       testdata/node/trace.json (Trace Event JSON from node)
#   f-synthetic-trace.db  optional: a 5 MB synthetic Chrome trace from the work tree's
#                         `go run ./internal/cmd/benchrun -gentrace` (deterministic; counters,
#                         async slices, flows, instants, samples), converted by the
#                         tracestreamer under test; left out with a warning when the
#                         generator is missing or fails
#   g-rawheap.db          optional: testdata/rawheap/static-leak-{baseline,target,final}
#                         .rawheap.gz, three ArkTS .rawheap dumps of one process; left out
#                         with a warning when the tracestreamer under test cannot read them.
#                         Static dumps, not V1/V2: SmartPerf-Host keys heap nodes by id and
#                         fails on the many id-0 nodes of dynamic dumps (docs/compat.md)
# Prints the paths of the databases, one a line.
#
# --rev REV builds tracestreamer from a committed revision instead (git archive into
# .cache/smartperf/rev/<commit>/, built there; the work tree and bin/ are not touched) and
# writes .cache/smartperf/dbs-<commit:12>/ — e.g. --rev HEAD to compare with uncommitted work.
#
# --patched also writes copies into <dbs dir>-patched/ with every table of the
# reference schema (../shared/spec/reference-schema.sql beside the repository, else testdata/golden/
# reference-schema.sql) added empty (CREATE TABLE IF NOT EXISTS) — for developing the check
# only, to see it pass before tracestreamer writes those tables itself; prints those paths.
# When a copy has callstack rows but stat says 0 'received' for print, tracing_mark_write and
# sched_switch, the copy's tracing_mark_write/received count is also set to the number of
# callstack rows: SmartPerf-Host builds no process or thread rows at all unless one of those
# three counts is non-zero (SpProcessChart.init), so without this the Trace Event views
# cannot be exercised.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache="$root/.cache/smartperf"
patched=0
rev=
while [ $# -gt 0 ]; do
  case $1 in
    --patched) patched=1; shift ;;
    --rev) rev=${2:?--rev needs a revision}; shift 2 ;;
    *) sed -n '2,4p' "$0" >&2; exit 2 ;;
  esac
done

cd "$root"
if [ -n "$rev" ]; then
  commit=$(git rev-parse --verify "$rev^{commit}")
  src="$cache/rev/$commit"
  if [ ! -x "$src/bin/tracestreamer" ]; then
    rm -rf "$src" && mkdir -p "$src"
    git archive "$commit" | tar -x -C "$src"
    (cd "$src" && go build -o bin/ ./cmd/...) >&2
  fi
  bin="$src/bin"
  dbs="$cache/dbs-${commit:0:12}"
else
  go build -o bin/ ./cmd/... >&2
  bin="$root/bin"
  dbs="$cache/dbs"
fi
work="$dbs/htrace"
mkdir -p "$dbs" "$work"
td=testdata/node

snaps=(-snapshot "$td/snapshot.heapsnapshot.gz" -snapshot "$td/snapshot.heapsnapshot.gz")
prof="$td/profile.cpuprofile"
if command -v node > /dev/null; then
  cap="$cache/capture"
  if [ ! -f "$cap/second.heapsnapshot" ]; then
    node "$here/capture-two.cjs" "$cap.tmp" >&2 && rm -rf "$cap" && mv "$cap.tmp" "$cap"
  fi
  snaps=(-snapshot "$cap/first.heapsnapshot" -snapshot "$cap/second.heapsnapshot")
  prof="$cap/profile.cpuprofile"
fi

conv() { # OUT.db INPUT...
  local out=$1; shift
  "$bin/tracestreamer" -q "$@" -o "$out" >&2
  echo "$out"
}
out=()
"$bin/mkhtrace" "${snaps[@]}" -cpuprofile "$prof" -o "$work/a-arkts-snapshots.htrace" >&2
out+=("$(conv "$dbs/a-arkts-snapshots.db" "$work/a-arkts-snapshots.htrace")")
"$bin/mkhtrace" -timeline "$td/timeline.heaptimeline.gz" -o "$work/b-arkts-timeline.htrace" >&2
out+=("$(conv "$dbs/b-arkts-timeline.db" "$work/b-arkts-timeline.htrace")")
out+=("$(conv "$dbs/c-standalone.db" "$td/snapshot.heapsnapshot.gz" "$td/profile.cpuprofile")")
out+=("$(conv "$dbs/d-chromium-trace.db" testdata/chromium/trace.json.gz)")
out+=("$(conv "$dbs/e-node-trace.db" "$td/trace.json")")
# The generator is the work tree's (an input maker, not under test), also with --rev.
syn="$work/f-synthetic-trace.json"
if [ -d internal/cmd/benchrun ] && go run ./internal/cmd/benchrun -gentrace "$syn.tmp" -trace-mb 5 >&2 && mv "$syn.tmp" "$syn"; then
  out+=("$(conv "$dbs/f-synthetic-trace.db" "$syn")")
else
  rm -f "$syn.tmp" "$dbs/f-synthetic-trace.db"
  echo "make-dbs: warning: no synthetic trace (go run ./internal/cmd/benchrun -gentrace failed): f-synthetic-trace left out" >&2
fi

# Three .rawheap dumps of one process (testdata/rawheap's leak baseline, target and final,
# static "3.0.0" dumps): the Heapsnapshot view of a database made from .rawheap. Left out with
# a warning when the tracestreamer under test cannot read them (an older --rev).
rh=testdata/rawheap/static-leak
if "$bin/tracestreamer" -q "$rh-baseline.rawheap.gz" "$rh-target.rawheap.gz" "$rh-final.rawheap.gz" \
     -o "$dbs/g-rawheap.db" >&2; then
  out+=("$dbs/g-rawheap.db")
else
  rm -f "$dbs/g-rawheap.db"
  echo "make-dbs: warning: tracestreamer could not convert $rh-*.rawheap.gz: g-rawheap left out" >&2
fi

if [ $patched = 0 ]; then
  printf '%s\n' "${out[@]}"
  exit 0
fi
schema="$root/../shared/spec/reference-schema.sql"
[ -f "$schema" ] || schema=testdata/golden/reference-schema.sql
command -v sqlite3 > /dev/null || { echo "make-dbs: --patched needs sqlite3 (apt-get install -y sqlite3)" >&2; exit 1; }
pdir="$dbs-patched"
mkdir -p "$pdir"
# Only the CREATE TABLE statements, made idempotent; views and comments are left out.
ddl=$(sed -e '/^--/d' "$schema" | awk '/^CREATE TABLE/{on=1} on{print} on&&/;[[:space:]]*$/{on=0}' \
      | sed 's/^CREATE TABLE /CREATE TABLE IF NOT EXISTS /')
for db in "${out[@]}"; do
  p="$pdir/$(basename "$db")"
  cp "$db" "$p"
  before=$(sqlite3 "$p" "select count(*) from sqlite_master where type='table'")
  printf '%s\n' "$ddl" | sqlite3 "$p"
  after=$(sqlite3 "$p" "select count(*) from sqlite_master where type='table'")
  echo "make-dbs: $(basename "$p"): added $((after - before)) empty reference tables" >&2
  gate=$(sqlite3 "$p" "select (select count(*) from callstack) > 0 and ifnull((select sum(count) from stat
            where stat_type = 'received' and event_name in ('print','tracing_mark_write','sched_switch')), 0) = 0")
  if [ "$gate" = 1 ]; then
    sqlite3 "$p" "update stat set count = (select count(*) from callstack)
                  where event_name = 'tracing_mark_write' and stat_type = 'received'"
    echo "make-dbs: $(basename "$p"): set stat tracing_mark_write/received to the callstack row count (UI gate for process rows)" >&2
  fi
  echo "$p"
done
