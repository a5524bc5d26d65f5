/**
 * Checks the flat lexical index (`src/lexical/flat-lexical.ts`) against `LexicalIndex` on a real
 * catalog: the 24k-skill registry pool of ../shared/eval (skipped when absent), searched with the
 * eval suites' query texts (MetaTool, Seal-Tools, SkillsBench, library; sampled, deterministic).
 *
 * Reports
 * - differences: queries whose answers differ in any way (ids, order, score bits, coverage,
 *   explained fields), under the default options, with explain, and with grouped terms; on the
 *   index as built and again after 1% of the skills were replaced and 0.5% removed. Must be 0.
 * - sizes: the flat buffer and the `v8.serialize`d compact snapshot the store writes today;
 *   the time to encode the flat buffer and to `verify` it.
 * - cold: fresh processes (interleaved, `--cold-runs` each) that read one artefact, open it
 *   (flat: `FlatLexicalIndex.open`; today: `v8.deserialize` + `LexicalIndex.restoreCompact`,
 *   as `lexical-store.ts` does) and answer one query; medians of read, open, first query, total,
 *   and of the JavaScript heap in use after the query.
 * - warm: per-query latency of both paths in one process, each query seen once by fresh
 *   instances, the two paths interleaved; p50 / p99.
 *
 * Usage: npx tsx scripts/check-flat-lexical.ts [--queries 600] [--cold-runs 15]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
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

/** Prints one cold run's timings (ms) and the heap in use after its query (MB) as JSON. */
function report(started: number, imported: number, read: number, opened: number, done: number): void {
  const heap = process.memoryUsage().heapUsed / 2 ** 20;
  console.log(JSON.stringify({ import: imported - started, read: read - imported, open: opened - read, query: done - opened, total: done - imported, heap }));
}

/** One cold process: read one artefact, open it, answer one query; prints its timings as JSON. */
async function cold(kind: string, dir: string, query: string): Promise<void> {
  const started = performance.now();
  if (kind === 'flat') {
    const { FlatLexicalIndex } = await import('../src/lexical/flat-lexical.js');
    const imported = performance.now();
    const bytes = readFileSync(join(dir, 'lexical.flat'));
    const read = performance.now();
    const index = FlatLexicalIndex.open(bytes);
    const opened = performance.now();
    index.search(query, 10);
    const done = performance.now();
    report(started, imported, read, opened, done);
    return;
  }
  const { deserialize } = await import('node:v8');
  const { LexicalIndex } = await import('../src/lexical/lexical-index.js');
  const imported = performance.now();
  const bytes = readFileSync(join(dir, 'lexical.v8'));
  const read = performance.now();
  const index = LexicalIndex.restoreCompact(deserialize(bytes));
  const opened = performance.now();
  index.search(query, 10);
  const done = performance.now();
  report(started, imported, read, opened, done);
}

async function main(): Promise<void> {
  const { existsSync } = await import('node:fs');
  const { serialize, deserialize } = await import('node:v8');
  const { REGISTRY_POOL, evalQueryTexts, sample } = await import('./eval-suites.js');
  const { loadToolsJsonl } = await import('../src/load/tools-jsonl.js');
  const { LexicalIndex } = await import('../src/lexical/lexical-index.js');
  const { encodeFlatLexical, FlatLexicalIndex } = await import('../src/lexical/flat-lexical.js');
  const { tokenize } = await import('../src/lexical/tokenize.js');

  if (!existsSync(REGISTRY_POOL)) {
    console.log(`skipped: ${REGISTRY_POOL} is absent`);
    return;
  }
  const { skills } = await loadToolsJsonl(REGISTRY_POOL);
  const queries = sample(await evalQueryTexts(), Number(values.queries));

  let started = performance.now();
  const live = new LexicalIndex();
  for (const skill of skills) live.upsert(skill);
  const buildMs = performance.now() - started;
  started = performance.now();
  const flatBytes = encodeFlatLexical(live);
  const encodeMs = performance.now() - started;
  started = performance.now();
  const v8Bytes = serialize(live.compactSnapshot());
  const serializeMs = performance.now() - started;
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
  // Then 1% of the skills replaced and 0.5% removed, so the vacuumed index is written too.
  const changed = LexicalIndex.restoreCompact(deserialize(v8Bytes));
  skills.forEach((skill, i) => {
    if (i % 100 === 7) changed.upsert({ ...skill, description: `${skill.description} (revised)`, contentHash: `${skill.contentHash}-revised` });
    if (i % 200 === 3) changed.remove(skill.id);
  });
  compare(changed, FlatLexicalIndex.open(encodeFlatLexical(changed)), 'after changes');

  const dir = mkdtempSync(join(tmpdir(), 'check-flat-lexical-'));
  try {
    writeFileSync(join(dir, 'lexical.flat'), flatBytes);
    writeFileSync(join(dir, 'lexical.v8'), v8Bytes);
    const runs = { flat: [] as Record<string, number>[], today: [] as Record<string, number>[] };
    const coldRuns = Number(values['cold-runs']);
    for (let run = 0; run < coldRuns; run += 1) {
      const query = queries[(run * 37) % queries.length]!;
      for (const kind of run % 2 === 0 ? (['flat', 'today'] as const) : (['today', 'flat'] as const)) {
        const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--cold', kind, '--dir', dir, '--query', query], {
          encoding: 'utf8',
        });
        if (child.status !== 0) throw new Error(`cold ${kind} run failed: ${child.stderr}`);
        runs[kind].push(JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, number>);
      }
    }

    // Warm: fresh instances, each query once, the two paths interleaved.
    const warmFlat = FlatLexicalIndex.open(flatBytes);
    const warmToday = LexicalIndex.restoreCompact(deserialize(v8Bytes));
    const warm = { flat: [] as number[], today: [] as number[] };
    queries.forEach((query, i) => {
      const order = i % 2 === 0 ? (['flat', 'today'] as const) : (['today', 'flat'] as const);
      for (const kind of order) {
        const t = performance.now();
        if (kind === 'flat') warmFlat.search(query, 10);
        else warmToday.search(query, 10);
        warm[kind].push(performance.now() - t);
      }
    });

    console.log(
      `catalog: ${skills.length} skills from ${REGISTRY_POOL}; built in ${ms(buildMs)} ms; flat encoded in ${ms(encodeMs)} ms (v8 snapshot serialised in ${ms(serializeMs)} ms), verified in ${ms(verifyMs)} ms`,
    );
    console.log(
      `queries: ${queries.length} (eval suites, sampled), ${compared} searches compared (plain, explained, grouped; as built and after changes); differences: ${differences}`,
    );
    console.log(`size: flat ${flatBytes.length} bytes, v8 compact snapshot ${v8Bytes.length} bytes`);
    for (const kind of ['flat', 'today'] as const) {
      const median = (key: string) =>
        ms(
          percentile(
            runs[kind].map((run) => run[key]!),
            0.5,
          ),
        );
      console.log(
        `cold ${kind.padEnd(5)} (${coldRuns} processes, medians): read ${median('read')} ms, open ${median('open')} ms, first query ${median('query')} ms, total ${median('total')} ms (module import ${median('import')} ms), heap after ${median('heap')} MB`,
      );
    }
    for (const kind of ['flat', 'today'] as const) {
      console.log(
        `warm ${kind.padEnd(5)} (${queries.length} queries, first sight each): p50 ${ms(percentile(warm[kind], 0.5))} ms, p99 ${ms(percentile(warm[kind], 0.99))} ms`,
      );
    }
    if (differences > 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.cold !== undefined) await cold(values.cold, values.dir!, values.query ?? '');
else await main();
