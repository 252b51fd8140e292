// gen-cpuprofile.js writes a large CPU profile for benchmarks: a busy workload
// over many generated functions sampled every 50 µs.
//
//   node testdata/bench/gen-cpuprofile.js OUT.cpuprofile [SECONDS]
'use strict';
const inspector = require('inspector');
const fs = require('fs');

const out = process.argv[2];
const seconds = Number(process.argv[3] || 30);
if (!out) { console.error('usage: gen-cpuprofile.js OUT [SECONDS]'); process.exit(2); }

const session = new inspector.Session();
session.connect();
const post = (m, p) => new Promise((res, rej) => session.post(m, p || {}, (e, r) => (e ? rej(e) : res(r))));

// 300 generated functions that call each other in varying depths.
const fns = [];
for (let k = 0; k < 300; k++) {
  fns.push(new Function('fns', 'd', 'x', `
    let s = x;
    for (let i = 0; i < ${50 + (k % 50)}; i++) s = (s * 31 + i) % 1000003;
    if (d > 0) s += fns[(s + ${k}) % fns.length](fns, d - 1, s);
    return s;
  `));
}

(async () => {
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 50 });
  await post('Profiler.start');
  const end = Date.now() + seconds * 1000;
  let x = 1;
  while (Date.now() < end) for (let i = 0; i < 200; i++) x = fns[x % fns.length](fns, 1 + (x % 12), x);
  const { profile } = await post('Profiler.stop');
  fs.writeFileSync(out, JSON.stringify(profile));
  console.error(`wrote ${out}: ${(fs.statSync(out).size / 1e6).toFixed(1)} MB, ${profile.nodes.length} nodes, ${profile.samples.length} samples`);
})().catch((e) => { console.error(e); process.exit(1); });
