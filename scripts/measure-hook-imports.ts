/**
 * What a cold hook or `query` pays to load its modules: in fresh Node processes, the time of
 * `import()` of the modules on each path (the CLI entry, the command, the live index and the
 * snapshot search), measured inside the process so Node's own start-up is not counted. Each
 * run then times `import('zod')`: about 0 ms means the path had already loaded it.
 *
 * Usage: npx tsx scripts/measure-hook-imports.ts [--rounds 9] [DIST …]
 * Each DIST is a built `dist/` folder inside this repository (so `zod` resolves from
 * node_modules), default `dist`; several are measured in interleaved rounds, so machine load
 * falls on each alike (e.g. a copy of the build before a change beside the current one).
 * Prints the median per path and DIST, in ms.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, ROOT } from './ensure-built.js';

const PATHS: Readonly<Record<string, readonly string[]>> = {
  hook: ['cli/main.js', 'cli/commands/hook.js', 'integrations/claude-code-hook.js', 'service/open-search.js', 'integrations/live-index.js'],
  query: ['cli/main.js', 'cli/commands/query.js', 'integrations/query-cap.js', 'service/open-search.js', 'integrations/live-index.js'],
};

function run(dist: string, modules: readonly string[]): { importMs: number; zodMs: number } {
  const urls = modules.map((file) => pathToFileURL(path.resolve(ROOT, dist, file)).href);
  const script = [
    `let t = performance.now();`,
    `for (const url of ${JSON.stringify(urls)}) await import(url);`,
    `const importMs = performance.now() - t;`,
    `t = performance.now();`,
    `await import('zod');`,
    `process.stdout.write(JSON.stringify({ importMs, zodMs: performance.now() - t }));`,
  ].join('\n');
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as {
    importMs: number;
    zodMs: number;
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt === -1 ? 9 : Number(args.splice(roundsAt, 2)[1]);
const dists = args.length === 0 ? ['dist'] : args;
if (dists.includes('dist')) ensureBuilt();

const samples = new Map<string, { importMs: number[]; zodMs: number[] }>();
for (let round = 0; round < rounds; round++) {
  for (const [name, modules] of Object.entries(PATHS)) {
    for (const dist of dists) {
      const key = `${name} ${dist}`;
      const sample = run(dist, modules);
      const entry = samples.get(key) ?? { importMs: [], zodMs: [] };
      entry.importMs.push(sample.importMs);
      entry.zodMs.push(sample.zodMs);
      samples.set(key, entry);
    }
  }
}
console.log(`median of ${rounds} fresh processes (ms)`);
for (const [key, { importMs, zodMs }] of samples) {
  console.log(`${key.padEnd(40)} import ${median(importMs).toFixed(1).padStart(6)}   then import('zod') ${median(zodMs).toFixed(1).padStart(5)}`);
}
