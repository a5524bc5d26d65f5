import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillCatalog } from '../../src/load/index.js';
import { changeFor, removeDir, skillMd, tempDir, writeTree } from './helpers.js';

let root: string;
let catalog: SkillCatalog;
// The project lies in `home`, as most do: the upward walk for project skills stops there. From a project outside it, every
// folder up to `/` is a source, and the watcher watches for one in `/tmp`, where every test on the machine writes.
const project = () => join(root, 'home', 'project');
const skills = () => join(project(), '.claude', 'skills');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Half way between two polls 100 ms apart: a wait that polls reports at the fourth, 50 ms or more past the threshold.
const STABILITY_MS = 350;
const COALESCE_MS = 10;

beforeEach(async () => {
  root = await tempDir();
  await writeTree(root, { 'home/project/.claude/skills/keep/SKILL.md': skillMd('kept') });
  catalog = new SkillCatalog({ cwd: project(), home: join(root, 'home'), bundledDir: null, managedDir: null });
});
afterEach(async () => {
  await catalog.close();
  await removeDir(root);
});

describe('the stability wait with native events', () => {
  it('reports a changed file once it has had no event for stabilityThreshold, not at the next poll after', { timeout: 60_000 }, async () => {
    await catalog.watch({ stabilityThreshold: STABILITY_MS, coalesceMs: COALESCE_MS });
    await sleep(300);
    const file = join(skills(), 'keep', 'SKILL.md');
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
    const tools = join(root, 'tools.jsonl');
    writeFileSync(tools, `${JSON.stringify({ id: 'one', description: 'first tool' })}\n`);
    await catalog.close();
    catalog = new SkillCatalog({ cwd: project(), home: join(root, 'home'), bundledDir: null, managedDir: null, toolsFiles: [tools] });
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
