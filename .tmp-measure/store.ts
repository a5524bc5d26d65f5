import { LexicalIndex } from '../src/lexical/lexical-index.js';
import { saveLexicalIndex, loadLexicalIndex } from '../src/lexical/lexical-store.js';
import { encodeFlatLexical, FlatLexicalIndex } from '../src/lexical/flat-lexical.js';
import { readFileSync, existsSync } from 'node:fs';
import { REGISTRY_POOL } from '../scripts/eval-suites.js';
import { loadToolsJsonl } from '../src/load/tools-jsonl.js';
const dir = '/tmp/t-lexstore/store-pool';
if (process.argv[2] === 'save') {
  const { skills } = await loadToolsJsonl(REGISTRY_POOL);
  const index = new LexicalIndex();
  for (const s of skills) index.upsert(s);
  saveLexicalIndex(dir, index);
  const { writeFileSync } = await import('node:fs');
  writeFileSync('/tmp/t-lexstore/pool.flat', encodeFlatLexical(index));
} else {
  let t = performance.now();
  const loaded = loadLexicalIndex(dir);
  console.log('load', performance.now() - t, 'index' in loaded);
}
