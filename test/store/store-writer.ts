// Child process for concurrency.test.ts: opens the shared store, writes `count` vectors of its
// own in small batches while reading everything the others wrote, then prints what it saw.
import { SharedStore } from '../../src/store/shared-store.js';

const [file, name, count] = process.argv.slice(2) as [string, string, string];
const store = new SharedStore(file);
const keys = (writer: string) => Array.from({ length: Number(count) }, (_, i) => `${writer}-${i}`);
let readBack = 0;
for (let i = 0; i < Number(count); i += 10) {
  const batch = new Map(
    keys(name)
      .slice(i, i + 10)
      .map((key, j) => [key, Float32Array.from([i + j, 1, 2, 3])]),
  );
  store.putVectors('m', batch);
  readBack += store.vectors('m', 4, [...batch.keys()]).size;
  for (const other of ['a', 'b', 'c', 'd']) store.vectors('m', 4, keys(other));
}
store.close();
process.stdout.write(`${JSON.stringify({ readBack, problem: store.problem ?? null })}\n`);
