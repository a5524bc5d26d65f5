/**
 * The first typo lookup's time in a fresh process over a store's largest catalog (docs/cold-start.md):
 * a query of known words, then a first and a second query with typos; the first typo reads (or
 * builds and stores) the vocabulary's tables. `tsx scripts/measure-first-typo.ts <store.sqlite>`;
 * run it a few times (the first run after the terms change builds and stores the tables).
 */
import { openCatalogLexical } from '../src/store/catalog-lexical.js';
import { SqliteStore } from '../src/store/sqlite-store.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: tsx scripts/measure-first-typo.ts <store.sqlite>');
const store = SqliteStore.open(file);
const db = store.database;
const catalog = db.prepare<[], number>('SELECT catalog FROM lexical_catalogs ORDER BY documents DESC LIMIT 1').pluck().get();
if (catalog === undefined) throw new Error(`${file}: no catalog has lexical statistics`);
const searcher = openCatalogLexical(db, catalog);
const time = (query: string): number => {
  const start = performance.now();
  searcher.search(query, 10);
  return Number((performance.now() - start).toFixed(2));
};
const known = time('deploy kubernetes');
const firstTypo = time('kubernetis deploymnt');
const secondTypo = time('databse migrashun');
console.log(JSON.stringify({ catalog, known, firstTypo, secondTypo }));
store.close();
