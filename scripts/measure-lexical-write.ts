/**
 * The cost of writing the lexical postings of the 24k registry pool into an empty store, against
 * `node -e 0` in the same run: what `putLexicalEntries` costs in a first `skill-search index`.
 *
 *   tsx scripts/measure-lexical-write.ts [--eval-dir /work/shared/eval]
 *
 * Prints the skills, the postings rows, the tokenising time and the write time (ms and ratio).
 * The database is a temp file, removed at the end.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { loadPool } from '../bench/corpus.js';
import { lexicalEntry } from '../src/lexical/lexical-entry.js';
import { STORE_DEFAULTS } from '../src/store/entry-store.js';
import { LEXICAL_TABLES_SQL, putLexicalEntries } from '../src/store/lexical-tables.js';

const { values } = parseArgs({ options: { 'eval-dir': { type: 'string', default: '/work/shared/eval' } } });
const pool = loadPool(values['eval-dir']!, 30_000);
let started = performance.now();
const entries = pool.skills.map((skill) => lexicalEntry(skill));
const tokeniseMs = performance.now() - started;
const postings = entries.reduce((n, entry) => n + entry.terms.reduce((m, terms) => m + terms.size, 0), 0);

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexical-write-'));
const db = new Database(path.join(dir, 'store.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma(`cache_size = -${STORE_DEFAULTS.cacheKiB}`);
db.exec(LEXICAL_TABLES_SQL);
started = performance.now();
execFileSync(process.execPath, ['-e', '0']);
const nodeMs = performance.now() - started;
started = performance.now();
putLexicalEntries(db, entries);
const writeMs = performance.now() - started;
db.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  `${pool.origin} pool: ${entries.length} skills, ${postings} postings; tokenise ${tokeniseMs.toFixed(0)} ms; write ${writeMs.toFixed(0)} ms (${(writeMs / nodeMs).toFixed(1)}× node -e 0 = ${nodeMs.toFixed(0)} ms)`,
);
