// gen-timeline.js writes a large heap timeline (allocation tracking on, as the
// ArkTS plugin's TIMELINE mode records it) for benchmarks.
//
//   node --max-old-space-size=8192 testdata/bench/gen-timeline.js OUT.heaptimeline [N]
//
// N (default 13000) batches of objects are allocated from a few dozen distinct
// call stacks while tracking runs; the result has trace_function_infos, a deep
// trace_tree and samples. N=13000 gives about 100 MB.
'use strict';
const inspector = require('inspector');
const fs = require('fs');

const out = process.argv[2];
const n = Number(process.argv[3] || 13000);
if (!out) { console.error('usage: gen-timeline.js OUT [N]'); process.exit(2); }

const session = new inspector.Session();
session.connect();
const post = (m, p) => new Promise((res, rej) => session.post(m, p || {}, (e, r) => (e ? rej(e) : res(r))));

const keep = [];
// Distinct allocation sites: generated functions calling each other.
const sites = [];
for (let k = 0; k < 40; k++) {
  sites.push(new Function('keep', 'i', 'next', `
    const o = { site: ${k}, i, label: 'site${k}-' + (i % 1000), arr: [i, i + 1, i + 2] };
    keep.push(o);
    if (next && (i % 3 === 0)) next(keep, i + 1, null);
  `));
}
function allocate(i) { const a = sites[i % sites.length]; const b = sites[(i * 7) % sites.length]; for (let j = 0; j < 20; j++) a(keep, i * 20 + j, b); }

(async () => {
  const fd = fs.openSync(out, 'w');
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => fs.writeSync(fd, m.params.chunk));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true });
  for (let i = 0; i < n; i++) {
    allocate(i);
    if (i % 5000 === 0) await new Promise((r) => setTimeout(r, 55)); // let samples be taken
  }
  await post('HeapProfiler.stopTrackingHeapObjects', { reportProgress: false });
  fs.closeSync(fd);
  console.error(`wrote ${out}: ${(fs.statSync(out).size / 1e6).toFixed(0)} MB`);
})().catch((e) => { console.error(e); process.exit(1); });
