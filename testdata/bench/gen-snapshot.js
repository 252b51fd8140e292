// gen-snapshot.js writes a large, realistic V8 heap snapshot for benchmarks:
// an object graph of "records" with nested arrays, maps, closures and many
// distinct strings, roughly N×10 nodes and N×27 edges.
//
//   node --max-old-space-size=8192 testdata/bench/gen-snapshot.js OUT.heapsnapshot [N]
//
// N defaults to 400000 (about 5.1 M nodes, 16.8 M edges, 410 MB).
'use strict';
const v8 = require('v8');
const fs = require('fs');

const out = process.argv[2];
const n = Number(process.argv[3] || 400000);
if (!out) { console.error('usage: gen-snapshot.js OUT [N]'); process.exit(2); }

const { Customer, Order } = require('./records.js');
const customers = [];
const orders = [];
const index = new Map();
for (let i = 0; i < n; i++) {
  const c = i % 4 === 0 ? new Customer(i) : customers[customers.length - 1];
  if (i % 4 === 0) customers.push(c);
  const o = new Order(i, c);
  orders.push(o);
  if (i % 2 === 0) index.set('k' + i, o);
}
globalThis.keep = { customers, orders, index };
const t0 = Date.now();
v8.writeHeapSnapshot(out);
console.error(`wrote ${out}: ${(fs.statSync(out).size / 1e6).toFixed(0)} MB in ${((Date.now() - t0) / 1e3).toFixed(1)} s`);
