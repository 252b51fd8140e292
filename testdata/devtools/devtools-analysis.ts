// devtools-analysis.ts is bundled by run.sh with DevTools' heap snapshot worker; it
// writes one line per node: id, dominator id, retained size, distance, shallow
// size and class name, as DevTools computes them.
import {loadSnapshot} from './load-snapshot.ts';
import {writeFileSync} from 'fs';

const {snap, channel} = await loadSnapshot(process.argv[2]);
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
