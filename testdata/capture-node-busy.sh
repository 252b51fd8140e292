#!/usr/bin/env bash
# Captures testdata/node/busy.json.gz: node's built-in tracing of a program
# doing file I/O (sync and async), timers, promises, an HTTP round trip over
# loopback, zlib, and enough allocation to run the GC. It is one of the
# sources the realistic benchmark trace tiles (internal/cmd/benchrun/gentrace_real.go).
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)/node/busy.json.gz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
node --trace-events-enabled \
  --trace-event-categories v8,v8.execute,node,node.async_hooks,node.perf,node.fs.sync,node.fs.async,node.net.native,node.environment,node.bootstrap,disabled-by-default-v8.gc \
  -e "
const fs = require('fs'), http = require('http'), zlib = require('zlib');
const {performance} = require('perf_hooks');
let keep = [];
function churn(n) { const a = []; for (let i = 0; i < n; i++) a.push({i, s: 'v' + i}); keep.push(a); if (keep.length > 4) keep.shift(); }
async function io(round) {
  performance.mark('io' + round);
  fs.writeFileSync('f' + (round % 4), 'x'.repeat(4096 + round));
  await fs.promises.readFile('f' + (round % 4));
  await new Promise(r => fs.stat('.', r));
  zlib.gzipSync(Buffer.alloc(8192, round));
  performance.measure('io round', 'io' + round);
}
const server = http.createServer((q, s) => s.end('ok')).listen(0, async () => {
  const port = server.address().port;
  for (let round = 0; round < 150; round++) {
    churn(20000);
    await io(round);
    await new Promise(r => http.get('http://127.0.0.1:' + port + '/', res => { res.resume(); res.on('end', r); }));
    await new Promise(r => setTimeout(r, 1));
    setImmediate(() => churn(1000));
  }
  server.close();
});
"
gzip -9 -c node_trace.1.log > "$out"
ls -l "$out"
