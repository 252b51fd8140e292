#!/bin/sh
# The one loader of the tracestreamer pages: data/DB/NAME.json is the result
# of sql/DB/NAME.sql run on the database named by $TS_<DB>_DB (TS_HEAP_DB,
# TS_CPU_DB, TS_TRACE_DB, TS_COUNTER_DB) with `tracestreamer query --format json`
# ($TRACESTREAMER, default tracestreamer on PATH).
set -eu
for a in "$@"; do
  case $a in
    --db=*) db=${a#--db=} ;;
    --name=*) name=${a#--name=} ;;
  esac
done
var=TS_$(echo "$db" | tr a-z A-Z)_DB
eval "path=\${$var:-}"
[ -n "$path" ] || { echo "set $var to a tracestreamer database (or a trace)" >&2; exit 1; }
# Loaders run in the project's root folder.
"${TRACESTREAMER:-tracestreamer}" query --format json "$path" -f "sql/$db/$name.sql"
