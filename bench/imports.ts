/**
 * What an entry point costs to import: each subpath of the built package against the full
 * `skill-search`, in fresh Node processes (nothing cached), rounds interleaved so machine load
 * falls on every entry alike. The time is measured inside the process around `import()`, so
 * Node's own start-up is not counted.
 */
import { execFileSync } from 'node:child_process';
import { ensureBuilt, ROOT } from '../scripts/ensure-built.js';
import type { Suite } from './context.js';
import { percentile } from './metrics.js';
import { compare, type Measurement } from './results.js';

const FULL = 'skill-search';
const SUBPATHS = ['skill-search/prefetch', 'skill-search/attachments', 'skill-search/hook', 'skill-search/load', 'skill-search/mcp', 'skill-search/search'];

function importMs(specifier: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

export const importsSuite: Suite = async (context) => {
  context.log('imports: bringing dist/ up to date');
  ensureBuilt();
  const rounds = context.options.quick ? 5 : 15;
  const times = new Map<string, number[]>([FULL, ...SUBPATHS].map((specifier) => [specifier, []]));
  context.log(`imports: ${rounds} rounds of ${times.size} fresh processes`);
  for (let round = 0; round < rounds; round++) {
    for (const [specifier, samples] of times) samples.push(importMs(specifier));
  }
  const p50 = (specifier: string) => percentile(times.get(specifier)!, 50);
  const baseline = { name: `import('${FULL}')`, value: p50(FULL) };
  const measurements: Measurement[] = SUBPATHS.map((specifier) =>
    compare(
      {
        group: 'fresh process',
        name: `import('${specifier}')`,
        metric: 'p50',
        value: p50(specifier),
        unit: 'ms',
        samples: rounds,
        better: 'lower',
        headline: specifier.endsWith('/prefetch'),
      },
      baseline,
    ),
  );
  return { measurements, notes: [`${FULL}: p50 ${baseline.value.toFixed(1)} ms over ${rounds} fresh processes`] };
};
