/**
 * Cross-lingual retrieval: Chinese and Japanese requests over the English skill library, and
 * English requests over the Chinese fixture skills. Query sets: eval/crosslingual/*.jsonl
 * (split rule in eval/crosslingual/README.md). The library is read from ../shared/eval/library
 * at run time (skipped when absent); vectors are cached under $TMPDIR/skill-search-eval.
 *
 *   npx tsx scripts/eval-crosslingual.ts [--split dev|test|all] [--modes hybrid,lexical] [--model use-lite] [--config knobs.json] [--json]
 */
import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { scanSkillsDir } from '../src/load/index.js';
import { readEngineConfig } from '../src/eval/engine-config.js';
import { readEvalQueries, type EvalQuery } from '../src/eval/queries.js';
import { runEval, type EvalReport, type QueryRecord } from '../src/eval/run.js';
import { SkillSearchEngine } from '../src/search/index.js';
import type { SearchMode, Skill } from '../src/types.js';
import { evalIndexDir } from './eval-suites.js';

const ROOT = join(import.meta.dirname, '..');
const EVAL_DIR = process.env.SKILL_SEARCH_EVAL_DIR ?? join(ROOT, '..', 'shared', 'eval');
const QUERY_DIR = join(ROOT, 'eval', 'crosslingual');

const { values } = parseArgs({
  strict: true,
  options: {
    split: { type: 'string', default: 'dev' },
    modes: { type: 'string', default: 'hybrid,lexical' },
    model: { type: 'string', default: 'use-lite' },
    /** `en-over-mixed`: the English requests over the Chinese skills added to the English library. */
    sets: { type: 'string', default: 'zh-over-en-r2,ja-over-en-r2,zh-over-en,ja-over-en,en-over-zh,en-over-mixed' },
    json: { type: 'boolean', default: false },
    /** A JSON file of engine knobs (as `skill-search eval --config`), e.g. to measure main's settings in the same run. */
    config: { type: 'string' },
    /** Writes one JSON line per query and mode (`eval --per-query` records, with `set` and `mode`) to this file. */
    'per-query': { type: 'string' },
  },
});

/** The split rule: a query whose id ends in an even number is in `test`, odd in `dev`. */
export function splitOf(id: string): 'dev' | 'test' {
  const digits = /(\d+)$/.exec(id);
  if (digits === null) throw new Error(`query id ${id} has no number to split on`);
  return Number(digits[1]) % 2 === 0 ? 'test' : 'dev';
}

async function scan(dir: string): Promise<Skill[]> {
  const { skills } = await scanSkillsDir(dir, { source: 'skills', rank: 4 });
  return [...skills];
}

/** Every library skill, first source (alphabetical) wins on a repeated name. */
async function librarySkills(): Promise<Skill[] | undefined> {
  const root = join(EVAL_DIR, 'library');
  if (!existsSync(root)) return undefined;
  const seen = new Set<string>();
  const out: Skill[] = [];
  for (const source of readdirSync(root).sort()) {
    for (const skill of await scan(join(root, source))) {
      if (seen.has(skill.name)) continue;
      seen.add(skill.name);
      out.push(skill);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const embedder = resolveEmbedder(values.model);
  const knobs = values.config === undefined ? {} : readEngineConfig(values.config);
  const library = await librarySkills();
  const chinese = await scan(join(ROOT, 'fixtures', 'chinese-skills', 'skills'));
  if (values['per-query'] !== undefined) writeFileSync(values['per-query'], '');
  const rows: (EvalReport & { set: string; skills: number })[] = [];
  for (const set of values.sets.split(',')) {
    const skills =
      set === 'en-over-zh'
        ? chinese
        : set === 'en-over-mixed'
          ? library === undefined
            ? undefined
            : [...chinese, ...library.filter((skill) => !chinese.some((zh) => zh.name === skill.name))]
          : library;
    if (skills === undefined) {
      console.error(`${set}: ${EVAL_DIR}/library not found; skipped`);
      continue;
    }
    const all: EvalQuery[] = await readEvalQueries(join(QUERY_DIR, `${set === 'en-over-mixed' ? 'en-over-zh' : set}.jsonl`));
    const queries = values.split === 'all' ? all : all.filter((query) => splitOf(query.id) === values.split);
    // One index per catalogue, so every request set over the library shares its vectors.
    const indexDir = evalIndexDir(`crossling-${set === 'en-over-zh' || set === 'en-over-mixed' ? set : 'library'}`, embedder);
    const engine = await SkillSearchEngine.open({ ...knobs, embedder, indexDir, queryCacheSize: 0 });
    await engine.sync(skills);
    for (const mode of values.modes.split(',') as SearchMode[]) {
      const perQuery = values['per-query'];
      const onRecord = perQuery === undefined ? undefined : (record: QueryRecord) => appendFileSync(perQuery, `${JSON.stringify({ set, mode, ...record })}\n`);
      rows.push({ set, skills: engine.size, ...(await runEval(engine, queries, { k: 10, mode, ...(onRecord && { onRecord }) })) });
    }
    await engine.close();
  }
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  console.log(`split ${values.split}, model ${embedder.id}`);
  console.log(
    '| set | skills | mode | queries | ranked hit@1 | ranked hit@5 | ranked MRR | shown hit@1 | shown hit@5 | blank | abstained | p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const row of rows) {
    const cells = [
      row.set,
      row.skills,
      row.mode,
      `${row.shown.answerable} + ${row.abstain.queries}`,
      row.hitAt1.toFixed(3),
      row.hitAt5.toFixed(3),
      row.mrr.toFixed(3),
      row.shown.hitAt1.toFixed(3),
      row.shown.hitAt5.toFixed(3),
      `${(row.shown.blank * 100).toFixed(1)}% (${Math.round(row.shown.blank * row.shown.answerable)}/${row.shown.answerable})`,
      row.abstain.queries === 0 ? '–' : `${row.abstain.correct}/${row.abstain.queries}`,
      row.latencyMs.p50.toFixed(2),
      row.latencyMs.p99.toFixed(2),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}

await main();
