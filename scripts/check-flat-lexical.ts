/**
 * Checks the flat lexical index (`src/lexical/flat-lexical.ts`) against `LexicalIndex`, and
 * measures the ways a fresh process can get a searchable lexical index, on a real catalog: the
 * 24k-skill registry pool of ../shared/eval (`--corpus pool`, names and descriptions) or the
 * 434-skill library with bodies (`--corpus library`); skipped when absent. Queries: the eval
 * suites' texts (MetaTool, Seal-Tools, SkillsBench, library; sampled, deterministic).
 *
 * Reports
 * - differences: queries whose answers from the flat buffer differ in any way (ids, order,
 *   score bits, coverage, explained fields) from `LexicalIndex`'s, under the default options,
 *   with explain, and with grouped terms; on the index as built and again after 1% of the
 *   skills were replaced and 0.5% removed. Must be 0. And the SQLite tables
 *   (`src/store/lexical-tables.ts`): queries whose ids or scores (beyond 1e-9) differ from
 *   `LexicalIndex`'s with ties put in id order. Must be 0.
 * - sizes and one-off costs: the flat buffer, the SQLite file (entries, membership, catalog
 *   statistics), and the time to build, encode, verify and write each.
 * - cold: fresh processes (interleaved, `--cold-runs` each) that get an index and answer one
 *   query: `flat` (`FlatLexicalIndex.open` on the file), `sql` (open the SQLite file read-only,
 *   `openCatalogLexical`), `store` (`loadLexicalIndex`, the persisted index rebuilt in memory
 *   from its postings, what a process that changes the index loads) and `build` (read the
 *   skills and tokenise them all); medians of import, open, first query, total, heap after.
 * - warm: per-query latency in one process, each query seen once by fresh instances, the paths
 *   interleaved; p50 / p99.
 *
 * Usage: npx tsx scripts/check-flat-lexical.ts [--corpus pool|library] [--queries 600] [--cold-runs 15]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'pool' },
    queries: { type: 'string', default: '600' },
    'cold-runs': { type: 'string', default: '15' },
    cold: { type: 'string' },
    dir: { type: 'string' },
    query: { type: 'string' },
  },
});

const percentile = (samples: readonly number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
};
const ms = (value: number): string => value.toFixed(2);

/** The SQLite membership table the store owns (`catalog_skills`), as the lexical tables join against it. */
const CATALOG_SKILLS_SQL = `CREATE TABLE IF NOT EXISTS catalog_skills (catalog INTEGER NOT NULL, doc INTEGER NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, lexical_key TEXT NOT NULL, vector_key TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (catalog, doc)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS catalog_skills_lexical ON catalog_skills (lexical_key, catalog);`;

const KINDS = ['flat', 'sql', 'store', 'build'] as const;
type Kind = (typeof KINDS)[number];

/** The catalog's skills. */
async function corpusSkills(corpus: string) {
  const { REGISTRY_POOL, librarySkills, EVAL_DIR } = await import('./eval-suites.js');
  const { existsSync } = await import('node:fs');
  if (corpus === 'library') return existsSync(join(EVAL_DIR, 'library')) ? librarySkills() : undefined;
  if (!existsSync(REGISTRY_POOL)) return undefined;
  const { loadToolsJsonl } = await import('../src/load/tools-jsonl.js');
  return (await loadToolsJsonl(REGISTRY_POOL)).skills;
}

/** What a cold process searches. */
interface Searcher {
  search(query: string, limit: number): unknown;
}

/** One cold process: get a searchable index one way, answer one query; prints its timings as JSON. */
async function cold(kind: Kind, dir: string, query: string): Promise<void> {
  const started = performance.now();
  let open: () => Promise<Searcher>;
  if (kind === 'flat') {
    const { FlatLexicalIndex } = await import('../src/lexical/flat-lexical.js');
    open = async () => FlatLexicalIndex.open(readFileSync(join(dir, 'lexical.flat')));
  } else if (kind === 'sql') {
    const { default: Database } = await import('better-sqlite3');
    const { openCatalogLexical } = await import('../src/store/lexical-tables.js');
    open = async () => openCatalogLexical(new Database(join(dir, 'lexical.sqlite'), { readonly: true }), 1);
  } else if (kind === 'store') {
    const { loadLexicalIndex } = await import('../src/lexical/lexical-store.js');
    open = async () => {
      const loaded = loadLexicalIndex(join(dir, 'store'));
      if (!('index' in loaded)) throw new Error(loaded.reason);
      return loaded.index;
    };
  } else {
    const { LexicalIndex } = await import('../src/lexical/lexical-index.js');
    open = async () => {
      const index = new LexicalIndex();
      for (const skill of (await corpusSkills(values.corpus!)) ?? []) index.upsert(skill);
      return index;
    };
  }
  const imported = performance.now();
  const index = await open();
  const opened = performance.now();
  index.search(query, 10);
  const done = performance.now();
  const heap = process.memoryUsage().heapUsed / 2 ** 20;
  console.log(JSON.stringify({ import: imported - started, open: opened - imported, query: done - opened, total: done - imported, heap }));
}

async function main(): Promise<void> {
  const { REGISTRY_POOL, evalQueryTexts, sample } = await import('./eval-suites.js');
  const { LexicalIndex } = await import('../src/lexical/lexical-index.js');
  const { lexicalEntry } = await import('../src/lexical/lexical-entry.js');
  const { encodeFlatLexical, FlatLexicalIndex } = await import('../src/lexical/flat-lexical.js');
  const { saveLexicalIndex } = await import('../src/lexical/lexical-store.js');
  const { tokenize } = await import('../src/lexical/tokenize.js');
  const { default: Database } = await import('better-sqlite3');
  const { LEXICAL_TABLES_SQL, openCatalogLexical, putCatalogLexicalStats, putLexicalEntries } = await import('../src/store/lexical-tables.js');

  const skills = await corpusSkills(values.corpus!);
  if (skills === undefined) {
    console.log(`skipped: the ${values.corpus} corpus is absent (${REGISTRY_POOL})`);
    return;
  }
  const queries = sample(await evalQueryTexts(), Number(values.queries));

  let started = performance.now();
  const live = new LexicalIndex();
  for (const skill of skills) live.upsert(skill);
  const buildMs = performance.now() - started;
  started = performance.now();
  const flatBytes = encodeFlatLexical(live);
  const encodeMs = performance.now() - started;
  const flat = FlatLexicalIndex.open(flatBytes);
  started = performance.now();
  flat.verify();
  const verifyMs = performance.now() - started;

  // Grouped terms as a translated request would give them: each word its own group, later words lighter.
  const groupedOf = (query: string) => {
    const words = [...new Set(tokenize(query))];
    return { weights: new Map(words.map((word, i) => [word, 1 / (1 + i)])), groups: words.map((word) => [word]) };
  };
  // JSON keeps 17 significant digits, enough to tell any two doubles apart: equal text, equal bits.
  let differences = 0;
  let compared = 0;
  const compare = (reference: typeof live, candidate: typeof flat, label: string): void => {
    for (const query of queries) {
      for (const options of [{}, { explain: true }, { terms: groupedOf(query), explain: true }]) {
        compared += 1;
        if (JSON.stringify(candidate.search(query, 10, options)) !== JSON.stringify(reference.search(query, 10, options))) {
          differences += 1;
          if (differences <= 3) console.log(`differs (${label}): ${JSON.stringify(query)} ${JSON.stringify(Object.keys(options))}`);
        }
      }
    }
  };
  compare(live, flat, 'as built');
  // Then 1% of the skills replaced and 0.5% removed.
  const changed = new LexicalIndex();
  for (const skill of skills) changed.upsert(skill);
  skills.forEach((skill, i) => {
    if (i % 100 === 7) changed.upsert({ ...skill, description: `${skill.description} (revised)`, contentHash: `${skill.contentHash}-revised` });
    if (i % 200 === 3) changed.remove(skill.id);
  });
  compare(changed, FlatLexicalIndex.open(encodeFlatLexical(changed)), 'after changes');

  const dir = mkdtempSync(join(tmpdir(), 'check-flat-lexical-'));
  try {
    writeFileSync(join(dir, 'lexical.flat'), flatBytes);
    started = performance.now();
    saveLexicalIndex(join(dir, 'store'), live);
    const storeMs = performance.now() - started;
    // The SQLite file as the store would write it: entries, the catalog's membership, its statistics.
    started = performance.now();
    const db = new Database(join(dir, 'lexical.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec(CATALOG_SKILLS_SQL);
    db.exec(LEXICAL_TABLES_SQL);
    const entries = skills.map((skill) => lexicalEntry(skill));
    const tokenisedMs = performance.now() - started;
    putLexicalEntries(db, entries);
    const insert = db.prepare('INSERT INTO catalog_skills (catalog, doc, id, name, lexical_key, vector_key, record) VALUES (1, ?, ?, ?, ?, ?, ?)');
    db.transaction(() => skills.forEach((skill, doc) => insert.run(doc, skill.id, skill.name, entries[doc]!.key, '', '{}')))();
    putCatalogLexicalStats(db, 1);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const sqlMs = performance.now() - started;
    const tableBytes = db
      .prepare<[], { name: string; bytes: number }>(
        "SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'lexical%' OR name LIKE 'sqlite_autoindex_lexical%' GROUP BY name",
      )
      .all();
    db.close();
    const sqlBytes = statSync(join(dir, 'lexical.sqlite')).size;

    // SQL against memory: same ids and scores (1e-9), ties in id order; every match, no cut among ties.
    const sql = openCatalogLexical(new Database(join(dir, 'lexical.sqlite'), { readonly: true }), 1);
    let sqlDifferences = 0;
    const normal = (matches: readonly { id: string; score: number }[]) => [...matches].sort((a, b) => b.score - a.score);
    for (const query of queries) {
      const want = normal(live.search(query, skills.length));
      const got = normal(sql.search(query, skills.length));
      const same = got.length === want.length && got.every((hit, i) => Math.abs(hit.score - want[i]!.score) <= 1e-9 * Math.max(1, hit.score));
      const sameIds = JSON.stringify(got.map((hit) => hit.id).sort()) === JSON.stringify(want.map((hit) => hit.id).sort());
      if (!same || !sameIds) {
        sqlDifferences += 1;
        if (sqlDifferences <= 3) console.log(`sql differs: ${JSON.stringify(query)}`);
      }
    }

    const runs = Object.fromEntries(KINDS.map((kind) => [kind, [] as Record<string, number>[]])) as Record<Kind, Record<string, number>[]>;
    const coldRuns = Number(values['cold-runs']);
    for (let run = 0; run < coldRuns; run += 1) {
      const query = queries[(run * 37) % queries.length]!;
      const order = KINDS.map((_, i) => KINDS[(i + run) % KINDS.length]!);
      for (const kind of order) {
        const child = spawnSync(
          process.execPath,
          ['--import', 'tsx', import.meta.filename, '--cold', kind, '--dir', dir, '--query', query, '--corpus', values.corpus!],
          { encoding: 'utf8' },
        );
        if (child.status !== 0) throw new Error(`cold ${kind} run failed: ${child.stderr}`);
        runs[kind].push(JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, number>);
      }
    }

    // Warm: fresh instances, each query once, the paths interleaved.
    const warmSearchers = {
      flat: FlatLexicalIndex.open(flatBytes),
      sql: openCatalogLexical(new Database(join(dir, 'lexical.sqlite'), { readonly: true }), 1),
      memory: changed,
    };
    const warmKinds = ['flat', 'sql', 'memory'] as const;
    const warm = { flat: [] as number[], sql: [] as number[], memory: [] as number[] };
    queries.forEach((query, i) => {
      for (const kind of warmKinds.map((_, j) => warmKinds[(i + j) % warmKinds.length]!)) {
        const t = performance.now();
        warmSearchers[kind].search(query, 10);
        warm[kind].push(performance.now() - t);
      }
    });

    console.log(
      `catalog: ${skills.length} skills (${values.corpus}); built in memory in ${ms(buildMs)} ms; flat encoded in ${ms(encodeMs)} ms, verified in ${ms(verifyMs)} ms; store saved in ${ms(storeMs)} ms; SQLite written in ${ms(sqlMs)} ms (of which tokenising ${ms(tokenisedMs)} ms)`,
    );
    console.log(
      `queries: ${queries.length} (eval suites, sampled), ${compared} flat searches compared (plain, explained, grouped; as built and after changes); differences: ${differences}; SQL vs memory (all matches, 1e-9): ${sqlDifferences} of ${queries.length} differ`,
    );
    console.log(`size: flat ${flatBytes.length} bytes, SQLite file ${sqlBytes} bytes (${tableBytes.map((row) => `${row.name} ${row.bytes}`).join(', ')})`);
    for (const kind of KINDS) {
      const median = (key: string) =>
        ms(
          percentile(
            runs[kind].map((run) => run[key]!),
            0.5,
          ),
        );
      console.log(
        `cold ${kind.padEnd(5)} (${coldRuns} processes, medians): open ${median('open')} ms, first query ${median('query')} ms, total ${median('total')} ms (module import ${median('import')} ms), heap after ${median('heap')} MB`,
      );
    }
    for (const kind of warmKinds) {
      console.log(
        `warm ${kind.padEnd(6)} (${queries.length} queries, first sight each): p50 ${ms(percentile(warm[kind], 0.5))} ms, p99 ${ms(percentile(warm[kind], 0.99))} ms`,
      );
    }
    if (differences > 0 || sqlDifferences > 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.cold !== undefined) await cold(values.cold as Kind, values.dir!, values.query ?? '');
else await main();
