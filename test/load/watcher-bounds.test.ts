import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_EVENTS, type CatalogChange } from '../../src/load/catalog.js';
import { DEFAULT_WATCH_OPTIONS } from '../../src/load/options.js';
import { MAX_BATCH_WINDOWS, MAX_WATCHED_DIRS } from '../../src/load/watcher.js';
import { sleep, watchedProjectEach } from '../support/watched-project.js';
import { changeFor, skillMd, writeTree } from './helpers.js';

let errors: string[];
/** Waits (polling, at most `ms`) until `done()` holds. */
async function until(done: () => boolean, ms = 15_000): Promise<void> {
  for (let waited = 0; waited < ms && !done(); waited += 50) await sleep(50);
}

const watched = watchedProjectEach(() => ({ 'home/project/.claude/skills/keep/SKILL.md': skillMd('kept') }));
beforeEach(() => {
  errors = [];
  watched.catalog.on(CATALOG_EVENTS.error, (error) => errors.push(error.message));
});

describe('watch bounds', () => {
  it('skips symbolic link loops, says so, and still sees changes', { timeout: 60_000 }, async () => {
    const { root, catalog, skills } = watched;
    for (let i = 0; i < 6; i++) symlinkSync('.', join(skills, `loop${i}`));
    symlinkSync('..', join(skills, 'keep', 'up'));
    const started = Date.now();
    await catalog.watch();
    await until(() => errors.length >= 7);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(errors.filter((message) => message.includes('a symbolic link loop back to')).length).toBe(7);
    expect(errors).toContain(`skipped ${join(skills, 'loop0')}: a symbolic link loop back to ${skills}, watched once`);
    const file = join(skills, 'fresh', 'SKILL.md');
    const added = changeFor(catalog, file);
    await writeTree(root, { 'home/project/.claude/skills/fresh/SKILL.md': skillMd('fresh') });
    expect(await added).toMatchObject({ reason: 'files' });
  });

  it(`watches at most ${MAX_WATCHED_DIRS} folders when a link leads to a large tree`, { timeout: 90_000 }, async () => {
    const { root, catalog, skills } = watched;
    const big = join(root, 'big');
    for (let i = 0; i < 70; i++) for (let j = 0; j < 60; j++) mkdirSync(join(big, `d${i}`, `e${j}`), { recursive: true });
    symlinkSync(big, join(skills, 'big'));
    await catalog.watch();
    await until(() => errors.length >= 1, 30_000);
    await sleep(500);
    expect(errors.filter((message) => message.startsWith(`watching at most ${MAX_WATCHED_DIRS} folders;`))).toHaveLength(1);
    expect(errors).toHaveLength(1);
  });

  it.runIf(process.platform === 'linux')('never walks /proc through a link, and names it', { timeout: 60_000 }, async () => {
    const { catalog, skills } = watched;
    symlinkSync('/proc', join(skills, 'proc'));
    await catalog.watch();
    await until(() => errors.length >= 1);
    expect(errors).toEqual([`skipped ${join(skills, 'proc')}: a system folder (/proc)`]);
  });

  it('coalesces a stream of writes until 300 ms pass without one (a trailing debounce)', { timeout: 60_000 }, async () => {
    const { catalog, skills } = watched;
    await catalog.watch();
    await sleep(500);
    const changes: CatalogChange[] = [];
    catalog.on(CATALOG_EVENTS.change, (change) => changes.push(change));
    // 20 new skills, one every 100 ms for 2 s: each folder arrives at once, its SKILL.md 1 s later (the stability wait), 100 ms apart.
    const written: number[] = [];
    for (let i = 0; i < 20; i++) {
      mkdirSync(join(skills, `s${i}`));
      writeFileSync(join(skills, `s${i}`, 'SKILL.md'), skillMd(`skill ${i}`));
      written.push(performance.now());
      await sleep(100);
    }
    const delivered = () => new Set(changes.flatMap((change) => change.paths));
    await until(() => delivered().has(join(skills, 's19')));
    await sleep(1500);
    for (let i = 0; i < 20; i++) expect(delivered()).toContain(join(skills, `s${i}`));
    // A fixed 300 ms window split these into 7 to 10 events. A trailing one ends a batch only after a quiet window, or at its
    // cap (10 windows): on a loaded machine a 100 ms sleep can outlast the window, so each such gap may end one more.
    const { stabilityThreshold, coalesceMs } = DEFAULT_WATCH_OPTIONS;
    const span = written.at(-1)! - written[0]! + stabilityThreshold + coalesceMs;
    const longGaps = written.slice(1).filter((time, i) => time - written[i]! > coalesceMs - 100).length;
    // One more for the jitter of the stability timers.
    expect(changes.length).toBeLessThanOrEqual(Math.ceil(span / (coalesceMs * MAX_BATCH_WINDOWS)) + longGaps + 1);
  });
});
