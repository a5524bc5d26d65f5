/**
 * Checks the search snapshot (`src/search/search-snapshot.ts`) against the live index on a real
 * catalog: the 24k-skill registry pool of ../shared/eval (skipped when absent), searched with the
 * eval suites' query texts (sampled, deterministic), hybrid and lexical, with the default model.
 *
 * A `LiveIndex` syncs the pool into a fresh index folder and saves the snapshot on close; then
 * the live index (reopened) and the snapshot engine answer every query, and any difference in
 * the hits (ids, order, score bits, via) is counted. Must be 0. Queries with Chinese or Japanese
 * characters are left out: the snapshot never answers them (`src/service/open-search.ts`).
 *
 * Usage: npx tsx scripts/check-search-snapshot.ts [--queries 400] [--model use-lite]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LiveIndex, type LiveIndexOptions } from '../src/integrations/live-index.js';
import { snapshotCanAnswer } from '../src/service/open-search.js';
import type { SearchHit, SearchMode } from '../src/types.js';
import { REGISTRY_POOL, evalQueryTexts, sample } from './eval-suites.js';

const { values } = parseArgs({ options: { queries: { type: 'string', default: '400' }, model: { type: 'string', default: 'use-lite' } } });

if (!existsSync(REGISTRY_POOL)) {
  console.log(`skipped: ${REGISTRY_POOL} is absent`);
  process.exit(0);
}
const queries = sample((await evalQueryTexts()).filter(snapshotCanAnswer), Number(values.queries));
const dir = mkdtempSync(join(tmpdir(), 'skill-search-snapshot-'));
const options: LiveIndexOptions = { catalog: { cwd: dir, toolsFiles: [REGISTRY_POOL] }, model: values.model!, indexDir: join(dir, 'index') };

try {
  let started = performance.now();
  const builder = await LiveIndex.open(options);
  const { snapshot } = await builder.refresh();
  await builder.close();
  console.log(`indexed ${snapshot.skills.length} skills and saved the snapshot in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const live = await LiveIndex.open(options);
  started = performance.now();
  const opened = await LiveIndex.openSnapshot(options);
  if ('reason' in opened) throw new Error(`no snapshot to check: ${opened.reason}`);
  console.log(`snapshot opened in ${(performance.now() - started).toFixed(1)} ms`);
  const shape = (hits: readonly SearchHit[]) =>
    hits.map((hit) => `${hit.skill.id}|${hit.score}|${hit.via.join('+')}|${hit.skill.name}|${hit.skill.description}`).join('\n');
  try {
    for (const mode of ['hybrid', 'lexical'] as SearchMode[]) {
      let differing = 0;
      let shown = 0;
      for (const query of queries) {
        const [expected, got] = [await live.search(query, { mode, k: 10 }), await opened.search(query, { mode, k: 10 })];
        if (shape(expected) !== shape(got)) differing += 1;
        shown += got.length;
      }
      console.log(`${mode}: ${differing} of ${queries.length} answers differ (${shown} hits compared)`);
    }
  } finally {
    await opened.close();
    await live.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
