// devtools-analysis.ts is bundled by run.sh with DevTools' heap snapshot worker; it
// writes one line per node: id, dominator id, retained size, distance, shallow
// size and class name, as DevTools computes them.
import "./polyfill.mjs";
import * as Loader from './chrome-devtools-frontend/front_end/entrypoints/heap_snapshot_worker/HeapSnapshotLoader.js';
import * as HS from './chrome-devtools-frontend/front_end/entrypoints/heap_snapshot_worker/HeapSnapshot.js';
import {readFileSync, writeFileSync} from 'fs';

const text = readFileSync(process.argv[2], 'utf8');
const dispatcher: any = {sendEvent() {}};
const loader = new Loader.HeapSnapshotLoader(dispatcher);
loader.write(text);
loader.close();
const channel = new MessageChannel();
new HS.SecondaryInitManager(channel.port2 as any);
const snap: any = await loader.buildSnapshot(channel.port1 as any);
const n = snap.nodeCount;
const fc = snap.nodeFieldCount;
const out: string[] = [];
for (let i = 0; i < n; i++) {
  const id = snap.nodes.getValue(i * fc + snap.nodeIdOffset);
  const domId = snap.nodes.getValue(snap.dominatorsTree[i] * fc + snap.nodeIdOffset);
  const node = snap.createNode(i * fc);
  out.push(`${id} ${domId} ${snap.retainedSizes[i]} ${snap.nodeDistances[i]} ${node.selfSize()} ${node.className()}`);
}
writeFileSync(process.argv[3], out.join('\n') + '\n');
channel.port1.close();
