// devtools-retainers.ts is bundled by run.sh with DevTools' heap snapshot worker;
// for every node that has a distance it writes one JSON line
//   [id, distance, [[retainer id, edge type, edge name], ...]]
// listing the retainers DevTools shows that lie on a shortest path: those one
// step nearer the root (the root itself for the user roots at distance 1).
import {loadSnapshot} from './load-snapshot.ts';
import {writeFileSync} from 'fs';

const {snap, channel} = await loadSnapshot(process.argv[2]);
const n = snap.nodeCount;
const fc = snap.nodeFieldCount;
const out: string[] = [];
for (let i = 0; i < n; i++) {
  const d = snap.nodeDistances[i];
  if (d <= 0) continue;
  const node = snap.createNode(i * fc);
  const near: any[] = [];
  for (const it = node.retainers(); it.hasNext(); it.next()) {
    const edge = it.item();
    const from = edge.node();
    const fd = snap.nodeDistances[from.nodeIndex / fc];
    if (fd === d - 1 || (d === 1 && from.nodeIndex === snap.rootNodeIndex)) {
      near.push([from.id(), edge.type(), String(edge.name())]);
    }
  }
  out.push(JSON.stringify([node.id(), d, near]));
}
writeFileSync(process.argv[3], out.join('\n') + '\n');
channel.port1.close();
