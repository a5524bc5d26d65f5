import Database from 'better-sqlite3';
import { openCatalogLexical } from '../src/store/lexical-tables.js';
import { evalQueryTexts, sample } from '../scripts/eval-suites.js';
const corpus = process.argv[2]!;
const queries = sample(await evalQueryTexts(), 300);
const db = new Database(`/tmp/t-lexstore/${corpus}.sqlite`, { readonly: true });
const sql = openCatalogLexical(db, 1);
const times: number[] = [];
const slow: [number, string][] = [];
for (const q of queries) { const t = performance.now(); sql.search(q, 10); const d = performance.now() - t; times.push(d); slow.push([d, q]); }
times.sort((a, b) => a - b);
console.log('p50', times[150]!.toFixed(2), 'p90', times[270]!.toFixed(2), 'p99', times[297]!.toFixed(2));
slow.sort((a, b) => b[0] - a[0]);
console.log(slow.slice(0, 3).map(([d, q]) => `${d.toFixed(1)} ${q.slice(0, 80)}`).join('\n'));
