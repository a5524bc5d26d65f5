// Child process for crash.test.ts: saves a changing index over and over until killed.
// `bulk`: each save adds 50 entries and removes 20 (full saves). `delta`: one big save, then
// each save adds one entry and removes one (delta saves, the data file stays as written).
import { VectorStore } from '../../src/vector-index/store.js';
import { randomVectors } from './helpers.js';

const [dir, kind, pattern = 'bulk'] = process.argv.slice(2) as [string, 'hnsw' | 'exact', ('bulk' | 'delta')?];
const store = VectorStore.open({ kind, model: 'crash', dimensions: 32, folder: dir });
const add = (id: number, generation: number) => store.upsert(`s${id}`, randomVectors(1, 32, id + 1)[0]!, `g${generation}`);
for (let generation = 0; ; generation += 1) {
  if (pattern === 'delta' && generation > 0) {
    add(400 + generation, generation);
    store.remove(`s${generation}`);
  } else {
    const count = pattern === 'delta' ? 400 : 50;
    for (let i = 0; i < count; i += 1) add(generation * 50 + i, generation);
    if (generation > 2) for (let i = 0; i < 20; i += 1) store.remove(`s${(generation - 2) * 50 + i}`);
  }
  store.save();
  process.stdout.write(`saved ${generation}\n`);
}
