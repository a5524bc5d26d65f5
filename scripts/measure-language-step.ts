/**
 * The cross-lingual step on the sync path, timed at 1k / 10k / 24k skills of the registry pool
 * (../shared/eval/pools/skill-registry-metadata/tools.jsonl), for an English-only catalogue (the
 * pool's skills without CJK text) and for the whole pool (≈5% Chinese/Japanese skills):
 *   - `prepare()` in a fresh process-like instance (cold) and again on the same skills (re-sync),
 *     today's CrossLingual against the one at `--base` (default `main`), interleaved, median of 5;
 *   - today's cold `prepare()` with an index folder a previous instance filled (a new process
 *     over an unchanged index: the hook without a server);
 *   - a no-change `engine.sync()` (hash embedder, lexical + exact ANN, no index dir).
 * The base version is read with `git show` into a temporary file next to the current one and
 * removed afterwards. Usage: npx tsx scripts/measure-language-step.ts [--base REF]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { toSkill, toToolRecord, POOL_FILE } from '../bench/corpus.js';
import { createHashEmbedder } from '../src/embed/hash-embedder.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { CrossLingual } from '../src/lang/cross-lingual.js';
import { SkillSearchEngine } from '../src/search/engine.js';
import type { Skill } from '../src/types.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const EVAL = process.env.SKILL_SEARCH_EVAL_DIR ?? path.resolve(ROOT, '..', 'shared', 'eval');
const SIZES = [1000, 10000, 24000];
const RUNS = 5;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

interface Preparer {
  prepare(skills: Iterable<Skill>): Promise<void>;
}
type Make = () => Preparer;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** Cold: a new instance per run (what every hook process pays); re-sync: a second prepare on the same skills. */
async function measurePrepare(make: Make, skills: readonly Skill[]): Promise<{ cold: number; resync: number }> {
  const instance = make();
  const cold = await timed(() => instance.prepare(skills));
  const resync = await timed(() => instance.prepare(skills));
  return { cold, resync };
}

async function main(): Promise<void> {
  const baseIndex = process.argv.indexOf('--base');
  const base = baseIndex >= 0 ? process.argv[baseIndex + 1]! : 'main';
  const file = path.join(EVAL, POOL_FILE);
  if (!existsSync(file)) throw new Error(`skill-search: ${file} not found (set SKILL_SEARCH_EVAL_DIR)`);
  const pool = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => toSkill(toToolRecord(JSON.parse(line)), 'skill-registry-metadata'));
  const english = pool.filter((skill) => !CJK.test(`${skill.description}\n${skill.whenToUse ?? ''}`));

  const baseFile = path.join(ROOT, 'src', 'lang', 'cross-lingual.base.ts');
  writeFileSync(baseFile, execFileSync('git', ['show', `${base}:src/lang/cross-lingual.ts`], { cwd: ROOT, encoding: 'utf8' }));
  try {
    const { CrossLingual: BaseCrossLingual } = (await import(baseFile)) as { CrossLingual: typeof CrossLingual };
    const rows: string[] = [];
    for (const [catalogue, source] of [
      ['english', english],
      ['pool', pool],
    ] as const) {
      for (const size of SIZES) {
        const skills = source.slice(0, size);
        const samples = { baseCold: [] as number[], newCold: [] as number[], baseResync: [] as number[], newResync: [] as number[] };
        for (let run = 0; run < RUNS; run += 1) {
          const old = await measurePrepare(() => new BaseCrossLingual(), skills);
          const now = await measurePrepare(() => new CrossLingual(), skills);
          samples.baseCold.push(old.cold);
          samples.baseResync.push(old.resync);
          samples.newCold.push(now.cold);
          samples.newResync.push(now.resync);
        }
        const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'language-step-'));
        const cache = SqliteStore.open(path.join(cacheDir, 'store.sqlite'));
        await new CrossLingual({ cache }).prepare(skills);
        const kept: number[] = [];
        for (let run = 0; run < RUNS; run += 1) kept.push(await timed(() => new CrossLingual({ cache }).prepare(skills)));
        cache.close();
        rmSync(cacheDir, { recursive: true, force: true });
        const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
        await engine.sync(skills);
        const syncs: number[] = [];
        for (let run = 0; run < RUNS; run += 1) syncs.push(await timed(() => engine.sync(skills)));
        await engine.close();
        const [bc, nc, br, nr] = [median(samples.baseCold), median(samples.newCold), median(samples.baseResync), median(samples.newResync)];
        rows.push(
          `| ${catalogue} | ${skills.length} | ${bc.toFixed(1)} → ${nc.toFixed(1)} ms (${(bc / nc).toFixed(1)}×) | ` +
            `${br.toFixed(1)} → ${nr.toFixed(1)} ms (${(br / nr).toFixed(1)}×) | ${median(kept).toFixed(1)} ms (${(bc / median(kept)).toFixed(1)}×) | ${median(syncs).toFixed(1)} ms |`,
        );
      }
    }
    console.log(`base ${base}; median of ${RUNS}; load: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
    console.log(
      '| catalogue | skills | prepare, cold (base → now) | prepare, re-sync (base → now) | prepare, cold with index folder (now; × vs base cold) | no-change engine.sync (now) |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    rmSync(baseFile, { force: true });
  }
}

await main();
