// Opens databases in sql.js 1.6.2 — the SQLite (3.36.0) that SmartPerf-Host
// ships — and reads every table and view, so that a schema feature newer than
// 3.36 (or a view that 3.36 cannot run) shows up as an error here.
//
//   node scripts/smartperf/sqljs-check.mjs A.db [B.db ...]
//
// sql.js is resolved from $SQLJS_DIR (default .cache/smartperf/node, where
// run.sh installs it). Prints one line per database; exits 1 if any fails.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const dir = resolve(process.env.SQLJS_DIR || '.cache/smartperf/node');
const require = createRequire(resolve(dir, 'package.json'));
const initSqlJs = require('sql.js');
const { version } = require('sql.js/package.json');

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: sqljs-check.mjs A.db [B.db ...]');
  process.exit(2);
}
// Node 20 has fetch, which this emscripten build would try on a file path:
// hand it the wasm bytes instead.
const SQL = await initSqlJs({ wasmBinary: readFileSync(require.resolve('sql.js/dist/sql-wasm.wasm')) });
let failed = 0;
for (const file of files) {
  const db = new SQL.Database(readFileSync(file));
  const problems = [];
  const sqliteVersion = db.exec('SELECT sqlite_version()')[0].values[0][0];
  const integrity = db.exec('PRAGMA integrity_check')[0].values[0][0];
  if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
  const objects = db.exec("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY rowid")[0].values;
  let rows = 0;
  for (const [type, name] of objects) {
    try {
      const res = db.exec(`SELECT count(*) FROM (SELECT * FROM "${name}")`);
      rows += Number(res[0].values[0][0]);
    } catch (e) {
      problems.push(`${type} ${name}: ${e.message}`);
    }
  }
  db.close();
  const tables = objects.filter(([t]) => t === 'table').length;
  const views = objects.length - tables;
  const verdict = problems.length ? 'FAIL' : 'ok';
  console.log(`${verdict} ${file}: sql.js ${version} (SQLite ${sqliteVersion}): ${tables} tables, ${views} views, ${rows} rows read`);
  for (const p of problems) console.log(`  ${p}`);
  if (problems.length) failed++;
}
process.exit(failed ? 1 : 0);
