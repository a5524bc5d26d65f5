import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectCatalog, sleep, watchedProjectEach } from '../support/watched-project.js';
import { changeFor, skillMd } from './helpers.js';

// Half way between two polls 100 ms apart: a wait that polls reports at the fourth, 50 ms or more past the threshold.
const STABILITY_MS = 350;
const COALESCE_MS = 10;

const watched = watchedProjectEach(() => ({ 'home/project/.claude/skills/keep/SKILL.md': skillMd('kept') }));

describe('the stability wait with native events', () => {
  it('reports a changed file once it has had no event for stabilityThreshold, not at the next poll after', { timeout: 60_000 }, async () => {
    const { catalog, skills } = watched;
    await catalog.watch({ stabilityThreshold: STABILITY_MS, coalesceMs: COALESCE_MS });
    await sleep(300);
    const file = join(skills, 'keep', 'SKILL.md');
    const waits: number[] = [];
    const lags: number[] = [];
    for (let round = 0; round < 3; round++) {
      const changed = changeFor(catalog, file);
      const saved = performance.now();
      // A plain timer as long as the wait, set with the write: how late this loaded process runs a timer now.
      const timer = new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - saved), STABILITY_MS + COALESCE_MS));
      writeFileSync(file, skillMd(`kept, round ${round}`));
      await changed;
      waits.push(performance.now() - saved);
      lags.push((await timer) - (STABILITY_MS + COALESCE_MS));
      await sleep(200);
    }
    // Never early; the best of three rounds within 45 ms of the wait past that timer's lateness, where polling every 100 ms needs 50 ms more.
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(STABILITY_MS + COALESCE_MS - 5);
    expect(Math.min(...waits.map((wait, round) => wait - lags[round]!)), `waits ${waits} ms, timers late by ${lags} ms`).toBeLessThan(
      STABILITY_MS + COALESCE_MS + 45,
    );
  });
});

describe('a watched tools file', () => {
  it('changed in place is reported once, not watched anew (which reported it again a stability wait later)', { timeout: 60_000 }, async () => {
    const tools = join(watched.root, 'tools.jsonl');
    writeFileSync(tools, `${JSON.stringify({ id: 'one', description: 'first tool' })}\n`);
    await watched.catalog.close();
    const catalog = projectCatalog(watched.root, { toolsFiles: [tools] });
    watched.catalog = catalog;
    await catalog.watch({ stabilityThreshold: 100, coalesceMs: 20 });
    await sleep(300);
    const reports: number[] = [];
    catalog.on('change', (change) => {
      if (change.paths.includes(tools)) reports.push(performance.now());
    });
    const first = changeFor(catalog, tools);
    writeFileSync(tools, `${JSON.stringify({ id: 'one', description: 'first tool, revised' })}\n`);
    await first;
    await sleep(1000);
    expect(reports).toHaveLength(1);
  });
});
