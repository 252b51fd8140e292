// app.js is a small node program that leaks in three ways memlab knows, and
// takes the three heap snapshots of memlab's method: a baseline before an
// action, a target after it, and a final one after the action is undone. The
// objects the action made that are still alive in the final snapshot are what
// a leak detector must report.
//
//   node testdata/leak/app.js [outdir]   (default: testdata/leak; writes
//                                          baseline/target/final.heapsnapshot.gz)
//
// The leaks:
//   - a cache that is never evicted (Map of CacheEntry, each with its own buffer
//     of strings);
//   - closures kept in a module-level array of callbacks after their work is
//     done, each capturing a RequestContext;
//   - listeners added to a long-lived EventEmitter and never removed, each
//     capturing a Session.
// Everything else the action makes (a list of TransientRecord, temporary
// strings) is dropped before the final snapshot.
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { EventEmitter } = require('events');

const outdir = process.argv[2] || __dirname;

class CacheEntry {
  constructor(key) {
    this.key = key;
    this.createdAt = 1700000000000 + key.length;
    this.lines = [];
    for (let i = 0; i < 8; i++) this.lines.push(`line ${i} of ${key}`);
  }
}
class RequestContext {
  constructor(n) {
    this.requestId = n;
    this.headers = { accept: 'text/html', 'x-request': String(n) };
    this.body = new Array(16).fill(n);
  }
}
class Session {
  constructor(user) {
    this.user = user;
    this.history = [user + ':login'];
  }
}
class TransientRecord {
  constructor(n) { this.n = n; this.text = 'transient ' + n; }
}

const cache = new Map();
const callbacks = [];
const bus = new EventEmitter();
bus.setMaxListeners(0);
let transient = [];

function action() {
  for (let i = 0; i < 120; i++) cache.set('page-' + i, new CacheEntry('page-' + i));
  for (let i = 0; i < 60; i++) {
    const ctx = new RequestContext(i);
    callbacks.push(function onDone() { return ctx.requestId; });
  }
  for (let i = 0; i < 40; i++) {
    const session = new Session('user' + i);
    bus.on('tick', function onTick() { session.history.push('tick'); });
  }
  for (let i = 0; i < 500; i++) transient.push(new TransientRecord(i));
}

function undo() {
  // The action is "closed": what it made for itself is dropped, but the cache,
  // the callbacks and the listeners are forgotten.
  transient = [];
}

function snapshot(name) {
  const file = path.join(outdir, name + '.heapsnapshot');
  v8.writeHeapSnapshot(file);
  fs.writeFileSync(file + '.gz', zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
  fs.unlinkSync(file);
}

fs.mkdirSync(outdir, { recursive: true });
snapshot('baseline');
action();
snapshot('target');
undo();
snapshot('final');
