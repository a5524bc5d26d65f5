/**
 * Run by idle-collector.test.ts in a process of its own, started without `--expose-gc`: a
 * resident index that replaces its catalog (a 20k-entry map) on every reindex, touching an
 * IdleCollector after each, then waits out the quiet time. The replaced catalogs are held until
 * the last reindex (so they are in the old generation whatever V8 collected meanwhile), then
 * dropped. Prints how many are still in memory (WeakRefs) before and after the quiet time, the
 * old generation's size then, and the collections made.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { IdleCollector, oldGenerationBytes } from '../../src/util/idle-collector.js';

const REINDEXES = 30;
const quietMs = 200;
const collector = new IdleCollector({ quietMs, slackBytes: 1024 * 1024 });
const replaced: WeakRef<object>[] = [];
let held: object[] = [];
let catalog = new Map<string, { readonly id: string; readonly text: string }>();
let churn: unknown[] = [];

for (let round = 0; round < REINDEXES; round += 1) {
  const next = new Map<string, { readonly id: string; readonly text: string }>();
  for (let i = 0; i < 20_000; i += 1) next.set(`skill-${i}`, { id: `skill-${i}`, text: `round ${round} skill ${i}` });
  replaced.push(new WeakRef(catalog));
  held.push(catalog);
  catalog = next;
  // Searches between reindexes: short-lived garbage whose young collections promote the catalog.
  for (let i = 0; i < 200_000; i += 1) churn = [i, `${i}`, churn.length];
  collector.touch();
  await sleep(5);
}
held = [];
await sleep(20);
const before = oldGenerationBytes();
const aliveBefore = replaced.filter((ref) => ref.deref() !== undefined).length;
await sleep(quietMs * 3);
const after = oldGenerationBytes();
const aliveAfter = replaced.filter((ref) => ref.deref() !== undefined).length;
const collections = collector.collections;
// Quiet again with nothing new: the heap is within the slack, so nothing is collected.
collector.touch();
await sleep(quietMs * 3);
console.log(JSON.stringify({ catalog: catalog.size, aliveBefore, aliveAfter, before, after, collections, collectionsLater: collector.collections }));
collector.close();
