// to-legacy.js rewrites a current-format .cpuprofile (nodes/samples/timeDeltas)
// into the legacy format older Chrome DevTools saved: a nested "head" call tree
// with the call frame fields on each node (lines and columns counted from 1),
// startTime/endTime in seconds and absolute sample "timestamps" in µs.
//
//   node testdata/to-legacy.js IN.cpuprofile OUT.cpuprofile
'use strict';
const fs = require('fs');
const [inPath, outPath] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(inPath, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
function convert(n) {
  const c = n.callFrame;
  return {
    functionName: c.functionName, scriptId: c.scriptId, url: c.url,
    lineNumber: c.lineNumber + 1, columnNumber: c.columnNumber + 1,
    hitCount: n.hitCount, callUID: n.id, id: n.id, deoptReason: '',
    children: (n.children || []).map((id) => convert(byId.get(id))),
  };
}
const timestamps = [];
let t = p.startTime;
for (const d of p.timeDeltas) { t += d; timestamps.push(t); }
const legacy = {
  head: convert(p.nodes[0]), startTime: p.startTime / 1e6, endTime: p.endTime / 1e6,
  samples: p.samples, timestamps,
};
fs.writeFileSync(outPath, JSON.stringify(legacy));
