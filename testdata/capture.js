// capture.js records real V8 data with node's inspector for tracestreamer's tests.
//
//   node testdata/capture.js [outdir]   (default: testdata/node)
//
// It writes, each gzip-compressed where large:
//   snapshot.heapsnapshot.gz   HeapProfiler.takeHeapSnapshot of a small program
//   timeline.heaptimeline.gz   startTrackingHeapObjects({trackAllocations:true}) .. stop:
//                              a snapshot with trace_function_infos, trace_tree and samples
//   profile.cpuprofile         Profiler.start .. Profiler.stop around some busy functions
//   events.json                the non-chunk inspector events seen during the timeline
//                              (heapStatsUpdate, lastSeenObjectId, progress), verbatim,
//                              so fixture htrace files carry the same message shapes
// The files are the inputs that tests wrap into .htrace files with parser/htrace/htracetest.
'use strict';
const inspector = require('inspector');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const outdir = process.argv[2] || path.join(__dirname, 'node');
fs.mkdirSync(outdir, { recursive: true });

const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) =>
  session.post(method, params || {}, (err, res) => (err ? reject(err) : resolve(res))));

let chunks = [];
const events = [];
session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
for (const ev of ['HeapProfiler.heapStatsUpdate', 'HeapProfiler.lastSeenObjectId',
  'HeapProfiler.reportHeapSnapshotProgress']) {
  session.on(ev, (m) => { if (events.length < 40) events.push(m); });
}

// Some recognisable objects: a class with a quote and a backslash in a property name,
// non-ASCII strings (BMP and astral), numbers and arrays.
class Widget {
  constructor(i) {
    this.id = i;
    this['we"ird\\key'] = 'value ' + i;
    this.label = 'größe ✓ 😀 ' + i;
    this.items = [i, i * 2, { nested: i }];
  }
}
globalThis.widgets = [];

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function busyLoop(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += fib(18); return x; }
function allocate(n) { for (let i = 0; i < n; i++) globalThis.widgets.push(new Widget(i)); }

const gz = (name, text) => fs.writeFileSync(path.join(outdir, name), zlib.gzipSync(text, { level: 9 }));

(async () => {
  // Heap timeline with allocation stacks.
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true });
  for (let k = 0; k < 5; k++) { allocate(200); await new Promise((r) => setTimeout(r, 60)); }
  chunks = [];
  await post('HeapProfiler.stopTrackingHeapObjects', { reportProgress: true });
  gz('timeline.heaptimeline.gz', chunks.join(''));
  fs.writeFileSync(path.join(outdir, 'events.json'), JSON.stringify(events, null, 0) + '\n');

  // Plain snapshot.
  chunks = [];
  await post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  gz('snapshot.heapsnapshot.gz', chunks.join(''));

  // CPU profile.
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  busyLoop(150);
  allocate(100);
  busyLoop(100);
  const { profile } = await post('Profiler.stop');
  fs.writeFileSync(path.join(outdir, 'profile.cpuprofile'), JSON.stringify(profile));
  session.disconnect();
  for (const f of fs.readdirSync(outdir)) console.log(f, fs.statSync(path.join(outdir, f)).size);
})().catch((e) => { console.error(e); process.exit(1); });
