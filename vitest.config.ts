import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './vitest.slow.config.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Slow suites run on their own: `npm run test:hosts` (the real host CLIs),
    // `npm run test:package` (the packed tarball installed in an empty folder) and
    // `npm run test:slow` (kills, watcher settling, time budgets).
    exclude: [...configDefaults.exclude, 'test/hosts/**', 'test/package/**', ...SLOW_TESTS],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Library code that caches by default (the USE-lite graph) writes here, not into the user's ~/.cache.
    env: { SKILL_SEARCH_CACHE_DIR: join(tmpdir(), 'skill-search-vitest-cache') },
  },
});
