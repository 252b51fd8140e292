// check.mjs reads a tracestreamer Parquet dataset with DuckDB (npm
// @duckdb/node-api, which ships libduckdb) and compares it with the SQLite
// databases it was exported from, table by table: the row count of each
// trace's partition, and for every column the number of non-NULL values and
// their sums (text columns: the sum of their lengths), computed by DuckDB over
// read_parquet(…, hive_partitioning = true) and by SQLite (the sqlite3
// command) over the database. Then it runs the README's "Many traces" queries.
//
//   node check.mjs DIR DB...
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';

const [dir, ...dbs] = process.argv.slice(2);
if (!dir || dbs.length === 0) {
  console.error('usage: node check.mjs DIR DB...');
  process.exit(2);
}
const sqlite = (db, sql) => JSON.parse(execFileSync('sqlite3', ['-json', db, sql], { maxBuffer: 1 << 30 }).toString() || '[]');
const q = (name) => '"' + name.replace(/"/g, '""') + '"';

const duck = await (await DuckDBInstance.create(':memory:')).connect();
const rows = async (sql) => (await duck.runAndReadAll(sql)).getRowObjectsJson();

// Which trace each database is: the dataset's table of traces names its path.
const traces = await rows(`SELECT trace, db_path, rows FROM read_parquet('${dir}/traces/*/*.parquet', hive_partitioning = true)`);
let failures = 0, compared = 0, values = 0;
for (const db of dbs) {
  const abs = execFileSync('realpath', [db]).toString().trim();
  const tr = traces.find((t) => t.db_path === abs);
  if (!tr) { console.log(`FAIL ${db}: not in ${dir}/traces`); failures++; continue; }
  const rels = sqlite(db, `SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name <> 'js_heap_retainer' ORDER BY rowid`);
  let tables = 0, total = 0;
  for (const { name } of rels) {
    const n = sqlite(db, `SELECT count(*) AS n FROM ${q(name)}`)[0].n;
    if (n === 0) continue;
    const cols = sqlite(db, `SELECT name, type FROM pragma_table_info('${name}')`);
    // Per column: the non-NULL count; for text the sum of lengths, for numbers
    // their total as a double and, for integer columns, the exact sum of the
    // values modulo 1000003 (a sum of ns timestamps overflows 64 bits).
    const kinds = sqlite(db, `SELECT ${cols.map((c) => `max(typeof(${q(c.name)}) IN ('text','blob')) + ` +
      `2 * max(typeof(${q(c.name)}) = 'real') + 4 * max(typeof(${q(c.name)}) = 'integer') AS ${q(c.name)}`).join(', ')} ` +
      `FROM ${q(name)}`)[0];
    const agg = (c, i) => {
      const n = q(c.name);
      // Text mixed with REAL values: SQLite's text for a REAL differs between
      // versions (the sqlite3 command's and the one tracestreamer uses), so
      // only the count is compared.
      if ((kinds[c.name] & 3) === 3) return `count(${n}) AS "n${i}", 0 AS "s${i}", 0 AS "m${i}"`;
      if (kinds[c.name] & 1) return `count(${n}) AS "n${i}", sum(length(${n})) AS "s${i}", 0 AS "m${i}"`;
      if (!kinds[c.name]) return `count(${n}) AS "n${i}", 0 AS "s${i}", 0 AS "m${i}"`; // all NULL
      const exact = kinds[c.name] & 2 ? '0' : `sum(${n} % 1000003)`;
      return `count(${n}) AS "n${i}", SUMF(${n}) AS "s${i}", ${exact} AS "m${i}"`;
    };
    const sel = cols.map(agg).join(', ');
    const want = sqlite(db, `SELECT count(*) AS rows, ${sel.replaceAll('SUMF(', 'total(')} FROM ${q(name)}`)[0];
    const got = (await rows(`SELECT count(*) AS rows, ${sel.replace(/SUMF\(("[^"]*(?:""[^"]*)*")\)/g, 'sum($1::DOUBLE)')} ` +
      `FROM read_parquet('${dir}/${name}/*/*.parquet', hive_partitioning = true) WHERE trace = '${tr.trace}'`))[0];
    const diffs = [];
    if (Number(got.rows) !== want.rows) diffs.push(`rows ${got.rows} vs ${want.rows}`);
    cols.forEach((c, i) => {
      const a = Number(got[`n${i}`] ?? 0), b = Number(want[`n${i}`] ?? 0);
      if (a !== b) diffs.push(`${c.name} non-null ${a} vs ${b}`);
      const x = Number(got[`s${i}`] ?? 0), y = Number(want[`s${i}`] ?? 0);
      if (Math.abs(x - y) > 1e-12 * Math.max(1, Math.abs(y))) diffs.push(`${c.name} sum ${x} vs ${y}`);
      if (String(got[`m${i}`] ?? 0) !== String(want[`m${i}`] ?? 0)) {
        diffs.push(`${c.name} sum mod 1000003 ${got[`m${i}`]} vs ${want[`m${i}`]}`);
      }
    });
    compared++; tables++; total += want.rows; values += want.rows * cols.length;
    if (diffs.length) { failures++; console.log(`FAIL ${db} ${name}: ${diffs.join('; ')}`); }
  }
  console.log(`${db}: trace=${tr.trace}: ${tables} tables, ${total} rows: counts and sums equal in DuckDB and SQLite` +
    (failures ? ' (but see FAIL above)' : ''));
}
console.log(`${compared} tables compared, ${values} values, ${failures} differences`);

// The README's queries over all traces.
const show = async (title, sql) => {
  console.log(`\n-- ${title}\n${sql}`);
  for (const r of await rows(sql)) console.log('  ' + Object.values(r).join(' | '));
};
const ds = (t) => `read_parquet('${dir}/${t}/*/*.parquet', hive_partitioning = true, union_by_name = true)`;
await show('classes retaining most, across traces',
  `SELECT name, count(DISTINCT trace) AS traces, sum(count) AS objects, sum(retained_size) AS retained
FROM ${ds('js_heap_class')} GROUP BY name ORDER BY retained DESC LIMIT 5`);
await show('CPU self time per function, across traces',
  `SELECT name, count(DISTINCT trace) AS traces, sum(self_time) / 1e6 AS self_ms, sum(total_time) / 1e6 AS total_ms
FROM ${ds('js_cpu_profiler_function')} GROUP BY name ORDER BY self_ms DESC LIMIT 5`);
await show('slices by name, across traces',
  `SELECT name, count(DISTINCT trace) AS traces, count(*) AS slices, sum(dur) / 1e6 AS total_ms
FROM ${ds('callstack')} WHERE dur IS NOT NULL GROUP BY name ORDER BY total_ms DESC LIMIT 5`);
await show('classes that grew between consecutive snapshots, across traces',
  `SELECT name, count(DISTINCT trace) AS traces, sum(added_count) AS added, sum(size_delta) AS grown
FROM ${ds('js_heap_class_diff')} WHERE size_delta > 0 GROUP BY name ORDER BY grown DESC LIMIT 5`);
await show('leaks per class, across traces',
  `SELECT name, count(DISTINCT trace) AS traces, count(*) AS leaks, sum(retained_size) AS retained
FROM ${ds('js_heap_leak')} GROUP BY name ORDER BY retained DESC LIMIT 5`);
process.exit(failures ? 1 : 0);
