import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:slow`: suites that kill processes mid-write, wait out file-watcher settling or
 * run a hook into its time budget. They take most of a minute each on a 2-core machine, so
 * `npm test` leaves them out; `.ci/run` runs them after it.
 */
export const SLOW_TESTS = [
  'test/store/kill-build.test.ts',
  'test/load/watcher.test.ts',
  'test/load/watcher-bounds.test.ts',
  'test/load/watcher-settle.test.ts',
  'test/load/watcher-ready.test.ts',
  'test/load/storm.test.ts',
  'test/cli/hook-budget.test.ts',
  'test/model-store/pull-bounds.test.ts',
];

export default defineConfig({
  test: {
    include: SLOW_TESTS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { SKILL_SEARCH_CACHE_DIR: join(tmpdir(), 'skill-search-vitest-cache') },
  },
});
