// dump.cjs runs memlab's own leak finding (the steps of its find-leaks command:
// diffSnapshots, filterLeakPaths, clusterPaths, in @memlab/core) on a
// baseline, a target and a final heap snapshot with --trace-all-objects, and
// writes what tracestreamer's tests compare with, as JSON:
//   candidates  objects of final allocated between baseline and target (by id)
//   kept        those memlab's object filter keeps
//   traces      [leaked id, [node ids of its trace from the root]] in memlab's order
//   clusters    {count, retained_size, rep_id, leaked_node_ids} in memlab's order
//
//   node dump.cjs BASELINE TARGET FINAL OUT.json WORKDIR
'use strict';
const path = require('path');
const fs = require('fs');
const { config, fileManager, analysis, NormalizedTrace, utils } = require('@memlab/core');

const [baseline, target, final, out, workDir] = process.argv.slice(2);
if (!workDir) {
  console.error('usage: node dump.cjs BASELINE TARGET FINAL OUT.json WORKDIR');
  process.exit(2);
}
// What memlab's options --baseline/--target/--final and --trace-all-objects set.
config.useExternalSnapshot = true;
config.externalSnapshotFilePaths = [baseline, target, final].map((f) => path.resolve(f));
config.oversizeObjectAsLeak = true;
config.oversizeThreshold = 0;
config.traceAllObjectsMode = 1;
config.errorHandling = 2;
config.muteConsole = true;
fileManager.initDirs(config, { workDir: path.resolve(workDir) });
config.chaseWeakMapEdge = false; // as its find-leaks command sets

const ids = (p) => { const a = []; for (let q = p; q; q = q.next) a.push(q.node.id); return a; };

(async () => {
  const { leakedHeapNodeIdSet: set, snapshot } = await analysis.diffSnapshots({ loadAllSnapshots: true });
  const candidates = set.size;
  const paths = analysis.filterLeakPaths(set, snapshot);
  const clusters = NormalizedTrace.clusterPaths(paths, snapshot, utils.aggregateDominatorMetrics, {});
  const res = {
    memlab: require('@memlab/core/package.json').version,
    candidates,
    kept: set.size,
    traces: paths.map((p) => { const a = ids(p); return [a[a.length - 1], a]; }),
    clusters: clusters.map((c) => ({ count: c.count, retained_size: c.retainedSize, rep_id: c.id,
      leaked_node_ids: Array.from(c.leakedNodeIds || []) })),
  };
  fs.writeFileSync(out, JSON.stringify(res));
  console.log(`memlab ${res.memlab}: ${candidates} candidates, ${res.kept} kept by the object filter, ` +
    `${paths.length} leak traces in ${clusters.length} clusters`);
  for (const c of res.clusters.slice(0, 12)) {
    console.log(`  cluster of ${c.count}, retained ${c.retained_size} B, @${c.rep_id}`);
  }
})().catch((e) => { console.error(e); process.exit(1); });
