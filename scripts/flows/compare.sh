#!/usr/bin/env bash
# compare.sh TRACE... — the v1 flows of Trace Event files, tracestreamer's beside
# Perfetto's: our arrows (flow) and flow events (flow_event: per phase, how
# many bind to a slice and how many end an arrow, and the json_flow_* events
# counted not_match), Perfetto's arrows, and how many arrows both draw between
# the same slices (matched by each end's ts and name). Needs sqlite3 and
# trace_processor_shell v58.2 unpacked under .cache/peers (tar -C .cache/peers
# -xJf trace_processor_shell-v58.2.tar.xz, from the peers' tools); work files
# go to .cache/flows. Without arguments: testdata's two Chromium captures.
set -euo pipefail
cd "$(dirname "$0")/../.."
tp=.cache/peers/trace_processor_shell-v58.2/run.sh
[ -x "$tp" ] || { echo "compare.sh: $tp missing (unpack trace_processor_shell-v58.2 under .cache/peers)" >&2; exit 2; }
work=.cache/flows
mkdir -p "$work"
go build -o "$work/tracestreamer" ./cmd/tracestreamer
[ $# -gt 0 ] || set -- testdata/chromium/trace.json.gz testdata/chromium/busy.json.gz
ends="o.ts || '|' || o.name || '|' || i.ts || '|' || i.name"
for trace in "$@"; do
  name=$(basename "$trace"); name=${name%%.*}
  db=$work/$name.db
  "$work/tracestreamer" -q "$trace" -o "$db" 2>/dev/null || true
  echo "== $trace"
  echo "ours: $(sqlite3 "$db" 'SELECT count(*) FROM flow WHERE version = 1') v1 arrows"
  sqlite3 -separator ' ' "$db" "SELECT 'ours: flow_event', phase, count(*), 'rows,', sum(slice_id IS NOT NULL), 'bound,',
    sum(flow_id IS NOT NULL), 'ending an arrow' FROM flow_event GROUP BY phase"
  sqlite3 -separator ' ' "$db" "SELECT 'ours: stat', event_name, stat_type, count FROM stat
    WHERE event_name IN ('json_flow_start', 'json_flow_step', 'json_flow_end') AND stat_type != 'received' AND count > 0"
  printf 'SELECT %s AS k FROM flow f JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in;\n' "$ends" > "$work/ends.sql"
  "$tp" -q "$work/ends.sql" "$trace" 2>/dev/null | tail -n +2 | tr -d '"' | sort > "$work/$name.perfetto"
  sqlite3 "$db" "SELECT $ends FROM flow f JOIN callstack o ON o.id = f.slice_out JOIN callstack i ON i.id = f.slice_in
    WHERE f.version = 1" | sort > "$work/$name.ours"
  echo "perfetto: $(wc -l < "$work/$name.perfetto") arrows"
  echo "both: $(comm -12 "$work/$name.ours" "$work/$name.perfetto" | wc -l) arrows between the same slices"
done
