// load-snapshot.ts loads a .heapsnapshot file with DevTools' own heap snapshot
// worker (bundled by run.sh), for the scripts beside it.
import "./polyfill.mjs";
import * as Loader from './chrome-devtools-frontend/front_end/entrypoints/heap_snapshot_worker/HeapSnapshotLoader.js';
import * as HS from './chrome-devtools-frontend/front_end/entrypoints/heap_snapshot_worker/HeapSnapshot.js';
import {readFileSync} from 'fs';

// loadSnapshot returns the built snapshot and the channel to close when done.
export async function loadSnapshot(path: string): Promise<{snap: any, channel: MessageChannel}> {
  const dispatcher: any = {sendEvent() {}};
  const loader = new Loader.HeapSnapshotLoader(dispatcher);
  loader.write(readFileSync(path, 'utf8'));
  loader.close();
  const channel = new MessageChannel();
  new HS.SecondaryInitManager(channel.port2 as any);
  const snap: any = await loader.buildSnapshot(channel.port1 as any);
  return {snap, channel};
}
