import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The packed-tarball install is slow: `npm run test:package` runs it.
    exclude: ['test/package/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Library code that caches by default (the USE-lite graph) writes here, not into the user's ~/.cache.
    env: { SKILL_SEARCH_CACHE_DIR: join(tmpdir(), 'skill-search-vitest-cache') },
  },
});
