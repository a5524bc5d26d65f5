import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-host suite runs on its own: `npm run test:hosts` (vitest.hosts.config.ts).
    exclude: [...configDefaults.exclude, 'test/hosts/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Library code that caches by default (the USE-lite graph) writes here, not into the user's ~/.cache.
    env: { SKILL_SEARCH_CACHE_DIR: join(tmpdir(), 'skill-search-vitest-cache') },
  },
});
