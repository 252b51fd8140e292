// gen-leak.js writes three large heap snapshots of a program that leaks, for
// the leak benchmark: a baseline with N records, a target after an action that
// adds N/2 records to a cache that is never evicted, N/4 listeners that are
// never removed and N/2 temporary records, and a final one after the
// temporary records are dropped. Each snapshot has roughly N×12 nodes.
//
//   node --max-old-space-size=8192 testdata/bench/gen-leak.js OUTDIR [N]
//
// N defaults to 200000 (about 2.5 M nodes, 200 MB a snapshot).
'use strict';
const v8 = require('v8');
const path = require('path');
const { EventEmitter } = require('events');

const out = process.argv[2];
const n = Number(process.argv[3] || 200000);
if (!out) { console.error('usage: gen-leak.js OUTDIR [N]'); process.exit(2); }

const { Customer, Order } = require('./records.js');
class CachedPage { constructor(i) { this.url = '/page/' + i; this.body = ['<p>' + i + '</p>', i.toString(16)]; } }
class Subscriber { constructor(i) { this.user = 'user' + i; this.seen = [i]; } }

const customers = [];
const orders = [];
for (let i = 0; i < n; i++) {
  if (i % 4 === 0) customers.push(new Customer(i));
  orders.push(new Order(i, customers[customers.length - 1]));
}
const cache = new Map();
const bus = new EventEmitter();
bus.setMaxListeners(0);
let temporary = [];

// Held from the global object: V8 does not keep locals it sees no later use of.
globalThis.app = { customers, orders, cache, bus };
const snap = (name) => v8.writeHeapSnapshot(path.join(out, name + '.heapsnapshot'));
snap('baseline');
for (let i = 0; i < n / 2; i++) cache.set('/page/' + i, new CachedPage(i));
for (let i = 0; i < n / 4; i++) {
  const s = new Subscriber(i);
  bus.on('tick', () => s.seen.push(0));
}
for (let i = 0; i < n / 2; i++) temporary.push(new Order(n + i, customers[i % customers.length]));
globalThis.app.temporary = temporary;
snap('target');
temporary = [];
delete globalThis.app.temporary;
snap('final');
