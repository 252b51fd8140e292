#!/usr/bin/env bash
# bench.sh — times the README's lookups on databases converted without and
# with --index (tracestreamer query; each query run RUNS times on each
# database, alternating between them; the best wall time of each is printed).
#   scripts/indexes/bench.sh heap  SNAP.db SNAP-INDEXED.db  [NODE_ID]
#   scripts/indexes/bench.sh trace TRACE.db TRACE-INDEXED.db
# NODE_ID is the object whose retainer path is read (default: the first node
# at distance 6 of heap file 0).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ts="$root/bin/tracestreamer"
kind=$1 plain=$2 indexed=$3
runs=${RUNS:-3}
declare -a names sqls
add() { names+=("$1"); sqls+=("$2"); }
if [ "$kind" = heap ]; then
  node=${4:-$("$ts" query --format csv "$plain" "SELECT id FROM js_heap_node_stats WHERE file_id = 0 AND distance = 6 LIMIT 1" | tail -1)}
  add "retainer path of @$node (README)" "WITH RECURSIVE path(step, id) AS (
  SELECT 0, $node UNION ALL
  SELECT step + 1, s.retainer_id FROM path JOIN js_heap_node_stats s ON s.file_id = 0 AND s.id = path.id
  WHERE s.retainer_id IS NOT NULL)
SELECT p.step, r.id, r.class, r.edge_type, r.edge_name
FROM path p JOIN js_heap_retainer r ON r.file_id = 0 AND r.id = p.id ORDER BY p.step DESC"
  add "retainer path of @$node, labelled as it recurses" "WITH RECURSIVE path(step, id, class, edge_type, edge_name, retainer_id) AS (
  SELECT 0, id, class, edge_type, edge_name, retainer_id FROM js_heap_retainer WHERE file_id = 0 AND id = $node
  UNION ALL
  SELECT step + 1, r.id, r.class, r.edge_type, r.edge_name, r.retainer_id
  FROM path JOIN js_heap_retainer r ON r.file_id = 0 AND r.id = path.retainer_id)
SELECT step, id, class, edge_type, edge_name FROM path ORDER BY step DESC"
  add "classes by retained size (README)" "SELECT constructor, objects, retained_size FROM js_heap_class_summary WHERE file_id = 0 LIMIT 10"
  add "node @$node by id" "SELECT * FROM js_heap_nodes WHERE file_id = 0 AND id = $node"
  add "edges out of @$node" "SELECT count(*) FROM js_heap_edges WHERE file_id = 0 AND from_node_id = $node"
else
  read -r tid t0 < <("$ts" query --format tsv "$plain" "SELECT callid, min(ts) + (max(ts) - min(ts)) / 3 FROM callstack GROUP BY callid ORDER BY count(*) DESC LIMIT 1" | tail -1)
  add "slices by name (README)" "SELECT name, count(*) AS n, sum(dur) / 1e6 AS ms FROM callstack WHERE dur IS NOT NULL GROUP BY name ORDER BY ms DESC LIMIT 10"
  add "CPU self time by function" "SELECT f.name, sum(s.weight) AS samples FROM stack_sample s JOIN stack_frame f ON f.id = s.frame_id GROUP BY f.name ORDER BY samples DESC LIMIT 10"
  add "thread $tid's slices in 100 ms" "SELECT count(*), sum(dur) FROM callstack WHERE callid = $tid AND ts BETWEEN $t0 AND $t0 + 100000000"
  add "args of thread $tid's slices in 100 ms" "SELECT count(*) FROM callstack c JOIN args a ON a.argset = c.argsetid WHERE c.callid = $tid AND c.ts BETWEEN $t0 AND $t0 + 100000000"
fi
once() { # wall time of running query $1 on database $2, in seconds
  local s e
  s=$(date +%s.%N); "$ts" query --format csv "$2" "$1" >/dev/null; e=$(date +%s.%N)
  echo "$s $e" | awk '{print $2 - $1}'
}
printf '%-52s %12s %12s\n' query "no index s" "--index s"
for i in "${!names[@]}"; do
  a=1e9 b=1e9
  for _ in $(seq "$runs"); do
    a=$(echo "$a $(once "${sqls[$i]}" "$plain")" | awk '{print ($2 < $1 ? $2 : $1)}')
    b=$(echo "$b $(once "${sqls[$i]}" "$indexed")" | awk '{print ($2 < $1 ? $2 : $1)}')
  done
  printf '%-52s %12.3f %12.3f\n' "${names[$i]}" "$a" "$b"
done
