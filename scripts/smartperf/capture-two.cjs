// capture-two.cjs OUTDIR — record two heap snapshots of one node process (the second one
// after more allocations, so SmartPerf-Host's Comparison tab has real differences: same
// object ids, new objects) and a CPU profile around busy functions, with node's inspector.
// Writes OUTDIR/first.heapsnapshot, OUTDIR/second.heapsnapshot, OUTDIR/profile.cpuprofile.
'use strict';
const inspector = require('inspector');
const fs = require('fs');
const path = require('path');

const outdir = process.argv[2];
if (!outdir) {
  console.error('usage: node capture-two.cjs OUTDIR');
  process.exit(2);
}
fs.mkdirSync(outdir, { recursive: true });

const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) =>
  session.post(method, params || {}, (err, res) => (err ? reject(err) : resolve(res))));
let chunks = [];
session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));

class Basket {
  constructor(i) {
    this.id = i;
    this.fruit = ['apple', 'pear', 'plum'][i % 3] + ' #' + i;
    this.weights = new Float64Array(16).fill(i);
  }
}
class Receipt {
  constructor(basket) {
    this.basket = basket;
    this.text = 'receipt for ' + basket.fruit;
  }
}
globalThis.baskets = [];
globalThis.receipts = [];

function fill(n) { for (let i = 0; i < n; i++) globalThis.baskets.push(new Basket(i)); }
function pay() { for (const b of globalThis.baskets) globalThis.receipts.push(new Receipt(b)); }
function sieve(n) {
  const s = new Uint8Array(n + 1);
  let c = 0;
  for (let i = 2; i <= n; i++) if (!s[i]) { c++; for (let j = i * i; j <= n; j += i) s[j] = 1; }
  return c;
}
function spin(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += sieve(20000); return x; }

async function snapshot(name) {
  chunks = [];
  await post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  fs.writeFileSync(path.join(outdir, name), chunks.join(''));
}

(async () => {
  await post('HeapProfiler.enable');
  fill(300);
  await snapshot('first.heapsnapshot');
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  spin(120);
  fill(500);
  pay();
  spin(80);
  const { profile } = await post('Profiler.stop');
  fs.writeFileSync(path.join(outdir, 'profile.cpuprofile'), JSON.stringify(profile));
  await snapshot('second.heapsnapshot');
  session.disconnect();
})().catch((e) => { console.error(e); process.exit(1); });
