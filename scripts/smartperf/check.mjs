// check.mjs — open tracestreamer databases in a built SmartPerf-Host (headless Debian chromium
// through playwright-core), record page errors and failing SQL, wait for the real end of
// loading, open the views that matter for the data and take screenshots, then print a
// summary per database and PASS/FAIL. Run it through run.sh, which builds the UI and
// installs the node packages; by hand:
//   node scripts/smartperf/check.mjs --dist DIST [--shots DIR] [--json FILE] [--timeout S]
//        [--stall S] [--view-timeout S] [--no-views] DB...
// Exit status: 0 all PASS, 1 any FAIL, 2 usage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { start as startServer } from './serve.mjs';
import { viewsFor, FACT_QUERIES } from './views.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const cache = path.join(root, '.cache', 'smartperf');
const require = createRequire(path.join(cache, 'node', 'package.json'));

// ---- allow-lists ----------------------------------------------------------------------
// Statements the UI runs that fail on trace_streamer's own databases too, so they are UI
// bugs, not ours. Each was checked against an empty database made from the reference schema
// (shared/spec/reference-schema.sql, trace_streamer 4.3.7). An entry matches the failing
// statement (whitespace collapsed) and the sqlite error.
export const ALLOW = [
  {
    why: 'probe "select colorIndex from callstack limit 1": the reference callstack has no colorIndex column (the UI uses the answer to decide whether to read it)',
    sql: /\bcolorIndex\b/i,
    error: /no such column: colorIndex/i,
  },
  {
    why: 'queryHeapFunction writes "function_index as index": INDEX is an SQL keyword, a syntax error on any database',
    sql: /function_index\s+as\s+index\b/i,
    error: /near "index": syntax error/i,
  },
  {
    why: 'queryHeapTraceNode reads S.live_count/S.live_size but its subquery S names them liveCount/liveSize: fails on any database',
    sql: /\bS\.live_count\b/i,
    error: /no such column: S\.live_(count|size)/i,
  },
  {
    why: 'queryPlugins probes "select 1 from memory_profile, limit 1" (a stray comma in the UI\'s table list): a syntax error on any database',
    sql: /\bfrom\s+memory_profile\s*,\s*limit\s+1\b/i,
    error: /near "limit": syntax error|no such table: memory_profile/i,
  },
];

// Console errors that come from the UI's environment, not from the database; they appear
// for every trace, the reference's included.
export const ALLOW_CONSOLE = [
  {
    why: 'the UI connects to a local helper service at ws://localhost:19099 (hdc/extension) at start; none runs here',
    re: /^WebSocket connection to 'ws:\/\/localhost:19099\/' failed/,
  },
  {
    why: 'the same WebSocket\'s onerror handler logs "error: Event"',
    re: /^error: Event$/,
  },
  {
    why: 'after loading, the UI posts plugin usage statistics to https://<statistics server>/recordPluginUsage; with no statistics server configured the URL is https:///recordPluginUsage',
    re: /^Failed to load resource: net::ERR_NAME_NOT_RESOLVED \(https:\/\/recordpluginusage\/?\)$/i,
  },
];

const SCHEMA_ERROR = /no such (table|column)/i;

function usage(msg) {
  if (msg) console.error(`check.mjs: ${msg}`);
  console.error('usage: node check.mjs --dist DIST [--shots DIR] [--json FILE] [--timeout S] [--stall S] [--view-timeout S] [--no-views] DB...');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { dbs: [], timeout: 300, stall: 45, viewTimeout: 15, views: true, shots: path.join(cache, 'shots'), json: null, dist: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--dist') o.dist = val();
    else if (a === '--shots') o.shots = val();
    else if (a === '--json') o.json = val();
    else if (a === '--timeout') o.timeout = Number(val());
    else if (a === '--stall') o.stall = Number(val());
    else if (a === '--view-timeout') o.viewTimeout = Number(val());
    else if (a === '--no-views') o.views = false;
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('-')) usage(`unknown flag ${a}`);
    else o.dbs.push(path.resolve(a));
  }
  if (!o.dist) usage('--dist is required');
  if (!fs.existsSync(path.join(o.dist, 'index.html'))) usage(`${o.dist} has no index.html`);
  if (o.dbs.length === 0) usage('no database given');
  for (const d of o.dbs) if (!fs.existsSync(d)) usage(`${d} does not exist`);
  return o;
}

// Appended to sql-wasm.js (loaded by the UI's database worker with importScripts): wraps
// sql.js so that every statement that fails to prepare or step is posted to the page as
// {__spcheck:'sql-error'}; the page hook below collects these messages and hides them from
// the UI. Covers both worker paths: 'exec' (errors are otherwise only sent back as an
// unused `error` field) and 'exec-proto' (errors are otherwise only console.log'ed).
const WORKER_HOOK = String.raw`
(function () {
  if (typeof initSqlJs !== 'function' || initSqlJs.__spcheck) return;
  var report = function (kind, sql, e) {
    try { self.postMessage({ __spcheck: 'sql-error', kind: kind, sql: String(sql), error: String((e && e.message) || e) }); } catch (x) {}
  };
  var orig = initSqlJs;
  initSqlJs = function (cfg) {
    return orig(cfg).then(function (SQL) {
      var D = SQL.Database.prototype;
      if (D.__spcheck) return SQL;
      D.__spcheck = true;
      var prep = D.prepare, ex = D.exec, stmtDone = false;
      D.prepare = function (sql, params) {
        var st;
        try { st = prep.call(this, sql, params); } catch (e) { report('prepare', sql, e); throw e; }
        if (!stmtDone && st) {
          stmtDone = true;
          var S = Object.getPrototypeOf(st), step = S.step, bind = S.bind;
          S.step = function () { try { return step.apply(this, arguments); } catch (e) { report('step', this.getSQL ? this.getSQL() : '?', e); throw e; } };
          S.bind = function () { try { return bind.apply(this, arguments); } catch (e) { report('bind', this.getSQL ? this.getSQL() : '?', e); throw e; } };
        }
        return st;
      };
      D.exec = function (sql, params) {
        try { return ex.call(this, sql, params); } catch (e) { report('exec', sql, e); throw e; }
      };
      return SQL;
    });
  };
  initSqlJs.__spcheck = true;
})();
`;

// Runs in the page before the UI: wraps Worker to count the database requests in flight
// (for "is the UI idle") and to collect the worker hook's reports.
const PAGE_HOOK = String.raw`
(() => {
  const S = (window.__spcheck = { sqlErrors: [], replyErrors: [], sent: 0, answered: 0, pending: new Map(), log: [], last: Date.now() });
  const Orig = window.Worker;
  function Wrapped(url, opts) {
    const w = new Orig(url, opts);
    w.addEventListener('message', (ev) => {
      const d = ev.data;
      S.last = Date.now();
      if (d && d.__spcheck === 'sql-error') {
        S.sqlErrors.push({ kind: d.kind, sql: d.sql, error: d.error });
        ev.stopImmediatePropagation();
        return;
      }
      if (d && d.id !== undefined && S.pending.has(d.id) && !('ready' in d)) {
        const p = S.pending.get(d.id);
        S.pending.delete(d.id);
        S.answered++;
        if (d.error) S.replyErrors.push({ name: p.name, sql: p.sql, error: String(d.error) });
      }
    });
    const post = Orig.prototype.postMessage;
    w.postMessage = function (msg, transfer) {
      if (msg && msg.id !== undefined && msg.action) {
        S.pending.set(msg.id, { action: msg.action, name: msg.name, sql: msg.sql, t: Date.now() });
        S.sent++;
        // The last 2000 requests, numbered, for views that report what the UI ran.
        S.log.push({ n: S.sent, name: msg.name, sql: typeof msg.sql === 'string' ? msg.sql.slice(0, 4000) : '' });
        if (S.log.length > 4000) S.log.splice(0, 2000);
      }
      S.last = Date.now();
      return post.call(w, msg, transfer);
    };
    return w;
  }
  Wrapped.prototype = Orig.prototype;
  window.Worker = Wrapped;
})();
`;

// In-page probe of the loading state. The real end of loading in SmartPerf-Host's sqlite
// path: SpSystemTrace.loadTraceCompleted is set after all charts were built, and then the
// completion callback removes the 'loading' attribute from the header's progress bar
// (sp-application .progress) and resets the search box (#lit-search) whose placeholder shows
// the progress text ("vm tracker 63%") while loading.
export function probe() {
  const app = document.querySelector('sp-application');
  const sr = app && app.shadowRoot;
  const sp = sr && sr.querySelector('#sp-system-trace');
  const bar = sr && sr.querySelector('.progress');
  const input = sr && sr.querySelector('#lit-search')?.shadowRoot?.querySelector('input');
  const S = window.__spcheck || { sent: 0, answered: 0, pending: new Map(), last: 0 };
  return {
    completed: !!(sp && sp.loadTraceCompleted),
    loading: !!(bar && bar.hasAttribute('loading')),
    progress: input ? input.getAttribute('placeholder') || '' : '',
    rows: sp && sp.shadowRoot ? sp.shadowRoot.querySelectorAll('trace-row').length : 0,
    sent: S.sent,
    answered: S.answered,
    pending: S.pending.size,
    idleMs: Date.now() - S.last,
  };
}

// What the database holds, read with sql.js in node (the same library the UI uses), so the
// views know what they should find. Skipped for files over 1 GiB.
let SQLP = null;
async function dbFacts(db) {
  if (fs.statSync(db).size > 1 << 30) return null;
  // wasmBinary: sql.js 1.6 would fetch() the file path under node 18+, which fails.
  SQLP = SQLP || require('sql.js')({ wasmBinary: fs.readFileSync(require.resolve('sql.js/dist/sql-wasm.wasm')) });
  const SQL = await SQLP;
  const d = new SQL.Database(fs.readFileSync(db));
  const one = (q) => {
    try {
      const r = d.exec(q);
      return r.length ? r[0].values[0][0] : null;
    } catch {
      return null;
    }
  };
  const f = {
    tables: one("select count(*) from sqlite_master where type = 'table'"),
    slices: one('select count(*) from callstack where cookie is null'),
    asyncSlices: one('select count(*) from callstack where cookie is not null'),
    zeroSlices: one('select count(*) from callstack where dur = 0'),
    zeroAtStart: one('select count(*) from callstack where dur = 0 and ts = (select start_ts from trace_range)'),
    openSlices: one('select count(*) from callstack where dur is null or dur < 0'),
    processes: one('select count(*) from process where id > 0'),
    threads: one('select count(*) from thread where id > 0'),
    counters: one('select count(*) from process_measure_filter'),
    heapFiles: one('select count(*) from js_heap_files'),
    jsConfig: one('select count(*) from js_config'),
    cpuNodes: one('select count(*) from js_cpu_profiler_node'),
    traceRange: one("select start_ts || '..' || end_ts || ' (' || ((end_ts - start_ts) / 1e9) || ' s)' from trace_range"),
    gate: one("select sum(count) from stat where stat_type = 'received' and event_name in ('print','tracing_mark_write','sched_switch')"),
  };
  // The views' own queries (views.mjs FACT_QUERIES): all rows as objects, [] on error.
  for (const [k, q] of Object.entries(FACT_QUERIES)) {
    try {
      const r = d.exec(q);
      f[k] = r.length ? r[0].values.map((v) => Object.fromEntries(r[0].columns.map((c, i) => [c, v[i]]))) : [];
    } catch (e) {
      f[k] = [];
      f[`${k}Error`] = String(e.message || e);
    }
  }
  d.close();
  return f;
}

// Memory of the browser: every 0.5 s, the sum of VmRSS and of Pss (smaps_rollup: shared
// pages split between the processes sharing them) over all descendants of this node
// process (the chromium browser, its zygotes, renderer, GPU and utility processes; one
// browser runs at a time). Linux /proc only; null elsewhere.
function memSampler() {
  if (!fs.existsSync('/proc/self/smaps_rollup')) return null;
  const kB = (text, key) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const S = { peakRss: 0, peakPss: 0, rss: 0, pss: 0, procs: 0, samples: 0 };
  const tick = () => {
    const kids = new Map();
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
        if (!kids.has(ppid)) kids.set(ppid, []);
        kids.get(ppid).push(Number(d));
      } catch {}
    }
    let rss = 0;
    let pss = 0;
    let n = 0;
    const todo = [...(kids.get(process.pid) || [])];
    while (todo.length) {
      const pid = todo.pop();
      todo.push(...(kids.get(pid) || []));
      try {
        rss += kB(fs.readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
        pss += kB(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
        n++;
      } catch {}
    }
    Object.assign(S, { rss, pss, procs: n, samples: S.samples + 1 });
    S.peakRss = Math.max(S.peakRss, rss);
    S.peakPss = Math.max(S.peakPss, pss);
  };
  const timer = setInterval(tick, 500);
  return { S, tick, stop: () => clearInterval(timer) };
}
const MB = (k) => Math.round(k / 1024);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

async function checkOne(browser, server, idx, db, opt, mem) {
  const name = path.basename(db).replace(/\.db$/i, '');
  const shotDir = path.join(opt.shots, name);
  fs.rmSync(shotDir, { recursive: true, force: true });
  fs.mkdirSync(shotDir, { recursive: true });
  const r = {
    db, name, loaded: false, loadSeconds: null, stalledAt: null, pageErrors: [], consoleErrors: [],
    sqlErrors: [], failedRequests: [], views: [], viewSeconds: {}, viewProblems: [], screenshots: [], notes: [], rows: 0,
  };
  try {
    r.facts = await dbFacts(db);
  } catch (e) {
    r.notes.push(`could not read the database with sql.js: ${oneLine(e.message || e)}`);
  }
  const page = await browser.newPage();
  page.on('pageerror', (e) => r.pageErrors.push(oneLine(e.message || e)));
  let crashed = false;
  page.on('crash', () => {
    crashed = true;
    r.pageErrors.push('the page crashed (renderer process died)');
  });
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const t = oneLine(m.text());
    const at = m.location()?.url;
    r.consoleErrors.push(/^Failed to load resource/.test(t) && at ? `${t} (${at})` : t);
  });
  page.on('response', (resp) => {
    if (resp.status() >= 400) r.failedRequests.push(`${resp.status()} ${resp.url()}`);
  });
  page.on('requestfailed', (req) => r.failedRequests.push(`failed ${req.url()} ${req.failure()?.errorText || ''}`));
  await page.addInitScript(PAGE_HOOK);
  let shotNo = 0;
  const shot = async (label) => {
    shotNo++;
    const file = path.join(shotDir, `${String(shotNo).padStart(2, '0')}-${label}.png`);
    await page.screenshot({ path: file });
    r.screenshots.push(path.relative(root, file));
    return file;
  };
  const url = `${server.appUrl}?link=true&trace=${encodeURIComponent(server.traceUrl(idx))}`;
  const t0 = Date.now();
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    // Poll the loading state; "stalled" = nothing changed (progress text, rows, SQL traffic)
    // for opt.stall seconds while not complete.
    let lastKey = '';
    let lastChange = Date.now();
    let st;
    for (;;) {
      st = await page.evaluate(probe).catch((e) => {
        if (crashed) return null;
        throw e;
      });
      if (!st) {
        r.stalledAt = `renderer crashed at "${r.lastProgress || '(no progress text)'}"`;
        break;
      }
      r.lastProgress = st.progress;
      if (st.completed && !st.loading) break;
      const key = `${st.progress}|${st.rows}|${st.sent}|${st.answered}`;
      if (key !== lastKey) {
        lastKey = key;
        lastChange = Date.now();
      }
      if (Date.now() - lastChange > opt.stall * 1000) {
        r.stalledAt = st.progress || '(no progress text)';
        break;
      }
      if (Date.now() - t0 > opt.timeout * 1000) {
        r.stalledAt = `timeout after ${opt.timeout} s at ${st.progress}`;
        break;
      }
      await sleep(100);
    }
    r.rows = st ? st.rows : 0;
    if (!r.stalledAt) {
      r.loaded = true;
      r.loadSeconds = (Date.now() - t0) / 1000;
      await waitIdle(page);
      if (mem) {
        mem.tick();
        r.memory = { loadedPssMB: MB(mem.S.pss), loadedRssMB: MB(mem.S.rss) };
      }
      r.jsHeap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null).catch(() => null);
      await shot('loaded');
      if (opt.views) {
        const viewTimeoutMs = opt.viewTimeout * 1000;
        const ctx = {
          page, shot, r, sleep, viewTimeoutMs, state: { facts: r.facts || {} },
          waitIdle: () => waitIdle(page, Math.max(30000, viewTimeoutMs)),
        };
        ctx.state.hasSlices = (r.facts?.slices || 0) + (r.facts?.asyncSlices || 0) > 0;
        for (const v of viewsFor()) {
          const tv = Date.now();
          try {
            const did = await v.run(ctx);
            if (did) {
              r.views.push(v.name);
              r.viewSeconds[v.name] = (Date.now() - tv) / 1000;
            }
          } catch (e) {
            r.viewProblems.push(`${v.name}: ${oneLine(e.message || e)}`);
            try { await shot(`${v.name}-problem`); } catch {}
          }
        }
      }
    } else if (!crashed) {
      await shot('stalled');
    }
  } catch (e) {
    r.notes.push(`check aborted: ${oneLine(e.message || e)}`);
  }
  if (crashed) {
    r.notes.push('the SQL hook could not be read after the crash; statements before it are lost');
  } else try {
    const S = await page.evaluate(() => ({
      sqlErrors: window.__spcheck?.sqlErrors || [],
      replyErrors: window.__spcheck?.replyErrors || [],
      sent: window.__spcheck?.sent || 0,
    }));
    r.statements = S.sent;
    r.sqlErrors = dedupeSql(S.sqlErrors, S.replyErrors);
  } catch (e) {
    r.notes.push(`could not read the SQL hook: ${oneLine(e.message || e)}`);
  }
  if (!crashed) {
    const h = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null).catch(() => null);
    if (h !== null) r.jsHeap = Math.max(r.jsHeap || 0, h);
  }
  if (mem) {
    mem.tick();
    r.memory = {
      ...(r.memory || {}), peakRssMB: MB(mem.S.peakRss), peakPssMB: MB(mem.S.peakPss), processes: mem.S.procs,
      jsHeapMB: r.jsHeap ? Math.round(r.jsHeap / 1048576) : null,
    };
  }
  await page.close().catch(() => {});
  r.seconds = (Date.now() - t0) / 1000;
  judge(r);
  return r;
}

// Wait until no database request is in flight and nothing was sent or received for 600 ms,
// then two animation frames (the rows are drawn from requestAnimationFrame).
async function waitIdle(page, maxMs = 30000) {
  const t0 = Date.now();
  while (Date.now() - t0 < maxMs) {
    const st = await page.evaluate(probe);
    if (st.pending === 0 && st.idleMs > 600) break;
    await sleep(100);
  }
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

function dedupeSql(errs, replies) {
  const m = new Map();
  for (const e of errs) {
    const sql = oneLine(e.sql);
    const key = `${sql}\u0000${e.error}`;
    if (!m.has(key)) m.set(key, { sql, error: e.error, count: 0, names: new Set() });
    m.get(key).count++;
  }
  for (const e of replies) {
    const sql = oneLine(e.sql || '');
    const key = `${sql}\u0000${e.error}`;
    if (m.has(key) && e.name) m.get(key).names.add(String(e.name));
  }
  return [...m.values()].map((x) => {
    const allow = ALLOW.find((a) => a.sql.test(x.sql) && a.error.test(x.error));
    return { sql: x.sql, error: x.error, count: x.count, query: [...x.names].join(', '), allowed: allow ? allow.why : null };
  });
}

const consoleAllowed = (c) => ALLOW_CONSOLE.some((a) => a.re.test(c));

function judge(r) {
  const reasons = [];
  if (!r.loaded) reasons.push(r.stalledAt ? (/^renderer crashed|^timeout/.test(r.stalledAt) ? r.stalledAt : `loading stalled at "${r.stalledAt}"`) : 'not loaded');
  const cons = r.consoleErrors.filter((c) => !consoleAllowed(c));
  if (r.pageErrors.length) reasons.push(`${r.pageErrors.length} page error(s)`);
  if (cons.length) reasons.push(`${cons.length} console error(s)`);
  const schema = r.sqlErrors.filter((e) => !e.allowed && SCHEMA_ERROR.test(e.error));
  if (schema.length) reasons.push(`${schema.length} statement(s) with no such table/column`);
  if (r.viewProblems.length) reasons.push(`${r.viewProblems.length} view(s) could not be opened`);
  r.pass = reasons.length === 0;
  r.reasons = reasons;
}

function printReport(r) {
  const out = [];
  const p = (s = '') => out.push(s);
  p(`=== ${r.name}  (${path.relative(process.cwd(), r.db) || r.db})`);
  p(`loaded: ${r.loaded ? 'yes' : 'no'}${r.loaded ? `  load: ${r.loadSeconds.toFixed(1)} s` : `  (${r.stalledAt || 'aborted'})`}  rows: ${r.rows}  SQL requests: ${r.statements ?? '?'}`);
  const cons = r.consoleErrors.filter((c) => !consoleAllowed(c));
  const consOk = r.consoleErrors.length - cons.length;
  if (r.facts) {
    const f = r.facts;
    p(`data: ${f.tables} tables; trace_range ${f.traceRange}; ` + (f.heapFiles || f.cpuNodes
      ? `${f.heapFiles} heap file(s), js_config ${f.jsConfig} row(s), ${f.cpuNodes} CPU profile node(s)`
      : `${f.processes} processes, ${f.threads} threads, ${f.slices} slices (+${f.asyncSlices} async, ${f.zeroSlices} zero-length, ${f.openSlices} never closed), ${f.counters} counter tracks; stat received print+tracing_mark_write+sched_switch = ${f.gate}`));
  }
  if (r.facts && r.facts.zeroAtStart) {
    p(`warning: ${r.facts.zeroAtStart} zero-length slice(s) at exactly trace_range.start_ts: the UI draws such a slice as a bar up to the right edge (FuncStruct.setFuncFrame: startTs+dur > startNS is false)`);
  }
  if (r.facts && /^[0-9.]+\.\.[0-9.]+ \(([0-9.e+]+) s\)$/.test(r.facts.traceRange || '') && Number(RegExp.$1) > 86400 * 30) {
    p(`warning: trace_range spans ${(Number(RegExp.$1) / 86400 / 365.25).toFixed(1)} years: the UI's time axis cannot draw that`);
  }
  p(`page errors: ${r.pageErrors.length + cons.length}${consOk ? ` (+${consOk} allow-listed console errors)` : ''}`);
  for (const e of dedupe(r.pageErrors)) p(`  pageerror: ${e}`);
  for (const e of dedupe(cons)) p(`  console.error: ${trunc(e, 300)}`);
  const bad = r.sqlErrors.filter((e) => !e.allowed);
  const ok = r.sqlErrors.filter((e) => e.allowed);
  p(`failing SQL: ${bad.length} (+${ok.length} allow-listed)`);
  for (const e of bad) p(`  [${e.error}]${e.count > 1 ? ` x${e.count}` : ''}${e.query ? ` (${e.query})` : ''}\n      ${trunc(e.sql, 400)}`);
  for (const e of ok) p(`  allowed [${e.error}]: ${trunc(e.sql, 120)}`);
  if (r.failedRequests.length) p(`failed requests: ${dedupe(r.failedRequests).join('; ')}`);
  p(`views: ${r.views.length ? r.views.map((v) => `${v} (${r.viewSeconds[v].toFixed(1)} s)`).join(', ') : '-'}`);
  if (r.memory) {
    p(`browser memory: peak ${r.memory.peakRssMB} MB RSS / ${r.memory.peakPssMB} MB PSS (all chromium processes, sampled every 0.5 s` +
      `${r.memory.loadedPssMB !== undefined ? `; ${r.memory.loadedPssMB} MB PSS when loaded` : ''}); page JS heap ${r.memory.jsHeapMB ?? '?'} MB`);
  }
  for (const v of r.viewProblems) p(`  view problem: ${v}`);
  for (const n of r.notes) p(`  note: ${n}`);
  p(`time: ${r.seconds.toFixed(1)} s in all; screenshots: ${r.screenshots.length} in ${r.screenshots.length ? path.dirname(r.screenshots[0]) : '-'}`);
  p(`${r.pass ? 'PASS' : 'FAIL'}${r.reasons.length ? ': ' + r.reasons.join('; ') : ''}`);
  console.log(out.join('\n') + '\n');
}

const dedupe = (a) => {
  const m = new Map();
  for (const x of a) m.set(x, (m.get(x) || 0) + 1);
  return [...m].map(([k, n]) => (n > 1 ? `${k} (x${n})` : k));
};
const trunc = (s, n) => (s.length > n ? s.slice(0, n) + '…' : s);

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  if (!fs.existsSync('/usr/bin/chromium')) {
    console.error('check.mjs: /usr/bin/chromium is missing: apt-get update && apt-get install -y chromium');
    process.exit(1);
  }
  const { chromium } = require('playwright-core');
  const server = await startServer({
    dist: opt.dist, dbs: opt.dbs, certDir: path.join(cache, 'cert'),
    append: { '/application/sql-wasm.js': WORKER_HOOK },
  });
  const results = [];
  for (let i = 0; i < opt.dbs.length; i++) {
    // A fresh browser profile per database: the UI keeps traces in Cache Storage and
    // IndexedDB, which must not carry over.
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'spcheck-profile-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      ignoreHTTPSErrors: true,
      viewport: { width: 1600, height: 1000 },
    });
    let r;
    const mem = memSampler();
    try {
      r = await checkOne(context, server, i, opt.dbs[i], opt, mem);
    } finally {
      mem?.stop();
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
    printReport(r);
    results.push(r);
  }
  await server.close();
  const failed = results.filter((r) => !r.pass);
  console.log(`summary: ${results.length - failed.length} PASS, ${failed.length} FAIL` +
    (failed.length ? ` (${failed.map((r) => r.name).join(', ')})` : ''));
  for (const r of results) {
    console.log(`  ${r.pass ? 'PASS' : 'FAIL'}  ${r.name.padEnd(28)} ${r.loaded ? `${r.loadSeconds.toFixed(1)} s` : 'not loaded'}` +
      `  errors ${r.pageErrors.length + r.consoleErrors.filter((c) => !consoleAllowed(c)).length}  bad SQL ${r.sqlErrors.filter((e) => !e.allowed).length}` +
      `  views ${r.views.length}  shots ${r.screenshots.length}${r.memory ? `  peak ${r.memory.peakPssMB} MB PSS` : ''}`);
  }
  if (opt.json) {
    fs.writeFileSync(opt.json, JSON.stringify(results, null, 2));
    console.log(`report: ${opt.json}`);
  }
  process.exit(failed.length ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
