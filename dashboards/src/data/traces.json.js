// Reads the Parquet dataset in $TS_PARQUET_DIR (tracestreamer export -parquet)
// with DuckDB and prints what the "Many traces" page draws, as JSON.
import {DuckDBInstance} from "@duckdb/node-api";

const dir = process.env.TS_PARQUET_DIR;
if (!dir) throw new Error("set TS_PARQUET_DIR to a dataset written by tracestreamer export -parquet");
const duck = await (await DuckDBInstance.create(":memory:")).connect();
const rows = async (sql) => (await duck.runAndReadAll(sql)).getRowObjectsJson();
const ds = (t) => `read_parquet('${dir}/${t}/*/*.parquet', hive_partitioning = true, union_by_name = true)`;
const has = async (t) => (await rows(`SELECT count(*) AS n FROM glob('${dir}/${t}/*/*.parquet')`))[0].n > 0;

// Short trace labels: the first source's file name.
const traces = await rows(`
  SELECT trace, formats, len(string_split(tables, ',')) AS tables, CAST(rows AS DOUBLE) AS rows,
    CAST((end_ts - start_ts) / 1e6 AS DOUBLE) AS duration_ms,
    list_transform(json_extract_string(sources, '$[*].path'), p -> regexp_extract(p, '[^/]*$')) AS files
  FROM ${ds("traces")} ORDER BY trace`);
for (const t of traces) t.sources = t.files.join(", ");
const label = Object.fromEntries(traces.map((t) => [t.trace, `${t.trace.slice(0, 6)} ${t.files[0]}`]));

const tables = [];
for (const t of ["js_heap_nodes", "js_heap_edges", "js_heap_class", "js_cpu_profiler_node", "js_cpu_profiler_sample",
  "callstack", "args", "thread", "instant", "flow", "stack_sample", "process_measure"]) {
  if (!(await has(t))) continue;
  for (const r of await rows(`SELECT trace, CAST(count(*) AS DOUBLE) AS rows FROM ${ds(t)} GROUP BY trace`)) {
    tables.push({name: t, trace: label[r.trace], rows: r.rows});
  }
}
const classes = (await has("js_heap_class")) ? await rows(`
  SELECT name, count(DISTINCT trace) AS traces, CAST(sum(retained_size) AS DOUBLE) AS retained
  FROM ${ds("js_heap_class")} GROUP BY name ORDER BY retained DESC LIMIT 15`) : [];
const slices = (await has("callstack")) ? await rows(`
  WITH top AS (SELECT name FROM ${ds("callstack")} WHERE dur IS NOT NULL AND cookie IS NULL GROUP BY name ORDER BY sum(dur) DESC LIMIT 15)
  SELECT name, trace, CAST(sum(dur) / 1e6 AS DOUBLE) AS total_ms FROM ${ds("callstack")}
  WHERE dur IS NOT NULL AND cookie IS NULL AND name IN (SELECT name FROM top) GROUP BY ALL`) : [];
for (const s of slices) s.trace = label[s.trace];

process.stdout.write(JSON.stringify({traces, tables, classes, slices}));
