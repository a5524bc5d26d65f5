// Child process for crash.test.ts: saves a growing index over and over until killed.
import { VectorStore } from '../../src/vector-index/store.js';
import { randomVectors } from './helpers.js';

const [dir, kind] = process.argv.slice(2) as [string, 'hnsw' | 'exact'];
const store = VectorStore.open({ kind, model: 'crash', dimensions: 32, dir });
for (let generation = 0; ; generation += 1) {
  for (let i = 0; i < 50; i += 1) {
    const id = generation * 50 + i;
    store.index.upsert(`s${id}`, randomVectors(1, 32, id + 1)[0]!, `g${generation}`);
  }
  if (generation > 2) for (let i = 0; i < 20; i += 1) store.index.remove(`s${(generation - 2) * 50 + i}`);
  store.save();
  process.stdout.write(`saved ${generation}\n`);
}
