/**
 * Cold build rate through the real model: the first N registry skills (the eval pool's
 * tools.jsonl, read in place) synced into an empty index folder. Each side runs in a fresh
 * process of its own (two onnxruntime builds cannot share one), the sides alternated round by
 * round with the order flipped every round, so a loaded machine slows both alike. Each process
 * also times one short query's embedding (p50 of 200 calls, after the build).
 *
 * Sides: `before`, the code before the scale work as the scale bench builds it
 * (bench/.cache/scale-baseline/<SCALE_BASELINE_COMMIT>, run `npm run bench -- --only scale
 * --quick` once to build it) with the onnxruntime-node its node_modules resolve; `now-64`, this
 * code with the old 64 texts per embedder call; `now`, this code as shipped.
 *
 * Usage: npx tsx scripts/measure-build-rate.ts [--skills 1000] [--rounds 3] [--sides before,now-64,now]
 * Prints one JSON object (rates per round, medians, ratios to `before`, skills per CPU-second).
 * `--child <side>` runs one build and prints its figures (the scale bench's cold-build row uses it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { SCALE_BASELINE_COMMIT } from '../bench/scale.js';
import { POOL_FILE } from '../bench/corpus.js';
import { REPO_ROOT } from '../bench/options.js';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { SkillCatalog } from '../src/load/index.js';
import { SkillSearchEngine } from '../src/search/engine.js';
import type { Embedder, Skill } from '../src/types.js';

interface EngineLike {
  sync(skills: readonly Skill[]): Promise<{ embedded: number }>;
  close(): Promise<void>;
}
interface Side {
  readonly name: string;
  readonly embedder: Embedder;
  readonly onnxruntime: string;
  open(indexDir: string): Promise<EngineLike>;
}

const { values } = parseArgs({
  options: {
    skills: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    sides: { type: 'string', default: 'before,now-64,now' },
    child: { type: 'string' },
    'baseline-root': { type: 'string', default: path.join(REPO_ROOT, 'bench', '.cache', 'scale-baseline', SCALE_BASELINE_COMMIT) },
    'eval-dir': { type: 'string', default: path.resolve(REPO_ROOT, '..', 'shared', 'eval') },
  },
});
const size = Number(values.skills);
const rounds = Number(values.rounds);
const QUERY = 'convert a scanned pdf to text';
const QUERY_CALLS = 200;

function onnxruntimeVersion(fromFile: string): string {
  const require = createRequire(fromFile);
  const main = require.resolve('onnxruntime-node');
  const manifest = path.join(main.slice(0, main.lastIndexOf(`${path.sep}dist${path.sep}`)), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

async function sides(names: readonly string[]): Promise<Side[]> {
  const out: Side[] = [];
  for (const name of names) {
    if (name === 'before') {
      const root = path.join(values['baseline-root'], 'dist');
      const engines = (await import(pathToFileURL(path.join(root, 'search', 'engine.js')).href)) as {
        SkillSearchEngine: { open(options: Record<string, unknown>): Promise<EngineLike> };
      };
      const embeds = (await import(pathToFileURL(path.join(root, 'embed', 'index.js')).href)) as { resolveEmbedder(): Embedder };
      const embedder = embeds.resolveEmbedder();
      out.push({
        name,
        embedder,
        onnxruntime: onnxruntimeVersion(path.join(root, 'embed', 'index.js')),
        open: (indexDir) => engines.SkillSearchEngine.open({ embedder, indexDir, queryCacheSize: 0 }),
      });
    } else if (name === 'now' || name === 'now-64') {
      const embedder = resolveEmbedder();
      out.push({
        name,
        embedder,
        onnxruntime: onnxruntimeVersion(import.meta.filename),
        open: (indexDir) => SkillSearchEngine.open({ embedder, indexDir, queryCacheSize: 0, ...(name === 'now-64' ? { batchSize: 64 } : {}) }),
      });
    } else {
      throw new Error(`--sides: unknown side "${name}" (known: before, now-64, now)`);
    }
  }
  return out;
}

const median = (list: readonly number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

interface ChildResult {
  readonly rate: number;
  readonly cpuSeconds: number;
  readonly queryP50Ms: number;
  readonly onnxruntime: string;
}

async function skillsOf(work: string): Promise<readonly Skill[]> {
  const lines = readFileSync(path.join(values['eval-dir'], POOL_FILE), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const tools = path.join(work, 'tools.jsonl');
  writeFileSync(tools, `${lines.slice(0, size).join('\n')}\n`);
  const catalog = new SkillCatalog({ cwd: work, toolsFiles: [tools], skillsDirs: [], home: work, addDirs: [] } as never);
  const skills = (await catalog.get()).skills;
  await catalog.close();
  return skills;
}

/** One side, one build: model loaded and warmed first, then the timed sync, then the query timings. */
async function child(name: string): Promise<ChildResult> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'build-rate-'));
  try {
    const skills = await skillsOf(work);
    const [side] = await sides([name]);
    await side!.embedder.embed(['warm up the model'], undefined, 'query');
    const engine = await side!.open(path.join(work, 'index'));
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const { embedded } = await engine.sync(skills);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpuBefore);
    await engine.close();
    if (embedded === 0) throw new Error(`${name} embedded nothing: the index folder was not empty`);
    const queryMs: number[] = [];
    for (let call = 0; call < QUERY_CALLS; call++) {
      const callStarted = performance.now();
      await side!.embedder.embed([QUERY], undefined, 'query');
      queryMs.push(performance.now() - callStarted);
    }
    return { rate: skills.length / seconds, cpuSeconds: (used.user + used.system) / 1e6, queryP50Ms: median(queryMs), onnxruntime: side!.onnxruntime };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (values.child !== undefined) {
  console.log(JSON.stringify(await child(values.child)));
} else {
  const names = values.sides.split(',');
  const results = new Map(names.map((name) => [name, [] as ChildResult[]]));
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', import.meta.filename, '--child', name, '--skills', String(size), '--eval-dir', values['eval-dir']],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 24,
        },
      );
      if (run.status !== 0) throw new Error(`${name} (round ${round + 1}) exited ${String(run.status)}: ${run.stderr}`);
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as ChildResult;
      results.get(name)!.push(result);
      console.error(`round ${round + 1} ${name}: ${result.rate.toFixed(1)} skills/s`);
    }
  }
  const base = results.has('before') ? median(results.get('before')!.map((r) => r.rate)) : undefined;
  console.log(
    JSON.stringify(
      {
        skills: size,
        rounds,
        loadAverageAfter: os.loadavg().map((load) => Number(load.toFixed(2))),
        cores: os.availableParallelism(),
        sides: Object.fromEntries(
          names.map((name) => {
            const list = results.get(name)!;
            const rate = median(list.map((r) => r.rate));
            return [
              name,
              {
                onnxruntime: list[0]!.onnxruntime,
                skillsPerSecond: list.map((r) => Number(r.rate.toFixed(1))),
                median: Number(rate.toFixed(1)),
                vsBefore: base === undefined ? null : Number((rate / base).toFixed(2)),
                skillsPerCpuSecond: list.map((r) => Number((size / r.cpuSeconds).toFixed(1))),
                queryEmbedP50Ms: list.map((r) => Number(r.queryP50Ms.toFixed(2))),
              },
            ];
          }),
        ),
      },
      null,
      2,
    ),
  );
}
