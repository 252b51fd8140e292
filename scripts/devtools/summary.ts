// summary.ts is bundled by check-export.sh with Chrome DevTools' own heap
// snapshot worker and CPU profile model; for each file named it prints what
// DevTools shows of it. A heap file: its node and edge counts, total size and
// class summary (class, count, shallow size, retained size, distance, as the
// Summary view lists them). A .cpuprofile: its nodes, samples, hit counts,
// duration, and per node its self and total time (ms, DevTools'
// tree) and the time of its samples (ms, each sample lasting until the next
// one or the profile's end).
import {loadSnapshot} from './load-snapshot.ts';
import * as HeapSnapshotModel from './chrome-devtools-frontend/front_end/models/heap_snapshot/HeapSnapshotModel.js';
import {CPUProfileDataModel} from './chrome-devtools-frontend/front_end/models/cpu_profile/CPUProfileDataModel.js';
import {readFileSync} from 'fs';

const path = process.argv[2];
const out: string[] = [];
if (path.endsWith('.cpuprofile')) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const m = new CPUProfileDataModel(profile);
  const time = new Map<number, number>();
  const ts = m.timestamps, ids = m.samples || [];
  for (let i = 0; i < ids.length; i++) {
    const end = i + 1 < ids.length ? ts[i + 1] : m.profileEndTime;
    time.set(ids[i], (time.get(ids[i]) || 0) + end - ts[i]);
  }
  out.push(`nodes ${profile.nodes.length} samples ${ids.length} hits ${m.totalHitCount} ` +
      `duration ${(m.profileEndTime - m.profileStartTime).toFixed(3)} ms`);
  for (const n of m.nodes() || []) {
    const c = n.callFrame;
    out.push(`${n.id} ${c.functionName || '(anonymous)'} ${c.url}:${c.lineNumber}:${c.columnNumber} ` +
        `self ${n.self.toFixed(3)} total ${n.total.toFixed(3)} sampled ${(time.get(n.id) || 0).toFixed(3)}`);
  }
} else {
  const {snap, channel} = await loadSnapshot(path);
  const edges = snap.containmentEdges.length / snap.edgeFieldsCount;
  out.push(`nodes ${snap.nodeCount} edges ${edges} total size ${snap.totalSize}`);
  const aggr = snap.aggregatesWithFilter(new HeapSnapshotModel.NodeFilter());
  const rows = Object.values(aggr).map((a: any) => `${a.name}\t${a.count}\t${a.self}\t${a.maxRet}\t${a.distance}`);
  out.push(`classes ${rows.length}`);
  out.push(...rows.sort());
  channel.port1.close();
}
process.stdout.write(out.join('\n') + '\n');
