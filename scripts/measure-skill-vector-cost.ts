/**
 * What the skill side's extra vectors (`skill-vectors.ts`) would add to a cold build if embedded at index time: the
 * library's skills synced into an empty index folder (`main`), against the same sync followed by embedding every skill's
 * name on its own (`names`) or its description sentences (`sentences`), a lower bound on a build that stores them too.
 * Each build runs in a fresh process, the sides alternated round by round with the order flipped every round. Also the
 * search-time alternative: one embed call for 6 names (a pool's), p50 of 30. Numbers: docs/retrieval.md, twentieth round.
 *
 *   SKILL_SEARCH_EVAL_DIR=/work/shared/eval npx tsx scripts/measure-skill-vector-cost.ts [--rounds 3] [--sides main,names]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { SkillSearchEngine } from '../src/search/engine.js';
import { humanizeName } from '../src/search/skill-text.js';
import { librarySkills } from './eval-suites.js';
import { skillSentences } from './skill-vectors.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, sides: { type: 'string', default: 'main,names' }, child: { type: 'string' } },
});
const SIDES = values.sides.split(',');
const median = (list: readonly number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

/** One cold build of the library, model warmed first; prints its milliseconds (and, for `names`, a pool's name embedding p50). */
async function child(side: string): Promise<void> {
  const skills = librarySkills();
  const embedder = resolveEmbedder('use-lite');
  await embedder.embed(['warm up the model'], undefined, 'query');
  const work = mkdtempSync(path.join(os.tmpdir(), 'skill-vector-cost-'));
  try {
    const engine = await SkillSearchEngine.open({ embedder, indexDir: path.join(work, 'index'), queryCacheSize: 0 });
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const { embedded } = await engine.sync(skills);
    if (side === 'names')
      await embedder.embed(
        skills.map((skill) => humanizeName(skill.name)),
        undefined,
        'passage',
      );
    if (side === 'sentences') await embedder.embed(skills.flatMap(skillSentences), undefined, 'passage');
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpuBefore);
    await engine.close();
    if (embedded === 0) throw new Error('the index folder was not empty');
    const pool: number[] = [];
    for (let call = 0; call < 30; call += 1) {
      const callStarted = performance.now();
      await embedder.embed(
        skills.slice(call * 6, call * 6 + 6).map((skill) => humanizeName(skill.name)),
        undefined,
        'passage',
      );
      pool.push(performance.now() - callStarted);
    }
    console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, poolNamesMs: median(pool) }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (values.child !== undefined) {
  await child(values.child);
} else {
  const builds = new Map<string, number[]>(SIDES.map((side) => [side, []]));
  const cpu = new Map<string, number[]>(SIDES.map((side) => [side, []]));
  const pools: number[] = [];
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const side of round % 2 === 0 ? SIDES : [...SIDES].reverse()) {
      const run = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--child', side], { encoding: 'utf8', env: process.env });
      if (run.status !== 0) throw new Error(`${side}: ${run.stderr}`);
      const { ms, cpuMs, poolNamesMs } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { ms: number; cpuMs: number; poolNamesMs: number };
      builds.get(side)!.push(ms);
      cpu.get(side)!.push(cpuMs);
      pools.push(poolNamesMs);
      console.error(`round ${round} ${side}: ${ms.toFixed(0)} ms, CPU ${cpuMs.toFixed(0)} ms`);
    }
  }
  for (const [label, table] of [
    ['wall', builds],
    ['CPU', cpu],
  ] as const) {
    const base = median(table.get(SIDES[0]!)!);
    for (const [side, list] of table)
      console.log(
        `${label} ${side}: ${list.map((ms) => ms.toFixed(0)).join(', ')} ms, median ${median(list).toFixed(0)} (${((median(list) / base - 1) * 100).toFixed(1)}%)`,
      );
  }
  console.log(`6 names in one embed call (a pool's, at search time): p50 ${median(pools).toFixed(2)} ms`);
}
