// views.mjs — the views check.mjs opens after a database has loaded, with real mouse clicks
// where the UI draws on a canvas. Each view's run(ctx) returns true when it opened the
// view, false when the database has nothing for it (then it adds a note saying why), and
// throws when the view should be there but could not be opened.
//
// Facts about SmartPerf-Host used here (from its source, smartperf_host/ide/src):
// - sp-application (shadow root) > #sp-system-trace (shadow root) > .rows-pane holds the
//   timeline rows, <trace-row> elements with properties rowType, rowId, rowParentId, name,
//   folder, expansion, dataListCache (the row's data, each item with a .frame {x,y,width,
//   height} in canvas pixels relative to the row, once drawn) and describeEl (the name
//   column on the left; a click on it toggles a folder). The canvas part of a row starts at
//   describeEl's right edge.
// - Row types: 'ark-ts' (folder "Ark Ts <pid>"), 'heap-snapshot' (one row "Heapsnapshot",
//   one block per js_heap_files snapshot), 'heap-timeline' ("Heaptimeline", the samples of
//   a timeline), 'js-cpu-profiler-cell' ("CpuProfiler", the flame chart), 'process' (folder per
//   process), 'thread' (thread state), 'func' (slices of a thread, rowId = tid, or one async
//   track), 'mem' (one counter track of process_measure_filter, rowId = its id). A process
//   row's children join the DOM only once it was expanded.
// - A click on a row's canvas selects what is under the mouse (mousemove first: the UI finds
//   the hovered item on mousemove); a drag over rows makes a range selection; hovering a
//   counter sample shows its value in SpSystemTrace.tipEL. Keyboard W/S zoom in/out around
//   the mouse, A/D pan (the longer a key is held, the faster); the visible range is
//   TraceRow's static `range` {startNS, endNS, totalNS}.
// - Link lines are SpSystemTrace.linkNodes, pairs of points with a `business`; HiTrace chain
//   lines have business 'distributed'.
// - Details open in .trace-sheet (shadow root) > lit-tabs#tabs > lit-tabpane#<id>; the tab
//   headers are .nav-item elements in lit-tabs' shadow root, hidden ones have data-hidden.
//   Snapshot click: #box-heap-summary (+ #box-heap-comparison with 2+ snapshots); range over
//   Heaptimeline: #box-heap-summary; CpuProfiler selection: #box-js-Profiler-statistics,
//   #box-js-Profiler-bottom-up, #box-js-Profiler-top-down; slice click: #current-selection
//   (tabpane-current-selection, details in lit-table#selectionTbl); range over counter rows:
//   #box-counters.
// - Tables are <lit-table>; their rendered rows are .tr elements in their shadow root.

// SPCHECK_CHAIN=<chainId> makes the flows view click that chain (if it has 2–5 thread slices).
const CHAIN = /^\d+$/.test(process.env.SPCHECK_CHAIN || '') ? process.env.SPCHECK_CHAIN : '';

// Read from the database by check.mjs (sql.js, in node) before the views run; each result
// is in ctx.state.facts[<key>] as an array of row objects ([] when the query fails).
export const FACT_QUERIES = {
  // Counter tracks the UI can show: process_measure_filter joined to process as the UI's
  // queryProcessMem does, with their sample counts.
  counterTracks: `SELECT f.id AS trackId, f.name, p.pid,
      (SELECT count(*) FROM process_measure m WHERE m.filter_id = f.id) AS samples,
      (SELECT count(DISTINCT value) FROM process_measure m WHERE m.filter_id = f.id) AS distinctValues
    FROM process_measure_filter f JOIN process p ON p.ipid = f.ipid`,
  // HiTrace-style chains in callstack (chainId/spanId/parentSpanId all set: the UI's
  // queryDistributedRelationData condition).
  flowCounts: `SELECT count(*) AS chains, sum(n BETWEEN 2 AND 5) AS drawable FROM (
      SELECT chainId, count(*) AS n FROM callstack
      WHERE chainId IS NOT NULL AND spanId IS NOT NULL AND parentSpanId IS NOT NULL GROUP BY chainId)`,
  // The chain the flows view clicks: 2–5 slices, all on threads (cookie NULL) of a known
  // process; preferring chains with a slice without args (the UI shows a chain only for
  // those), without branches (the UI follows one child per span), of 3 or more slices, whose
  // arg-less (else longest) slice is long compared with the chain's time span (so that the
  // whole chain fits on screen once that slice is wide enough to click).
  flowChain: `WITH m AS (
      SELECT c.id, c.ts - r.start_ts AS rel, c.dur, c.depth, c.argsetid, c.cookie,
        c.chainId, c.spanId, c.parentSpanId, t.tid, p.pid
      FROM callstack c, trace_range r
      LEFT JOIN thread t ON t.id = c.callid LEFT JOIN process p ON p.id = t.ipid
      WHERE c.chainId IS NOT NULL AND c.spanId IS NOT NULL AND c.parentSpanId IS NOT NULL),
    ch AS (
      SELECT chainId, count(*) AS n,
        sum(cookie IS NOT NULL OR tid IS NULL OR pid IS NULL OR dur IS NULL OR dur < 0) AS bad,
        count(DISTINCT nullif(parentSpanId, '')) = count(nullif(parentSpanId, '')) AS linear,
        max(rel + dur) - min(rel) AS span,
        max(CASE WHEN argsetid IS NULL THEN dur END) AS best, max(dur) AS longest
      FROM m GROUP BY chainId),
    pick AS (
      SELECT chainId FROM ch WHERE n BETWEEN 2 AND 5 AND bad = 0 AND longest > 0
      ORDER BY ${CHAIN ? `chainId = '${CHAIN}' DESC, ` : ''}best > 0 DESC, linear DESC, n >= 3 DESC,
        coalesce(best, longest) * 1.0 / max(span, 1) DESC, chainId LIMIT 1)
    SELECT m.* FROM m JOIN pick USING (chainId) ORDER BY rel, depth`,
};

// Installed into the page once after loading; everything else calls window.__sph.
function installHelpers() {
  const H = {
    sp() {
      return document.querySelector('sp-application').shadowRoot.querySelector('#sp-system-trace');
    },
    rows() {
      return [...this.sp().shadowRoot.querySelectorAll('trace-row')];
    },
    visible(row) {
      const b = row.getBoundingClientRect();
      return b.height > 0 && !row.hasAttribute('row-hidden') && getComputedStyle(row).display !== 'none';
    },
    info(row) {
      const b = row.getBoundingClientRect();
      const d = row.describeEl ? row.describeEl.getBoundingClientRect() : null;
      return {
        tag: row.dataset.spcheck || null,
        rowType: row.rowType,
        rowId: row.rowId,
        parentId: row.rowParentId,
        name: row.name,
        folder: !!row.folder,
        expansion: !!row.expansion,
        visible: this.visible(row),
        top: b.top,
        left: b.left,
        width: b.width,
        height: b.height,
        canvasLeft: d ? d.right : b.left + 248,
        data: (row.dataListCache || []).length,
        children: (row.childrenList || []).length,
      };
    },
    // Tag rows matching (rowType, name regexp source, parentId) so that later calls find them again.
    list(q) {
      const re = q.name ? new RegExp(q.name) : null;
      let n = Number(window.__sphTag || 0);
      const out = [];
      for (const r of this.rows()) {
        if (q.rowType && r.rowType !== q.rowType) continue;
        if (re && !re.test(r.name || '')) continue;
        if (q.parentId !== undefined && String(r.rowParentId) !== String(q.parentId)) continue;
        if (!r.dataset.spcheck) r.dataset.spcheck = String(++n);
        out.push(this.info(r));
      }
      window.__sphTag = n;
      return out;
    },
    byTag(tag) {
      return this.sp().shadowRoot.querySelector(`trace-row[data-spcheck="${tag}"]`);
    },
    reveal(tag) {
      const r = this.byTag(tag);
      r.scrollIntoView({ block: 'center' });
      return this.info(r);
    },
    // Items of a row with a drawn frame: {i, x, y, w, h} in page pixels (centre at x+w/2).
    items(tag, max = 2000) {
      const r = this.byTag(tag);
      const info = this.info(r);
      const out = [];
      const list = r.dataListCache || [];
      for (let i = 0; i < list.length && out.length < max; i++) {
        const f = list[i] && list[i].frame;
        if (!f || !(f.width > 0)) continue;
        out.push({
          i,
          x: info.canvasLeft + f.x,
          y: info.top + (f.y || 0),
          w: f.width,
          h: f.height || info.height,
          depth: list[i].depth,
          name: list[i].funName ?? list[i].name,
          id: list[i].id,
          dur: list[i].dur,
          startTs: list[i].startTs ?? list[i].startTime ?? list[i].startNS,
        });
      }
      return { row: info, items: out };
    },
    sheet() {
      const ts = this.sp().shadowRoot.querySelector('.trace-sheet');
      if (!ts || !ts.shadowRoot) return { mode: null, panes: [], active: null };
      const tabs = ts.shadowRoot.querySelector('#tabs');
      const panes = [...ts.shadowRoot.querySelectorAll('#tabs lit-tabpane')]
        .filter((p) => p.getAttribute('hidden') !== 'true' && p.style.display !== 'none').map((p) => p.id);
      const navs = tabs && tabs.shadowRoot
        ? [...tabs.shadowRoot.querySelectorAll('.nav-item')].filter((n) => !n.hasAttribute('data-hidden'))
          .map((n) => ({ key: n.getAttribute('data-key'), title: n.innerText.trim(), selected: n.hasAttribute('data-selected') }))
        : [];
      return { mode: ts.getAttribute('mode'), panes, navs };
    },
    pane(id) {
      const ts = this.sp().shadowRoot.querySelector('.trace-sheet');
      return ts.shadowRoot.querySelector(`#tabs lit-tabpane[id="${id}"]`);
    },
    // The lit-tables shown inside a tab pane: for each, its row count and first `max` rows
    // (the table's data source read through its columns' data-index, as the table shows them).
    tables(id, max = 16) {
      const pane = this.pane(id);
      if (!pane) return null;
      const out = {};
      const fmt = (v) => (v === undefined || v === null ? '' : typeof v === 'object' ? '' : String(v).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80));
      const walk = (root) => {
        for (const t of root.querySelectorAll('lit-table')) {
          if (t.offsetParent === null) continue;
          const cols = [...t.querySelectorAll('lit-table-column')].map((c) => c.getAttribute('data-index'));
          const ds = (t.recycleDataSource && t.recycleDataSource.length ? t.recycleDataSource : t.dataSource) || [];
          let first = ds.slice(0, max).map((row) => cols.map((c) => fmt(row[c])).join(' | '));
          let rows = ds.length;
          if (!rows && t.shadowRoot) {
            const trs = [...t.shadowRoot.querySelectorAll('.tr')].filter((tr) => tr.innerText.trim() !== '');
            rows = trs.length;
            first = trs.slice(0, max).map((tr) => tr.innerText.replace(/\s*\n\s*/g, ' | ').trim());
          }
          let nodes = 0;
          const count = (list, d) => {
            for (const x of list || []) {
              nodes++;
              if (d < 64 && Array.isArray(x.children)) count(x.children, d + 1);
            }
          };
          count(ds, 0);
          out[t.id || 'table'] = nodes > rows ? { rows, nodes, first } : { rows, first };
        }
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
      };
      walk(pane);
      return out;
    },
    // Centre of the "expand all" toggle in the header of the first shown tree table of a pane.
    expandAllCenter(id) {
      const pane = this.pane(id);
      let hit = null;
      const walk = (root) => {
        for (const t of root.querySelectorAll('lit-table')) {
          if (hit || t.offsetParent === null || !t.shadowRoot) continue;
          const e = t.shadowRoot.querySelector('.expand');
          if (e) {
            const b = e.getBoundingClientRect();
            if (b.width > 0) hit = { x: b.left + b.width / 2, y: b.top + b.height / 2 };
          }
        }
        for (const el of root.querySelectorAll('*')) if (!hit && el.shadowRoot) walk(el.shadowRoot);
      };
      if (pane) walk(pane);
      return hit;
    },
    tabCenter(title) {
      const ts = this.sp().shadowRoot.querySelector('.trace-sheet');
      const tabs = ts.shadowRoot.querySelector('#tabs');
      const n = [...tabs.shadowRoot.querySelectorAll('.nav-item')]
        .find((x) => !x.hasAttribute('data-hidden') && x.innerText.trim() === title);
      if (!n) return null;
      const b = n.getBoundingClientRect();
      return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    },
    rowsPaneBox() {
      const b = this.sp().shadowRoot.querySelector('.rows-pane').getBoundingClientRect();
      return { top: b.top, bottom: b.bottom, left: b.left, right: b.right };
    },
    // The visible time range (TraceRow's static range, ns relative to the trace start).
    range() {
      const r = this.rows()[0];
      const R = r && r.constructor.range;
      return R ? { startNS: R.startNS, endNS: R.endNS, totalNS: R.totalNS } : null;
    },
    // Where a time span [ns, ns+dur] is drawn in row `tag`: page x and width from the range
    // (the canvas spans from describeEl's right edge to the row's right edge), and the row
    // item with that id if the row has drawn it.
    spanBox(tag, id, ns, dur) {
      const row = this.byTag(tag);
      const info = this.info(row);
      const R = this.range();
      const width = row.getBoundingClientRect().right - info.canvasLeft;
      const k = width / Math.max(1, R.endNS - R.startNS);
      const item = id === null ? null : this.items(tag).items.find((x) => (row.dataListCache || [])[x.i]?.id === id) || null;
      return { x: info.canvasLeft + (ns - R.startNS) * k, w: dur * k, left: info.canvasLeft, right: info.canvasLeft + width,
        top: info.top, height: info.height, range: R, item };
    },
    // The folders a row sits in (parentRowEl chain), outermost first, tagged for list/byTag.
    ancestors(tag) {
      const out = [];
      let n = Number(window.__sphTag || 0);
      for (let p = this.byTag(tag).parentRowEl; p; p = p.parentRowEl) {
        if (!p.dataset.spcheck) p.dataset.spcheck = String(++n);
        out.unshift(this.info(p));
      }
      window.__sphTag = n;
      return out;
    },
    // The link lines SmartPerf-Host draws (SpSystemTrace.linkNodes: pairs of points).
    links() {
      return (this.sp().linkNodes || []).map(([a, b]) => ({
        business: a.business, hidden: !!(a.hidden || b.hidden), rangeTime: a.rangeTime || '',
        from: { x: Math.round(a.x), y: Math.round(a.y), row: a.rowEL && a.rowEL.name, ns: a.ns },
        to: { x: Math.round(b.x), y: Math.round(b.y), row: b.rowEL && b.rowEL.name, ns: b.ns },
      }));
    },
    // Scroll the table row of pane `id` whose text starts with `text` into view (the
    // details table scrolls inside the sheet); true if found.
    scrollToRow(id, text) {
      let hit = null;
      const walk = (root) => {
        for (const tr of root.querySelectorAll('.tr')) {
          if (!hit && tr.innerText.trim().startsWith(text)) hit = tr;
        }
        for (const el of root.querySelectorAll('*')) if (!hit && el.shadowRoot) walk(el.shadowRoot);
      };
      const pane = this.pane(id);
      if (pane) walk(pane);
      if (hit) hit.scrollIntoView({ block: 'center' });
      return !!hit;
    },
    // The hover tooltip (SpSystemTrace.tipEL) when shown.
    tip() {
      const t = this.sp().tipEL;
      return t && t.style.display !== 'none' ? t.innerText.replace(/\s+/g, ' ').trim() : null;
    },
    // Field `key` of every item of row `tag` (drawn or not).
    field(tag, key) {
      return (this.byTag(tag).dataListCache || []).map((x) => x && x[key]);
    },
    // The range selection (TraceRow.rangeSelectObject: ns from the trace start) or null.
    selection() {
      const r = this.rows()[0];
      const S = r && r.constructor.rangeSelectObject;
      return S ? { startNS: S.startNS, endNS: S.endNS } : null;
    },
    // The database requests sent after request number `from` (the page hook's log, which
    // keeps the last 2000 or more): [{n, name, sql}].
    requests(from = 0) {
      return (window.__spcheck?.log || []).filter((x) => x.n > from);
    },
    requestCount() {
      return window.__spcheck?.sent || 0;
    },
  };
  window.__sph = H;
  return true;
}

const ev = (page, fn, arg) => page.evaluate(fn, arg);
const sph = (page, method, ...args) =>
  page.evaluate(([m, a]) => window.__sph[m](...a), [method, args]);

async function expand(ctx, row) {
  const { page } = ctx;
  if (!row.folder || row.expansion) return row;
  const r = await sph(page, 'reveal', row.tag);
  await page.mouse.click(r.left + 60, r.top + Math.min(r.height, 40) / 2);
  await ctx.waitIdle();
  const after = (await sph(page, 'list', { rowType: row.rowType })).find((x) => x.tag === row.tag);
  if (!after || !after.expansion) throw new Error(`clicking "${row.name}" did not expand it`);
  return after;
}

// Move to and click the centre of item `it` (page pixels), clamped to the visible canvas.
async function clickItem(ctx, it) {
  const { page } = ctx;
  const pane = await sph(page, 'rowsPaneBox');
  const x = Math.min(Math.max(it.x + Math.min(it.w / 2, 40), it.x + 1), pane.right - 2);
  const y = it.y + Math.min(it.h, 20) / 2;
  await page.mouse.move(x - 3, y);
  await page.mouse.move(x, y, { steps: 3 });
  await ctx.sleep(150);
  await page.mouse.click(x, y);
  await ctx.waitIdle();
}

// Drag across the whole canvas part of a row: a range selection.
// With fromEnd, from the right end leftwards past the left edge (the UI clamps the range
// to the start: a selection from exactly 0, which a drag starting inside cannot make).
async function dragRow(ctx, row, fromEnd = false) {
  const { page } = ctx;
  const r = await sph(page, 'reveal', row.tag);
  const pane = await sph(page, 'rowsPaneBox');
  const y = r.top + Math.min(r.height, 30) / 2;
  const [a, b] = fromEnd ? [pane.right - 3, r.canvasLeft - 40] : [r.canvasLeft + 2, pane.right - 3];
  await page.mouse.move(a, y);
  await page.mouse.down();
  await page.mouse.move((a + b) / 2, y, { steps: 8 });
  await page.mouse.move(b, y, { steps: 8 });
  await page.mouse.up();
  await ctx.waitIdle();
}

// Zoom (keyboard W, with the mouse over the span: the UI zooms around the mouse; first
// zoomOutTo when the span is off screen) until the span {rel: ns from the trace start, dur} is drawn
// at least minPx wide in row `row` (and, with span.id, the row draws the item with that id);
// returns spanBox's answer (.item: the drawn item). A press zooms more the longer it lasts,
// so presses are shorter when little zoom is left.
async function zoomTo(ctx, row, span, minPx) {
  const { page } = ctx;
  let still = 0;
  let lastWidth = null;
  const trail = [];
  for (let i = 0; i < 60; i++) {
    const b = await sph(page, 'spanBox', row.tag, span.id ?? null, span.rel, span.dur);
    const width = b.range.endNS - b.range.startNS;
    trail.push(Math.round(width));
    const overlaps = b.x < b.right - 1 && b.x + Math.max(b.w, 1) > b.left + 1;
    if (overlaps && b.w >= minPx && (span.id === undefined || b.item)) {
      if (process.env.SPCHECK_DEBUG) console.error(`zoomTo: ranges ${trail.join(' > ')} ns`);
      return b;
    }
    if (lastWidth !== null && Math.abs(width - lastWidth) < 1e-6 * lastWidth && overlaps) {
      if (++still >= 3) throw new Error(`zooming stopped at a range of ${width} ns with the span ${Math.round(b.w)} px wide`);
    } else {
      still = 0;
    }
    lastWidth = width;
    const y = b.top + Math.min(b.height, 20) / 2;
    const key = 'w';
    const x = Math.min(Math.max(b.x + Math.max(b.w, 0) / 2, b.left + 2), b.right - 2);
    const need = minPx / Math.max(b.w, 1e-3);
    const ms = need > 30 ? 700 : need > 4 ? 450 : need > 1.5 ? 250 : 100;
    if (!overlaps) {
      // Off screen: zoom out until it shows (faster than panning with A/D, whose step
      // does not grow with the distance).
      if (!(await zoomOutTo(ctx, row, span, b.right - b.left))) throw new Error(`could not bring the span at ${span.rel} ns on screen`);
      continue;
    }
    await page.mouse.move(x - 2, y);
    await page.mouse.move(x, y);
    await page.keyboard.down(key);
    await ctx.sleep(ms);
    await page.keyboard.up(key);
    // The UI slows down over a few frames after the key is released: wait until the range
    // stays the same, then for the rows' data.
    let prev = '';
    for (let k = 0; k < 40; k++) {
      await ctx.sleep(100);
      const r = await sph(page, 'range');
      const now = `${r.startNS}|${r.endNS}`;
      if (now === prev) break;
      prev = now;
    }
    await ctx.waitIdle();
  }
  throw new Error(`could not zoom to the span at ${span.rel} ns (${trail.join(' > ')} ns)`);
}

// The row's drawn items, waiting up to ms for the first ones: a row revealed by scrolling
// asks for its data and draws it a few frames later (later still on a busy machine).
async function drawnItems(ctx, tag, ms = 5000) {
  const t0 = Date.now();
  for (;;) {
    const r = await sph(ctx.page, 'items', tag);
    if (r.items.length || Date.now() - t0 > ms) return r;
    await ctx.sleep(200);
  }
}

// An item of row `row` at least minPx wide to click: the widest drawn one, or else the
// longest (a dense row draws slices narrower than a pixel) after zooming in on it.
async function wideItem(ctx, row, minPx) {
  const { items } = await drawnItems(ctx, row.tag);
  if (!items.length) return null;
  const widest = items.slice().sort((a, b) => b.w - a.w)[0];
  if (widest.w >= minPx) return widest;
  const longest = items.filter((it) => it.id !== undefined && it.dur > 0 && typeof it.startTs === 'number')
    .sort((a, b) => b.dur - a.dur)[0];
  if (!longest) return widest;
  const b = await zoomTo(ctx, row, { id: longest.id, rel: longest.startTs, dur: longest.dur }, minPx);
  record(ctx, 'zoom', `zoomed to ${Math.round(b.range.endNS - b.range.startNS)} ns for "${row.name}" (slices narrower than ${minPx} px)`);
  return b.item;
}

// Zoom out (keyboard S, the mouse over the span's centre) until the span {rel, dur} fits in
// maxPx of row `row` (or the whole trace is shown).
async function zoomOutTo(ctx, row, span, maxPx) {
  const { page } = ctx;
  for (let i = 0; i < 30; i++) {
    const b = await sph(page, 'spanBox', row.tag, null, span.rel, span.dur);
    if ((b.w <= maxPx && b.x >= b.left && b.x + b.w <= b.right) || (b.range.startNS <= 0 && b.range.endNS >= b.range.totalNS)) return b;
    // The time under the mouse stays put: keep the side of the span that is on screen.
    const overLeft = b.x < b.left;
    const overRight = b.x + b.w > b.right;
    let x = Math.min(Math.max(b.x + b.w / 2, b.left + 2), b.right - 2);
    if (overRight && !overLeft) x = Math.max(b.x, b.left + 2);
    if (overLeft && !overRight) x = Math.min(b.x + b.w, b.right - 2);
    const y = b.top + Math.min(b.height, 20) / 2;
    await page.mouse.move(x - 2, y);
    await page.mouse.move(x, y);
    await page.keyboard.down('s');
    await ctx.sleep(b.w > maxPx * 4 ? 450 : 200);
    await page.keyboard.up('s');
    let prev = '';
    for (let k = 0; k < 40; k++) {
      await ctx.sleep(100);
      const r = await sph(page, 'range');
      const now = `${r.startNS}|${r.endNS}`;
      if (now === prev) break;
      prev = now;
    }
    await ctx.waitIdle();
  }
  return null;
}

async function clickTab(ctx, title) {
  const c = await sph(ctx.page, 'tabCenter', title);
  if (!c) throw new Error(`no tab "${title}" (tabs: ${(await sph(ctx.page, 'sheet')).navs.map((n) => n.title).join(', ')})`);
  await ctx.page.mouse.click(c.x, c.y);
  await ctx.waitIdle();
}

// Wait until pane `id` is shown and one of its tables has rendered rows (or timeout).
async function paneRows(ctx, id, ms = ctx.viewTimeoutMs || 15000) {
  const t0 = Date.now();
  let t = null;
  while (Date.now() - t0 < ms) {
    const s = await sph(ctx.page, 'sheet');
    if (s.panes.includes(id)) {
      t = await sph(ctx.page, 'tables', id);
      if (t && Object.values(t).some((x) => x.rows > 0)) return t;
    }
    await ctx.sleep(200);
  }
  return t;
}

const describeTables = (t) =>
  t ? Object.entries(t).map(([k, v]) => `${k}: ${v.rows} rows${v.nodes ? ` (${v.nodes} tree nodes)` : ''}${v.first.length ? ` [${v.first.slice(0, 3).join(' ; ')}]` : ''}`).join('; ') : 'no tables';

function record(ctx, view, text) {
  ctx.r.notes.push(`${view}: ${text}`);
}

// ---- ArkTS ---------------------------------------------------------------------------
const arkts = [
  {
    name: 'arkts-folder',
    async run(ctx) {
      const [f] = await sph(ctx.page, 'list', { rowType: 'ark-ts' });
      if (!f) return false;
      ctx.state.arkFolder = await expand(ctx, f);
      const kids = (await sph(ctx.page, 'list', { parentId: f.rowId })).filter((k) => k.tag !== f.tag);
      ctx.state.arkKids = kids;
      const snap = kids.find((k) => k.rowType === 'heap-snapshot');
      record(ctx, 'arkts-folder', `"${f.name}" expanded: ${kids.map((k) => `${k.name} (${k.rowType}, ${k.data} items)`).join(', ') || 'no child rows'}` +
        (snap ? `; ${snap.data} snapshot block(s) in Heapsnapshot` : ''));
      await ctx.shot('arkts-folder');
      return true;
    },
  },
  {
    name: 'snapshot-summary',
    async run(ctx) {
      const snap = (ctx.state.arkKids || []).find((k) => k.rowType === 'heap-snapshot');
      if (!snap) return false;
      await sph(ctx.page, 'reveal', snap.tag);
      await ctx.waitIdle();
      const { items } = await drawnItems(ctx, snap.tag);
      if (!items.length) throw new Error('Heapsnapshot row has no drawn snapshot block');
      ctx.state.snapItems = items;
      // The last snapshot: with 2+ snapshots its Comparison tab has an earlier base.
      await clickItem(ctx, items[items.length - 1]);
      const t = await paneRows(ctx, 'box-heap-summary');
      if (!t || !Object.values(t).some((x) => x.rows > 0)) throw new Error('clicking a snapshot showed no Summary rows');
      record(ctx, 'snapshot-summary', `snapshot ${items.length}/${items.length} — ${describeTables(t)}`);
      await ctx.shot('snapshot-summary');
      return true;
    },
  },
  {
    name: 'snapshot-comparison',
    async run(ctx) {
      const items = ctx.state.snapItems || [];
      if (items.length < 2) {
        if (items.length) record(ctx, 'snapshot-comparison', 'one snapshot only: no Comparison tab');
        return false;
      }
      await clickTab(ctx, 'Comparison');
      const t = await paneRows(ctx, 'box-heap-comparison');
      if (!t || !Object.values(t).some((x) => x.rows > 0)) throw new Error('Comparison tab shows no rows');
      record(ctx, 'snapshot-comparison', describeTables(t));
      await ctx.shot('snapshot-comparison');
      return true;
    },
  },
  {
    name: 'timeline-samples',
    async run(ctx) {
      const tl = (ctx.state.arkKids || []).find((k) => k.rowType === 'heap-timeline');
      if (!tl) return false;
      // Sample times (HeapTimelineStruct.timestamp, µs from the trace start) and how many
      // are drawn (the UI draws none at exactly the range start: timestamp*1000 > startNS).
      const ts = (await sph(ctx.page, 'field', tl.tag, 'timestamp')).map((x) => (typeof x === 'number' ? (x / 1000).toFixed(1) : '?'));
      const drawn = (await drawnItems(ctx, tl.tag)).items.length;
      const R = await sph(ctx.page, 'range');
      await dragRow(ctx, tl, true);
      const sel = await sph(ctx.page, 'selection');
      const t = await paneRows(ctx, 'box-heap-summary');
      if (!t || !Object.values(t).some((x) => x.rows > 0)) throw new Error('range over Heaptimeline showed no Summary rows');
      record(ctx, 'timeline-samples', `${tl.data} samples in the row at ${ts.join(', ')} ms (${drawn} drawn) over a ` +
        `${(R.totalNS / 1e6).toFixed(1)} ms trace; range ${sel ? `${(sel.startNS / 1e6).toFixed(1)}..${(sel.endNS / 1e6).toFixed(1)} ms` : '?'} Summary — ${describeTables(t)}`);
      await ctx.shot('timeline-samples');
      return true;
    },
  },
  {
    name: 'cpu-flame',
    async run(ctx) {
      const cpu = (ctx.state.arkKids || []).find((k) => /^js-cpu-profiler/.test(k.rowType));
      if (!cpu) return false;
      const r = await sph(ctx.page, 'reveal', cpu.tag);
      await ctx.waitIdle();
      const { items } = await drawnItems(ctx, cpu.tag);
      ctx.state.cpu = { row: { ...cpu, ...r }, items };
      const depth = items.reduce((m, it) => Math.max(m, it.depth ?? 0), 0);
      record(ctx, 'cpu-flame', `CpuProfiler row ${Math.round(r.height)} px high, ${r.data} frames, ${items.length} drawn, max depth ${depth}`);
      if (!items.length) throw new Error('CpuProfiler row draws no frame');
      await ctx.shot('cpu-flame');
      return true;
    },
  },
  {
    name: 'cpu-statistics',
    async run(ctx) {
      const c = ctx.state.cpu;
      if (!c) return false;
      await dragRow(ctx, c.row);
      const t = await paneRows(ctx, 'box-js-Profiler-statistics');
      if (!t) throw new Error('range over CpuProfiler opened no Js Profiler Statistics');
      record(ctx, 'cpu-statistics', describeTables(t));
      await ctx.shot('cpu-statistics');
      return true;
    },
  },
  {
    name: 'cpu-bottom-up',
    async run(ctx) {
      if (!ctx.state.cpu) return false;
      await clickTab(ctx, 'Js Profiler BottomUp');
      const t = await paneRows(ctx, 'box-js-Profiler-bottom-up');
      if (!t || !Object.values(t).some((x) => x.rows > 0)) throw new Error('Bottom-Up table is empty');
      record(ctx, 'cpu-bottom-up', describeTables(t));
      await ctx.shot('cpu-bottom-up');
      return true;
    },
  },
  {
    name: 'cpu-call-tree',
    async run(ctx) {
      if (!ctx.state.cpu) return false;
      await clickTab(ctx, 'Js Profiler CallTree');
      let t = await paneRows(ctx, 'box-js-Profiler-top-down');
      if (!t || !Object.values(t).some((x) => x.rows > 0)) throw new Error('Call Tree table is empty');
      const c = await sph(ctx.page, 'expandAllCenter', 'box-js-Profiler-top-down');
      if (c) {
        await ctx.page.mouse.click(c.x, c.y);
        await ctx.waitIdle();
        t = await sph(ctx.page, 'tables', 'box-js-Profiler-top-down');
      }
      record(ctx, 'cpu-call-tree', describeTables(t));
      await ctx.shot('cpu-call-tree');
      return true;
    },
  },
  {
    name: 'cpu-frame-click',
    async run(ctx) {
      const c = ctx.state.cpu;
      if (!c || !c.items.length) return false;
      // Click the widest top-level frame: the UI selects its subtree.
      const top = c.items.filter((it) => (it.depth ?? 0) === 0).sort((a, b) => b.w - a.w)[0] || c.items[0];
      await sph(ctx.page, 'reveal', c.row.tag);
      const { items } = await sph(ctx.page, 'items', c.row.tag);
      const it = items.find((x) => x.i === top.i) || top;
      await clickItem(ctx, it);
      const t = await paneRows(ctx, 'box-js-Profiler-statistics');
      if (!t) throw new Error('clicking a CpuProfiler frame opened no Js Profiler tabs');
      record(ctx, 'cpu-frame-click', `frame "${it.name ?? '?'}" — ${describeTables(t)}`);
      await ctx.shot('cpu-frame-click');
      return true;
    },
  },
];

// ---- Trace Event ---------------------------------------------------------------------
const traceEvent = [
  {
    name: 'processes',
    async run(ctx) {
      const procs = await sph(ctx.page, 'list', { rowType: 'process' });
      if (!procs.length) {
        const funcs = await sph(ctx.page, 'list', { rowType: 'func' });
        if (ctx.state.hasSlices || funcs.length) throw new Error('the database has slices but the UI shows no process row');
        return false;
      }
      ctx.state.procs = procs;
      // Expand (real clicks) the first two processes.
      for (const p of procs.slice(0, 2)) await expand(ctx, p);
      const all = await sph(ctx.page, 'list', {});
      const kids = all.filter((x) => procs.some((p) => String(p.rowId) === String(x.parentId)));
      const threads = kids.filter((x) => x.rowType === 'thread');
      const funcs = kids.filter((x) => x.rowType === 'func');
      const counters = kids.filter((x) => !['thread', 'func'].includes(x.rowType));
      ctx.state.kids = kids;
      record(ctx, 'processes', `${procs.length} process rows (${procs.slice(0, 4).map((p) => p.name).join(', ')}${procs.length > 4 ? ', …' : ''}); ` +
        `under them ${threads.length} thread rows, ${funcs.length} slice rows (${funcs.filter((f) => f.data > 0).length} with data loaded), ${counters.length} other rows`);
      await sph(ctx.page, 'reveal', procs[0].tag);
      await ctx.page.evaluate(() => { const p = window.__sph.sp().shadowRoot.querySelector('.rows-pane'); p.scrollTop = 0; });
      await ctx.waitIdle();
      await ctx.shot('processes');
      return true;
    },
  },
  {
    name: 'async-slices',
    async run(ctx) {
      const kids = ctx.state.kids || [];
      // Async tracks are 'func' rows whose rowId is not a thread id (the UI names them by
      // the slice name, e.g. "<name>-<pid>").
      const asyncRows = (await sph(ctx.page, 'list', { rowType: 'func' })).filter((f) => !/^\d+$/.test(String(f.rowId)));
      if (!asyncRows.length) {
        if (ctx.state.procs) record(ctx, 'async-slices', 'no async track row in the expanded processes');
        return false;
      }
      const a = asyncRows[0];
      await sph(ctx.page, 'reveal', a.tag);
      await ctx.waitIdle();
      const { items } = await drawnItems(ctx, a.tag);
      record(ctx, 'async-slices', `${asyncRows.length} async track row(s), e.g. "${a.name}" with ${items.length} drawn slice(s)` +
        (items[0] ? ` (first: "${items[0].name ?? ''}" dur ${items[0].dur})` : ''));
      await ctx.shot('async-slices');
      if (items.length) {
        const it = await wideItem(ctx, a, 4);
        await clickItem(ctx, it);
        const t = await paneRows(ctx, 'current-selection');
        record(ctx, 'async-slices', `details of the async slice "${it.name ?? '?'}" — ${describeTables(t)}`);
        await ctx.shot('async-slice-details');
        if (!t || !Object.values(t).some((x) => x.rows > 0)) throw new Error('clicking an async slice showed no details');
      }
      return kids.length >= 0;
    },
  },
  {
    name: 'counters',
    async run(ctx) {
      // process_measure_filter rows of a known process: the UI makes one 'mem' row each
      // (SpProcessChart.addProcessMemInfo, from queryProcessMem), a child of the process row.
      const tracks = ctx.state.facts.counterTracks || [];
      let rows = await sph(ctx.page, 'list', { rowType: 'mem' });
      if (!rows.length && tracks.length) {
        // Expand the process of the busiest track: its rows join the DOM only then.
        const t = [...tracks].sort((a, b) => b.samples - a.samples)[0];
        const pr = (await sph(ctx.page, 'list', { rowType: 'process' })).find((r) => String(r.rowId) === String(t.pid));
        if (pr) await expand(ctx, pr);
        rows = await sph(ctx.page, 'list', { rowType: 'mem' });
      }
      if (!rows.length) {
        if (tracks.length) throw new Error(`the database has ${tracks.length} counter track(s) (process_measure_filter joined to process) but the UI shows no counter row`);
        if (ctx.state.procs) record(ctx, 'counters', 'no counter track in the database (process_measure_filter)');
        return false;
      }
      // The counter with the most distinct values (then samples); its process row expanded
      // with a real click. Rows of processes never expanded are not in the DOM yet.
      const bySamples = new Map(tracks.map((t) => [String(t.trackId), t]));
      const score = (r) => {
        const t = bySamples.get(String(r.rowId));
        return t ? t.distinctValues * 1e9 + t.samples : 0;
      };
      const pick = [...rows].sort((a, b) => score(b) - score(a))[0];
      for (const a of await sph(ctx.page, 'ancestors', pick.tag)) await expand(ctx, a);
      await sph(ctx.page, 'reveal', pick.tag);
      await ctx.waitIdle();
      const { row, items } = await drawnItems(ctx, pick.tag);
      const t = bySamples.get(String(pick.rowId));
      record(ctx, 'counters', `${rows.length} counter row(s) (${[...new Set(rows.map((x) => x.name))].slice(0, 5).join(', ')}); ` +
        `"${row.name}" of process ${row.parentId}: ${items.length} drawn sample(s)${t ? ` of ${t.samples} in the database` : ''}`);
      if (!items.length) throw new Error(`counter row "${row.name}" draws no sample`);
      // Hover the widest sample of the middle of the row: the UI shows its value in a tooltip.
      const pane = await sph(ctx.page, 'rowsPaneBox');
      const lo = row.canvasLeft + (pane.right - row.canvasLeft) * 0.3;
      const hi = row.canvasLeft + (pane.right - row.canvasLeft) * 0.7;
      const mid = items.filter((it) => it.x >= lo && it.x + it.w <= hi);
      const it = (mid.length ? mid : items).slice().sort((a, b) => b.w - a.w)[0];
      const y = row.top + row.height / 2;
      await ctx.page.mouse.move(it.x + it.w / 2 - 3, y);
      await ctx.page.mouse.move(it.x + it.w / 2, y, { steps: 3 });
      await ctx.sleep(300);
      const tip = await sph(ctx.page, 'tip');
      record(ctx, 'counters', `hover at sample ${it.i}: tooltip ${tip === null ? 'not shown' : `"${tip}"`}`);
      await ctx.shot('counter-hover');
      if (tip === null) throw new Error(`hovering a sample of "${row.name}" showed no value`);
      // A range over the counter row: the Counters tab (first/last value, delta, rate, …).
      await dragRow(ctx, pick);
      const tab = await paneRows(ctx, 'box-counters');
      if (!tab || !Object.values(tab).some((x) => x.rows > 0)) throw new Error('range over a counter row showed no Counters rows');
      record(ctx, 'counters', `range Counters tab — ${describeTables(tab)}`);
      await ctx.shot('counter-range');
      return true;
    },
  },
  {
    name: 'slice-details',
    async run(ctx) {
      const kids = (ctx.state.kids || []).filter((x) => x.rowType === 'func' && /^\d+$/.test(String(x.rowId)));
      let best = null;
      for (const f of kids) {
        await sph(ctx.page, 'reveal', f.tag);
        await ctx.waitIdle();
        const { items } = await drawnItems(ctx, f.tag, f.data ? 5000 : 1000);
        if (items.length) {
          best = { f, it: await wideItem(ctx, f, 4) };
          break;
        }
      }
      if (!best) {
        if (ctx.state.procs) throw new Error('no thread slice row with a drawn slice');
        return false;
      }
      const { items } = await sph(ctx.page, 'items', best.f.tag);
      const it = items.find((x) => x.i === best.it.i) || best.it;
      await clickItem(ctx, it);
      const t = await paneRows(ctx, 'current-selection');
      if (!t || !Object.values(t).some((x) => x.rows > 0)) throw new Error('clicking a slice showed no details');
      ctx.state.sliceDetails = t;
      const rowsText = Object.values(t).flatMap((x) => x.first).join(' ; ');
      record(ctx, 'slice-details', `slice "${it.name ?? '?'}" on "${best.f.name}" — ${rowsText}`);
      await ctx.shot('slice-details');
      return true;
    },
  },
  {
    name: 'flows',
    async run(ctx) {
      // Flow arrows reach SmartPerf-Host as HiTrace chains: callstack.chainId/spanId/
      // parentSpanId (tracestreamer fills them from the flow table). On a click on a slice
      // that has them, the details list ChainId/SpanId/ParentSpanId/ChainFlag, the UI reads
      // the chain (queryDistributedRelationAllData) and draws red broken lines between its
      // slices in time order when it has at most 5. Two conditions of the UI: the slice must
      // have no args (argsetid NULL; with args the details show the args instead and no
      // chain), and the lines join thread slice rows (row-type 'func', row-id = tid).
      const f = ctx.state.facts;
      const chain = f.flowChain || [];
      const counts = (f.flowCounts || [])[0] || {};
      if (!chain.length) {
        if (counts.chains) record(ctx, 'flows', `${counts.chains} chain(s) in callstack, none of 2–5 thread slices`);
        else if (ctx.state.procs) record(ctx, 'flows', 'no callstack row with chainId/spanId/parentSpanId');
        return false;
      }
      const argless = chain.filter((x) => x.argsetid === null && x.dur > 0);
      const target = (argless.length ? argless : chain.filter((x) => x.dur > 0)).sort((a, b) => b.dur - a.dur)[0];
      const desc = `chain ${target.chainId}: ${chain.map((x) => `${x.id}${x.parentSpanId ? `<-${x.parentSpanId}` : ''} (tid ${x.tid}, depth ${x.depth}, ${x.dur} ns${x.argsetid === null ? '' : ', args'})`).join(', ')}`;
      record(ctx, 'flows', `${counts.chains} chain(s), ${counts.drawable} of 2–5 slices; clicking slice ${target.id} of ${desc}`);
      // The processes of the chain expanded (real clicks; their child rows join the DOM
      // only then), then the thread slice rows of the chain, in their folders.
      const procs = await sph(ctx.page, 'list', { rowType: 'process' });
      for (const pid of new Set(chain.map((x) => String(x.pid)))) {
        const pr = procs.find((r) => String(r.rowId) === pid);
        if (!pr) throw new Error(`no process row for process ${pid} of chain ${target.chainId}`);
        await expand(ctx, pr);
      }
      const funcs = await sph(ctx.page, 'list', { rowType: 'func' });
      const rowOf = (x) => funcs.find((r) => String(r.rowId) === String(x.tid) && String(r.parentId) === String(x.pid))
        || funcs.find((r) => String(r.rowId) === String(x.tid));
      const row = rowOf(target);
      if (!row) throw new Error(`no slice row for thread ${target.tid} of process ${target.pid}`);
      for (const x of chain) {
        const r = rowOf(x);
        if (r) for (const a of await sph(ctx.page, 'ancestors', r.tag)) await expand(ctx, a);
      }
      await sph(ctx.page, 'reveal', row.tag);
      await ctx.waitIdle();
      // Zoom until the chain spans a third of the screen, then until the slice to click is
      // at least 12 px wide.
      const t0 = Math.min(...chain.map((x) => x.rel));
      const t1 = Math.max(...chain.map((x) => x.rel + x.dur));
      const pane = await sph(ctx.page, 'rowsPaneBox');
      await zoomTo(ctx, row, { rel: t0, dur: t1 - t0 }, (pane.right - pane.left - 250) / 3);
      const it = (await zoomTo(ctx, row, { id: target.id, rel: target.rel, dur: target.dur }, 12)).item;
      const before = await sph(ctx.page, 'requestCount');
      await clickItem(ctx, it);
      const t = await paneRows(ctx, 'current-selection');
      // The lines are added after the chain query returns: wait for them a little.
      let links = [];
      for (let i = 0; i < 20; i++) {
        links = (await sph(ctx.page, 'links')).filter((l) => l.business === 'distributed');
        if (links.length) break;
        await ctx.sleep(150);
      }
      await ctx.waitIdle();
      const reqs = (await sph(ctx.page, 'requests', before)).filter((x) => /Distributed/i.test(x.name || ''));
      const rowsText = t ? Object.values(t).flatMap((x) => x.first) : [];
      const pick = (k) => (rowsText.find((x) => x.startsWith(`${k} |`)) || '').replace(/^[^|]*\|\s*/, '');
      const shown = { ChainId: pick('ChainId'), SpanId: pick('SpanId'), ParentSpanId: pick('ParentSpanId') };
      record(ctx, 'flows', `details: ChainId "${shown.ChainId}", SpanId "${shown.SpanId}", ParentSpanId "${shown.ParentSpanId}"; ` +
        `${links.length} line(s): ${links.map((l) => `${l.from.row}@${l.from.ns}->${l.to.row}@${l.to.ns} (${l.rangeTime.trim()})`).join(', ') || '-'}; ` +
        `chain SQL: ${reqs.map((x) => `${x.name}: ${x.sql.replace(/\s+/g, ' ').trim()}`).join(' || ') || 'none sent'}`);
      await ctx.shot('flow-chain');
      if (shown.ChainId && await sph(ctx.page, 'scrollToRow', 'current-selection', 'ChainId')) {
        await ctx.sleep(200);
        await ctx.shot('flow-details');
      }
      // A chain longer than the screen at this zoom: zoom out until all of it shows.
      const all = await sph(ctx.page, 'spanBox', row.tag, null, t0, t1 - t0);
      if (links.length && (all.x < all.left || all.x + all.w > all.right)) {
        await zoomOutTo(ctx, row, { rel: t0, dur: t1 - t0 }, (all.right - all.left) * 0.8);
        const after = (await sph(ctx.page, 'links')).filter((l) => l.business === 'distributed');
        record(ctx, 'flows', `zoomed out to the whole chain: ${after.length} line(s)`);
        await ctx.shot('flow-chain-all');
      }
      if (target.argsetid !== null) {
        // Expected: the UI lists a slice's args instead of its chain (setFunctionData takes
        // the args branch for argsetid >= 0 and never reads chainId there).
        record(ctx, 'flows', `every slice of the 2–5-slice chains has args: SmartPerf-Host shows no chain for those (details ${shown.ChainId ? 'do' : 'do not'} list ChainId, ${links.length} line(s))`);
        return true;
      }
      if (!shown.ChainId) throw new Error(`slice ${target.id} of chain ${target.chainId} shows no ChainId in its details`);
      const members = new Set(chain.map((x) => x.id));
      if (members.size > 1 && !links.length) throw new Error(`chain ${target.chainId} (${members.size} slices) drew no line`);
      return true;
    },
  },
];

export function viewsFor() {
  return [
    {
      name: 'setup',
      async run(ctx) {
        await ev(ctx.page, installHelpers);
        ctx.state = ctx.state || {};
        const all = await sph(ctx.page, 'list', {});
        const types = {};
        for (const x of all) types[x.rowType] = (types[x.rowType] || 0) + 1;
        ctx.r.notes.push(`rows after loading: ${Object.entries(types).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
        return false;
      },
    },
    ...arkts,
    ...traceEvent,
  ];
}
