/**
 * Cold `skill-search query` as a user meets it (a fresh process, no server), against `node -e 0`
 * measured alternately in the same run, for one or more builds of the CLI (e.g. main and this
 * branch), over a tools file (a pool such as the 24k registry) or skill folders:
 *
 *   tsx scripts/measure-cold-query.ts --bin before=/tmp/main/bin/skill-search.js --bin now=bin/skill-search.js \
 *     --tools-file /work/shared/eval/pools/skill-registry-metadata/tools.jsonl --model hash --runs 5
 *
 * Per build: `index` once (not timed as a query), then `--runs` cold queries of the unchanged
 * catalog, then `--changes` times the first cold query after one skill's description changed
 * (the tools file is a copy, edited in place, another line each time), then again cold queries
 * of that (now saved) catalog. Prints medians in ms and as ratios to `node -e 0`; each build gets
 * its own cache folder.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    bin: { type: 'string', multiple: true },
    'tools-file': { type: 'string' },
    'skills-dir': { type: 'string', multiple: true },
    model: { type: 'string', default: 'hash' },
    runs: { type: 'string', default: '5' },
    changes: { type: 'string', default: '1' },
    query: { type: 'string', default: 'rotate the nginx logs and compress the old ones' },
  },
});
const bins = (values.bin ?? []).map((spec) => {
  const at = spec.indexOf('=');
  if (at < 1) throw new Error(`--bin expects name=path, got ${spec}`);
  return { name: spec.slice(0, at), file: path.resolve(spec.slice(at + 1)) };
});
if (bins.length === 0) throw new Error('give at least one --bin name=path/to/skill-search.js');
const runs = Number(values.runs);

function wall(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
  return ms;
}
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const { name, file } of bins) {
  const cache = mkdtempSync(path.join(os.tmpdir(), `cold-query-${name}-`));
  const env = { ...process.env, SKILL_SEARCH_CACHE_DIR: cache, HOME: cache };
  const sources: string[] = ['--model', values.model!, '--no-demo', '--cwd', cache];
  let tools: string | undefined;
  if (values['tools-file'] !== undefined) {
    tools = path.join(cache, 'tools.jsonl');
    copyFileSync(values['tools-file'], tools);
    sources.push('--tools', tools);
  }
  for (const dir of values['skills-dir'] ?? []) sources.push('--skills-dir', path.resolve(dir));
  const query = (): number => wall([file, 'query', '--quiet', ...sources, values.query!], env);
  const node = (): number => wall(['-e', '0'], env);
  const indexMs = wall([file, 'index', '--quiet', ...sources], env);
  query(); // page cache, model graph cache
  const unchanged: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    baseline.push(node());
    unchanged.push(query());
  }
  let changed: number | undefined;
  let after: number[] = [];
  if (tools !== undefined) {
    const times: number[] = [];
    for (let change = 0; change < Number(values.changes); change += 1) {
      const lines = readFileSync(tools, 'utf8').split('\n');
      const at = Math.floor(((change + 1) * lines.length) / (Number(values.changes) + 2));
      const tool = JSON.parse(lines[at]!) as { description?: string };
      lines[at] = JSON.stringify({ ...tool, description: `${tool.description ?? ''} (edited for the measurement)` });
      writeFileSync(tools, lines.join('\n'));
      baseline.push(node());
      times.push(query());
    }
    changed = median(times);
    after = Array.from({ length: runs }, () => query());
  }
  const base = median(baseline);
  const row = (label: string, ms: number): string => `${label} ${ms.toFixed(0)} ms (${(ms / base).toFixed(1)}× node -e 0)`;
  console.log(
    [
      `${name}: node -e 0 ${base.toFixed(0)} ms; index ${indexMs.toFixed(0)} ms`,
      row('  cold query, unchanged:', median(unchanged)),
      ...(changed === undefined
        ? []
        : [
            `${row(`  first cold query after one description changed (median of ${values.changes}):`, changed)}, ${(changed / median(unchanged)).toFixed(2)}× unchanged`,
            row('  cold query after that:', median(after)),
          ]),
    ].join('\n'),
  );
  rmSync(cache, { recursive: true, force: true });
}
